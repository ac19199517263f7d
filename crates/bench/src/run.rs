//! A whole benchmark run: checks, engine choice, test file, prefill, workloads, report.

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::affinity::{self, Pinning};
use crate::cancel::CancelToken;
use crate::engine::{self, Engine, EngineChoice, EngineConfig, EnginePreference, Target};
use crate::error::{BenchError, ByteSize};
use crate::report::{BenchReport, EngineKind, Qd1Result, RandRwResult, SCHEMA_VERSION};
use crate::testfile::{self, BenchDir, BenchLock, Removal, Space, TestFile, COMMUNITY_SIZE};
use crate::workload::{
    FillJob, IoStats, Job, ProgressCounter, RandomIoJob, RandomPattern, StopCondition, ALIGN,
};

/// The prefill writes in chunks this large…
pub const PREFILL_CHUNK: u32 = 1 << 20;
/// …this many at a time: enough to saturate any drive's sequential write, 4 MiB of buffers.
pub const PREFILL_QUEUE_DEPTH: u32 = 4;

/// What to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchTarget {
    /// A directory: a test file is created in its file system.
    Directory(PathBuf),
    /// A block device, read-only, `qd1` only, root only.
    Device(PathBuf),
}

impl BenchTarget {
    pub fn path(&self) -> &Path {
        match self {
            BenchTarget::Directory(path) | BenchTarget::Device(path) => path,
        }
    }
}

/// Everything a run needs; [`Plan::new`] gives the community's parameters.
#[derive(Debug, Clone)]
pub struct Plan {
    pub target: BenchTarget,
    pub qd1: bool,
    pub randrw: bool,
    /// `--test sync|cliff|span`: behaviour tests on the same test file (crate::behaviour).
    pub behaviour: crate::behaviour::BehaviourTests,
    /// Per test.
    pub runtime: Duration,
    /// Test file size (the randrw span); default 150 GiB, shrunk to keep the reserve.
    pub size: Option<u64>,
    /// Free space to keep; default max(10 % of the file system, 50 GiB).
    pub reserve: Option<u64>,
    pub engine: EnginePreference,
    pub sqpoll: bool,
    pub iopoll: bool,
    /// io_uring: the most requests submitted per `io_uring_enter` (see
    /// [`EngineConfig::submit_batch`]).
    pub submit_batch: u32,
    /// Run even though an Ethereum client is running.
    pub force: bool,
    /// Continue with the next test when one fails (the failure becomes a warning).
    pub keep_going: bool,
    /// Remove test files left by killed runs before starting.
    pub clean_stale: bool,
    /// Run the qd1 and randrw workers on the CPUs that take the device's completion
    /// interrupts, when they are not all CPUs (crate::affinity); off: wherever the scheduler
    /// puts them.
    pub pin: bool,
    pub seed: u64,
    pub queue_depth: u32,
    pub read_percent: u32,
    pub block_size: u32,
    pub cancel: CancelToken,
    /// The clients whose running processes stop the run (see `force`), as the client
    /// catalogue describes them; empty looks for none.
    pub live_node_clients: Vec<probe::processes::ClientProcess>,
}

/// fio's default seed for `randrepeat=1` is fixed too; any constant works, this one is ours.
pub const DEFAULT_SEED: u64 = 0x6e6f_6465_6368_6b31;

impl Plan {
    pub fn new(target: BenchTarget) -> Self {
        Plan {
            target,
            qd1: true,
            randrw: true,
            behaviour: crate::behaviour::BehaviourTests::default(),
            runtime: Duration::from_secs(60),
            size: None,
            reserve: None,
            engine: EnginePreference::Auto,
            sqpoll: false,
            iopoll: false,
            submit_batch: 1,
            force: false,
            keep_going: false,
            clean_stale: false,
            pin: true,
            seed: DEFAULT_SEED,
            queue_depth: 64,
            read_percent: 75,
            block_size: 4096,
            cancel: CancelToken::new(),
            live_node_clients: Vec::new(),
        }
    }

