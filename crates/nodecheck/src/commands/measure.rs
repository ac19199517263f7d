//! The measurement `check` runs (`--bench quick|full`) and the pieces `submit` shares with it:
//! which directory a path is measured in, and how a measurement stopped by a signal ends.

use std::path::{Path, PathBuf};

use bench::{BenchReport, BenchTarget, Plan};
use probe::Facts;

use super::{is_root, say};
use crate::config::{BenchDepth, BenchTuning, CheckConfig, Format, GlobalOptions};

/// Runs the measurement `config.bench` asks for. A measurement that cannot run (an Ethereum
/// client is running, no space, io_uring blocked and no fallback) does not stop the check: the
/// verdict is still worth having, and the reason becomes a note.
pub(crate) fn measure(
    config: &CheckConfig,
    path: &Path,
    facts: &Facts,
    global: &GlobalOptions,
    notes: &mut Vec<String>,
) -> Option<BenchReport> {
    let depth = config.bench;
    if depth == BenchDepth::None {
        return None;
    }
    let directory = measured_directory(path);
    // As root, QD1 reads go straight to the drive, read-only, like `ioping -D`, but only
    // where files hold data: a block never written is answered from the drive's mapping
    // table without touching flash. The extents are mapped down the stack (partition, LVM,
    // dm-crypt, md RAID1/RAID0) to one drive; where that fails, or with too little data to
    // read, the test file (written in full first) tells more.
    let mut read_why = None;
    let device = match (is_root(), facts.drives.is_empty()) {
        (true, false) if depth == BenchDepth::Quick => match data_on_device(facts, &directory) {
            Ok((disk, ranges, why)) => {
                read_why = Some(why);
                Some((PathBuf::from("/dev").join(disk), ranges))
            }
            Err(why) => {
                read_why = Some(format!("{why}; read the test file instead"));
                None
            }
        },
        _ => None,
    };
    let cooperation = match crate::signals::cooperate() {
        Ok(cooperation) => Some(cooperation),
        Err(err) => {
            notes.push(format!("Ctrl-C handling unavailable: {err}"));
            None
        }
    };
    let cancel = cooperation
        .as_ref()
        .map(|c| c.token().clone())
        .unwrap_or_default();
    let plan_for = |target: BenchTarget| {
        let mut plan = plan_for_depth(target, depth, &config.tuning);
        plan.cancel = cancel.clone();
        plan
    };
    let mut bars = crate::progress::Bars::for_stderr(global.verbosity);
    // Containers and hardened hosts refuse raw devices even to root; a test file answers the
    // same question a little less directly. The note says what happened in the end.
    let mut device_failure = None;
    let watch = super::drive_watch::DriveWatch::start(&facts.drives, is_root());
    let finish = |mut report: BenchReport, why: Option<String>| {
        if let Some(read_span) = report.qd1.as_mut().and_then(|q| q.read_span.as_mut()) {
            read_span.why = why;
        }
        report.conditions = watch.map(|w| w.finish(&facts.drives));
        report
    };
    if let Some((dev, ranges)) = device {
        let mut plan = plan_for(BenchTarget::Device(dev.clone()));
        plan.qd1_ranges = Some(ranges);
        match bench::run(&plan, &mut bars) {
            Ok(report) => return Some(finish(report, read_why)),
            Err(_) if cancel.is_cancelled() => {
                stop_on_signal(cooperation, bars);
                notes.push("Measurement cancelled.".to_string());
                return None;
            }
            Err(err) => {
                device_failure = Some(format!("reading {} directly failed ({err})", dev.display()))
            }
        }
    }
    let mut file_plan = plan_for(BenchTarget::Directory(directory.clone()));
    // A size the user chose stays; without one, the full test's file (the community's
    // 150 GiB, shrunk to the reserve by the bench) is judged afterwards by NC706.
    if let (None, Some(planned)) = (config.tuning.size, file_plan.size) {
        let reserve = file_plan.safety.reserve.unwrap_or(0);
        match zfs_file_size(facts, planned, reserve) {
            Ok(Some(size)) => {
                notes.push(format!(
                    "The test file is {} instead of {}: larger than the ZFS ARC, which serves this OpenZFS's O_DIRECT reads.",
                    units::size::binary(size),
                    units::size::binary(planned)
                ));
                file_plan.size = Some(size);
            }
            Ok(None) => {}
            Err(why) => notes.push(why),
        }
    }
    match bench::run(&file_plan, &mut bars) {
        Ok(report) => {
            let why = match device_failure {
                Some(failure) => {
                    notes.push(format!(
                        "{}; measured on a test file instead.",
                        units::text::capitalized(&failure)
                    ));
                    Some(format!("{failure}; read the test file instead"))
                }
                None => read_why,
            };
            Some(finish(report, why))
        }
        Err(_) if cancel.is_cancelled() => {
            stop_on_signal(cooperation, bars);
            notes.push("Measurement cancelled.".to_string());
            None
        }
        Err(err) => {
            let reason = crate::commands::hints::bench_failure(
                &err,
                crate::commands::hints::Printer::Check,
                &directory,
            );
            let note = match device_failure {
                Some(failure) => {
                    format!("Measurement skipped: {failure}, and on a test file: {reason}")
                }
                None => format!("Measurement skipped: {reason}"),
            };
            // The table prints its notes; other formats keep stdout for the document, so a
            // reader at a terminal learns it on stderr, once.
            if config.output.format != Format::Table {
                say(global, &note);
            }
            notes.push(note);
            None
        }
    }
}

