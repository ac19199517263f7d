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
use crate::{devices, iouring, network, nvme, platform, smartctl, zfs};

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

/// What a probe could not establish, gathered step by step and returned with the facts.
#[derive(Debug, Default)]
struct Gaps {
    /// Problems that blurred one fact (a malformed line, a failed command).
    warnings: Vec<String>,
    /// Facts that exist but could not be read in this run, and why.
    unavailable: Vec<Unavailable>,
    /// Devices of the stack that could not be followed down to a drive.
    unresolved: Vec<String>,
}

impl Gaps {
    fn unavailable(&mut self, fact: String, reason: UnavailableReason) {
        self.unavailable.push(Unavailable { fact, reason });
    }
}

/// Probes the storage under `path` as seen through `root`.
///
/// On the live machine `path` must exist (it is resolved and `stat`ed); under another root it
/// is taken lexically and need not exist.
pub fn probe_path(root: &Root, path: &Path, opts: &ProbeOptions) -> Result<Facts, ProbeError> {
    let live = root.is_live();
    let privileged = live && nix::unistd::geteuid().is_root();
    let mut gaps = Gaps::default();
    let (lookup_path, st_dev) = resolve_path(root, path)?;
    let entry = mount_holding(root, &lookup_path, st_dev, &mut gaps)?;
    let mut mount = mount_facts(&entry);
    mount.fstab = crate::fstab::lookup(root, &entry.mount_point);
    free_space(root, &entry.mount_point, &mut mount, &mut gaps);

    let zfs = (entry.fs_type == "zfs").then(|| zfs::read(root, &entry.source, &mut gaps.warnings));
    let tops = match &zfs {
        Some((_, members)) if !members.is_empty() => members.clone(),
        _ => top_devices(root, &entry, st_dev, &mut gaps.unresolved),
    };
    let mut stack = stack::resolve(root, &tops);
    gaps.unresolved.extend(stack.unresolved.iter().cloned());
    stack::read_dm_tables(root, privileged, &mut stack.layers, &mut gaps.unavailable);
    let (mut drives, handles) = read_drives(root, &stack);

    // Matched before the live extras so that a drive with a saved report is neither said to
    // lack SMART data nor queried again; merged after them so the saved report is what counts.
    let saved =
        smartctl::merge::load_saved(saved_smartctl(root, opts), &drives, &mut gaps.warnings);
    live_extras(
        root,
        privileged,
        opts,
        &saved,
        &mut drives,
        &handles,
        &mut gaps,
    );
    for (index, report) in &saved {
        if let Some(drive) = drives.get_mut(*index) {
            report.merge_into(drive);
        }
    }

    let platform = platform::read(root, &drives);
    let io_uring = iouring::status(root, privileged);
    let fstrim_timer = fstrim_timer(root);

    let mut warnings = root.take_warnings();
    warnings.extend(gaps.warnings);
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
        unresolved: gaps.unresolved,
        zfs: zfs.map(|(facts, _)| facts),
        power: crate::power::read(root),
        unavailable: gaps.unavailable,
        warnings,
    })
}

/// The path to look the mount up by, and on the live machine its device number.
fn resolve_path(root: &Root, path: &Path) -> Result<(PathBuf, Option<(u32, u32)>), ProbeError> {
    if !root.is_live() {
        // Under a replay root the path need not exist; when it does, its links count.
        let lexical = mounts::normalize(path);
        let resolved = root.canonicalize(&lexical).unwrap_or(lexical);
        return Ok((resolved, None));
    }
    let io_error = |source| ProbeError::Io {
        path: path.to_path_buf(),
        source,
    };
    let absolute = std::path::absolute(path).map_err(io_error)?;
    // Resolving through the root records the symlinks followed (a datadir that is a link to
    // another disk), so a snapshot replays to the same mount.
    let canonical = match root.canonicalize(&absolute) {
        Ok(canonical) => canonical,
        Err(_) => std::fs::canonicalize(path).map_err(io_error)?,
    };
    let metadata = std::fs::metadata(&canonical).map_err(io_error)?;
    Ok((canonical, Some(split_dev(metadata.dev()))))
}

