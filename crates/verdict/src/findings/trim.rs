//! NC3xx: TRIM support by the drive, pass-through by every layer above it, periodic TRIM.

use probe::{ControllerMode, Drive, Facts, Interface, Layer, LayerKind};

use crate::code::Code;
use crate::database::Database;
use crate::model::{Finding, Severity};

pub const FSTRIM_FIX: &str = "sudo systemctl enable --now fstrim.timer";

pub fn check(facts: &Facts, db: &Database) -> Vec<Finding> {
    let is_hard_disk = |drive: &Drive| super::media::spins(drive, db);
    let solid_state: Vec<&Drive> = facts.drives.iter().filter(|d| !is_hard_disk(d)).collect();
    if solid_state.is_empty() {
        // TRIM is meaningless for spinning disks; the hard disk finding already says enough.
        return Vec::new();
    }
    let mut out = Vec::new();

    let mut drive_problem = false;
    for drive in &solid_state {
        if drive.trim_supported == Some(false) {
            drive_problem = true;
            out.push(drive_without_trim(drive));
        }
    }

    let blocking = blocking_layers(&facts.layers);
    for layer in &blocking {
        // The drive's own lack of TRIM is reported above; a disk layer that drops discard
        // while the drive claims support is the controller's doing.
        if layer.kind == LayerKind::Disk {
            let drive = facts.drives.iter().find(|d| d.name == layer.name);
            if drive.is_some_and(|d| d.trim_supported == Some(false) || is_hard_disk(d)) {
                continue;
            }
        }
        out.push(blocked_by(layer, facts));
    }

    if !drive_problem && blocking.is_empty() && facts.trim_effective == Some(true) {
        out.push(Finding::new(
            Code::TrimReachesDrive,
            Severity::Ok,
            "TRIM reaches the drive",
            format!(
                "Every layer from {} down to the drive passes discard.",
                facts
                    .stack
                    .first()
                    .map(String::as_str)
                    .unwrap_or("the file system")
            ),
        ));
    }

    // A layer that blocks TRIM gets fixed; the periodic TRIM is needed after that too.
    if !drive_problem {
        if let Some(f) = periodic_trim(facts) {
            out.push(f);
        }
    }
    out
}

fn drive_without_trim(drive: &Drive) -> Finding {
    let behind_raid = drive.controller_mode == Some(ControllerMode::Raid);
    let model = drive
        .model
        .as_deref()
        .map_or_else(|| "the drive".to_owned(), |m| super::clip(m, 64));
    if behind_raid {
        let driver = drive
            .controller_driver
            .as_deref()
            .map(|d| format!(" (driver {d})"))
            .unwrap_or_default();
        Finding::new(
            Code::TrimBlocked,
            Severity::Warning,
            "TRIM is blocked by the RAID controller",
            format!(
                "{}: {model} sits behind a controller in RAID mode{driver} that does not pass TRIM; without TRIM the drive slows down as it fills.",
                drive.name
            ),
        )
        .with_fix("Put the controller in AHCI, HBA or JBOD (IT) mode in the UEFI/BIOS or controller setup so the OS sees the drive directly")
        .about(&drive.name)
    } else if let Some(fix) = usb_unmap_fix(drive) {
        Finding::new(
            Code::TrimUnsupported,
            Severity::Warning,
            "TRIM does not reach the drive over USB",
            format!(
                "{}: {model} is attached over USB and the bridge reports no UNMAP support, so Linux sends no TRIM and writes slow down as the drive fills.",
                drive.name
            ),
        )
        .with_fix(fix)
        .about(&drive.name)
    } else {
        Finding::new(
            Code::TrimUnsupported,
            Severity::Warning,
            "The drive does not support TRIM",
            format!(
                "{}: {model} does not report TRIM (deallocate) support, so freed blocks are never handed back and writes slow down as the drive fills.",
                drive.name
            ),
        )
        .with_fix("Use a drive that supports TRIM; a virtual disk needs discard enabled by the hypervisor (e.g. `discard=unmap` in QEMU/Proxmox)")
        .about(&drive.name)
    }
}

/// Layers that drop discard although every layer below them passes it: the first place
/// TRIM gets lost. Layers above such a place also show 0 and are not the cause.
fn blocking_layers(layers: &[Layer]) -> Vec<&Layer> {
    let passes = |name: &str| {
        layers
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.discard_max_bytes != Some(0))
            .unwrap_or(true)
    };
    layers
        .iter()
        .filter(|l| l.discard_max_bytes == Some(0))
        .filter(|l| l.lower.iter().all(|lower| passes(lower)))
        .collect()
}

