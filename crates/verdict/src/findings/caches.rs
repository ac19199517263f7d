//! NC706, NC707: whether the QD1 figures are a drive's at all. A read answered faster than
//! any drive can answer came from a cache (a VM host's page cache, the ZFS ARC, a RAM-backed
//! volume); a read of a block that was never written is answered from the drive's mapping
//! table without touching flash. Either way the latency is not the drive's.

use ::bench::{BenchReport, Qd1Result, ReadSpanKind};
use probe::Facts;

use crate::behaviour_thresholds::CacheLimits;
use crate::code::Code;
use crate::model::{Finding, Severity};

use super::format_latency_us;

/// NC706 and NC707 for a report's QD1 result.
pub fn check(facts: &Facts, report: &BenchReport, limits: &CacheLimits) -> Vec<Finding> {
    let Some(qd1) = report.qd1.as_ref().filter(|q| q.ios > 0) else {
        return Vec::new();
    };
    let mut findings: Vec<Finding> = cache_speed(facts, qd1, limits).into_iter().collect();
    findings.extend(zfs_before_direct_io(facts, qd1));
    findings.extend(unwritten_blocks(qd1));
    findings
}

/// Whether the QD1 figures are a cache's: the bench then vouches for nothing.
pub fn answered_by_cache(facts: &Facts, report: &BenchReport, limits: &CacheLimits) -> bool {
    report
        .qd1
        .as_ref()
        .filter(|q| q.ios > 0)
        .is_some_and(|qd1| {
            cache_speed(facts, qd1, limits).is_some() || arc_serves_file(facts, qd1) == Some(true)
        })
}

fn optane(facts: &Facts) -> bool {
    facts.drives.iter().any(|drive| {
        drive
            .model
            .as_deref()
            .is_some_and(|model| model.to_ascii_lowercase().contains("optane"))
    })
}

/// NC706: a p50 below what any drive (or, for flash, any flash drive) answers in.
fn cache_speed(facts: &Facts, qd1: &Qd1Result, limits: &CacheLimits) -> Option<Finding> {
    let p50 = qd1.lat_us.p50;
    if !p50.is_finite() || p50 < 0.0 {
        return None;
    }
    let floor = if optane(facts) {
        limits.any_drive_min_p50_us
    } else {
        limits.flash_min_p50_us
    };
    if p50 >= floor {
        return None;
    }
    let fs_type = facts.mount.as_ref().map(|m| m.fs_type.as_str());
    let likely = if fs_type == Some("zfs") {
        "the ZFS ARC: OpenZFS before 2.3 accepts O_DIRECT and serves the reads from memory (openzfs#7823)"
    } else if facts.platform.virtualized == Some(true) {
        "the page cache of the VM host: a disk image with cache=writeback (or none) is read from the host's memory"
    } else if matches!(fs_type, Some("tmpfs" | "ramfs")) {
        "a RAM-backed volume"
    } else {
        "a cache between nodecheck and the flash: a RAM-backed or host-cached volume, or a caching layer in the stack"
    };
    Some(
        Finding::new(
            Code::CacheSpeedReads,
            Severity::Warning,
            "QD1 figures are a cache's, not the drive's",
            format!(
                "The QD1 reads took {} at the median, faster than a {} drive answers one read ({} at the least; docs/sources/qd1-latency-floors.md): they were answered from memory, most likely {likely}. These figures say nothing about the drive behind it.",
                format_latency_us(p50),
                if optane(facts) { "3D XPoint" } else { "flash" },
                format_latency_us(floor)
            ),
        )
        .with_fix("Measure where no cache sits in between: on the host itself rather than in the VM (or with the disk image on cache=none and direct I/O), or on ZFS with a test file larger than the ARC: `nodecheck bench --test qd1 --size 64G /var/lib/ethereum`, the size above `c_max` in /proc/spl/kstat/zfs/arcstats"),
    )
}

/// The ARC's upper bound: `c_max` of arcstats, else a non-zero `zfs_arc_max`.
fn arc_bytes(zfs: &probe::ZfsFacts) -> Option<u64> {
    zfs.arc_c_max_bytes
        .or(zfs.arc_max_parameter_bytes)
        .filter(|&b| b > 0)
}

/// Whether a test file's reads on ZFS are the ARC's: O_DIRECT does not bypass it (OpenZFS
/// before 2.3, or `direct=disabled`) and the file fits in it. `None` when the probe could not
/// tell (version or ARC size unknown).
fn arc_serves_file(facts: &Facts, qd1: &Qd1Result) -> Option<bool> {
    if facts.mount.as_ref().map(|m| m.fs_type.as_str()) != Some("zfs") || qd1.target != "file" {
        return Some(false);
    }
    let zfs = facts.zfs.as_ref()?;
    match zfs.direct_io_bypasses_arc()? {
        true => Some(false),
        false => Some(qd1.span_bytes <= arc_bytes(zfs)?),
    }
}

