//! Merging `smartctl -j -x` reports (run live, or saved files) into the probed drives: which
//! report is which drive, and which drives to run smartctl on.

use std::path::{Path, PathBuf};

use super::{SmartctlError, SmartctlReport};
use crate::facts::{Drive, Interface, Unavailable, UnavailableReason};
use crate::root::Root;

/// How the warning about a saved output that describes no drive under the path starts.
pub const SAVED_NOT_USED_PREFIX: &str = "smartctl JSON";

/// smartctl -x of a drive with long logs is a few hundred KiB.
pub const SAVED_CAP: u64 = 16 << 20;

/// Reads the saved reports and pairs each with the drive it describes: same device name
/// (or NVMe controller), else same serial, else — for a single report on a machine with a
/// single drive, saved under a name that is not another kernel device's — that drive. Each
/// drive takes at most one report, and the passes run in that order over all reports, so a
/// report naming `sdb` is never beaten to `sdb` by one matched only by serial. A report whose
/// serial, capacity or bus disagrees with the drive describes another drive whatever its
/// name (a file saved on another machine): merged, it would show that drive's model and
/// health as this one's. A report that matches nothing is a warning naming the file and
/// what disagrees, never a guess.
///
/// `sources` are `(file name, its bytes or why they could not be read)`.
pub fn load_saved(
    sources: Vec<(String, Result<Vec<u8>, String>)>,
    drives: &[Drive],
    warnings: &mut Vec<String>,
) -> Vec<(usize, SmartctlReport)> {
    let several = sources.len() > 1;
    let mut reports: Vec<(String, SmartctlReport)> = Vec::new();
    for (file, bytes) in sources {
        match bytes.and_then(|bytes| super::parse(&bytes).map_err(|err| err.to_string())) {
            Ok(report) => reports.push((file, report)),
            Err(err) => warnings.push(format!("{SAVED_NOT_USED_PREFIX} {file}: {err}; not used")),
        }
    }

    let mut drive_taken = vec![false; drives.len()];
    let mut matched: Vec<Option<usize>> = vec![None; reports.len()];
    let passes: [fn(&SmartctlReport, &Drive) -> bool; 2] = [same_device, same_serial];
    for pass in passes {
        for (slot, (_, report)) in matched.iter_mut().zip(&reports) {
            if slot.is_some() {
                continue;
            }
            let found = drives.iter().enumerate().position(|(index, drive)| {
                !drive_taken[index] && pass(report, drive) && disagreement(report, drive).is_none()
            });
            if let Some(index) = found {
                drive_taken[index] = true;
                *slot = Some(index);
            }
        }
    }
    if drives.len() == 1
        && reports.len() == 1
        && !drive_taken[0]
        && (!names_another_device(&reports[0].1, &drives[0])
            || same_model(&reports[0].1, &drives[0]))
        && disagreement(&reports[0].1, &drives[0]).is_none()
    {
        matched[0] = Some(0);
    }

    let mut out = Vec::new();
    for ((file, report), slot) in reports.into_iter().zip(matched) {
        match slot {
            Some(index) => out.push((index, report)),
            None => {
                // Why it is not the drive it names, or the only drive there is.
                let named = drives.iter().find(|d| same_device(&report, d));
                let why = match (named, drives) {
                    (Some(drive), _) => disagreement(&report, drive).map(|w| (w, drive)),
                    (None, [drive]) => disagreement(&report, drive)
                        .or_else(|| {
                            (names_another_device(&report, drive) && !same_model(&report, drive))
                                .then(|| "device name and model".to_string())
                        })
                        .map(|w| (w, drive)),
                    _ => None,
                }
                .map(|(what, drive)| format!(" ({what} disagree with {})", drive.name))
                .unwrap_or_default();
                warnings.push(format!(
                    "{SAVED_NOT_USED_PREFIX} {} (device {}, {}, serial {}) describes none of the drives under the path{why}{}; not used",
                    file,
                    report.device_name.as_deref().unwrap_or("unknown"),
                    report.model_name.as_deref().unwrap_or("model unknown"),
                    report.serial.as_deref().unwrap_or("unknown"),
                    if several { " (that another file did not already match)" } else { "" },
                ))
            }
        }
    }
    out
}

/// What in `report` says it is another drive than `drive`, in words (`serial, capacity`);
/// `None` when everything both know agrees.
fn disagreement(report: &SmartctlReport, drive: &Drive) -> Option<String> {
    let mut what = Vec::new();
    let serial = |s: &str| s.trim().to_ascii_uppercase();
    let known = |s: &&str| !hidden_serial(s);
    if let (Some(theirs), Some(ours)) = (
        report.serial.as_deref().filter(known),
        drive.serial.as_deref().filter(known),
    ) {
        if serial(theirs) != serial(ours) {
            what.push("serial");
        }
    }
    // Both count the same sectors; 1 % leaves room for a report that rounds.
    if let (Some(theirs), Some(ours)) = (report.capacity_bytes, drive.capacity_bytes) {
        if theirs.abs_diff(ours) > theirs.max(ours) / 100 {
            what.push("capacity");
        }
    }
    if !same_bus(report, drive) {
        what.push("bus");
    }
    (!what.is_empty()).then(|| what.join(", "))
}

