//! `cargo xtask bench probe`: wall time and peak memory of a full probe.
//!
//! Builds the release `probe_json` example (the probe library and JSON output, nothing else)
//! and runs it N times on PATH without smartctl; with `--cli` it times the release `nodecheck
//! probe PATH --json --no-smartctl` instead. Wall time is the median of the runs; peak memory is the largest
//! `ru_maxrss` the kernel reports for a run (wait4), so no external `time` binary is needed.
//! Fails when the median exceeds 50 ms or the peak exceeds 20 MiB.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::project_root;

const WALL_TARGET: Duration = Duration::from_millis(50);
const RSS_TARGET_KIB: u64 = 20 * 1024;

const USAGE: &str = "usage: cargo xtask bench probe [--runs N] [--path PATH] [--cli]";

struct Options {
    runs: usize,
    path: String,
    cli: bool,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut options = Options {
        runs: 21,
        path: "/".to_string(),
        cli: false,
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--runs" => {
                let value = iter.next().context(USAGE)?;
                options.runs = value.parse().with_context(|| format!("--runs {value}"))?;
                if options.runs == 0 {
                    bail!("--runs must be at least 1");
                }
            }
            "--path" => options.path = iter.next().context(USAGE)?.clone(),
            "--cli" => options.cli = true,
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    Ok(options)
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse(args)?;
    let root = project_root();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());

    let (program, program_args): (PathBuf, Vec<String>) = if options.cli {
        build(&cargo, &root, &["build", "--release", "-p", "nodecheck"])?;
        (
            target_dir.join("release/nodecheck"),
            vec![
                "probe".into(),
                options.path.clone(),
                "--json".into(),
                "--no-smartctl".into(),
            ],
        )
    } else {
        build(
            &cargo,
            &root,
            &[
                "build",
                "--release",
                "-p",
                "nodecheck-probe",
                "--example",
                "probe_json",
            ],
        )?;
        (
            target_dir.join("release/examples/probe_json"),
            vec![options.path.clone(), "--no-smartctl".into()],
        )
    };

    // One untimed run warms the page cache, so the figures describe the probe, not the disk.
    measure(&program, &program_args)?;
    let mut walls = Vec::with_capacity(options.runs);
    let mut peak_kib = 0u64;
    for _ in 0..options.runs {
        let (wall, rss_kib) = measure(&program, &program_args)?;
        walls.push(wall);
        peak_kib = peak_kib.max(rss_kib);
    }
    walls.sort();
    let median = walls[walls.len() / 2];
    let (fastest, slowest) = (walls[0], walls[walls.len() - 1]);

    println!(
        "probe of {} ({}), {} runs:",
        options.path,
        program.display(),
        options.runs
    );
    println!(
        "  wall   median {:.2} ms  (min {:.2}, max {:.2})   target < {} ms",
        ms(median),
        ms(fastest),
        ms(slowest),
        WALL_TARGET.as_millis()
    );
    println!(
        "  memory peak RSS {:.1} MiB                        target < {} MiB",
        peak_kib as f64 / 1024.0,
        RSS_TARGET_KIB / 1024
    );
    if median > WALL_TARGET || peak_kib > RSS_TARGET_KIB {
        bail!("probe is over its targets");
    }
    Ok(())
}

fn build(cargo: &std::ffi::OsStr, root: &Path, args: &[&str]) -> Result<()> {
    let status = Command::new(cargo)
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {} failed: {status}", args.join(" "));
    }
    Ok(())
}

/// Runs the program once; returns wall time and its peak RSS in KiB.
fn measure(program: &Path, args: &[String]) -> Result<(Duration, u64)> {
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {}", program.display()))?;
    let pid = libc::pid_t::try_from(child.id()).context("pid out of range")?;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data that wait4 fills in; zeroed is a valid value for it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own un-reaped child; both pointers are valid for the call.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if reaped != pid {
        bail!("wait4: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr {
            use std::io::Read;
            let _ = pipe.read_to_string(&mut stderr);
        }
        bail!("{} failed (status {status}): {stderr}", program.display());
    }
    let rss_kib = u64::try_from(usage.ru_maxrss).unwrap_or(0);
    Ok((wall, rss_kib))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
