//! A closed or full stderr never panics (exit 101): every message goes through one helper that
//! drops write errors, and the exit code stays the one the run earned.

use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};

use crate::cli_support::smartctl_fixture;

/// The write end of a pipe whose read end is already closed: every write gets EPIPE.
fn closed_pipe() -> OwnedFd {
    let (read, write) = nix::unistd::pipe().expect("pipe");
    drop(read);
    write
}

fn dev_full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

fn binary() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nodecheck"));
    cmd.env("NO_COLOR", "1")
        .env_remove("NODECHECK_DB")
        .env("HOME", "/nonexistent-home")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    cmd
}

/// Runs `args` with a normal stderr, then with a closed pipe and with /dev/full as stderr;
/// the three exit codes must agree and none may be a panic.
fn same_code_whatever_stderr(args: &[&std::ffi::OsStr]) {
    let normal = binary()
        .args(args)
        .stderr(Stdio::piped())
        .output()
        .expect("runs");
    let expected = normal.status.code().expect("exit code");
    assert!(
        !normal.stderr.is_empty(),
        "{args:?} must write to stderr for this test to mean anything"
    );
    let closed = binary()
        .args(args)
        .stderr(Stdio::from(closed_pipe()))
        .status()
        .expect("runs");
    let full = binary()
        .args(args)
        .stderr(Stdio::from(dev_full()))
        .status()
        .expect("runs");
    for (what, status) in [("closed pipe", closed), ("/dev/full", full)] {
        assert_ne!(status.code(), Some(101), "{args:?} panicked on a {what}");
        assert_eq!(status.code(), Some(expected), "{args:?} with a {what}");
    }
}

#[test]
fn errors_on_a_closed_or_full_stderr_keep_exit_code_4() {
    let missing = std::ffi::OsString::from("/nonexistent/drives.toml");
    same_code_whatever_stderr(&[
        "--db".as_ref(),
        missing.as_os_str(),
        "db".as_ref(),
        "list".as_ref(),
    ]);
    let file = smartctl_fixture("failed-usb-bridge-sda.json");
    same_code_whatever_stderr(&["triage".as_ref(), file.as_os_str()]);
}

#[test]
fn usage_errors_on_a_closed_or_full_stderr_keep_exit_code_3() {
    same_code_whatever_stderr(&["check".as_ref(), "--bench".as_ref(), "sideways".as_ref()]);
}

#[test]
fn notes_on_a_closed_or_full_stderr_keep_the_verdicts_exit_code() {
    // The snapshot writer says on stderr what it wrote (`snapshot -o x.tar.gz / 2>/dev/full`).
    let work = tempfile::tempdir().expect("tempdir");
    let archive = work.path().join("x.tar.gz");
    same_code_whatever_stderr(&[
        "snapshot".as_ref(),
        "-o".as_ref(),
        archive.as_os_str(),
        work.path().as_os_str(),
    ]);
}
