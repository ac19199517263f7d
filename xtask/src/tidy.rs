//! Tidy checks: the rules of docs/architecture.md that a reviewer would otherwise have to
//! remember, run as ordinary tests (`cargo test -p xtask`), as rust-analyzer does.
//!
//! Each check reads the source tree as text. A failure names every offending file and line,
//! so one run shows the whole of what needs fixing.

#![cfg(test)]

// The behaviour tests' rules: their I/O, time and devices are the engine's.
mod behaviour;

use std::fs;
use std::path::{Path, PathBuf};

mod test_binaries;

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

/// The `crate::` import graph of one crate, module by module: `src/a/b.rs` (or
/// `src/a/b/mod.rs`) is module `a::b`, `src/lib.rs` and `src/main.rs` the root. Each
/// `crate::x::y::…` path outside comments and `#[cfg(test)]` modules is an edge from the file
/// that writes it to the deepest module it names, and so is each `super::x::…` path (resolved
/// from the writing module). Works on any crate's `src` directory.
fn crate_import_graph(src: &Path) -> std::collections::BTreeMap<String, Vec<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut files = Vec::new();
    collect(src, &mut files);
    let module_of = |path: &Path| -> String {
        let relative = path.strip_prefix(src).unwrap_or(path).with_extension("");
        let mut parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        parts.join("::")
    };
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let path_re =
        regex::Regex::new(r"crate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*|\{)").unwrap();
    let super_re =
        regex::Regex::new(r"\b((?:super::)+)((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*|\{)").unwrap();
    // `a::b` or, for a `{` group, the first segment of every item of the group that follows.
    let named_in = |captured: &str, rest: &str| -> Vec<String> {
        if captured != "{" {
            return vec![captured.to_string()];
        }
        let group = &rest[..rest.find('}').unwrap_or(rest.len())];
        group
            .split(',')
            .filter_map(|item| item.trim().split("::").next())
            .filter(|name| !name.is_empty() && *name != "self")
            .map(str::to_string)
            .collect()
    };
    let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(file);
        let text = fs::read_to_string(file).unwrap_or_default();
        // Unit tests at the end of a file may use anything; they are not the crate's structure.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        let code: String = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut targets = BTreeSet::new();
        let mut named_paths: Vec<String> = Vec::new();
        for found in path_re.captures_iter(&code) {
            let whole = found.get(0).unwrap();
            named_paths.extend(named_in(&found[1], &code[whole.end()..]));
        }
        // `super::x` in module `a::b` names `a::x`; each further `super::` climbs one more.
        for found in super_re.captures_iter(&code) {
            let whole = found.get(0).unwrap();
            let climbs = found[1].matches("super::").count();
            let own: Vec<&str> = from.split("::").filter(|part| !part.is_empty()).collect();
            let base = own[..own.len().saturating_sub(climbs)].join("::");
            for path in named_in(&found[2], &code[whole.end()..]) {
                named_paths.push(if base.is_empty() {
                    path
                } else {
                    format!("{base}::{path}")
                });
            }
        }
        for path in named_paths {
            let segments: Vec<&str> = path.split("::").collect();
            let target = (1..=segments.len())
                .rev()
                .map(|n| segments[..n].join("::"))
                .find(|candidate| modules.contains(candidate));
            if let Some(target) = target {
                // A module using its own insides, or a child its parent, is no knot.
                if target != from && !from.starts_with(&format!("{target}::")) {
                    targets.insert(target);
                }
            }
        }
        graph.entry(from).or_default().extend(targets);
    }
    graph
}

