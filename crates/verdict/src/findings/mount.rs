//! NC5xx (mount and file system part): atime, copy-on-write file systems, parity RAID,
//! parts of the stack that could not be resolved.

use probe::{fstab, AtimeMode, Facts, FstabEntry, LayerKind, MountFacts};
use units::text::shell_quote;

use crate::code::Code;
use crate::model::{Finding, Severity};

pub fn check(facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    // A container's overlay or a tmpfs has no fstab line to fix; the unresolved-stack
    // finding tells the reader to probe the real volume.
    let real_fs = facts.mount.as_ref().filter(|m| {
        !matches!(
            m.fs_type.as_str(),
            "overlay" | "tmpfs" | "squashfs" | "ramfs"
        )
    });
    if let Some(mount) = real_fs {
        read_only(mount, &mut out);
        atime(mount, &mut out);
        copy_on_write(mount, &facts.path, facts.zfs.as_ref(), &mut out);
    }
    parity_raid(facts, &mut out);
    let network = facts.mount.as_ref().and_then(|m| m.network.as_ref());
    out.extend(super::network::check(facts));
    // A share has no drives to resolve; NC520 says what that means and what to do.
    if !facts.unresolved.is_empty() && network.is_none() {
        out.push(
            Finding::new(
                Code::StackUnresolved,
                Severity::Info,
                "Part of the storage stack could not be resolved",
                format!(
                    "The probe could not follow the stack to the drives: {}. Drive-level checks are missing for that part.",
                    facts.unresolved.join("; ")
                ),
            )
            .with_fix(unresolved_fix(facts)),
        );
    }
    out
}

/// What to do about an unresolved stack: on a ZFS machine that is not a VM the drives are
/// here, `zpool status -P` names them; elsewhere the host owns them.
fn unresolved_fix(facts: &Facts) -> String {
    let zfs_pool = facts.zfs.as_ref().map(|z| z.pool.as_str());
    match zfs_pool {
        Some(pool) if facts.platform.virtualized != Some(true) => format!(
            "List the pool's drives with `zpool status -P {pool}` and their models with `lsblk -d -o name,model`; with `model` set to each, `nodecheck db lookup \"$model\"` judges it"
        ),
        _ => "Run nodecheck on the host that owns the physical drives; or list their models there with `lsblk -d -o name,model` and, with `model` set to each, judge it with `nodecheck db lookup \"$model\"`".to_owned(),
    }
}

/// The user's own fstab line with `noatime` in place of the access-time option it had
/// (`relatime`, `strictatime`, `atime`), or added at the end of its options.
pub fn noatime_fstab_line(line: &str) -> Option<String> {
    const ATIME: [&str; 4] = ["relatime", "strictatime", "atime", "noatime"];
    fstab::with_options(line, |options| {
        let mut edited: Vec<String> = Vec::with_capacity(options.len() + 1);
        for option in options {
            if ATIME.contains(&option) {
                if !edited.iter().any(|o| o == "noatime") {
                    edited.push("noatime".to_owned());
                }
            } else {
                edited.push(option.to_owned());
            }
        }
        if !edited.iter().any(|o| o == "noatime") {
            edited.push("noatime".to_owned());
        }
        edited
    })
}

/// The unit name systemd gives a mount point (`systemd-escape --path --suffix=mount`).
pub fn mount_unit_name(mount_point: &str) -> String {
    let trimmed = mount_point.trim_matches('/');
    if trimmed.is_empty() {
        return "-.mount".to_owned();
    }
    let mut name = String::with_capacity(trimmed.len() + 6);
    let mut previous_slash = false;
    for (i, byte) in trimmed.bytes().enumerate() {
        if byte == b'/' {
            if !previous_slash {
                name.push('-');
            }
            previous_slash = true;
            continue;
        }
        previous_slash = false;
        let plain =
            byte.is_ascii_alphanumeric() || byte == b':' || byte == b'_' || (byte == b'.' && i > 0);
        if plain {
            name.push(byte as char);
        } else {
            name.push_str(&format!("\\x{byte:02x}"));
        }
    }
    name.push_str(".mount");
    name
}

