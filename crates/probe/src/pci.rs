//! PCI functions above a block device: class code, vendor/device ids, bound driver and the
//! PCIe link (current against maximum speed and width).

use std::path::{Path, PathBuf};

use crate::facts::{ControllerMode, PcieLink};
use crate::root::Root;
use crate::sysfs;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciFunction {
    /// In-root sysfs directory (`/sys/devices/pci0000:00/0000:00:1d.0/0000:03:00.0`).
    pub path: PathBuf,
    /// `0000:03:00.0`.
    pub address: String,
    /// 24-bit class code (`0x010802` NVMe, `0x010601` AHCI).
    pub class: Option<u32>,
    pub vendor: Option<u32>,
    pub device: Option<u32>,
    /// Bound driver (`nvme`, `ahci`, `ata_piix`, `megaraid_sas`).
    pub driver: Option<String>,
}

impl PciFunction {
    pub fn read(root: &Root, path: &Path) -> Option<PciFunction> {
        let address = path.file_name()?.to_str()?.to_string();
        if !is_pci_address(&address) {
            return None;
        }
        Some(PciFunction {
            path: path.to_path_buf(),
            address,
            class: root.parse_attr(path.join("class"), sysfs::parse_hex_u32),
            vendor: root.parse_attr(path.join("vendor"), sysfs::parse_hex_u32),
            device: root.parse_attr(path.join("device"), sysfs::parse_hex_u32),
            driver: root.link_name(path.join("driver")),
        })
    }

    /// The PCI function closest above `device_path` (a canonical in-root sysfs path).
    pub fn nearest_above(root: &Root, device_path: &Path) -> Option<PciFunction> {
        device_path
            .ancestors()
            .find(|ancestor| {
                ancestor
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(is_pci_address)
            })
            .and_then(|function| PciFunction::read(root, function))
    }

    /// `0x010601`, as sysfs writes the class.
    pub fn class_string(&self) -> Option<String> {
        self.class.map(|class| format!("0x{class:06x}"))
    }

    pub fn vendor_string(&self) -> Option<String> {
        self.vendor.map(|id| format!("0x{id:04x}"))
    }

    pub fn device_string(&self) -> Option<String> {
        self.device.map(|id| format!("0x{id:04x}"))
    }

    /// The PCIe link of this function; `None` when sysfs has none of the four attributes
    /// (conventional PCI, virtual functions, fixtures without them).
    pub fn link(&self, root: &Root) -> Option<PcieLink> {
        let dir = &self.path;
        let link = PcieLink {
            current_gts: root
                .parse_attr(dir.join("current_link_speed"), sysfs::parse_link_speed_gts),
            current_width: root.parse_attr(dir.join("current_link_width"), sysfs::parse_link_width),
            max_gts: root.parse_attr(dir.join("max_link_speed"), sysfs::parse_link_speed_gts),
            max_width: root.parse_attr(dir.join("max_link_width"), sysfs::parse_link_width),
        };
        let empty = link.current_gts.is_none()
            && link.current_width.is_none()
            && link.max_gts.is_none()
            && link.max_width.is_none();
        (!empty).then_some(link)
    }

    /// How a storage controller presents its disks, from class code and driver.
    pub fn controller_mode(&self) -> ControllerMode {
        if self.driver.as_deref() == Some("vmd") {
            return ControllerMode::Vmd;
        }
        let Some(class) = self.class else {
            return ControllerMode::Unknown;
        };
        match class >> 8 {
            0x0101 => ControllerMode::Ide,
            0x0104 => ControllerMode::Raid,
            // prog-if 0x01 is AHCI; 0x00 is a vendor-specific SATA interface.
            0x0106 if class & 0xff == 0x01 => ControllerMode::Ahci,
            0x0107 => ControllerMode::Sas,
            _ => ControllerMode::Unknown,
        }
    }
}

/// Intel VMD puts the devices behind it in a synthetic PCI domain (`pci10000:00`) under the
/// VMD function.
pub fn behind_vmd(root: &Root, device_path: &Path) -> bool {
    device_path.ancestors().any(|ancestor| {
        let Some(name) = ancestor.file_name().and_then(|name| name.to_str()) else {
            return false;
        };
        (is_pci_address(name) && root.link_name(ancestor.join("driver")).as_deref() == Some("vmd"))
            || name
                .strip_prefix("pci")
                .and_then(|rest| rest.split(':').next())
                .and_then(|domain| u32::from_str_radix(domain, 16).ok())
                .is_some_and(|domain| domain >= 0x10000)
    })
}

/// `dddd:bb:dd.f` in lowercase hex, the form sysfs names PCI functions with.
pub fn is_pci_address(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.len() < 12 {
        return false;
    }
    // Domains above 0xffff (VMD) make the first group longer than four digits.
    let Some((domain, rest)) = name.split_once(':') else {
        return false;
    };
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let Some((bus, slot_function)) = rest.split_once(':') else {
        return false;
    };
    let Some((slot, function)) = slot_function.split_once('.') else {
        return false;
    };
    domain.len() >= 4
        && hex(domain)
        && bus.len() == 2
        && hex(bus)
        && slot.len() == 2
        && hex(slot)
        && function.len() == 1
        && function.bytes().all(|b| (b'0'..=b'7').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_pci_addresses() {
        for (name, is_address) in [
            ("0000:03:00.0", true),
            ("10000:e1:00.0", true),
            ("pci0000:00", false),
            ("0000:03:00.8", false),
            ("nvme0", false),
            ("ata3", false),
        ] {
            assert_eq!(is_pci_address(name), is_address, "{name}");
        }
    }

    #[test]
    fn controller_modes_from_class_codes() {
        let function = |class: u32, driver: &str| PciFunction {
            path: PathBuf::from("/x/0000:00:17.0"),
            address: "0000:00:17.0".into(),
            class: Some(class),
            vendor: None,
            device: None,
            driver: Some(driver.into()),
        };
        let cases = [
            (0x010601, "ahci", ControllerMode::Ahci),
            (0x01018f, "ata_piix", ControllerMode::Ide),
            (0x010400, "ahci", ControllerMode::Raid),
            (0x010700, "mpt3sas", ControllerMode::Sas),
            (0x010400, "vmd", ControllerMode::Vmd),
            (0x010802, "nvme", ControllerMode::Unknown),
        ];
        for (class, driver, mode) in cases {
            assert_eq!(
                function(class, driver).controller_mode(),
                mode,
                "class {class:#08x}, driver {driver}"
            );
        }
    }
}
