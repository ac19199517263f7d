//! From byte ranges of the mounted block device down the stack to byte ranges of one drive:
//! a partition adds its start, a device-mapper `linear` or `crypt` target (LVM, dm-crypt,
//! LUKS) moves each part by its table's offset, md RAID1 reads from one in-sync member past
//! its data offset, md RAID0 sends each chunk to the member that holds it. Where a layer's
//! mapping is not one of these (striped or thin LVM, RAID5/6/10, multipath, a table that
//! could not be read) the answer is the reason, so the caller reads something else.
//!
//! Sources: `Documentation/admin-guide/device-mapper/{linear,dm-crypt}.rst`,
//! `Documentation/admin-guide/md.rst` (`md/dev-*/offset`, `md/chunk_size`), and
//! `drivers/md/raid0.c` `map_sector` for the chunk arithmetic (docs/sources/stack-mapping.md).

use std::collections::BTreeMap;
use std::ops::Range;

use crate::dm::{DmTarget, SECTOR_BYTES};
use crate::extents::merge_ranges;
use crate::facts::{Layer, LayerKind};
use crate::root::Root;

/// The ranges on a drive, and the layers they were mapped through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnDisk {
    /// The drive's kernel name (`nvme0n1`).
    pub disk: String,
    /// Disjoint, sorted byte ranges of the drive.
    pub ranges: Vec<Range<u64>>,
    /// One phrase per layer passed (`dm-1 (LVM, linear)`, `md0 (raid1, member sda)`).
    pub through: Vec<String>,
}

impl OnDisk {
    pub fn bytes(&self) -> u64 {
        self.ranges
            .iter()
            .map(|r| r.end - r.start)
            .fold(0, u64::saturating_add)
    }
}

/// Maps `ranges` (bytes of the top layer, depth 0) down `layers` to one drive. Under RAID0,
/// an LVM volume over several drives or RAID1, the drive chosen is the one holding most of
/// the ranges (the first by name on a tie); the other drives hold the rest or a copy.
pub fn to_disk(root: &Root, layers: &[Layer], ranges: Vec<Range<u64>>) -> Result<OnDisk, String> {
    let mut current = layers
        .iter()
        .find(|l| l.depth == 0)
        .ok_or_else(|| "the storage stack is unknown".to_string())?;
    let mut ranges = merge_ranges(ranges);
    let mut through = Vec::new();
    // Each step goes one level down; a loop in hostile facts ends here.
    for _ in 0..=layers.len() {
        let per_lower = match current.kind {
            LayerKind::Disk => {
                return Ok(OnDisk {
                    disk: current.name.clone(),
                    ranges,
                    through,
                })
            }
            _ if !current.dm_table.is_empty() => {
                through.push(format!("{} ({})", current.name, dm_phrase(current)));
                let by_device = through_table(&current.dm_table, &ranges)
                    .map_err(|why| format!("{}: {why}", current.name))?;
                let mut by_name = BTreeMap::new();
                for (device, mapped) in by_device {
                    let name = device_name(root, &device).ok_or_else(|| {
                        format!(
                            "{}: its table names device {device}, which sysfs does not know",
                            current.name
                        )
                    })?;
                    by_name.insert(name, mapped);
                }
                by_name
            }
            LayerKind::Partition => {
                let start = crate::extents::partition_start_bytes(root, &current.name).ok_or_else(
                    || format!("the start of partition {} is unreadable", current.name),
                )?;
                let disk = current
                    .lower
                    .first()
                    .ok_or_else(|| format!("the disk of partition {} is unknown", current.name))?;
                through.push(format!("{} (partition at byte {start})", current.name));
                BTreeMap::from([(disk.clone(), shifted(&ranges, start))])
            }
            LayerKind::Lvm | LayerKind::Crypt | LayerKind::Dm | LayerKind::Multipath => {
                return Err(format!(
                    "the device-mapper table of {} was not read (it needs root)",
                    current.name
                ))
            }
            LayerKind::Md => {
                let (member, mapped, phrase) = through_md(root, current, &ranges)?;
                through.push(phrase);
                BTreeMap::from([(member, mapped)])
            }
            kind => {
                return Err(format!(
                    "{} is a {kind:?} layer, whose mapping to a drive nodecheck does not follow",
                    current.name
                ))
            }
        };
        let (lower, lower_ranges) = most_bytes(per_lower)
            .ok_or_else(|| format!("no data of {} maps to a lower device", current.name))?;
        ranges = merge_ranges(lower_ranges);
        current = layers
            .iter()
            .find(|l| l.name == lower)
            .ok_or_else(|| format!("{lower}, below {}, is not in the stack", current.name))?;
    }
    Err("the storage stack loops".to_string())
}

