//! `cargo xtask bench vs-fio` (alias `bench-vs-fio`): nodecheck's engine against fio on the same
//! file with the same parameters, alternating A/B, with per-metric ratios nodecheck/fio.
//!
//! The nodecheck side runs in a release build of this very binary (`--inner ...`), so both sides
//! are child processes measured the same way: CPU time and peak RSS from `wait4`. Installs
//! nothing: without `fio` on PATH it says how to get it and stops.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bench::engine::{self, EngineConfig, EnginePreference, Target};
use bench::run::{qd1_result, randrw_result, BenchTarget, Plan};
use bench::workload::{
    FillJob, IoStats, Job, ProgressCounter, RandomIoJob, RandomPattern, StopCondition,
};
use bench::CancelToken;

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

const USAGE: &str = "\
usage: cargo xtask bench vs-fio [--quick] [--dir DIR] [--size SIZE] [--runtime SECS] [--rounds N]
                                [--ceiling-size SIZE]

  --quick          1 GiB file, 3 s per run, 2 rounds (for CI)
  --dir DIR        where the test files go (default target/bench-vs-fio; must allow O_DIRECT)
  --size SIZE      randrw/qd1 file size (default 8G)
  --runtime SECS   seconds per run (default 15)
  --rounds N       A/B rounds, order alternating (default 3)
  --ceiling-size   page-cached file for the engine ceiling (default 512M)
";

struct Options {
    dir: PathBuf,
    size: u64,
    runtime: u64,
    rounds: usize,
    ceiling_size: u64,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options {
        dir: crate::project_root().join("target").join("bench-vs-fio"),
        size: 8 << 30,
        runtime: 15,
        rounds: 3,
        ceiling_size: 512 << 20,
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = |name: &str| {
            iter.next()
                .cloned()
                .with_context(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--quick" => {
                options.size = 1 << 30;
                options.runtime = 3;
                options.rounds = 2;
            }
            "--dir" => options.dir = PathBuf::from(value("--dir")?),
            "--size" => options.size = parse_size(&value("--size")?)?,
            "--ceiling-size" => options.ceiling_size = parse_size(&value("--ceiling-size")?)?,
            "--runtime" => options.runtime = value("--runtime")?.parse().context("--runtime")?,
            "--rounds" => options.rounds = value("--rounds")?.parse().context("--rounds")?,
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown option `{other}`\n{USAGE}"),
        }
    }
    if options.rounds == 0 || options.runtime == 0 {
        bail!("--rounds and --runtime must be positive");
    }
    Ok(options)
}

fn parse_size(text: &str) -> Result<u64> {
    bench::error::parse_size(text).map_err(anyhow::Error::msg)
}

pub fn run(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("--inner") {
        return inner(&args[1..]);
    }
    let options = parse_options(args)?;
    if Command::new("fio").arg("--version").output().is_err() {
        bail!("fio is not installed; install it (e.g. `apt-get install fio`) and run again");
    }
    let runner = build_release_runner()?;
    std::fs::create_dir_all(&options.dir)
        .with_context(|| format!("creating {}", options.dir.display()))?;
    let file = options.dir.join("vs-fio.dat");
    let ceiling_file = options.dir.join("ceiling.dat");
    let outcome = compare(&options, &runner, &file, &ceiling_file);
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&ceiling_file);
    outcome
}

/// `cargo build --release -p xtask` and the path of the binary: the engine measured at the
/// optimisation level users get.
fn build_release_runner() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "--release", "-p", "xtask"])
        .current_dir(crate::project_root())
        .status()
        .context("running cargo build --release -p xtask")?;
    if !status.success() {
        bail!("cargo build --release -p xtask failed");
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::project_root().join("target"));
    let runner = target_dir.join("release").join("xtask");
    if !runner.exists() {
        bail!("{} not found after the build", runner.display());
    }
    Ok(runner)
}

