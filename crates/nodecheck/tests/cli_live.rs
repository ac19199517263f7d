//! The binary on this machine: a snapshot replays to the same report, `check /` gives its
//! verdict in time, and progress bars show on a terminal and not in a pipe.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};
use test_support::skip;

use crate::cli_support::{json_of, machine_lock, nodecheck, run_ok, stderr};
use nodecheck::Report;

/// Somewhere outside the root file system when possible: writing the archive into `/` would
/// change the free space the two runs compare.
fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().expect("tempdir")
}

fn check_json(args: &[&str]) -> Report {
    let out = nodecheck()
        .args(["check", "--bench", "none", "--json"])
        .args(args)
        .output()
        .expect("runs");
    json_of(&out)
}

/// What legitimately differs between the live machine and its replay: where the files were
/// read from and by whom, the io_uring_setup attempt only a live run makes, and what changes
/// by itself between the two runs (free space on a shared machine, drive temperature and
/// health counters).
fn comparable(mut report: Report) -> Report {
    report.facts.root = String::new();
    report.facts.live = false;
    report.facts.privileged = false;
    report.facts.io_uring.available = None;
    report.facts.io_uring.reason = None;
    report.facts.unavailable.clear();
    if let Some(m) = &mut report.facts.mount {
        m.free_bytes = None;
    }
    for drive in &mut report.facts.drives {
        drive.temperature_c = None;
        drive.health = None;
    }
    for f in &mut report.findings {
        f.detail.clear();
        f.fix = None;
    }
    report.findings.retain(|f| f.code != "NC190");
    report.summary.clear();
    report.notes.clear();
    // The replay names its archive; the live run has no source.
    report.source = None;
    report
}

/// `snapshot FLAGS -o ARCHIVE /`, which must succeed.
fn snapshot_root(archive: &Path, flags: &[&str]) {
    run_ok(
        nodecheck()
            .args(["-q", "snapshot"])
            .args(flags)
            .arg("-o")
            .arg(archive)
            .arg("/"),
    );
}

#[test]
fn snapshot_then_replay_reproduces_the_report() {
    let dir = scratch_dir();
    let archive = dir.path().join("node.tar.gz");
    snapshot_root(&archive, &["--no-redact"]);
    let live = check_json(&["/"]);
    let replay = check_json(&["--snapshot", archive.to_str().expect("utf-8 path")]);
    assert!(!replay.facts.live);
    assert_eq!(replay.facts.path, "/");
    assert_eq!(comparable(replay), comparable(live));
}

#[test]
fn a_redacted_snapshot_holds_no_serials_and_still_replays() {
    let dir = scratch_dir();
    let archive = dir.path().join("node.tar.gz");
    snapshot_root(&archive, &[]);
    let live = check_json(&["/"]);
    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir(&unpacked).expect("mkdir");
    let tar = StdCommand::new("tar")
        .arg("xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&unpacked)
        .status();
    if !tar.is_ok_and(|s| s.success()) {
        skip("the content check: no working `tar` here");
        return;
    }
    let secrets: Vec<String> = live
        .facts
        .drives
        .iter()
        .filter_map(|d| d.serial.clone())
        .filter(|s| s.len() >= 4)
        .collect();
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    for file in walk(&unpacked) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap_or_default()).into_owned();
        for secret in &secrets {
            assert!(
                !text.contains(secret.as_str()),
                "{} holds serial {secret}",
                file.display()
            );
        }
        let host = hostname.trim();
        if host.len() >= 3 {
            assert!(
                !text
                    .split(|c: char| !c.is_alphanumeric() && c != '-')
                    .any(|w| w == host),
                "{} holds the hostname",
                file.display()
            );
        }
    }
    // An unpacked snapshot replays with --root too, at the path it was taken for.
    let replay = check_json(&["--root", unpacked.to_str().expect("utf-8 path")]);
    assert_eq!(replay.grade, live.grade);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => files.extend(walk(&path)),
            Ok(t) if t.is_file() => files.push(path),
            _ => {}
        }
    }
    files
}

#[test]
fn check_of_this_machine_gives_a_correct_verdict_within_30_seconds() {
    let _machine = machine_lock();
    let started = Instant::now();
    let out = nodecheck()
        .args(["check", "--json", "/"])
        .output()
        .expect("runs");
    let elapsed = started.elapsed();
    println!("nodecheck check / took {:.1} s", elapsed.as_secs_f64());
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");
    assert!(matches!(out.status.code(), Some(0..=2)), "{}", stderr(&out));
    let report: Report = json_of(&out);
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").expect("mountinfo");
    let root_fs = mounts
        .lines()
        .find_map(|l| {
            let (pre, post) = l.split_once(" - ")?;
            (pre.split(' ').nth(4)? == "/").then(|| post.split(' ').next().map(str::to_string))?
        })
        .expect("a / mount");
    let mount = report.facts.mount.as_ref().expect("mount found");
    assert_eq!(mount.mount_point, "/");
    assert_eq!(mount.fs_type, root_fs);
    // Every drive the probe names is a real block device here.
    assert!(
        !report.facts.drives.is_empty(),
        "drives found: {:?}",
        report.facts.stack
    );
    for drive in &report.facts.drives {
        assert!(
            Path::new("/sys/block").join(&drive.name).exists(),
            "{} is a block device",
            drive.name
        );
    }
    if report.bench.is_none() {
        println!("no measurement here: {:?}", report.notes);
    }
}

