//! `nodecheck bench`: QD1 read latency and the community randrw test on the drive under PATH.

use std::fmt::Write as _;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use bench::{BenchReport, ByteSize, EnginePreference, LatencySummary};
use bench::{BenchTarget, NoProgress, Plan, Progress, Selection};

use crate::commands::hints::{self, Printer};
use crate::commands::{emit, UsageError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TestArg {
    /// 4 KiB random reads at queue depth 1: the latency that predicts sync speed.
    Qd1,
    /// 4 KiB random 75 % reads / 25 % writes at queue depth 64: the community's fio test.
    Randrw,
    /// qd1, then randrw.
    All,
    /// A client's batch cycle: QD1 reads, a burst of random writes at QD32 with fdatasync while
    /// a QD1 reader keeps sampling, then the time until read latency is back to baseline.
    Sync,
    /// Opt-in, long: sustained writes until throughput falls off the write-cache cliff (QLC).
    Cliff,
    /// QD1 read latency over spans growing from 1 GiB to the whole file (DRAM-less drives).
    Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// io_uring when the kernel and sandbox allow it, else psync.
    Auto,
    IoUring,
    /// Threads doing pread/pwrite: works everywhere.
    Psync,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes only to a test file it creates in PATH's file system (O_EXCL|O_NOFOLLOW, one descriptor
for every test), one bench per directory at a time, keeps a free-space reserve of max(10 % of the
file system, 50 GiB), refuses tmpfs and ramfs, and removes the file on success, error, Ctrl-C,
SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2. A test file left by a killed run (no bench holds
its lock) is reported on the next run (--clean-stale removes it). Set NODECHECK_FORCE_NO_IO_URING=1 to use the portable engine as if io_uring were blocked.")]
pub struct BenchArgs {
    /// Directory on the file system to measure.
    #[arg(default_value = ".")]
    pub path: PathBuf,

    /// Which test to run.
    #[arg(long = "test", value_enum, default_value_t = TestArg::All)]
    pub test: TestArg,

    /// Seconds per test [default: 60]. The cliff test stops by itself once the cliff is
    /// established, else after 30 minutes; --runtime shortens or raises that cap.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub runtime: Option<u64>,

    /// Test file size (the randrw span), e.g. 20G. Default 150G, the community's figure; shrunk
    /// with a warning to keep the reserve free.
    #[arg(long, value_parser = bench::error::parse_file_size)]
    pub size: Option<u64>,

    /// Free space to keep on the file system, e.g. 5G. Default max(10 % of the file system,
    /// 50 GiB); lower it only on a disk that no node uses.
    #[arg(long, value_parser = units::size::parse_file_size)]
    pub reserve: Option<u64>,

    /// Run even though an Ethereum client is running (its I/O skews the figures, and the
    /// benchmark slows it down).
    #[arg(long)]
    pub force: bool,

    /// Read a block device directly instead (read-only, qd1 only, root only), like `ioping -D`.
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<PathBuf>,

    /// I/O engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// io_uring: a kernel thread polls the submission queue (saves syscalls, burns a core).
    #[arg(long)]
    pub sqpoll: bool,

    /// io_uring: poll the device for completions (needs a driver with poll queues).
    #[arg(long)]
    pub iopoll: bool,

    /// io_uring: the most new requests per io_uring_enter. 1 hands each to the device at once,
    /// like fio's default; larger saves system calls where the device does not mind bursts.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub submit_batch: u32,

    /// Run qd1 and randrw wherever the scheduler puts them, instead of on the CPU that takes
    /// the drive's completion interrupts (single-queue devices: virtio, AHCI, USB).
    #[arg(long)]
    pub no_pin: bool,

    /// When a test fails, report it and go on with the next.
    #[arg(long)]
    pub keep_going: bool,

    /// Remove test files left behind by killed runs before starting.
    #[arg(long)]
    pub clean_stale: bool,

    /// Seed of the random offsets (the same seed gives the same sequence, like fio's
    /// randrepeat=1).
    #[arg(long, default_value_t = bench::plan::DEFAULT_SEED)]
    pub seed: u64,

    /// Write burst size of `--test sync`, e.g. 1G, at least 1M (see docs/behaviour.md for the
    /// default).
    #[arg(long, value_parser = parse_burst_arg, default_value = "1G")]
    pub burst: u64,

    /// Most bytes `--test cliff` may write, e.g. 200G [default: 1T]. It overwrites the test
    /// file in place, so this bounds wear and time, not space.
    #[arg(long, value_name = "SIZE", value_parser = units::size::parse_file_size)]
    pub cliff_budget: Option<u64>,

    /// Draw the sync, cliff or span result to this SVG file and a PNG beside it (latency over
    /// time, throughput over GB written, latency over span).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Print the result as JSON (no progress bars).
    #[arg(long)]
    pub json: bool,

    /// Output format [default: text]; markdown is for a GitHub issue or forum post (links the
    /// --plot file; /home paths and the host name redacted unless --no-redact).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "json")]
    pub format: Option<BenchFormat>,

    /// Keep /home paths and the host name in markdown output.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchFormat {
    Text,
    Json,
    Markdown,
}

impl BenchArgs {
    fn output_format(&self) -> BenchFormat {
        if self.json {
            BenchFormat::Json
        } else {
            self.format.unwrap_or(BenchFormat::Text)
        }
    }
}

fn parse_burst_arg(text: &str) -> Result<u64, String> {
    let bytes = units::size::parse_file_size(text).map_err(|err| err.to_string())?;
    let min = bench::behaviour::sync::MIN_BURST_BYTES;
    if bytes < min {
        return Err(format!(
            "{} is too small a burst: below {} the writes end inside one QD1 read and the \
             burst's MB/s and recovery mean nothing",
            ByteSize(bytes),
            ByteSize(min)
        ));
    }
    Ok(bytes)
}

/// The plan the arguments describe, or a usage error for combinations that make no sense.
pub fn plan(args: &BenchArgs) -> Result<Plan, UsageError> {
    let target = match &args.device {
        Some(device) => {
            if args.test != TestArg::Qd1 {
                return Err(UsageError(format!(
                    "--device {} is read-only and allows only --test qd1; the randrw test \
                     writes, so run it on a directory of the device's file system",
                    device.display()
                )));
            }
            BenchTarget::Device(device.clone())
        }
        None => BenchTarget::Directory(args.path.clone()),
    };
    if args.cliff_budget.is_some() && args.test != TestArg::Cliff {
        return Err(UsageError(
            "--cliff-budget sizes the cliff test; use it with --test cliff".to_string(),
        ));
    }
    if args.cliff_budget == Some(0) {
        return Err(UsageError(
            "--cliff-budget must be above zero: the cliff test needs to write".to_string(),
        ));
    }
    let mut plan = Plan::custom(
        target,
        Selection {
            qd1: matches!(args.test, TestArg::Qd1 | TestArg::All),
            randrw: matches!(args.test, TestArg::Randrw | TestArg::All),
            behaviour: behaviour_tests(args),
        },
    );
    plan.runtime = runtime(args);
    plan.size = args.size;
    plan.reserve = args.reserve;
    plan.force = args.force;
    plan.keep_going = args.keep_going;
    plan.clean_stale = args.clean_stale;
    plan.seed = args.seed;
    plan.sqpoll = args.sqpoll;
    plan.iopoll = args.iopoll;
    plan.submit_batch = args.submit_batch;
    plan.pin = !args.no_pin;
    plan.engine = match args.engine {
        EngineArg::Auto => EnginePreference::Auto,
        EngineArg::IoUring => EnginePreference::IoUring,
        EngineArg::Psync => EnginePreference::Psync,
    };
    Ok(plan)
}

/// Seconds per test when `--runtime` is not given.
pub const DEFAULT_RUNTIME_S: u64 = 60;

fn runtime(args: &BenchArgs) -> Duration {
    Duration::from_secs(args.runtime.unwrap_or(DEFAULT_RUNTIME_S))
}

/// The behaviour test `--test` asks for, sized by `--runtime`, `--burst`, `--cliff-budget` and
/// `--seed`.
fn behaviour_tests(args: &BenchArgs) -> bench::behaviour::BehaviourTests {
    use bench::behaviour::{cliff::CliffPlan, span::SpanPlan, sync::SyncPlan, BehaviourTests};
    let runtime = runtime(args);
    match args.test {
        TestArg::Sync => BehaviourTests {
            sync: Some(SyncPlan {
                runtime,
                burst_bytes: args.burst,
                seed: args.seed,
                ..SyncPlan::default()
            }),
            ..BehaviourTests::default()
        },
        // The cliff test stops by itself once the cliff is established; its own 30-minute cap
        // applies unless --runtime was given, which then shortens or raises it.
        TestArg::Cliff => BehaviourTests {
            cliff: Some(CliffPlan {
                max_runtime: args
                    .runtime
                    .map_or(CliffPlan::default().max_runtime, Duration::from_secs),
                max_bytes: args.cliff_budget.unwrap_or(CliffPlan::default().max_bytes),
                seed: args.seed,
                ..CliffPlan::default()
            }),
            ..BehaviourTests::default()
        },
        TestArg::Span => BehaviourTests {
            span: Some(SpanPlan {
                seed: args.seed,
                ..SpanPlan::default()
            }),
            ..BehaviourTests::default()
        },
        TestArg::Qd1 | TestArg::Randrw | TestArg::All => BehaviourTests::default(),
    }
}

pub fn run(args: &BenchArgs) -> anyhow::Result<u8> {
    let mut plan = plan(args)?;
    let given_a_device = args.device.is_none()
        && std::fs::metadata(&args.path).is_ok_and(|m| m.file_type().is_block_device());
    if given_a_device {
        let path = units::text::shell_quote(&args.path.display().to_string());
        return Err(UsageError(format!(
            "{path} is a block device: the bench never writes to a device; give a directory on \
             its file system, or `--device {path} --test qd1` for the read-only qd1 test"
        ))
        .into());
    }
    if let Some(path) = &args.plot {
        // Refuse now rather than after a run that may take half an hour.
        bench::plot::check_plot_path(path).map_err(|err| UsageError(err.to_string()))?;
    }
    let cooperation = crate::signals::cooperate()
        .context("installing the signal handlers that remove the test file")?;
    plan.cancel = cooperation.token().clone();
    let format = args.output_format();
    let outcome = if format == BenchFormat::Json {
        bench::run(&plan, &mut NoProgress)
    } else {
        let mut bars = crate::progress::Bars::for_stderr(0);
        bench::run(&plan, &mut bars as &mut dyn Progress)
    };
    if let Some(signal) = cooperation.signal() {
        // The test file is already removed (its guard dropped inside bench::run); dropping
        // the cooperation then ends the process as the signal would have, so the shell or
        // service manager sees what happened.
        crate::stderr::line(&format!(
            "nodecheck: bench interrupted by {}; test file removed",
            bench::error::signal_name(signal)
        ));
    }
    drop(cooperation);
    let mut report = match outcome {
        Ok(report) => report,
        Err(err) => {
            let hinted = hints::bench_failure(&err, Printer::Bench, plan.target.path());
            return Err(anyhow::anyhow!(hinted));
        }
    };
    if let Some(hint) = hints::stale_files_hint(&report.warnings) {
        report.warnings.push(hint);
    }
    if let Some(path) = &args.plot {
        bench::plot::write_plot(&report, path)
            .with_context(|| format!("drawing the plot to {}", path.display()))?;
    }
    match format {
        BenchFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(&report).context("serialising the report")?;
            text.push('\n');
            emit(&text)?;
        }
        BenchFormat::Markdown => {
            let plot = args.plot.as_ref().map(|p| p.display().to_string());
            let text = crate::render::markdown::render_bench(&report, plot.as_deref());
            if args.no_redact {
                emit(&text)?;
            } else {
                emit(
                    &crate::redact::Redactor::new()
                        .with_local_hostname()
                        .redact(&text),
                )?;
            }
        }
        BenchFormat::Text => emit(&render_text(&report))?,
    }
    let measured_nothing = report.qd1.is_none()
        && report.randrw.is_none()
        && report.sync.is_none()
        && report.cliff.is_none()
        && report.span.is_none();
    if measured_nothing {
        // --keep-going went on past every failure: the warnings say why, nothing was measured.
        crate::stderr::line("nodecheck: error: no test completed; see the warnings");
        return Ok(crate::exit_codes::COULD_NOT_CHECK);
    }
    Ok(crate::exit_codes::GOOD)
}

