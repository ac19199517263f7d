//! Free space of a file system: `statvfs` on the live machine, or the figures a snapshot
//! captured (a replay cannot ask the other machine's kernel).

use std::collections::BTreeMap;
use std::os::fd::AsFd;
use std::path::Path;

use serde::Deserialize;

use crate::error::ProbeError;
use crate::root::Root;

/// The file a snapshot writes with `statvfs` figures of the mounts it captured, keyed by
/// mount point (documented in docs/json.md).
pub const SNAPSHOT_STATVFS: &str = "/.nodecheck/statvfs.json";

/// One `statvfs` result as a snapshot stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct StatvfsRecord {
    pub free_bytes: u64,
    pub total_bytes: u64,
}

/// `statvfs` of the live file system holding `path`: free = blocks available to unprivileged
/// users.
pub fn statvfs(path: &Path) -> Result<StatvfsRecord, nix::Error> {
    nix::sys::statvfs::statvfs(path).map(|stat| StatvfsRecord::from(&stat))
}

/// [`statvfs`] of the file system of an open file or directory: its path may have been
/// swapped since it was opened.
pub fn fstatvfs(file: impl AsFd) -> Result<StatvfsRecord, nix::Error> {
    nix::sys::statvfs::fstatvfs(file).map(|stat| StatvfsRecord::from(&stat))
}

impl From<&nix::sys::statvfs::Statvfs> for StatvfsRecord {
    fn from(stat: &nix::sys::statvfs::Statvfs) -> Self {
        #[allow(clippy::useless_conversion)] // the field types differ between targets
        let fragment = u64::from(stat.fragment_size());
        #[allow(clippy::useless_conversion)]
        let (available, blocks) = (u64::from(stat.blocks_available()), u64::from(stat.blocks()));
        StatvfsRecord {
            free_bytes: available.saturating_mul(fragment),
            total_bytes: blocks.saturating_mul(fragment),
        }
    }
}

/// Why a replay has no free-space figure.
pub(crate) enum NoStatvfs {
    /// The snapshot did not capture one (older snapshots, fixture trees).
    Absent(String),
    /// It captured something unusable: unreadable, malformed, or impossible.
    Broken(String),
}

/// The snapshot's statvfs record for `mount_point`, or why there is none: missing, unreadable,
/// malformed and impossible (more free than total) are told apart, never all "missing".
pub(crate) fn snapshot_statvfs(root: &Root, mount_point: &str) -> Result<StatvfsRecord, NoStatvfs> {
    /// One record per captured mount: a few hundred bytes.
    const STATVFS_CAP: u64 = 1 << 20;
    let bytes = match root.read_document(SNAPSHOT_STATVFS, STATVFS_CAP, "a snapshot's statvfs file")
    {
        Ok(bytes) => bytes,
        Err(ProbeError::NotFound { .. }) => {
            return Err(NoStatvfs::Absent(format!(
                "replayed root without {SNAPSHOT_STATVFS}"
            )));
        }
        Err(err) => {
            return Err(NoStatvfs::Broken(format!(
                "{SNAPSHOT_STATVFS} is unreadable: {err}"
            )))
        }
    };
    let records: BTreeMap<String, StatvfsRecord> = serde_json::from_slice(&bytes)
        .map_err(|err| NoStatvfs::Broken(format!("{SNAPSHOT_STATVFS} is malformed: {err}")))?;
    let record = records.get(mount_point).copied().ok_or_else(|| {
        NoStatvfs::Absent(format!(
            "{SNAPSHOT_STATVFS} has no record for {mount_point}"
        ))
    })?;
    if record.free_bytes > record.total_bytes {
        return Err(NoStatvfs::Broken(format!(
            "{SNAPSHOT_STATVFS} says {} bytes are free of {} in total for {mount_point}, which cannot be",
            record.free_bytes, record.total_bytes
        )));
    }
    Ok(record)
}
