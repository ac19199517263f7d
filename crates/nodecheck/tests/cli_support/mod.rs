//! Shared helpers for the binary's end-to-end tests: fixture roots and running the binary.

#![allow(dead_code)] // each test file uses a different subset

pub mod skip;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use probe::fixture::{Scenario, SCENARIOS};

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
}

pub fn all_scenarios() -> &'static [Scenario] {
    SCENARIOS
}

/// The binary, with an environment that does not depend on the developer's terminal.
pub fn nodecheck() -> Command {
    let mut cmd = Command::cargo_bin("nodecheck").expect("binary built");
    cmd.env("NO_COLOR", "1")
        .env_remove("NODECHECK_DB")
        .env("HOME", "/nonexistent-home")
        .env_remove("SUDO_USER");
    cmd
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
    let db = nodecheck::database::embedded_version();
    out.replace(db, "[DB]")
}

pub fn smartctl_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../probe/tests/data/smartctl")
        .join(name)
}