    fn validate(&self) -> Result<(), BenchError> {
        if !self.qd1 && !self.randrw && !self.behaviour.any() {
            return Err(BenchError::InvalidPlan("no test selected".into()));
        }
        if self.runtime.is_zero() {
            return Err(BenchError::InvalidPlan(
                "the runtime must be positive".into(),
            ));
        }
        if self.block_size == 0 || !u64::from(self.block_size).is_multiple_of(ALIGN) {
            return Err(BenchError::InvalidPlan(format!(
                "block size {} is not a multiple of {ALIGN}",
                self.block_size
            )));
        }
        if self.queue_depth == 0 || self.queue_depth > 4096 {
            return Err(BenchError::InvalidPlan(format!(
                "queue depth {} is outside 1..=4096",
                self.queue_depth
            )));
        }
        if self.read_percent > 100 {
            return Err(BenchError::InvalidPlan(format!(
                "read share {} % is over 100 %",
                self.read_percent
            )));
        }
        if let BenchTarget::Device(device) = &self.target {
            if self.randrw || self.behaviour.any() {
                return Err(BenchError::Refused(format!(
                    "{} is opened read-only: only the qd1 test may run on a block device \
                     (randrw writes); run randrw on a directory of its file system instead",
                    device.display()
                )));
            }
            if !nix::unistd::geteuid().is_root() {
                return Err(BenchError::Refused(format!(
                    "reading {} directly needs root; run as root or bench a directory instead",
                    device.display()
                )));
            }
        }
        Ok(())
    }
}

/// The stages of a run, for progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Writing the test file; positions in bytes.
    Prefill,
    /// Positions in milliseconds of the runtime.
    Qd1,
    RandRw,
    /// The behaviour tests (crate::behaviour); positions in milliseconds.
    Sync,
    Cliff,
    Span,
}

/// Progress of a run. The binary draws indicatif bars on a TTY; tests record the calls.
pub trait Progress {
    /// A phase starts with `total` units (bytes for the prefill, milliseconds for the tests).
    fn start(&mut self, phase: Phase, total: u64);
    /// Position within the phase and a rate (`512 MB/s`, `10450 IOPS`).
    fn update(&mut self, position: u64, rate: &str);
    fn finish(&mut self, phase: Phase);
    /// Something the operator should know now (also recorded in the report's warnings).
    fn warn(&mut self, message: &str);
}

