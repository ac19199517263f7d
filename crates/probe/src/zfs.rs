//! A ZFS dataset under the path: its pool's member devices from the kernel's records, the
//! pool's health and the module's version and ARC limit, and (when the commands are there) the
//! pool and dataset properties.
//!
//! The members come from udev's database (`/run/udev/data/b<major>:<minor>`), where libblkid's
//! ZFS probe leaves `E:ID_FS_TYPE=zfs_member` and `E:ID_FS_LABEL=<pool>` for every member
//! partition; `zpool status -P` names them when udev has no record. The health is
//! `/proc/spl/kstat/zfs/<pool>/state`, the module version `/sys/module/zfs/version`, the ARC
//! limit the `c_max` of `/proc/spl/kstat/zfs/arcstats`. See docs/sources/setups.md.
//!
//! The commands' outputs are recorded for `nodecheck snapshot`, which keeps them under
//! `/nodecheck/zfs/`: a replay reads them there instead of running anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::devices;
use crate::root::Root;

/// The pool properties read with `zpool get -Hp`.
pub const POOL_PROPERTIES: &str = "ashift,autotrim";
/// The dataset properties read with `zfs get -Hp` (OpenZFS 2.1 has them all).
pub const DATASET_PROPERTIES: &str =
    "recordsize,compression,atime,relatime,sync,primarycache,logbias";
/// Direct I/O's property, new in OpenZFS 2.3, asked for by itself: `zfs get` fails (exit 2) on
/// a whole list that names a property it does not know, which before 2.3 lost every dataset
/// property (seen on a real 2.1.11 pool, docs/sources/openzfs-real-kernel.md).
pub const DIRECT_PROPERTY: &str = "direct";
/// Where a fixture or an unpacked snapshot keeps the commands' outputs.
pub const SAVED_POOL_PROPERTIES: &str = "/nodecheck/zfs/zpool-get.txt";
pub const SAVED_DATASET_PROPERTIES: &str = "/nodecheck/zfs/zfs-get.txt";
/// `zpool status -P POOL`, kept where udev had no member record (a machine without udev, a
/// container): the replay resolves the same members from it.
pub const SAVED_POOL_STATUS: &str = "/nodecheck/zfs/zpool-status.txt";

/// What the probe learned about the ZFS dataset that holds the path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ZfsFacts {
    pub dataset: String,
    pub pool: String,
    /// `/proc/spl/kstat/zfs/<pool>/state`: `ONLINE`, `DEGRADED`, `FAULTED`, ...
    pub pool_state: Option<String>,
    /// `/sys/module/zfs/version` (`2.2.2-0ubuntu9`).
    pub module_version: Option<String>,
    /// The kernel names of the pool's member devices (`nvme0n1p1`), in name order.
    pub members: Vec<String>,
    /// Where the members were found: `udev` or `zpool status`.
    pub members_from: Option<String>,
    /// `zfs_arc_max` module parameter in bytes; 0 means the module's default.
    pub arc_max_parameter_bytes: Option<u64>,
    /// The ARC's effective upper bound (`c_max` in arcstats), bytes.
    pub arc_c_max_bytes: Option<u64>,
    /// `MemTotal` of `/proc/meminfo`, bytes.
    pub mem_total_bytes: Option<u64>,
    /// `zpool get -Hp` values by property (`ashift` → `12`).
    pub pool_properties: BTreeMap<String, String>,
    /// `zfs get -Hp` values by property (`recordsize` → `131072`).
    pub dataset_properties: BTreeMap<String, String>,
}

impl ZfsFacts {
    /// Whether an `O_DIRECT` read on this dataset reaches the drives. OpenZFS before 2.3
    /// accepts the flag and serves the read through the ARC; 2.3 added Direct I/O, which the
    /// dataset's `direct` property can turn off. `None` when the version is unknown.
    pub fn direct_io_bypasses_arc(&self) -> Option<bool> {
        if let Some(direct) = self.dataset_properties.get("direct") {
            return Some(direct != "disabled");
        }
        let version = self.module_version.as_deref()?;
        let mut parts = version.split(['.', '-']);
        let major: u32 = parts.next()?.parse().ok()?;
        let minor: u32 = parts.next()?.parse().ok()?;
        Some((major, minor) >= (2, 3))
    }

