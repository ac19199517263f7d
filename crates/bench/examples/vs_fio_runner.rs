//! The nodecheck side of `cargo xtask bench vs-fio`: runs one workload of the bench library on an
//! existing file and prints its figures as one JSON line. Built in release mode by the xtask so
//! that fio is compared with the engine as users get it.
//!
//! usage: vs_fio_runner fill FILE SIZE | randrw|qd1|ceiling FILE SECS | pinning FILE
//!
//! `pinning` prints the CPUs the qd1 and randrw runs are pinned to (`{"cpus":[1]}`), so that fio can be run
//! pinned alike.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use bench::engine::{self, EngineConfig, EnginePreference, Target, Work};
use bench::CancelToken;
use bench::FillJob;
use bench::{qd1_result, randrw_result, BenchTarget, Plan};
use bench::{IoStats, Job, ProgressCounter, StopCondition};
use bench::{RandomIoJob, RandomPattern};

/// Counts heap allocations, so the inner runner can show that the I/O loop allocates nothing.
struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator unchanged; the counter has no effect on memory.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("vs_fio_runner: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `fill|randrw|qd1|ceiling FILE ARG` or `pinning FILE`.
fn inner(args: &[String]) -> Result<()> {
    if let [what, file] = args {
        if what == "pinning" {
            let pinning = bench::pinning_for(Path::new(file));
            let output = serde_json::json!({
                "cpus": pinning.cpus().unwrap_or_default(),
                "describe": pinning.describe("qd1 and randrw"),
            });
            println!("{output}");
            return Ok(());
        }
    }
    let [what, file, arg] = args else {
        bail!("usage: vs_fio_runner fill FILE SIZE | randrw|qd1|ceiling FILE SECS | pinning FILE");
    };
    let path = Path::new(file);
    match what.as_str() {
        "fill" => fill(path, units::size::parse_file_size(arg)?),
        "randrw" | "qd1" | "ceiling" => {
            let runtime = Duration::from_secs(arg.parse().context("seconds")?);
            measure(what, path, runtime)
        }
        other => bail!("unknown inner workload {other}"),
    }
}

fn open(path: &Path, direct: bool, create: bool) -> Result<std::fs::File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(create);
    if direct {
        options.custom_flags(libc::O_DIRECT);
    }
    options
        .open(path)
        .with_context(|| format!("opening {}", path.display()))
}

fn fill(path: &Path, size: u64) -> Result<()> {
    let file = open(path, true, true)?;
    file.set_len(size)?;
    let choice = engine::select(EnginePreference::Auto, EngineConfig::default(), 4 << 20)?;
    let engine = choice.engine(1 << 20);
    let (jobs, depth) = engine.layout(4);
    let mut fills: Vec<FillJob> = (0..u64::from(jobs))
        .map(|i| {
            FillJob::new(
                size,
                1 << 20,
                i,
                u64::from(jobs),
                1,
                CancelToken::new(),
                ProgressCounter::default(),
            )
        })
        .collect();
    let mut refs: Vec<&mut dyn Job> = fills.iter_mut().map(|j| j as &mut dyn Job).collect();
    let target = Target::new(file.try_clone()?, size, true);
    bench::engine::run(&*engine, Work::new(&target, depth, &mut refs, &mut || {}))?;
    file.sync_data()?;
    Ok(())
}

fn measure(what: &str, path: &Path, runtime: Duration) -> Result<()> {
    let (direct, queue_depth, read_percent) = match what {
        "randrw" => (true, 64, 75),
        "qd1" => (true, 1, 100),
        _ => (false, 64, 100),
    };
    let file = open(path, direct, false)?;
    let size = file.metadata()?.len();
    let mut plan = Plan::full(BenchTarget::Directory(path.to_path_buf()));
    plan.random.queue_depth = queue_depth;
    plan.runtime = runtime;
    let choice = engine::select(
        EnginePreference::Auto,
        EngineConfig::default(),
        queue_depth as usize * 4096,
    )?;
    let engine = choice.engine(4096);
    let (jobs, depth) = engine.layout(queue_depth);
    let mut random_jobs: Vec<RandomIoJob> = (0..u64::from(jobs))
        .map(|i| {
            RandomIoJob::new(
                RandomPattern::new(plan.seed.wrapping_add(i), size, 4096, read_percent),
                StopCondition::new(runtime, CancelToken::new()),
                ProgressCounter::default(),
            )
        })
        .collect();
    let mut refs: Vec<&mut dyn Job> = random_jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
    let mut target = Target::new(file, size, read_percent < 100);
    // qd1 and randrw run on the CPU taking the device's interrupts, as `nodecheck bench` runs
    // them.
    if what != "ceiling" {
        if let Some(cpus) = bench::pinning_for(path).cpus() {
            target = target.pinned_to(cpus.to_vec());
        }
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    bench::engine::run(&*engine, Work::new(&target, depth, &mut refs, &mut || {}))?;
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    drop(refs);
    let mut stats = IoStats::new();
    for job in &random_jobs {
        stats.merge(&job.stats);
    }
    let output = if what == "qd1" {
        let result = qd1_result(&stats, size, "file", choice.kind);
        serde_json::json!({
            "read_iops": result.iops, "write_iops": 0.0, "ios": result.ios,
            "p50_us": result.lat_us.p50, "p99_us": result.lat_us.p99,
            "allocations_during_run": allocations, "engine": result.engine,
            "cpus": target.cpus().unwrap_or_default(),
            "timed_through_submit": result.reads_timed_through_submit,
        })
    } else {
        let result = randrw_result(&plan, &stats, size, choice.kind);
        serde_json::json!({
            "read_iops": result.read_iops, "write_iops": result.write_iops,
            "ios": result.read_ios + result.write_ios,
            "p50_us": result.read_lat_us.p50, "p99_us": result.read_lat_us.p99,
            "allocations_during_run": allocations, "engine": result.engine,
        })
    };
    println!("{output}");
    Ok(())
}
