//! A write past `ulimit -f` (RLIMIT_FSIZE) raises SIGXFSZ, whose default action kills the
//! process on the spot. nodecheck handles it like SIGTERM: whatever it created is removed (a
//! half-written `snapshot -o` archive, the tree `check --snapshot` unpacks, the bench's test
//! file and lock) and it exits with 128 + 25 = 153. Each test runs the binary with a real
//! `setrlimit` in the child.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Output};

use crate::cli_support::process::nodecheck_process;
use crate::cli_support::{entries, machine_lock, scratch};

/// SIGXFSZ on Linux (x86-64 and arm64).
const SIGXFSZ: i32 = 25;

/// `command` run with RLIMIT_FSIZE of `limit` bytes and SIGXFSZ at its default action.
fn under_file_size_limit(mut command: Command, limit: u64) -> Output {
    // SAFETY: only async-signal-safe calls (signal, setrlimit) between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.output().expect("runs")
}

/// Ended by SIGXFSZ the documented way: exit status 153, not killed by the signal (which would
/// dump core and skip the cleanup).
fn assert_ended_by_sigxfsz(output: &Output) {
    assert_eq!(
        output.status.signal(),
        None,
        "not killed by the signal: {output:?}"
    );
    assert_eq!(output.status.code(), Some(128 + SIGXFSZ), "{output:?}");
}

#[test]
fn a_snapshot_past_the_file_size_limit_leaves_no_partial_archive() {
    let _machine = machine_lock();
    let dir = scratch("fsize-e2e-");
    let out = dir.path().join("node.tar.gz");
    let mut command = nodecheck_process();
    command
        .args(["-q", "snapshot", "-o"])
        .arg(&out)
        .arg(env!("CARGO_TARGET_TMPDIR"));
    let output = under_file_size_limit(command, 256);
    assert_ended_by_sigxfsz(&output);
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}

/// A real archive of this machine, to replay.
fn good_archive(dir: &Path) -> std::path::PathBuf {
    let archive = dir.join("node.tar.gz");
    let output = nodecheck_process()
        .args(["-q", "snapshot", "-o"])
        .arg(&archive)
        .arg(env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    archive
}

#[test]
fn a_replay_past_the_file_size_limit_removes_the_unpacked_tree() {
    let _machine = machine_lock();
    let dir = scratch("fsize-e2e-");
    let archive = good_archive(dir.path());
    let tmp = scratch("fsize-e2e-");
    let mut command = nodecheck_process();
    command
        .env("TMPDIR", tmp.path())
        .args(["check", "--json", "--snapshot"])
        .arg(&archive);
    // Every snapshot holds its manifest, a few hundred bytes: 64 bytes is past it.
    let output = under_file_size_limit(command, 64);
    assert_ended_by_sigxfsz(&output);
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn a_bench_past_the_file_size_limit_removes_its_test_file_and_lock() {
    let _machine = machine_lock();
    let dir = scratch("fsize-e2e-");
    let mut command = nodecheck_process();
    command.args([
        "bench",
        dir.path().to_str().unwrap(),
        "--size",
        "16M",
        "--runtime",
        "1",
        "--reserve",
        "1M",
        "--test",
        "qd1",
        "--force",
        "--json",
    ]);
    // Room for the lock file's pid, not for the test file.
    let output = under_file_size_limit(command, 1 << 20);
    assert_ended_by_sigxfsz(&output);
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}
