//! The probe owns every read of the machine (it goes through `probe::Root`, so snapshots record
//! it and fixtures stand in for it): the bench's sources name no `/sys` or `/proc` path.

use std::fs;
use std::path::{Path, PathBuf};

/// Kernel file systems the bench must learn about through the probe.
const MACHINE_TREES: [&str; 2] = ["/sys", "/proc"];

#[test]
fn the_bench_names_no_sys_or_proc_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 5,
        "the bench's sources were not found under {src:?}"
    );
    let mut found = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("a readable source file");
        for (number, line) in text.lines().enumerate() {
            if let Some(path) = machine_path_literal(line) {
                found.push(format!("{}:{}: {path}", file.display(), number + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "read these through the probe instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_literals_and_ignores_prose() {
    assert_eq!(
        machine_path_literal(r#"let p = "/proc/self/mountinfo";"#),
        Some("/proc")
    );
    assert_eq!(machine_path_literal(r#"Path::new("/sys")"#), Some("/sys"));
    assert_eq!(
        machine_path_literal(r#"format!("/sys/dev/block/{major}:{minor}")"#),
        Some("/sys")
    );
    assert_eq!(
        machine_path_literal("/// read from /proc/irq by the probe"),
        None
    );
    assert_eq!(machine_path_literal(r#"let p = "/system/x";"#), None);
}

/// The machine tree a string literal on `line` starts with, if any: a quote, then `/sys` or
/// `/proc` ending the literal or followed by `/`.
fn machine_path_literal(line: &str) -> Option<&'static str> {
    MACHINE_TREES.into_iter().find(|tree| {
        line.match_indices(&format!("\"{tree}"))
            .any(|(at, matched)| {
                matches!(line[at + matched.len()..].chars().next(), Some('/' | '"'))
            })
    })
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a readable source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}
