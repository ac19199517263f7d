//! NC1xx: which drive this is, and what the database says about it.

use super::*;

#[test]
fn nc101_good_drive_from_the_database() {
    let v = assert_judged(
        &nvme_machine(),
        "geth",
        "NC101",
        Severity::Ok,
        &["Samsung 970 EVO Plus", "good", "TLC", "DRAM", "140k/46k"],
    );
    assert_eq!(v.drives[0].grade, Grade::Good);
    let entry = entry0(&v).expect("entry");
    assert_eq!(entry.id, "samsung-970-evo-plus");
    assert_eq!(entry.nand.as_deref(), Some("tlc"));
    assert_eq!(entry.dram.as_deref(), Some("yes"));
    assert_eq!(entry.class, "mainstream");
}

#[test]
fn nc101_bad_drive_makes_the_verdict_bad() {
    let mut facts = nvme_drive("CT1000P1SSD8", "P3CR021");
    drive0(&mut facts).capacity_bytes = Some(1_000_204_886_016);
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC101");
    assert_eq!(f.severity, Severity::Critical);
    assert!(f.title.contains("Crucial"), "{f:#?}");
    assert!(f.fix.as_deref().unwrap_or("").contains("Good list"));
    assert_eq!(v.grade, Grade::Bad);
    assert_eq!(v.drives[0].grade, Grade::Bad);
}

#[test]
fn nc102_firmware_advisory_980_pro_3b2qgxa7() {
    let mut facts = nvme_drive("Samsung SSD 980 PRO 2TB", "3B2QGXA7");
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC102");
    assert_eq!(f.severity, Severity::Critical);
    assert!(f.detail.contains("3B2QGXA7"), "{f:#?}");
    assert!(
        f.fix.as_deref().unwrap_or("").contains("5B2QGXA7"),
        "{f:#?}"
    );
    assert_eq!(v.grade, Grade::Bad);
    assert_eq!(v.drives[0].grade, Grade::Bad);

    drive0(&mut facts).firmware = Some("5B2QGXA7".into());
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC102"), "{:?}", codes(&v));
    assert_eq!(v.drives[0].grade, Grade::Good);
}

#[test]
fn nc103_unknown_model_says_what_is_known() {
    let facts = nvme_hmb_drive("ACME FastDisk 9000 2TB");
    let v = assert_judged(
        &facts,
        "geth",
        "NC103",
        Severity::Info,
        &[
            "ACME FastDisk 9000 2TB",
            "NVMe",
            "2 TB",
            "host memory buffer",
            "nodecheck submit",
        ],
    );
    // The generic DRAM-less rule grades it; NC106 then only informs.
    let generic = all(&v, "NC104");
    assert!(
        generic.iter().any(|f| f.title.contains("DRAM-less drives")),
        "{generic:#?}"
    );
    assert_eq!(one(&v, "NC106").severity, Severity::Info);
    assert_eq!(v.drives[0].grade, Grade::Ugly);
    assert!(entry0(&v).is_none());
}

#[test]
fn nc103_drive_without_a_model() {
    let mut facts = nvme_machine();
    drive0(&mut facts).model = None;
    let v = assert_judged(
        &facts,
        "geth",
        "NC103",
        Severity::Info,
        &["no model string"],
    );
    assert_eq!(v.grade, Grade::Unknown, "{:#?}", v.findings);
}

#[test]
fn nc104_generic_rule_for_an_unlisted_hmb_drive() {
    let mut facts = sata_machine("ACME SATA 1TB", 1_000_204_886_016);
    drive0(&mut facts).interface = Some(Interface::Nvme);
    drive0(&mut facts).hmb = Some(true);
    let v = run_for(&facts, "erigon");
    let f = all(&v, "NC104")
        .into_iter()
        .find(|f| f.title.contains("DRAM-less drives"))
        .expect("dramless rule");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.detail.contains("DRAM-less"), "{f:#?}");
}

#[test]
fn nc104_white_label_drive_is_bad_because_nothing_is_guaranteed() {
    let facts = nvme_drive("SSD 512GB", "V0808A0");
    let v = run_for(&facts, "geth");
    let f = all(&v, "NC104")
        .into_iter()
        .find(|f| f.title.contains("unguaranteed-component drives"))
        .expect("the rule for unguaranteed components");
    assert_eq!(f.severity, Severity::Critical, "{f:#?}");
    for words in [
        "names no maker product line",
        "nothing about its NAND and DRAM is guaranteed",
        "Kingston NV1",
        "nodecheck bench",
        "white-label-nvme",
    ] {
        assert!(f.detail.contains(words), "`{words}` missing: {f:#?}");
    }
    assert_eq!(v.drives[0].grade, Grade::Bad);
}

#[test]
fn nc105_hard_disk() {
    let mut facts = sata_machine("WDC WD20EFRX-68EUZN0", 2_000_398_934_016);
    drive0(&mut facts).rotation_rate_rpm = Some(5400);
    drive0(&mut facts).rotational = Some(true);
    let v = assert_judged(
        &facts,
        "geth",
        "NC105",
        Severity::Critical,
        &["5400 rpm", "NVMe SSD"],
    );
    assert_eq!(v.grade, Grade::Bad);
    // TRIM does not apply to a spinning disk.
    assert!(
        !codes(&v).iter().any(|c| c.starts_with("NC30")),
        "{:?}",
        codes(&v)
    );
}