/// Data this small is read from the test file instead: reads over less than the quick test
/// file would land in a span a drive's own cache can hold.
pub(crate) const MIN_DATA_BYTES: u64 = bench::QUICK_FILE_BYTES;

/// The drive and its byte ranges that hold the data of the largest files under `directory`,
/// and the sentence saying so; or why they cannot be read there (file system, a layer of the
/// stack nodecheck cannot map, too little data).
pub(crate) fn data_on_device(
    facts: &Facts,
    directory: &Path,
) -> Result<(String, Vec<std::ops::Range<u64>>, String), String> {
    let root = probe::Root::live();
    let fs_type = facts
        .mount
        .as_ref()
        .map(|m| m.fs_type.as_str())
        .unwrap_or("");
    if !probe::extents::FILE_SYSTEMS_WITH_DEVICE_OFFSETS.contains(&fs_type) {
        return Err(format!(
            "{} does not place file data at device offsets nodecheck can read (only {} do)",
            if fs_type.is_empty() {
                "this file system"
            } else {
                fs_type
            },
            probe::extents::FILE_SYSTEMS_WITH_DEVICE_OFFSETS.join(", ")
        ));
    }
    let (extents, gap) = probe::extents::data_extents(&root, directory);
    let Some(extents) = extents else {
        return Err(gap.map_or_else(
            || "the file extents could not be read".to_string(),
            |gap| format!("{}: {}", gap.fact, gap.reason),
        ));
    };
    let on_disk = probe::mapping::to_disk(&root, &facts.layers, extents.ranges.clone())?;
    // Under RAID0 or an LVM volume over several drives, only the chosen drive's share counts.
    let bytes = on_disk.bytes();
    if bytes < MIN_DATA_BYTES {
        return Err(format!(
            "only {} of written file data under {} (in {} files) lies on {}; less than {}: too \
             little to measure the drive's reads on",
            units::size::binary(bytes),
            directory.display(),
            extents.files,
            on_disk.disk,
            units::size::binary(MIN_DATA_BYTES)
        ));
    }
    let mut why = format!(
        "{} of written file data in {} extents of the {} largest files under {}",
        units::size::binary(bytes),
        on_disk.ranges.len(),
        extents.files,
        directory.display()
    );
    if !on_disk.through.is_empty() {
        why.push_str(&format!(
            ", mapped through {} to {}",
            on_disk.through.join(", "),
            on_disk.disk
        ));
    }
    Ok((on_disk.disk, on_disk.ranges, why))
}

