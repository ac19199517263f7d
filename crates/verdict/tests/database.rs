//! The embedded database, the loader's error messages on bad input, and lookups that must not
//! panic on hostile strings.

use std::sync::OnceLock;

use proptest::prelude::*;
use verdict::database::{
    parse_result_block, Database, DbError, DriveQuery, EntryInterface, ErrorKind, IssueLevel,
    PlatformQuery, Traits, EMBEDDED_CLIENTS, EMBEDDED_DRIVES,
};
use verdict::{Grade, Severity};

fn db() -> &'static Database {
    static DB: OnceLock<Database> = OnceLock::new();
    DB.get_or_init(|| Database::embedded().expect("embedded database parses"))
}

#[test]
fn embedded_database_loads_and_validates_clean() {
    let db = db();
    assert_eq!(db.schema_version, 1);
    assert!(!db.version.is_empty());
    let issues = db.validate();
    for issue in &issues {
        println!("{issue}");
    }
    assert!(
        issues.is_empty(),
        "the embedded database must validate without errors or warnings: {issues:#?}"
    );
}

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

const MINIMAL: &str = r#"schema_version = 1
version = "test"

[[sources]]
id = "s"
title = "a source"

[[drives]]
id = "samsung-980-pro"
vendor = "Samsung"
family = "980 PRO"
interface = "nvme"
class = "performance"
grade = "good"
notes = "n"
sources = ["s"]
models = ['Samsung SSD 980 PRO \d+[GT]B']
examples = ["Samsung SSD 980 PRO 2TB"]
"#;

fn parse(text: &str) -> Result<Database, DbError> {
    Database::parse(text, "test.toml")
}

fn expect_error(text: &str, kind: ErrorKind, line: usize, column: usize) -> String {
    let err = parse(text).expect_err("must not parse");
    assert_eq!(err.kind(), Some(kind), "{err}");
    assert_eq!(err.position(), Some((line, column)), "{err}");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("test.toml:{line}:{column}: ")),
        "message must start with file:line:col: {msg}"
    );
    assert!(msg.contains("\n  fix: "), "message must carry a fix: {msg}");
    msg
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
fn validation_catches_examples_matching_two_entries_and_bad_order() {
    let text = format!(
        "{MINIMAL}\n[[drives]]\nid = \"aaa-greedy\"\nvendor = \"Aaa\"\nfamily = \"Greedy\"\ninterface = \"nvme\"\nclass = \"budget\"\ngrade = \"bad\"\nnotes = \"n\"\nsources = [\"s\"]\nmodels = ['Samsung SSD .*']\nexamples = [\"Samsung SSD 970 EVO 1TB\"]\n"
    );
    let db = parse(&text).expect("parses; validation finds the problems");
    let issues = db.validate();
    let errors: Vec<String> = issues
        .iter()
        .filter(|i| i.level == IssueLevel::Error)
        .map(|i| i.to_string())
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("also matches entry `aaa-greedy`")),
        "{errors:#?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("out of order")),
        "{errors:#?}"
    );
}

#[test]
fn validation_catches_uncited_entries_and_unknown_sources() {
    let text = MINIMAL.replace("sources = [\"s\"]", "sources = [\"nowhere\"]");
    let issues = parse(&text).expect("parses").validate();
    assert!(
        issues
            .iter()
            .any(|i| i.to_string().contains("unknown source `nowhere`")),
        "{issues:#?}"
    );
    let text = MINIMAL.replace("sources = [\"s\"]", "sources = []");
    let issues = parse(&text).expect("parses").validate();
    assert!(
        issues.iter().any(|i| i.message.contains("has no source")),
        "{issues:#?}"
    );
}

#[test]
fn validation_catches_an_example_that_misses_its_own_entry() {
    let text = MINIMAL.replace(
        "examples = [\"Samsung SSD 980 PRO 2TB\"]",
        "examples = [\"Samsung SSD 980 PRO 2TB\", \"Samsung SSD 980 2TB\"]",
    );
    let issues = parse(&text).expect("parses").validate();
    assert!(
        issues
            .iter()
            .any(|i| i.message.contains("`Samsung SSD 980 2TB` does not match")),
        "{issues:#?}"
    );
}

/// A SATA family with one SMART attribute quirk, to bend per test.
const QUIRKY: &str = r#"
schema_version = 1
version = "t"

[[sources]]
id = "s"
title = "a source"

[[drives]]
id = "crucial-mx500"
vendor = "Crucial"
family = "MX500"
interface = "sata"
class = "mainstream"
grade = "good"
notes = "n"
sources = ["s"]
models = ['CT\d+MX500SSD[14]']
examples = ["CT2000MX500SSD1"]
[[drives.smart_attributes]]
id = "flips"
attribute = 197
name = "Current_Pending_ECC_Cnt"
benign_raw_max = 1
text = "flips between 0 and 1"
sources = ["s"]
"#;

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
        .collect()
}

