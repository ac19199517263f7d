//! `nodecheck triage` on the real smartctl outputs in the probe's test data, and on saved
//! reports, the way a support volunteer uses it.

use std::path::Path;

use crate::cli_support::{assert_has_finding, json_of, smartctl_fixture, stderr, stdout, written};
use nodecheck::Report;
use verdict::Severity;

/// `nodecheck triage PATH --json` plus `extra`: the report and the exit code.
fn triage_path(path: &Path, extra: &[&str]) -> (Report, Option<i32>) {
    let out = crate::cli_support::triage(path, &[&["--json"], extra].concat());
    (json_of(&out), out.status.code())
}

/// [`triage_path`] on one of the probe's saved smartctl outputs.
fn triage(file: &str, extra: &[&str]) -> (Report, Option<i32>) {
    triage_path(&smartctl_fixture(file), extra)
}

fn has(report: &Report, code: &str) -> bool {
    report
        .findings
        .iter()
        .any(|f| f.code == code && f.severity > Severity::Ok)
}

#[test]
fn wd_red_hard_disk_is_bad_for_being_rotational() {
    let (report, code) = triage("WDC_WD20EFRX-68EUZN0_17.json", &[]);
    assert_eq!(report.grade.as_str(), "bad");
    assert_eq!(code, Some(2));
    assert!(
        has(&report, "NC105"),
        "rotational finding: {:?}",
        report.findings
    );
    assert_eq!(report.facts.drives[0].rotational, Some(true));
}

#[test]
fn kingston_a400_is_a_budget_sata_drive() {
    let (report, _) = triage("sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json", &[]);
    assert!(report.grade >= verdict::Grade::Ugly, "{:?}", report.grade);
    let drive = &report.drives[0];
    assert_eq!(drive.model.as_deref(), Some("KINGSTON SA400M8120G"));
    assert!(
        drive.family.as_deref().is_some_and(|f| f.contains("A400")),
        "matched the A400 entry: {drive:?}"
    );
}

#[test]
fn data_center_drives_are_good_drives() {
    for file in [
        "INTEL_SSDPE2KX080T8_1.json",
        "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json",
    ] {
        let (report, _) = triage(file, &[]);
        assert_eq!(
            report.drives[0].database_grade.as_str(),
            "good",
            "{file}: {:?}",
            report.drives
        );
    }
}

/// Real reports of data-center drives without an entry, kept with the verdict crate's tests.
#[test]
fn unlisted_data_center_drives_are_classed_good_with_the_evidence_in_json() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../verdict/tests/data/smartctl");
    for (file, class) in [
        (
            "nvme-null-SAMSUNG_MZPLL3T2HAJQ-00005-nvme1.json",
            "samsung-dc-nvme",
        ),
        (
            "nvme-null-INTEL_SSDPE2KX020T7-nvme6.json",
            "intel-dc-nvme-tlc",
        ),
    ] {
        let (report, _) = triage_path(&dir.join(file), &[]);
        let drive = &report.drives[0];
        assert_eq!(drive.family, None, "{file}: {drive:?}");
        let summary = drive.class.as_ref();
        assert_eq!(
            summary.map(|s| (s.id.as_str(), s.class.as_deref())),
            Some((class, Some("data_center"))),
            "{file}"
        );
        assert!(summary.is_some_and(|s| !s.evidence.is_empty()), "{file}");
        assert_ne!(
            drive.database_grade.as_str(),
            "unknown",
            "{file}: {:?}",
            report.findings
        );
        assert_has_finding(&report, "NC104", |f| f.title.contains("data-center"), file);
    }
}

#[test]
fn small_970_evo_plus_is_a_good_family_with_a_capacity_finding() {
    let (report, _) = triage("nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json", &[]);
    assert_eq!(report.drives[0].database_grade.as_str(), "good");
    assert!(
        has(&report, "NC510"),
        "capacity finding: {:?}",
        report.findings
    );
    assert_eq!(report.grade.as_str(), "bad");
}

#[test]
fn client_choice_applies_its_needs() {
    let (report, _) = triage(
        "nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json",
        &["--client", "erigon"],
    );
    assert_eq!(report.client.requested.as_deref(), Some("erigon"));
}

