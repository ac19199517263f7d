//! Files the bench does not own (other files, stale test files of other runs) are never touched.

use super::*;

#[test]
fn other_files_and_stale_test_files_are_never_touched_without_clean_stale() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    // A file of a killed run (pid 4194304 is above the default pid_max) and an unrelated file.
    let stale = dir
        .path()
        .join(".nodecheck-bench-4194304-0123456789abcdef.tmp");
    let mine = dir.path().join("chaindata.ldb");
    std::fs::write(&stale, b"stale contents").unwrap();
    std::fs::write(&mine, b"precious").unwrap();
    let output = nodecheck_process()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1"])
        .output()
        .unwrap();
    let report = bench_report(&output);
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains(stale.to_str().unwrap()), "{warnings}");
    assert!(warnings.contains("--clean-stale"), "{warnings}");
    assert_eq!(std::fs::read(&stale).unwrap(), b"stale contents");
    assert_eq!(std::fs::read(&mine).unwrap(), b"precious");
    assert_eq!(entries(dir.path()), vec![stale.clone(), mine.clone()]);

    let output = nodecheck_process()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1", "--clean-stale"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(entries(dir.path()), vec![mine.clone()]);
    assert_eq!(std::fs::read(&mine).unwrap(), b"precious");
}

#[test]
fn stale_files_are_told_by_their_lock_not_by_the_pid_in_their_name() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    // pid 1 is always alive, as a reused pid after a reboot would be.
    let reused = dir.path().join(".nodecheck-bench-1-0123456789abcdef.tmp");
    std::fs::write(&reused, b"stale contents").unwrap();
    // Named after a dead pid, but locked: a live bench (here, this test) holds it.
    let held = dir
        .path()
        .join(".nodecheck-bench-4194304-0123456789abcdef.tmp");
    std::fs::write(&held, b"live contents").unwrap();
    let holder = std::fs::File::open(&held).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: flock on an open descriptor has no memory-safety preconditions.
    assert_eq!(
        unsafe { libc::flock(holder.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );

    let output = nodecheck_process()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1"])
        .output()
        .unwrap();
    let report = bench_report(&output);
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains(reused.to_str().unwrap()), "{warnings}");
    assert!(!warnings.contains(held.to_str().unwrap()), "{warnings}");

    let output = nodecheck_process()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1", "--clean-stale"])
        .output()
        .unwrap();
    let report = bench_report(&output);
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("removed the stale test file"),
        "{warnings}"
    );
    assert!(!reused.exists());
    assert_eq!(std::fs::read(&held).unwrap(), b"live contents");
    assert_eq!(entries(dir.path()), vec![held.clone()]);
    drop(holder);
}

#[test]
fn check_of_a_file_in_the_current_directory_measures_that_directory() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    std::fs::write(dir.path().join("chaindata.ldb"), b"precious").unwrap();
    let output = check_bench_full("chaindata.ldb", "32M")
        .current_dir(dir.path())
        .arg("--json")
        .output()
        .unwrap();
    let report: serde_json::Value = json_of(&output);
    let notes = report["notes"].to_string();
    assert!(!notes.contains("reading :"), "{notes}");
    if notes.contains("running") {
        println!("skipping the measurement part: an Ethereum client runs here ({notes})");
        return;
    }
    assert!(report["bench"]["qd1"].is_object(), "{notes}");
    assert_eq!(
        entries(dir.path()),
        vec![dir.path().join("chaindata.ldb")],
        "only the user's file is left"
    );
}
