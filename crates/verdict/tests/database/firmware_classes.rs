//! A class can require a firmware scheme: the drive's reported firmware revision then decides
//! together with the model string, and the finding names the firmware.

use crate::support::db;

use verdict::{ClassQuery, EntryInterface, Grade};

/// One class with a firmware scheme (Phison's `EDFM` names the DRAM-less PS5013-E13T) behind a
/// model pattern every white-label string matches, and the TLC the test pins on it.
const FIRMWARE_CLASS: &str = r#"schema_version = 1

[[classes]]
id = "test-phison-e13t"
label = "Test: Phison E13T by firmware"
models = ['SSD \d+GB']
firmware = ['EDFM[0-9A-Z]{2}\.[0-9A-Z]']
firmware_examples = ["EDFM00.7"]
controllers = ["Phison"]
interface = "nvme"
class = "budget"
nand = "tlc"
dram = "hmb"
evidence = "Phison firmware EDFM is the PS5013-E13T, a DRAM-less controller"
sources = ["linux-hardware"]
examples = ["SSD 512GB"]
"#;

fn test_db() -> verdict::Database {
    db().clone()
        .with_classes(FIRMWARE_CLASS, "test-classes.toml")
        .expect("the test classes parse")
}

fn query<'a>(model: &'a str, firmware: Option<&'a str>) -> ClassQuery<'a> {
    ClassQuery {
        model,
        interface: Some(EntryInterface::Nvme),
        controller: Some("Phison"),
        firmware,
        ..ClassQuery::default()
    }
}

#[test]
fn a_firmware_scheme_decides_only_with_a_matching_reported_revision() {
    let db = test_db();
    let graded = db.grade_unlisted(&query("SSD 512GB", Some(" EDFM00.7 ")));
    let class = graded.classification.as_ref().expect("classified");
    assert_eq!(class.id(), "test-phison-e13t");
    assert_eq!(graded.grade, Grade::Ugly);
    let evidence: Vec<&str> = class.evidence.iter().map(|e| e.text.as_str()).collect();
    assert!(
        evidence.iter().any(|e| e.contains("Firmware: EDFM00.7.")),
        "the finding names the firmware: {evidence:?}"
    );
    // Case-insensitive, whole string.
    let lower = db.classify(&query("SSD 512GB", Some("edfm00.7")));
    assert_eq!(
        lower.map(|c| c.id().to_owned()).as_deref(),
        Some("test-phison-e13t")
    );
    for firmware in [
        None,
        Some(""),
        Some("ECFM13.1"),
        Some("XEDFM00.7"),
        Some("EDFM00.7X"),
    ] {
        let got = db.classify(&query("SSD 512GB", firmware));
        assert!(
            got.is_none(),
            "firmware {firmware:?} must not satisfy the scheme: {got:?}"
        );
    }
    // The model pattern still has to match, and so does the controller maker.
    assert!(db
        .classify(&query("Other 512GB", Some("EDFM00.7")))
        .is_none());
    let other_maker = ClassQuery {
        controller: Some("Silicon Motion"),
        ..query("SSD 512GB", Some("EDFM00.7"))
    };
    assert!(db.classify(&other_maker).is_none());
}

#[test]
fn db_check_wants_firmware_examples_that_match_the_scheme() {
    let check = |classes: &str| -> Vec<String> {
        let db = db()
            .clone()
            .with_classes(classes, "test-classes.toml")
            .expect("parses");
        db.validate()
            .into_iter()
            .map(|i| i.to_string())
            .filter(|i| i.contains("test-phison-e13t"))
            .collect()
    };
    assert!(
        check(FIRMWARE_CLASS).is_empty(),
        "{:?}",
        check(FIRMWARE_CLASS)
    );
    let none = FIRMWARE_CLASS.replace("firmware_examples = [\"EDFM00.7\"]\n", "");
    assert!(
        check(&none)
            .iter()
            .any(|i| i.contains("no `firmware_examples`")),
        "{:?}",
        check(&none)
    );
    let wrong = FIRMWARE_CLASS.replace("[\"EDFM00.7\"]", "[\"ECFM13.1\"]");
    let issues = check(&wrong);
    assert!(
        issues.iter().any(|i| i.contains("`ECFM13.1` matches none")),
        "{issues:?}"
    );
    let empty = FIRMWARE_CLASS.replace(
        "firmware = ['EDFM[0-9A-Z]{2}\\.[0-9A-Z]']",
        "firmware = ['E?']",
    );
    assert!(
        check(&empty)
            .iter()
            .any(|i| i.contains("matches the empty string")),
        "{:?}",
        check(&empty)
    );
    let bad = FIRMWARE_CLASS.replace(
        "firmware = ['EDFM[0-9A-Z]{2}\\.[0-9A-Z]']",
        "firmware = ['EDFM(']",
    );
    let err = db()
        .clone()
        .with_classes(&bad, "test-classes.toml")
        .expect_err("a bad regex is refused");
    assert!(err.to_string().contains("firmware pattern"), "{err}");
}