/// How to turn access times off for good on this mount, from what fstab says about it.
fn noatime_fix(mount: &MountFacts) -> String {
    let mp = &mount.mount_point;
    let remount = format!("sudo mount -o remount,noatime {}", shell_quote(mp));
    match &mount.fstab {
        FstabEntry::Line { number, text } => match noatime_fstab_line(text) {
            // Runs of blanks become one space: fstab reads them alike, and a report wraps
            // aligned columns badly.
            Some(line) => format!(
                "In /etc/fstab change line {number} to `{}`, then apply it now: `{remount}`",
                line.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            None => format!(
                "Line {number} of /etc/fstab mounts {mp} without an options field: add `noatime` as its fourth field, then apply it now: `{remount}`"
            ),
        },
        FstabEntry::NoLine => format!(
            "/etc/fstab has no line for {mp}: it is mounted by a systemd mount unit or the image's own set-up. Add `noatime` to `Options=` in the unit (`systemctl cat -- {}`; a cloud image may set it in its cloud-init `mounts:`), then apply it now: `{remount}`",
            shell_quote(&mount_unit_name(mp))
        ),
        FstabEntry::Unreadable => format!(
            "/etc/fstab could not be read here: add `noatime` to the options of the line that mounts {mp} (or to `Options=` of its systemd mount unit), then apply it now: `{remount}`"
        ),
    }
}

fn atime(mount: &MountFacts, out: &mut Vec<Finding>) {
    let mp = &mount.mount_point;
    if mount.atime == AtimeMode::Noatime {
        out.push(Finding::new(
            Code::AccessTime,
            Severity::Ok,
            "Mounted noatime",
            format!("{mp} ({}) is mounted noatime.", mount.fs_type),
        ));
        return;
    }
    let (severity, how) = match (mount.atime, mount.lazytime) {
        (AtimeMode::Strictatime, false) => (
            Severity::Warning,
            "strictatime: every read of a database file also writes its access time",
        ),
        (AtimeMode::Strictatime, true) => (
            Severity::Info,
            "strictatime with lazytime: access times are still updated, batched in memory",
        ),
        _ => (
            Severity::Info,
            "relatime: reads still write a file's access time about once a day",
        ),
    };
    let fix = if mount.fs_type == "zfs" {
        format!("sudo zfs set atime=off {}", shell_quote(&mount.source))
    } else {
        noatime_fix(mount)
    };
    out.push(
        Finding::new(
            Code::AccessTime,
            severity,
            "Access-time updates are on",
            format!(
                "{mp} ({}, {}) is mounted with {how}. Ethereum clients never use access times; turning them off saves writes and wear.",
                mount.fs_type, mount.source
            ),
        )
        .with_fix(fix),
    );
}

fn read_only(mount: &MountFacts, out: &mut Vec<Finding>) {
    if !mount.read_only {
        return;
    }
    let mp = &mount.mount_point;
    out.push(
        Finding::new(
            Code::ReadOnly,
            Severity::Critical,
            "The file system is read-only",
            format!(
                "{mp} ({}, {}) is mounted read-only: no client can write its database there. ext4 and xfs remount read-only by themselves after I/O errors.",
                mount.fs_type, mount.source
            ),
        )
        .with_fix(format!(
            "Look for I/O errors first: `sudo dmesg | grep -iE 'error|read-only'`; if the drive is healthy, check the file system (unmounted) and remount: `sudo mount -o remount,rw {}`",
            shell_quote(mp)
        )),
    );
}

fn copy_on_write(
    mount: &MountFacts,
    path: &str,
    zfs: Option<&probe::ZfsFacts>,
    out: &mut Vec<Finding>,
) {
    let has = |opt: &str| {
        mount.super_options.iter().any(|o| o == opt) || mount.mount_options.iter().any(|o| o == opt)
    };
    match mount.fs_type.as_str() {
        "btrfs" if !has("nodatacow") => out.push(
            Finding::new(
                Code::BtrfsCopyOnWrite,
                Severity::Warning,
                "btrfs copy-on-write under the database",
                format!(
                    "{} is btrfs with copy-on-write: the client's database rewrites small blocks constantly, which fragments CoW files and multiplies writes.",
                    mount.mount_point
                ),
            )
            .with_fix(format!(
                "Turn off CoW for the data directory while it is empty: `sudo chattr +C {}` (only new files are affected: move existing data out and back in)",
                shell_quote(path)
            )),
        ),
        "zfs" if zfs.and_then(|z| z.dataset_number("recordsize")).is_some() => {
            let recordsize = zfs.and_then(|z| z.dataset_number("recordsize")).unwrap_or_default();
            out.push(Finding::new(
                Code::ZfsCopyOnWrite,
                Severity::Info,
                "ZFS copy-on-write under the database",
                format!(
                    "{} is ZFS dataset {}: copy-on-write with a recordsize of {}K; NC531 lists any dataset property worth changing.",
                    mount.mount_point, mount.source, recordsize / 1024
                ),
            ))
        }
        "zfs" => out.push(
            Finding::new(
                Code::ZfsCopyOnWrite,
                Severity::Info,
                "ZFS copy-on-write under the database",
                format!(
                    "{} is ZFS dataset {}: copy-on-write and a large recordsize (128K unless it was changed; the property could not be read here) amplify the database's small random writes and reads.",
                    mount.mount_point, mount.source
                ),
            )
            .with_fix(format!(
                "sudo zfs set recordsize=16K {ds} && sudo zfs set atime=off {ds} && sudo zfs set compression=lz4 {ds}   (recordsize applies to newly written files)",
                ds = mount.source
            )),
        ),
        _ => {}
    }
}

fn parity_raid(facts: &Facts, out: &mut Vec<Finding>) {
    for layer in facts.layers.iter().filter(|l| l.kind == LayerKind::Md) {
        let Some(level) = layer.detail.as_deref() else {
            continue;
        };
        if matches!(level, "raid4" | "raid5" | "raid6") {
            out.push(
                Finding::new(
                    Code::ParityRaid,
                    Severity::Warning,
                    "Parity RAID under the database",
                    format!(
                        "{} is md {level} over {}: every small random write becomes a read-modify-write of data and parity, several I/Os per write.",
                        layer.name,
                        if layer.lower.is_empty() {
                            "its members".to_owned()
                        } else {
                            layer.lower.join(", ")
                        }
                    ),
                )
                .with_fix("Keep the node's data on a single fast drive, RAID1 or RAID10; keep parity RAID for backups")
                .about(&layer.name),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::mount_unit_name;

    #[test]
    fn mount_unit_names_follow_systemd_escape() {
        assert_eq!(mount_unit_name("/"), "-.mount");
        assert_eq!(
            mount_unit_name("/var/lib/ethereum"),
            "var-lib-ethereum.mount"
        );
        assert_eq!(mount_unit_name("/mnt/my-disk/"), r"mnt-my\x2ddisk.mount");
        assert_eq!(mount_unit_name("/srv/.hidden"), r"srv-.hidden.mount");
        assert_eq!(mount_unit_name("/.data"), r"\x2edata.mount");
    }
}
