//! Who the drive is, end to end: model strings cut to the SCSI INQUIRY product, and
//! per-family SMART attribute quirks.

use crate::cli_support::{assert_contains, finding, json_of, stdout, triage, written, Fixture};
use nodecheck::Report;

fn report(fixture: &Fixture, args: &[&str]) -> (Option<i32>, Report) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = fixture.check(&all);
    (out.status.code(), json_of(&out))
}

#[test]
fn a_cut_short_model_names_every_family_it_could_be_and_how_to_tell() {
    let fixture = Fixture::named("usb_sata_bridge_cut_model");
    let (code, report) = report(&fixture, &[]);
    let drive = &report.facts.drives[0];
    assert_eq!(drive.name, "sdb");
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 870"));
    assert_eq!(drive.model_source, Some(probe::ModelSource::ScsiInquiry));

    let cut: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.code == "NC109")
        .collect();
    assert_eq!(cut.len(), 1, "{:#?}", report.findings);
    let finding = cut[0];
    assert_eq!(finding.subject.as_deref(), Some("sdb"));
    assert!(
        finding
            .title
            .contains("Samsung 870 EVO (good) or Samsung 870 QVO (ugly)"),
        "{}",
        finding.title
    );
    assert!(
        finding.detail.contains("SCSI INQUIRY"),
        "{}",
        finding.detail
    );
    let fix = finding.fix.as_deref().expect("fix");
    assert!(fix.contains("sudo smartctl -d sat -i /dev/sdb"), "{fix}");
    assert!(fix.contains("sdb.json"), "{fix}");
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.code == "NC103" && f.subject.as_deref() == Some("sdb")),
        "a cut-short name is not an unlisted drive: {:#?}",
        report.findings
    );
    assert_eq!(
        finding.severity,
        verdict::Severity::Info,
        "EVO and QVO grade differently, so the name alone grades nothing"
    );
    let graded = report
        .drives
        .iter()
        .find(|d| d.drive == "sdb")
        .expect("sdb");
    assert!(graded.family.is_none(), "{graded:?}");
    assert_ne!(report.grade.as_str(), "good");
    assert_eq!(code, Some(1));

    let table = stdout(&fixture.check(&[]));
    assert!(table.contains("Samsung 870 QVO (ugly)"), "{table}");
}

/// A saved `check --json` report of the MX500 fixture whose drive's health log reads
/// `reallocated`, `pending` and `uncorrectable` sectors, triaged as a volunteer would.
fn triage_mx500(reallocated: u64, pending: u64, uncorrectable: u64) -> (Option<i32>, Report) {
    let fixture = Fixture::named("sata_ahci");
    let out = fixture.check(&["--json"]);
    let mut saved: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("report");
    assert_eq!(saved["facts"]["drives"][0]["model"], "CT2000MX500SSD1");
    let health = probe::Health {
        source: "smartctl".into(),
        passed: Some(true),
        power_on_hours: Some(14_212),
        reallocated_sectors: Some(reallocated),
        pending_sectors: Some(pending),
        uncorrectable_sectors: Some(uncorrectable),
        ..probe::Health::default()
    };
    saved["facts"]["drives"][0]["health"] = serde_json::to_value(health).expect("health");
    let (_dir, file) = written("report.json", saved.to_string());
    let out = triage(&file, &["--json"]);
    (out.status.code(), json_of(&out))
}

#[test]
fn mx500_attribute_197_at_1_alone_is_explained_not_graded_bad() {
    let (code, report) = triage_mx500(0, 1, 0);
    let codes: Vec<&str> = report.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(!codes.contains(&"NC206"), "{codes:?}");
    let quirk = finding(&report, "NC208", "197 at 1 alone");
    assert_eq!(quirk.severity, verdict::Severity::Info);
    assert_contains(&quirk.detail, "ticket #1227");
    assert_contains(&quirk.detail, "[crucial-mx500/pending-ecc-flips]");
    let (healthy_code, healthy) = triage_mx500(0, 0, 0);
    assert_eq!(
        report.grade, healthy.grade,
        "the flip changes nothing: {codes:?}"
    );
    assert_eq!(code, healthy_code);
    assert_ne!(report.grade.as_str(), "bad");

    let (code, report) = triage_mx500(3, 1, 0);
    let bad = finding(&report, "NC206", "with reallocated sectors too");
    assert_contains(&bad.detail, "1 pending");
    assert_eq!(report.grade.as_str(), "bad");
    assert_eq!(code, Some(2));
}
