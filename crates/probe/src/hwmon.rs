//! Drive temperatures from hwmon without root: the NVMe driver's `nvme` hwmon (kernel >= 5.5)
//! and the `drivetemp` module for SATA disks.

use std::path::Path;

use crate::root::Root;
use crate::sysfs;

/// Composite temperature of the NVMe controller at `controller_path` (canonical in-root
/// path of `nvmeX`). The hwmon's parent moved from the PCI function to the controller in
/// 5.12, so either may be its `device`.
pub fn nvme_temperature(
    root: &Root,
    controller_path: &Path,
    pci_path: Option<&Path>,
) -> Option<f64> {
    // Newer kernels put hwmonN directly under the controller; try that first, it is cheap.
    for name in root.read_dir(controller_path) {
        if name.starts_with("hwmon") {
            if let Some(value) = hwmon_temp(root, &controller_path.join(&name), "nvme") {
                return Some(value);
            }
        }
    }
    for name in root.read_dir("/sys/class/hwmon") {
        let hwmon = Path::new("/sys/class/hwmon").join(&name);
        if root.read_attr(hwmon.join("name")).as_deref() != Some("nvme") {
            continue;
        }
        let Ok(device) = root.canonicalize(hwmon.join("device")) else {
            continue;
        };
        if device == controller_path || Some(device.as_path()) == pci_path {
            if let Some(value) =
                root.parse_attr(hwmon.join("temp1_input"), sysfs::parse_millidegrees)
            {
                return Some(value);
            }
        }
    }
    None
}

/// `temp1_input` of the hwmon directory `hwmon` when its driver's `name` is `driver`.
fn hwmon_temp(root: &Root, hwmon: &Path, driver: &str) -> Option<f64> {
    if root.read_attr(hwmon.join("name")).as_deref() != Some(driver) {
        return None;
    }
    root.parse_attr(hwmon.join("temp1_input"), sysfs::parse_millidegrees)
}

/// `drivetemp` puts `hwmon/hwmonN/temp1_input` under the SCSI device (`H:C:T:L`).
pub fn drivetemp(root: &Root, scsi_device_path: &Path) -> Option<f64> {
    let hwmon_dir = scsi_device_path.join("hwmon");
    root.read_dir(&hwmon_dir)
        .into_iter()
        .find_map(|name| hwmon_temp(root, &hwmon_dir.join(name), "drivetemp"))
}

/// The temperature of the drive behind block device `name` (`nvme0n1`, `sda`) from hwmon, for
/// sampling it while a measurement runs: the NVMe controller's `nvme` hwmon or `drivetemp`.
pub fn block_device_temperature(root: &Root, name: &str) -> Option<f64> {
    let block = crate::devices::device_by_name(root, name)?;
    if name.starts_with("nvme") {
        // The namespace's controller, as the probe finds it (through `nvme-subsysN` with
        // native multipath).
        let controller = crate::nvme::namespace_controller(root, &block)?;
        let pci = root.canonicalize(controller.join("device")).ok();
        return nvme_temperature(root, &controller, pci.as_deref());
    }
    let device = root.canonicalize(block.join("device")).ok()?;
    drivetemp(root, &device)
}