fn latency_line(label: &str, lat: &LatencySummary) -> String {
    format!(
        "  {label:<14} mean {:.1}  p50 {:.1}  p90 {:.1}  p99 {:.1}  p99.9 {:.1}  max {:.1}\n",
        lat.mean, lat.p50, lat.p90, lat.p99, lat.p999, lat.max
    )
}

/// The human-readable result.
pub fn render_text(report: &BenchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "nodecheck bench {} (engine {})",
        report.path,
        report.engine.name()
    );
    if let Some(reason) = &report.engine_reason {
        let _ = writeln!(out, "  engine: {reason}");
    }
    if let Some(qd1) = &report.qd1 {
        let _ = writeln!(
            out,
            "\nQD1 4 KiB random read ({} of {}, {:.0} s): {:.0} IOPS",
            qd1.target,
            ByteSize(qd1.span_bytes),
            qd1.runtime_s,
            qd1.iops
        );
        out.push_str(&latency_line("latency µs", &qd1.lat_us));
        if let Some(pinning) = &qd1.pinning {
            let _ = writeln!(out, "  {pinning}");
        }
    }
    if let Some(rw) = &report.randrw {
        let _ = writeln!(
            out,
            "\nrandrw 4 KiB 75/25 QD{} ({} span, {:.0} s, {}comparable with the community's \
             150G fio figure)",
            rw.queue_depth,
            ByteSize(rw.span_bytes),
            rw.runtime_s,
            if rw.fio_comparable { "" } else { "not " }
        );
        let _ = writeln!(
            out,
            "  read  {:>9.0} IOPS  {:>7.1} MB/s",
            rw.read_iops,
            rw.read_bw_bytes_per_s / 1e6
        );
        let _ = writeln!(
            out,
            "  write {:>9.0} IOPS  {:>7.1} MB/s",
            rw.write_iops,
            rw.write_bw_bytes_per_s / 1e6
        );
        out.push_str(&latency_line("read lat µs", &rw.read_lat_us));
        out.push_str(&latency_line("write lat µs", &rw.write_lat_us));
        if let Some(pinning) = &rw.pinning {
            let _ = writeln!(out, "  {pinning}");
        }
    }
    render_behaviour(&mut out, report);
    if !report.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for warning in &report.warnings {
            let _ = writeln!(out, "  - {warning}");
        }
    }
    out
}

