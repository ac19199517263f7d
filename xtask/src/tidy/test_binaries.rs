//! Each crate's integration tests are one test binary, `tests/tests.rs` (ripgrep's layout):
//! cargo links every file directly under `tests/` as a binary of its own, relinking the crate
//! and its dependencies for each, and helpers shared through `mod x;` in many binaries end up
//! under `#![allow(dead_code)]` or included by `#[path = "../…"]`, since each binary uses a
//! different part of them.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::{assert_none, collect, relative, workspace_root};

/// The one integration-test target every crate with a `tests/` directory declares.
const TESTS_ROOT: &str = "tests/tests.rs";

/// The `.rs` files that `file`'s `mod name;` declarations (outside comments) bring in, as rustc
/// finds them: `name.rs` or `name/mod.rs` beside a `tests.rs`/`mod.rs`/`main.rs`, else in the
/// directory named after the file.
fn declared_modules(file: &Path) -> Vec<PathBuf> {
    let declaration =
        regex::Regex::new(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
            .expect("valid regex");
    let text = fs::read_to_string(file).unwrap_or_default();
    let parent = file.parent().unwrap_or(Path::new("."));
    let dir = match file.file_stem().and_then(|stem| stem.to_str()) {
        Some("tests" | "mod" | "main") => parent.to_path_buf(),
        Some(stem) => parent.join(stem),
        None => parent.to_path_buf(),
    };
    text.lines()
        .filter_map(|line| declaration.captures(line))
        .filter_map(|found| {
            let name = &found[1];
            [
                dir.join(format!("{name}.rs")),
                dir.join(name).join("mod.rs"),
            ]
            .into_iter()
            .find(|candidate| candidate.is_file())
        })
        .collect()
}

/// Every file reached from `root` through `mod` declarations, `root` included.
fn module_tree(root: &Path) -> BTreeSet<PathBuf> {
    let mut reached = BTreeSet::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(file) = pending.pop() {
        if reached.insert(file.clone()) {
            pending.extend(declared_modules(&file));
        }
    }
    reached
}

/// The problems of one crate's test layout, each a line naming the file.
fn layout_problems(krate: &Path) -> Vec<String> {
    let tests = krate.join("tests");
    let shown = relative(krate);
    let mut problems = Vec::new();
    let manifest = fs::read_to_string(krate.join("Cargo.toml")).unwrap_or_default();
    let manifest: toml::Value = match manifest.parse() {
        Ok(manifest) => manifest,
        Err(err) => return vec![format!("{shown}/Cargo.toml: {err}")],
    };
    let autotests = manifest
        .get("package")
        .and_then(|package| package.get("autotests"))
        .and_then(toml::Value::as_bool);
    if autotests != Some(false) {
        problems.push(format!(
            "{shown}/Cargo.toml: no `autotests = false`, so each file in tests/ is a binary"
        ));
    }
    let targets: Vec<&str> = manifest
        .get("test")
        .and_then(toml::Value::as_array)
        .map(|targets| {
            targets
                .iter()
                .map(|target| {
                    target
                        .get("path")
                        .and_then(toml::Value::as_str)
                        .unwrap_or("(no path)")
                })
                .collect()
        })
        .unwrap_or_default();
    if targets != [TESTS_ROOT] {
        problems.push(format!(
            "{shown}/Cargo.toml: test targets {targets:?}, expected only [{TESTS_ROOT:?}]"
        ));
    }
    let reached = module_tree(&krate.join(TESTS_ROOT));
    let mut sources = Vec::new();
    collect(&tests, &mut sources);
    sources.sort();
    for source in sources {
        if !reached.contains(&source) {
            problems.push(format!(
                "{}: not a module of {shown}/{TESTS_ROOT}, so never compiled",
                relative(&source)
            ));
        }
        let text = fs::read_to_string(&source).unwrap_or_default();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.starts_with("#[path") {
                problems.push(format!("{}:{}: {line}", relative(&source), number + 1));
            }
        }
    }
    problems
}

/// Every crate with a `tests/` directory builds it as one binary: its manifest turns cargo's
/// discovery off (`autotests = false`) and declares only `tests/tests.rs`, every `.rs` file
/// under `tests/` is a module of it (a file that is not would silently never run), and no
/// test file includes another by `#[path]`: shared helpers are modules of the one binary, or
/// the dev-only `crates/test-support` crate.
#[test]
fn each_crate_has_one_integration_test_binary() {
    let crates = workspace_root().join("crates");
    let mut checked = Vec::new();
    let mut offenders = Vec::new();
    for entry in fs::read_dir(&crates).expect("crates/").flatten() {
        let krate = entry.path();
        if krate.join("tests").is_dir() {
            checked.push(relative(&krate));
            offenders.extend(layout_problems(&krate));
        }
    }
    checked.sort();
    for expected in ["bench", "nodecheck", "probe", "verdict"] {
        assert!(
            checked.contains(&format!("crates/{expected}")),
            "crates/{expected}/tests not found among {checked:?}"
        );
    }
    assert_none(
        "integration tests that are not one binary per crate",
        offenders,
    );
}

#[test]
fn a_second_binary_or_an_orphan_test_file_is_found() {
    let dir = std::env::temp_dir().join(format!(
        "nodecheck-tidy-test-binaries-{}",
        std::process::id()
    ));
    let krate = dir.join("demo");
    fs::create_dir_all(krate.join("tests/support")).unwrap();
    fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"demo\"\nautotests = false\n\n[[test]]\nname = \"integration\"\npath = \"tests/tests.rs\"\n",
    )
    .unwrap();
    fs::write(krate.join("tests/tests.rs"), "mod support;\nmod cli;\n").unwrap();
    fs::write(krate.join("tests/cli.rs"), "use crate::support::run;\n").unwrap();
    fs::write(krate.join("tests/support/mod.rs"), "pub mod process;\n").unwrap();
    fs::write(krate.join("tests/support/process.rs"), "").unwrap();
    let clean = layout_problems(&krate);
    fs::write(
        krate.join("tests/orphan.rs"),
        "#[path = \"../support/mod.rs\"]\nmod support;\n",
    )
    .unwrap();
    fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"demo\"\n\n[[test]]\nname = \"integration\"\npath = \"tests/tests.rs\"\n\n[[test]]\nname = \"orphan\"\npath = \"tests/orphan.rs\"\n",
    )
    .unwrap();
    let problems = layout_problems(&krate);
    let _ = fs::remove_dir_all(&dir);
    assert!(clean.is_empty(), "{clean:?}");
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].contains("autotests"), "{problems:#?}");
    assert!(problems[1].contains("tests/orphan.rs"), "{problems:#?}");
    assert!(
        problems[2].contains("orphan.rs: not a module"),
        "{problems:#?}"
    );
    assert!(problems[3].contains("#[path"), "{problems:#?}");
}
