//! A whole benchmark run: checks, engine choice, test file, prefill, the tests in order, and
//! the report.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::affinity::Placement;
use crate::affinity::{self, Pinning};
use crate::engine::EngineKind;
use crate::engine::{self, Engine, EngineChoice, EnginePreference, SpaceWatch, Target};
use crate::error::{BenchError, ByteSize};
use crate::plan::{BenchTarget, Plan};
use crate::prefill::{prefill, PREFILL_CHUNK, PREFILL_QUEUE_DEPTH};
use crate::progress::{Phase, Progress};
use crate::qd1::{Qd1Result, ReadSpan, ReadSpanKind};
use crate::report::BenchReport;
use crate::testfile::{self, BenchDir, BenchLock, CopyOnWrite, Removal, Space, TestFile};
use crate::workload::ALIGN;
use crate::{qd1, random, randrw};

struct Warnings<'a> {
    list: Vec<String>,
    progress: &'a mut dyn Progress,
}

impl Warnings<'_> {
    fn push(&mut self, message: String) {
        self.progress.warn(&message);
        self.list.push(message);
    }
}

/// How the warning about a test file left by a killed run begins, so a command can add how
/// its own options remove such files.
pub const STALE_FILE_WARNING: &str = "stale test file";

/// Runs the plan: the only entry point the binary and `nodecheck check` need.
pub fn run(plan: &Plan, progress: &mut dyn Progress) -> Result<BenchReport, BenchError> {
    plan.validate()?;
    // The plan cannot check its own ranges: the block arithmetic is the random workload's.
    if plan.qd1_ranges.as_ref().is_some_and(|ranges| {
        random::ranges_bytes(&random::aligned_ranges(
            ranges,
            u64::MAX,
            plan.random.block_size,
        )) == 0
    }) {
        return Err(BenchError::InvalidPlan(format!(
            "the QD1 ranges hold no whole {}-byte block",
            plan.random.block_size
        )));
    }
    let mut warnings = Warnings {
        list: Vec::new(),
        progress,
    };

    let clients = probe::processes::running_clients(
        &probe::Root::live(),
        &plan.live_node_clients,
        std::process::id(),
    );
    if !clients.is_empty() {
        let names = clients
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        if !plan.safety.force {
            return Err(BenchError::LiveNode(names));
        }
        warnings.push(format!(
            "{names} running: results are skewed by its I/O and the node is slowed while the \
             benchmark runs"
        ));
    }

    let config = plan.engine.config(plan.random.block_size);
    let registered = (PREFILL_QUEUE_DEPTH * PREFILL_CHUNK)
        .max(plan.random.queue_depth * plan.random.block_size) as usize;
    let choice = engine::select(plan.engine.preference, config, registered)?;
    if let Some(reason) = &choice.reason {
        if choice.kind == EngineKind::Psync && plan.engine.preference != EnginePreference::Psync {
            warnings.push(format!("engine: {reason}"));
        }
    }

    let mut report = BenchReport::new(
        plan.target.path().display().to_string(),
        choice.kind,
        choice.reason.clone(),
    );
    report.clients_running = clients.iter().map(ToString::to_string).collect();

    match &plan.target {
        BenchTarget::Device(device) => {
            let pinning = plan.engine.pin.then(|| affinity::pinning_for(device));
            let target = pin(open_device(device)?, pinning.as_ref());
            let engine = choice.engine(plan.random.block_size);
            let progress = &mut *warnings.progress;
            let pinning = pinning.as_ref();
            let qd1 = measure_qd1(
                plan, &*engine, &choice, &target, pinning, "device", progress,
            )?;
            report.qd1 = Some(qd1);
            collect_notes(&*engine, &mut warnings);
        }
        BenchTarget::Directory(dir) => {
            run_on_file(plan, dir, &choice, &mut report, &mut warnings)?;
        }
    }
    report.warnings = warnings.list;
    Ok(report)
}

