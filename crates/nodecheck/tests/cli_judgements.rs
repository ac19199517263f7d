//! Judgements that depend on weighing evidence, end to end through the binary on fixture
//! trees: a known SSD the kernel marks rotational, and data directories on network or
//! host-shared file systems.

use crate::cli_support::{assert_contains, assert_lacks, finding, stdout, Fixture};
use nodecheck::Report;

fn report(fixture: &Fixture) -> (Report, i32) {
    let out = fixture.check(&["--json"]);
    let text = stdout(&out);
    let report: Report = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{}: not a report ({e}): {}",
            fixture.scenario.name,
            crate::cli_support::stderr(&out)
        )
    });
    (report, out.status.code().expect("exited"))
}

fn codes(report: &Report) -> Vec<&str> {
    report.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn a_known_ssd_the_kernel_marks_rotational_is_judged_as_an_ssd() {
    let fixture = Fixture::named("qemu_sata_ssd_rotation_unreported");
    let (report, _) = report(&fixture);
    assert!(!codes(&report).contains(&"NC105"), "{:?}", codes(&report));
    let conflict = finding(&report, "NC120", fixture.scenario.name);
    assert_eq!(conflict.subject.as_deref(), Some("sda"));
    assert!(conflict.detail.contains("known SSD (Samsung 870 QVO)"));
    let drive = &report.facts.drives[0];
    assert_eq!(drive.queue_rotational, Some(true));
    assert_eq!(drive.rotation_rate_rpm, None);

    // The table says it in words, with the rule to paste.
    let table = stdout(&fixture.check(&[]));
    assert_contains(
        &table,
        "The kernel marks sda rotational, but it is solid state",
    );
    assert_contains(&table, "61-nodecheck-rotational.rules");
    assert_lacks(&table, "Hard disk: rotational media");
}

#[test]
fn network_storage_is_bad_and_names_server_export_and_fix() {
    for (name, server) in [
        (
            "nfs4_nas",
            "diskstation.lan (192.168.1.10), export /volume1/ethereum",
        ),
        ("cifs_nas", "from 192.168.1.10, share ethereum"),
        (
            "cephfs",
            "from 10.0.0.11:3300, 10.0.0.12:3300, 10.0.0.13:3300",
        ),
        ("glusterfs", "from gluster1.lan, volume gv0"),
    ] {
        let fixture = Fixture::named(name);
        let (report, code) = report(&fixture);
        assert_eq!(code, 2, "{name}: bad");
        let f = finding(&report, "NC520", name);
        assert_eq!(f.severity.as_str(), "critical", "{name}");
        assert!(f.detail.contains(server), "{name}: {}", f.detail);
        assert!(
            !codes(&report).contains(&"NC506"),
            "{name}: {:?}",
            codes(&report)
        );
        let share = report
            .facts
            .mount
            .as_ref()
            .and_then(|m| m.network.as_ref())
            .unwrap_or_else(|| panic!("{name}: no share in the facts"));
        assert!(share.server.is_some(), "{name}");

        let table = stdout(&fixture.check(&[]));
        assert!(
            table.contains("Data directory on network storage"),
            "{table}"
        );
        assert!(table.contains("NAS for backups"), "{table}");
    }
}

#[test]
fn a_vm_host_share_is_ugly_and_points_at_the_host() {
    for name in ["vm_9p_host_share", "vm_virtiofs_host_share"] {
        let fixture = Fixture::named(name);
        let (report, code) = report(&fixture);
        assert_eq!(code, 1, "{name}: ugly");
        let f = finding(&report, "NC520", name);
        assert_eq!(f.severity.as_str(), "warning", "{name}");
        assert!(
            f.detail.contains("mount tag ethdata"),
            "{name}: {}",
            f.detail
        );
        assert!(
            f.fix.as_deref().unwrap_or("").contains("on the host"),
            "{name}: {f:?}"
        );
    }
}

/// A real NVMe smartctl output with the identity of a Samsung 990 PRO 2 TB on its recalled
/// firmware 0B2QJXD7: the family is good, this drive is bad.
fn samsung_990_pro_on_0b2qjxd7() -> (tempfile::TempDir, std::path::PathBuf) {
    let bytes = std::fs::read(crate::cli_support::smartctl_fixture(
        "INTEL_SSDPE2KX080T8_1.json",
    ))
    .expect("saved output");
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    value["model_name"] = "Samsung SSD 990 PRO 2TB".into();
    value["firmware_version"] = "0B2QJXD7".into();
    value["user_capacity"]["bytes"] = 2_000_398_934_016u64.into();
    value["nvme_total_capacity"] = 2_000_398_934_016u64.into();
    crate::cli_support::written(
        "990pro.json",
        serde_json::to_vec(&value).expect("serialize"),
    )
}

#[test]
fn a_drive_its_firmware_makes_bad_is_not_a_passed_check_and_the_verdict_names_the_firmware() {
    let (_dir, file) = samsung_990_pro_on_0b2qjxd7();
    let out = crate::cli_support::triage(&file, &["--json"]);
    let report: Report = serde_json::from_str(&stdout(&out)).expect("report");
    assert_eq!(report.grade, verdict::Grade::Bad, "{}", report.summary);
    // The verdict line says what is wrong and what to do, not "database advisory".
    assert_contains(&report.summary, "0B2QJXD7");
    assert_contains(&report.summary, "update the firmware");
    let markdown = stdout(&crate::cli_support::triage(
        &file,
        &["--format", "markdown"],
    ));
    let passed = markdown
        .lines()
        .find(|l| l.starts_with("Passed:"))
        .unwrap_or("");
    assert_lacks(passed, "NC101");
    // No passed check anywhere says bad or ugly.
    for f in report
        .findings
        .iter()
        .filter(|f| f.severity == verdict::Severity::Ok)
    {
        assert!(
            !f.title.contains("bad") && !f.title.contains("ugly"),
            "passed but says otherwise: {f:?}"
        );
    }
    // Two grades, two names: the database's grade of this drive and its verdict here.
    let drive = &report.drives[0];
    assert_eq!(drive.database_grade, verdict::Grade::Bad);
    assert_eq!(drive.verdict, verdict::Grade::Bad);
}
