//! What a run says: the engine it fell back to, its JSON and text, raw devices, memlock limits.

use super::*;

#[test]
fn io_uring_forced_off_falls_back_and_says_so() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    let output = nodecheck_process()
        .env("NODECHECK_FORCE_NO_IO_URING", "1")
        .args(bench_args(dir.path(), "32M", "1"))
        .output()
        .unwrap();
    let report = bench_report(&output);
    assert_eq!(report["engine"], "psync");
    assert_eq!(report["qd1"]["engine"], "psync");
    assert_eq!(report["randrw"]["engine"], "psync");
    let reason = report["engine_reason"].as_str().unwrap();
    assert!(reason.contains("NODECHECK_FORCE_NO_IO_URING"), "{reason}");
    assert!(reason.contains("fell back"), "{reason}");
    assert!(entries(dir.path()).is_empty());

    // Asking for io_uring explicitly while it is off is an error, not a silent fallback.
    let output = nodecheck_process()
        .env("NODECHECK_FORCE_NO_IO_URING", "1")
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--engine", "io-uring"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("io_uring disabled"));
}

#[test]
fn json_has_the_documented_keys() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    let output = nodecheck_process()
        .args(bench_args(dir.path(), "64M", "1"))
        .output()
        .unwrap();
    let report = bench_report(&output);
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
    let _machine = machine_lock();
    let dir = bench_scratch();
    let args: Vec<String> = bench_args(dir.path(), "32M", "1")
        .into_iter()
        .filter(|a| a != "--json")
        .collect();
    let output = nodecheck_process()
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

#[test]
fn qd1_reads_a_raw_device_read_only_as_root() {
    let _machine = machine_lock();
    if !nix::unistd::geteuid().is_root() {
        skip("reading a raw device needs root");
        return;
    }
    let dir = bench_scratch();
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
    let output = nodecheck_process()
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
    let report = bench_report(&output);
    assert_eq!(report["qd1"]["target"], "device");
    assert!(report["qd1"]["iops"].as_f64().unwrap() > 0.0);
    assert!(report["qd1"]["span_bytes"].as_u64().unwrap() > 1 << 20);
    assert!(report["randrw"].is_null());
}

#[test]
fn keep_going_reports_failed_tests_as_warnings() {
    let _machine = machine_lock();
    // IOPOLL needs a driver with poll queues: where it has none (virtio, most SATA), each test
    // fails; --keep-going reports both and, with nothing measured, exits 4. Where polling
    // works, both tests succeed.
    let dir = bench_scratch();
    let output = nodecheck_process()
        .args(bench_args(dir.path(), "32M", "1"))
        .args(["--iopoll", "--keep-going", "--engine", "io-uring"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("io_uring") && output.stdout.is_empty() {
        skip(format_args!("io_uring unavailable here: {stderr}"));
        return;
    }
    let report: serde_json::Value = json_of(&output);
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
    let _machine = machine_lock();
    use std::os::unix::process::CommandExt;
    let dir = bench_scratch();
    let mut command = nodecheck_process();
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
    let report = bench_report(&output);
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

/// `-v` is a global flag; `bench` honours it by saying what it will measure before it starts,
/// and says nothing extra without it.
#[test]
fn verbose_bench_says_what_it_will_measure_first() {
    let _machine = machine_lock();
    let dir = bench_scratch();
    let run = |verbose: bool| {
        let mut command = nodecheck_process();
        if verbose {
            command.arg("-v");
        }
        let output = command
            .args(bench_args(dir.path(), "32M", "1"))
            .args(["--test", "qd1"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let verbose = run(true);
    let shown = dir.path().display().to_string();
    assert!(
        verbose.contains(&format!(
            "Measuring qd1 on a 32.0 MiB test file in {shown}, 1 s per test"
        )),
        "{verbose}"
    );
    let plain = run(false);
    assert!(!plain.contains("Measuring"), "{plain}");
    assert!(entries(dir.path()).is_empty());
}
