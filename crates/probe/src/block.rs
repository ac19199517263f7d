//! One physical (or virtual) disk at the bottom of the stack: what sysfs says about it without
//! root, per interface — NVMe controller and PCIe link, libata IDENTIFY and SATA link, USB
//! bridge, virtio/xen/mmc — plus hwmon temperature.

use std::path::{Path, PathBuf};

use crate::ata;
use crate::facts::{
    AtaDetails, ControllerMode, Drive, HealthSource, Interface, ModelSource, NvmeDetails,
};
use crate::hwmon;
use crate::pci::{self, PciFunction};
use crate::root::Root;
use crate::sysfs;
use crate::usb;
use crate::vmbus;
use crate::vpd;

/// Where the live-only probes (ioctls, smartctl) find a drive's controller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriveHandles {
    /// NVMe controller character device name (`nvme0`), for admin commands.
    pub nvme_controller: Option<String>,
}

/// Reads every sysfs fact of the disk `name` whose canonical in-root sysfs directory is
/// `path`.
pub fn read_drive(root: &Root, name: &str, path: &Path) -> (Drive, DriveHandles) {
    let attr = |relative: &str| root.read_attr(path.join(relative));
    let mut drive = Drive {
        name: name.to_string(),
        capacity_bytes: root
            .parse_attr(path.join("size"), sysfs::sectors_to_bytes)
            .filter(|bytes| *bytes > 0),
        queue_rotational: root.parse_attr(path.join("queue/rotational"), sysfs::parse_flag),
        logical_block_size: root
            .parse_attr(path.join("queue/logical_block_size"), sysfs::parse_u32),
        physical_block_size: root
            .parse_attr(path.join("queue/physical_block_size"), sysfs::parse_u32),
        scheduler: root.parse_attr(path.join("queue/scheduler"), sysfs::parse_scheduler),
        write_cache: attr("queue/write_cache"),
        ..Drive::default()
    };
    drive.rotational = drive.queue_rotational;
    // Each queue's `nr_tags` is read, not only listed, so that a snapshot keeps the queues.
    let queues = root.read_dir(path.join("mq"));
    let readable = |q: &String| {
        root.read_attr(path.join("mq").join(q).join("nr_tags"))
            .is_some()
    };
    drive.queue_count =
        Some(queues.iter().filter(|q| readable(q)).count() as u32).filter(|n| *n > 0);
    let mut handles = DriveHandles::default();

    let interface = detect_interface(root, name, path);
    drive.interface = Some(interface);
    match interface {
        Interface::Nvme => read_nvme(root, path, &mut drive, &mut handles),
        Interface::Usb => {
            read_scsi_identity(root, path, &mut drive);
            read_sat_identity(root, path, &mut drive);
            read_block_characteristics(root, path, &mut drive);
            drive.usb = usb::read(root, path);
            // A bridge that answers INQUIRY as itself (vendor `Samsung`, product `PSSD T7`)
            // answers its own revision too; a SAT bridge (vendor `ATA`) passes on the drive's.
            if let (Some(usb), Some(_)) = (drive.usb.as_mut(), drive.vendor.as_ref()) {
                usb.bridge_revision = drive.firmware.take();
            }
            drive.controller_driver = drive.usb.as_ref().and_then(|u| u.driver.clone());
            read_drivetemp(root, path, &mut drive);
        }
        Interface::Sata => {
            read_scsi_identity(root, path, &mut drive);
            read_block_characteristics(root, path, &mut drive);
            read_sata(root, path, &mut drive);
            read_drivetemp(root, path, &mut drive);
        }
        Interface::Sas | Interface::Unknown if name.starts_with("sd") => {
            read_scsi_identity(root, path, &mut drive);
            read_sat_identity(root, path, &mut drive);
            read_block_characteristics(root, path, &mut drive);
            read_scsi_controller(root, path, &mut drive);
            read_drivetemp(root, path, &mut drive);
            drive.vmbus = vmbus::read(root, path);
        }
        // virtio-scsi: a SCSI disk whose INQUIRY is the hypervisor's (`QEMU HARDDISK`) or, for
        // a disk passed through, the real drive's.
        Interface::Virtio if name.starts_with("sd") => {
            read_scsi_identity(root, path, &mut drive);
            read_sat_identity(root, path, &mut drive);
            read_block_characteristics(root, path, &mut drive);
            drive.controller_driver = virtio_driver(root, path);
        }
        Interface::Virtio | Interface::Xen => {
            drive.serial = attr("serial");
            drive.controller_driver = root.link_name(path.join("device/driver"));
        }
        Interface::Mmc => {
            drive.model = root.read_attr(path.join("device/name"));
            drive.model_source = drive.model.as_ref().map(|_| ModelSource::MmcCid);
            drive.serial = root.read_attr(path.join("device/serial"));
            drive.firmware = root.read_attr(path.join("device/fwrev"));
            drive.controller_driver = root.link_name(path.join("device/driver"));
        }
        Interface::Sas | Interface::Unknown => {}
    }

    if drive.rotation_rate_rpm.is_none() {
        if let Some(rpm) = drive.vpd_rotation_rate_rpm {
            drive.rotational = Some(rpm != 0);
        }
    }

    if drive.trim_supported.is_none() {
        // Without IDENTIFY/Identify data, the block layer's hardware discard limit is the
        // best statement of what the device accepts.
        drive.trim_supported = root
            .parse_attr(path.join("queue/discard_max_hw_bytes"), sysfs::parse_u64)
            .map(|bytes| bytes > 0);
    }
    (drive, handles)
}

