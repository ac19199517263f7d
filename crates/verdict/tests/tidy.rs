//! Tidy checks on the library's shape: its modules import one another without a circle, and
//! its public surface is a list of names rather than glob re-exports.
//!
//! The graph has one node per source file and an edge wherever a file's non-test code names
//! a path through `crate::` or `super::` (a `use` or a qualified path); the path goes to the
//! file of its longest module prefix. A module's own submodules are part of it, so a parent
//! naming its children is not an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/`, by its path relative to `src/`, with its text up to its
/// first `#[cfg(test)]` (tests may reach anywhere).
fn library_sources() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("source");
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                let rel = path.strip_prefix(root).expect("under src");
                out.insert(rel.to_string_lossy().replace('\\', "/"), code.to_owned());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&src(), &src(), &mut out);
    out
}

/// `findings/mod.rs` -> `["findings"]`, `lib.rs` -> `[]`.
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn import_graph(sources: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeMap<Vec<String>, &String> =
        sources.keys().map(|f| (module_path(f), f)).collect();
    let path = Regex::new(r"\b(crate|super)((?:::[a-z_][a-z0-9_]*)+)").expect("regex");
    let mut graph = BTreeMap::new();
    for (file, code) in sources {
        let here = module_path(file);
        let mut edges = BTreeSet::new();
        for cap in path.captures_iter(code) {
            let mut segments: Vec<String> = match &cap[1] {
                "crate" => Vec::new(),
                _ => here[..here.len().saturating_sub(1)].to_vec(),
            };
            segments.extend(
                cap[2]
                    .trim_start_matches("::")
                    .split("::")
                    .map(str::to_owned),
            );
            let target = (1..=segments.len())
                .rev()
                .find_map(|n| modules.get(&segments[..n]));
            if let Some(target) = target.filter(|t| **t != file) {
                edges.insert((*target).clone());
            }
        }
        graph.insert(file.clone(), edges);
    }
    graph
}

/// A circle through `start`, if the graph has one: the files in order, `start` at both ends.
fn circle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_owned(), vec![start.to_owned()])];
    let mut seen = BTreeSet::new();
    while let Some((node, trail)) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if next == start {
                let mut circle = trail.clone();
                circle.push(start.to_owned());
                return Some(circle);
            }
            if seen.insert(next.clone()) {
                let mut longer = trail.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_module_imports_itself_around_a_circle() {
    let graph = import_graph(&library_sources());
    assert!(graph.contains_key("findings/identity.rs") && graph.contains_key("judge.rs"));
    let circles: Vec<String> = graph
        .keys()
        .filter_map(|file| circle_through(&graph, file))
        .map(|circle| circle.join(" -> "))
        .collect();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// The graph sees what it must: a circle of the kind the crate used to have is found.
#[test]
fn the_import_graph_finds_a_circle() {
    let mut sources = BTreeMap::new();
    sources.insert(
        "judge.rs".to_owned(),
        "use crate::findings::identity::X;".to_owned(),
    );
    sources.insert("findings/mod.rs".to_owned(), "pub mod identity;".to_owned());
    sources.insert(
        "findings/identity.rs".to_owned(),
        "use crate::judge::ClassSummary; use super::clip;".to_owned(),
    );
    let graph = import_graph(&sources);
    assert_eq!(
        circle_through(&graph, "judge.rs"),
        Some(vec![
            "judge.rs".to_owned(),
            "findings/identity.rs".to_owned(),
            "judge.rs".to_owned()
        ])
    );
    assert_eq!(circle_through(&graph, "findings/mod.rs"), None);
}

/// The surface is the list in lib.rs: no `pub use x::*` there or anywhere in the library.
#[test]
fn the_library_re_exports_no_glob() {
    let glob = Regex::new(r"pub(\([a-z]+\))?\s+use\s[^;]*\*").expect("regex");
    for (file, code) in library_sources() {
        if let Some(found) = glob.find(&code) {
            panic!("{file} re-exports a glob: `{}`", found.as_str());
        }
    }
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let public_modules: Vec<&str> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod "))
        .collect();
    // watch keeps a namespace of its own (its judge and Outcome beside the main judge's).
    assert_eq!(public_modules, ["watch;"], "lib.rs's public modules");
}
