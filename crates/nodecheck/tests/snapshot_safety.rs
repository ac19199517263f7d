//! Interrupted snapshots never damage or leak files: `snapshot -o` writes beside the target and
//! renames (a signal or a full disk mid-write leaves an existing archive as it was and no
//! partial file; a symlink or device at the target is refused, not replaced), and a signal
//! during `check --snapshot` removes the unpacked tree. The moments
//! are made exact with the debug-build pause hook (`bench::pause_point`).

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use crate::cli_support::process::{debug_hooks_available, nodecheck_process, wait_exit, wait_for};
use crate::cli_support::{entries, entries_where, scratch};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// `nodecheck -q snapshot -o <out>` of a small directory, not yet started.
fn snapshot_to(out: &Path) -> Command {
    let mut command = nodecheck_process();
    command
        .args(["-q", "snapshot", "-o"])
        .arg(out)
        .arg(env!("CARGO_TARGET_TMPDIR"));
    command
}

/// A good archive of this machine at `out`; its bytes.
fn good_archive(out: &Path) -> Vec<u8> {
    let output = snapshot_to(out).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    std::fs::read(out).unwrap()
}

/// Starts `command` paused at `stage`, sends `signal` once it is there, and returns how it
/// ended; `at_pause` sees the world while it is paused.
fn signal_at(
    mut command: Command,
    stage: &str,
    signal: Signal,
    at_pause: impl FnOnce(),
) -> ExitStatus {
    let markers = scratch("snapshot-e2e-");
    let marker = markers.path().join("paused");
    let mut child = command
        .env(
            "NODECHECK_TEST_PAUSE",
            format!("{stage}={}", marker.display()),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the pause", Duration::from_secs(60), || {
        marker.exists() || child.try_wait().unwrap().is_some()
    });
    assert!(marker.exists(), "nodecheck ended before pausing at {stage}");
    at_pause();
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    wait_exit(&mut child, Duration::from_secs(30))
}

fn partial_files(dir: &Path) -> Vec<PathBuf> {
    entries_where(dir, |p| p.to_string_lossy().ends_with(".partial"))
}

/// `dir` holds `out` with its `before` bytes and nothing else.
fn assert_only_the_old_archive(dir: &Path, out: &Path, before: &[u8]) {
    assert_eq!(
        std::fs::read(out).unwrap(),
        before,
        "the old archive is intact"
    );
    assert_eq!(
        entries(dir),
        vec![out.to_path_buf()],
        "no partial file is left"
    );
}

fn interrupted_write_keeps_the_existing_archive(signal: Signal) {
    if !debug_hooks_available() {
        return;
    }
    let dir = scratch("snapshot-e2e-");
    let out = dir.path().join("node.tar.gz");
    let before = good_archive(&out);
    let status = signal_at(snapshot_to(&out), "snapshot-writing", signal, || {
        assert_eq!(
            partial_files(dir.path()).len(),
            1,
            "the archive is being written beside the target: {:?}",
            entries(dir.path())
        );
    });
    assert_eq!(status.signal(), Some(signal as i32), "{status:?}");
    assert_only_the_old_archive(dir.path(), &out, &before);
}

#[test]
fn sigint_or_sigterm_while_writing_keeps_the_existing_archive() {
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        interrupted_write_keeps_the_existing_archive(signal);
    }
}

#[test]
fn a_full_disk_keeps_the_existing_archive_and_leaves_no_partial() {
    let dir = scratch("snapshot-e2e-");
    let out = dir.path().join("node.tar.gz");
    let before = good_archive(&out);
    let mut command = snapshot_to(&out);
    // A file size limit fails the write with EFBIG after 256 bytes, as a full disk fails it
    // with ENOSPC: deterministic, and without filling a real file system.
    // SAFETY: only async-signal-safe calls (signal, setrlimit) between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 256,
                rlim_max: 256,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert!(stderr.contains("node.tar.gz"), "{stderr}");
    assert_only_the_old_archive(dir.path(), &out, &before);
}

#[test]
fn an_output_that_is_not_a_regular_file_is_refused_untouched() {
    let dir = scratch("snapshot-e2e-");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let link = dir.path().join("node.tar.gz");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let fifo = dir.path().join("fifo.tar.gz");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    for (out, kind) in [(&link, "a symlink"), (&fifo, "a device, FIFO or socket")] {
        let output = snapshot_to(out).output().unwrap();
        assert_eq!(output.status.code(), Some(4), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&format!("is {kind}")), "{stderr}");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(std::fs::read_link(&link).unwrap(), victim);
    assert!(partial_files(dir.path()).is_empty());
}

#[test]
fn a_finished_archive_replaces_the_old_one_and_replays() {
    let dir = scratch("snapshot-e2e-");
    let out = dir.path().join("node.tar.gz");
    std::fs::write(&out, b"an older, smaller file").unwrap();
    good_archive(&out);
    assert_eq!(entries(dir.path()), vec![out.clone()]);
    let replay = nodecheck_process()
        .args(["check", "--json", "--snapshot"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        matches!(replay.status.code(), Some(0..=2)),
        "the new archive replays: {replay:?}"
    );
}

fn unpacked_trees(tmp: &Path) -> Vec<PathBuf> {
    entries_where(tmp, |p| p.to_string_lossy().contains("nodecheck-snapshot-"))
}

fn interrupted_replay_removes_the_unpacked_tree(signal: Signal) {
    if !debug_hooks_available() {
        return;
    }
    let dir = scratch("snapshot-e2e-");
    let archive = dir.path().join("node.tar.gz");
    good_archive(&archive);
    let tmp = scratch("snapshot-e2e-");
    let mut command = nodecheck_process();
    command
        .env("TMPDIR", tmp.path())
        .args(["check", "--json", "--snapshot"])
        .arg(&archive);
    let status = signal_at(command, "snapshot-unpacked", signal, || {
        assert_eq!(unpacked_trees(tmp.path()).len(), 1, "unpacked under TMPDIR");
    });
    assert_eq!(status.signal(), Some(signal as i32), "{status:?}");
    assert!(
        entries(tmp.path()).is_empty(),
        "left behind: {:?}",
        entries(tmp.path())
    );
}

#[test]
fn sigint_or_sigterm_during_a_replay_removes_the_unpacked_tree() {
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        interrupted_replay_removes_the_unpacked_tree(signal);
    }
}