fn run_on_file(
    plan: &Plan,
    dir: &Path,
    choice: &EngineChoice,
    report: &mut BenchReport,
    warnings: &mut Warnings<'_>,
) -> Result<(), BenchError> {
    let metadata = std::fs::metadata(dir)
        .map_err(|err| BenchError::io(format!("reading {}", dir.display()), err))?;
    if metadata.file_type().is_block_device() {
        return Err(BenchError::Refused(format!(
            "{} is a block device: the bench never writes to a device; give a directory on its \
             file system",
            dir.display()
        )));
    }
    if !metadata.is_dir() {
        return Err(BenchError::Refused(format!(
            "{} is not a directory: the bench writes its own test file inside a directory; give \
             a directory on the drive to measure (the node's data directory)",
            dir.display()
        )));
    }

    let bench_dir = Arc::new(BenchDir::open(dir)?);
    refuse_memory_backed(&bench_dir)?;
    // Held until the run returns: a second bench here fails now with this one's pid.
    let _lock = BenchLock::acquire(&bench_dir)?;
    let mut left_stale = Vec::new();
    for file in testfile::find_stale(&bench_dir)? {
        let (path, size, pid) = (file.path.clone(), file.size, file.pid);
        if plan.safety.clean_stale {
            let removal = file
                .remove(&bench_dir)
                .map_err(|err| BenchError::io(format!("removing stale {}", path.display()), err))?;
            if removal == Removal::Removed {
                warnings.push(format!(
                    "removed the stale test file {} ({}) of a killed run (pid {pid} named it)",
                    path.display(),
                    ByteSize(size)
                ));
            }
        } else {
            left_stale.push((path.clone(), size));
            warnings.push(format!(
                "{STALE_FILE_WARNING} {} ({}) from a killed run (pid {pid} named it; no bench \
                 holds it): it is nodecheck's own file, safe to delete",
                path.display(),
                ByteSize(size)
            ));
        }
    }

    let space = Space::of_dir(&bench_dir)?;
    let sizing = testfile::size_file(dir, space, plan.size, plan.safety.reserve)
        .map_err(|err| blame_stale_files(err, dir, space, plan, &left_stale))?;
    if let Some(warning) = sizing.warning {
        warnings.push(format!("{warning}; the randrw figure is less comparable"));
    }
    let file = TestFile::create(&bench_dir, sizing.size, true)?;
    let reserve = testfile::reserve(space, plan.safety.reserve);
    testfile::check_reserve_after_allocation(
        dir,
        Space::of_dir(&bench_dir)?,
        reserve,
        file.size(),
    )?;
    // Every write of every test, the prefill included, stops once free space falls under the
    // reserve (crate::engine::SpaceWatch): fallocate alone does not hold it on a copy-on-write
    // file system, nor against another writer on the same file system.
    let mut space_watch = SpaceWatch::new(bench_dir.clone(), reserve);
    if let CopyOnWrite::Active { fs, why } = file.copy_on_write() {
        warnings.push(format!(
            "{fs} is copy-on-write and the test file could not be made nodatacow ({why}): \
             every byte written counts against the {} reserve until the run stops",
            ByteSize(reserve)
        ));
        space_watch = space_watch.counting_writes(space.available);
    }
    let target = || -> Result<Target, BenchError> {
        Ok(Target::new(file.duplicate()?, file.size(), true).watching(space_watch.clone()))
    };
    prefill(plan, choice, &file, target()?, warnings.progress)?;
    crate::hook::pause_point(crate::hook::AFTER_PREFILL, Some(&plan.cancel));
    plan.cancel.check()?;

    let engine = choice.engine(plan.random.block_size);
    // One decision for both tests: it depends on the device, not the workload.
    // The directory, not the file's name: same file system, and a name is never looked up
    // again once the file is open.
    let pinning = plan.engine.pin.then(|| affinity::pinning_for(dir));

    if plan.qd1 {
        let qd1_target = pin(target()?, pinning.as_ref());
        let progress = &mut *warnings.progress;
        let outcome = measure_qd1(
            plan,
            &*engine,
            choice,
            &qd1_target,
            pinning.as_ref(),
            "file",
            progress,
        );
        match outcome {
            Ok(qd1) => report.qd1 = Some(qd1),
            Err(err) => keep_going(plan, "qd1", err, warnings)?,
        }
    }
    if plan.randrw {
        let randrw_target = pin(target()?, pinning.as_ref());
        let workload = randrw::workload(plan);
        let outcome = random::measure(
            &workload,
            &*engine,
            &randrw_target,
            Phase::RandRw,
            &mut *warnings.progress,
        );
        match outcome {
            Ok(stats) => {
                if let Some(warning) = randrw::comparability_warning(file.size()) {
                    warnings.push(warning);
                }
                let mut randrw = randrw::result(plan, &stats, file.size(), choice.kind);
                randrw.placement = placement("randrw", &randrw_target, pinning.as_ref());
                report.randrw = Some(randrw);
            }
            Err(err) => keep_going(plan, "randrw", err, warnings)?,
        }
    }
    if plan.behaviour.any() {
        plan.cancel.check()?;
        // On the test file's target pinned as for qd1, so that the behaviour tests' reads
        // are taken the way qd1's are.
        let outcome = crate::behaviour::run_on_test_file(
            &plan.behaviour,
            pin(target()?, pinning.as_ref()),
            choice,
            &plan.cancel,
            &mut *warnings.progress,
        );
        match outcome {
            Ok(measured) => {
                report.sync = measured.sync;
                report.cliff = measured.cliff;
                report.span = measured.span;
            }
            Err(err) => keep_going(plan, "behaviour", err, warnings)?,
        }
    }
    collect_notes(&*engine, warnings);
    let path = file.path();
    if file.remove()? == Removal::NotOurs {
        warnings.push(format!(
            "{} no longer named the test file when the run ended (renamed or replaced while \
             it ran): whatever is there now was left untouched, and the test file itself was \
             emptied through its descriptor; every test had written only to it",
            path.display()
        ));
    }
    Ok(())
}