fn detect_interface(root: &Root, name: &str, path: &Path) -> Interface {
    let has_component = |predicate: &dyn Fn(&str) -> bool| {
        path.components()
            .any(|c| c.as_os_str().to_str().is_some_and(predicate))
    };
    if name.starts_with("nvme") || has_component(&|c| c == "nvme") {
        return Interface::Nvme;
    }
    if usb::is_usb_path(path) {
        return Interface::Usb;
    }
    if has_component(&|c| {
        c.strip_prefix("virtio")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }) {
        return Interface::Virtio;
    }
    if name.starts_with("xvd") || has_component(&|c| c.starts_with("vbd-")) {
        return Interface::Xen;
    }
    if name.starts_with("mmcblk") {
        return Interface::Mmc;
    }
    if ata_port(path).is_some() {
        return Interface::Sata;
    }
    if has_component(&|c| c.starts_with("end_device-")) {
        return Interface::Sas;
    }
    if name.starts_with("sd") {
        if let Some(function) = PciFunction::nearest_above(root, path) {
            if function.controller_mode() == ControllerMode::Sas {
                return Interface::Sas;
            }
        }
    }
    Interface::Unknown
}

/// The libata port directory (`.../ata3`) above a SATA disk.
fn ata_port(path: &Path) -> Option<&Path> {
    path.ancestors().find(|ancestor| {
        ancestor
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_prefix("ata"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// The SCSI device (`H:C:T:L`) a disk belongs to.
fn scsi_device(root: &Root, path: &Path) -> Option<PathBuf> {
    root.canonicalize(path.join("device")).ok()
}

/// SCSI INQUIRY strings: the model is cut at 16 characters, so IDENTIFY or smartctl replace
/// it when they are available.
fn read_scsi_identity(root: &Root, path: &Path, drive: &mut Drive) {
    let device = path.join("device");
    drive.model = root.read_attr(device.join("model"));
    drive.model_source = drive.model.as_ref().map(|_| ModelSource::ScsiInquiry);
    drive.firmware = root.read_attr(device.join("rev"));
    // libata fills the SCSI vendor with the placeholder "ATA".
    drive.vendor = root
        .read_attr(device.join("vendor"))
        .filter(|vendor| vendor != "ATA");
}

/// What the Device Identification and Unit Serial Number VPD pages add to the 16-character
/// INQUIRY view: the whole ATA model behind a SAT layer, and the serial.
fn read_sat_identity(root: &Root, path: &Path, drive: &mut Drive) {
    let device = path.join("device");
    if drive.serial.is_none() {
        drive.serial = root
            .read_bytes(device.join("vpd_pg80"))
            .and_then(|page| vpd::parse_unit_serial(&page));
    }
    let Some(ata) = root
        .read_bytes(device.join("vpd_pg83"))
        .and_then(|page| vpd::parse_ata_designator(&page))
    else {
        return;
    };
    drive.model = Some(ata.model);
    drive.model_source = Some(ModelSource::SatDeviceIdentification);
    if let Some(serial) = ata.serial {
        drive.serial = Some(serial);
    }
}

/// The virtio driver above a virtio-scsi disk (`virtio_scsi`), from the virtio device the
/// SCSI host hangs off.
fn virtio_driver(root: &Root, path: &Path) -> Option<String> {
    let device = root.canonicalize(path.join("device")).ok()?;
    let virtio = device.ancestors().find(|dir| {
        dir.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("virtio"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })?;
    root.link_name(virtio.join("driver"))
}

/// The Block Device Characteristics VPD page, when the kernel read one from the device.
fn read_block_characteristics(root: &Root, path: &Path, drive: &mut Drive) {
    let page_path = path.join("device/vpd_pgb1");
    let Some(page) = root.read_bytes(&page_path) else {
        return;
    };
    match vpd::parse_block_characteristics(&page) {
        Ok(rate) => drive.vpd_rotation_rate_rpm = rate,
        Err(err) => root.warn(format!("{}: {err}", page_path.display())),
    }
}

fn read_scsi_controller(root: &Root, path: &Path, drive: &mut Drive) {
    if let Some(function) = PciFunction::nearest_above(root, path) {
        drive.controller_mode = Some(function.controller_mode());
        drive.controller_driver = function.driver.clone();
        drive.controller_pci_class = function.class_string();
    }
}

fn read_drivetemp(root: &Root, path: &Path, drive: &mut Drive) {
    if let Some(device) = scsi_device(root, path) {
        if let Some(celsius) = hwmon::drivetemp(root, &device) {
            drive.temperature_c = Some(celsius);
            drive.temperature_source = Some(HealthSource::Hwmon);
        }
    }
}

fn read_sata(root: &Root, path: &Path, drive: &mut Drive) {
    let Some(port) = ata_port(path) else {
        return;
    };
    let port_name = port
        .file_name()
        .map(|name| name.to_string_lossy().into_owned());
    let port_number = port_name
        .as_deref()
        .and_then(|name| name.strip_prefix("ata"))
        .unwrap_or_default()
        .to_string();
    // Without a port multiplier the disk is device 0 of link N; with one, the SCSI target
    // number is the PMP link.
    let target = scsi_device(root, path)
        .and_then(|device| {
            device
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(|hctl| hctl.split(':').nth(2))
                .map(str::to_string)
        })
        .unwrap_or_else(|| "0".to_string());
    let (link_dir, device_dir) = find_ata_device(root, port, &port_number, &target);

    let mut details = AtaDetails {
        port: port_name,
        device: device_dir
            .as_ref()
            .and_then(|dir| dir.file_name())
            .map(|name| name.to_string_lossy().into_owned()),
        ..AtaDetails::default()
    };
    if let Some(device_dir) = &device_dir {
        let class_dir = libata_class_dir(device_dir, "ata_device");
        details.trim_mode = root.read_attr(class_dir.join("trim"));
        if let Some(raw) = root.read_bytes(class_dir.join("id")) {
            // An empty `id` belongs to a port multiplier, not a disk.
            if !raw.iter().all(u8::is_ascii_whitespace) {
                match ata::parse_identify_text(&raw) {
                    Ok(identify) => {
                        if identify.checksum_ok == Some(false) {
                            // Still used, as smartctl and hdparm do: the kernel itself kept
                            // this response, some firmware signs it with a wrong sum, and the
                            // strings and capability bits are mostly what the drive meant. A
                            // corrupted field shows up as a model no database knows, not as a
                            // wrong verdict about a known one; the warning lets a reader
                            // discount the drive's identity and capabilities.
                            root.warn(format!(
                                "{}: IDENTIFY data at {} fails its integrity checksum (word 255); \
                                 model, firmware, serial, TRIM and link speed are taken from it \
                                 but may be corrupted",
                                drive.name,
                                class_dir.join("id").display()
                            ));
                        }
                        apply_identify(&identify, drive, &mut details);
                    }
                    Err(err) => root.warn(format!(
                        "{}: IDENTIFY data unusable: {err}",
                        class_dir.join("id").display()
                    )),
                }
            }
        }
    }
    if let Some(link_dir) = &link_dir {
        let class_dir = libata_class_dir(link_dir, "ata_link");
        if let Some(speed) =
            root.parse_attr(class_dir.join("sata_spd"), sysfs::parse_sata_speed_gbps)
        {
            drive.sata_link_gbps = Some(speed);
        }
    }
    drive.ata = Some(details);

    if let Some(function) = PciFunction::nearest_above(root, port) {
        drive.controller_mode = Some(function.controller_mode());
        drive.controller_driver = function.driver.clone();
        drive.controller_pci_class = function.class_string();
    }
}

/// The class device libata registers under a link or device directory, named after it:
/// `devN.M/ata_device/devN.M`, `linkN/ata_link/linkN`.
fn libata_class_dir(dir: &Path, class: &str) -> PathBuf {
    dir.join(class).join(
        dir.file_name()
            .map(|name| name.to_os_string())
            .unwrap_or_default(),
    )
}

/// `ataN/linkN[.M]/devN[.M].0` → (link dir, device dir).
fn find_ata_device(
    root: &Root,
    port: &Path,
    port_number: &str,
    target: &str,
) -> (Option<PathBuf>, Option<PathBuf>) {
    let links: Vec<String> = root
        .read_dir(port)
        .into_iter()
        .filter(|name| name.starts_with("link"))
        .collect();
    let preferred = [
        format!("link{port_number}.{target}"),
        format!("link{port_number}"),
    ];
    let link = preferred
        .iter()
        .find(|name| links.contains(name))
        .or_else(|| links.first())
        .map(|name| port.join(name));
    let Some(link) = link else {
        return (None, None);
    };
    let devices: Vec<String> = root
        .read_dir(&link)
        .into_iter()
        .filter(|name| name.starts_with("dev"))
        .collect();
    let device = devices.first().map(|name| link.join(name));
    (Some(link), device)
}

fn apply_identify(identify: &ata::AtaIdentify, drive: &mut Drive, details: &mut AtaDetails) {
    let non_empty = |text: &str| (!text.is_empty()).then(|| text.to_string());
    if let Some(model) = non_empty(&identify.model) {
        drive.model = Some(model);
        drive.model_source = Some(ModelSource::AtaIdentify);
    }
    if let Some(firmware) = non_empty(&identify.firmware) {
        drive.firmware = Some(firmware);
    }
    if let Some(serial) = non_empty(&identify.serial) {
        drive.serial = Some(serial);
    }
    drive.trim_supported = Some(identify.trim_supported);
    details.deterministic_read_after_trim = Some(identify.deterministic_read_after_trim);
    drive.rotation_rate_rpm = identify.rotation_rate_rpm();
    drive.sata_link_max_gbps = identify.sata_max_gbps;
    if drive.sata_link_gbps.is_none() {
        drive.sata_link_gbps = identify.sata_current_gbps;
    }
    // The drive knows whether it spins; `queue/rotational` is only the kernel's default.
    if let Some(rotational) = identify.rotational() {
        drive.rotational = Some(rotational);
    }
}

fn read_nvme(root: &Root, path: &Path, drive: &mut Drive, handles: &mut DriveHandles) {
    let Some(controller) = crate::nvme::namespace_controller(root, path) else {
        return;
    };
    let controller_name = controller
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let attr = |name: &str| root.read_attr(controller.join(name));
    drive.model = attr("model");
    drive.model_source = drive.model.as_ref().map(|_| ModelSource::NvmeIdentify);
    drive.serial = attr("serial");
    drive.firmware = attr("firmware_rev");
    let transport = attr("transport");

    let function = root
        .canonicalize(controller.join("device"))
        .ok()
        .and_then(|device| PciFunction::read(root, &device));
    drive.hmb = if root.exists(controller.join("hmb")) {
        Some(true)
    } else if transport.as_deref() == Some("pcie") && kernel_has_hmb_attribute(root) {
        Some(false)
    } else {
        None
    };
    if let Some(function) = &function {
        drive.pcie_link = function.link(root);
        drive.controller_driver = function.driver.clone();
        drive.controller_pci_class = function.class_string();
        if pci::behind_vmd(root, &function.path) {
            drive.controller_mode = Some(ControllerMode::Vmd);
        }
    }
    if let Some(celsius) = hwmon::nvme_temperature(
        root,
        &controller,
        function.as_ref().map(|f| f.path.as_path()),
    ) {
        drive.temperature_c = Some(celsius);
        drive.temperature_source = Some(HealthSource::Hwmon);
    }
    drive.nvme = Some(NvmeDetails {
        controller: controller_name.clone(),
        transport,
        state: attr("state"),
        pci_address: attr("address").or_else(|| function.as_ref().map(|f| f.address.clone())),
        pci_vendor_id: function.as_ref().and_then(PciFunction::vendor_string),
        pci_device_id: function.as_ref().and_then(PciFunction::device_string),
        identify: None,
    });
    handles.nvme_controller = Some(controller_name);
}

/// The `hmb` attribute exists since Linux 5.15; on older kernels its absence says nothing.
fn kernel_has_hmb_attribute(root: &Root) -> bool {
    root.parse_attr("/proc/sys/kernel/osrelease", kernel_version)
        .is_some_and(|version| version >= (5, 15))
}

/// `"6.8.0-45-generic"` → `(6, 8)`.
pub fn kernel_version(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_versions() {
        assert_eq!(kernel_version("6.8.0-45-generic"), Some((6, 8)));
        assert_eq!(kernel_version("5.15.0"), Some((5, 15)));
        assert_eq!(kernel_version("garbage"), None);
    }
}
