//! The whole probe: path → mount → block stack → drives, plus platform, io_uring and the
//! root-only extras (NVMe admin commands, smartctl) when this is the live machine.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::block::{self, DriveHandles};
use crate::error::ProbeError;
use crate::facts::{
    AtimeMode, Drive, Facts, FstabEntry, HealthSource, Interface, MountFacts, Unavailable,
    UnavailableReason, SCHEMA_VERSION,
};
use crate::mounts::{self, MountEntry};
use crate::root::Root;
use crate::space::{self, NoStatvfs};
use crate::stack;
use crate::{iouring, network, nvme, platform, smartctl};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeOptions {
    /// Saved `smartctl -j -x` outputs (one per drive, in any order), each merged into the
    /// drive it describes.
    pub smartctl_json: Vec<PathBuf>,
    /// Saved outputs inside the replayed root (`/nodecheck/smartctl/sda.json`), read through
    /// it: their symlinks resolve inside the tree, never to a host file.
    pub replayed_smartctl: Vec<PathBuf>,
    /// Run `smartctl -j -x` per drive (live machine, as root, when installed).
    pub run_smartctl: bool,
    /// Send NVMe admin commands (live machine, as root).
    pub ioctls: bool,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            smartctl_json: Vec::new(),
            replayed_smartctl: Vec::new(),
            run_smartctl: true,
            ioctls: true,
        }
    }
}