/// NC706 on ZFS: with the module version, the dataset's `direct` property and the ARC's size
/// the probe read, the test file's reads are said to be the ARC's (a warning), mostly the
/// drives' (a file larger than the ARC), or unknown (information, with how to find out).
fn zfs_before_direct_io(facts: &Facts, qd1: &Qd1Result) -> Option<Finding> {
    if facts.mount.as_ref().map(|m| m.fs_type.as_str()) != Some("zfs") || qd1.target != "file" {
        return None;
    }
    let zfs = facts.zfs.as_ref();
    let version = zfs
        .and_then(|z| z.module_version.as_deref())
        .unwrap_or("of unknown version");
    let arc = zfs.and_then(arc_bytes);
    let file = units::size::binary(qd1.span_bytes);
    let bigger = |arc: u64| {
        let gib = (arc + arc / 8).div_ceil(1 << 30);
        // The command is written out whole so that tests can parse it; the size is the ARC's.
        "`nodecheck bench --test qd1 --size 64G /var/lib/ethereum`"
            .replace("64G", &format!("{gib}G"))
            + &format!(
                " (larger than the ARC's {}, with the space for it)",
                units::size::binary(arc)
            )
    };
    let why_not = match zfs.and_then(|z| z.dataset_properties.get("direct")) {
        Some(direct) if direct == "disabled" => {
            "the dataset's `direct` property is `disabled`, so O_DIRECT reads go through the ARC".to_string()
        }
        _ => format!(
            "OpenZFS {version} serves O_DIRECT reads through the ARC (openzfs#7823; Direct I/O came with 2.3, #10018)"
        ),
    };
    match (zfs.and_then(|z| z.direct_io_bypasses_arc()), arc) {
        (Some(true), _) => None,
        (Some(false), Some(arc)) if qd1.span_bytes > arc => {
            let share = arc as f64 * 100.0 / qd1.span_bytes as f64;
            Some(Finding::new(
                Code::CacheSpeedReads,
                Severity::Info,
                "Most reads went past the ARC",
                format!(
                    "{}; the {file} test file is larger than the ARC ({}), so at most {share:.0} % of the random reads can have come from memory and the figures are mostly the drives'.",
                    units::text::capitalized(&why_not),
                    units::size::binary(arc)
                ),
            ))
        }
        (Some(false), Some(arc)) => Some(
            Finding::new(
                Code::CacheSpeedReads,
                Severity::Warning,
                "QD1 and randrw figures are the ZFS ARC's",
                format!(
                    "{}, and the {file} test file fits in the ARC ({}): the QD1 and randrw figures are the ARC's, not the drives'.",
                    units::text::capitalized(&why_not),
                    units::size::binary(arc)
                ),
            )
            .with_fix(format!("Measure with a test file larger than the ARC: {}; or upgrade to OpenZFS 2.3 or later with `direct=standard`", bigger(arc))),
        ),
        (Some(false), None) => Some(
            Finding::new(
                Code::CacheSpeedReads,
                Severity::Warning,
                "QD1 and randrw figures may be the ZFS ARC's",
                format!(
                    "{}; the ARC's size could not be read (/proc/spl/kstat/zfs/arcstats), so unless the {file} test file is larger than the ARC the figures are the ARC's.",
                    units::text::capitalized(&why_not)
                ),
            )
            .with_fix("Read the ARC's `c_max` in /proc/spl/kstat/zfs/arcstats and run `nodecheck bench --test qd1 --size SIZE /var/lib/ethereum` with SIZE above it"),
        ),
        (None, arc) => Some(Finding::new(
            Code::CacheSpeedReads,
            Severity::Info,
            "On ZFS the reads may have come from the ARC",
            format!(
                "OpenZFS before 2.3 serves O_DIRECT reads from the ARC (openzfs#7823; direct I/O came with 2.3, #10018), and the {file} test file may fit in the ARC{}; the ZFS version could not be read, so a figure that looks fine may be the ARC's. For the drive's own figure run {}.",
                arc.map(|a| format!(" ({})", units::size::binary(a))).unwrap_or_else(|| ", which by default may take half the memory".to_string()),
                match arc {
                    Some(arc) => bigger(arc),
                    None => "`nodecheck bench --test qd1 --size 64G /var/lib/ethereum` with the size above the ARC's `c_max` (/proc/spl/kstat/zfs/arcstats)".to_string(),
                }
            ),
        )),
    }
}

/// NC707: reads drawn from the whole device, never-written blocks included.
fn unwritten_blocks(qd1: &Qd1Result) -> Option<Finding> {
    let kind = match &qd1.read_span {
        Some(span) => span.kind,
        None if qd1.target == "device" => ReadSpanKind::WholeDevice,
        None => return None,
    };
    if kind.hits_data() {
        return None;
    }
    Some(
        Finding::new(
            Code::UnwrittenBlocksRead,
            Severity::Warning,
            "QD1 reads hit never-written blocks",
            format!(
                "The QD1 reads were drawn from the whole device ({}), never-written and discarded blocks included. A drive answers those from its mapping table without reading flash, so on a new or freshly formatted drive this latency (p99 {}) is the controller's, not the drive's.",
                units::size::binary(qd1.span_bytes),
                format_latency_us(qd1.lat_us.p99)
            ),
        )
        .with_fix("Run `sudo nodecheck check` on the data directory: it reads only blocks that hold file data, or a test file it writes in full first"),
    )
}
