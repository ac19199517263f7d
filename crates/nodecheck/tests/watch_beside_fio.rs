//! `nodecheck watch` beside a real fio load: its r/s, w/s and await agree with sysstat's
//! `iostat -x` over the same seconds, and the watch process itself writes nothing.
//! Skipped with the reason when fio or iostat is missing (`.ci/run` installs both).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli_support::{machine_lock, test_env};
use serde_json::Value;
use test_support::skip;

fn program(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A random 75/25 read/write load on a file of its own under `dir`, synchronous so that the
/// device's counters move steadily.
fn fio_load(fio: &Path, dir: &Path, seconds: u32) -> Child {
    Command::new(fio)
        .args([
            "--name=watch-test",
            "--size=128M",
            "--rw=randrw",
            "--rwmixread=75",
            "--bs=4k",
            "--ioengine=psync",
            "--numjobs=2",
            "--direct=1",
            "--time_based",
            &format!("--runtime={seconds}"),
            "--output=/dev/null",
        ])
        .arg(format!("--directory={}", dir.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fio starts")
}

fn watch(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("nodecheck"));
    test_env(&mut cmd);
    cmd.arg("watch").args(args).arg(dir);
    cmd
}

fn close(ours: f64, theirs: f64, floor: f64) -> bool {
    (ours - theirs).abs() <= (0.10 * theirs.abs()).max(floor)
}

#[test]
fn watch_agrees_with_iostat_beside_a_real_fio_load() {
    let _machine = machine_lock();
    let (Some(fio), Some(iostat)) = (program("fio"), program("iostat")) else {
        return skip("fio and sysstat's iostat are needed (apt-get install fio sysstat)");
    };
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    // Which device: watch's own answer for the directory.
    let probe = watch(
        dir.path(),
        &["-q", "--for", "1s", "--json", "--no-probe-latency"],
    )
    .output()
    .expect("runs");
    let first: Value = serde_json::from_slice(&probe.stdout).expect("json");
    let Some(device) = first["devices"][0]["disk_device"]
        .as_str()
        .map(str::to_owned)
    else {
        return skip("no block device under the test's temporary directory");
    };
    let mut load = fio_load(&fio, dir.path(), 14);
    // Let fio lay out its file and reach a steady rate.
    std::thread::sleep(Duration::from_secs(4));
    // Up to three tries: on a shared machine another process's burst can land in one tool's
    // second and not the other's.
    let mut last = String::new();
    for _ in 0..3 {
        let theirs = Command::new(&iostat)
            .args(["-dxy", "-o", "JSON", &device, "3", "1"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("iostat starts");
        let ours = watch(
            dir.path(),
            &[
                "-q",
                "--for",
                "3s",
                "--interval",
                "3s",
                "--json",
                "--no-probe-latency",
            ],
        )
        .stdout(Stdio::piped())
        .spawn()
        .expect("watch starts");
        let theirs: Value =
            serde_json::from_slice(&theirs.wait_with_output().expect("iostat").stdout)
                .expect("iostat json");
        let ours: Value = serde_json::from_slice(&ours.wait_with_output().expect("watch").stdout)
            .expect("watch json");
        let disk = theirs
            .pointer("/sysstat/hosts/0/statistics/0/disk/0")
            .expect("iostat disk")
            .clone();
        let mine = ours["devices"]
            .as_array()
            .expect("devices")
            .iter()
            .find(|d| d["disk_device"] == device.as_str())
            .expect("device")
            .clone();
        let figures = |doc: &Value, key: &str| doc[key].as_f64().unwrap_or(f64::NAN);
        let rows: Vec<(&str, f64, f64, f64)> = [
            ("r/s", 1.0),
            ("w/s", 1.0),
            ("r_await", 0.03),
            ("w_await", 0.03),
        ]
        .into_iter()
        .map(|(key, floor)| (key, figures(&mine, key), figures(&disk, key), floor))
        .collect();
        last = rows
            .iter()
            .map(|(k, o, t, _)| format!("{k}: watch {o:.2} iostat {t:.2}"))
            .collect::<Vec<_>>()
            .join("; ");
        eprintln!("beside fio on {device}: {last}");
        assert!(
            figures(&mine, "r/s") > 10.0,
            "fio's load did not show: {last}"
        );
        if rows.iter().all(|(_, o, t, floor)| close(*o, *t, *floor)) {
            let _ = load.kill();
            let _ = load.wait();
            return;
        }
    }
    let _ = load.kill();
    let _ = load.wait();
    panic!("watch and iostat disagree by more than 10 % three times: {last}");
}

/// `write_bytes` of the watch process itself (the test's own I/O does not count), polled
/// until it exits; the latency probe runs too when this is root.
#[test]
fn watch_writes_nothing() {
    let _machine = machine_lock();
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    std::fs::write(dir.path().join("chain.bin"), vec![1u8; 4 << 20]).expect("data to probe");
    let _ = Command::new("sync").status();
    let mut child = watch(
        dir.path(),
        &["-q", "--for", "3s", "--interval", "500ms", "--json"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("watch starts");
    let io = format!("/proc/{}/io", child.id());
    let started = Instant::now();
    let mut readings = 0;
    let mut written = 0u64;
    while child.try_wait().expect("wait").is_none() && started.elapsed() < Duration::from_secs(30) {
        if let Ok(text) = std::fs::read_to_string(&io) {
            for line in text.lines() {
                if let Some(value) = line.strip_prefix("write_bytes:") {
                    written = written.max(value.trim().parse().unwrap_or(0));
                    readings += 1;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("watch ends");
    assert!(
        out.status.code().is_some_and(|c| c <= 2),
        "{:?}",
        out.status
    );
    assert!(readings > 10, "read /proc/PID/io only {readings} times");
    assert_eq!(written, 0, "watch wrote {written} bytes to block devices");
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    if nix::unistd::geteuid().is_root() {
        assert!(
            report["latency_probe"]["reads"].as_u64().unwrap_or(0) > 0
                || report["notes"].to_string().contains("No latency probe"),
            "{report:#}"
        );
    }
}