/// Probes the storage under `path` as seen through `root`.
///
/// On the live machine `path` must exist (it is resolved and `stat`ed); under another root it
/// is taken lexically and need not exist.
pub fn probe(root: &Root, path: &Path, opts: &ProbeOptions) -> Result<Facts, ProbeError> {
    let live = root.is_live();
    let privileged = live && nix::unistd::geteuid().is_root();
    let mut warnings = Vec::new();
    let mut unavailable = Vec::new();
    let mut unresolved = Vec::new();

    let (lookup_path, st_dev) = if live {
        let io_error = |source| ProbeError::Io {
            path: path.to_path_buf(),
            source,
        };
        let absolute = std::path::absolute(path).map_err(io_error)?;
        // Resolving through the root records the symlinks followed (a datadir that is a
        // link to another disk), so a snapshot replays to the same mount.
        let canonical = match root.canonicalize(&absolute) {
            Ok(canonical) => canonical,
            Err(_) => std::fs::canonicalize(path).map_err(io_error)?,
        };
        let metadata = std::fs::metadata(&canonical).map_err(io_error)?;
        (canonical, Some(split_dev(metadata.dev())))
    } else {
        // Under a replay root the path need not exist; when it does, its links count.
        let lexical = mounts::normalize(path);
        let resolved = root.canonicalize(&lexical).unwrap_or(lexical);
        (resolved, None)
    };

    let mountinfo_path = "/proc/self/mountinfo";
    let (text, truncated) = root
        .read_text_noting_truncation(mountinfo_path)
        .ok_or_else(|| ProbeError::MountTable {
            path: PathBuf::from(mountinfo_path),
            reason: "missing or unreadable".to_string(),
        })?;
    // One pass keeping only the two candidates: a table of a million lines costs no more
    // memory than its text.
    let mut chooser = MountChooser::new(&lookup_path, st_dev);
    let mut bad_lines = 0usize;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        match mounts::parse_mountinfo_line(line) {
            Ok(entry) => chooser.offer(entry),
            Err(_) => bad_lines += 1,
        }
    }
    if bad_lines > 0 {
        warnings.push(format!(
            "{mountinfo_path}: {bad_lines} malformed line(s) skipped"
        ));
    }
    let chosen = chooser.choose();
    let entry = chosen.as_ref().ok_or_else(|| {
        if truncated {
            ProbeError::NoMountInTruncatedTable {
                path: lookup_path.clone(),
                table: PathBuf::from(mountinfo_path),
                cap: crate::root::TEXT_CAP,
            }
        } else {
            ProbeError::NoMount {
                path: lookup_path.clone(),
            }
        }
    })?;

    let mut mount = mount_facts(entry);
    mount.fstab = crate::fstab::lookup(root, &entry.mount_point);
    if live {
        match space::statvfs(Path::new(&entry.mount_point)) {
            Ok(record) => {
                mount.free_bytes = Some(record.free_bytes);
                mount.total_bytes = Some(record.total_bytes);
            }
            Err(err) => warnings.push(format!("statvfs {}: {err}", entry.mount_point)),
        }
    } else {
        match space::snapshot_statvfs(root, &entry.mount_point) {
            Ok(record) => {
                mount.free_bytes = Some(record.free_bytes);
                mount.total_bytes = Some(record.total_bytes);
            }
            Err(NoStatvfs::Absent(reason)) => unavailable.push(Unavailable {
                fact: format!("free space of {}", entry.mount_point),
                reason: reason.into(),
            }),
            Err(NoStatvfs::Broken(reason)) => {
                warnings.push(reason.clone());
                unavailable.push(Unavailable {
                    fact: format!("free space of {}", entry.mount_point),
                    reason: reason.into(),
                });
            }
        }
    }

    let tops = top_devices(root, entry, st_dev, &mut unresolved);
    let stack = stack::resolve(root, &tops);
    unresolved.extend(stack.unresolved.iter().cloned());

    let mut drives = Vec::new();
    let mut handles = Vec::new();
    let mut disks = stack.disks.clone();
    disks.sort();
    for (name, disk_path) in &disks {
        let (drive, handle) = block::read_drive(root, name, disk_path);
        drives.push(drive);
        handles.push(handle);
    }

    // Matched before the live extras so that a drive with a saved report is neither said to
    // lack SMART data nor queried again; merged after them so the saved report is what counts.
    let mut sources = Vec::new();
    for file in &opts.smartctl_json {
        let bytes =
            crate::input::read_user_file(file, smartctl_merge::SAVED_CAP, "a smartctl output");
        sources.push((file.display().to_string(), bytes.map_err(|e| e.to_string())));
    }
    for file in &opts.replayed_smartctl {
        let bytes = root.read_document(file, smartctl_merge::SAVED_CAP, "a smartctl output");
        sources.push((file.display().to_string(), bytes.map_err(|e| e.to_string())));
    }
    let saved = smartctl_merge::load_saved(sources, &drives, &mut warnings);
    live_extras(
        root,
        privileged,
        opts,
        &saved,
        &mut drives,
        &handles,
        &mut unavailable,
        &mut warnings,
    );
    for (index, report) in &saved {
        if let Some(drive) = drives.get_mut(*index) {
            report.merge_into(drive);
        }
    }

    let platform = platform::read(root, &drives);
    let io_uring = iouring::status(root, privileged);
    let fstrim_timer = fstrim_timer(root);

    let mut all_warnings = root.take_warnings();
    all_warnings.extend(warnings);
    Ok(Facts {
        schema_version: SCHEMA_VERSION,
        probe_version: env!("CARGO_PKG_VERSION").to_string(),
        root: root.base().display().to_string(),
        live,
        privileged,
        path: path.display().to_string(),
        mount: Some(mount),
        stack: stack.names(),
        trim_effective: stack.trim_effective(),
        layers: stack.layers,
        drives,
        platform,
        io_uring,
        fstrim_timer,
        unresolved,
        unavailable,
        warnings: all_warnings,
    })
}

/// Merging `smartctl -j -x` reports (run live, or a saved file) into the probed drives.
mod smartctl_merge {
    use std::path::{Path, PathBuf};

