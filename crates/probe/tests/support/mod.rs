//! Shared helpers for the probe crate's integration tests: the saved captures under
//! `tests/data/`, fixture scenarios built into temporary trees, and the `SKIPPED` line for a
//! test this machine cannot run.

use std::path::{Path, PathBuf};

use probe::fixture::Scenario;
use probe::{Drive, Facts};

/// A saved capture: `tests/data/<kind>/<name>` (`ata`, `smartctl`, `qemu`, ...).
pub fn data_path(kind: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(kind)
        .join(name)
}

/// The bytes of a saved capture (see [`data_path`]).
pub fn read_data(kind: &str, name: &str) -> Vec<u8> {
    let path = data_path(kind, name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// `scenario`'s tree, built in a fresh temporary directory that lives as long as the result.
pub fn build_scenario(scenario: &Scenario) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    (scenario.build)(dir.path()).expect("builds");
    dir
}

/// Printable ASCII of at most `max` bytes without leading or trailing spaces: the text of a
/// fixed-width identity field (model, serial, firmware) as it survives the parser's trim.
pub fn ascii_field(max: usize) -> impl proptest::strategy::Strategy<Value = String> {
    proptest::string::string_regex(&format!(
        "([!-~]([ -~]{{0,{}}}[!-~])?)?",
        max.saturating_sub(2)
    ))
    .expect("valid regex")
}

/// The one drive the probe found under the path.
pub fn only_drive(facts: &Facts) -> &Drive {
    assert_eq!(facts.drives.len(), 1, "drives: {:?}", facts.drives);
    &facts.drives[0]
}

/// `drive` compared in one assertion with what `expected` makes of it: the fields it sets must
/// hold those values, and every field it leaves as it was is not checked.
pub fn assert_drive(drive: &Drive, expected: impl FnOnce(Drive) -> Drive) {
    assert_eq!(*drive, expected(drive.clone()), "{}", drive.name);
}
