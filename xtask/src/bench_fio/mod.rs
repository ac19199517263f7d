//! `cargo xtask bench vs-fio` (alias `bench-vs-fio`): nodecheck's engine against fio on the same
//! file with the same parameters, alternating A/B, with per-metric ratios nodecheck/fio.
//!
//! The nodecheck side is the bench library's `vs_fio_runner` example built in release mode, so
//! both sides are child processes measured the same way: CPU time and peak RSS from `wait4`.
//! Installs nothing: without `fio` on PATH it says how to get it and stops.

mod ratios;
mod runs;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use ratios::Ratios;
use runs::{cache, fio, nodecheck, qd1_pinning, run_child, settle, Engine, Sample, Workload};

const USAGE: &str = "\
usage: cargo xtask bench vs-fio [--quick] [--dir DIR] [--size SIZE] [--runtime SECS] [--rounds N]
                                [--ceiling-size SIZE] [--settle SECS]

  --quick          1 GiB file, 3 s per run, 2 rounds (for CI)
  --dir DIR        where the test files go (default target/bench-vs-fio; must allow O_DIRECT)
  --size SIZE      randrw/qd1 file size (default 8G)
  --runtime SECS   seconds per run (default 15)
  --rounds N       A/B rounds, order alternating (default 5)
  --ceiling-size   page-cached file for the engine ceiling (default 512M)
  --settle SECS    sync and pause before each device run (default 3; 1 with --quick)
";