    /// A numeric property (`-p` prints bytes).
    pub fn dataset_number(&self, name: &str) -> Option<u64> {
        self.dataset_properties.get(name)?.parse().ok()
    }

    pub fn pool_number(&self, name: &str) -> Option<u64> {
        self.pool_properties.get(name)?.parse().ok()
    }
}

/// Reads what the kernel records about `dataset` (a mount source such as `tank/ethereum`) and,
/// on the live machine, what `zpool`/`zfs` say; returns the facts and the sysfs directories of
/// the member devices to resolve down to drives.
pub fn read(root: &Root, dataset: &str, warnings: &mut Vec<String>) -> (ZfsFacts, Vec<PathBuf>) {
    let pool = dataset.split('/').next().unwrap_or(dataset).to_string();
    let mut facts = ZfsFacts {
        dataset: dataset.to_string(),
        pool_state: root.read_attr(format!("/proc/spl/kstat/zfs/{pool}/state")),
        module_version: root.read_attr("/sys/module/zfs/version"),
        arc_max_parameter_bytes: root
            .read_attr("/sys/module/zfs/parameters/zfs_arc_max")
            .and_then(|v| v.parse().ok()),
        arc_c_max_bytes: root
            .read_text("/proc/spl/kstat/zfs/arcstats")
            .and_then(|text| arcstat(&text, "c_max")),
        mem_total_bytes: root.read_text("/proc/meminfo").and_then(|t| mem_total(&t)),
        pool: pool.clone(),
        ..ZfsFacts::default()
    };
    let pool_text = output_of(root, SAVED_POOL_PROPERTIES, warnings, |warnings| {
        run(
            &[
                "zpool",
                "get",
                "-Hp",
                "-o",
                "property,value",
                POOL_PROPERTIES,
                &pool,
            ],
            warnings,
        )
    });
    let dataset_text = output_of(root, SAVED_DATASET_PROPERTIES, warnings, |warnings| {
        let get = |properties: &str, warnings: &mut Vec<String>| {
            run(
                &[
                    "zfs",
                    "get",
                    "-Hp",
                    "-o",
                    "property,value",
                    properties,
                    dataset,
                ],
                warnings,
            )
        };
        let common = get(DATASET_PROPERTIES, warnings);
        // Before 2.3 this fails by design; that is no problem to report.
        let direct = get(DIRECT_PROPERTY, &mut Vec::new());
        match (common, direct) {
            (None, None) => None,
            (common, direct) => Some(common.unwrap_or_default() + &direct.unwrap_or_default()),
        }
    });
    facts.pool_properties = pool_text.as_deref().map(properties).unwrap_or_default();
    facts.dataset_properties = dataset_text.as_deref().map(properties).unwrap_or_default();

    let mut members = udev_members(root, &pool);
    if !members.is_empty() {
        facts.members_from = Some("udev".into());
    } else if let Some(status) = output_of(root, SAVED_POOL_STATUS, warnings, |warnings| {
        run(&["zpool", "status", "-P", &pool], warnings)
    }) {
        members = status_members(root, &status);
        if !members.is_empty() {
            facts.members_from = Some("zpool status".into());
        }
    }
    members.sort();
    members.dedup();
    facts.members = members.iter().map(|(name, _)| name.clone()).collect();
    (facts, members.into_iter().map(|(_, path)| path).collect())
}

/// Every block device whose udev record says it is a member of `pool`: `(name, sysfs dir)`.
fn udev_members(root: &Root, pool: &str) -> Vec<(String, PathBuf)> {
    let mut members = Vec::new();
    for name in root.read_dir("/sys/class/block") {
        let Ok(dir) = root.canonicalize(format!("/sys/class/block/{name}")) else {
            continue;
        };
        let Some(dev) = root.read_attr(dir.join("dev")) else {
            continue;
        };
        let Some(record) = root.read_text(format!("/run/udev/data/b{dev}")) else {
            continue;
        };
        if udev_pool(&record) == Some(pool) {
            members.push((name, dir));
        }
    }
    members
}

/// A ZFS command's output: produced by `live` on the live machine (and kept for a snapshot at
/// `saved_at`), read from `saved_at` in a fixture or an unpacked snapshot.
fn output_of(
    root: &Root,
    saved_at: &str,
    warnings: &mut Vec<String>,
    live: impl FnOnce(&mut Vec<String>) -> Option<String>,
) -> Option<String> {
    if !root.is_live() {
        return root.read_text(saved_at);
    }
    let output = live(warnings)?;
    root.record_command_output(saved_at, output.as_bytes());
    Some(output)
}

