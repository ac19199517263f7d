//! Merging `smartctl -j -x` reports (run live, or saved files) into the probed drives: which
//! report is which drive, and which drives to run smartctl on.

use std::path::{Path, PathBuf};

use super::{SmartctlError, SmartctlReport};
use crate::facts::{Drive, Interface, Unavailable, UnavailableReason};
use crate::root::Root;

/// smartctl -x of a drive with long logs is a few hundred KiB.
pub const SAVED_CAP: u64 = 16 << 20;

/// Reads the saved reports and pairs each with the drive it describes: same device name
/// (or NVMe controller), else same serial, else — for a single report on a machine with a
/// single drive — that drive. Each drive takes at most one report, and the passes run in
/// that order over all reports, so a report naming `sdb` is never beaten to `sdb` by one
/// matched only by serial. A report that matches nothing is a warning naming the file,
/// never a guess.
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
            Err(err) => warnings.push(format!("smartctl JSON {file}: {err}")),
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
            let found = drives
                .iter()
                .enumerate()
                .position(|(index, drive)| !drive_taken[index] && pass(report, drive));
            if let Some(index) = found {
                drive_taken[index] = true;
                *slot = Some(index);
            }
        }
    }
    if drives.len() == 1 && reports.len() == 1 && !drive_taken[0] {
        matched[0] = Some(0);
    }

    let mut out = Vec::new();
    for ((file, report), slot) in reports.into_iter().zip(matched) {
        match slot {
            Some(index) => out.push((index, report)),
            None => warnings.push(format!(
                "smartctl JSON {} (device {}, serial {}) matches none of the probed drives{}; not merged",
                file,
                report.device_name.as_deref().unwrap_or("unknown"),
                report.serial.as_deref().unwrap_or("unknown"),
                if several { " (that another file did not already match)" } else { "" },
            )),
        }
    }
    out
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