/// On ZFS whose O_DIRECT reads go through the ARC (before OpenZFS 2.3, or `direct=disabled`),
/// the test-file size that exceeds the ARC by an eighth, when `planned` does not and the free
/// space holds it with `reserve` to spare; `Ok(None)` when nothing needs changing; otherwise
/// why the file stays smaller than the ARC.
pub(crate) fn zfs_file_size(
    facts: &Facts,
    planned: u64,
    reserve: u64,
) -> Result<Option<u64>, String> {
    let Some(zfs) = facts.zfs.as_ref() else {
        return Ok(None);
    };
    if facts.mount.as_ref().map(|m| m.fs_type.as_str()) != Some("zfs")
        || zfs.direct_io_bypasses_arc() != Some(false)
    {
        return Ok(None);
    }
    let Some(arc) = zfs
        .arc_c_max_bytes
        .or(zfs.arc_max_parameter_bytes)
        .filter(|&b| b > 0)
    else {
        return Err("The ZFS ARC's size could not be read, so the test file could not be sized past it; its figures may be the ARC's.".to_string());
    };
    if planned > arc {
        return Ok(None);
    }
    let wanted = (arc + arc / 8).div_ceil(1 << 20) << 20;
    let free = facts.mount.as_ref().and_then(|m| m.free_bytes);
    match free {
        Some(free) if free >= wanted.saturating_add(reserve) => Ok(Some(wanted)),
        free => Err(format!(
            "The test file stays at {}: one larger than the ZFS ARC ({}) needs {} plus the {} reserve, and {} is free; its figures are the ARC's.",
            units::size::binary(planned),
            units::size::binary(arc),
            units::size::binary(wanted),
            units::size::binary(reserve),
            free.map_or_else(|| "an unknown amount".to_string(), units::size::binary)
        )),
    }
}

