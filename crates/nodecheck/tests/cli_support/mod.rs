//! Shared helpers for the binary's end-to-end tests: fixture roots, scratch directories on a
//! real disk, and running the binary (to completion, or as a child to signal and watch).

pub mod process;
pub mod raw_tar;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use assert_cmd::Command;
use probe::fixture::{Scenario, SCENARIOS};

/// Held for its whole run by every test that changes or measures what the binary sees of this
/// machine: a bench (or a `check` or `submit` that measures), `fio`, a large file, a stand-in
/// client process (which makes every bench without `--force` refuse), or a time limit on a
/// live run. libtest runs the tests of the one binary in parallel; these would fill the shared
/// disk together, skew each other's figures and clocks, or refuse each other's benches.
/// The guard protects no data, so a test that failed while holding it poisons nothing.
pub fn machine_lock() -> MutexGuard<'static, ()> {
    static MACHINE: Mutex<()> = Mutex::new(());
    MACHINE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A scratch directory on a disk-backed file system inside the target directory (O_DIRECT
/// needs one, and /tmp may be tmpfs); `prefix` names the test file that made it.
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    test_support::scratch_in(env!("CARGO_TARGET_TMPDIR"), prefix)
}

/// A fixture tree built by the probe crate's generator in a temporary directory.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub scenario: &'static Scenario,
}

impl Fixture {
    pub fn build(scenario: &'static Scenario) -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        (scenario.build)(dir.path()).expect("fixture builds");
        Fixture { dir, scenario }
    }

    pub fn named(name: &str) -> Fixture {
        let scenario = probe::fixture::scenario_named(name)
            .unwrap_or_else(|| panic!("no fixture scenario {name}"));
        Fixture::build(scenario)
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `nodecheck check --root DIR PATH` plus `args`.
    pub fn check(&self, args: &[&str]) -> Output {
        let mut cmd = nodecheck();
        cmd.arg("check")
            .arg("--root")
            .arg(self.root())
            .arg(self.scenario.probe_path)
            .args(args);
        cmd.output().expect("runs")
    }

    /// `nodecheck probe --json --root DIR` plus `args`, then the scenario's path.
    pub fn probe(&self, args: &[&std::ffi::OsStr]) -> Output {
        nodecheck()
            .args(["probe", "--json", "--root"])
            .arg(self.root())
            .args(args)
            .arg(self.scenario.probe_path)
            .output()
            .expect("runs")
    }
}

/// `nodecheck triage FILE` plus `args`.
pub fn triage(file: &Path, args: &[&str]) -> Output {
    nodecheck()
        .arg("triage")
        .arg(file)
        .args(args)
        .output()
        .expect("runs")
}

/// `nodecheck submit --from SAVED`: the result block for a saved JSON report.
pub fn submit_from(saved: &Path) -> Output {
    nodecheck()
        .arg("submit")
        .arg("--from")
        .arg(saved)
        .output()
        .expect("runs")
}

pub fn all_scenarios() -> &'static [Scenario] {
    SCENARIOS
}

/// The environment every run of the binary gets, whatever the developer's terminal, home
/// directory or sudo: no colours, the embedded database, no home to find a datadir in.
pub fn test_env(cmd: &mut StdCommand) -> &mut StdCommand {
    cmd.env("NO_COLOR", "1")
        .env_remove("NODECHECK_DB")
        .env("HOME", "/nonexistent-home")
        .env_remove("SUDO_USER")
}

/// The binary, with an environment that does not depend on the developer's terminal.
pub fn nodecheck() -> Command {
    let mut cmd = StdCommand::cargo_bin("nodecheck").expect("binary built");
    test_env(&mut cmd);
    Command::from_std(cmd)
}

/// What `dir` holds, sorted: the tests check that runs leave nothing behind.
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("listing the scratch dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    list.sort();
    list
}

/// The entries of `dir` (sorted) that `keep` selects: a run's own files among others.
pub fn entries_where(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    entries(dir).into_iter().filter(|p| keep(p)).collect()
}

/// The report's finding `code`; `case` says which report it is when the finding is missing.
pub fn finding<'r>(report: &'r nodecheck::Report, code: &str, case: &str) -> &'r verdict::Finding {
    report
        .findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| {
            let codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
            panic!("{case}: no {code} in {codes:?}")
        })
}

/// Runs the binary with `args` to completion.
pub fn run<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    nodecheck().args(args).output().expect("runs")
}

/// Fails with the run's stderr unless it exited 0.
pub fn assert_succeeded(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
}

/// Runs `cmd` to completion, which must succeed.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("runs");
    assert_succeeded(&out);
    out
}

/// What a run printed as JSON, read as `T`; fails with the run's stderr when it is not.
pub fn json_of<T: serde::de::DeserializeOwned>(out: &Output) -> T {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("not the JSON expected ({e}): {}", stderr(out)))
}

/// The `code` of every object in the JSON array `list` of `doc`, in order.
pub fn codes_in<'d>(doc: &'d serde_json::Value, list: &str) -> Vec<&'d str> {
    doc[list]
        .as_array()
        .unwrap_or_else(|| panic!("no array {list:?} in {doc}"))
        .iter()
        .filter_map(|item| item["code"].as_str())
        .collect()
}