/// The sync, cliff and span results (docs/behaviour.md explains them).
fn render_behaviour(out: &mut String, report: &BenchReport) {
    if let Some(sync) = &report.sync {
        let _ = writeln!(
            out,
            "\nsync: {} cycles of QD1 reads + {} random writes at QD{} with fdatasync ({:.0} s, \
             reads {}, bursts {})",
            sync.cycles.len(),
            ByteSize(sync.burst_bytes),
            sync.burst_queue_depth,
            sync.runtime_s,
            sync.engine.name(),
            sync.burst_engine.unwrap_or(sync.engine).name()
        );
        out.push_str(&latency_line("baseline µs", &sync.baseline_lat_us));
        out.push_str(&latency_line("in burst µs", &sync.burst_lat_us));
        let recovery = match (sync.recovery_ms_median, sync.recovery_ms_max) {
            (Some(median), Some(max)) => format!("median {median:.0} ms, worst {max:.0} ms"),
            _ => "none recovered".to_string(),
        };
        let _ = writeln!(
            out,
            "  burst writes {:.0} MB/s; recovery to p99 within {:.0} % of baseline: {recovery}{}",
            sync.burst_write_mb_s,
            sync.recovery_tolerance * 100.0,
            if sync.unrecovered_cycles > 0 {
                format!(
                    " ({} cycles not recovered after {:.0} s)",
                    sync.unrecovered_cycles, sync.recovery_timeout_s
                )
            } else {
                String::new()
            }
        );
    }
    if let Some(cliff) = &report.cliff {
        let _ = writeln!(
            out,
            "\ncliff: {:.1} GB written in {:.0} s ({}), {:.0} MB/s before any drop",
            cliff.written_bytes as f64 / 1e9,
            cliff.runtime_s,
            cliff.engine.name(),
            cliff.pre_cliff_mb_s
        );
        match (cliff.cache_estimate_bytes, cliff.post_cliff_mb_s) {
            (Some(cache), Some(post)) => {
                let _ = writeln!(
                    out,
                    "  writes fell to {post:.0} MB/s after {:.1} GB (write cache size, roughly)",
                    cache as f64 / 1e9
                );
            }
            _ => {
                let _ = writeln!(out, "  no cliff before the test stopped ({:?})", cliff.stop);
            }
        }
    }
    if let Some(span) = &report.span {
        let _ = writeln!(
            out,
            "\nspan: QD1 read latency over growing spans ({}; largest/smallest mean {:.2}x)",
            span.engine.name(),
            span.latency_ratio
        );
        for point in &span.points {
            out.push_str(&latency_line(
                &format!("{}", ByteSize(point.span_bytes)),
                &point.lat_us,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: BenchArgs,
    }

    fn parse(argv: &[&str]) -> BenchArgs {
        Wrapper::try_parse_from(std::iter::once("bench").chain(argv.iter().copied()))
            .unwrap()
            .args
    }

    #[test]
    fn defaults_are_the_community_test() {
        let plan = plan(&parse(&["/data"])).unwrap();
        assert!(plan.qd1 && plan.randrw);
        assert_eq!(plan.queue_depth, 64);
        assert_eq!(plan.read_percent, 75);
        assert_eq!(plan.size, None);
        assert_eq!(plan.runtime, Duration::from_secs(60));
        assert_eq!(plan.target, BenchTarget::Directory("/data".into()));
    }

    #[test]
    fn options_reach_the_plan() {
        let plan = plan(&parse(&[
            "/data",
            "--test",
            "randrw",
            "--size",
            "256M",
            "--reserve",
            "1G",
            "--runtime",
            "2",
            "--engine",
            "psync",
            "--force",
            "--keep-going",
            "--clean-stale",
        ]))
        .unwrap();
        assert!(!plan.qd1 && plan.randrw);
        assert_eq!(plan.size, Some(256 << 20));
        assert_eq!(plan.reserve, Some(1 << 30));
        assert_eq!(plan.engine, EnginePreference::Psync);
        assert!(plan.force && plan.keep_going && plan.clean_stale);
    }

    fn cliff_plan(argv: &[&str]) -> bench::behaviour::cliff::CliffPlan {
        plan(&parse(argv))
            .unwrap()
            .behaviour
            .cliff
            .expect("a cliff plan")
    }

    #[test]
    fn cliff_keeps_its_cap_unless_runtime_or_budget_say_otherwise() {
        let default = bench::behaviour::cliff::CliffPlan::default();
        let plain = cliff_plan(&["/data", "--test", "cliff"]);
        assert_eq!(plain.max_runtime, default.max_runtime);
        assert_eq!(plain.max_bytes, default.max_bytes);
        let short = cliff_plan(&[
            "/data",
            "--test",
            "cliff",
            "--runtime",
            "90",
            "--cliff-budget",
            "20G",
        ]);
        assert_eq!(short.max_runtime, Duration::from_secs(90));
        assert_eq!(short.max_bytes, 20 << 30);
        let long = cliff_plan(&["/data", "--test", "cliff", "--runtime", "3600"]);
        assert_eq!(long.max_runtime, Duration::from_secs(3600));
    }

    #[test]
    fn cliff_budget_only_with_the_cliff_test() {
        let err = plan(&parse(&["/data", "--cliff-budget", "1G"])).unwrap_err();
        assert!(err.0.contains("--test cliff"), "{err}");
        let err = plan(&parse(&["/data", "--test", "cliff", "--cliff-budget", "0"])).unwrap_err();
        assert!(err.0.contains("above zero"), "{err}");
    }

    #[test]
    fn a_burst_below_one_mib_is_refused() {
        let err = Wrapper::try_parse_from(["bench", "/data", "--test", "sync", "--burst", "1"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("too small a burst"), "{err}");
        assert!(err.contains("1.0 MiB"), "{err}");
        assert_eq!(parse(&["/data", "--burst", "1M"]).burst, 1 << 20);
    }

    #[test]
    fn device_only_with_qd1() {
        let err = plan(&parse(&["--device", "/dev/sda"])).unwrap_err();
        assert!(err.0.contains("read-only"), "{err}");
        let ok = plan(&parse(&["--device", "/dev/sda", "--test", "qd1"])).unwrap();
        assert_eq!(ok.target, BenchTarget::Device("/dev/sda".into()));
        assert!(!ok.randrw);
    }
}