/// The directory whose file system a measurement of `path` uses: PATH itself, or the
/// directory holding a file PATH (`.` for a bare file name, whose parent is empty).
pub(crate) fn measured_directory(path: &Path) -> PathBuf {
    if path.is_dir() {
        return path.to_path_buf();
    }
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The bench plan of a depth on a target, with the user's `--bench-*` overrides applied.
fn plan_for_depth(target: BenchTarget, depth: BenchDepth, tuning: &BenchTuning) -> Plan {
    let mut plan = match depth {
        BenchDepth::Full => Plan::full(target),
        BenchDepth::Quick | BenchDepth::None => Plan::quick(target),
    };
    plan.live_node_clients = crate::config::ClientName::processes();
    let on_file = matches!(plan.target, BenchTarget::Directory(_));
    // Reading the raw device is what `ioping -D` does beside a running node: it writes
    // nothing, so a running client only skews the figures (the bench says so in a warning).
    plan.safety.force = !on_file;
    if let Some(runtime) = tuning.runtime {
        plan.runtime = runtime;
    }
    if on_file {
        plan.size = tuning.size.or(plan.size);
        plan.safety.reserve = tuning.reserve.or(plan.safety.reserve);
    }
    if depth == BenchDepth::Full {
        plan = plan.with_scaled_behaviour();
    }
    plan
}

/// A signal during a measurement: the bench has removed its test file; say so, then end the
/// process as the signal would have (dropping the cooperation does) instead of printing a
/// half-made report.
pub(crate) fn stop_on_signal(
    cooperation: Option<crate::signals::Cooperation>,
    bars: crate::progress::Bars,
) {
    drop(bars);
    let Some(cooperation) = cooperation else {
        return;
    };
    if let Some(signal) = cooperation.signal() {
        crate::stderr::line(&format!(
            "nodecheck: measurement interrupted by {}; test file removed",
            units::signal::name(signal)
        ));
    }
    drop(cooperation);
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use bench::behaviour::{span::SpanPlan, sync::SyncPlan};
    use bench::{QUICK_FILE_BYTES, QUICK_RUNTIME};

    #[test]
    fn full_runs_sync_and_span_with_their_defaults_on_the_community_file() {
        let target = BenchTarget::Directory("/data".into());
        let plan = plan_for_depth(target.clone(), BenchDepth::Full, &BenchTuning::default());
        assert!(plan.qd1 && plan.randrw);
        assert_eq!(plan.size, None, "the bench's 150 GiB default");
        let sync = plan.behaviour.sync.expect("sync runs in full");
        let span = plan.behaviour.span.expect("span runs in full");
        assert!(
            plan.behaviour.cliff.is_none(),
            "the cliff test stays opt-in"
        );
        let defaults = SyncPlan::default();
        assert_eq!(sync.burst_bytes, defaults.burst_bytes);
        assert_eq!(sync.read_phase, defaults.read_phase);
        assert_eq!(sync.recovery_timeout, defaults.recovery_timeout);
        assert_eq!(sync.runtime, plan.runtime);
        assert_eq!(span.min_span, SpanPlan::default().min_span);
        assert_eq!(span.time_per_span, SpanPlan::default().time_per_span);

        let quick = plan_for_depth(target, BenchDepth::Quick, &BenchTuning::default());
        assert!(quick.qd1 && !quick.randrw && !quick.behaviour.any());
        assert_eq!(quick.runtime, QUICK_RUNTIME);
        assert_eq!(quick.size, Some(QUICK_FILE_BYTES));
    }

    #[test]
    fn a_small_full_run_scales_the_behaviour_tests_down() {
        let tuning = BenchTuning {
            size: Some(64 << 20),
            runtime: Some(Duration::from_secs(1)),
            reserve: Some(1 << 30),
        };
        let plan = plan_for_depth(
            BenchTarget::Directory("/data".into()),
            BenchDepth::Full,
            &tuning,
        );
        assert_eq!(plan.size, Some(64 << 20));
        assert_eq!(plan.safety.reserve, Some(1 << 30));
        assert_eq!(plan.runtime, Duration::from_secs(1));
        let sync = plan.behaviour.sync.expect("sync");
        assert_eq!(sync.burst_bytes, 16 << 20);
        assert_eq!(sync.read_phase, Duration::from_millis(500));
        assert_eq!(sync.recovery_timeout, Duration::from_secs(2));
        let span = plan.behaviour.span.expect("span");
        assert_eq!(span.min_span, 8 << 20);
        assert_eq!(bench::behaviour::span::spans(64 << 20, &span).len(), 4);
        assert_eq!(span.time_per_span, Duration::from_secs(1));
    }

    #[test]
    fn the_device_plan_never_writes() {
        let plan = plan_for_depth(
            BenchTarget::Device("/dev/nvme0n1".into()),
            BenchDepth::Quick,
            &BenchTuning {
                size: Some(1 << 20),
                ..BenchTuning::default()
            },
        );
        assert!(plan.qd1 && !plan.randrw && !plan.behaviour.any());
        assert_eq!(plan.size, None);
        assert!(plan.safety.force);
    }

    #[test]
    fn on_zfs_before_direct_io_the_file_outgrows_the_arc_where_space_allows() {
        let mut facts = Facts {
            mount: Some(probe::MountFacts {
                mount_point: "/var/lib/ethereum".into(),
                fs_type: "zfs".into(),
                source: "tank/ethereum".into(),
                dev: "0:46".into(),
                atime: probe::AtimeMode::Noatime,
                lazytime: false,
                discard: false,
                read_only: false,
                mount_options: Vec::new(),
                super_options: Vec::new(),
                free_bytes: Some(100 << 30),
                total_bytes: Some(200 << 30),
                fstab: probe::FstabEntry::default(),
                network: None,
            }),
            zfs: Some(probe::ZfsFacts {
                module_version: Some("2.2.2-0ubuntu9".into()),
                arc_c_max_bytes: Some(16 << 30),
                ..probe::ZfsFacts::default()
            }),
            ..Facts::default()
        };
        assert_eq!(zfs_file_size(&facts, 1 << 30, 5 << 30), Ok(Some(18 << 30)));
        assert_eq!(
            zfs_file_size(&facts, 150 << 30, 5 << 30),
            Ok(None),
            "already larger"
        );
        let why = zfs_file_size(&facts, 1 << 30, 90 << 30).unwrap_err();
        assert!(
            why.contains("ARC (16.0 GiB)") && why.contains("100 GiB is free"),
            "{why}"
        );
        facts.zfs.as_mut().unwrap().module_version = Some("2.3.1-1".into());
        assert_eq!(
            zfs_file_size(&facts, 1 << 30, 5 << 30),
            Ok(None),
            "Direct I/O"
        );
    }

    #[test]
    fn a_file_measures_the_directory_holding_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("chaindata.ldb");
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(measured_directory(dir.path()), dir.path());
        assert_eq!(measured_directory(&file), dir.path());
        assert_eq!(
            measured_directory(Path::new("no-such-file-here")),
            PathBuf::from(".")
        );
    }
}
