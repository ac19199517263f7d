//! `db lookup` answers like `triage` for every drive of the report corpus, and every family
//! name `db list` prints is one `db lookup` finds.

use std::path::PathBuf;

use crate::cli_support::{json_of, run, stdout, triage};
use serde_json::{json, Value};
use verdict::corpus::{parse_corpus, CorpusRow, Expect, Kind, RowKind};

fn report_rows() -> Vec<CorpusRow> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/corpus");
    let mut rows = Vec::new();
    for dir in [root.clone(), root.join("sample")] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("corpus dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("readable");
            let name = f.display().to_string();
            rows.extend(
                parse_corpus(&text, &name)
                    .expect("corpus parses")
                    .into_iter()
                    .filter(|r| r.row_kind == RowKind::Report),
            );
        }
    }
    rows
}

/// The smartctl JSON a report row stands for: only the fields the report printed.
fn smartctl_json(row: &CorpusRow) -> Value {
    let nvme = row.kind == Kind::Nvme;
    let mut doc = json!({
        "json_format_version": [1, 0],
        "smartctl": {"version": [7, 4], "exit_status": 0},
        "device": {
            "name": if nvme { "/dev/nvme0" } else { "/dev/sda" },
            "type": if nvme { "nvme" } else { "sat" },
            "protocol": if nvme { "NVMe" } else { "ATA" },
        },
        "model_name": row.model,
    });
    if let Some(fw) = &row.firmware {
        doc["firmware_version"] = json!(fw);
    }
    if let Some(bytes) = row.capacity_bytes {
        doc["user_capacity"] = json!({"bytes": bytes});
    }
    if let Some(family) = &row.model_family {
        doc["model_family"] = json!(family);
    }
    if let Some(vendor) = row.pci_vendor {
        doc["nvme_pci_vendor"] =
            json!({"id": vendor, "subsystem_id": row.pci_subsystem.unwrap_or(vendor)});
    }
    if !nvme {
        doc["rotation_rate"] = json!(if row.kind == Kind::Hdd { 7200 } else { 0 });
    }
    doc
}

fn lookup_grade(row: &CorpusRow) -> String {
    let mut args = bare_lookup_args(row);
    if let Some(bytes) = row.capacity_bytes {
        args.extend(["--capacity".into(), bytes.to_string()]);
    }
    match row.pci_vendor {
        Some(vendor) => args.extend(["--pci-id".into(), format!("{vendor:04x}")]),
        None => args.extend(["--interface".into(), "sata".into()]),
    }
    if let Some(family) = &row.model_family {
        args.extend(["--model-family".into(), family.clone()]);
    }
    grade_of(&args)
}

/// What a user types who knows only the model string and the firmware.
fn bare_lookup_args(row: &CorpusRow) -> Vec<String> {
    let mut args: Vec<String> = vec!["db".into(), "lookup".into(), row.model.clone()];
    if let Some(fw) = &row.firmware {
        args.extend(["--firmware".into(), fw.clone()]);
    }
    args
}

fn grade_of(args: &[String]) -> String {
    let doc: Value = json_of(&run(args.iter().map(String::as_str).chain(["--json"])));
    doc["grade"].as_str().expect("grade").to_owned()
}

