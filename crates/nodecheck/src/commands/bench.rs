//! `nodecheck bench`: QD1 read latency and the community randrw test on the drive under PATH.

use std::os::unix::fs::FileTypeExt;
use std::time::Duration;

use anyhow::Context;
use bench::{BenchTarget, NoProgress, Plan, Progress, Selection};

use crate::commands::hints::{self, Printer};
use crate::commands::{emit, UsageError};
use crate::config::{BenchConfig, BenchTest, Format, GlobalOptions};
use crate::redact::Redactor;
use crate::render::bench::BenchDocument;
use crate::render::{self, plot, RenderOptions};

/// The plan the configuration describes, or a usage error for combinations that make no sense.
pub fn plan(config: &BenchConfig) -> Result<Plan, UsageError> {
    let target = match &config.device {
        Some(device) => {
            if config.test != BenchTest::Qd1 {
                return Err(UsageError(format!(
                    "--device {} is read-only and allows only --test qd1; the randrw test \
                     writes, so run it on a directory of the device's file system",
                    device.display()
                )));
            }
            BenchTarget::Device(device.clone())
        }
        None => BenchTarget::Directory(config.path.clone()),
    };
    if config.cliff_budget.is_some() && config.test != BenchTest::Cliff {
        return Err(UsageError(
            "--cliff-budget sizes the cliff test; use it with --test cliff".to_string(),
        ));
    }
    if config.cliff_budget == Some(0) {
        return Err(UsageError(
            "--cliff-budget must be above zero: the cliff test needs to write".to_string(),
        ));
    }
    let tests = Selection {
        qd1: matches!(config.test, BenchTest::Qd1 | BenchTest::Both),
        randrw: matches!(config.test, BenchTest::Randrw | BenchTest::Both),
        behaviour: behaviour_tests(config),
    };
    Ok(Plan {
        runtime: runtime(config),
        size: config.size,
        seed: config.seed,
        engine: config.engine,
        safety: config.safety,
        live_node_clients: crate::config::ClientName::processes(),
        keep_going: config.keep_going,
        ..Plan::custom(target, tests)
    })
}

/// Seconds per test when `--runtime` is not given.
pub const DEFAULT_RUNTIME_S: u64 = 60;

fn runtime(config: &BenchConfig) -> Duration {
    config
        .runtime
        .unwrap_or(Duration::from_secs(DEFAULT_RUNTIME_S))
}

/// The behaviour test `--test` asks for, sized by `--runtime`, `--burst`, `--cliff-budget` and
/// `--seed`.
fn behaviour_tests(config: &BenchConfig) -> bench::behaviour::BehaviourTests {
    use bench::behaviour::{cliff::CliffPlan, span::SpanPlan, sync::SyncPlan, BehaviourTests};
    let runtime = runtime(config);
    match config.test {
        BenchTest::Sync => BehaviourTests {
            sync: Some(SyncPlan {
                runtime,
                burst_bytes: config.burst_bytes,
                seed: config.seed,
                ..SyncPlan::default()
            }),
            ..BehaviourTests::default()
        },
        // The cliff test stops by itself once the cliff is established; its own 30-minute cap
        // applies unless --runtime was given, which then shortens or raises it.
        BenchTest::Cliff => BehaviourTests {
            cliff: Some(CliffPlan {
                max_runtime: config.runtime.unwrap_or(CliffPlan::default().max_runtime),
                max_bytes: config
                    .cliff_budget
                    .unwrap_or(CliffPlan::default().max_bytes),
                seed: config.seed,
                ..CliffPlan::default()
            }),
            ..BehaviourTests::default()
        },
        BenchTest::Span => BehaviourTests {
            span: Some(SpanPlan {
                seed: config.seed,
                ..SpanPlan::default()
            }),
            ..BehaviourTests::default()
        },
        BenchTest::Qd1 | BenchTest::Randrw | BenchTest::Both => BehaviourTests::default(),
    }
}

