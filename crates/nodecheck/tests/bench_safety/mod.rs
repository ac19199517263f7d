//! `nodecheck bench` end to end: the binary on this machine's disk, interrupted by signals,
//! refusing what it must refuse, falling back when io_uring is off, and never leaving or
//! touching files it does not own.

mod files;
mod refusals;
mod reports;
mod signals;
mod symlink_swap;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli_support::process::{
    check_bench_full, debug_hooks_available, nodecheck_process, wait_exit, wait_for,
};
use crate::cli_support::{
    assert_succeeded, entries, entries_where, json_of, machine_lock, scratch,
};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use test_support::skip;

/// This file's scratch directory (see [`crate::cli_support::scratch`]).
fn bench_scratch() -> tempfile::TempDir {
    scratch("bench-e2e-")
}

/// Small, quick and safe on a shared machine: a 1 GiB reserve instead of 50 GiB, and --force
/// because a node process on the test machine must not fail unrelated tests.
fn bench_args(dir: &Path, size: &str, runtime: &str) -> Vec<String> {
    [
        "bench",
        dir.to_str().unwrap(),
        "--size",
        size,
        "--runtime",
        runtime,
        "--reserve",
        "1G",
        "--force",
        "--json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// `bench PATH` with a 1 GiB reserve and a 16 MiB file, without --force: for the refusals
/// that come before any measuring.
fn small_bench(path: &Path) -> Command {
    let mut command = nodecheck_process();
    command
        .arg("bench")
        .arg(path)
        .args(["--reserve", "1G", "--size", "16M"]);
    command
}

fn test_files(dir: &Path) -> Vec<PathBuf> {
    entries_where(dir, |p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(".nodecheck-bench-"))
    })
}

/// Bytes the process wrote to storage (O_DIRECT writes count here), from /proc/PID/io.
fn written_bytes(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("write_bytes: "))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The block device holding `path`, from its st_dev through /sys/dev/block.
fn device_of(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let uevent = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/uevent")).ok()?;
    let name = uevent.lines().find_map(|l| l.strip_prefix("DEVNAME="))?;
    Some(PathBuf::from("/dev").join(name))
}

/// Runs `command`, asserts it ends with exit code `code`, and returns its stderr.
fn refusal(command: &mut Command, code: i32) -> String {
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(code), "{output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The JSON report of a run that must have succeeded.
fn bench_report(output: &std::process::Output) -> serde_json::Value {
    assert_succeeded(output);
    json_of(output)
}

/// The bench paused right after its prefill (the debug-build hook of `bench::pause_point`): the
/// child, the marker file it created, and the test file it made.
struct Paused {
    child: Child,
    marker: PathBuf,
    test_file: PathBuf,
    /// Output goes to files: a JSON report with plot samples outgrows a pipe nobody reads.
    stdout: PathBuf,
    stderr: PathBuf,
}

/// Starts `command` with the after-prefill pause and waits until it is paused.
fn paused_after_prefill(mut command: Command, dir: &Path, markers: &Path) -> Paused {
    let marker = markers.join("paused");
    let (stdout, stderr) = (markers.join("stdout"), markers.join("stderr"));
    let child = command
        .env(
            "NODECHECK_TEST_PAUSE",
            format!("after-prefill={}", marker.display()),
        )
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let mut paused = Paused {
        child,
        marker,
        test_file: PathBuf::new(),
        stdout,
        stderr,
    };
    wait_for(
        "the pause after the prefill",
        Duration::from_secs(120),
        || paused.marker.exists() || paused.child.try_wait().unwrap().is_some(),
    );
    assert!(
        paused.marker.exists(),
        "nodecheck ended before pausing: {}",
        std::fs::read_to_string(&paused.stderr).unwrap_or_default()
    );
    let files = test_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    paused.test_file = files[0].clone();
    paused
}

impl Paused {
    fn resume(self) -> std::process::Output {
        std::fs::remove_file(&self.marker).unwrap();
        let mut child = self.child;
        let status = wait_exit(&mut child, Duration::from_secs(180));
        std::process::Output {
            status,
            stdout: std::fs::read(&self.stdout).unwrap(),
            stderr: std::fs::read(&self.stderr).unwrap(),
        }
    }
}