fn dm_phrase(layer: &Layer) -> String {
    let kind = match layer.kind {
        LayerKind::Lvm => "LVM",
        LayerKind::Crypt => "dm-crypt",
        _ => "device-mapper",
    };
    let mut targets: Vec<&str> = layer.dm_table.iter().map(|t| t.target.as_str()).collect();
    targets.dedup();
    format!("{kind}, {}", targets.join("+"))
}

/// Ranges of a dm device through its table: per lower device (`major:minor`), the ranges there.
pub fn through_table(
    table: &[DmTarget],
    ranges: &[Range<u64>],
) -> Result<BTreeMap<String, Vec<Range<u64>>>, String> {
    let mut out: BTreeMap<String, Vec<Range<u64>>> = BTreeMap::new();
    for range in ranges {
        let mut covered = 0u64;
        for target in table {
            let Some(span) = target.byte_range() else {
                return Err("its table has a target beyond any device's size".to_string());
            };
            let start = range.start.max(span.start);
            let end = range.end.min(span.end);
            if start >= end {
                continue;
            }
            let (Some(device), Some(sector)) = (&target.device, target.device_sector) else {
                return Err(format!(
                    "its table has a `{}` target, whose mapping nodecheck does not follow \
                     (only linear and crypt)",
                    target.target
                ));
            };
            if target.target != "linear" && target.target != "crypt" {
                return Err(format!(
                    "its table has a `{}` target, whose mapping nodecheck does not follow",
                    target.target
                ));
            }
            let base = sector
                .checked_mul(SECTOR_BYTES)
                .ok_or_else(|| "its table has an offset beyond any device".to_string())?;
            let lower_start = base
                .checked_add(start - span.start)
                .ok_or_else(|| "its table has an offset beyond any device".to_string())?;
            out.entry(device.clone())
                .or_default()
                .push(lower_start..lower_start + (end - start));
            covered += end - start;
        }
        if covered < range.end - range.start {
            return Err("its table does not cover all of the file data".to_string());
        }
    }
    Ok(out)
}

/// One md member: kernel name, its role (`slot`), data offset in bytes and whether it is in sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MdMember {
    pub name: String,
    pub slot: Option<u32>,
    pub offset_bytes: u64,
    pub size_kib: Option<u64>,
    pub in_sync: bool,
}

/// md RAID0: chunk `c` of the array is on member `c % n` (by slot), at chunk `c / n` of its
/// data area (`raid0.c` `map_sector`, one zone: members of one size). Per member name.
pub fn through_raid0(
    ranges: &[Range<u64>],
    chunk_bytes: u64,
    members: &[MdMember],
) -> Result<BTreeMap<String, Vec<Range<u64>>>, String> {
    if chunk_bytes == 0 || members.is_empty() {
        return Err("its chunk size or members are unknown".to_string());
    }
    let mut ordered: Vec<&MdMember> = members.iter().collect();
    ordered.sort_by_key(|m| m.slot);
    let slots: Vec<Option<u32>> = ordered.iter().map(|m| m.slot).collect();
    if slots.iter().enumerate().any(|(i, s)| *s != Some(i as u32)) {
        return Err("its members' slots are not 0..n".to_string());
    }
    let sizes: Vec<Option<u64>> = ordered.iter().map(|m| m.size_kib).collect();
    if sizes.iter().any(|s| s.is_none() || *s != sizes[0]) {
        return Err(
            "its members differ in size, so it has several zones, which nodecheck does not map"
                .to_string(),
        );
    }
    let count = ordered.len() as u64;
    let mut out: BTreeMap<String, Vec<Range<u64>>> = BTreeMap::new();
    for range in ranges {
        let mut position = range.start;
        while position < range.end {
            let chunk = position / chunk_bytes;
            let within = position % chunk_bytes;
            let end = range.end.min((chunk + 1).saturating_mul(chunk_bytes));
            let member = ordered[(chunk % count) as usize];
            let start = (chunk / count)
                .checked_mul(chunk_bytes)
                .and_then(|b| b.checked_add(within))
                .and_then(|b| b.checked_add(member.offset_bytes))
                .ok_or_else(|| "a chunk lies beyond any device".to_string())?;
            out.entry(member.name.clone())
                .or_default()
                .push(start..start + (end - position));
            position = end;
        }
    }
    Ok(out)
}

