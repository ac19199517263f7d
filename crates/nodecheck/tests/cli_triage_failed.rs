//! `nodecheck triage` of smartctl runs that failed: health is never "fine" when smartctl read
//! none, smartctl's own messages are shown without `-v`, the verdict says what to run instead,
//! and a file with no device data at all is an error (exit 4) that says so.

use crate::cli_support::{assert_contains, assert_lacks, smartctl_fixture, stderr, stdout};
use nodecheck::Report;

fn triage(file: &str, extra: &[&str]) -> std::process::Output {
    crate::cli_support::triage(&smartctl_fixture(file), extra)
}

#[test]
fn a_run_that_read_no_device_exits_4_with_smartctls_messages() {
    for (file, says, advice) in [
        (
            "failed-nonexistent-device.json",
            "Unable to detect device type",
            "smartctl -j -x",
        ),
        (
            "failed-usb-bridge-sda.json",
            "Unknown USB bridge",
            "smartctl -j -x -d sat /dev/sda",
        ),
        (
            "failed-megaraid-open-sda.json",
            "DELL or MegaRaid controller",
            "-d megaraid,N",
        ),
    ] {
        let out = triage(file, &[]);
        assert_eq!(out.status.code(), Some(4), "{file}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("smartctl read nothing"), "{file}: {err}");
        assert!(
            err.contains(says),
            "{file}: smartctl's message shown: {err}"
        );
        assert!(err.contains(advice), "{file}: what to run instead: {err}");
        assert!(stdout(&out).is_empty(), "{file}: no report for no data");
        assert!(!err.contains("health is fine"), "{file}: {err}");
    }
}

#[test]
fn a_raid_virtual_disk_without_smart_has_unknown_health_and_a_megaraid_hint() {
    let out = triage("failed-perc-virtual-disk-sdb.json", &["--json"]);
    assert_eq!(out.status.code(), Some(1), "unknown: {}", stderr(&out));
    let report: Report = serde_json::from_str(&stdout(&out)).expect("report");
    assert_eq!(report.grade.as_str(), "unknown");
    let drive = &report.facts.drives[0];
    assert_eq!(drive.name, "sdb");
    assert_eq!(drive.health, None, "no health data, no health record");
    assert!(
        !report.findings.iter().any(|f| f.code == "NC200"),
        "never 'Drive health is fine': {:?}",
        report.findings
    );
    assert!(
        report.summary.contains("health of sdb is unknown")
            && report
                .summary
                .contains("smartctl -j -x -d megaraid,N /dev/sdb"),
        "{}",
        report.summary
    );
    assert!(
        report.notes.iter().any(|n| n.contains("exit status 4")),
        "{:?}",
        report.notes
    );
    assert_eq!(report.facts.root, "failed-perc-virtual-disk-sdb.json");
}

#[test]
fn the_table_names_the_drive_the_source_and_smartctls_status_without_v() {
    let out = triage("failed-perc-virtual-disk-sdb.json", &[]);
    let text = stdout(&out);
    assert_contains(
        &text,
        "Source:   replayed from failed-perc-virtual-disk-sdb.json",
    );
    assert_contains(&text, "smartctl exit status 4");
    assert_lacks(&text, "Drive health is fine");
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.starts_with("UNKNOWN: the health of sdb is unknown")),
        "{text}"
    );
}

#[test]
fn a_healthy_run_still_says_health_is_fine() {
    let out = triage(
        "nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json",
        &["--json"],
    );
    let report: Report = serde_json::from_str(&stdout(&out)).expect("report");
    assert!(
        report.findings.iter().any(|f| f.code == "NC200"),
        "{:?}",
        report.findings
    );
    assert!(!report.notes.iter().any(|n| n.starts_with("smartctl said")));
}