#[test]
fn smart_attribute_quirks_parse_and_validate() {
    let db = parse(QUIRKY).expect("parses");
    let quirk = db.drives[0].smart_attribute(197).expect("quirk");
    assert_eq!(quirk.name, "Current_Pending_ECC_Cnt");
    assert_eq!(quirk.benign_raw_max, 1);
    assert!(
        quirk_errors(QUIRKY).is_empty(),
        "{:?}",
        quirk_errors(QUIRKY)
    );

    let cases = [
        (
            QUIRKY.replace("attribute = 197", "attribute = 9"),
            "not one nodecheck reads as a bad-sector count",
        ),
        (
            QUIRKY.replace("interface = \"sata\"", "interface = \"nvme\""),
            "only ATA drives report attributes",
        ),
        (
            {
                let quirk_sources = QUIRKY.rfind("sources = [\"s\"]").expect("quirk sources");
                format!(
                    "{}sources = [\"nowhere\"]{}",
                    &QUIRKY[..quirk_sources],
                    &QUIRKY[quirk_sources + "sources = [\"s\"]".len()..]
                )
            },
            "unknown source `nowhere`",
        ),
        (
            QUIRKY.replace("text = \"flips between 0 and 1\"", "text = \" \""),
            "say why",
        ),
        (
            format!(
                "{QUIRKY}[[drives.smart_attributes]]\nid = \"again\"\nattribute = 197\nname = \"X\"\nbenign_raw_max = 0\ntext = \"t\"\nsources = [\"s\"]\n"
            ),
            "more than one quirk",
        ),
        (
            QUIRKY.replace("name = \"Current_Pending_ECC_Cnt\"", "name = \"Current Pending\""),
            "as smartctl prints it",
        ),
    ];
    for (text, expected) in cases {
        let errors = quirk_errors(&text);
        assert!(
            errors.iter().any(|e| e.contains(expected)),
            "expected `{expected}` in {errors:#?}"
        );
    }
    // A quirk id shares the entry's rule namespace and a typo'd key fails to parse.
    let dup = format!(
        "{QUIRKY}[[drives.advisories]]\nid = \"flips\"\nseverity = \"info\"\ntext = \"t\"\n"
    );
    let err = parse(&dup).expect_err("one rule id twice");
    assert_eq!(err.kind(), Some(ErrorKind::DuplicateId), "{err}");
    let typo = QUIRKY.replace("benign_raw_max", "benign_max");
    assert!(parse(&typo).is_err());
}

#[test]
fn samsung_870_evo_early_firmware_is_an_advisory_with_its_fix() {
    let db = db();
    let early = db.lookup(
        &DriveQuery::new("Samsung SSD 870 EVO 2TB")
            .firmware("SVT01B6Q")
            .capacity(2_000_398_934_016),
    );
    assert_eq!(early.grade, Grade::Ugly);
    let advisory = early
        .advisories
        .iter()
        .find(|a| a.code == "samsung-870-evo/svt01b6q")
        .expect("advisory");
    assert!(advisory.text.contains("SVT02B6Q"), "{}", advisory.text);
    assert!(advisory
        .fix
        .as_deref()
        .is_some_and(|f| f.contains("SVT02B6Q")));
    let fixed = db.lookup(&DriveQuery::new("Samsung SSD 870 EVO 2TB").firmware("SVT02B6Q"));
    assert_eq!(fixed.grade, Grade::Good);
    assert!(fixed.advisories.is_empty(), "{:?}", fixed.advisories);
    let entry = db.entry("samsung-870-evo").expect("entry");
    assert!(entry.sources.iter().any(|s| s == "tpu-870-evo-batches"));
}

