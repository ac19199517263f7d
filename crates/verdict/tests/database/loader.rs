//! Loading database files: what parses, and the error messages that point at bad input.

use super::*;

#[test]
fn load_reads_a_drives_file_and_falls_back_to_embedded_clients() {
    let dir = std::env::temp_dir().join(format!("nodecheck-db-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("drives.toml");
    std::fs::write(&path, EMBEDDED_DRIVES).expect("write copy");
    let loaded = Database::load(&path).expect("copy of the embedded file loads");
    assert_eq!(loaded.drives.len(), db().drives.len());
    assert!(loaded.client("nethermind").is_some());
    assert_eq!(loaded.origin, path.display().to_string());
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn load_of_a_missing_file_names_the_path() {
    let err = Database::load(std::path::Path::new("/nonexistent/nodecheck/drives.toml"))
        .expect_err("missing file");
    assert!(matches!(err, DbError::Io { .. }));
    assert!(
        err.to_string()
            .contains("/nonexistent/nodecheck/drives.toml"),
        "{err}"
    );
}

#[test]
fn minimal_file_parses() {
    let db = parse(MINIMAL).expect("minimal file parses");
    assert_eq!(db.drives.len(), 1);
    assert_eq!(
        db.lookup(&DriveQuery::new("Samsung SSD 980 PRO 1TB")).grade,
        Grade::Good
    );
}

/// A broken file fails with the error's kind at the line and column of the fault, in a message
/// that starts with `file:line:column:`, says what is wrong and carries a fix.
#[test]
fn load_errors_point_at_the_fault() {
    struct Case {
        name: &'static str,
        text: String,
        kind: ErrorKind,
        at: (usize, usize),
        says: &'static [&'static str],
    }
    let second_entry = MINIMAL
        .split_once("[[drives]]")
        .map(|(_, entry)| format!("\n[[drives]]{entry}"))
        .expect("template has an entry");
    let rule = "[[drives.advisories]]\nid = \"a\"\nseverity = \"info\"\ntext = \"t\"\n";
    let cases = [
        Case {
            name: "syntax error",
            text: MINIMAL.replace("family = \"980 PRO\"", "family = \"980 PRO"),
            kind: ErrorKind::Syntax,
            // Column 18 is the end of the line, where the string should have been closed.
            at: (11, 18),
            says: &["TOML syntax"],
        },
        Case {
            name: "unknown field points at the key and says to remove it",
            text: MINIMAL.replace("notes = \"n\"", "notes = \"n\"\ncolour = \"red\""),
            kind: ErrorKind::UnknownField,
            at: (16, 1),
            says: &["colour", "remove the key"],
        },
        Case {
            name: "unknown enum value",
            text: MINIMAL.replace("grade = \"good\"", "grade = \"great\""),
            kind: ErrorKind::BadValue,
            at: (14, 9),
            says: &["great"],
        },
        Case {
            name: "bad regex quotes the pattern and the reason",
            text: MINIMAL.replace(
                r"models = ['Samsung SSD 980 PRO \d+[GT]B']",
                "models = ['Samsung SSD (980 PRO']",
            ),
            kind: ErrorKind::BadRegex,
            at: (17, 11),
            says: &["unclosed group", "Samsung SSD (980 PRO"],
        },
        Case {
            name: "bad firmware regex points at the firmware pattern",
            text: format!("{MINIMAL}[[drives.firmware]]\nid = \"x\"\nmatch = '3B2Q[GXA7'\nseverity = \"info\"\ntext = \"t\"\n"),
            kind: ErrorKind::BadRegex,
            at: (21, 9),
            says: &[],
        },
        Case {
            name: "duplicate entry id names both places",
            text: format!("{MINIMAL}{second_entry}"),
            kind: ErrorKind::DuplicateId,
            at: (21, 6),
            says: &["already used at line 9, column 6"],
        },
        Case {
            name: "duplicate rule id within an entry",
            text: format!("{MINIMAL}{rule}{rule}"),
            kind: ErrorKind::DuplicateId,
            at: (24, 6),
            says: &["already used at line 20, column 6"],
        },
        Case {
            name: "wrong schema version",
            text: MINIMAL.replace("schema_version = 1", "schema_version = 2"),
            kind: ErrorKind::SchemaVersion,
            at: (1, 18),
            says: &["schema_version = 2"],
        },
    ];
    for case in &cases {
        let name = case.name;
        let err = parse(&case.text).expect_err(name);
        assert_eq!(err.kind(), Some(case.kind), "{name}: {err}");
        assert_eq!(err.position(), Some(case.at), "{name}: {err}");
        let msg = err.to_string();
        let (line, column) = case.at;
        assert!(
            msg.starts_with(&format!("test.toml:{line}:{column}: ")),
            "{name}: message must start with file:line:col: {msg}"
        );
        assert!(
            msg.contains("; fix: ") && !msg.contains('\n'),
            "{name}: message must carry a fix: {msg}"
        );
        for words in case.says {
            assert!(msg.contains(words), "{name}: {msg}");
        }
    }
}

#[test]
fn missing_field_is_reported() {
    let text = MINIMAL.replace("grade = \"good\"\n", "");
    let err = parse(&text).expect_err("grade is required");
    assert_eq!(err.kind(), Some(ErrorKind::MissingField), "{err}");
    assert!(err.to_string().contains("grade"), "{err}");
}

#[test]
fn truncated_and_binary_files_fail_cleanly() {
    for cut in [1, 10, 40, 120, 200, MINIMAL.len() - 3] {
        // Any prefix either parses (it may end between tables) or fails with a position.
        if let Err(e) = parse(&MINIMAL[..cut]) {
            assert!(e.position().is_some(), "{e}");
        }
    }
    let err = parse("\u{0}\u{1}\u{2}garbage[[[").expect_err("binary junk");
    assert!(err.position().is_some());
}

#[test]
fn result_block_parses_and_rejects_unknown_keys() {
    let block = r#"
[[drives.results]]
model = "Samsung SSD 980 PRO 2TB"
firmware = "5B2QGXA7"
capacity_bytes = 2000398934016
interface = "nvme"
read_iops = 171000
write_iops = 57000
qd1_read_p50_us = 61.0
qd1_read_p99_us = 95.5
qd1_read_p999_us = 180.0
engine = "io_uring"
span_bytes = 161061273600
nodecheck_version = "0.1.0"
date = "2026-11-30"
benchmark = "nodecheck-randrw"
"#;
    let results = parse_result_block(block, "block.toml").expect("valid block");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].read_iops, 171_000);
    assert_eq!(results[0].qd1_read_p99_us, Some(95.5));
    let bad = block.replace("engine = \"io_uring\"", "engin = \"io_uring\"");
    let err = parse_result_block(&bad, "block.toml").expect_err("typo");
    assert_eq!(err.kind(), Some(ErrorKind::UnknownField));
    assert_eq!(err.position(), Some((12, 1)));
}

