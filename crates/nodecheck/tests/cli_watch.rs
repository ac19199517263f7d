//! `nodecheck watch` and `triage` of what it saves, on readings captured on a real machine
//! beside real fio loads (tests/data/watch/, each with iostat's own figures for the same
//! seconds), pasted `iostat -x` and `ioping` outputs, and a live run on this machine.

use std::path::{Path, PathBuf};

use crate::cli_support::{json_of, machine_lock, nodecheck, triage};
use serde_json::Value;
use test_support::skip;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/watch")
        .join(name)
}

fn triage_json(name: &str) -> (Value, i32) {
    let out = triage(&data(name), &["--json"]);
    let code = out.status.code().expect("exited");
    (json_of(&out), code)
}

/// The first statistics block of `iostat -dxy -o JSON DEV INTERVAL 1`.
fn iostat_disk(name: &str) -> Value {
    let doc: Value =
        serde_json::from_slice(&std::fs::read(data(name)).expect("read")).expect("json");
    doc.pointer("/sysstat/hosts/0/statistics/0/disk/0")
        .expect("one disk")
        .clone()
}

/// Within 10 % of iostat's figure, or within `floor` (iostat prints two decimals).
fn assert_close(ours: f64, theirs: f64, floor: f64, what: &str) {
    let tolerance = (0.10 * theirs.abs()).max(floor);
    assert!(
        (ours - theirs).abs() <= tolerance,
        "{what}: watch {ours} against iostat {theirs} (tolerance {tolerance})"
    );
}

fn compare_with_iostat(report: &Value, iostat: &Value) {
    let device = &report["devices"][0];
    assert_eq!(device["disk_device"], iostat["disk_device"]);
    for (key, floor) in [
        ("r/s", 1.0),
        ("w/s", 1.0),
        ("rkB/s", 4.0),
        ("wkB/s", 4.0),
        ("r_await", 0.02),
        ("w_await", 0.02),
        ("aqu-sz", 0.02),
        ("util", 1.0),
    ] {
        let ours = device[key]
            .as_f64()
            .unwrap_or_else(|| panic!("watch has no {key}"));
        let theirs = iostat[key]
            .as_f64()
            .unwrap_or_else(|| panic!("iostat has no {key}"));
        assert_close(ours, theirs, floor, key);
    }
}

#[test]
fn saved_readings_agree_with_iostat_over_the_same_seconds() {
    for name in ["vda-fio-randrw-libaio-qd32", "loop-fio-randrw-psync16"] {
        let (report, _) = triage_json(&format!("{name}.watch.json"));
        compare_with_iostat(&report, &iostat_disk(&format!("{name}.iostat.json")));
    }
}

#[test]
fn a_saturated_drive_is_storage_bound_and_an_idle_one_is_not() {
    let (saturated, code) = triage_json("loop-fio-randrw-psync16.watch.json");
    assert_eq!(
        saturated["verdict"]["outcome"], "storage_bound",
        "{saturated:#}"
    );
    assert_eq!(code, 2);
    assert!(saturated["schema_version"].as_u64().is_some());
    let (idle, code) = triage_json("loop-idle.watch.json");
    assert_eq!(idle["verdict"]["outcome"], "not_storage_bound", "{idle:#}");
    assert_eq!(code, 0);
    // The host stalled on the other engineers' I/O, not on the idle loop device: said, not
    // counted.
    let caveats = idle["verdict"]["caveats"].to_string();
    assert!(caveats.contains("stall is on another device"), "{caveats}");
    // Async QD32 I/O that the drive serves in 0.4 ms stalls no task: not storage-bound.
    let (fast, code) = triage_json("vda-fio-randrw-libaio-qd32.watch.json");
    assert_eq!(fast["verdict"]["outcome"], "not_storage_bound", "{fast:#}");
    assert_eq!(code, 0);
}

/// Readings a real kernel gave (Debian's, under QEMU, `cargo xtask vm --update-test-data`):
/// `watch --save` in the guest beside a 400 MiB dd write, on an NVMe drive and on md RAID1 over
/// two SATA SSDs. The host's replay gives the figures and the verdict the guest printed live.
#[test]
fn a_real_kernels_readings_replay_to_what_the_guest_printed() {
    for (scenario, devices) in [
        ("qemu-nvme", &["nvme0n1"][..]),
        ("qemu-md-raid1", &["md0", "sda", "sdb"][..]),
    ] {
        let (replayed, _) = triage_json(&format!("{scenario}.watch.json"));
        let live: Value = serde_json::from_slice(
            &std::fs::read(data(&format!("{scenario}.live.json"))).expect("read"),
        )
        .expect("the guest's report is JSON");
        let names: Vec<&str> = replayed["devices"]
            .as_array()
            .expect("devices")
            .iter()
            .filter_map(|d| d["disk_device"].as_str())
            .collect();
        assert_eq!(names, devices, "{scenario}");
        for key in ["devices", "host_pressure", "latency_probe", "seconds"] {
            assert_eq!(replayed[key], live[key], "{scenario}: {key}");
        }
        assert_eq!(
            replayed["verdict"]["outcome"], live["verdict"]["outcome"],
            "{scenario}"
        );
        let written: f64 = replayed["devices"]
            .as_array()
            .expect("devices")
            .iter()
            .filter_map(|d| d["wkB/s"].as_f64())
            .sum();
        assert!(
            written > 0.0,
            "{scenario}: the dd load's writes are in the counters"
        );
    }
}