#[test]
fn db_lookup_and_triage_give_the_same_grade_for_every_report_row() {
    let rows = report_rows();
    assert!(!rows.is_empty(), "no report rows in data/corpus");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut disagree = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let path = dir.path().join(format!("row{i}.json"));
        std::fs::write(&path, smartctl_json(row).to_string()).expect("written");
        let report: Value = json_of(&triage(&path, &["--json"]));
        let triaged = report["drives"][0]["database_grade"]
            .as_str()
            .unwrap_or("?")
            .to_owned();
        let looked_up = lookup_grade(row);
        if triaged != looked_up {
            disagree.push(format!(
                "{}:{} `{}`: triage {triaged}, db lookup {looked_up}",
                row.origin, row.line, row.model
            ));
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
}

#[test]
fn every_family_db_list_prints_is_found_by_db_lookup() {
    let listing: Value = json_of(&run(["db", "list", "--json"]));
    assert_eq!(listing["schema_version"], 1, "{listing}");
    let table = stdout(&run(["db", "list"]));
    assert!(!table.contains('…'), "db list cuts a name:\n{table}");
    let entries = listing["entries"].as_array().expect("entries");
    assert!(entries.len() > 50);
    let flat: String = table.split_whitespace().collect::<Vec<_>>().join(" ");
    for e in entries {
        let family = e["family"].as_str().expect("family");
        let id = e["id"].as_str().expect("id");
        // The table wraps long names over lines of its cell: every word is printed, in order.
        let words: Vec<&str> = family.split_whitespace().collect();
        let mut rest = flat.as_str();
        for w in &words {
            let at = rest
                .find(w)
                .unwrap_or_else(|| panic!("db list does not print `{w}` of `{family}`"));
            rest = &rest[at + w.len()..];
        }
        let doc: Value = json_of(&run(["db", "lookup", family, "--json"]));
        assert_eq!(doc["schema_version"], 1);
        let found = doc["entry"]["id"].as_str().map(str::to_owned).or_else(|| {
            doc["candidates"]
                .as_array()
                .filter(|c| c.iter().any(|c| c["id"] == id))
                .map(|_| id.to_owned())
        });
        assert_eq!(found.as_deref(), Some(id), "db lookup '{family}': {doc}");
    }
}

#[test]
fn a_lookup_without_the_firmware_a_class_needs_says_which_class_and_how_to_give_it() {
    let db = verdict::Database::embedded().expect("embedded database");
    let classes: Vec<_> = db
        .classes
        .iter()
        .filter(|c| !c.firmware_examples.is_empty())
        .collect();
    assert!(
        !classes.is_empty(),
        "no class asks for a firmware scheme any more: this test has nothing to check"
    );
    for class in classes {
        for model in &class.examples {
            let doc: Value = json_of(&run(["db", "lookup", model, "--json"]));
            let named: Vec<&str> = doc["firmware_classes"]
                .as_array()
                .expect("firmware_classes")
                .iter()
                .filter_map(|c| c["id"].as_str())
                .collect();
            assert!(
                named.contains(&class.id.as_str()),
                "db lookup '{model}' without firmware does not name `{}`: {doc}",
                class.id
            );
            if doc["grade"] == "unknown" {
                let text = stdout(&run(["db", "lookup", model]));
                assert!(
                    text.contains(&format!("(`{}`)", class.id))
                        && text.contains(&format!("nodecheck db lookup '{model}' --firmware")),
                    "db lookup '{model}' does not point at --firmware:\n{text}"
                );
            }
            let firmware = &class.firmware_examples[0];
            let doc: Value = json_of(&run([
                "db",
                "lookup",
                model,
                "--firmware",
                firmware,
                "--json",
            ]));
            assert_eq!(
                doc["firmware_classes"],
                json!([]),
                "db lookup '{model}' --firmware {firmware}: {doc}"
            );
            assert_ne!(doc["grade"], "unknown", "{model} {firmware}: {doc}");
        }
    }
}

#[test]
fn a_reported_string_nothing_grades_points_at_measuring_the_drive() {
    let unknown: Vec<CorpusRow> = report_rows()
        .into_iter()
        .filter(|r| r.expect == Expect::Nothing && r.kind == Kind::Ssd)
        .take(5)
        .collect();
    assert!(
        !unknown.is_empty(),
        "every SATA report row grades: this test has nothing to check"
    );
    for row in unknown {
        let mut args = bare_lookup_args(&row);
        args.extend(["--interface".to_owned(), "sata".to_owned()]);
        let text = stdout(&run(&args));
        assert!(
            text.contains(": unknown.") && text.contains("nodecheck check --bench full"),
            "{}:{} db lookup '{}' does not say how to measure the drive:\n{text}",
            row.origin,
            row.line,
            row.model
        );
    }
}

/// Classes are tied to an interface, and part-number schemes can share a prefix across
/// interfaces (SK hynix `HFS` on SATA and PCIe parts). A lookup that is not told the interface
/// may know less, but must never borrow a grade from the other interface's class.
#[test]
fn a_lookup_without_the_interface_never_grades_a_drive_otherwise() {
    let mut borrowed = Vec::new();
    for row in report_rows() {
        let bare = grade_of(&bare_lookup_args(&row));
        if bare == "unknown" {
            continue;
        }
        let full = lookup_grade(&row);
        if bare != full {
            borrowed.push(format!(
                "{}:{} `{}`: without the interface {bare}, with it {full}",
                row.origin, row.line, row.model
            ));
        }
    }
    assert!(borrowed.is_empty(), "{}", borrowed.join("\n"));
}
