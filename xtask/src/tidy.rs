//! Tidy checks: the rules of docs/architecture.md that a reviewer would otherwise have to
//! remember, run as ordinary tests (`cargo test -p xtask`), as rust-analyzer does.
//!
//! Each check reads the source tree as text. A failure names every offending file and line,
//! so one run shows the whole of what needs fixing.

#![cfg(test)]

use std::fs;
use std::path::{Path, PathBuf};

/// A source file longer than this mixes several things; split it by what each part models.
const MAX_SOURCE_LINES: usize = 600;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// Every Rust source of the workspace's crates and of xtask, test data excluded.
fn rust_sources() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut found = Vec::new();
    for top in ["crates", "xtask/src"] {
        collect(&root.join(top), &mut found);
    }
    found.sort();
    found
}

fn collect(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            // Captured trees from real machines and kernels are data, not source.
            if path.ends_with("tests/data") || path.file_name() == Some("target".as_ref()) {
                continue;
            }
            collect(&path, found);
        } else if path.extension() == Some("rs".as_ref()) {
            found.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(workspace_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn assert_none(what: &str, offenders: Vec<String>) {
    assert!(
        offenders.is_empty(),
        "{what}:\n  {}",
        offenders.join("\n  ")
    );
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let offenders = rust_sources()
        .into_iter()
        .filter_map(|path| {
            let lines = fs::read_to_string(&path).ok()?.lines().count();
            (lines > MAX_SOURCE_LINES).then(|| format!("{} ({lines} lines)", relative(&path)))
        })
        .collect();
    assert_none(
        &format!("files over {MAX_SOURCE_LINES} lines (split them by what each part models)"),
        offenders,
    );
}

/// Comments explain why the code is as it is; who asked for it and when belongs in git
/// history, where it cannot go stale.
#[test]
fn comments_do_not_narrate_history() {
    let narration = regex::Regex::new(r"(?i)^\s*//.*(\b(issue|ticket) #?\d+\b|engineer's)")
        .expect("valid regex");
    let mut offenders = Vec::new();
    for path in rust_sources() {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            // Upstream tickets (smartmontools, kernel) are sources, not history.
            if narration.is_match(line) && !line.contains("smartmontools") {
                offenders.push(format!(
                    "{}:{}: {}",
                    relative(&path),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert_none("comments that narrate history", offenders);
}

/// The libraries report errors as types (thiserror) and return data; the binary owns
/// `anyhow`, the terminal and every drawing library.
#[test]
fn libraries_keep_to_data() {
    const BINARY_ONLY: [&str; 6] = [
        "anyhow",
        "clap",
        "comfy-table",
        "indicatif",
        "plotters",
        "resvg",
    ];
    let root = workspace_root();
    let mut offenders = Vec::new();
    for library in ["units", "probe", "bench", "verdict"] {
        let manifest = root.join("crates").join(library).join("Cargo.toml");
        let text = fs::read_to_string(&manifest).expect("library manifest");
        let manifest: toml::Value = text.parse().expect("valid Cargo.toml");
        let Some(dependencies) = manifest.get("dependencies").and_then(|d| d.as_table()) else {
            continue;
        };
        for name in BINARY_ONLY {
            if dependencies.contains_key(name) {
                offenders.push(format!("crates/{library} depends on {name}"));
            }
        }
    }
    assert_none("libraries with binary-only dependencies", offenders);
}

/// Only the binary installs signal handlers: it alone knows whether a command is cleaning up
/// (the bench library is cancelled through its `CancelToken`).
#[test]
fn only_the_binary_handles_signals() {
    let mut offenders = Vec::new();
    for path in rust_sources() {
        let shown = relative(&path);
        if !shown.starts_with("crates/") || shown.starts_with("crates/nodecheck/") {
            continue;
        }
        if shown.contains("/tests/") {
            continue;
        }
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if line.contains("signal_hook") || line.contains("sigaction(") {
                offenders.push(format!("{shown}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert_none("signal handling outside the binary", offenders);
}
