//! A test that cannot run here (no root, no O_DIRECT, no block device, no io_uring) says so on
//! the process's real stderr, which libtest does not capture: the run shows a `SKIPPED` line
//! with the reason instead of a silent `ok` (`.ci/run` lists the `SKIPPED` lines of its test
//! log).

use std::io::Write;

/// Prints `SKIPPED <test name>: <reason>`; the caller then returns.
pub fn skip(reason: impl std::fmt::Display) {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {name}: {reason}");
}
