//! Validation of a parsed database: ambiguous or uncited entries, smart-attribute quirks.

use super::*;

#[test]
fn validation_catches_examples_matching_two_entries_and_bad_order() {
    let text = format!(
        "{MINIMAL}\n[[drives]]\nid = \"aaa-greedy\"\nvendor = \"Aaa\"\nfamily = \"Greedy\"\ninterface = \"nvme\"\nclass = \"budget\"\ngrade = \"bad\"\nnotes = \"n\"\nsources = [\"s\"]\nmodels = ['Samsung SSD .*']\nexamples = [\"Samsung SSD 970 EVO 1TB\"]\n"
    );
    let cases = [
        (text.clone(), "also matches entry `aaa-greedy`"),
        (text, "out of order"),
    ];
    assert_each_refused(&cases, |text| issues(text, IssueLevel::Error));
}

/// The issues of `level` or worse that `validate` finds in the drives file `text`.
fn issues(text: &str, level: IssueLevel) -> Vec<String> {
    let db = parse(text).expect("parses; validation finds the problems");
    (db.validate().iter())
        .filter(|i| i.level >= level)
        .map(|i| i.to_string())
        .collect()
}

/// Every issue, warnings too.
fn all_issues(text: &str) -> Vec<String> {
    issues(text, IssueLevel::Warning)
}

#[test]
fn validation_catches_uncited_entries_and_unknown_sources() {
    let cases = [
        (
            MINIMAL.replace("sources = [\"s\"]", "sources = [\"nowhere\"]"),
            "unknown source `nowhere`",
        ),
        (
            MINIMAL.replace("sources = [\"s\"]", "sources = []"),
            "has no source",
        ),
    ];
    assert_each_refused(&cases, all_issues);
}

#[test]
fn validation_catches_an_example_that_misses_its_own_entry() {
    let text = MINIMAL.replace(
        "examples = [\"Samsung SSD 980 PRO 2TB\"]",
        "examples = [\"Samsung SSD 980 PRO 2TB\", \"Samsung SSD 980 2TB\"]",
    );
    assert_each_refused(
        &[(text, "`Samsung SSD 980 2TB` does not match")],
        all_issues,
    );
}

/// One SMART attribute quirk, for a SATA family.
const QUIRK: &str = r#"[[drives.smart_attributes]]
id = "flips"
attribute = 197
name = "Current_Pending_ECC_Cnt"
benign_raw_max = 1
text = "flips between 0 and 1"
sources = ["s"]
"#;

/// The minimal file's family as a SATA drive with [`QUIRK`], to bend per test.
fn quirky() -> String {
    let sata = MINIMAL.replace("interface = \"nvme\"", "interface = \"sata\"");
    format!("{sata}{QUIRK}")
}

/// Errors about the drive entries of `text`. The embedded classes come along with any drives
/// file and cite the shipped file's sources, which a minimal test file does not carry.
fn quirk_errors(text: &str) -> Vec<String> {
    let db = parse(text).expect("parses");
    let class_prefixes: Vec<String> = db
        .classes
        .iter()
        .map(|class| format!("error: {}: ", class.id))
        .collect();
    db.validate()
        .into_iter()
        .filter(|i| i.level == IssueLevel::Error)
        .map(|i| i.to_string())
        .filter(|line| !class_prefixes.iter().any(|p| line.starts_with(p)))
        // Controllers, like classes, cite the shipped file's sources.
        .filter(|line| !line.starts_with("error: controller "))
        .collect()
}

#[test]
fn smart_attribute_quirks_parse_and_validate() {
    let quirky = quirky();
    let db = parse(&quirky).expect("parses");
    let quirk = db.drives[0].smart_attribute(197).expect("quirk");
    assert_eq!(quirk.name, "Current_Pending_ECC_Cnt");
    assert_eq!(quirk.benign_raw_max, 1);
    assert!(
        quirk_errors(&quirky).is_empty(),
        "{:?}",
        quirk_errors(&quirky)
    );

    let cases = [
        (
            quirky.replace("attribute = 197", "attribute = 9"),
            "not one nodecheck reads as a bad-sector count",
        ),
        (
            quirky.replace("interface = \"sata\"", "interface = \"nvme\""),
            "only ATA drives report attributes",
        ),
        (
            {
                let quirk_sources = quirky.rfind("sources = [\"s\"]").expect("quirk sources");
                format!(
                    "{}sources = [\"nowhere\"]{}",
                    &quirky[..quirk_sources],
                    &quirky[quirk_sources + "sources = [\"s\"]".len()..]
                )
            },
            "unknown source `nowhere`",
        ),
        (
            quirky.replace("text = \"flips between 0 and 1\"", "text = \" \""),
            "say why",
        ),
        (
            format!(
                "{quirky}[[drives.smart_attributes]]\nid = \"again\"\nattribute = 197\nname = \"X\"\nbenign_raw_max = 0\ntext = \"t\"\nsources = [\"s\"]\n"
            ),
            "more than one quirk",
        ),
        (
            quirky.replace("name = \"Current_Pending_ECC_Cnt\"", "name = \"Current Pending\""),
            "as smartctl prints it",
        ),
    ];
    assert_each_refused(&cases, quirk_errors);
    // A quirk id shares the entry's rule namespace and a typo'd key fails to parse.
    let dup = format!(
        "{quirky}[[drives.advisories]]\nid = \"flips\"\nseverity = \"info\"\ntext = \"t\"\n"
    );
    let err = parse(&dup).expect_err("one rule id twice");
    assert_eq!(err.kind(), Some(ErrorKind::DuplicateId), "{err}");
    let typo = quirky.replace("benign_raw_max", "benign_max");
    assert!(parse(&typo).is_err());
}

#[test]
fn validation_rejects_an_entry_graded_unknown() {
    let text = MINIMAL.replace("grade = \"good\"", "grade = \"unknown\"");
    assert_each_refused(&[(text, "must be good, ugly or bad")], all_issues);
}