/// The mountinfo entry of the mount holding `lookup_path`.
fn mount_holding(
    root: &Root,
    lookup_path: &Path,
    st_dev: Option<(u32, u32)>,
    gaps: &mut Gaps,
) -> Result<MountEntry, ProbeError> {
    let mountinfo_path = "/proc/self/mountinfo";
    let (text, truncated) = root
        .read_text_noting_truncation(mountinfo_path)
        .ok_or_else(|| ProbeError::MountTable {
            path: PathBuf::from(mountinfo_path),
            reason: "missing or unreadable".to_string(),
        })?;
    // One pass keeping only the two candidates: a table of a million lines costs no more
    // memory than its text.
    let mut chooser = mounts::MountChooser::new(lookup_path, st_dev);
    let mut bad_lines = 0usize;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        match mounts::parse_mountinfo_line(line) {
            Ok(entry) => chooser.offer(entry),
            Err(_) => bad_lines += 1,
        }
    }
    if bad_lines > 0 {
        gaps.warnings.push(format!(
            "{mountinfo_path}: {bad_lines} malformed line(s) skipped"
        ));
    }
    chooser.choose().ok_or_else(|| {
        if truncated {
            ProbeError::NoMountInTruncatedTable {
                path: lookup_path.to_path_buf(),
                table: PathBuf::from(mountinfo_path),
                cap: crate::root::TEXT_CAP,
            }
        } else {
            ProbeError::NoMount {
                path: lookup_path.to_path_buf(),
            }
        }
    })
}

/// Free and total bytes of the mount: `statvfs` live, the snapshot's record in a replay.
fn free_space(root: &Root, mount_point: &str, mount: &mut MountFacts, gaps: &mut Gaps) {
    let record = if root.is_live() {
        space::statvfs(Path::new(mount_point))
            .map_err(|err| gaps.warnings.push(format!("statvfs {mount_point}: {err}")))
            .ok()
    } else {
        match space::snapshot_statvfs(root, mount_point) {
            Ok(record) => Some(record),
            Err(NoStatvfs::Absent(reason)) => {
                gaps.unavailable(format!("free space of {mount_point}"), reason.into());
                None
            }
            Err(NoStatvfs::Broken(reason)) => {
                gaps.warnings.push(reason.clone());
                gaps.unavailable(format!("free space of {mount_point}"), reason.into());
                None
            }
        }
    };
    if let Some(record) = record {
        mount.free_bytes = Some(record.free_bytes);
        mount.total_bytes = Some(record.total_bytes);
    }
}

/// Every disk at the bottom of the stack, in name order, with what the live extras need.
fn read_drives(root: &Root, stack: &stack::Stack) -> (Vec<Drive>, Vec<DriveHandles>) {
    let mut disks = stack.disks.clone();
    disks.sort();
    disks
        .iter()
        .map(|(name, disk_path)| block::read_drive(root, name, disk_path))
        .unzip()
}