/// A serial number someone removed before sharing the file (`REDACTED`, `[redacted]`,
/// `XXXXXXXX`) or that was never there: it says nothing about which drive this is.
fn hidden_serial(serial: &str) -> bool {
    let serial = serial.trim().trim_matches(['[', ']']).to_ascii_uppercase();
    serial.is_empty()
        || serial == "REDACTED"
        || serial.chars().all(|c| matches!(c, 'X' | '*' | '0' | '-'))
}

/// Whether the report's protocol can be the drive's interface: smartctl reads NVMe drives
/// as NVMe, SATA/SAS/USB drives as ATA or SCSI, and has nothing to read on virtual disks.
fn same_bus(report: &SmartctlReport, drive: &Drive) -> bool {
    let nvme = report
        .protocol
        .as_deref()
        .map(|p| p.eq_ignore_ascii_case("nvme"));
    match drive.interface {
        Some(Interface::Virtio | Interface::Xen | Interface::Mmc) => false,
        Some(Interface::Nvme) => nvme != Some(false),
        Some(Interface::Sata | Interface::Sas) => nvme != Some(true),
        // A USB bridge may pass NVMe or ATA through.
        Some(Interface::Usb | Interface::Unknown) | None => true,
    }
}

/// The same model string, allowing for the drive's being cut short (SATA without root shows
/// 16 characters): a file saved when the drive had another kernel name is still this drive's.
fn same_model(report: &SmartctlReport, drive: &Drive) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_ascii_uppercase()
    };
    match (report.model_name.as_deref(), drive.model.as_deref()) {
        (Some(theirs), Some(ours)) => {
            let (theirs, ours) = (norm(theirs), norm(ours));
            !ours.is_empty() && (theirs.starts_with(&ours) || theirs.ends_with(&ours))
        }
        _ => false,
    }
}

/// The report was saved from a kernel device other than this drive (`/dev/nvme0` for
/// `vda`); a stable link (`/dev/disk/by-id/...`) names no kernel device.
fn names_another_device(report: &SmartctlReport, drive: &Drive) -> bool {
    let Some(name) = report.device_name.as_deref() else {
        return false;
    };
    !name.contains("/disk/by-") && !same_device(report, drive)
}

/// smartctl names NVMe by controller (`/dev/nvme0`) as often as by namespace.
fn same_device(report: &SmartctlReport, drive: &Drive) -> bool {
    let device = report
        .device_name
        .as_deref()
        .and_then(|name| Path::new(name).file_name())
        .and_then(|name| name.to_str());
    device.is_some_and(|device| {
        drive.name == device
            || drive
                .nvme
                .as_ref()
                .is_some_and(|nvme| nvme.controller == device)
    })
}

fn same_serial(report: &SmartctlReport, drive: &Drive) -> bool {
    report
        .serial
        .as_deref()
        .is_some_and(|serial| drive.serial.as_deref() == Some(serial))
}

/// Runs smartctl on every drive that has SMART (not virtio/xen/mmc).
/// Drives for which `has_saved` is true already have a saved report and are skipped.
pub fn run_for_drives(
    root: &Root,
    drives: &mut [Drive],
    has_saved: &dyn Fn(usize) -> bool,
    unavailable: &mut Vec<Unavailable>,
    warnings: &mut Vec<String>,
) {
    for (index, drive) in drives.iter_mut().enumerate() {
        if has_saved(index) {
            continue;
        }
        if !matches!(
            drive.interface,
            Some(Interface::Nvme | Interface::Sata | Interface::Sas | Interface::Usb)
        ) {
            continue;
        }
        let dev = PathBuf::from(format!("/dev/{}", drive.name));
        match super::run_smartctl(&dev) {
            Ok(run) => {
                // What a replay must see: a run that found no device ("unable to detect
                // device type") changed nothing here and is left out.
                if run.report.has_device_data() {
                    root.record_smartctl_output(&drive.name, &run.output);
                }
                run.report.merge_into(drive);
            }
            Err(SmartctlError::NotInstalled { .. }) => {
                unavailable.push(Unavailable {
                    fact: "smartctl health data".to_string(),
                    reason: UnavailableReason::SmartctlNotInstalled,
                });
                return;
            }
            Err(err) => warnings.push(format!("smartctl {}: {err}", dev.display())),
        }
    }
}
