//! The two sides as child processes measured the same way (CPU time and peak RSS from
//! `wait4`): fio with each engine, and nodecheck's release-built runner.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// One child's figures.
/// The least share of fio's total latency p50 its completion latency p50 may be for the round
/// to compare: submitting one 4 KiB read costs a few µs of a QD1 read's tens, so a healthy
/// round has clat at 80 % of lat or more; half is far from both that and the broken case.
const CLAT_SHARE_OF_LAT_MIN: f64 = 0.5;

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sample {
    pub(super) read_iops: f64,
    pub(super) write_iops: f64,
    pub(super) ios: f64,
    pub(super) cpu_s: f64,
    pub(super) wall_s: f64,
    pub(super) p50_us: f64,
    pub(super) p99_us: f64,
    /// fio only: total latency (submission + completion) p50.
    pub(super) total_p50_us: f64,
    /// nodecheck qd1 only: reads that completed inside their own submit call, which nodecheck
    /// times from before the call (fio's `lat`) where fio's `clat` loses the device time.
    pub(super) timed_through_submit: u64,
    pub(super) max_rss_kib: i64,
    pub(super) allocations: Option<u64>,
}

impl Sample {
    pub(super) fn cpu_per_io_us(&self) -> f64 {
        if self.ios > 0.0 {
            self.cpu_s / self.ios * 1e6
        } else {
            f64::NAN
        }
    }
    /// Whether fio's completion latency of this QD1 run measures the device. fio's `clat`
    /// starts when its submitting `io_uring_enter` returns; when the device completes inside
    /// that call (seen on the project's VM: a round with clat p50 0.4 µs beside lat p50
    /// 50.4 µs), the device time lands in `slat` and `clat` is a few hundred nanoseconds of
    /// bookkeeping. Such a round says nothing about nodecheck against fio, so the harness
    /// leaves it out of the clat comparison instead of letting it move the median.
    pub(super) fn fio_clat_measures_the_device(&self) -> bool {
        self.total_p50_us <= 0.0 || self.p50_us >= CLAT_SHARE_OF_LAT_MIN * self.total_p50_us
    }
    pub(super) fn iops_per_core(&self) -> f64 {
        let cores = self.cpu_s / self.wall_s.max(1e-9);
        (self.read_iops + self.write_iops) / cores.max(1e-9)
    }
}

pub(super) struct Child {
    stdout: String,
    cpu_s: f64,
    max_rss_kib: i64,
}

/// Runs a command, returning its stdout and its own rusage (from wait4, so other children do
/// not mix in).
pub(super) fn run_child(command: &mut Command) -> Result<Child> {
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

/// Who runs a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Engine {
    Nodecheck,
    FioUring,
    FioLibaio,
    /// fio's io_uring engine with `--cpus_allowed` set to the CPUs nodecheck pins its workers to.
    FioUringPinned,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Workload {
    RandRw,
    Qd1,
    Ceiling,
}

impl Workload {
    pub(super) fn name(self) -> &'static str {
        match self {
            Workload::RandRw => "randrw",
            Workload::Qd1 => "qd1",
            Workload::Ceiling => "ceiling",
        }
    }
}

/// `cpus`: run fio's job on these CPUs (`--cpus_allowed`), as nodecheck pins its workers.
pub(super) fn fio(
    workload: Workload,
    ioengine: &str,
    file: &Path,
    size: u64,
    runtime: u64,
    cpus: Option<&str>,
) -> Result<Sample> {
    let mut command = Command::new("fio");
    if let Some(cpus) = cpus {
        command.arg(format!("--cpus_allowed={cpus}"));
    }
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
        Workload::Qd1 => command.args([
            "--rw=randread",
            "--iodepth=1",
            "--direct=1",
            "--clat_percentiles=1",
            "--lat_percentiles=1",
        ]),
        // fio drops the file's cached pages before a run unless told not to (`invalidate=1`
        // is its default): the ceiling would then measure the disk.
        Workload::Ceiling => command.args([
            "--rw=randread",
            "--iodepth=64",
            "--direct=0",
            "--invalidate=0",
        ]),
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
    let total_percentile = |key: &str| number(&job["read"]["lat_ns"]["percentile"][key]) / 1000.0;
    Ok(Sample {
        read_iops,
        write_iops,
        ios,
        cpu_s: child.cpu_s,
        wall_s,
        p50_us: percentile("50.000000"),
        p99_us: percentile("99.000000"),
        total_p50_us: total_percentile("50.000000"),
        timed_through_submit: 0,
        max_rss_kib: child.max_rss_kib,
        allocations: None,
    })
}

pub(super) fn nodecheck(
    runner: &Path,
    workload: Workload,
    file: &Path,
    runtime: u64,
) -> Result<Sample> {
    let started = Instant::now();
    let child = run_child(
        Command::new(runner)
            .arg(workload.name())
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
        total_p50_us: 0.0,
        timed_through_submit: json["timed_through_submit"].as_u64().unwrap_or(0),
        max_rss_kib: child.max_rss_kib,
        allocations: json["allocations_during_run"].as_u64(),
    })
}

/// The CPUs nodecheck pins its qd1 and randrw workers to for `file`, in fio's list syntax, and
/// why.
pub(super) fn qd1_pinning(runner: &Path, file: &Path) -> Result<(Option<String>, String)> {
    let child = run_child(Command::new(runner).arg("pinning").arg(file))?;
    let json: serde_json::Value =
        serde_json::from_str(&child.stdout).context("parsing the runner's pinning")?;
    let cpus: Vec<String> = json["cpus"]
        .as_array()
        .map(|cpus| {
            cpus.iter()
                .filter_map(|cpu| cpu.as_u64())
                .map(|cpu| cpu.to_string())
                .collect()
        })
        .unwrap_or_default();
    let describe = json["describe"].as_str().unwrap_or_default().to_string();
    Ok(((!cpus.is_empty()).then(|| cpus.join(",")), describe))
}

/// Page-caches the ceiling file before each ceiling run: the ceiling measures the engine, not
/// the device, and the device runs in between may have evicted some of it. Streamed, not read
/// whole: a child forked from a big parent inherits its peak RSS in ru_maxrss, which would spoil
/// the memory figure.
pub(super) fn cache(path: &Path) -> Result<()> {
    std::io::copy(
        &mut std::fs::File::open(path).context("opening the ceiling file")?,
        &mut std::io::sink(),
    )
    .context("caching the ceiling file")?;
    Ok(())
}

/// Flushes dirty data and waits, so that one run's writes are not paid by the next.
pub(super) fn settle(pause: std::time::Duration) {
    // SAFETY: sync(2) has no preconditions.
    unsafe { libc::sync() };
    std::thread::sleep(pause);
}

#[cfg(test)]
mod tests {
    use super::Sample;

    fn qd1(clat_p50: f64, lat_p50: f64) -> Sample {
        Sample {
            p50_us: clat_p50,
            total_p50_us: lat_p50,
            ..Sample::default()
        }
    }

    #[test]
    fn a_round_whose_clat_lost_the_device_time_to_submission_does_not_compare() {
        // The round seen in CI on 2026-12-03: fio clat p50 0.4 µs, lat p50 50.4 µs.
        assert!(!qd1(0.4, 50.4).fio_clat_measures_the_device());
        // Its neighbour: clat 45.7 µs of lat 48.9 µs.
        assert!(qd1(45.7, 48.9).fio_clat_measures_the_device());
        // nodecheck's own samples carry no total latency: nothing to disagree with.
        assert!(qd1(37.5, 0.0).fio_clat_measures_the_device());
    }
}
