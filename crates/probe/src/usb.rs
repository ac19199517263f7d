//! USB-attached drives: the bridge driver (`uas` or the slower `usb-storage`) and the USB ids.

use std::path::Path;

use crate::facts::UsbDetails;
use crate::root::Root;
use crate::sysfs;

/// True when the canonical sysfs path runs through a USB host controller (`/usb2/`).
pub fn is_usb_path(device_path: &Path) -> bool {
    device_path.components().any(|component| {
        component
            .as_os_str()
            .to_str()
            .and_then(|name| name.strip_prefix("usb"))
            .is_some_and(|bus| !bus.is_empty() && bus.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Reads the interface (`2-1:1.0`, bound to `uas` / `usb-storage`) and the USB device above
/// it (`2-1`: `idVendor`, `idProduct`, `manufacturer`, `product`, `speed`).
pub fn read(root: &Root, device_path: &Path) -> Option<UsbDetails> {
    if !is_usb_path(device_path) {
        return None;
    }
    let interface = device_path.ancestors().find(|ancestor| {
        ancestor
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(is_interface_name)
    })?;
    let device = interface.parent()?;
    let attr = |name: &str| root.read_attr(device.join(name));
    Some(UsbDetails {
        driver: root.link_name(interface.join("driver")),
        vendor_id: attr("idVendor"),
        product_id: attr("idProduct"),
        manufacturer: attr("manufacturer"),
        product: attr("product"),
        speed_mbps: root.parse_attr(device.join("speed"), sysfs::parse_usb_speed_mbps),
        bridge_revision: None,
    })
}

/// `BUS-PORT[.PORT...]:CONFIG.INTERFACE`, e.g. `2-1:1.0` or `1-1.4.2:1.0`.
fn is_interface_name(name: &str) -> bool {
    let Some((device, interface)) = name.split_once(':') else {
        return false;
    };
    let Some((bus, ports)) = device.split_once('-') else {
        return false;
    };
    let Some((config, number)) = interface.split_once('.') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(bus) && ports.split('.').all(digits) && digits(config) && digits(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_names_and_usb_paths() {
        for (name, is_interface) in [
            ("2-1:1.0", true),
            ("1-1.4.2:1.0", true),
            ("2-1", false),
            ("host6", false),
        ] {
            assert_eq!(is_interface_name(name), is_interface, "{name}");
        }
        for (path, on_usb) in [
            (
                "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6",
                true,
            ),
            ("/sys/devices/pci0000:00/0000:00:17.0/ata3", false),
            ("/sys/devices/usbmisc", false),
        ] {
            assert_eq!(is_usb_path(Path::new(path)), on_usb, "{path}");
        }
    }
}