/// The import circles of one crate: every set of modules (more than one) that reach each
/// other through `crate::` paths (Tarjan's strongly connected components), each sorted.
pub(crate) fn import_circles(src: &Path) -> Vec<Vec<String>> {
    use std::collections::BTreeMap;
    let graph = crate_import_graph(src);
    struct Search<'g> {
        graph: &'g BTreeMap<String, Vec<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: std::collections::BTreeSet<&'g str>,
        circles: Vec<Vec<String>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, node: &'g str) {
            let next = self.index.len();
            self.index.insert(node, next);
            self.low.insert(node, next);
            self.stack.push(node);
            self.on_stack.insert(node);
            for target in self.graph.get(node).into_iter().flatten() {
                let target = target.as_str();
                if !self.index.contains_key(target) {
                    self.visit(target);
                    let low = self.low[node].min(self.low[target]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(target) {
                    let low = self.low[node].min(self.index[target]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    component.push(member.to_string());
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.circles.push(component);
                }
            }
        }
    }
    let mut search = Search {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: Default::default(),
        circles: Vec::new(),
    };
    for node in graph.keys() {
        if !search.index.contains_key(node.as_str()) {
            search.visit(node);
        }
    }
    search.circles
}

#[test]
fn the_bench_crate_has_no_import_circle() {
    let circles = import_circles(&workspace_root().join("crates/bench/src"));
    let offenders = circles
        .iter()
        .map(|circle| format!("crates/bench/src: {}", circle.join(" <-> ")))
        .collect();
    assert_none(
        "modules of the bench crate that import each other",
        offenders,
    );
}

/// Import circles that work in progress is untangling, each with its crate and the reason;
/// any other circle fails. Remove an entry as soon as its circle is gone (the test then fails
/// on a stale entry, so the list cannot outlive the knots).
const KNOWN_CIRCLES: [(&str, &str, &str); 0] = [];

/// Every crate of the workspace, xtask included: no two modules import each other, directly
/// or around a longer loop (`crate::` and `super::` paths), so each can be read, tested and
/// moved with what it depends on below it.
#[test]
fn no_crate_has_an_import_circle() {
    let root = workspace_root();
    let mut sources: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|entry| entry.path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    sources.push(root.join("xtask/src"));
    sources.sort();
    let mut found = Vec::new();
    for src in sources {
        let shown = relative(&src);
        for circle in import_circles(&src) {
            found.push((shown.clone(), circle.join(" <-> ")));
        }
    }
    let offenders = found
        .iter()
        .filter(|(src, circle)| {
            !KNOWN_CIRCLES
                .iter()
                .any(|(known_src, known, _)| src == known_src && circle == known)
        })
        .map(|(src, circle)| format!("{src}: {circle}"))
        .collect();
    assert_none("modules that import each other", offenders);
    let stale = KNOWN_CIRCLES
        .iter()
        .filter(|(known_src, known, _)| {
            !found
                .iter()
                .any(|(src, circle)| src == known_src && circle == known)
        })
        .map(|(src, circle, why)| format!("{src}: {circle} ({why})"))
        .collect();
    assert_none(
        "KNOWN_CIRCLES entries whose circle is gone (remove them)",
        stale,
    );
}

/// Glob re-exports that work in progress is replacing by name, each with its library and the
/// reason; any other fails, and so does an entry whose glob is gone.
const KNOWN_GLOB_RE_EXPORTS: [(&str, &str, &str); 0] = [];

/// A library says what it offers by name (`pub use module::{A, B}`), as ripgrep's grep-printer
/// does: a glob re-export (`pub use module::*`) makes every item of a module public under a
/// second name, and a reader can no longer tell the surface from the insides.
#[test]
fn no_library_re_exports_a_glob() {
    let glob = regex::Regex::new(r"^\s*pub(\([a-z]+\))?\s+use\s+[^;]*\*").expect("valid regex");
    let root = workspace_root();
    let mut libraries: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|entry| entry.path().join("src/lib.rs"))
        .filter(|lib| lib.is_file())
        .collect();
    libraries.push(root.join("xtask/src/lib.rs"));
    libraries.sort();
    assert!(libraries.len() >= 5, "libraries found: {libraries:?}");
    let mut found = Vec::new();
    for lib in libraries {
        let text = fs::read_to_string(&lib).expect("lib.rs");
        for line in text.lines() {
            if glob.is_match(line) {
                found.push((relative(&lib), line.trim().to_string()));
            }
        }
    }
    let known = |lib: &str, line: &str| {
        KNOWN_GLOB_RE_EXPORTS
            .iter()
            .any(|(known_lib, known_line, _)| lib == *known_lib && line == *known_line)
    };
    let offenders = found
        .iter()
        .filter(|(lib, line)| !known(lib, line))
        .map(|(lib, line)| format!("{lib}: {line}"))
        .collect();
    assert_none("glob re-exports from a library", offenders);
    let stale = KNOWN_GLOB_RE_EXPORTS
        .iter()
        .filter(|(lib, line, _)| !found.iter().any(|(l, g)| l == lib && g == line))
        .map(|(lib, line, why)| format!("{lib}: {line} ({why})"))
        .collect();
    assert_none(
        "KNOWN_GLOB_RE_EXPORTS entries that are gone (remove them)",
        stale,
    );
}