#[test]
fn every_format_renders_a_smartctl_triage() {
    for format in ["table", "markdown", "discord", "prometheus"] {
        let out = crate::cli_support::triage(
            &smartctl_fixture("INTEL_SSDPE2KX080T8_1.json"),
            &["--format", format],
        );
        assert!(
            matches!(out.status.code(), Some(0..=2)),
            "{format}: {}",
            stderr(&out)
        );
        assert!(!stdout(&out).is_empty());
    }
}

#[test]
fn garbage_never_panics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let full = std::fs::read(smartctl_fixture("WDC_WD20EFRX-68EUZN0_17.json")).expect("fixture");
    // Every truncation point of a real document, in steps.
    for cut in (0..full.len()).step_by(97) {
        let file = dir.path().join("cut.json");
        std::fs::write(&file, &full[..cut]).expect("write");
        let out = crate::cli_support::triage(&file, &[]);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "cut at {cut}: {err}");
        assert!(
            matches!(out.status.code(), Some(0..=2 | 4)),
            "cut at {cut}: {err}"
        );
    }
}

#[test]
fn a_saved_probe_document_is_judged_like_the_check() {
    let fixture = crate::cli_support::Fixture::named("sata_raid_mode_trim_blocked");
    let (_dir, saved) = written("facts.json", fixture.probe(&[]).stdout);
    let out = crate::cli_support::triage(&saved, &["--json"]);
    let triaged: Report = json_of(&out);
    let checked: Report = json_of(&fixture.check(&["--json"]));
    assert_eq!(triaged.grade, checked.grade);
    assert_eq!(triaged.facts, checked.facts);
    assert_eq!(out.status.code(), fixture.check(&[]).status.code());
}

#[test]
fn a_failed_self_test_alone_is_not_judged_good() {
    for file in [
        "derived-selftest-exit-bit7-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json",
        "derived-selftest-log-failed-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json",
    ] {
        let (report, code) = triage(file, &[]);
        assert_eq!(
            report.grade.as_str(),
            "bad",
            "{file}: {:?}",
            report.findings
        );
        assert_eq!(code, Some(2), "{file}");
        let finding = report
            .findings
            .iter()
            .find(|f| f.code == "NC209")
            .unwrap_or_else(|| panic!("{file}: no NC209 in {:?}", report.findings));
        assert!(finding
            .fix
            .as_deref()
            .is_some_and(|fix| fix.contains("smartctl -l selftest")));
    }
    let (report, _) = triage(
        "derived-selftest-log-failed-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json",
        &[],
    );
    let detail = &report
        .findings
        .iter()
        .find(|f| f.code == "NC209")
        .unwrap()
        .detail;
    assert!(detail.contains("Completed: read failure"), "{detail}");
    assert_eq!(
        detail.matches("failed self-test").count(),
        1,
        "the failure before a passed extended test is outdated: {detail}"
    );
}

/// A RAID controller's volume is not a drive model: measuring it (150 GiB) and submitting it
/// to the drive database is no answer; the disks behind the controller are.
#[test]
fn a_raid_volume_is_told_to_judge_its_disks_not_to_bench_and_submit() {
    let (report, _) = triage("failed-perc-virtual-disk-sdb.json", &[]);
    let fixes: Vec<&str> = report
        .findings
        .iter()
        .filter_map(|f| f.fix.as_deref())
        .collect();
    let all = fixes.join("\n");
    assert!(!all.contains("--bench full"), "{all}");
    assert!(!all.contains("nodecheck submit"), "{all}");
    assert!(all.contains("-d megaraid,N"), "{all}");
}

/// smartctl on a virtio disk finds no device type; running it again finds nothing more.
#[test]
fn a_virtio_smartctl_output_says_there_is_no_smart_and_what_to_send_instead() {
    let out =
        crate::cli_support::triage(&smartctl_fixture("virtio-vda-unable-to-detect.json"), &[]);
    let err = stderr(&out);
    assert!(err.contains("virtual disk"), "{err}");
    assert!(!err.contains("run `sudo smartctl"), "{err}");
    assert!(err.contains("`nodecheck check --json`"), "{err}");
}