fn blocked_by(layer: &Layer, facts: &Facts) -> Finding {
    let name = &layer.name;
    let dm_name = layer.detail.as_deref().unwrap_or(name);
    let consequence = "so TRIM never reaches the SSD and writes slow down as it fills";
    let (title, detail, fix): (String, String, String) = match layer.kind {
        LayerKind::Crypt => (
            "TRIM is blocked by dm-crypt".to_owned(),
            format!("The dm-crypt device {dm_name} ({name}) was opened without allow-discards and drops discard requests (discard_max_bytes = 0), {consequence}."),
            // The work-queue flags go with it: `refresh` resets every flag it is not given.
            super::crypt::refresh_fix(dm_name),
        ),
        LayerKind::Lvm => (
            "TRIM is blocked by LVM".to_owned(),
            format!("The LVM volume {dm_name} ({name}) drops discard requests (discard_max_bytes = 0), {consequence}."),
            "Check the volume's discard mode with `sudo lvs -o+discards`; a thin pool needs `sudo lvchange --discards passdown VG/POOL`".to_owned(),
        ),
        LayerKind::Md => {
            let level = layer.detail.as_deref().unwrap_or("md");
            let parity = matches!(level, "raid4" | "raid5" | "raid6");
            (
                "TRIM is blocked by md RAID".to_owned(),
                format!("The md RAID {name} ({level}) drops discard requests (discard_max_bytes = 0), {consequence}."),
                if parity {
                    "If every member returns zeroes after TRIM, allow it: `echo 'options raid456 devices_handle_discard_safely=Y' | sudo tee /etc/modprobe.d/raid456.conf`, rebuild the initramfs and reboot".to_owned()
                } else {
                    "Check that every member device supports TRIM (`lsblk --discard`); md passes discard only when all members do".to_owned()
                },
            )
        }
        LayerKind::Disk => {
            let drive = facts.drives.iter().find(|d| &d.name == name);
            let driver = drive
                .and_then(|d| d.controller_driver.as_deref())
                .map(|d| format!(", driver {d}"))
                .unwrap_or_default();
            if let Some(fix) = drive.and_then(usb_unmap_fix) {
                (
                    "TRIM is blocked by the USB bridge".to_owned(),
                    format!("{name} supports TRIM but the USB bridge in front of it accepts no discard requests (discard_max_bytes = 0), {consequence}."),
                    fix,
                )
            } else if drive.is_some_and(|d| d.controller_mode == Some(ControllerMode::Raid)) {
                (
                    "TRIM is blocked by the RAID controller".to_owned(),
                    format!("{name} supports TRIM but sits behind a controller in RAID mode{driver} that drops discard requests (discard_max_bytes = 0), {consequence}."),
                    "Put the controller in AHCI, HBA or JBOD (IT) mode in the UEFI/BIOS or controller setup so the OS sees the drive directly".to_owned(),
                )
            } else {
                (
                    "TRIM is blocked below the operating system".to_owned(),
                    format!("{name} supports TRIM but the disk accepts no discard requests (discard_max_bytes = 0){driver}: its controller or hypervisor does not pass them, {consequence}."),
                    "Put the controller in AHCI/HBA mode, or for a virtual disk enable discard in the hypervisor (QEMU/Proxmox `discard=on`)".to_owned(),
                )
            }
        }
        LayerKind::Multipath | LayerKind::Dm => (
            "TRIM is blocked by device-mapper".to_owned(),
            format!("The device-mapper target {dm_name} ({name}) drops discard requests (discard_max_bytes = 0), {consequence}."),
            format!("Check the target with `sudo dmsetup table {dm_name}` and enable discard passdown for it"),
        ),
        LayerKind::Loop => (
            "TRIM is blocked by a loop device".to_owned(),
            format!("The loop device {name} drops discard requests (discard_max_bytes = 0), {consequence}."),
            "Put the node's data on the drive itself rather than on a file behind a loop device".to_owned(),
        ),
        LayerKind::Partition | LayerKind::Other => (
            "TRIM is blocked by a layer of the block stack".to_owned(),
            format!("{name} drops discard requests (discard_max_bytes = 0), {consequence}."),
            format!("Check `lsblk --discard` for {name} and the layers below it"),
        ),
    };
    Finding::new(Code::TrimBlocked, Severity::Warning, title, detail)
        .with_fix(fix)
        .about(name)
}