/// The progress bar's own line (`QD1 4 KiB random read     [====>   ]`), not the report's
/// `QD1 4 KiB random read: p50 ...` line.
fn has_bar(text: &str) -> bool {
    text.lines().any(|l| {
        l.strip_prefix("QD1 4 KiB random read")
            .is_some_and(|rest| rest.trim_start().starts_with('['))
    })
}

#[test]
fn progress_bars_render_on_a_tty_and_vanish_when_piped() {
    let _machine = machine_lock();
    if StdCommand::new("tmux").arg("-V").output().is_err() {
        skip("tmux is not installed (apt-get install tmux; .ci/run installs it)");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("nodecheck");
    let dir = scratch_dir();
    let workdir = tempfile::tempdir().expect("tempdir");
    let done = dir.path().join("done");
    let session = format!("nodecheck-test-{}", std::process::id());
    let script = format!(
        "TERM=xterm NO_COLOR=1 {} check --bench quick --json {} > {}/out.json; echo $? > {}",
        bin.display(),
        workdir.path().display(),
        dir.path().display(),
        done.display()
    );
    let started = StdCommand::new("tmux")
        .args([
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            &session,
            &script,
        ])
        .status()
        .expect("tmux runs");
    assert!(started.success());
    let capture = || {
        StdCommand::new("tmux")
            .args(["capture-pane", "-p", "-t", &session])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen_bar = false;
    while Instant::now() < deadline && !done.exists() {
        if has_bar(&capture()) {
            seen_bar = true;
            // Keep the pane alive until the run ends, to check the bar is cleared.
            let _ = StdCommand::new("tmux")
                .args(["set-option", "-t", &session, "remain-on-exit", "on"])
                .status();
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let after = capture();
    let _ = StdCommand::new("tmux")
        .args(["kill-session", "-t", &session])
        .status();
    let report = std::fs::read_to_string(dir.path().join("out.json")).unwrap_or_default();
    let report: Option<Report> = serde_json::from_str(&report).ok();
    let measured = report.as_ref().is_some_and(|r| r.bench.is_some());
    if !measured {
        skip(format_args!(
            "nothing could be measured here: {:?}",
            report.map(|r| r.notes)
        ));
        return;
    }
    assert!(seen_bar, "a progress bar was drawn on the terminal");
    assert!(!has_bar(&after), "the bar is cleared when done:\n{after}");

    // Piped: stderr is not a terminal, so no bar at all.
    let out = nodecheck()
        .args(["check", "--bench", "quick", "--json"])
        .arg(workdir.path())
        .output()
        .expect("runs");
    let err = stderr(&out);
    assert!(
        !has_bar(&err) && !err.contains('\r'),
        "no bar in a pipe: {err}"
    );
}

#[test]
fn without_a_path_a_client_datadir_is_detected_and_named() {
    let home = tempfile::tempdir().expect("tempdir");
    let datadir = home.path().join(".ethereum");
    std::fs::create_dir(&datadir).expect("mkdir");
    let out = nodecheck()
        .env("HOME", home.path())
        .args(["check", "--bench", "none", "--json"])
        .output()
        .expect("runs");
    let report: Report = json_of(&out);
    let note = report.datadir.expect("the choice is reported");
    assert!(note.detected);
    assert_eq!(note.path, datadir.display().to_string());
    assert_eq!(note.client.as_deref(), Some("geth"));
    assert_eq!(report.facts.path, datadir.display().to_string());
    assert!(
        stderr(&out).contains("geth datadir found"),
        "{}",
        stderr(&out)
    );
    // The detected client's needs apply, in every finding, and the report says why.
    assert_eq!(report.client.requested.as_deref(), Some("geth"));
    assert!(report.client.detected);
    assert!(
        report
            .summary
            .ends_with("[needs of Geth (its datadir was detected)]"),
        "{}",
        report.summary
    );
    for code in ["NC510", "NC511"] {
        for f in report.findings.iter().filter(|f| f.code == code) {
            assert!(
                !f.detail.contains("Reth") && !f.detail.contains("Nethermind"),
                "{code} applies another client's figures: {}",
                f.detail
            );
        }
    }
}

/// With several client datadirs, the one checked is named and so is every other, quoted so
/// that it pastes as PATH.
#[test]
fn the_detect_message_names_the_other_datadir_it_found() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let home = scratch.path().join("operator home");
    let geth = home.join(".ethereum");
    let reth = home.join(".local/share/reth");
    std::fs::create_dir_all(&geth).expect("mkdir");
    std::fs::create_dir_all(&reth).expect("mkdir");
    let out = nodecheck()
        .env("HOME", &home)
        .env_remove("SUDO_USER")
        .args(["check", "--bench", "none", "--json"])
        .output()
        .expect("runs");
    let report: Report = json_of(&out);
    let note = report.datadir.expect("the choice is reported");
    assert_eq!(note.path, geth.display().to_string());
    assert!(
        note.others.contains(&reth.display().to_string()),
        "{:?}",
        note.others
    );
    let err = stderr(&out);
    let quoted = format!("'{}'", reth.display());
    assert!(
        err.contains(&format!(
            "Checking {} (geth datadir found; also found ",
            geth.display()
        )),
        "{err}"
    );
    // Home directories are searched before /var/lib, so ours is the first other one.
    assert!(err.contains(&format!("also found {quoted}")), "{err}");
    assert!(err.contains(": pass it as PATH to check it)"), "{err}");
}

/// How this test process may run the binary as an ordinary user: itself when not root, else
/// `setpriv` down to nobody. `None` says why neither is possible.
fn as_non_root() -> Result<StdCommand, String> {
    let binary = assert_cmd::cargo::cargo_bin("nodecheck");
    if !nix::unistd::geteuid().is_root() {
        return Ok(StdCommand::new(binary));
    }
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or("running as root and no setpriv to drop to nobody")?;
    let mut command = StdCommand::new(setpriv);
    command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(binary)
        .env("HOME", "/nonexistent-home");
    Ok(command)
}

/// Without root the report's first line says so and what root would add, also on a machine
/// whose drives give every fact without root (a virtio disk has no SMART to read).
#[test]
fn without_root_the_first_line_says_what_root_would_add() {
    let mut command = match as_non_root() {
        Ok(command) => command,
        Err(why) => return skip(why),
    };
    let dir = tempfile::tempdir_in("/tmp").expect("tempdir");
    let out = command
        .args(["check", "--bench", "none"])
        .arg(dir.path())
        .output()
        .expect("runs");
    if matches!(out.status.code(), Some(126 | 127)) {
        return skip(format!("nobody cannot run the test binary: {out:?}"));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Not running as root: "),
        "{text}\n{}",
        stderr(&out)
    );
    assert!(
        first.contains("need root; rerun with `sudo nodecheck check ")
            || first.contains("nothing here needed it (root reads NVMe logs, smartctl and device-mapper tables; none were missed)"),
        "{first}"
    );
}

/// A directory this user cannot write: the bench cannot create its lock or test file there,
/// and the message says who can instead of only "Permission denied" (the same command again
/// would fail the same way).
#[test]
fn a_directory_this_user_cannot_write_names_who_can() {
    let scratch = tempfile::tempdir_in("/tmp").expect("tempdir");
    let dir = if nix::unistd::geteuid().is_root() {
        // Root's directory, which nobody (the user the test drops to) can read but not write.
        std::fs::set_permissions(
            scratch.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("chmod");
        scratch.path().to_path_buf()
    } else {
        PathBuf::from("/")
    };
    let mut check = match as_non_root() {
        Ok(command) => command,
        Err(why) => return skip(why),
    };
    let out = check
        .args(["check", "--bench", "quick", "--bench-size", "16M"])
        .args(["--bench-runtime", "1", "--bench-reserve", "0", "--json"])
        .arg(&dir)
        .output()
        .expect("runs");
    if matches!(out.status.code(), Some(126 | 127)) {
        return skip(format!("nobody cannot run the test binary: {out:?}"));
    }
    let report: Report = json_of(&out);
    let note = report
        .notes
        .iter()
        .find(|n| n.starts_with("Measurement skipped: "))
        .unwrap_or_else(|| {
            panic!(
                "{} is writable here, or the bench ran: {:?}",
                dir.display(),
                report.notes
            )
        });
    assert!(note.contains("Permission denied"), "{note}");
    assert!(
        note.ends_with(&format!(
            "the test file goes in {}: run as the datadir's owner or with sudo",
            dir.display()
        )),
        "{note}"
    );

    let mut bench = as_non_root().expect("as before");
    let out = bench
        .args(["bench", "--test", "qd1", "--size", "16M", "--runtime", "1"])
        .args(["--reserve", "0"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let err = stderr(&out);
    let expected = format!(
        "Permission denied (os error 13); the test file goes in {}: run as the directory's owner or with sudo",
        dir.display()
    );
    assert!(err.trim_end().ends_with(&expected), "{err}");
}