#[test]
fn consensus_clients_and_sizing_are_present_and_validated() {
    let db = db();
    for name in ["lighthouse", "prysm", "teku", "nimbus", "lodestar"] {
        let cl = db.consensus_client(name).expect(name);
        assert!(cl.database_bytes >= 100_000_000_000, "{name}");
        assert!(!cl.sources.is_empty(), "{name}");
    }
    assert_eq!(
        db.consensus_client("LIGHTHOUSE").map(|c| c.name.as_str()),
        Some("lighthouse")
    );
    let sizing = db.sizing.as_ref().expect("sizing");
    assert_eq!(sizing.conservative_disk_bytes, 4_000_000_000_000);

    let errors = |clients: &str| -> Vec<String> {
        Database::parse_parts(EMBEDDED_DRIVES, "drives.toml", clients, "clients.toml")
            .expect("parses")
            .validate()
            .into_iter()
            .filter(|i| i.level == IssueLevel::Error)
            .map(|i| i.to_string())
            .collect()
    };
    assert!(errors(EMBEDDED_CLIENTS).is_empty());
    let cases = [
        (
            EMBEDDED_CLIENTS.replace("name = \"teku\"", "name = \"Teku Client\""),
            "consensus client `teku` is missing",
        ),
        (
            EMBEDDED_CLIENTS.replace(
                "database_bytes = 200_000_000_000\nnode_disk_bytes = 4_000_000_000_000",
                "database_bytes = 200\nnode_disk_bytes = 4_000_000_000_000",
            ),
            "database_bytes is under 1 GB",
        ),
        (
            EMBEDDED_CLIENTS.replace(
                "conservative_disk_bytes = 4_000_000_000_000",
                "conservative_disk_bytes = 1_000_000_000_000",
            ),
            "below a client's recommended size",
        ),
    ];
    for (text, expected) in cases {
        let found = errors(&text);
        assert!(
            found.iter().any(|e| e.contains(expected)),
            "expected `{expected}` in {found:#?}"
        );
    }
    let no_sizing = EMBEDDED_CLIENTS
        .split("[sizing]")
        .next()
        .expect("text before [sizing]")
        .to_owned();
    assert!(errors(&no_sizing)
        .iter()
        .any(|e| e.contains("no [sizing] table")));
}

#[test]
fn clients_are_all_present_and_strictest_combines_them() {
    let db = db();
    for name in ["geth", "nethermind", "besu", "erigon", "reth"] {
        let c = db.client(name).unwrap_or_else(|| panic!("client {name}"));
        assert!(c.min_disk_bytes >= 1_000_000_000_000, "{name}");
        assert!(c.recommended_disk_bytes >= c.min_disk_bytes, "{name}");
        assert!(!c.sources.is_empty(), "{name}");
    }
    assert_eq!(
        db.client("Nethermind").map(|c| c.min_read_iops),
        Some(Some(10_000))
    );
    let strictest = db.strictest_client().expect("clients exist");
    assert_eq!(strictest.min_read_iops, Some(10_000));
    assert_eq!(strictest.min_write_iops, Some(10_000));
    assert_eq!(strictest.min_disk_bytes, 2_000_000_000_000);
    assert_eq!(strictest.min_free_bytes, 1_200_000_000_000);
    assert!(EMBEDDED_CLIENTS.contains("nethermind-docs"));
}

#[test]
fn generic_rules_follow_the_list() {
    let db = db();
    let ids = |t: Traits| -> Vec<String> {
        db.generic_matches(&t)
            .iter()
            .map(|g| g.id.clone())
            .collect()
    };
    use verdict::database::{Class, Dram, EntryInterface, Nand};
    let qlc_dramless = Traits {
        nand: Some(Nand::Qlc),
        dram: Some(Dram::Hmb),
        ..Traits::default()
    };
    assert!(ids(qlc_dramless).contains(&"qlc-and-dramless".to_string()));
    let sata_budget = Traits {
        interface: Some(EntryInterface::Sata),
        class: Some(Class::Budget),
        ..Traits::default()
    };
    assert_eq!(ids(sata_budget), vec!["sata-budget".to_string()]);
    let hdd = Traits {
        rotational: Some(true),
        ..Traits::default()
    };
    assert_eq!(ids(hdd), vec!["hard-disk".to_string()]);
    let dc = Traits {
        class: Some(Class::DataCenter),
        nand: Some(Nand::Tlc),
        ..Traits::default()
    };
    assert_eq!(ids(dc), vec!["data-center".to_string()]);
    // Unknown traits satisfy no condition.
    assert!(ids(Traits::default()).is_empty());
    let worst = db
        .generic_matches(&qlc_dramless)
        .iter()
        .map(|g| g.grade)
        .max();
    assert_eq!(worst, Some(Grade::Bad));
}