/// The saved smartctl outputs to merge: the user's files, and a replayed snapshot's read
/// through its root. `(file name, its bytes or why they could not be read)`.
fn saved_smartctl(root: &Root, opts: &ProbeOptions) -> Vec<(String, Result<Vec<u8>, String>)> {
    let cap = smartctl::merge::SAVED_CAP;
    let user = opts.smartctl_json.iter().map(|file| {
        let bytes = crate::input::read_user_file(file, cap, "a smartctl output");
        (file.display().to_string(), bytes.map_err(|e| e.to_string()))
    });
    let replayed = opts.replayed_smartctl.iter().map(|file| {
        let bytes = root.read_document(file, cap, "a smartctl output");
        (file.display().to_string(), bytes.map_err(|e| e.to_string()))
    });
    user.chain(replayed).collect()
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
        if let Some(path) = devices::device_by_number(root, major, minor) {
            return vec![path];
        }
    }
    let fs = entry.fs_type.as_str();
    let source = entry.source.as_str();
    let from_source = source_device(root, source);
    match fs {
        "btrfs" => {
            let devices = btrfs_devices(root, from_source.as_deref());
            // Without /sys/fs/btrfs the mount source still names a device (an md array).
            if let (true, Some(device)) = (devices.is_empty(), from_source) {
                if !device.to_string_lossy().contains("/md") {
                    unresolved.push(format!("btrfs on {source}: only the mount source is known; other devices of the file system are not listed under /sys/fs/btrfs"));
                }
                return vec![device];
            }
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
                "ZFS dataset {source}: no udev record names a member of pool {pool} and `zpool status -P {pool}` did not list one"
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
        return devices::device_by_dm_name(root, mapper);
    }
    if let Some(md) = name.strip_prefix("md/") {
        // /dev/md/NAME is a udev alias; the kernel name is in md/... only via /dev links.
        if let Ok(target) = root.canonicalize(format!("/dev/md/{md}")) {
            let kernel_name = target.file_name()?.to_str()?.to_string();
            return devices::device_by_name(root, &kernel_name);
        }
        return None;
    }
    let kernel_name = Path::new(name).file_name()?.to_str()?;
    devices::device_by_name(root, kernel_name)
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
fn live_extras(
    root: &Root,
    privileged: bool,
    opts: &ProbeOptions,
    saved: &[(usize, smartctl::SmartctlReport)],
    drives: &mut [Drive],
    handles: &[DriveHandles],
    gaps: &mut Gaps,
) {
    let has_saved = |index: usize| saved.iter().any(|(matched, _)| *matched == index);
    for (index, (drive, handle)) in drives.iter_mut().zip(handles).enumerate() {
        if let Some(controller) = &handle.nvme_controller {
            let facts = [
                format!("NVMe Identify Controller ({controller})"),
                format!("NVMe SMART log ({controller})"),
            ];
            let reason = first_unmet([
                (root.is_live(), UnavailableReason::Replayed),
                (privileged, UnavailableReason::NeedsRoot),
                (opts.ioctls, UnavailableReason::NvmeIoctlsOff),
            ]);
            match reason {
                Some(reason) => {
                    for fact in facts {
                        gaps.unavailable(fact, reason.clone());
                    }
                }
                None => nvme_admin(controller, drive, gaps),
            }
        } else if matches!(
            drive.interface,
            Some(Interface::Sata) | Some(Interface::Sas) | Some(Interface::Usb)
        ) && drive.health.is_none()
            && !has_saved(index)
        {
            let reason = first_unmet([
                (root.is_live(), UnavailableReason::Replayed),
                (privileged, UnavailableReason::NeedsRootForSmartctl),
                (opts.run_smartctl, UnavailableReason::SmartctlOff),
            ]);
            if let Some(reason) = reason {
                gaps.unavailable(format!("SMART health ({})", drive.name), reason);
            }
        }
    }
    if root.is_live() && privileged && opts.run_smartctl {
        smartctl::merge::run_for_drives(
            root,
            drives,
            &has_saved,
            &mut gaps.unavailable,
            &mut gaps.warnings,
        );
    }
}

/// The reason of the first condition not met, in the order given: a reading needs a live
/// machine before it needs root, and root before the source being turned on matters.
fn first_unmet<const N: usize>(
    conditions: [(bool, UnavailableReason); N],
) -> Option<UnavailableReason> {
    conditions
        .into_iter()
        .find(|(met, _)| !met)
        .map(|(_, reason)| reason)
}

fn nvme_admin(controller: &str, drive: &mut Drive, gaps: &mut Gaps) {
    let dev = PathBuf::from(format!("/dev/{controller}"));
    let mut failed = |fact: String, err: nvme::IoctlError| {
        if err.needs_root() {
            gaps.unavailable(fact, UnavailableReason::NeedsRoot);
        } else {
            gaps.warnings.push(err.to_string());
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
        let mut gaps = Gaps::default();
        // Unprivileged on the live machine: nothing is attempted, everything is explained.
        live_extras(
            &Root::live(),
            false,
            &ProbeOptions::default(),
            &[],
            &mut probed,
            &handles,
            &mut gaps,
        );
        let listed: Vec<(&str, &str)> = gaps
            .unavailable
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
        assert!(gaps.warnings.is_empty());
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
