//! Output with nowhere to go (docs/exit-codes.md, "Standard output"): a closed stdout and a
//! pipe whose reader went away end output quietly with the command's own exit code; a stdout
//! that cannot be written (`/dev/full`) exits 4. Each case runs every kind of command.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};

use crate::cli_support::process::nodecheck_process;
use crate::cli_support::{entries, machine_lock, scratch, smartctl_fixture};

/// One command of each kind, with the exit code it gives when its output goes to /dev/null.
fn commands(dir: &std::path::Path) -> Vec<(Vec<String>, i32)> {
    let triage = smartctl_fixture("WDC_WD20EFRX-68EUZN0_17.json");
    let archive = dir.join("node.tar.gz");
    let mut list = vec![
        (vec!["db".into(), "list".into()], 0),
        (vec!["db".into(), "list".into(), "--json".into()], 0),
        (vec!["probe".into(), dir.display().to_string()], 0),
        (vec!["triage".into(), triage.display().to_string()], 0),
        (
            vec![
                "-q".into(),
                "snapshot".into(),
                "-o".into(),
                archive.display().to_string(),
            ],
            0,
        ),
        (vec!["--version".into()], 0),
    ];
    list.push((
        vec![
            "check".into(),
            "--bench".into(),
            "none".into(),
            dir.display().to_string(),
        ],
        0,
    ));
    // The exit codes of the verdicts: what the same command gives into /dev/null.
    for (args, code) in &mut list {
        let mut command = nodecheck_process();
        let out = command.args(&*args).stdout(Stdio::null()).output().unwrap();
        *code = out.status.code().expect("exits");
    }
    list
}

fn run_with_stdout(args: &[String], stdout: impl FnOnce(&mut Command)) -> Output {
    let mut command = nodecheck_process();
    command.args(args).stderr(Stdio::piped());
    stdout(&mut command);
    command.output().expect("runs")
}

fn assert_quiet_end(args: &[String], out: &Output, code: i32, how: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?} {how}: {stderr}");
    assert!(!stderr.contains("error"), "{args:?} {how}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} {how}: {stderr}");
}

#[test]
fn a_closed_stdout_is_like_dev_null_for_every_command() {
    let dir = scratch("stdout-e2e-");
    for (args, code) in commands(dir.path()) {
        let out = run_with_stdout(&args, |command| {
            // SAFETY: close() is async-signal-safe.
            unsafe {
                command.pre_exec(|| {
                    libc::close(1);
                    Ok(())
                });
            }
        });
        assert_quiet_end(&args, &out, code, "with stdout closed");
    }
    // Nothing printed landed in a file nodecheck opened: the archive replays.
    let replay = nodecheck_process()
        .args(["check", "--json", "--snapshot"])
        .arg(dir.path().join("node.tar.gz"))
        .output()
        .unwrap();
    assert!(matches!(replay.status.code(), Some(0..=2)), "{replay:?}");
}

/// A pipe whose read end is already closed: every write fails with EPIPE.
fn reader_gone() -> OwnedFd {
    let (read, write) = nix::unistd::pipe().expect("pipe");
    drop(read);
    write
}

#[test]
fn a_reader_that_went_away_ends_output_quietly_for_every_command() {
    let dir = scratch("stdout-e2e-");
    for (args, code) in commands(dir.path()) {
        let out = run_with_stdout(&args, |command| {
            command.stdout(Stdio::from(reader_gone()));
        });
        assert_quiet_end(&args, &out, code, "into a pipe without a reader");
    }
}

#[test]
fn a_bench_into_a_pipe_without_a_reader_ends_normally_and_cleans_up() {
    let _machine = machine_lock();
    let dir = scratch("stdout-e2e-");
    let args: Vec<String> = [
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
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = run_with_stdout(&args, |command| {
        command.stdout(Stdio::from(reader_gone()));
    });
    assert_quiet_end(&args, &out, 0, "into a pipe without a reader");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn a_stdout_that_cannot_be_written_exits_4() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        println!("SKIPPED: no /dev/full on this machine");
        return;
    };
    assert!(full.as_raw_fd() > 2);
    let out = run_with_stdout(&["db".into(), "list".into()], |command| {
        command.stdout(Stdio::from(full));
    });
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write to standard output"));
}