/// Progress that shows nothing (`--json`, pipes, `nodecheck check`).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&mut self, _phase: Phase, _total: u64) {}
    fn update(&mut self, _position: u64, _rate: &str) {}
    fn finish(&mut self, _phase: Phase) {}
    fn warn(&mut self, _message: &str) {}
}

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
        if !plan.force {
            return Err(BenchError::LiveNode(names));
        }
        warnings.push(format!(
            "{names} running: results are skewed by its I/O and the node is slowed while the \
             benchmark runs"
        ));
    }

    let config = EngineConfig {
        max_io_bytes: plan.block_size,
        sqpoll: plan.sqpoll,
        iopoll: plan.iopoll,
        fixed_buffers: true,
        submit_batch: plan.submit_batch,
    };
    let registered =
        (PREFILL_QUEUE_DEPTH * PREFILL_CHUNK).max(plan.queue_depth * plan.block_size) as usize;
    let choice = engine::select(plan.engine, config, registered)?;
    if let Some(reason) = &choice.reason {
        if choice.kind == EngineKind::Psync && plan.engine != EnginePreference::Psync {
            warnings.push(format!("engine: {reason}"));
        }
    }

    let mut report = BenchReport {
        schema_version: SCHEMA_VERSION,
        path: plan.target.path().display().to_string(),
        engine: choice.kind,
        engine_reason: choice.reason.clone(),
        qd1: None,
        randrw: None,
        sync: None,
        cliff: None,
        span: None,
        warnings: Vec::new(),
    };

    match &plan.target {
        BenchTarget::Device(device) => {
            let pinning = plan.pin.then(|| affinity::pinning_for(device));
            let target = pin(open_device(device)?, pinning.as_ref());
            let engine = choice.engine(plan.block_size);
            let stats = run_random(plan, &*engine, &target, 1, 100, Phase::Qd1, &mut warnings)?;
            let mut qd1 = qd1_result(&stats, target.len(), "device", choice.kind);
            (qd1.cpus, qd1.pinning) = pinning_outcome("qd1", &target, pinning.as_ref());
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
        return Err(BenchError::InvalidPlan(format!(
            "{} is not a directory",
            dir.display()
        )));
    }

    let bench_dir = Arc::new(BenchDir::open(dir)?);
    refuse_memory_backed(&bench_dir)?;
    // Held until the run returns: a second bench here fails now with this one's pid.
    let _lock = BenchLock::acquire(&bench_dir)?;
    for file in testfile::find_stale(&bench_dir)? {
        let (path, size, pid) = (file.path.clone(), file.size, file.pid);
        if plan.clean_stale {
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
            warnings.push(format!(
                "{STALE_FILE_WARNING} {} ({}) from a killed run (pid {pid} named it; no bench \
                 holds it): it is nodecheck's own file, safe to delete",
                path.display(),
                ByteSize(size)
            ));
        }
    }

    let space = Space::of_dir(&bench_dir)?;
    let sizing = testfile::size_file(dir, space, plan.size, plan.reserve)?;
    if let Some(warning) = sizing.warning {
        warnings.push(format!("{warning}; the randrw figure is less comparable"));
    }
    let file = TestFile::create(&bench_dir, sizing.size, true)?;
    testfile::check_reserve_after_allocation(
        dir,
        Space::of_dir(&bench_dir)?,
        testfile::reserve(space, plan.reserve),
        file.size(),
    )?;
    prefill(plan, choice, &file, warnings.progress)?;
    crate::hook::pause_point(crate::hook::AFTER_PREFILL, Some(&plan.cancel));
    interrupted(&plan.cancel)?;

    let target =
        || -> Result<Target, BenchError> { Ok(Target::new(file.duplicate()?, file.size(), true)) };
    let engine = choice.engine(plan.block_size);
    // One decision for both tests: it depends on the device, not the workload.
    // The directory, not the file's name: same file system, and a name is never looked up
    // again once the file is open.
    let pinning = plan.pin.then(|| affinity::pinning_for(dir));

    if plan.qd1 {
        let qd1_target = pin(target()?, pinning.as_ref());
        let outcome = run_random(plan, &*engine, &qd1_target, 1, 100, Phase::Qd1, warnings);
        match outcome {
            Ok(stats) => {
                let mut qd1 = qd1_result(&stats, file.size(), "file", choice.kind);
                (qd1.cpus, qd1.pinning) = pinning_outcome("qd1", &qd1_target, pinning.as_ref());
                report.qd1 = Some(qd1);
            }
            Err(err) => keep_going(plan, "qd1", err, warnings)?,
        }
    }
    if plan.randrw {
        let randrw_target = pin(target()?, pinning.as_ref());
        let outcome = run_random(
            plan,
            &*engine,
            &randrw_target,
            plan.queue_depth,
            plan.read_percent,
            Phase::RandRw,
            warnings,
        );
        match outcome {
            Ok(stats) => {
                let fio_comparable = file.size() >= COMMUNITY_SIZE;
                if !fio_comparable {
                    warnings.push(format!(
                        "randrw span {} < {}: less comparable with the community's fio figures",
                        ByteSize(file.size()),
                        ByteSize(COMMUNITY_SIZE)
                    ));
                }
                let mut randrw = randrw_result(plan, &stats, file.size(), choice.kind);
                (randrw.cpus, randrw.pinning) =
                    pinning_outcome("randrw", &randrw_target, pinning.as_ref());
                report.randrw = Some(randrw);
            }
            Err(err) => keep_going(plan, "randrw", err, warnings)?,
        }
    }
    if plan.behaviour.any() {
        interrupted(&plan.cancel)?;
        let outcome = crate::behaviour::run_on_test_file(
            &plan.behaviour,
            file.duplicate()?,
            Some(choice),
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

/// The CPUs `test` ran on and the sentence saying why, for its result.
fn pinning_outcome(
    test: &str,
    target: &Target,
    pinning: Option<&Pinning>,
) -> (Vec<usize>, Option<String>) {
    let Some(pinning) = pinning else {
        return (Vec::new(), None);
    };
    match (target.cpus(), target.pin_error()) {
        (Some(_), Some(error)) => (
            Vec::new(),
            Some(format!("{test} not pinned to a CPU: {error}")),
        ),
        (Some(cpus), None) => (cpus.to_vec(), Some(pinning.describe(test))),
        (None, _) => (Vec::new(), Some(pinning.describe(test))),
    }
}

fn keep_going(
    plan: &Plan,
    test: &str,
    err: BenchError,
    warnings: &mut Warnings<'_>,
) -> Result<(), BenchError> {
    if plan.keep_going && !matches!(err, BenchError::Interrupted(_)) {
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

fn interrupted(cancel: &CancelToken) -> Result<(), BenchError> {
    match cancel.signal() {
        Some(signal) => Err(BenchError::Interrupted(signal)),
        None => Ok(()),
    }
}

fn prefill(
    plan: &Plan,
    choice: &EngineChoice,
    file: &TestFile,
    progress: &mut dyn Progress,
) -> Result<(), BenchError> {
    let engine = choice.engine(PREFILL_CHUNK);
    let (job_count, queue_depth) = engine.layout(PREFILL_QUEUE_DEPTH);
    let counter = ProgressCounter::default();
    let mut jobs: Vec<FillJob> = (0..u64::from(job_count))
        .map(|index| {
            FillJob::new(
                file.size(),
                PREFILL_CHUNK,
                index,
                u64::from(job_count),
                plan.seed,
                plan.cancel.clone(),
                counter.clone(),
            )
        })
        .collect();
    let mut job_refs: Vec<&mut dyn Job> = jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
    let target = Target::new(file.duplicate()?, file.size(), true);
    progress.start(Phase::Prefill, file.size());
    let started = Instant::now();
    let mut tick = || {
        let written = counter.get();
        let seconds = started.elapsed().as_secs_f64().max(1e-3);
        progress.update(
            written,
            &format!("{:.0} MB/s", written as f64 / seconds / 1e6),
        );
    };
    let result = engine.run(&target, queue_depth, &mut job_refs, &mut tick);
    progress.finish(Phase::Prefill);
    interrupted(&plan.cancel)?;
    result?;
    file.sync()?;
    interrupted(&plan.cancel)
}

fn run_random(
    plan: &Plan,
    engine: &dyn Engine,
    target: &Target,
    queue_depth: u32,
    read_percent: u32,
    phase: Phase,
    warnings: &mut Warnings<'_>,
) -> Result<IoStats, BenchError> {
    let (job_count, per_job_depth) = engine.layout(queue_depth);
    let counter = ProgressCounter::default();
    let mut jobs: Vec<RandomIoJob> = (0..u64::from(job_count))
        .map(|index| {
            RandomIoJob::new(
                RandomPattern::new(
                    plan.seed.wrapping_add(index),
                    target.len(),
                    plan.block_size,
                    read_percent,
                ),
                StopCondition::new(plan.runtime, plan.cancel.clone()),
                counter.clone(),
            )
        })
        .collect();
    let mut job_refs: Vec<&mut dyn Job> = jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
    let progress = &mut *warnings.progress;
    let total_ms = u64::try_from(plan.runtime.as_millis()).unwrap_or(u64::MAX);
    progress.start(phase, total_ms);
    let started = Instant::now();
    let mut tick = || {
        let elapsed = started.elapsed();
        let ios = counter.get();
        progress.update(
            u64::try_from(elapsed.as_millis())
                .unwrap_or(u64::MAX)
                .min(total_ms),
            &format!("{:.0} IOPS", ios as f64 / elapsed.as_secs_f64().max(1e-3)),
        );
    };
    let result = engine.run(target, per_job_depth, &mut job_refs, &mut tick);
    progress.finish(phase);
    drop(job_refs);
    interrupted(&plan.cancel)?;
    result?;
    let mut stats = IoStats::new();
    for job in &jobs {
        stats.merge(&job.stats);
    }
    Ok(stats)
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

fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// QD1 figures from the merged statistics.
pub fn qd1_result(stats: &IoStats, span: u64, target: &str, engine: EngineKind) -> Qd1Result {
    let seconds = stats.elapsed.as_secs_f64();
    Qd1Result {
        iops: rate(stats.read.count(), seconds),
        lat_us: stats.read.summary_us(),
        ios: stats.read.count(),
        runtime_s: seconds,
        span_bytes: span,
        target: target.to_string(),
        engine,
        cpus: Vec::new(),
        pinning: None,
    }
}

/// randrw figures from the merged statistics.
pub fn randrw_result(plan: &Plan, stats: &IoStats, span: u64, engine: EngineKind) -> RandRwResult {
    let seconds = stats.elapsed.as_secs_f64();
    RandRwResult {
        read_iops: rate(stats.read.count(), seconds),
        write_iops: rate(stats.write.count(), seconds),
        read_bw_bytes_per_s: rate(stats.read_bytes, seconds),
        write_bw_bytes_per_s: rate(stats.write_bytes, seconds),
        read_lat_us: stats.read.summary_us(),
        write_lat_us: stats.write.summary_us(),
        read_ios: stats.read.count(),
        write_ios: stats.write.count(),
        span_bytes: span,
        runtime_s: seconds,
        queue_depth: plan.queue_depth,
        block_size: plan.block_size,
        seed: plan.seed,
        engine,
        fio_comparable: span >= COMMUNITY_SIZE,
        cpus: Vec::new(),
        pinning: None,
    }
}