/// A result from nodecheck without its context (file system, stack, link, VM, temperature,
/// span, engine, reads of data) is refused; one with it passes; a result from a source needs
/// none.
#[test]
fn a_nodecheck_result_needs_its_context() {
    use verdict::result_context_problems;
    let bare = r#"
[[drives.results]]
model = "Samsung SSD 980 PRO 2TB"
read_iops = 171000
write_iops = 57000
nodecheck_version = "0.1.0"
benchmark = "nodecheck-randrw"
"#;
    let results = parse_result_block(bare, "block.toml").expect("parses");
    let problems = result_context_problems(&results[0]);
    assert!(
        problems.iter().any(|p| p.contains("no `context`")),
        "{problems:?}"
    );

    let context = r#"
[drives.results.context]
file_system = "ext4"
stack = ["nvme0n1p1", "nvme0n1"]
pcie_link = "16.0 GT/s x4 of 16.0 GT/s x4"
virtualized = false
cloud = "none"
peak_temperature_c = 52.0
qd1_span_bytes = 1073741824
qd1_engine = "io_uring"
reads_hit_data = true
"#;
    let full = format!("{bare}{context}");
    let results = parse_result_block(&full, "block.toml").expect("parses");
    assert_eq!(result_context_problems(&results[0]), Vec::<String>::new());

    let cold = full.replace("peak_temperature_c = 52.0\n", "");
    let problems = result_context_problems(&parse_result_block(&cold, "b").expect("parses")[0]);
    assert!(
        problems.iter().any(|p| p.contains("peak_temperature_c")),
        "{problems:?}"
    );
    let unwritten = full.replace("reads_hit_data = true", "reads_hit_data = false");
    let problems =
        result_context_problems(&parse_result_block(&unwritten, "b").expect("parses")[0]);
    assert!(
        problems.iter().any(|p| p.contains("never-written")),
        "{problems:?}"
    );
    let missing_key = full.replace("cloud = \"none\"\n", "");
    assert!(
        parse_result_block(&missing_key, "b").is_err(),
        "every key is required"
    );

    let sourced = bare.replace("nodecheck_version = \"0.1.0\"", "source = \"x\"");
    let results = parse_result_block(&sourced, "block.toml").expect("parses");
    assert!(result_context_problems(&results[0]).is_empty());
}

#[test]
fn clients_file_errors_name_the_clients_file() {
    let clients = EMBEDDED_CLIENTS.replace("min_read_iops = 10000", "min_read_iopz = 10000");
    let err = Database::parse_parts(MINIMAL, "drives.toml", &clients, "clients.toml")
        .expect_err("typo in clients");
    assert_eq!(err.kind(), Some(ErrorKind::UnknownField), "{err}");
    assert!(err.to_string().starts_with("clients.toml:"), "{err}");

    // The same source id with a different definition in both files is ambiguous.
    let clash = EMBEDDED_CLIENTS.replacen("id = \"geth-docs\"", "id = \"s\"", 1);
    let err = Database::parse_parts(MINIMAL, "drives.toml", &clash, "clients.toml")
        .expect_err("source clash");
    assert_eq!(err.kind(), Some(ErrorKind::DuplicateId), "{err}");
    let line = EMBEDDED_CLIENTS
        .lines()
        .position(|l| l == "id = \"geth-docs\"")
        .expect("geth-docs source")
        + 1;
    assert_eq!(err.position(), Some((line, 6)), "{err}");
}