/// Fails unless the number at each of `pointers` (RFC 6901) in `doc` is above zero.
#[track_caller]
pub fn assert_all_positive(doc: &serde_json::Value, pointers: &[&str]) {
    for pointer in pointers {
        assert!(
            doc.pointer(pointer)
                .and_then(serde_json::Value::as_f64)
                .is_some_and(|v| v > 0.0),
            "{pointer} is not above zero in {doc}"
        );
    }
}

/// Fails with the whole `text` unless it contains `needle`.
#[track_caller]
pub fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "{needle:?} not in:\n{text}");
}

/// Fails with the whole `text` if it contains `needle`.
#[track_caller]
pub fn assert_lacks(text: &str, needle: &str) {
    assert!(!text.contains(needle), "{needle:?} in:\n{text}");
}

/// A file `name` holding `contents` in a fresh temporary directory (dropped with the
/// directory).
pub fn written(name: &str, contents: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join(name);
    std::fs::write(&file, contents).expect("write");
    (dir, file)
}

/// Fails with the report's findings unless one finding `code` is as `holds` wants; `case`
/// says which report it is.
#[track_caller]
pub fn assert_has_finding(
    report: &nodecheck::Report,
    code: &str,
    holds: impl Fn(&verdict::Finding) -> bool,
    case: &str,
) {
    assert!(
        report.findings.iter().any(|f| f.code == code && holds(f)),
        "{case}: no {code} as wanted in {:#?}",
        report.findings
    );
}

/// A FIFO named `fifo` in `dir`: opening it for reading would block until a writer comes.
pub fn fifo(dir: &Path) -> PathBuf {
    let path = dir.join("fifo");
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    path
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Replaces what changes from run to run (temporary directories) or with every data update
/// (versions) so snapshots hold only what the test is about.
pub fn stable(text: &str, root: &Path) -> String {
    let root = root.display().to_string();
    let mut out = text.replace(&root, "[ROOT]");
    let version = env!("CARGO_PKG_VERSION");
    out = out.replace(&format!("nodecheck {version}"), "nodecheck [VERSION]");
    out = out.replace(&format!("\"{version}\""), "\"[VERSION]\"");
    let db = nodecheck::embedded_database_version();
    out.replace(db, "[DB]")
}

pub fn smartctl_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../probe/tests/data/smartctl")
        .join(name)
}

/// The most address space any command may use on hostile input.
pub const MEMORY_LIMIT: u64 = 256 << 20;
/// Far more than any of these runs needs; a hang is caught long before a CI timeout.
pub const TIME_LIMIT: Duration = Duration::from_secs(60);

/// How a run under [`run_limited`] ended.
pub struct Limited {
    pub code: Option<i32>,
    pub stderr: String,
    pub stdout: String,
}

/// What a run under [`run_limited`] may put in its `$TMPDIR` (an unpacked snapshot), in bytes
/// on disk and in inodes: a little above the unpack caps, so a run past them is killed.
pub const TMPDIR_BYTES_LIMIT: u64 = 320 << 20;
pub const TMPDIR_INODES_LIMIT: u64 = 60_000;

/// Runs the binary with `args` under `RLIMIT_AS`, [`TIME_LIMIT`] and a `$TMPDIR` of its own
/// bounded by [`TMPDIR_BYTES_LIMIT`] and [`TMPDIR_INODES_LIMIT`] (watched while it runs;
/// exceeding either, or leaving anything in it behind, fails the test).
pub fn run_limited(args: &[&std::ffi::OsStr]) -> Limited {
    let tmpdir = scratch("limited-tmpdir-");
    let mut cmd = StdCommand::new(env!("CARGO_BIN_EXE_nodecheck"));
    test_env(&mut cmd)
        .env("TMPDIR", tmpdir.path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            nix::sys::resource::setrlimit(
                nix::sys::resource::Resource::RLIMIT_AS,
                MEMORY_LIMIT,
                MEMORY_LIMIT,
            )
            .map_err(std::io::Error::from)
        });
    }
    let mut child = cmd.spawn().expect("spawns");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("waits").is_some() {
            break;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} hung for more than {TIME_LIMIT:?}");
        }
        let (bytes, inodes) = disk_usage(tmpdir.path());
        if bytes > TMPDIR_BYTES_LIMIT || inodes > TMPDIR_INODES_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} filled its TMPDIR past the limit: {bytes} bytes, {inodes} inodes");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = entries(tmpdir.path());
    assert!(left.is_empty(), "{args:?} left in its TMPDIR: {left:?}");
    let out = child.wait_with_output().expect("output");
    Limited {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    }
}

/// Bytes on disk (`st_blocks`) and inodes under `dir`, counted until either passes its limit.
fn disk_usage(dir: &Path) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let (mut bytes, mut inodes) = (0u64, 0u64);
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let Ok(listing) = std::fs::read_dir(&next) else {
            continue;
        };
        for entry in listing.flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            inodes += 1;
            bytes += meta.blocks() * 512;
            if bytes > TMPDIR_BYTES_LIMIT || inodes > TMPDIR_INODES_LIMIT {
                return (bytes, inodes);
            }
            if meta.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    (bytes, inodes)
}