/// One child's figures.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    read_iops: f64,
    write_iops: f64,
    ios: f64,
    cpu_s: f64,
    wall_s: f64,
    p50_us: f64,
    p99_us: f64,
    max_rss_kib: i64,
    allocations: Option<u64>,
}

impl Sample {
    fn cpu_per_io_us(&self) -> f64 {
        if self.ios > 0.0 {
            self.cpu_s / self.ios * 1e6
        } else {
            f64::NAN
        }
    }
    fn iops_per_core(&self) -> f64 {
        let cores = self.cpu_s / self.wall_s.max(1e-9);
        (self.read_iops + self.write_iops) / cores.max(1e-9)
    }
}

struct Child {
    stdout: String,
    cpu_s: f64,
    max_rss_kib: i64,
}

/// Runs a command, returning its stdout and its own rusage (from wait4, so other children do
/// not mix in).
fn run_child(command: &mut Command) -> Result<Child> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {command:?}"))?;
    let mut stdout = String::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_string(&mut stdout)
            .context("reading the child's output")?;
    }
    let pid = i32::try_from(child.id()).context("pid out of range")?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our unreaped child; status and usage are valid out-pointers.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != pid {
        bail!("wait4: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        bail!("{command:?} failed (status {status}):\n{stdout}");
    }
    let seconds = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    Ok(Child {
        stdout,
        cpu_s: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Workload {
    RandRw,
    Qd1,
    Ceiling,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::RandRw => "randrw",
            Workload::Qd1 => "qd1",
            Workload::Ceiling => "ceiling",
        }
    }
}

fn fio(workload: Workload, ioengine: &str, file: &Path, size: u64, runtime: u64) -> Result<Sample> {
    let mut command = Command::new("fio");
    command.args([
        "--name=vsfio",
        "--output-format=json",
        "--randrepeat=1",
        "--norandommap",
        "--bs=4k",
        "--time_based",
        "--thread",
        &format!("--ioengine={ioengine}"),
        &format!("--filename={}", file.display()),
        &format!("--size={size}"),
        &format!("--runtime={runtime}"),
    ]);
    if ioengine == "io_uring" {
        command.args(["--fixedbufs", "--registerfiles"]);
    }
    match workload {
        Workload::RandRw => command.args([
            "--rw=randrw",
            "--rwmixread=75",
            "--iodepth=64",
            "--direct=1",
        ]),
        Workload::Qd1 => command.args(["--rw=randread", "--iodepth=1", "--direct=1"]),
        Workload::Ceiling => command.args(["--rw=randread", "--iodepth=64", "--direct=0"]),
    };
    let started = Instant::now();
    let child = run_child(&mut command)?;
    let wall_s = started.elapsed().as_secs_f64();
    let json: serde_json::Value =
        serde_json::from_str(&child.stdout).context("parsing fio's JSON output")?;
    let job = &json["jobs"][0];
    let number = |value: &serde_json::Value| value.as_f64().unwrap_or(0.0);
    let read_iops = number(&job["read"]["iops"]);
    let write_iops = number(&job["write"]["iops"]);
    let ios = number(&job["read"]["total_ios"]) + number(&job["write"]["total_ios"]);
    let percentile = |key: &str| number(&job["read"]["clat_ns"]["percentile"][key]) / 1000.0;
    Ok(Sample {
        read_iops,
        write_iops,
        ios,
        cpu_s: child.cpu_s,
        wall_s,
        p50_us: percentile("50.000000"),
        p99_us: percentile("99.000000"),
        max_rss_kib: child.max_rss_kib,
        allocations: None,
    })
}

fn nodecheck(runner: &Path, workload: Workload, file: &Path, runtime: u64) -> Result<Sample> {
    let started = Instant::now();
    let child = run_child(
        Command::new(runner)
            .args(["bench", "vs-fio", "--inner", workload.name()])
            .arg(file)
            .arg(runtime.to_string()),
    )?;
    let wall_s = started.elapsed().as_secs_f64();
    let json: serde_json::Value =
        serde_json::from_str(&child.stdout).context("parsing the inner runner's output")?;
    let number = |key: &str| json[key].as_f64().unwrap_or(0.0);
    Ok(Sample {
        read_iops: number("read_iops"),
        write_iops: number("write_iops"),
        ios: number("ios"),
        cpu_s: child.cpu_s,
        wall_s,
        p50_us: number("p50_us"),
        p99_us: number("p99_us"),
        max_rss_kib: child.max_rss_kib,
        allocations: json["allocations_during_run"].as_u64(),
    })
}

struct Ratios {
    name: &'static str,
    /// Whether higher is better (IOPS) or lower (CPU, latency), for the target column.
    target: &'static str,
    values: Vec<(f64, f64, f64)>,
}

impl Ratios {
    fn new(name: &'static str, target: &'static str) -> Self {
        Ratios {
            name,
            target,
            values: Vec::new(),
        }
    }
    fn push(&mut self, nodecheck: f64, fio: f64) {
        self.values.push((nodecheck / fio, nodecheck, fio));
    }
    fn print(&self) {
        let mut ratios: Vec<f64> = self.values.iter().map(|v| v.0).collect();
        ratios.sort_by(f64::total_cmp);
        if ratios.is_empty() {
            return;
        }
        let median = if ratios.len() % 2 == 1 {
            ratios[ratios.len() / 2]
        } else {
            (ratios[ratios.len() / 2 - 1] + ratios[ratios.len() / 2]) / 2.0
        };
        let pairs = self
            .values
            .iter()
            .map(|(_, n, f)| format!("{n:.1}/{f:.1}"))
            .collect::<Vec<_>>()
            .join(" ");
        println!(
            "{:<34} {:>6.3} {:>6.3} {:>6.3}  {:<8} {}",
            self.name,
            ratios[0],
            median,
            ratios[ratios.len() - 1],
            self.target,
            pairs
        );
    }
}

fn compare(options: &Options, runner: &Path, file: &Path, ceiling_file: &Path) -> Result<()> {
    let size_text = options.size.to_string();
    let ceiling_text = options.ceiling_size.to_string();
    eprintln!(
        "laying out {} ({} bytes) and {} ({} bytes)...",
        file.display(),
        options.size,
        ceiling_file.display(),
        options.ceiling_size
    );
    for (path, size) in [(file, &size_text), (ceiling_file, &ceiling_text)] {
        run_child(
            Command::new(runner)
                .args(["bench", "vs-fio", "--inner", "fill"])
                .arg(path)
                .arg(size),
        )?;
    }
    // Page-cache the ceiling file: the ceiling measures the engine, not the device.
    std::fs::read(ceiling_file).context("caching the ceiling file")?;

    let mut rw_uring_iops = Ratios::new("randrw IOPS vs fio io_uring", ">= 1.00");
    let mut rw_uring_read = Ratios::new("randrw read IOPS vs fio io_uring", ">= 1.00");
    let mut rw_uring_write = Ratios::new("randrw write IOPS vs fio io_uring", ">= 1.00");
    let mut rw_uring_cpu = Ratios::new("randrw CPU us/IO vs fio io_uring", "<= 1.00");
    let mut rw_libaio_iops = Ratios::new("randrw IOPS vs fio libaio", "info");
    let mut rw_libaio_cpu = Ratios::new("randrw CPU us/IO vs fio libaio", "info");
    let mut qd1_p50 = Ratios::new("qd1 p50 vs fio io_uring clat p50", "<= 1.02");
    let mut qd1_p99 = Ratios::new("qd1 p99 vs fio io_uring clat p99", "info");
    let mut ceiling = Ratios::new("ceiling IOPS/core vs fio io_uring", ">= 1.00");
    let mut ceiling_libaio = Ratios::new("ceiling IOPS/core vs fio libaio", "info");
    let mut peak_rss_kib = 0i64;
    let mut allocations = Vec::new();

    for round in 0..options.rounds {
        let nodecheck_first = round % 2 == 1;
        eprintln!(
            "round {}/{} ({} first)",
            round + 1,
            options.rounds,
            if nodecheck_first { "nodecheck" } else { "fio" }
        );
        let pair =
            |workload: Workload, path: &Path, size: u64| -> Result<(Sample, Sample, Sample)> {
                let mut samples = [Sample::default(); 3];
                let order: [usize; 3] = if nodecheck_first {
                    [0, 1, 2]
                } else {
                    [1, 2, 0]
                };
                for which in order {
                    samples[which] = match which {
                        0 => nodecheck(runner, workload, path, options.runtime)?,
                        1 => fio(workload, "io_uring", path, size, options.runtime)?,
                        _ => fio(workload, "libaio", path, size, options.runtime)?,
                    };
                }
                Ok((samples[0], samples[1], samples[2]))
            };
        let (n, u, l) = pair(Workload::RandRw, file, options.size)?;
        let total = |s: &Sample| s.read_iops + s.write_iops;
        rw_uring_iops.push(total(&n), total(&u));
        rw_uring_read.push(n.read_iops, u.read_iops);
        rw_uring_write.push(n.write_iops, u.write_iops);
        rw_uring_cpu.push(n.cpu_per_io_us(), u.cpu_per_io_us());
        rw_libaio_iops.push(total(&n), total(&l));
        rw_libaio_cpu.push(n.cpu_per_io_us(), l.cpu_per_io_us());
        peak_rss_kib = peak_rss_kib.max(n.max_rss_kib);
        allocations.extend(n.allocations.map(|a| (a, n.ios)));

        let (n, u, _) = pair(Workload::Qd1, file, options.size)?;
        qd1_p50.push(n.p50_us, u.p50_us);
        qd1_p99.push(n.p99_us, u.p99_us);
        peak_rss_kib = peak_rss_kib.max(n.max_rss_kib);

        let (n, u, l) = pair(Workload::Ceiling, ceiling_file, options.ceiling_size)?;
        ceiling.push(n.iops_per_core(), u.iops_per_core());
        ceiling_libaio.push(n.iops_per_core(), l.iops_per_core());
        peak_rss_kib = peak_rss_kib.max(n.max_rss_kib);
    }

    println!(
        "\nnodecheck/fio, {} rounds, {} s per run, {} byte file, ceiling on a {} byte \
         page-cached file",
        options.rounds, options.runtime, options.size, options.ceiling_size
    );
    println!(
        "{:<34} {:>6} {:>6} {:>6}  {:<8} nodecheck/fio per round",
        "metric", "min", "median", "max", "target"
    );
    for ratios in [
        &rw_uring_iops,
        &rw_uring_read,
        &rw_uring_write,
        &rw_uring_cpu,
        &rw_libaio_iops,
        &rw_libaio_cpu,
        &qd1_p50,
        &qd1_p99,
        &ceiling,
        &ceiling_libaio,
    ] {
        ratios.print();
    }
    println!(
        "nodecheck peak RSS: {:.1} MiB (target < 64 MiB)",
        peak_rss_kib as f64 / 1024.0
    );
    for (count, ios) in allocations {
        println!("nodecheck randrw: {count} heap allocations during a run of {ios:.0} I/O");
    }
    Ok(())
}

/// The nodecheck side, run in the release build: `--inner fill|randrw|qd1|ceiling FILE ARG`.
fn inner(args: &[String]) -> Result<()> {
    let [what, file, arg] = args else {
        bail!("usage: --inner fill FILE SIZE | randrw|qd1|ceiling FILE SECS");
    };
    let path = Path::new(file);
    match what.as_str() {
        "fill" => fill(path, parse_size(arg)?),
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
    engine.run(
        &Target::new(file.try_clone()?, size, true),
        depth,
        &mut refs,
        &mut || {},
    )?;
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
    let mut plan = Plan::new(BenchTarget::Directory(path.to_path_buf()));
    plan.queue_depth = queue_depth;
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
    let target = Target::new(file, size, read_percent < 100);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    engine.run(&target, depth, &mut refs, &mut || {})?;
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