#[test]
fn a_saved_report_is_judged_again_to_the_same_verdict() {
    let (first, _) = triage_json("loop-fio-randrw-psync16.watch.json");
    let dir = tempfile::tempdir().expect("tempdir");
    let saved = dir.path().join("report.json");
    std::fs::write(&saved, first.to_string()).expect("write");
    let out = triage(&saved, &["--json"]);
    let again: Value = json_of(&out);
    assert_eq!(again["verdict"], first["verdict"]);
    assert!(again["source"].as_str().unwrap_or("").contains("re-judged"));
}

#[test]
fn every_format_of_a_watch_report() {
    let file = data("loop-fio-randrw-psync16.watch.json");
    for format in ["table", "markdown", "discord", "prometheus"] {
        let out = triage(&file, &["--format", format]);
        assert_eq!(out.status.code(), Some(2), "{format}");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        insta::assert_snapshot!(format!("watch_loop_saturated_{format}"), text);
    }
}

/// `-qq` keeps the verdict line alone, as it does for `check`: a watch has a verdict too.
#[test]
fn qq_prints_the_watch_verdict_line_alone() {
    let file = data("loop-fio-randrw-psync16.watch.json");
    let (report, _) = triage_json("loop-fio-randrw-psync16.watch.json");
    let out = triage(&file, &["-qq"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let summary = report["verdict"]["summary"].as_str().expect("a summary");
    assert_eq!(text, format!("{summary}\n"));
}

#[test]
fn pasted_iostat_and_ioping_are_judged_by_the_same_rules() {
    let (iostat, code) = triage_json("loop-fio-randread-psync8.iostat-x.txt");
    let devices: Vec<&str> = iostat["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .filter_map(|d| d["disk_device"].as_str())
        .collect();
    assert_eq!(devices, ["loop0", "vda"]);
    assert_eq!(iostat["devices"][0]["r_await"], 0.25);
    assert_eq!(iostat["devices"][1]["aqu-sz"], 4.66);
    assert_eq!(code, 0, "{iostat:#}");
    assert!(iostat["notes"].to_string().contains("no pressure (PSI)"));

    let (ioping, code) = triage_json("loop-fio-randread-psync8.ioping.txt");
    let probe = &ioping["latency_probe"];
    // 20 requests, the first a warm-up.
    assert_eq!(probe["reads"], 19, "{ioping:#}");
    assert!(
        (probe["max_us"].as_f64().expect("max") - 8050.0).abs() < 0.01,
        "{probe}"
    );
    assert_ne!(
        code, 0,
        "an 8 ms read beside the load is more than a good drive shows"
    );
}

#[test]
fn readings_from_a_newer_nodecheck_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("w.json");
    std::fs::write(&file, r#"{"nodecheck_watch_samples": 99}"#).expect("write");
    let out = triage(&file, &[]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("newer than this nodecheck reads"));
}

#[test]
fn a_live_watch_names_its_figures_as_iostat_does() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let saved = dir.path().join("readings.json");
    let out = nodecheck()
        .args([
            "watch",
            "--for",
            "2s",
            "--interval",
            "1s",
            "--json",
            "--save",
        ])
        .arg(&saved)
        .arg(dir.path())
        .output()
        .expect("runs");
    let report: Value = json_of(&out);
    assert_eq!(report["kind"], "watch");
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["intervals"].as_array().map(Vec::len), Some(2));
    match report["devices"].as_array().and_then(|d| d.first()) {
        Some(device) => {
            for key in [
                "r/s", "w/s", "rkB/s", "wkB/s", "r_await", "w_await", "aqu-sz", "util",
            ] {
                assert!(device[key].is_f64(), "{key} in {device}");
            }
        }
        None => skip("no block device under the target directory"),
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.trim_start().starts_with("1.0s") || l.trim_start().starts_with("2.0s"))
            .count(),
        2,
        "{stderr}"
    );
    // The saved readings judge to the same verdict.
    let (again, _) = {
        let out = triage(&saved, &["--json"]);
        (json_of::<Value>(&out), out.status.code())
    };
    assert_eq!(again["verdict"]["outcome"], report["verdict"]["outcome"]);
    // -q: no progress lines.
    let out = nodecheck()
        .args(["watch", "-q", "--for", "1s", "--json"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn prometheus_output_is_written_atomically_to_the_file_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("nodecheck_watch.prom");
    std::fs::write(&file, "old\n").expect("write");
    let out = nodecheck()
        .args([
            "watch",
            "-q",
            "--for",
            "1s",
            "--format",
            "prometheus",
            "--no-probe-latency",
            "--output",
        ])
        .arg(&file)
        .arg(dir.path())
        .output()
        .expect("runs");
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(&file).expect("written");
    assert!(
        text.contains("# TYPE nodecheck_watch_storage_bound gauge"),
        "{text}"
    );
    // Only the file itself is left: the temporary was renamed over it.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

#[test]
fn a_path_that_is_not_a_directory_is_a_usage_error() {
    let out = nodecheck()
        .args(["watch", "--for", "1s", "/nonexistent/datadir"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
}

#[test]
fn a_path_without_a_block_device_still_gets_pressure_and_a_clear_note() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        return skip("no /dev/shm (tmpfs) to watch");
    }
    let out = nodecheck()
        .args(["watch", "-q", "--for", "1s", "--json", "/dev/shm"])
        .output()
        .expect("runs");
    let report: Value = json_of(&out);
    assert_eq!(report["devices"].as_array().map(Vec::len), Some(0));
    assert!(
        report["notes"]
            .to_string()
            .contains("No block device under"),
        "{report:#}"
    );
    if Path::new("/proc/pressure/io").exists() {
        assert!(report["host_pressure"]["io"]["some"].is_f64());
    }
}

#[test]
fn without_root_it_runs_and_says_what_needs_root() {
    if !nix::unistd::geteuid().is_root() {
        let out = nodecheck()
            .args([
                "watch",
                "-q",
                "--for",
                "1s",
                "--json",
                "--probe-latency",
                ".",
            ])
            .output()
            .expect("runs");
        let report: Value = json_of(&out);
        assert!(report["needs_root"].to_string().contains("needs root"));
        return;
    }
    let Ok(setpriv) = which("setpriv") else {
        return skip("running as root and no setpriv to drop to nobody");
    };
    let binary = assert_cmd::cargo::cargo_bin("nodecheck");
    let out = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&binary)
        .args([
            "watch",
            "-q",
            "--for",
            "1s",
            "--json",
            "--probe-latency",
            "/tmp",
        ])
        .env("HOME", "/nonexistent-home")
        .output()
        .expect("runs");
    if out.status.code() == Some(126) || out.status.code() == Some(127) {
        return skip(format!("nobody cannot run {}", binary.display()));
    }
    let report: Value = json_of(&out);
    assert!(
        report["needs_root"].to_string().contains("needs root"),
        "{report:#}"
    );
    assert!(
        report["devices"].as_array().is_some_and(|d| !d.is_empty()),
        "diskstats is world-readable: {report:#}"
    );
}

fn which(program: &str) -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .ok_or(())
}

/// A process that runs as `geth` (a copy of `sleep` under that name) is found as the client:
/// its `/proc/PID/io` and its cgroup's pressure are read, whatever the cgroup layout.
#[test]
fn a_running_client_is_found_and_its_own_figures_read() {
    let _machine = machine_lock();
    let Ok(sleep) = which("sleep") else {
        return skip("no sleep program to run as a stand-in client");
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let geth = dir.path().join("geth");
    std::fs::copy(&sleep, &geth).expect("copy");
    let mut client = std::process::Command::new(&geth)
        .arg("30")
        .spawn()
        .expect("runs");
    let out = nodecheck()
        .args(["watch", "-q", "--for", "1s", "--json", "--no-probe-latency"])
        .arg(dir.path())
        .output()
        .expect("runs");
    let _ = client.kill();
    let _ = client.wait();
    let report: Value = json_of(&out);
    let found = report["clients"]
        .as_array()
        .expect("clients")
        .iter()
        .find(|c| c["pid"] == client.id())
        .unwrap_or_else(|| panic!("geth (pid {}) not found: {report:#}", client.id()))
        .clone();
    assert_eq!(found["client"], "geth");
    // Root reads any process's io; a user reads their own.
    assert_eq!(found["read_bytes_per_s"], 0.0, "{found}");
    let layout_has_v2 = Path::new("/sys/fs/cgroup/cgroup.controllers").exists()
        || Path::new("/sys/fs/cgroup/unified/cgroup.controllers").exists();
    if layout_has_v2 && Path::new("/proc/pressure/io").exists() {
        assert!(found["io"]["some"].is_f64(), "cgroup io.pressure: {found}");
    } else {
        assert!(report["notes"].to_string().contains("cgroup"), "{report:#}");
    }
}

/// `--save` and `--output` are written like every nodecheck file: a link planted
/// at the name is refused and its target left alone, a missing directory is refused, both
/// before a minute of sampling is spent.
#[test]
fn watch_refuses_a_planted_link_or_a_missing_directory_before_sampling() {
    let dir = tempfile::tempdir().expect("tempdir");
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me").expect("victim");
    let link = dir.path().join("readings.json");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    let missing = dir.path().join("no-such-dir").join("out.prom");
    for (option, target) in [
        ("--save", &link),
        ("--output", &link),
        ("--output", &missing),
    ] {
        let started = std::time::Instant::now();
        let out = nodecheck()
            .args(["watch", "--for", "60s", "-q", option])
            .arg(target)
            .arg(dir.path())
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(3),
            "{option} {}: {}",
            target.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            started.elapsed().as_secs() < 30,
            "{option}: refused only after sampling"
        );
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep me");
}