#[test]
fn platform_lookup_recognises_netcup_lines_and_contabo() {
    let db = db();
    let netcup = |bios: &'static str| PlatformQuery {
        sys_vendor: Some("netcup"),
        product_name: Some("KVM Server"),
        bios_version: Some(bios),
        cloud: Some("netcup"),
    };
    let rs = db
        .lookup_platform_query(&netcup("RS 2000 G9"), &[])
        .expect("RS");
    assert_eq!((rs.id.as_str(), rs.grade), ("netcup-rs", Grade::Ugly));
    let vps = db
        .lookup_platform_query(&netcup("VPS 500 G7 SE"), &[])
        .expect("VPS");
    assert_eq!((vps.id.as_str(), vps.grade), ("netcup-vps", Grade::Bad));
    // Without the BIOS version the product line is unknown: no guess.
    let unknown = PlatformQuery {
        bios_version: None,
        ..netcup("")
    };
    assert!(db.lookup_platform_query(&unknown, &[]).is_none());

    let contabo = PlatformQuery {
        cloud: Some("contabo"),
        ..PlatformQuery::default()
    };
    assert_eq!(db.platform_matches(&contabo).len(), 2);
    let worst = db.lookup_platform_query(&contabo, &[]).expect("contabo");
    assert_eq!(
        (worst.id.as_str(), worst.grade),
        ("contabo-vps-ssd", Grade::Bad)
    );

    let netcup_rs = probe::facts::Platform {
        sys_vendor: Some("netcup".into()),
        product_name: Some("KVM Server".into()),
        bios_version: Some("RS 2000 G9".into()),
        cloud: Some("netcup".into()),
        ..probe::facts::Platform::default()
    };
    let found = db
        .lookup_platform(&netcup_rs, &["QEMU HARDDISK"])
        .map(|e| e.id.as_str());
    assert_eq!(found, Some("netcup-rs"));

    let platform = probe::facts::Platform {
        sys_vendor: Some("Amazon EC2".into()),
        product_name: Some("m6i.xlarge".into()),
        cloud: Some("aws".into()),
        ..probe::facts::Platform::default()
    };
    let ebs = db
        .lookup_platform(&platform, &["Amazon Elastic Block Store"])
        .expect("EBS by model");
    assert_eq!(ebs.id, "aws-ebs");
    assert!(db
        .lookup_platform(&platform, &["Samsung SSD 980 PRO 2TB"])
        .is_none());
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
fn lookup_of_unknown_or_empty_model_is_unknown() {
    let db = db();
    for model in [
        "",
        "   ",
        "QEMU HARDDISK",
        "Samsung SSD 980 PRO 2TB but longer",
    ] {
        let l = db.lookup(&DriveQuery::new(model));
        assert!(l.entry.is_none(), "{model}");
        assert_eq!(l.grade, Grade::Unknown);
        assert!(l.advisories.is_empty());
    }
}

#[test]
fn lookup_ignores_padding_and_case() {
    let db = db();
    let padded = db.lookup(&DriveQuery::new("  samsung ssd 980 pro 2tb    \0"));
    assert_eq!(padded.entry.map(|e| e.id.as_str()), Some("samsung-980-pro"));
    let fw = db.lookup(&DriveQuery::new("Samsung SSD 980 PRO 2TB").firmware("3B2QGXA7  "));
    assert_eq!(fw.grade, Grade::Bad);
    assert_eq!(fw.advisories[0].severity, Severity::Critical);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lookup_never_panics(model in any::<String>(), firmware in proptest::option::of(any::<String>()), capacity in proptest::option::of(any::<u64>())) {
        let db = db();
        let q = DriveQuery { model: &model, firmware: firmware.as_deref(), capacity_bytes: capacity, interface: None };
        let l = db.lookup(&q);
        prop_assert!(l.entry.is_some() || l.grade == Grade::Unknown);
    }

    #[test]
    fn lookup_never_panics_on_near_misses(prefix in "[A-Za-z _-]{0,4}", idx in 0usize..4096, suffix in "[A-Za-z0-9 _.-]{0,4}") {
        let db = db();
        let examples: Vec<&String> = db.drives.iter().flat_map(|e| e.examples.iter()).collect();
        let example = examples[idx % examples.len()];
        let model = format!("{prefix}{example}{suffix}");
        let l = db.lookup(&DriveQuery::new(&model).firmware(&suffix));
        // A near miss matches at most one entry, like the examples themselves.
        prop_assert!(db.entries_matching(&model).len() <= 1);
        prop_assert!(l.entry.is_some() || l.grade == Grade::Unknown);
    }

    #[test]
    fn names_people_type_never_panic_and_stay_bounded(text in any::<String>()) {
        let db = db();
        let by_family = db.entries_by_family_name(&text);
        prop_assert!(by_family.len() <= db.drives.len());
        prop_assert!(db.nearest_families(&text, 5).len() <= 5);
        let cut = db.prefix_candidates(&text);
        prop_assert!(cut.entries.iter().all(|e| e.interface != EntryInterface::Nvme));
        for entry in by_family {
            let l = db.lookup_entry(entry, &DriveQuery::new(&text));
            prop_assert!(l.entry.is_some() && l.grade != Grade::Unknown);
        }
    }

    #[test]
    fn parse_never_panics(text in any::<String>()) {
        let _ = Database::parse(&text, "fuzz.toml");
    }
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

#[test]
fn validation_rejects_an_entry_graded_unknown() {
    let text = MINIMAL.replace("grade = \"good\"", "grade = \"unknown\"");
    let issues = parse(&text).expect("parses").validate();
    assert!(
        issues
            .iter()
            .any(|i| i.message.contains("must be good, ugly or bad")),
        "{issues:#?}"
    );
}