/// A lack of room that the test files of killed runs cause: with their space back the test
/// file would fit, so removing them is the way out, not lowering the reserve.
fn blame_stale_files(
    err: BenchError,
    dir: &Path,
    space: Space,
    plan: &Plan,
    stale: &[(PathBuf, u64)],
) -> BenchError {
    if !matches!(err, BenchError::NoRoom { .. }) || stale.is_empty() {
        return err;
    }
    let stale_bytes = stale.iter().map(|(_, size)| *size).sum::<u64>();
    let freed = Space {
        available: space.available.saturating_add(stale_bytes),
        ..space
    };
    if testfile::size_file(dir, freed, plan.size, plan.safety.reserve).is_err() {
        return err;
    }
    BenchError::StaleFiles(stale.iter().map(|(path, _)| path.clone()).collect())
}

/// From linux/magic.h (the libc crate does not export RAMFS_MAGIC on every target).
const TMPFS_MAGIC: u32 = 0x0102_1994;
const RAMFS_MAGIC: u32 = 0x8584_58f6;

/// tmpfs and ramfs (and devtmpfs, which is one of them) hold files in RAM: a latency measured
/// there is the memory's, not a drive's, and would grade RAM as storage.
fn refuse_memory_backed(dir: &BenchDir) -> Result<(), BenchError> {
    let magic = dir.fs_magic()?;
    let kind = if magic == TMPFS_MAGIC {
        "tmpfs"
    } else if magic == RAMFS_MAGIC {
        "ramfs"
    } else {
        return Ok(());
    };
    Err(BenchError::Refused(format!(
        "{} is on {kind}, a memory-backed file system: a measurement there times RAM, not a \
         drive; give a directory on the drive's file system",
        dir.path().display()
    )))
}

/// `target`, pinned as `pinning` decided (see crate::affinity).
fn pin(target: Target, pinning: Option<&Pinning>) -> Target {
    match pinning.and_then(Pinning::cpus) {
        Some(cpus) => target.pinned_to(cpus.to_vec()),
        None => target,
    }
}

