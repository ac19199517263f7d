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

#[test]
fn syntax_error_points_at_the_line_and_column() {
    let text = MINIMAL.replace("family = \"980 PRO\"", "family = \"980 PRO");
    // Column 18 is the end of the line, where the string should have been closed.
    let msg = expect_error(&text, ErrorKind::Syntax, 11, 18);
    assert!(msg.contains("TOML syntax"), "{msg}");
}

#[test]
fn unknown_field_points_at_the_key_and_says_to_remove_it() {
    let text = MINIMAL.replace("notes = \"n\"", "notes = \"n\"\ncolour = \"red\"");
    let msg = expect_error(&text, ErrorKind::UnknownField, 16, 1);
    assert!(msg.contains("colour"), "{msg}");
    assert!(msg.contains("remove the key"), "{msg}");
}

#[test]
fn unknown_enum_value_is_a_bad_value() {
    let text = MINIMAL.replace("grade = \"good\"", "grade = \"great\"");
    let msg = expect_error(&text, ErrorKind::BadValue, 14, 9);
    assert!(msg.contains("great"), "{msg}");
}

#[test]
fn bad_regex_points_at_the_pattern_and_quotes_the_reason() {
    let text = MINIMAL.replace(
        r"models = ['Samsung SSD 980 PRO \d+[GT]B']",
        "models = ['Samsung SSD (980 PRO']",
    );
    let msg = expect_error(&text, ErrorKind::BadRegex, 17, 11);
    assert!(msg.contains("unclosed group"), "{msg}");
    assert!(msg.contains("Samsung SSD (980 PRO"), "{msg}");
}

#[test]
fn bad_firmware_regex_points_at_the_firmware_pattern() {
    let text = format!("{MINIMAL}[[drives.firmware]]\nid = \"x\"\nmatch = '3B2Q[GXA7'\nseverity = \"info\"\ntext = \"t\"\n");
    expect_error(&text, ErrorKind::BadRegex, 21, 9);
}

#[test]
fn duplicate_id_names_both_places() {
    let second = MINIMAL
        .split_once("[[drives]]")
        .map(|(_, entry)| format!("\n[[drives]]{entry}"))
        .expect("template has an entry");
    let text = format!("{MINIMAL}{second}");
    let msg = expect_error(&text, ErrorKind::DuplicateId, 21, 6);
    assert!(msg.contains("already used at line 9, column 6"), "{msg}");
}

#[test]
fn duplicate_rule_id_within_an_entry_is_rejected() {
    let rule = "[[drives.advisories]]\nid = \"a\"\nseverity = \"info\"\ntext = \"t\"\n";
    let text = format!("{MINIMAL}{rule}{rule}");
    let msg = expect_error(&text, ErrorKind::DuplicateId, 24, 6);
    assert!(msg.contains("already used at line 20, column 6"), "{msg}");
}

#[test]
fn wrong_schema_version_is_rejected_with_its_position() {
    let text = MINIMAL.replace("schema_version = 1", "schema_version = 2");
    let msg = expect_error(&text, ErrorKind::SchemaVersion, 1, 18);
    assert!(msg.contains("schema_version = 2"), "{msg}");
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