/// The pool a udev record names, if the device is a ZFS member.
pub fn udev_pool(record: &str) -> Option<&str> {
    let value = |key: &str| {
        record.lines().find_map(|line| {
            line.strip_prefix("E:")?
                .strip_prefix(key)?
                .strip_prefix('=')
        })
    };
    (value("ID_FS_TYPE")? == "zfs_member").then(|| value("ID_FS_LABEL"))?
}

/// The member devices `zpool status -P` lists by path (`/dev/disk/by-id/...-part1`).
fn status_members(root: &Root, status: &str) -> Vec<(String, PathBuf)> {
    status
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| word.starts_with("/dev/"))
        .filter_map(|path| {
            let target = root.canonicalize(path).ok()?;
            let name = target.file_name()?.to_str()?.to_string();
            let dir = devices::device_by_name(root, &name)?;
            Some((name, dir))
        })
        .collect()
}

/// `property<TAB>value` lines of `zfs get -H -o property,value`.
pub fn properties(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once('\t')?;
            let value = value.trim();
            (!name.is_empty() && !value.is_empty() && value != "-")
                .then(|| (name.trim().to_string(), value.to_string()))
        })
        .collect()
}

/// A `name type value` line of a kstat file.
fn arcstat(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        (fields.next()? == name).then_some(())?;
        fields.nth(1)?.parse().ok()
    })
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Runs a ZFS command (live only) with a short timeout: a suspended pool can hang it.
fn run(args: &[&str], warnings: &mut Vec<String>) -> Option<String> {
    let program = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(args[0]))
        .find(|path| path.is_file())?;
    let mut child = Command::new(&program)
        .args(&args[1..])
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| warnings.push(format!("{}: {err}", args.join(" "))))
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(status)) => {
                warnings.push(format!("{}: exited with {status}", args.join(" ")));
                return None;
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                warnings.push(format!("{}: no answer within 10 s", args.join(" ")));
                return None;
            }
        }
    }
    let mut output = String::new();
    use std::io::Read;
    child
        .stdout
        .take()?
        .take(1 << 20)
        .read_to_string(&mut output)
        .ok()?;
    Some(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn udev_records_name_the_pool() {
        let record = "S:disk/by-id/nvme-Samsung_SSD_980_PRO_2TB_S69ENF0R123456-part1\nE:ID_FS_LABEL=tank\nE:ID_FS_LABEL_ENC=tank\nE:ID_FS_UUID=4811330934571532829\nE:ID_FS_TYPE=zfs_member\nE:ID_FS_USAGE=filesystem\n";
        assert_eq!(udev_pool(record), Some("tank"));
        assert_eq!(udev_pool("E:ID_FS_TYPE=ext4\nE:ID_FS_LABEL=tank\n"), None);
        assert_eq!(udev_pool("E:ID_FS_TYPE=zfs_member\n"), None);
        assert_eq!(udev_pool("\u{0}garbage"), None);
    }

    #[test]
    fn properties_and_direct_io() {
        let props = properties("recordsize\t131072\ncompression\tlz4\ndirect\t-\nbroken\n");
        assert_eq!(props.get("recordsize").map(String::as_str), Some("131072"));
        assert!(!props.contains_key("direct"));
        let facts = |version: &str| ZfsFacts {
            module_version: Some(version.into()),
            ..ZfsFacts::default()
        };
        assert_eq!(
            facts("2.2.2-0ubuntu9").direct_io_bypasses_arc(),
            Some(false)
        );
        assert_eq!(facts("2.3.1-1").direct_io_bypasses_arc(), Some(true));
        assert_eq!(facts("garbage").direct_io_bypasses_arc(), None);
        let mut disabled = facts("2.3.0");
        disabled
            .dataset_properties
            .insert("direct".into(), "disabled".into());
        assert_eq!(disabled.direct_io_bypasses_arc(), Some(false));
        assert_eq!(
            arcstat(
                "c_max                           4    16663842816\n",
                "c_max"
            ),
            Some(16_663_842_816)
        );
        assert_eq!(
            mem_total("MemTotal:       32551756 kB\n"),
            Some(32_551_756 * 1024)
        );
    }
}