    use super::smartctl::{self, SmartctlError, SmartctlReport};
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
            match bytes.and_then(|bytes| smartctl::parse(&bytes).map_err(|err| err.to_string())) {
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
            match smartctl::run_smartctl(&dev) {
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
}

/// The mount holding `path`. On the live machine the path's own `st_dev` settles which of the
/// candidate mounts really holds it (bind mounts, btrfs subvolumes).
/// The mount holding a path, chosen while mountinfo is read: the deepest mount point that is
/// an ancestor of the path (a later entry with the same depth is mounted over an earlier one),
/// unless `stat` gave the path's device and that mount is another device's: then the deepest
/// ancestor mount of that device (a bind mount or a mount hidden under another), if any.
struct MountChooser {
    path: PathBuf,
    st_dev: Option<(u32, u32)>,
    by_path: Option<(MountEntry, usize)>,
    by_dev: Option<(MountEntry, usize)>,
}

impl MountChooser {
    fn new(path: &Path, st_dev: Option<(u32, u32)>) -> Self {
        MountChooser {
            path: mounts::normalize(path),
            st_dev,
            by_path: None,
            by_dev: None,
        }
    }

    fn offer(&mut self, entry: MountEntry) {
        let mount_point = mounts::normalize(Path::new(&entry.mount_point));
        if !self.path.starts_with(&mount_point) {
            return;
        }
        let depth = mount_point.components().count();
        let deeper =
            |best: &Option<(MountEntry, usize)>| best.as_ref().is_none_or(|(_, d)| depth >= *d);
        if self.st_dev == Some((entry.major, entry.minor)) && deeper(&self.by_dev) {
            self.by_dev = Some((entry.clone(), depth));
        }
        if deeper(&self.by_path) {
            self.by_path = Some((entry, depth));
        }
    }

    fn choose(self) -> Option<MountEntry> {
        let (by_path, _) = self.by_path?;
        match (self.st_dev, self.by_dev) {
            (Some(dev), Some((by_dev, _))) if (by_path.major, by_path.minor) != dev => Some(by_dev),
            _ => Some(by_path),
        }
    }
}

fn split_dev(dev: u64) -> (u32, u32) {
    (
        nix::sys::stat::major(dev) as u32,
        nix::sys::stat::minor(dev) as u32,
    )
}

fn mount_facts(entry: &MountEntry) -> MountFacts {
    let has = |options: &[String], name: &str| options.iter().any(|option| option == name);
    let atime = if has(&entry.mount_options, "noatime") {
        AtimeMode::Noatime
    } else if has(&entry.mount_options, "relatime") {
        AtimeMode::Relatime
    } else {
        // The kernel lists neither flag for strictatime mounts.
        AtimeMode::Strictatime
    };
    let discard = entry
        .super_options
        .iter()
        .chain(entry.mount_options.iter())
        .any(|option| option == "discard" || option.starts_with("discard="));
    MountFacts {
        mount_point: entry.mount_point.clone(),
        fs_type: entry.fs_type.clone(),
        source: entry.source.clone(),
        dev: entry.dev(),
        atime,
        lazytime: has(&entry.super_options, "lazytime") || has(&entry.mount_options, "lazytime"),
        discard,
        read_only: has(&entry.mount_options, "ro"),
        mount_options: entry.mount_options.clone(),
        super_options: entry.super_options.clone(),
        free_bytes: None,
        total_bytes: None,
        fstab: FstabEntry::Unreadable,
        network: network::share_of(&entry.fs_type, &entry.source, &entry.super_options),
    }
}

/// The block devices a mount sits on, or a plain statement of why there are none.
fn top_devices(
    root: &Root,
    entry: &MountEntry,
    st_dev: Option<(u32, u32)>,
    unresolved: &mut Vec<String>,
) -> Vec<PathBuf> {
    let (major, minor) = st_dev
        .filter(|(major, _)| *major != 0)
        .unwrap_or((entry.major, entry.minor));
    if major != 0 {
        if let Some(path) = stack::device_by_number(root, major, minor) {
            return vec![path];
        }
    }
    let fs = entry.fs_type.as_str();
    let source = entry.source.as_str();
    let from_source = source_device(root, source);
    match fs {
        "btrfs" => {
            let devices = btrfs_devices(root, from_source.as_deref());
            if devices.is_empty() {
                unresolved.push(format!(
                    "btrfs on {source}: its devices are not listed under /sys/fs/btrfs"
                ));
            }
            return devices;
        }
        "zfs" => {
            let pool = source.split('/').next().unwrap_or(source);
            unresolved.push(format!(
                "ZFS dataset {source}: the drives of pool {pool} cannot be resolved through sysfs (see `zpool status {pool}`)"
            ));
            return Vec::new();
        }
        "overlay" | "aufs" => {
            unresolved.push(format!(
                "{fs} file system (container layer): the drive under its upper directory is not resolved; probe a path on a real mount (a volume) instead"
            ));
            return Vec::new();
        }
        _ if network::ShareKind::of_fs_type(fs).is_some() => {
            unresolved.push(format!(
                "network or host-shared file system ({fs} from {source}): the drives are on another machine"
            ));
            return Vec::new();
        }
        "tmpfs" | "ramfs" => {
            unresolved.push(format!("{fs}: held in memory, no drive underneath"));
            return Vec::new();
        }
        _ => {}
    }
    if let Some(path) = from_source {
        return vec![path];
    }
    unresolved.push(if fs.starts_with("fuse") {
        format!("FUSE file system ({fs} from {source}): its backing storage is not resolved")
    } else {
        format!(
            "{fs} from {source} (device {}): no block device found in sysfs",
            entry.dev()
        )
    });
    Vec::new()
}

/// `/dev/sda1`, `/dev/mapper/vg-eth`, `/dev/md0` → the device's sysfs directory.
fn source_device(root: &Root, source: &str) -> Option<PathBuf> {
    let name = source.strip_prefix("/dev/")?;
    if let Some(mapper) = name.strip_prefix("mapper/") {
        return stack::device_by_dm_name(root, mapper);
    }
    if let Some(md) = name.strip_prefix("md/") {
        // /dev/md/NAME is a udev alias; the kernel name is in md/... only via /dev links.
        if let Ok(target) = root.canonicalize(format!("/dev/md/{md}")) {
            let kernel_name = target.file_name()?.to_str()?.to_string();
            return stack::device_by_name(root, &kernel_name);
        }
        return None;
    }
    let kernel_name = Path::new(name).file_name()?.to_str()?;
    stack::device_by_name(root, kernel_name)
}

/// All devices of the btrfs file system that contains `member`.
fn btrfs_devices(root: &Root, member: Option<&Path>) -> Vec<PathBuf> {
    let Some(member_name) = member.and_then(|m| m.file_name()).and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    for fsid in root.read_dir("/sys/fs/btrfs") {
        let devices_dir = Path::new("/sys/fs/btrfs").join(&fsid).join("devices");
        let names = root.read_dir(&devices_dir);
        if names.iter().any(|name| name == member_name) {
            return names
                .iter()
                .filter_map(|name| root.canonicalize(devices_dir.join(name)).ok())
                .collect();
        }
    }
    Vec::new()
}

/// Periodic TRIM: `fstrim.timer` wanted by `timers.target` (enabled) or masked.
fn fstrim_timer(root: &Root) -> Option<bool> {
    let wants = [
        "/etc/systemd/system/timers.target.wants/fstrim.timer",
        "/usr/lib/systemd/system/timers.target.wants/fstrim.timer",
        "/lib/systemd/system/timers.target.wants/fstrim.timer",
    ];
    if root
        .read_link("/etc/systemd/system/fstrim.timer")
        .is_some_and(|target| target == Path::new("/dev/null"))
    {
        return Some(false);
    }
    if wants.iter().any(|path| root.exists_no_follow(path)) {
        return Some(true);
    }
    root.exists("/etc/systemd/system").then_some(false)
}

/// NVMe admin commands and smartctl: only on the live machine, only as root.
// The probe's inputs and accumulators are threaded explicitly, as everywhere in probe().
#[allow(clippy::too_many_arguments)]
fn live_extras(
    root: &Root,
    privileged: bool,
    opts: &ProbeOptions,
    saved: &[(usize, smartctl::SmartctlReport)],
    drives: &mut [Drive],
    handles: &[DriveHandles],
    unavailable: &mut Vec<Unavailable>,
    warnings: &mut Vec<String>,
) {
    let has_saved = |index: usize| saved.iter().any(|(matched, _)| *matched == index);
    for (index, (drive, handle)) in drives.iter_mut().zip(handles).enumerate() {
        if let Some(controller) = &handle.nvme_controller {
            let facts = [
                format!("NVMe Identify Controller ({controller})"),
                format!("NVMe SMART log ({controller})"),
            ];
            let reason = if !root.is_live() {
                Some(UnavailableReason::Replayed)
            } else if !privileged {
                Some(UnavailableReason::NeedsRoot)
            } else if !opts.ioctls {
                Some(UnavailableReason::NvmeIoctlsOff)
            } else {
                None
            };
            match reason {
                Some(reason) => unavailable.extend(facts.into_iter().map(|fact| Unavailable {
                    fact,
                    reason: reason.clone(),
                })),
                None => nvme_admin(controller, drive, unavailable, warnings),
            }
        } else if matches!(
            drive.interface,
            Some(Interface::Sata) | Some(Interface::Sas) | Some(Interface::Usb)
        ) && drive.health.is_none()
            && !has_saved(index)
        {
            let reason = if !root.is_live() {
                Some(UnavailableReason::Replayed)
            } else if !privileged {
                Some(UnavailableReason::NeedsRootForSmartctl)
            } else if !opts.run_smartctl {
                Some(UnavailableReason::SmartctlOff)
            } else {
                None
            };
            if let Some(reason) = reason {
                unavailable.push(Unavailable {
                    fact: format!("SMART health ({})", drive.name),
                    reason,
                });
            }
        }
    }
    if root.is_live() && privileged && opts.run_smartctl {
        smartctl_merge::run_for_drives(root, drives, &has_saved, unavailable, warnings);
    }
}

fn nvme_admin(
    controller: &str,
    drive: &mut Drive,
    unavailable: &mut Vec<Unavailable>,
    warnings: &mut Vec<String>,
) {
    let dev = PathBuf::from(format!("/dev/{controller}"));
    let mut failed = |fact: String, err: nvme::IoctlError| {
        if err.needs_root() {
            unavailable.push(Unavailable {
                fact,
                reason: UnavailableReason::NeedsRoot,
            });
        } else {
            warnings.push(err.to_string());
        }
    };
    match nvme::admin_identify_controller(&dev) {
        Ok(identify) => {
            drive.hmb = Some(identify.hmpre_4k > 0);
            drive.trim_supported = Some(identify.dataset_management);
            if let Some(details) = drive.nvme.as_mut() {
                details.identify = Some(identify);
            }
        }
        Err(err) => failed(format!("NVMe Identify Controller ({controller})"), err),
    }
    match nvme::admin_smart_log(&dev) {
        Ok(log) => {
            if let Some(celsius) = log.temperature_c() {
                drive.temperature_c = Some(celsius);
                drive.temperature_source = Some(HealthSource::NvmeSmartLog);
            }
            drive.health = Some(log.health());
        }
        Err(err) => failed(format!("NVMe SMART log ({controller})"), err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_root_the_root_only_facts_are_unavailable() {
        let drives = || {
            vec![
                Drive {
                    name: "nvme0n1".into(),
                    interface: Some(Interface::Nvme),
                    ..Drive::default()
                },
                Drive {
                    name: "sda".into(),
                    interface: Some(Interface::Sata),
                    ..Drive::default()
                },
                Drive {
                    name: "vda".into(),
                    interface: Some(Interface::Virtio),
                    ..Drive::default()
                },
            ]
        };
        let handles = vec![
            DriveHandles {
                nvme_controller: Some("nvme0".into()),
            },
            DriveHandles::default(),
            DriveHandles::default(),
        ];
        let mut probed = drives();
        let (mut unavailable, mut warnings) = (Vec::new(), Vec::new());
        // Unprivileged on the live machine: nothing is attempted, everything is explained.
        live_extras(
            &Root::live(),
            false,
            &ProbeOptions::default(),
            &[],
            &mut probed,
            &handles,
            &mut unavailable,
            &mut warnings,
        );
        let listed: Vec<(&str, &str)> = unavailable
            .iter()
            .map(|u| (u.fact.as_str(), u.reason.as_str()))
            .collect();
        assert_eq!(
            listed,
            vec![
                ("NVMe Identify Controller (nvme0)", "needs root"),
                ("NVMe SMART log (nvme0)", "needs root"),
                ("SMART health (sda)", "needs root (smartctl)"),
            ]
        );
        assert!(warnings.is_empty());
        assert_eq!(probed, drives(), "no ioctl or smartctl result may appear");
    }

    #[test]
    fn atime_modes_and_discard() {
        let entry = mounts::parse_mountinfo_line(
            "40 27 259:2 / /data rw,noatime - ext4 /dev/nvme0n1p2 rw,lazytime,discard",
        )
        .expect("valid");
        let facts = mount_facts(&entry);
        assert_eq!(facts.atime, AtimeMode::Noatime);
        assert!(facts.lazytime && facts.discard && !facts.read_only);
        let strict =
            mounts::parse_mountinfo_line("1 0 8:1 / / rw - xfs /dev/sda1 rw,attr2").expect("valid");
        assert_eq!(mount_facts(&strict).atime, AtimeMode::Strictatime);
        let btrfs = mounts::parse_mountinfo_line(
            "1 0 0:33 / / rw,relatime - btrfs /dev/sda1 rw,ssd,discard=async,space_cache=v2",
        )
        .expect("valid");
        let facts = mount_facts(&btrfs);
        assert_eq!(facts.atime, AtimeMode::Relatime);
        assert!(facts.discard);
    }
}