struct Options {
    dir: PathBuf,
    size: u64,
    runtime: u64,
    rounds: usize,
    ceiling_size: u64,
    /// Pause before each device run so the previous run's writes (the host's write-back on a
    /// VM, the drive's cache) do not land on whoever runs next.
    settle: std::time::Duration,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options {
        dir: crate::project_root().join("target").join("bench-vs-fio"),
        size: 8 << 30,
        runtime: 15,
        // The virtio disk's IOPS drift by +-5 % between 15 s runs; 5 pairs keep the median
        // from resting on one lucky or unlucky pair.
        rounds: 5,
        ceiling_size: 512 << 20,
        settle: std::time::Duration::from_secs(3),
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
                options.settle = std::time::Duration::from_secs(1);
            }
            "--dir" => options.dir = PathBuf::from(value("--dir")?),
            "--size" => options.size = parse_size(&value("--size")?)?,
            "--ceiling-size" => options.ceiling_size = parse_size(&value("--ceiling-size")?)?,
            "--runtime" => options.runtime = value("--runtime")?.parse().context("--runtime")?,
            "--rounds" => options.rounds = value("--rounds")?.parse().context("--rounds")?,
            "--settle" => {
                options.settle =
                    std::time::Duration::from_secs(value("--settle")?.parse().context("--settle")?)
            }
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

/// `256M`, `8G`, `4096`: binary units, as fio reads them.
fn parse_size(text: &str) -> Result<u64> {
    Ok(units::size::parse_file_size(text)?)
}

pub fn run(args: &[String]) -> Result<()> {
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

/// Builds the bench library's runner in release mode: the engine measured at the optimisation
/// level users get, depending on nothing but the bench crate.
fn build_release_runner() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "nodecheck-bench",
            "--example",
            "vs_fio_runner",
        ])
        .current_dir(crate::project_root())
        .status()
        .context("running cargo build --release --example vs_fio_runner")?;
    if !status.success() {
        bail!("building the vs_fio_runner example failed");
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::project_root().join("target"));
    let runner = target_dir
        .join("release")
        .join("examples")
        .join("vs_fio_runner");
    if !runner.exists() {
        bail!("{} not found after the build", runner.display());
    }
    Ok(runner)
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
        run_child(Command::new(runner).arg("fill").arg(path).arg(size))?;
    }
    let mut rw_uring_iops = Ratios::new("randrw IOPS vs fio io_uring", ">= 1.00");
    let mut rw_uring_read = Ratios::new("randrw read IOPS vs fio io_uring", ">= 1.00");
    let mut rw_uring_write = Ratios::new("randrw write IOPS vs fio io_uring", ">= 1.00");
    let mut rw_uring_cpu = Ratios::new("randrw CPU us/IO vs fio io_uring", "<= 1.00");
    let mut rw_libaio_iops = Ratios::new("randrw IOPS vs fio libaio", "info");
    let mut rw_pinned_iops = Ratios::new("randrw IOPS vs fio pinned alike", "info");
    let mut rw_libaio_cpu = Ratios::new("randrw CPU us/IO vs fio libaio", "info");
    let mut qd1_p50 = Ratios::new("qd1 p50 vs fio io_uring clat p50", "<= 1.02");
    let mut qd1_p99 = Ratios::new("qd1 p99 vs fio io_uring clat p99", "info");
    let mut qd1_total = Ratios::new("qd1 p50 vs fio io_uring lat p50", "info");
    let mut qd1_pinned_p50 = Ratios::new("qd1 p50 vs fio pinned alike clat p50", "info");
    let mut ceiling = Ratios::new("ceiling IOPS/core vs fio io_uring", ">= 1.00");
    let mut ceiling_libaio = Ratios::new("ceiling IOPS/core vs fio libaio", "info");
    let mut peak_rss_kib = 0i64;
    let mut allocations = Vec::new();

    let (pinned_cpus, pinning) = qd1_pinning(runner, file)?;
    eprintln!("{pinning}");
    let run = |engine: Engine, workload: Workload, path: &Path, size: u64| -> Result<Sample> {
        if workload == Workload::Ceiling {
            cache(path)?;
        } else {
            settle(options.settle);
        }
        match engine {
            Engine::Nodecheck => nodecheck(runner, workload, path, options.runtime),
            Engine::FioUring => fio(workload, "io_uring", path, size, options.runtime, None),
            Engine::FioLibaio => fio(workload, "libaio", path, size, options.runtime, None),
            Engine::FioUringPinned => fio(
                workload,
                "io_uring",
                path,
                size,
                options.runtime,
                pinned_cpus.as_deref(),
            ),
        }
    };

    for round in 0..options.rounds {
        let nodecheck_first = round % 2 == 1;
        eprintln!(
            "round {}/{} ({} first)",
            round + 1,
            options.rounds,
            if nodecheck_first { "nodecheck" } else { "fio" }
        );
        // nodecheck always runs right next to the fio run its target compares with, so that
        // the disk's drift over minutes falls on both alike; the order alternates per round.
        let sequence = |others: [Engine; 2]| -> Vec<Engine> {
            if nodecheck_first {
                vec![Engine::Nodecheck, others[0], others[1]]
            } else {
                vec![others[1], others[0], Engine::Nodecheck]
            }
        };
        let measure = |workload: Workload,
                       path: &Path,
                       size: u64,
                       order: Vec<Engine>|
         -> Result<Vec<(Engine, Sample)>> {
            order
                .into_iter()
                .map(|engine| Ok((engine, run(engine, workload, path, size)?)))
                .collect()
        };
        let pick = |samples: &[(Engine, Sample)], engine: Engine| -> Sample {
            samples
                .iter()
                .find(|(e, _)| *e == engine)
                .map(|(_, sample)| *sample)
                .unwrap_or_default()
        };

        let randrw_order = if pinned_cpus.is_none() {
            sequence([Engine::FioUring, Engine::FioLibaio])
        } else if nodecheck_first {
            vec![
                Engine::Nodecheck,
                Engine::FioUring,
                Engine::FioUringPinned,
                Engine::FioLibaio,
            ]
        } else {
            vec![
                Engine::FioLibaio,
                Engine::FioUringPinned,
                Engine::FioUring,
                Engine::Nodecheck,
            ]
        };
        let samples = measure(Workload::RandRw, file, options.size, randrw_order)?;
        let (n, u, l) = (
            pick(&samples, Engine::Nodecheck),
            pick(&samples, Engine::FioUring),
            pick(&samples, Engine::FioLibaio),
        );
        let total = |s: &Sample| s.read_iops + s.write_iops;
        rw_uring_iops.push(total(&n), total(&u));
        rw_uring_read.push(n.read_iops, u.read_iops);
        rw_uring_write.push(n.write_iops, u.write_iops);
        rw_uring_cpu.push(n.cpu_per_io_us(), u.cpu_per_io_us());
        rw_libaio_iops.push(total(&n), total(&l));
        if pinned_cpus.is_some() {
            let pinned = pick(&samples, Engine::FioUringPinned);
            rw_pinned_iops.push(total(&n), total(&pinned));
        }
        rw_libaio_cpu.push(n.cpu_per_io_us(), l.cpu_per_io_us());
        peak_rss_kib = peak_rss_kib.max(n.max_rss_kib);
        allocations.extend(n.allocations.map(|a| (a, n.ios)));

        // nodecheck between fio as users run it and fio pinned as nodecheck pins itself.
        let qd1_order = if nodecheck_first {
            vec![Engine::FioUring, Engine::Nodecheck, Engine::FioUringPinned]
        } else {
            vec![Engine::FioUringPinned, Engine::Nodecheck, Engine::FioUring]
        };
        let qd1_order = if pinned_cpus.is_some() {
            qd1_order
        } else {
            qd1_order
                .into_iter()
                .filter(|engine| *engine != Engine::FioUringPinned)
                .collect()
        };
        let samples = measure(Workload::Qd1, file, options.size, qd1_order)?;
        let (n, u) = (
            pick(&samples, Engine::Nodecheck),
            pick(&samples, Engine::FioUring),
        );
        if n.timed_through_submit > 0 {
            eprintln!(
                "vs-fio: qd1 round {}: {} of {:.0} nodecheck reads completed inside their submit \
                 call and were timed from before it (fio's lat)",
                round + 1,
                n.timed_through_submit,
                n.ios
            );
        }
        if u.fio_clat_measures_the_device() {
            qd1_p50.push(n.p50_us, u.p50_us);
            qd1_p99.push(n.p99_us, u.p99_us);
        } else {
            let why = format!(
                "round {}: fio's clat p50 {:.1} µs against its lat p50 {:.1} µs (the device \
                 time fell into submission); nodecheck {:.1} µs",
                round + 1,
                u.p50_us,
                u.total_p50_us,
                n.p50_us
            );
            qd1_p50.leave_out(why.clone());
            qd1_p99.leave_out(why);
        }
        qd1_total.push(n.p50_us, u.total_p50_us);
        if pinned_cpus.is_some() {
            let pinned = pick(&samples, Engine::FioUringPinned);
            if pinned.fio_clat_measures_the_device() {
                qd1_pinned_p50.push(n.p50_us, pinned.p50_us);
            } else {
                qd1_pinned_p50.leave_out(format!(
                    "round {}: fio's clat p50 {:.1} µs against its lat p50 {:.1} µs",
                    round + 1,
                    pinned.p50_us,
                    pinned.total_p50_us
                ));
            }
        }
        peak_rss_kib = peak_rss_kib.max(n.max_rss_kib);

        let samples = measure(
            Workload::Ceiling,
            ceiling_file,
            options.ceiling_size,
            sequence([Engine::FioUring, Engine::FioLibaio]),
        )?;
        let (n, u, l) = (
            pick(&samples, Engine::Nodecheck),
            pick(&samples, Engine::FioUring),
            pick(&samples, Engine::FioLibaio),
        );
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
        "{:<38} {:>6} {:>6} {:>6}  {:<8} nodecheck/fio per round",
        "metric", "min", "median", "max", "target"
    );
    for ratios in [
        &rw_uring_iops,
        &rw_uring_read,
        &rw_uring_write,
        &rw_uring_cpu,
        &rw_libaio_iops,
        &rw_libaio_cpu,
        &rw_pinned_iops,
        &qd1_p50,
        &qd1_p99,
        &qd1_total,
        &qd1_pinned_p50,
        &ceiling,
        &ceiling_libaio,
    ] {
        ratios.print();
    }
    println!("{pinning}");
    println!(
        "nodecheck peak RSS: {:.1} MiB (target < 64 MiB)",
        peak_rss_kib as f64 / 1024.0
    );
    for (count, ios) in allocations {
        println!("nodecheck randrw: {count} heap allocations during a run of {ios:.0} I/O");
    }
    Ok(())
}