fn through_md(
    root: &Root,
    layer: &Layer,
    ranges: &[Range<u64>],
) -> Result<(String, Vec<Range<u64>>, String), String> {
    let name = &layer.name;
    let dir = crate::devices::device_by_name(root, name)
        .ok_or_else(|| format!("{name} is not in sysfs"))?;
    let level = root
        .read_attr(dir.join("md/level"))
        .unwrap_or_else(|| "unknown".to_string());
    let mut members = Vec::new();
    for entry in root.read_dir(dir.join("md")) {
        let Some(member) = entry.strip_prefix("dev-") else {
            continue;
        };
        let attr = |leaf: &str| root.read_attr(dir.join("md").join(&entry).join(leaf));
        let Some(offset) = attr("offset").and_then(|o| o.parse::<u64>().ok()) else {
            return Err(format!(
                "{name}: the data offset of member {member} is unreadable"
            ));
        };
        members.push(MdMember {
            name: member.to_string(),
            slot: attr("slot").and_then(|s| s.parse().ok()),
            offset_bytes: offset
                .checked_mul(SECTOR_BYTES)
                .ok_or_else(|| format!("{name}: member {member}'s offset is out of range"))?,
            size_kib: attr("size").and_then(|s| s.parse().ok()),
            in_sync: attr("state").is_some_and(|s| s.split(',').any(|w| w == "in_sync")),
        });
    }
    members.sort_by(|a, b| a.name.cmp(&b.name));
    match level.as_str() {
        "raid1" => {
            let member = members.iter().find(|m| m.in_sync).ok_or_else(|| {
                format!("{name} (raid1) has no member in sync to read")
            })?;
            Ok((
                member.name.clone(),
                shifted(ranges, member.offset_bytes),
                format!("{name} (raid1, member {})", member.name),
            ))
        }
        "raid0" => {
            if members.iter().any(|m| !m.in_sync) {
                return Err(format!("{name} (raid0) has a member out of sync"));
            }
            let chunk: u64 = root
                .read_attr(dir.join("md/chunk_size"))
                .and_then(|c| c.parse().ok())
                .ok_or_else(|| format!("{name}: md/chunk_size is unreadable"))?;
            let per_member =
                through_raid0(ranges, chunk, &members).map_err(|why| format!("{name} (raid0): {why}"))?;
            let (member, mapped) = most_bytes(per_member)
                .ok_or_else(|| format!("{name} (raid0): no data maps to a member"))?;
            let phrase = format!("{name} (raid0, {} KiB chunks, member {member})", chunk >> 10);
            Ok((member, mapped, phrase))
        }
        other => Err(format!(
            "{name} is md {other}, whose mapping to a drive nodecheck does not follow (only raid1 and raid0)"
        )),
    }
}

/// The lower device holding the most bytes, the first by name on a tie.
fn most_bytes(per_lower: BTreeMap<String, Vec<Range<u64>>>) -> Option<(String, Vec<Range<u64>>)> {
    let total = |ranges: &Vec<Range<u64>>| {
        ranges
            .iter()
            .map(|r| r.end - r.start)
            .fold(0u64, u64::saturating_add)
    };
    let mut best: Option<(String, Vec<Range<u64>>)> = None;
    for (name, ranges) in per_lower {
        if best.as_ref().is_none_or(|(_, b)| total(&ranges) > total(b)) {
            best = Some((name, ranges));
        }
    }
    best
}

