//! The bench's behaviour tests (crates/bench/src/behaviour) run on the one I/O path like every
//! other test: no file I/O, clock or thread of their own, and no simulated drive beside the
//! mock engine.

use std::fs;

use super::{assert_none, collect, relative, rust_sources, workspace_root};

/// The behaviour tests' I/O goes through the bench's engine (crates/bench/src/engine), like
/// every other test's: none of their files opens, reads, writes or syncs a file itself, reads a
/// clock or runs a thread of its own (their time is the engine's, real or the mock's virtual
/// one, and their jobs run on the engine's workers).
#[test]
fn behaviour_tests_do_no_file_io_outside_the_engine() {
    const FILE_IO: [&str; 10] = [
        "std::fs",
        "std::os::unix::fs",
        "FileExt",
        "OpenOptions",
        "read_exact_at",
        "write_all_at",
        "libc::",
        "nix::",
        "File::",
        "fdatasync(",
    ];
    const OWN_TIME: [&str; 6] = [
        "Instant",
        "SystemTime",
        "elapsed()",
        "thread::spawn",
        "thread::Builder",
        "mpsc",
    ];
    let dir = workspace_root().join("crates/bench/src/behaviour");
    let mut files = Vec::new();
    collect(&dir, &mut files);
    assert!(
        !files.is_empty(),
        "no behaviour sources under {}",
        dir.display()
    );
    let mut offenders = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if let Some(token) = FILE_IO.iter().chain(&OWN_TIME).find(|t| line.contains(*t)) {
                offenders.push(format!("{}:{}: {token}", relative(&file), number + 1));
            }
        }
    }
    assert_none(
        "file I/O, a clock or a thread in the behaviour tests outside the engine",
        offenders,
    );
}

/// The simulated drives of the behaviour tests are the mock engine with a drive model, not a
/// second simulation beside it: a `BehaviourDevice` only hands the tests an engine and a target
/// (no method of its own that reads, writes or keeps time), and only the real test file
/// (`behaviour/file.rs`) and the mock engine's drives (`behaviour/models.rs`) are devices.
#[test]
fn behaviour_devices_are_an_engine_and_a_target() {
    let behaviour = workspace_root().join("crates/bench/src/behaviour");
    let declared = fs::read_to_string(behaviour.join("mod.rs")).unwrap();
    let methods = device_trait_methods(&declared);
    assert_eq!(
        methods,
        ["size", "engine", "target"],
        "BehaviourDevice may only hand out its size, an engine and a target"
    );
    let allowed = [behaviour.join("file.rs"), behaviour.join("models.rs")];
    // Split so that this file does not match itself.
    let implementation = concat!("impl Behaviour", "Device for");
    let offenders: Vec<String> = rust_sources()
        .into_iter()
        .filter(|path| !allowed.contains(path))
        .filter(|path| {
            fs::read_to_string(path)
                .map(|text| text.contains(implementation))
                .unwrap_or(false)
        })
        .map(|path| relative(&path))
        .collect();
    assert_none(
        "a BehaviourDevice outside the real test file and the mock engine's drives",
        offenders,
    );
}

/// The methods `pub trait BehaviourDevice` declares in `source`, in order.
fn device_trait_methods(source: &str) -> Vec<String> {
    let Some(start) = source.find("pub trait BehaviourDevice {") else {
        return Vec::new();
    };
    let body = &source[start..];
    let end = body.find("\n}").unwrap_or(body.len());
    body[..end]
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("fn "))
        .filter_map(|rest| rest.split(['(', '<']).next())
        .map(str::to_string)
        .collect()
}

#[test]
fn device_trait_methods_are_read_from_the_declaration() {
    let old = "pub trait BehaviourDevice {\n    fn engine(&self) -> EngineKind;\n    \
               fn read_qd1(&mut self, offset: u64) -> Result<Duration, E>;\n}\nfn other() {}\n";
    assert_eq!(device_trait_methods(old), ["engine", "read_qd1"]);
    assert!(device_trait_methods("trait Other {}").is_empty());
}
