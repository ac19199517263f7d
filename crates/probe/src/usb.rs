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
    let vendor_id = attr("idVendor");
    let product_id = attr("idProduct");
    let quirks_parameter = match (&vendor_id, &product_id) {
        (Some(vendor), Some(product)) => root
            .read_attr(QUIRKS_PARAMETER)
            .and_then(|text| quirks_for(&text, vendor, product)),
        _ => None,
    };
    Some(UsbDetails {
        driver: root.link_name(interface.join("driver")),
        vendor_id,
        product_id,
        manufacturer: attr("manufacturer"),
        product: attr("product"),
        speed_mbps: root.parse_attr(device.join("speed"), sysfs::parse_usb_speed_mbps),
        bridge_revision: None,
        bcd_device: attr("bcdDevice"),
        uas_offered: root
            .read_bytes(device.join("descriptors"))
            .map(|raw| offers_uas(&raw)),
        quirks_parameter,
        provisioning_mode: provisioning_mode(root, device_path),
    })
}

/// `usb-storage.quirks=VID:PID:FLAGS[,...]` as the module holds it (drivers/usb/storage/usb.c).
const QUIRKS_PARAMETER: &str = "/sys/module/usb_storage/parameters/quirks";

/// The flags the `quirks` parameter gives `vendor:product` (hex, any case), if any.
fn quirks_for(parameter: &str, vendor: &str, product: &str) -> Option<String> {
    parameter.split(',').find_map(|entry| {
        let mut fields = entry.trim().splitn(3, ':');
        let (v, p, flags) = (fields.next()?, fields.next()?, fields.next()?);
        (v.eq_ignore_ascii_case(vendor) && p.eq_ignore_ascii_case(product) && !flags.is_empty())
            .then(|| flags.to_string())
    })
}

/// Whether any interface descriptor in a device's raw `descriptors` (the device descriptor
/// followed by every configuration with all alternate settings) is mass storage
/// (class 0x08) over UAS (protocol 0x62). The walk follows each descriptor's `bLength` and
/// stops at a zero or overlong one, so a truncated or hostile file ends the walk.
fn offers_uas(raw: &[u8]) -> bool {
    const INTERFACE: u8 = 4;
    const MASS_STORAGE: u8 = 0x08;
    const UAS: u8 = 0x62;
    let mut rest = raw;
    while let [length, kind, ..] = *rest {
        let length = usize::from(length);
        if length < 2 || length > rest.len() {
            return false;
        }
        let descriptor = &rest[..length];
        if kind == INTERFACE && length >= 9 && descriptor[5] == MASS_STORAGE && descriptor[7] == UAS
        {
            return true;
        }
        rest = &rest[length..];
    }
    false
}

/// `provisioning_mode` of the disk's `scsi_disk` (`full`, `unmap`, `writesame_16`, ...).
fn provisioning_mode(root: &Root, device_path: &Path) -> Option<String> {
    let scsi_disk = device_path.join("device/scsi_disk");
    let entry = root.read_dir(&scsi_disk).into_iter().next()?;
    root.read_attr(scsi_disk.join(entry).join("provisioning_mode"))
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

    /// A bridge's descriptors as `lsusb -v` lists them for a UAS enclosure: the device
    /// descriptor, one configuration, interface 0 alternate setting 0 (Bulk-Only, protocol
    /// 0x50) with two endpoints, and alternate setting 1 (UAS, protocol 0x62).
    fn uas_enclosure_descriptors() -> Vec<u8> {
        let mut raw = vec![
            18, 1, 0x20, 0x03, 0, 0, 0, 9, 0x2d, 0x15, 0x67, 0x05, 0x14, 0x02, 1, 2, 3, 1,
        ];
        raw.extend([9, 2, 85, 0, 1, 1, 0, 0xc0, 0]);
        raw.extend([9, 4, 0, 0, 2, 0x08, 0x06, 0x50, 0]);
        raw.extend([7, 5, 0x81, 2, 0, 4, 0]);
        raw.extend([7, 5, 0x02, 2, 0, 4, 0]);
        raw.extend([9, 4, 0, 1, 4, 0x08, 0x06, 0x62, 0]);
        raw
    }

    #[test]
    fn uas_is_found_in_an_alternate_setting_and_hostile_descriptors_end_the_walk() {
        let raw = uas_enclosure_descriptors();
        assert!(offers_uas(&raw));
        // Bulk-Only alone: the alternate setting cut off.
        assert!(!offers_uas(&raw[..raw.len() - 9]));
        // A truncated descriptor, a zero length, nothing at all.
        assert!(!offers_uas(&raw[..raw.len() - 4]));
        assert!(!offers_uas(&[0, 4, 0, 1, 4, 0x08, 0x06, 0x62, 0]));
        assert!(!offers_uas(&[]));
        assert!(!offers_uas(&[9]));
    }

    #[test]
    fn the_quirks_parameter_names_flags_per_device() {
        let parameter = "0bc2:2322:u,152D:0578:uf";
        assert_eq!(quirks_for(parameter, "152d", "0578").as_deref(), Some("uf"));
        assert_eq!(quirks_for(parameter, "0bc2", "2322").as_deref(), Some("u"));
        assert_eq!(quirks_for(parameter, "174c", "55aa"), None);
        assert_eq!(quirks_for("", "174c", "55aa"), None);
        assert_eq!(quirks_for("174c:55aa:", "174c", "55aa"), None);
        assert_eq!(quirks_for("garbage", "174c", "55aa"), None);
    }

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