#[test]
fn the_circle_search_finds_a_circle_and_only_a_circle() {
    let dir = std::env::temp_dir().join(format!("nodecheck-tidy-circles-{}", std::process::id()));
    let src = dir.as_path();
    fs::create_dir_all(src.join("engine")).unwrap();
    fs::write(src.join("lib.rs"), "mod engine;\nmod report;\nmod stats;\n").unwrap();
    fs::write(src.join("engine/mod.rs"), "use crate::report::Kind;\n").unwrap();
    fs::write(
        src.join("report.rs"),
        "use crate::{engine::Engine, stats};\n// crate::nothing\n",
    )
    .unwrap();
    fs::write(
        src.join("stats.rs"),
        "#[cfg(test)]\nmod tests {\n    use crate::report;\n}\n",
    )
    .unwrap();
    assert_eq!(
        import_circles(src),
        vec![vec!["engine".to_string(), "report".to_string()]]
    );
    fs::write(src.join("engine/mod.rs"), "pub enum Kind {}\n").unwrap();
    // `super::` from a child reaches its parent's siblings.
    fs::write(
        src.join("engine/uring.rs"),
        "use super::super::report::Kind;\n",
    )
    .unwrap();
    fs::write(src.join("engine/mod.rs"), "mod uring;\n").unwrap();
    fs::write(src.join("report.rs"), "use crate::engine::uring::Ring;\n").unwrap();
    assert_eq!(
        import_circles(src),
        vec![vec!["engine::uring".to_string(), "report".to_string()]]
    );
    fs::remove_file(src.join("engine/uring.rs")).unwrap();
    let after = import_circles(src);
    let _ = fs::remove_dir_all(&dir);
    assert!(after.is_empty(), "{after:?}");
}

/// Engines only submit and complete (crates/bench/src/engine, fio's ioengine ops): nothing
/// outside the engine module issues, commits or reaps I/O, and no engine reads the clock,
/// because every I/O is timed by the one loop around them (`engine/worker.rs`), so a latency
/// of one engine compares with another's and the mock's figures come from the same accounting.
#[test]
fn io_is_issued_by_engines_only_and_timed_by_the_one_loop() {
    const ISSUING: [&str; 9] = [
        "libc::pread",
        "libc::pwrite",
        "io_uring::",
        "IoUring",
        "submit_and_wait",
        "IoQueue for",
        "dyn IoQueue",
        ".reap(",
        "worker::drive",
    ];
    const CLOCK: [&str; 3] = ["Instant", "SystemTime", "elapsed()"];
    let src = workspace_root().join("crates/bench/src");
    let engine = src.join("engine");
    let mut files = Vec::new();
    collect(&src, &mut files);
    assert!(files.len() > 10, "no bench sources under {}", src.display());
    let mut offenders = Vec::new();
    for file in files {
        let in_engine = file.starts_with(&engine);
        // The loop and its threads own the clock; the queues of the engines do not read it.
        let engine_queue = in_engine
            && !matches!(
                file.file_name().and_then(|name| name.to_str()),
                Some("worker.rs")
            );
        let text = fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for (number, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            let forbidden: &[&str] = if engine_queue {
                &CLOCK
            } else if in_engine {
                &[]
            } else {
                &ISSUING
            };
            if let Some(token) = forbidden.iter().find(|token| line.contains(*token)) {
                offenders.push(format!("{}:{}: {token}", relative(&file), number + 1));
            }
        }
    }
    assert_none(
        "I/O issued outside the engines, or timed by an engine instead of the one loop",
        offenders,
    );
}