fn shifted(ranges: &[Range<u64>], offset: u64) -> Vec<Range<u64>> {
    ranges
        .iter()
        .filter_map(|r| Some(r.start.checked_add(offset)?..r.end.checked_add(offset)?))
        .collect()
}

/// The kernel name of the block device a table names: `major:minor`, or a `/dev/` path.
fn device_name(root: &Root, device: &str) -> Option<String> {
    let dir = match device.split_once(':') {
        Some((major, minor)) => {
            crate::devices::device_by_number(root, major.parse().ok()?, minor.parse().ok()?)?
        }
        None => crate::devices::device_by_name(root, device.strip_prefix("/dev/")?)?,
    };
    Some(dir.file_name()?.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, slot: u32, offset_sectors: u64) -> MdMember {
        MdMember {
            name: name.to_string(),
            slot: Some(slot),
            offset_bytes: offset_sectors * 512,
            size_kib: Some(1_047_552),
            in_sync: true,
        }
    }

    #[test]
    fn linear_segments_split_a_range_and_move_each_part() {
        let table = crate::dm::parse_table(
            "dm-1",
            "0 2048 linear 253:0 2048\n2048 2048 linear 259:3 10240\n",
        )
        .unwrap();
        // 512 KiB..1.5 MiB of the volume straddles the two segments at 1 MiB.
        let mapped =
            through_table(&table, std::slice::from_ref(&((512 << 10)..(1536 << 10)))).unwrap();
        assert_eq!(
            mapped["253:0"],
            vec![(2048 * 512 + (512 << 10))..(2048 * 512 + (1 << 20))]
        );
        assert_eq!(
            mapped["259:3"],
            vec![(10240 * 512)..(10240 * 512 + (512 << 10))]
        );

        assert!(through_table(&table, std::slice::from_ref(&(0..(3 << 20))))
            .unwrap_err()
            .contains("does not cover"));
        let striped =
            crate::dm::parse_table("dm-2", "0 4096 striped 2 128 8:0 2048 8:16 2048\n").unwrap();
        assert!(through_table(&striped, std::slice::from_ref(&(0..4096)))
            .unwrap_err()
            .contains("`striped`"));
    }

    #[test]
    fn raid0_sends_each_chunk_to_its_member() {
        let members = [member("sdb", 1, 2048), member("sda", 0, 4096)];
        let chunk = 512 << 10;
        // Chunks 0..4 of the array: sda, sdb, sda, sdb; the range starts inside chunk 0.
        let mapped = through_raid0(
            std::slice::from_ref(&(4096..(2 * chunk + 8192))),
            chunk,
            &members,
        )
        .unwrap();
        let sda = 4096 * 512;
        let sdb = 2048 * 512;
        assert_eq!(
            mapped["sda"],
            vec![
                (sda + 4096)..(sda + chunk),
                (sda + chunk)..(sda + chunk + 8192)
            ]
        );
        assert_eq!(mapped["sdb"], vec![sdb..(sdb + chunk)]);

        let mut uneven = members.clone();
        uneven[0].size_kib = Some(1);
        assert!(through_raid0(std::slice::from_ref(&(0..1)), chunk, &uneven)
            .unwrap_err()
            .contains("zones"));
        assert!(through_raid0(std::slice::from_ref(&(0..1)), 0, &members).is_err());
        let mut gap = members.clone();
        gap[0].slot = Some(3);
        assert!(through_raid0(std::slice::from_ref(&(0..1)), chunk, &gap).is_err());
    }

    #[test]
    fn the_lower_device_with_most_data_is_chosen_first_by_name_on_a_tie() {
        let chosen = most_bytes(BTreeMap::from([
            ("b".to_string(), std::iter::once(0..10).collect()),
            ("a".to_string(), vec![0..5, 20..25]),
            ("c".to_string(), std::iter::once(0..3).collect()),
        ]));
        assert_eq!(chosen.unwrap().0, "a");
    }
}
