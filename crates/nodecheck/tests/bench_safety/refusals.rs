//! What the bench refuses before it writes: no room for the reserve, a device, a running
//! client, tmpfs, a burst too small to measure.

use super::*;

#[test]
fn a_file_system_without_room_for_the_reserve_refuses_with_numbers() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    let stderr = refusal(
        nodecheck_process().args([
            "bench",
            dir.path().to_str().unwrap(),
            "--reserve",
            "1000000T",
            "--force",
            "--json",
        ]),
        4,
    );
    assert!(stderr.contains("not enough free space"), "{stderr}");
    assert!(stderr.contains("available"), "{stderr}");
    assert!(stderr.contains("PiB"), "{stderr}");
    assert!(stderr.contains("--reserve"), "{stderr}");
    // An explicit reserve is not the default formula, and the text does not claim it is.
    assert!(stderr.contains("set for this run"), "{stderr}");
    assert!(!stderr.contains("max(10 %"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn device_with_a_write_test_is_refused() {
    let _machine = machine_lock();
    for test in ["randrw", "all"] {
        let stderr = refusal(
            nodecheck_process().args(["bench", "--device", "/dev/null", "--test", test, "--force"]),
            3,
        );
        assert!(stderr.contains("read-only"), "{stderr}");
    }
    // A block device given as the directory is refused too: the bench never writes to one.
    let Some(device) = ["/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/loop0"]
        .into_iter()
        .find(|d| Path::new(d).exists())
    else {
        skip("the block-device-as-path part: no block device node found");
        return;
    };
    let output = small_bench(Path::new(device))
        .arg("--force")
        .output()
        .unwrap();
    assert!(!output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("never writes to a device"), "{stderr}");
}

#[test]
fn a_running_client_requires_force() {
    let _machine = machine_lock();
    // A real process whose name is `geth`: a copy of sleep(1).
    let dir = bench_scratch();
    let fake = dir.path().join("geth");
    let Some(sleep) = ["/usr/bin/sleep", "/bin/sleep"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        skip("no sleep binary to run as a fake geth");
        return;
    };
    std::fs::copy(sleep, &fake).unwrap();
    let mut geth = Command::new(&fake).arg("30").spawn().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let output = small_bench(&work).output().unwrap();
    let _ = geth.kill();
    let _ = geth.wait();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("geth (pid"), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert!(stderr.contains("slows the node"), "{stderr}");
    assert!(entries(&work).is_empty());
}

#[test]
fn a_second_bench_in_the_same_directory_is_refused_and_names_the_first() {
    let _machine = machine_lock();
    if !debug_hooks_available() {
        return;
    }
    let dir = bench_scratch();
    let markers = bench_scratch();
    let mut first = nodecheck_process();
    first
        .args(bench_args(dir.path(), "64M", "1"))
        .args(["--test", "qd1"]);
    let paused = paused_after_prefill(first, dir.path(), markers.path());
    let first_pid = paused.child.id();

    let stderr = refusal(
        nodecheck_process()
            .args(bench_args(dir.path(), "64M", "1"))
            .args(["--test", "qd1"]),
        4,
    );
    assert!(
        stderr.contains(&format!(
            "another nodecheck bench (pid {first_pid}) is running"
        )),
        "{stderr}"
    );
    assert!(stderr.contains(".nodecheck-bench.lock"), "{stderr}");
    // The second one touched nothing: the first's file is still its one test file.
    assert_eq!(test_files(dir.path()), vec![paused.test_file.clone()]);

    let output = paused.resume();
    bench_report(&output);
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// A tmpfs mount to test against: /dev/shm on most Linux systems.
fn memory_backed_dir() -> Option<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    let stat = nix::sys::statfs::statfs(shm).ok()?;
    if stat.filesystem_type() != nix::sys::statfs::TMPFS_MAGIC {
        return None;
    }
    tempfile::Builder::new()
        .prefix("nodecheck-e2e-")
        .tempdir_in(shm)
        .ok()
}

#[test]
fn a_memory_backed_file_system_is_refused_for_measurement() {
    let _machine = machine_lock();
    let Some(dir) = memory_backed_dir() else {
        println!("skipping: no writable tmpfs at /dev/shm");
        return;
    };
    let stderr = refusal(
        nodecheck_process()
            .args(bench_args(dir.path(), "32M", "1"))
            .args(["--test", "qd1"]),
        4,
    );
    assert!(
        stderr.contains("is on tmpfs, a memory-backed file system"),
        "{stderr}"
    );
    assert!(entries(dir.path()).is_empty());

    // check still judges what it can, and its report says why nothing was measured.
    let output = check_bench_full(dir.path(), "32M")
        .arg("--json")
        .output()
        .unwrap();
    let report: serde_json::Value = json_of(&output);
    assert!(report["bench"].is_null(), "{report}");
    let notes = report["notes"].to_string();
    assert!(notes.contains("memory-backed"), "{notes}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn check_of_a_device_node_is_refused_with_what_to_run_instead() {
    let _machine = machine_lock();
    let Some(device) = device_of(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .filter(|d| d.exists())
        .or_else(|| Some(PathBuf::from("/dev/loop0")).filter(|d| d.exists()))
    else {
        println!("skipping: no block device node found");
        return;
    };
    let output = nodecheck_process()
        .args(["check", "--bench", "quick"])
        .arg(&device)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is a block device"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "nodecheck bench --device {} --test qd1",
            device.display()
        )),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "no report of devtmpfs");
}

#[test]
fn a_burst_too_small_to_measure_is_refused() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    let stderr = refusal(
        nodecheck_process()
            .args(bench_args(dir.path(), "32M", "1"))
            .args(["--test", "sync", "--burst", "1"]),
        3,
    );
    assert!(stderr.contains("too small a burst"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}
