//! Triage of real `smartctl -j` outputs (crates/probe/tests/data/smartctl, from
//! prometheus-community/smartctl_exporter): the judge must reach the community's verdict on
//! each drive from nothing but the saved report, as `nodecheck triage` does.

use std::path::{Path, PathBuf};

use crate::support::*;
use verdict::Verdict;
use verdict::{Grade, Severity};

/// The verdict on a saved `smartctl -j` report in `dir` (relative to this crate), as
/// `nodecheck triage` gives it.
fn triage_in(dir: &str, file: &str) -> Verdict {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let report = probe::smartctl::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    let facts = report.to_facts(file);
    run(&facts)
}

/// A report from the probe crate's captures.
fn triage(file: &str) -> Verdict {
    triage_in("../probe/tests/data/smartctl", file)
}

#[test]
fn wd_red_hard_disk_is_bad_for_being_rotational() {
    let v = triage("WDC_WD20EFRX-68EUZN0_17.json");
    assert_eq!(v.grade, Grade::Bad, "{:#?}", v.findings);
    assert_finding(&v, "NC105", Severity::Critical, &["5400 rpm"]);
    assert_eq!(v.drives[0].grade, Grade::Bad);
    assert_eq!(entry0(&v).map(|e| e.class.as_str()), Some("hdd"));
}

#[test]
fn kingston_a400_is_a_budget_sata_drive() {
    let v = triage("sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json");
    let f = one(&v, "NC101");
    assert_eq!(f.severity, Severity::Critical, "{f:#?}");
    assert!(f.title.contains("Kingston A400"), "{f:#?}");
    assert!(f.detail.contains("SATA"), "{f:#?}");
    assert!(f.detail.contains("budget class"), "{f:#?}");
    // The general rule by what it says, not by its id.
    assert!(f.detail.contains("most SATA budget drives"), "{f:#?}");
    assert!(!f.detail.contains("sata-budget"), "{f:#?}");
    let entry = entry0(&v).expect("entry");
    assert_eq!(entry.class, "budget");
    assert_eq!(entry.dram.as_deref(), Some("no"));
    assert_eq!(v.grade, Grade::Bad);
}

/// The verdict on a report of a listed data-center drive, checked good and classed by its
/// entry.
fn triage_listed_data_center(file: &str) -> Verdict {
    let v = triage(file);
    assert_eq!(v.grade, Grade::Good, "{file}: {:#?}", v.findings);
    let entry = entry0(&v).expect("entry");
    assert_eq!(entry.class, "data_center", "{file}");
    v
}

#[test]
fn intel_p4510_data_center_nvme_is_good() {
    let v = triage_listed_data_center("INTEL_SSDPE2KX080T8_1.json");
    let entry = entry0(&v).expect("entry");
    assert_eq!(entry.grade, Grade::Good);
    assert!(v.findings.iter().all(|f| f.severity <= Severity::Info));
}

#[test]
fn samsung_pm883_data_center_sata_is_good() {
    let v = triage_listed_data_center("sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json");
    assert_eq!(entry0(&v).map(|e| e.grade), Some(Grade::Good));
    // 1.92 TB holds every client's post-merge database; the one that runs out first does so
    // within a year, which informs (the client was not named) and says why.
    assert_finding(
        &v,
        "NC510",
        Severity::Info,
        &["1.9 TB", "fewer than 12", "No client was named"],
    );
}

#[test]
fn samsung_970_evo_plus_250gb_is_a_good_family_too_small() {
    let v = triage("nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json");
    assert_finding(&v, "NC101", Severity::Ok, &["970 EVO Plus", "good"]);
    assert_finding(
        &v,
        "NC510",
        Severity::Critical,
        &[
            "250 GB",
            "Too small for any client",
            "less than they take today",
        ],
    );
    assert_eq!(v.grade, Grade::Bad);
    assert!(v.failing_client.is_some());
    assert_eq!(entry0(&v).map(|e| e.grade), Some(Grade::Good));
}

#[test]
fn virtio_disk_smartctl_cannot_read_is_judged_unknown_not_good() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../probe/tests/data/smartctl/virtio-vda-unable-to-detect.json");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipped: {} is not present", path.display());
        return;
    };
    match probe::smartctl::parse(&bytes) {
        Ok(report) => {
            let v = run(&report.to_facts("vda"));
            assert_ne!(v.grade, Grade::Good, "{:#?}", v.findings);
        }
        // A report without a device is an error for triage to show, not a verdict.
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Real reports of data-center drives the database has no entry for
/// (crates/verdict/tests/data/smartctl): their part-number scheme classes them, and the list's
/// data-center rule grades them good; never unknown.
fn triage_unlisted(file: &str) -> Verdict {
    triage_in("tests/data/smartctl", file)
}

#[test]
fn unlisted_data_center_drives_are_good_by_their_part_number_class() {
    for (file, class) in [
        (
            "nvme-null-SAMSUNG_MZPLL3T2HAJQ-00005-nvme1.json",
            "samsung-dc-nvme",
        ),
        (
            "nvme-null-Micron_9300_MTFDHAL3T8TDP-nvme0.json",
            "micron-dc",
        ),
        (
            "nvme-null-INTEL_SSDPEDMD400G4-nvme0.json",
            "intel-dc-nvme-mlc",
        ),
        (
            "nvme-null-INTEL_SSDPE2KX020T7-nvme6.json",
            "intel-dc-nvme-tlc",
        ),
    ] {
        let v = triage_unlisted(file);
        let drive = &v.drives[0];
        assert!(drive.entry.is_none(), "{file}: listed? {drive:#?}");
        let summary = drive
            .class
            .as_ref()
            .unwrap_or_else(|| panic!("{file}: no class"));
        assert_eq!(summary.id, class, "{file}");
        assert_eq!(summary.class.as_deref(), Some("data_center"), "{file}");
        assert!(
            summary
                .evidence
                .iter()
                .any(|e| e.contains(&format!("(class `{class}`)"))),
            "{file}: {summary:#?}"
        );
        let rule = one(&v, "NC104");
        assert!(rule.title.contains("data-center"), "{file}: {rule:#?}");
        assert!(rule.detail.contains("Evidence:"), "{file}: {rule:#?}");
        assert_ne!(v.grade, Grade::Unknown, "{file}: {:#?}", v.findings);
        assert_ne!(drive.grade, Grade::Unknown, "{file}");
        // Good, or ugly only for a stated reason (a warning finding about this drive).
        match drive.grade {
            Grade::Good => {}
            Grade::Ugly => assert!(
                v.findings.iter().any(|f| f.severity == Severity::Warning
                    && f.subject.as_deref() == Some(drive.name.as_str())),
                "{file}: ugly without a warning: {:#?}",
                v.findings
            ),
            other => panic!("{file}: graded {other}: {:#?}", v.findings),
        }
    }
}
