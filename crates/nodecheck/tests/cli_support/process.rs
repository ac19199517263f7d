//! The binary as a child process, for tests that pause it, signal it and watch it end
//! (assert_cmd's `Command` only runs a command to completion).

use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;

/// The binary with the environment of [`super::test_env`], and io_uring left to the machine
/// (a developer's shell may force the fallback engine).
pub fn nodecheck_process() -> Command {
    let mut command = Command::cargo_bin("nodecheck").expect("the nodecheck binary");
    super::test_env(&mut command).env_remove("NODECHECK_FORCE_NO_IO_URING");
    command
}

/// `check --bench full PATH` shrunk to finish in seconds: a `size` test file, one second a
/// test and a 1 GiB reserve.
pub fn check_bench_full(path: impl AsRef<std::ffi::OsStr>, size: &str) -> Command {
    let mut command = nodecheck_process();
    command
        .args(["check", "--bench", "full", "--bench-size", size])
        .args(["--bench-runtime", "1", "--bench-reserve", "1G"])
        .arg(path);
    command
}

/// Polls `condition` until it holds; fails the test after `timeout`.
pub fn wait_for(what: &str, timeout: Duration, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(started.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits for a signalled child to end; kills it and fails the test after `timeout`.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            panic!("nodecheck did not stop within {timeout:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether the pause hook (`bench::pause_point`) is compiled in: only debug builds have it, so a
/// `--release` test run says it skips the tests that need it.
pub fn debug_hooks_available() -> bool {
    if !cfg!(debug_assertions) {
        println!(
            "skipping: the pause hook exists only in debug builds (cargo test without --release)"
        );
    }
    cfg!(debug_assertions)
}