pub fn run(config: &BenchConfig, global: &GlobalOptions) -> anyhow::Result<u8> {
    let mut plan = plan(config)?;
    let given_a_device = config.device.is_none()
        && std::fs::metadata(&config.path).is_ok_and(|m| m.file_type().is_block_device());
    if given_a_device {
        let path = units::text::shell_quote(&config.path.display().to_string());
        return Err(UsageError(format!(
            "{path} is a block device: the bench never writes to a device; give a directory on \
             its file system, or `--device {path} --test qd1` for the read-only qd1 test"
        ))
        .into());
    }
    if let Some(path) = &config.output.plot {
        // Refuse now rather than after a run that may take half an hour.
        plot::check_plot_path(path).map_err(|err| UsageError(err.to_string()))?;
    }
    let cooperation = crate::signals::cooperate()
        .context("installing the signal handlers that remove the test file")?;
    plan.cancel = cooperation.token().clone();
    if global.verbosity > 0 {
        crate::stderr::line(&plan_line(&plan));
    }
    // -q turns the progress bars off, as JSON on stdout does.
    let outcome = if config.output.format == Format::Json {
        bench::run(&plan, &mut NoProgress)
    } else {
        let mut bars = crate::progress::Bars::for_stderr(global.verbosity);
        bench::run(&plan, &mut bars as &mut dyn Progress)
    };
    if let Some(signal) = cooperation.signal() {
        // The test file is already removed (its guard dropped inside bench::run); dropping
        // the cooperation then ends the process as the signal would have, so the shell or
        // service manager sees what happened.
        crate::stderr::line(&format!(
            "nodecheck: bench interrupted by {}; test file removed",
            units::signal::name(signal)
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
    if let Some(path) = &config.output.plot {
        plot::write_plot(&report, path)
            .with_context(|| format!("drawing the plot to {}", path.display()))?;
    }
    let document = BenchDocument {
        report: &report,
        plot: config.output.plot.as_ref().map(|p| p.display().to_string()),
    };
    let options = RenderOptions::for_stdout(global.verbosity).redacting(
        config
            .output
            .redact
            .then(|| Redactor::new().with_local_hostname()),
    );
    emit(&render::render(&document, config.output.format, &options)?)?;
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

/// What `-v` says before the run: the tests, on what, and for how long.
fn plan_line(plan: &Plan) -> String {
    let behaviour = &plan.behaviour;
    let tests: Vec<&str> = [
        (plan.qd1, "qd1"),
        (plan.randrw, "randrw"),
        (behaviour.sync.is_some(), "sync"),
        (behaviour.span.is_some(), "span"),
        (behaviour.cliff.is_some(), "cliff"),
    ]
    .into_iter()
    .filter_map(|(runs, name)| runs.then_some(name))
    .collect();
    let on = match (&plan.target, plan.size) {
        (BenchTarget::Device(device), _) => format!("{}, read directly", device.display()),
        (BenchTarget::Directory(dir), Some(size)) => {
            format!("a {} test file in {}", bench::ByteSize(size), dir.display())
        }
        (BenchTarget::Directory(dir), None) => format!(
            "a test file in {} (150 GiB unless the reserve needs it smaller)",
            dir.display()
        ),
    };
    let time = if behaviour.cliff.is_some() {
        "until the write cache runs out or the cap is reached".to_string()
    } else {
        format!("{} s per test", plan.runtime.as_secs())
    };
    format!("Measuring {} on {on}, {time}", tests.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CommandConfig;
    use bench::EnginePreference;
    use clap::Parser;

    fn parse(argv: &[&str]) -> BenchConfig {
        let cli = crate::cli::Cli::try_parse_from(
            ["nodecheck", "bench"]
                .into_iter()
                .chain(argv.iter().copied()),
        )
        .unwrap();
        match cli.into_config().unwrap().command {
            CommandConfig::Bench(config) => config,
            other => panic!("expected bench, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_the_community_test() {
        let plan = plan(&parse(&["/data"])).unwrap();
        assert!(plan.qd1 && plan.randrw);
        assert_eq!(plan.random.queue_depth, 64);
        assert_eq!(plan.random.read_percent, 75);
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
        assert_eq!(plan.safety.reserve, Some(1 << 30));
        assert_eq!(plan.engine.preference, EnginePreference::Psync);
        assert!(plan.safety.force && plan.keep_going && plan.safety.clean_stale);
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
    fn device_only_with_qd1() {
        let err = plan(&parse(&["--device", "/dev/sda"])).unwrap_err();
        assert!(err.0.contains("read-only"), "{err}");
        let ok = plan(&parse(&["--device", "/dev/sda", "--test", "qd1"])).unwrap();
        assert_eq!(ok.target, BenchTarget::Device("/dev/sda".into()));
        assert!(!ok.randrw);
    }

    #[test]
    fn verbose_runs_say_what_they_measure() {
        let line = plan_line(&plan(&parse(&["/data", "--size", "64M", "--runtime", "2"])).unwrap());
        assert_eq!(
            line,
            "Measuring qd1, randrw on a 64.0 MiB test file in /data, 2 s per test"
        );
        let line = plan_line(&plan(&parse(&["--device", "/dev/sda", "--test", "qd1"])).unwrap());
        assert_eq!(
            line,
            "Measuring qd1 on /dev/sda, read directly, 60 s per test"
        );
        let line = plan_line(&plan(&parse(&["/data", "--test", "cliff"])).unwrap());
        assert!(
            line.starts_with("Measuring cliff on a test file in /data (150 GiB"),
            "{line}"
        );
    }
}
