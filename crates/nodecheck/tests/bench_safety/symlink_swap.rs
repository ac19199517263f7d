//! A symlink planted in place of the test file after the prefill is never written through.

use super::*;

/// A victim's contents: distinctive, so any page written through a link shows.
fn plant_victim(path: &Path) -> Vec<u8> {
    let contents: Vec<u8> = (0..16u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(path, &contents).unwrap();
    contents
}

/// Renames the test file away and plants a symlink to the victim under its name while the
/// bench is paused, then checks that no test wrote through the name: the victim is untouched,
/// the planted link is left as it was, the bench's own file was emptied, no lock file or test
/// file remains, and the run says what happened.
fn symlink_swap_is_harmless(command: Command, dir: &Path) -> std::process::Output {
    let markers = bench_scratch();
    let victims = bench_scratch();
    let victim = victims.path().join("chaindata.ldb");
    let contents = plant_victim(&victim);
    let paused = paused_after_prefill(command, dir, markers.path());
    let moved = dir.join("moved-away");
    std::fs::rename(&paused.test_file, &moved).unwrap();
    std::os::unix::fs::symlink(&victim, &paused.test_file).unwrap();
    let link = paused.test_file.clone();
    let output = paused.resume();
    assert!(
        std::fs::read(&victim).unwrap() == contents,
        "the victim was written through the planted symlink: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_link(&link).unwrap(), victim);
    assert_eq!(
        std::fs::metadata(&moved).unwrap().len(),
        0,
        "the bench's own file keeps no space"
    );
    let mut left = entries(dir);
    left.sort();
    let mut expected = vec![link, moved];
    expected.sort();
    assert_eq!(left, expected, "nothing else is left behind");
    output
}

fn assert_swap_reported(warnings: &serde_json::Value) {
    let text = warnings.to_string();
    assert!(text.contains("no longer named the test file"), "{text}");
}

#[test]
fn behaviour_tests_never_write_through_a_symlink_planted_after_the_prefill() {
    let _machine = machine_lock();
    if !debug_hooks_available() {
        return;
    }
    for test in [
        &["--test", "sync", "--burst", "16M"][..],
        &["--test", "span"][..],
        &["--test", "cliff", "--cliff-budget", "32M"][..],
        &["--test", "all"][..],
    ] {
        let dir = bench_scratch();
        let mut command = nodecheck_process();
        command.args(bench_args(dir.path(), "64M", "1")).args(test);
        let output = symlink_swap_is_harmless(command, dir.path());
        let report = bench_report(&output);
        assert_swap_reported(&report["warnings"]);
    }
}

#[test]
fn check_bench_full_never_writes_through_a_symlink_planted_after_the_prefill() {
    let _machine = machine_lock();
    if !debug_hooks_available() {
        return;
    }
    let dir = bench_scratch();
    let mut command = check_bench_full(dir.path(), "64M");
    command.arg("--json");
    let output = symlink_swap_is_harmless(command, dir.path());
    let report: serde_json::Value = json_of(&output);
    assert!(report["bench"]["sync"].is_object(), "{report}");
    assert_swap_reported(&report["bench"]["warnings"]);
}