/// The qd1 test on `target` (`on` says whether it is the test file or a device) with the
/// engine `choice` made, pinned as `pinning` decided.
fn measure_qd1(
    plan: &Plan,
    engine: &dyn Engine,
    choice: &EngineChoice,
    target: &Target,
    pinning: Option<&Pinning>,
    on: &str,
    progress: &mut dyn Progress,
) -> Result<Qd1Result, BenchError> {
    let workload = qd1::workload(plan);
    let stats = random::measure(&workload, engine, target, Phase::Qd1, progress)?;
    let (span, kind) = match &workload.ranges {
        Some(ranges) => (
            random::ranges_bytes(&random::aligned_ranges(
                ranges,
                target.len(),
                workload.block_size,
            )),
            ReadSpanKind::DataExtents,
        ),
        None if target.is_writable() => (target.len(), ReadSpanKind::TestFile),
        None => (target.len(), ReadSpanKind::WholeDevice),
    };
    let mut qd1 = qd1::result(&stats, span, on, choice.kind);
    qd1.read_span = Some(ReadSpan { kind, why: None });
    qd1.placement = placement("qd1", target, pinning);
    Ok(qd1)
}

/// The CPUs `test` ran on and the sentence saying why, for its result.
fn placement(test: &str, target: &Target, pinning: Option<&Pinning>) -> Placement {
    let Some(pinning) = pinning else {
        return Placement::default();
    };
    let (cpus, why) = match (target.cpus(), target.pin_error()) {
        (Some(_), Some(error)) => (Vec::new(), format!("{test} not pinned to a CPU: {error}")),
        (Some(cpus), None) => (cpus.to_vec(), pinning.describe(test)),
        (None, _) => (Vec::new(), pinning.describe(test)),
    };
    Placement {
        cpus,
        pinning: Some(why),
    }
}

fn keep_going(
    plan: &Plan,
    test: &str,
    err: BenchError,
    warnings: &mut Warnings<'_>,
) -> Result<(), BenchError> {
    // Below the reserve every further test would stop at its first write: the run ends.
    if plan.keep_going
        && !matches!(
            err,
            BenchError::Interrupted(_) | BenchError::ReserveReached { .. }
        )
    {
        warnings.push(format!("{test} failed, continuing as asked: {err}"));
        Ok(())
    } else {
        Err(err)
    }
}

fn collect_notes(engine: &dyn Engine, warnings: &mut Warnings<'_>) {
    for note in engine.notes() {
        warnings.push(format!("engine: {note}"));
    }
}

fn open_device(device: &Path) -> Result<Target, BenchError> {
    let metadata = std::fs::metadata(device)
        .map_err(|err| BenchError::io(format!("reading {}", device.display()), err))?;
    if !metadata.file_type().is_block_device() {
        return Err(BenchError::InvalidPlan(format!(
            "{} is not a block device",
            device.display()
        )));
    }
    // Read-only by construction: the kernel refuses any write on this descriptor.
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(device)
        .map_err(|err| BenchError::io(format!("opening {} read-only", device.display()), err))?;
    let len = file
        .seek(SeekFrom::End(0))
        .map_err(|err| BenchError::io(format!("sizing {}", device.display()), err))?;
    if len < ALIGN {
        return Err(BenchError::InvalidPlan(format!(
            "{} is empty",
            device.display()
        )));
    }
    Ok(Target::new(file, len, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn plan() -> Plan {
        Plan::full(BenchTarget::Directory("/data".into()))
    }

    fn no_room(space: Space) -> BenchError {
        testfile::size_file(Path::new("/data"), space, None, None).unwrap_err()
    }

    #[test]
    fn stale_files_are_blamed_when_their_space_would_make_room() {
        let space = Space {
            total: 500 * GIB,
            available: 40 * GIB,
        };
        let stale = [(PathBuf::from("/data/.nodecheck-bench-1-ab.tmp"), 150 * GIB)];
        let err = blame_stale_files(no_room(space), Path::new("/data"), space, &plan(), &stale);
        match err {
            BenchError::StaleFiles(paths) => assert_eq!(paths, vec![stale[0].0.clone()]),
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn no_room_stays_no_room_when_stale_files_would_not_help() {
        let space = Space {
            total: 500 * GIB,
            available: 10 * GIB,
        };
        let small = [(PathBuf::from("/data/.nodecheck-bench-1-ab.tmp"), GIB)];
        let err = blame_stale_files(no_room(space), Path::new("/data"), space, &plan(), &small);
        assert!(matches!(err, BenchError::NoRoom { .. }), "{err}");
        let none = blame_stale_files(no_room(space), Path::new("/data"), space, &plan(), &[]);
        assert!(matches!(none, BenchError::NoRoom { .. }), "{none}");
    }
}