/// A 2 TB SATA `model` that reports no rotation rate while the kernel's queue flag calls it
/// rotational.
fn sata_flagged_rotational_by_the_kernel_only(model: &str) -> probe::Facts {
    let mut facts = sata_machine(model, 2_000_398_934_016);
    let d = drive0(&mut facts);
    d.rotation_rate_rpm = None;
    d.queue_rotational = Some(true);
    d.rotational = Some(true);
    facts
}

#[test]
fn nc105_on_the_kernel_flag_alone_is_a_warning_that_says_how_to_tell() {
    let facts = sata_flagged_rotational_by_the_kernel_only("NoSuchVendor SATA 2TB");
    let v = assert_judged(
        &facts,
        "geth",
        "NC105",
        Severity::Warning,
        &["only the kernel", "smartctl -i /dev/sda", "Rotation Rate"],
    );
    assert!(!has(&v, "NC120"), "nothing better to disagree with");
}

#[test]
fn nc105_not_for_a_known_ssd_the_kernel_marks_rotational() {
    let facts = sata_flagged_rotational_by_the_kernel_only("Samsung SSD 870 EVO 2TB");
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC105"), "{:?}", codes(&v));
    assert_finding(
        &v,
        "NC120",
        Severity::Info,
        &["The kernel marks sda", "known SSD (Samsung 870 EVO)"],
    );
    assert_eq!(v.grade, Grade::Good);
}

#[test]
fn nc105_not_for_virtio_disks_that_claim_rotational() {
    let mut facts = nvme_machine();
    let d = drive0(&mut facts);
    d.name = "vda".into();
    d.model = None;
    d.interface = Some(Interface::Virtio);
    d.rotational = Some(true);
    d.rotation_rate_rpm = None;
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC105"), "{:?}", codes(&v));
}

#[test]
fn nc106_dram_less_listed_drive_is_info() {
    let facts = nvme_hmb_drive("Samsung SSD 980 1TB");
    assert_judged(
        &facts,
        "geth",
        "NC106",
        Severity::Info,
        &["database lists it without DRAM", "memory buffer (HMB)"],
    );
}

#[test]
fn nc190_lists_what_needs_root() {
    let mut facts = nvme_machine();
    facts.privileged = false;
    facts.unavailable = vec![
        Unavailable {
            fact: "NVMe SMART log (nvme0)".into(),
            reason: "needs root".into(),
        },
        Unavailable {
            fact: "smartctl".into(),
            reason: "not installed".into(),
        },
    ];
    let v = assert_judged(
        &facts,
        "geth",
        "NC190",
        Severity::Info,
        &["NVMe SMART log (nvme0)", "sudo nodecheck /var/lib/ethereum"],
    );
    // Only privilege can be fixed by rerunning: a missing program is not listed.
    assert!(
        !one(&v, "NC190").detail.contains("smartctl"),
        "{:#?}",
        v.findings
    );
}

#[test]
fn nc102_ebs_volume_needs_provisioned_iops() {
    let mut facts = nvme_machine();
    let d = drive0(&mut facts);
    d.model = Some("Amazon Elastic Block Store".into());
    d.firmware = Some("1.0".into());
    d.serial = Some("vol0123456789abcdef0".into());
    d.health = None;
    d.pcie_link = None;
    facts.platform.sys_vendor = Some("Amazon EC2".into());
    facts.platform.product_name = Some("m6i.xlarge".into());
    facts.platform.cloud = Some("aws".into());
    facts.platform.virtualized = Some(true);
    let v = assert_judged(
        &facts,
        "geth",
        "NC102",
        Severity::Warning,
        &["10,000 provisioned IOPS", "aws ec2 modify-volume"],
    );
    // The volume is judged by its entry, not again as an anonymous virtual disk.
    assert!(!has(&v, "NC602"), "{:?}", codes(&v));
    assert_eq!(v.grade, Grade::Ugly);
}

#[test]
fn nc102_capacity_rule_adata_s40g_4tb_is_qlc_and_bad_2tb_fine() {
    let mut facts = nvme_drive("XPG SPECTRIX S40G", "32B3T8EA");
    drive0(&mut facts).capacity_bytes = Some(4_096_805_658_624);
    let v = run_for(&facts, "geth");
    let rule = all(&v, "NC102")
        .into_iter()
        .find(|f| f.severity == Severity::Critical)
        .expect("critical capacity advisory");
    assert!(rule.detail.contains("QLC"), "{rule:#?}");
    let identity = one(&v, "NC101");
    assert!(
        identity
            .title
            .contains("good family, bad for this firmware or capacity"),
        "{identity:#?}"
    );
    assert!(identity.detail.contains("QLC"), "{identity:#?}");
    assert_eq!(v.drives[0].grade, Grade::Bad);
    assert_eq!(entry0(&v).and_then(|e| e.nand.as_deref()), Some("qlc"));

    drive0(&mut facts).capacity_bytes = Some(2_048_408_248_320);
    let v = run_for(&facts, "geth");
    assert!(all(&v, "NC102")
        .iter()
        .all(|f| f.severity <= Severity::Info));
    assert_eq!(v.drives[0].grade, Grade::Good);
    assert_eq!(entry0(&v).and_then(|e| e.nand.as_deref()), Some("tlc"));
}

#[test]
fn nc102_990_pro_before_1b2qjxd7() {
    let mut facts = nvme_drive("Samsung SSD 990 PRO 2TB", "0B2QJXD7");
    assert_judged(
        &facts,
        "geth",
        "NC102",
        Severity::Critical,
        &["0B2QJXD7", "1B2QJXD7"],
    );
    drive0(&mut facts).firmware = Some("4B2QJXD7".into());
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC102"), "{:?}", codes(&v));
    assert_eq!(v.grade, Grade::Good);
}
