//! Who the drive is, end to end: model strings cut to the SCSI INQUIRY product, and
//! per-family SMART attribute quirks.

mod cli_support;

use cli_support::{stderr, stdout, Fixture};
use nodecheck::report::Report;

fn report(fixture: &Fixture, args: &[&str]) -> (Option<i32>, Report) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = fixture.check(&all);
    let report = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("not a report ({e}): {}", stderr(&out)));
    (out.status.code(), report)
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
    assert!(fix.contains("--smartctl-json sdb.json"), "{fix}");
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
