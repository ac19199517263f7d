//! The embedded database, the loader's error messages on bad input, and lookups that must not
//! panic on hostile strings.

mod firmware_classes;
mod loader;
mod lookup;
mod validation;
mod white_label;

use crate::support::db;

use proptest::prelude::*;
use verdict::{
    parse_result_block, Database, DbError, DriveQuery, EntryInterface, ErrorKind, IssueLevel,
    PlatformQuery, Traits, EMBEDDED_CLIENTS, EMBEDDED_DRIVES,
};
use verdict::{Grade, Severity};

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

/// Checks that each case's text is refused with an error that contains the case's words.
fn assert_each_refused(cases: &[(String, &str)], errors: impl Fn(&str) -> Vec<String>) {
    for (text, expected) in cases {
        let found = errors(text);
        assert!(
            found.iter().any(|e| e.contains(expected)),
            "expected `{expected}` in {found:#?}"
        );
    }
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
        assert!(cl.default_database_bytes() >= 100_000_000_000, "{name}");
        assert!(!cl.sources.is_empty(), "{name}");
    }
    assert_eq!(
        db.consensus_client("LIGHTHOUSE").map(|c| c.name.as_str()),
        Some("lighthouse")
    );
    let sizing = db.clients.sizing.as_ref().expect("sizing");
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
            EMBEDDED_CLIENTS.replacen(
                "mode = \"supernode\"\ndisk_bytes = 935_000_000_000",
                "mode = \"supernode\"\ndisk_bytes = 935",
                1,
            ),
            "storage disk_bytes is under 1 GB",
        ),
        (
            EMBEDDED_CLIENTS.replacen(
                "sources = [\"eth-docker-usage-2026\", \"eth-docker-usage-2024\", \"eip-7935\"]",
                "sources = [\"eth-docker-usage-2026\", \"an-unknown-tracker\"]",
                1,
            ),
            "cites unknown source `an-unknown-tracker`",
        ),
        (
            EMBEDDED_CLIENTS.replace(
                "conservative_disk_bytes = 4_000_000_000_000",
                "conservative_disk_bytes = 1_000_000_000_000",
            ),
            "below a client's recommended size",
        ),
    ];
    assert_each_refused(&cases, errors);
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
        assert!(c.recommended_disk_bytes >= 1_000_000_000_000, "{name}");
        assert!(c.figure(c.default_history).is_some(), "{name}");
        assert!(!c.sources.is_empty(), "{name}");
    }
    assert_eq!(
        db.client("Nethermind").map(|c| c.min_read_iops),
        Some(Some(10_000))
    );
    let strictest = db.strictest_client().expect("clients exist");
    assert_eq!(strictest.min_read_iops, Some(10_000));
    assert_eq!(strictest.min_write_iops, Some(10_000));
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
    use verdict::{Class, Dram, EntryInterface, Nand};
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

/// The name a grade, severity or trait is shown by is the word the JSON report and the TOML
/// files use for it, so a reader can grep a pasted report for what the table printed.
#[test]
fn shown_names_are_the_serialized_names() {
    use verdict::{Class, Dram, Nand};
    fn check<T: serde::Serialize>(values: &[T], shown: impl Fn(&T) -> String) {
        for value in values {
            let serialized = serde_json::to_value(value).expect("serializes");
            assert_eq!(serialized.as_str(), Some(shown(value).as_str()));
        }
    }
    use Grade::*;
    check(&[Good, Unknown, Ugly, Bad], |g| format!("{g}"));
    check(&[Good, Unknown, Ugly, Bad], |g| g.as_str().to_owned());
    use Severity::*;
    check(&[Ok, Info, Warning, Critical], |s| format!("{s}"));
    check(&[Ok, Info, Warning, Critical], |s| s.as_str().to_owned());
    use EntryInterface::*;
    check(&[Nvme, Sata, Sas, Usb, Virtio], |i| i.as_str().to_owned());
    check(
        &[Nand::Slc, Nand::Mlc, Nand::Tlc, Nand::Qlc, Nand::Xpoint],
        |n| n.as_str().to_owned(),
    );
    check(&[Dram::Yes, Dram::No, Dram::Hmb], |d| d.as_str().to_owned());
    check(
        &[
            Class::Mainstream,
            Class::Performance,
            Class::Budget,
            Class::DataCenter,
            Class::Portable,
            Class::Cloud,
            Class::Hdd,
        ],
        |c| c.as_str().to_owned(),
    );
}

/// `db-check` fails on size figures older than `max_figure_age_months`, so the data cannot
/// silently rot; the date is the caller's (the library reads no clock).
#[test]
fn size_figures_older_than_the_allowed_age_are_errors() {
    let db = db();
    let max_age = db
        .clients
        .sizing
        .as_ref()
        .expect("sizing")
        .max_figure_age_months;
    let oldest = db
        .clients
        .execution
        .iter()
        .flat_map(|c| c.history.iter().map(|f| f.as_of.clone()))
        .chain(
            db.clients
                .consensus
                .iter()
                .flat_map(|c| c.storage.iter().map(|f| f.as_of.clone())),
        )
        .filter_map(|as_of| verdict::year_month(&as_of))
        .min()
        .expect("dated figures");
    let months = |(y, m): (u32, u32)| y * 12 + m - 1;
    let at = |total: u32| (total / 12, total % 12 + 1);
    // On the last month the oldest figure is allowed, nothing is stale; a month later it is.
    assert!(db.stale_figures(at(months(oldest) + max_age)).is_empty());
    let stale = db.stale_figures(at(months(oldest) + max_age + 1));
    assert!(!stale.is_empty());
    assert!(stale.iter().all(|i| i.level == IssueLevel::Error));
    assert!(
        stale[0].to_string().contains("max_figure_age_months"),
        "{}",
        stale[0]
    );
}
