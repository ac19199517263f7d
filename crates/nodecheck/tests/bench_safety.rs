//! `nodecheck bench` end to end: the binary on this machine's disk, interrupted by signals,
//! refusing what it must refuse, falling back when io_uring is off, and never leaving or
//! touching files it does not own.

#[path = "cli_support/skip.rs"]
mod skip;

use skip::skip;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// A scratch directory on a disk-backed file system (O_DIRECT needs one; /tmp may be tmpfs).
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("bench-e2e-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("scratch dir")
}

fn nodecheck() -> Command {
    let mut command = Command::cargo_bin("nodecheck").expect("the nodecheck binary");
    command.env_remove("NODECHECK_FORCE_NO_IO_URING");
    command
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

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    list.sort();
    list
}

fn test_files(dir: &Path) -> Vec<PathBuf> {
    entries(dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(".nodecheck-bench-"))
        })
        .collect()
}

fn wait_for(what: &str, timeout: Duration, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(started.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
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

fn wait_exit(child: &mut Child, timeout: Duration) -> std::process::ExitStatus {
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

fn interrupt(signal: Signal, during_prefill: bool) {
    use std::os::unix::process::ExitStatusExt;
    let dir = scratch();
    // During the prefill: 2 GiB takes long enough to be caught mid-way on any disk here.
    // During the run: a small file, prefilled at once, then a 60 s run cut short.
    let (size, size_bytes) = if during_prefill {
        ("2G", 2u64 << 30)
    } else {
        ("64M", 64u64 << 20)
    };
    let mut child = nodecheck()
        .args(bench_args(dir.path(), size, "60"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for("the test file", Duration::from_secs(30), || {
        !test_files(dir.path()).is_empty()
    });
    if during_prefill {
        wait_for("the prefill to start", Duration::from_secs(30), || {
            written_bytes(pid) > 0
        });
        assert!(
            written_bytes(pid) < size_bytes,
            "the prefill finished before the signal; the test did not test it"
        );
    } else {
        wait_for("the prefill to finish", Duration::from_secs(60), || {
            written_bytes(pid) >= size_bytes
        });
        std::thread::sleep(Duration::from_millis(300));
    }
    let signalled_at = Instant::now();
    kill(Pid::from_raw(pid as i32), signal).unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(20));
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(signalled_at.elapsed() < Duration::from_secs(20));
    // It cleaned up, then died of the signal it was sent (the shell sees the real cause);
    // SIGQUIT, whose default action also dumps core, exits with 128 + 3 instead.
    if signal == Signal::SIGQUIT {
        assert_eq!(status.code(), Some(131), "{status:?}: {stderr}");
    } else {
        assert_eq!(status.signal(), Some(signal as i32), "{status:?}: {stderr}");
    }
    assert!(stderr.contains("test file removed"), "{stderr}");
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}

#[test]
fn sigint_during_prefill_leaves_nothing() {
    interrupt(Signal::SIGINT, true);
}

#[test]
fn sigterm_during_prefill_leaves_nothing() {
    interrupt(Signal::SIGTERM, true);
}

#[test]
fn sigint_during_the_run_leaves_nothing() {
    interrupt(Signal::SIGINT, false);
}

#[test]
fn sigterm_during_the_run_leaves_nothing() {
    interrupt(Signal::SIGTERM, false);
}

#[test]
fn sighup_during_the_run_leaves_nothing() {
    interrupt(Signal::SIGHUP, false);
}

#[test]
fn sigquit_during_the_run_leaves_nothing() {
    interrupt(Signal::SIGQUIT, false);
}

#[test]
fn sigusr1_during_the_run_leaves_nothing() {
    interrupt(Signal::SIGUSR1, false);
}

#[test]
fn sigusr2_during_prefill_leaves_nothing() {
    interrupt(Signal::SIGUSR2, true);
}

#[test]
fn other_files_and_stale_test_files_are_never_touched_without_clean_stale() {
    let dir = scratch();
    // A file of a killed run (pid 4194304 is above the default pid_max) and an unrelated file.
    let stale = dir
        .path()
        .join(".nodecheck-bench-4194304-0123456789abcdef.tmp");
    let mine = dir.path().join("chaindata.ldb");
    std::fs::write(&stale, b"stale contents").unwrap();
    std::fs::write(&mine, b"precious").unwrap();
    let output = nodecheck()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains(stale.to_str().unwrap()), "{warnings}");
    assert!(warnings.contains("--clean-stale"), "{warnings}");
    assert_eq!(std::fs::read(&stale).unwrap(), b"stale contents");
    assert_eq!(std::fs::read(&mine).unwrap(), b"precious");
    assert_eq!(entries(dir.path()), vec![stale.clone(), mine.clone()]);

    let output = nodecheck()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1", "--clean-stale"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(entries(dir.path()), vec![mine.clone()]);
    assert_eq!(std::fs::read(&mine).unwrap(), b"precious");
}

#[test]
fn a_file_system_without_room_for_the_reserve_refuses_with_numbers() {
    let dir = scratch();
    let output = nodecheck()
        .args([
            "bench",
            dir.path().to_str().unwrap(),
            "--reserve",
            "1000000T",
            "--force",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
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
    for test in ["randrw", "all"] {
        let output = nodecheck()
            .args(["bench", "--device", "/dev/null", "--test", test, "--force"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
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
    let output = nodecheck()
        .args([
            "bench",
            device,
            "--force",
            "--reserve",
            "1G",
            "--size",
            "16M",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("never writes to a device"), "{stderr}");
}

#[test]
fn io_uring_forced_off_falls_back_and_says_so() {
    let dir = scratch();
    let output = nodecheck()
        .env("NODECHECK_FORCE_NO_IO_URING", "1")
        .args(bench_args(dir.path(), "32M", "1"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["engine"], "psync");
    assert_eq!(report["qd1"]["engine"], "psync");
    assert_eq!(report["randrw"]["engine"], "psync");
    let reason = report["engine_reason"].as_str().unwrap();
    assert!(reason.contains("NODECHECK_FORCE_NO_IO_URING"), "{reason}");
    assert!(reason.contains("fell back"), "{reason}");
    assert!(entries(dir.path()).is_empty());

    // Asking for io_uring explicitly while it is off is an error, not a silent fallback.
    let output = nodecheck()
        .env("NODECHECK_FORCE_NO_IO_URING", "1")
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--engine", "io-uring"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("io_uring disabled"));
}

#[test]
fn a_running_client_requires_force() {
    // A real process whose name is `geth`: a copy of sleep(1).
    let dir = scratch();
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
    let output = nodecheck()
        .args([
            "bench",
            work.to_str().unwrap(),
            "--reserve",
            "1G",
            "--size",
            "16M",
        ])
        .output()
        .unwrap();
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
fn json_has_the_documented_keys() {
    let dir = scratch();
    let output = nodecheck()
        .args(bench_args(dir.path(), "64M", "1"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for key in ["mean", "p50", "p90", "p99", "p999", "max"] {
        assert!(
            report["qd1"]["lat_us"][key].as_f64().unwrap() > 0.0,
            "qd1.lat_us.{key}"
        );
    }
    assert!(report["qd1"]["iops"].as_f64().unwrap() > 0.0);
    let randrw = &report["randrw"];
    for key in ["read_iops", "write_iops", "runtime_s"] {
        assert!(randrw[key].as_f64().unwrap() > 0.0, "randrw.{key}");
    }
    assert!(randrw["read_lat_us"]["p99"].as_f64().unwrap() > 0.0);
    assert!(randrw["write_lat_us"]["p99"].as_f64().unwrap() > 0.0);
    assert_eq!(randrw["span_bytes"], 64u64 << 20);
    assert_eq!(randrw["fio_comparable"], false);
    assert!(randrw["engine"].is_string());
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn text_output_when_piped_has_no_progress_bars() {
    let dir = scratch();
    let args: Vec<String> = bench_args(dir.path(), "32M", "1")
        .into_iter()
        .filter(|a| a != "--json")
        .collect();
    let output = nodecheck()
        .args(&args)
        .args(["--test", "qd1"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.contains("QD1 4 KiB random read"), "{stdout}");
    assert!(stdout.contains("p99.9"), "{stdout}");
    assert!(
        !stderr.contains('\r') && !stderr.contains("\x1b["),
        "{stderr:?}"
    );
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

#[test]
fn qd1_reads_a_raw_device_read_only_as_root() {
    if !nix::unistd::geteuid().is_root() {
        skip("reading a raw device needs root");
        return;
    }
    let dir = scratch();
    let Some(device) = device_of(dir.path()).filter(|d| d.exists()) else {
        skip("the scratch directory is not on a block device (overlay, tmpfs?)");
        return;
    };
    if let Err(err) = std::fs::File::open(&device) {
        // Containers and sandboxes often deny device nodes even to root (device cgroup).
        skip(format_args!(
            "{} cannot be opened here: {err}",
            device.display()
        ));
        return;
    }
    let output = nodecheck()
        .args([
            "bench",
            "--device",
            device.to_str().unwrap(),
            "--test",
            "qd1",
        ])
        .args(["--runtime", "1", "--force", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["qd1"]["target"], "device");
    assert!(report["qd1"]["iops"].as_f64().unwrap() > 0.0);
    assert!(report["qd1"]["span_bytes"].as_u64().unwrap() > 1 << 20);
    assert!(report["randrw"].is_null());
}

#[test]
fn keep_going_reports_failed_tests_as_warnings() {
    // IOPOLL needs a driver with poll queues: where it has none (virtio, most SATA), each test
    // fails; --keep-going reports both and, with nothing measured, exits 4. Where polling
    // works, both tests succeed.
    let dir = scratch();
    let output = nodecheck()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--iopoll", "--keep-going", "--engine", "io-uring"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("io_uring") && output.stdout.is_empty() {
        skip(format_args!("io_uring unavailable here: {stderr}"));
        return;
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let warnings = report["warnings"].to_string();
    if report["qd1"].is_null() {
        assert!(
            warnings.contains("qd1 failed, continuing as asked"),
            "{warnings}"
        );
        assert!(warnings.contains("randrw failed"), "{warnings}");
        assert_eq!(output.status.code(), Some(4), "{output:?}");
        assert!(stderr.contains("no test completed"), "{stderr}");
    } else {
        assert!(output.status.success(), "{output:?}");
        assert!(!report["randrw"].is_null());
    }
    assert!(entries(dir.path()).is_empty());
}

/// linux/capability.h: the capability that exempts from RLIMIT_MEMLOCK.
const CAP_IPC_LOCK: libc::c_ulong = 14;

#[test]
fn a_low_memlock_limit_drops_fixed_buffers_and_says_so() {
    use std::os::unix::process::CommandExt;
    let dir = scratch();
    let mut command = nodecheck();
    command.args(bench_args(dir.path(), "32M", "1"));
    // SAFETY: only async-signal-safe calls (prctl, setrlimit) between fork and exec.
    unsafe {
        command.pre_exec(|| {
            // Root is exempt from RLIMIT_MEMLOCK through CAP_IPC_LOCK; drop it from the bounding
            // set so the exec'd process lacks it, as an unprivileged user would.
            if libc::prctl(libc::PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0) != 0
                && nix::unistd::geteuid().is_root()
            {
                return Err(std::io::Error::last_os_error());
            }
            let limit = libc::rlimit {
                rlim_cur: 64 * 1024,
                rlim_max: 64 * 1024,
            };
            if libc::setrlimit(libc::RLIMIT_MEMLOCK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = match command.output() {
        Ok(output) => output,
        Err(err) => {
            skip(format_args!(
                "cannot drop CAP_IPC_LOCK or lower RLIMIT_MEMLOCK here: {err}"
            ));
            return;
        }
    };
    assert!(output.status.success(), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let reason = report["engine_reason"].as_str().unwrap_or_default();
    match report["engine"].as_str() {
        // Registered buffers refused: io_uring still runs, without them, and says so.
        Some("io_uring") => {
            assert!(reason.contains("without fixed buffers"), "{report}");
            assert!(reason.contains("RLIMIT_MEMLOCK 64 KiB"), "{reason}");
        }
        // Older kernels charge the ring itself: then the portable engine, with the reason.
        Some("psync") => assert!(reason.contains("RLIMIT_MEMLOCK"), "{reason}"),
        other => panic!("unexpected engine {other:?}"),
    }
    assert!(!report["qd1"].is_null() && !report["randrw"].is_null());
    assert!(entries(dir.path()).is_empty());
}

/// The bench paused right after its prefill (the debug-build hook of `bench::hook`): the
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

fn debug_hooks_available() -> bool {
    if !cfg!(debug_assertions) {
        println!(
            "skipping: the pause hook exists only in debug builds (cargo test without --release)"
        );
    }
    cfg!(debug_assertions)
}

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
    let markers = scratch();
    let victims = scratch();
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

fn bench_report(output: &std::process::Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn assert_swap_reported(warnings: &serde_json::Value) {
    let text = warnings.to_string();
    assert!(text.contains("no longer named the test file"), "{text}");
}

#[test]
fn behaviour_tests_never_write_through_a_symlink_planted_after_the_prefill() {
    if !debug_hooks_available() {
        return;
    }
    for test in [
        &["--test", "sync", "--burst", "16M"][..],
        &["--test", "span"][..],
        &["--test", "cliff", "--cliff-budget", "32M"][..],
        &["--test", "all"][..],
    ] {
        let dir = scratch();
        let mut command = nodecheck();
        command.args(bench_args(dir.path(), "64M", "1")).args(test);
        let output = symlink_swap_is_harmless(command, dir.path());
        let report = bench_report(&output);
        assert_swap_reported(&report["warnings"]);
    }
}

#[test]
fn check_bench_full_never_writes_through_a_symlink_planted_after_the_prefill() {
    if !debug_hooks_available() {
        return;
    }
    let dir = scratch();
    let mut command = nodecheck();
    command.args(["check", "--bench", "full", "--json"]);
    command.args([
        "--bench-size",
        "64M",
        "--bench-runtime",
        "1",
        "--bench-reserve",
        "1G",
    ]);
    command.arg(dir.path());
    let output = symlink_swap_is_harmless(command, dir.path());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)));
    assert!(report["bench"]["sync"].is_object(), "{report}");
    assert_swap_reported(&report["bench"]["warnings"]);
}

#[test]
fn a_second_bench_in_the_same_directory_is_refused_and_names_the_first() {
    if !debug_hooks_available() {
        return;
    }
    let dir = scratch();
    let markers = scratch();
    let mut first = nodecheck();
    first
        .args(bench_args(dir.path(), "64M", "1"))
        .args(["--test", "qd1"]);
    let paused = paused_after_prefill(first, dir.path(), markers.path());
    let first_pid = paused.child.id();

    let second = nodecheck()
        .args(bench_args(dir.path(), "64M", "1"))
        .args(["--test", "qd1"])
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(4), "{second:?}");
    let stderr = String::from_utf8_lossy(&second.stderr);
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

#[test]
fn stale_files_are_told_by_their_lock_not_by_the_pid_in_their_name() {
    let dir = scratch();
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

    let output = nodecheck()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1"])
        .output()
        .unwrap();
    let report = bench_report(&output);
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains(reused.to_str().unwrap()), "{warnings}");
    assert!(!warnings.contains(held.to_str().unwrap()), "{warnings}");

    let output = nodecheck()
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
    let Some(dir) = memory_backed_dir() else {
        println!("skipping: no writable tmpfs at /dev/shm");
        return;
    };
    let output = nodecheck()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "qd1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is on tmpfs, a memory-backed file system"),
        "{stderr}"
    );
    assert!(entries(dir.path()).is_empty());

    // check still judges what it can, and its report says why nothing was measured.
    let output = nodecheck()
        .args(["check", "--bench", "full", "--json", "--bench-size", "32M"])
        .args(["--bench-runtime", "1", "--bench-reserve", "1G"])
        .arg(dir.path())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)));
    assert!(report["bench"].is_null(), "{report}");
    let notes = report["notes"].to_string();
    assert!(notes.contains("memory-backed"), "{notes}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn check_of_a_device_node_is_refused_with_what_to_run_instead() {
    let Some(device) = device_of(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .filter(|d| d.exists())
        .or_else(|| Some(PathBuf::from("/dev/loop0")).filter(|d| d.exists()))
    else {
        println!("skipping: no block device node found");
        return;
    };
    let output = nodecheck()
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
fn check_of_a_file_in_the_current_directory_measures_that_directory() {
    let dir = scratch();
    std::fs::write(dir.path().join("chaindata.ldb"), b"precious").unwrap();
    let output = nodecheck()
        .current_dir(dir.path())
        .args(["check", "--bench", "full", "--json", "--bench-size", "32M"])
        .args([
            "--bench-runtime",
            "1",
            "--bench-reserve",
            "1G",
            "chaindata.ldb",
        ])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)));
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

#[test]
fn a_burst_too_small_to_measure_is_refused() {
    let dir = scratch();
    let output = nodecheck()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--test", "sync", "--burst", "1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("too small a burst"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}
