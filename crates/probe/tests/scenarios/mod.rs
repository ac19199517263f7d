//! The probe against every fixture scenario: explicit checks of the facts that matter plus a
//! JSON snapshot of the whole document.

mod drives;
mod hostile;
mod platforms;
mod setups;
mod smartctl;
mod stacks;

use std::path::{Path, PathBuf};

use crate::support::{assert_drive, data_path, only_drive};

use ::probe::fixture::{self, SCENARIOS};
use ::probe::probe_path;
use ::probe::{AccessKind, ATTR_CAP};
use ::probe::{
    AtimeMode, ControllerMode, Drive, Facts, HealthSource, Interface, LayerKind, ModelSource,
    ProbeOptions, Root, SCHEMA_VERSION,
};

/// A scenario's facts, with the fixture directory they were probed from kept alive.
struct Probed {
    _dir: tempfile::TempDir,
    root_dir: PathBuf,
    facts: Facts,
}

impl std::ops::Deref for Probed {
    type Target = Facts;

    fn deref(&self) -> &Facts {
        &self.facts
    }
}

fn run(name: &str) -> Probed {
    let scenario = fixture::scenario_named(name).unwrap_or_else(|| panic!("no scenario {name}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root_dir = dir.path().join("root");
    (scenario.build)(&root_dir).expect("fixture builds");
    let root = Root::at(&root_dir).expect("root").recording();
    let facts = probe_path(
        &root,
        Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .unwrap_or_else(|err| panic!("{name}: probe failed: {err}"));
    let accessed = root.accessed();
    assert!(!accessed.is_empty(), "{name}: recording saw nothing");
    for entry in &accessed {
        // Everything read must exist inside the fixture, as the kind recorded.
        let host = root.host_path(&entry.path);
        let metadata = std::fs::symlink_metadata(&host).unwrap_or_else(|err| {
            panic!("{name}: recorded {} missing: {err}", entry.path.display())
        });
        match entry.kind {
            AccessKind::Symlink { .. } => assert!(metadata.file_type().is_symlink()),
            AccessKind::Dir => assert!(metadata.is_dir()),
            AccessKind::File => assert!(metadata.is_file()),
            AccessKind::Present => {
                assert!(!metadata.is_dir() && !metadata.file_type().is_symlink())
            }
        }
    }
    Probed {
        _dir: dir,
        root_dir,
        facts,
    }
}

/// A scenario with one drive, checked with [`assert_drive`] against what `expected` makes of it.
fn run_one_drive(name: &str, expected: impl FnOnce(Drive) -> Drive) -> Probed {
    let probed = run(name);
    assert_drive(only_drive(&probed), expected);
    probed
}

/// Taken here rather than in each module so every snapshot file is named after this test
/// binary (`scenarios__NAME.snap`), whichever module the scenario's test lives in.
fn snapshot(name: &str, facts: &Facts) {
    let mut facts = facts.clone();
    facts.root = "[fixture]".to_string();
    insta::assert_json_snapshot!(name, facts);
}

/// The probe warned with a message containing `needle`.
fn assert_warning(facts: &Facts, needle: &str) {
    assert!(
        facts.warnings.iter().any(|w| w.contains(needle)),
        "{:?}",
        facts.warnings
    );
}

/// The probe listed `fact` as unavailable.
fn assert_unavailable(facts: &Facts, fact: &str) {
    assert!(
        facts.unavailable.iter().any(|u| u.fact == fact),
        "{fact} not in {:?}",
        facts.unavailable
    );
}

fn drive_named<'a>(facts: &'a Facts, name: &str) -> &'a Drive {
    facts
        .drives
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}