/// Linux leaves UNMAP off for USB bridges it does not know to support it; a udev rule for
/// the bridge's USB ids turns it on (Arch wiki, "Solid state drive: External SSD with TRIM
/// support"). It only helps when the bridge really translates UNMAP to TRIM.
fn usb_unmap_fix(drive: &Drive) -> Option<String> {
    if drive.interface != Some(Interface::Usb) {
        return None;
    }
    let usb = drive.usb.as_ref();
    let ids = usb.and_then(|u| Some((u.vendor_id.as_deref()?, u.product_id.as_deref()?)));
    let hex = |s: &str| !s.is_empty() && s.len() <= 4 && s.chars().all(|c| c.is_ascii_hexdigit());
    let name = &drive.name;
    let install = match ids {
        Some((vendor, product)) if hex(vendor) && hex(product) => format!(
            "echo 'ACTION==\"add|change\", ATTRS{{idVendor}}==\"{vendor}\", ATTRS{{idProduct}}==\"{product}\", SUBSYSTEM==\"scsi_disk\", ATTR{{provisioning_mode}}=\"unmap\"' | sudo tee /etc/udev/rules.d/50-usb-ssd-trim.rules"
        ),
        // The ids were not read here: udev's usb_id builtin has them as the disk's properties,
        // so the rule is written with them rather than with words to replace by hand.
        _ => format!(
            "vendor=$(udevadm info -q property -n /dev/{name} | sed -n 's/^ID_VENDOR_ID=//p'); product=$(udevadm info -q property -n /dev/{name} | sed -n 's/^ID_MODEL_ID=//p'); echo \"ACTION==\\\"add|change\\\", ATTRS{{idVendor}}==\\\"$vendor\\\", ATTRS{{idProduct}}==\\\"$product\\\", SUBSYSTEM==\\\"scsi_disk\\\", ATTR{{provisioning_mode}}=\\\"unmap\\\"\" | sudo tee /etc/udev/rules.d/50-usb-ssd-trim.rules"
        ),
    };
    Some(format!(
        "If the bridge supports UNMAP (`sudo sg_vpd -p lbpv /dev/{name}`), enable it with a udev rule: `{install}`, then replug the drive; better, move the drive to an internal M.2 slot"
    ))
}

fn periodic_trim(facts: &Facts) -> Option<Finding> {
    let mount = facts.mount.as_ref()?;
    if mount.fs_type == "zfs" {
        // With the pool's properties read (as root), NC530 judges `autotrim` itself; this
        // reminder is only for when nobody could read it.
        if facts
            .zfs
            .as_ref()
            .is_some_and(|zfs| zfs.pool_properties.contains_key("autotrim"))
        {
            return None;
        }
        let pool = mount.source.split('/').next().unwrap_or(&mount.source);
        return Some(
            Finding::new(
                Code::NoPeriodicTrim,
                Severity::Info,
                "ZFS: make sure the pool trims",
                format!(
                    "{} is ZFS; TRIM is the pool property `autotrim`, which the probe cannot read.",
                    mount.mount_point
                ),
            )
            .with_fix(format!("sudo zpool set autotrim=on {pool}")),
        );
    }
    if mount.discard {
        return None;
    }
    match facts.fstrim_timer {
        Some(true) => None,
        Some(false) => Some(
            Finding::new(
                Code::NoPeriodicTrim,
                Severity::Warning,
                "No periodic TRIM",
                format!(
                    "fstrim.timer is not enabled and {} is mounted without `discard`, so freed space is never trimmed.",
                    mount.mount_point
                ),
            )
            .with_fix(FSTRIM_FIX),
        ),
        None => Some(
            Finding::new(
                Code::NoPeriodicTrim,
                Severity::Info,
                "Periodic TRIM could not be checked",
                format!(
                    "No systemd configuration was found, and {} is mounted without `discard`; make sure something runs `fstrim` weekly.",
                    mount.mount_point
                ),
            )
            .with_fix(format!("{FSTRIM_FIX}   (or a weekly cron job running `sudo fstrim -v {}`)", mount.mount_point)),
        ),
    }
}
