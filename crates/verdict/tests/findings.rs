//! One test (or a few) per finding, from constructed facts judged against the embedded
//! database: the code, its severity, the measured value in the detail and the fix.

mod judge_support;

use bench::EngineKind;
use judge_support::*;
use probe::{
    AtimeMode, ControllerMode, FstabEntry, Health, Interface, IoUringStatus, LayerKind, PcieLink,
    Unavailable, UsbDetails,
};
use verdict::judge::{judge, ClientChoice};
use verdict::{Grade, Severity};

fn drive0(facts: &mut probe::Facts) -> &mut probe::Drive {
    &mut facts.drives[0]
}

fn health0(facts: &mut probe::Facts) -> &mut Health {
    drive0(facts)
        .health
        .as_mut()
        .expect("the builder sets health")
}

// ---------------------------------------------------------------- NC1xx identity

#[test]
fn nc101_good_drive_from_the_database() {
    let v = run_for(&nvme_machine(), "geth");
    assert_finding(
        &v,
        "NC101",
        Severity::Ok,
        &["Samsung 970 EVO Plus", "good", "TLC", "DRAM", "140k/46k"],
    );
    assert_eq!(v.drives[0].grade, Grade::Good);
    let entry = v.drives[0].entry.as_ref().expect("entry");
    assert_eq!(entry.id, "samsung-970-evo-plus");
    assert_eq!(entry.nand.as_deref(), Some("tlc"));
    assert_eq!(entry.dram.as_deref(), Some("yes"));
    assert_eq!(entry.class, "mainstream");
}

#[test]
fn nc101_bad_drive_makes_the_verdict_bad() {
    let mut facts = nvme_machine();
    drive0(&mut facts).model = Some("CT1000P1SSD8".into());
    drive0(&mut facts).firmware = Some("P3CR021".into());
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
    let mut facts = nvme_machine();
    drive0(&mut facts).model = Some("Samsung SSD 980 PRO 2TB".into());
    drive0(&mut facts).firmware = Some("3B2QGXA7".into());
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
    let mut facts = nvme_machine();
    drive0(&mut facts).model = Some("ACME FastDisk 9000 2TB".into());
    drive0(&mut facts).hmb = Some(true);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
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
        generic.iter().any(|f| f.title.contains("dramless")),
        "{generic:#?}"
    );
    assert_eq!(one(&v, "NC106").severity, Severity::Info);
    assert_eq!(v.drives[0].grade, Grade::Ugly);
    assert!(v.drives[0].entry.is_none());
}

#[test]
fn nc103_drive_without_a_model() {
    let mut facts = nvme_machine();
    drive0(&mut facts).model = None;
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC103", Severity::Info, &["no model string"]);
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
        .find(|f| f.title.contains("dramless"))
        .expect("dramless rule");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.detail.contains("DRAM-less"), "{f:#?}");
}

#[test]
fn nc105_hard_disk() {
    let mut facts = sata_machine("WDC WD20EFRX-68EUZN0", 2_000_398_934_016);
    drive0(&mut facts).rotation_rate_rpm = Some(5400);
    drive0(&mut facts).rotational = Some(true);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC105", Severity::Critical, &["5400 rpm", "NVMe SSD"]);
    assert_eq!(v.grade, Grade::Bad);
    // TRIM does not apply to a spinning disk.
    assert!(
        !codes(&v).iter().any(|c| c.starts_with("NC30")),
        "{:?}",
        codes(&v)
    );
}

#[test]
fn nc105_on_the_kernel_flag_alone_is_a_warning_that_says_how_to_tell() {
    let mut facts = sata_machine("NoSuchVendor SATA 2TB", 2_000_398_934_016);
    let d = drive0(&mut facts);
    d.rotation_rate_rpm = None;
    d.queue_rotational = Some(true);
    d.rotational = Some(true);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC105",
        Severity::Warning,
        &["only the kernel", "smartctl -i /dev/sda", "Rotation Rate"],
    );
    assert!(!has(&v, "NC120"), "nothing better to disagree with");
}

#[test]
fn nc105_not_for_a_known_ssd_the_kernel_marks_rotational() {
    let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    let d = drive0(&mut facts);
    d.rotation_rate_rpm = None;
    d.queue_rotational = Some(true);
    d.rotational = Some(true);
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
    let mut facts = nvme_machine();
    drive0(&mut facts).model = Some("Samsung SSD 980 1TB".into());
    drive0(&mut facts).hmb = Some(true);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
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
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
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

// ---------------------------------------------------------------- NC2xx health

#[test]
fn nc200_healthy_drive() {
    let v = run_for(&nvme_machine(), "geth");
    assert_finding(
        &v,
        "NC200",
        Severity::Ok,
        &["3% of rated endurance", "8760 power-on hours"],
    );
}

#[test]
fn nc201_smart_failing() {
    let mut facts = nvme_machine();
    health0(&mut facts).passed = Some(false);
    health0(&mut facts).smartctl_status = vec!["SMART status says the disk is failing".into()];
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC201",
        Severity::Critical,
        &["disk is failing", "replace"],
    );
    assert!(!has(&v, "NC200"));
    assert_eq!(v.grade, Grade::Bad);
}

#[test]
fn nc202_critical_warning_bits_are_decoded() {
    let mut facts = nvme_machine();
    health0(&mut facts).critical_warning = Some(0b0000_1001);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC202",
        Severity::Critical,
        &[
            "0x09",
            "bit 0: available spare below threshold",
            "bit 3: media placed in read-only mode",
        ],
    );
    // Temperature alone gets the cooling fix.
    health0(&mut facts).critical_warning = Some(0b10);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC202",
        Severity::Critical,
        &["bit 1: temperature", "heatsink"],
    );
}

#[test]
fn nc203_spare_below_threshold() {
    let mut facts = nvme_machine();
    health0(&mut facts).available_spare_pct = Some(5);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC203",
        Severity::Critical,
        &["5% spare", "threshold of 10%"],
    );
}

#[test]
fn nc204_wear_warns_then_becomes_critical() {
    let mut facts = nvme_machine();
    health0(&mut facts).percentage_used = Some(85);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC204", Severity::Warning, &["85%", "30 TB written"]);
    health0(&mut facts).percentage_used = Some(112);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC204", Severity::Critical, &["112%"]);
    health0(&mut facts).percentage_used = Some(79);
    assert!(!has(&run_for(&facts, "geth"), "NC204"));
}

#[test]
fn nc205_media_errors() {
    let mut facts = nvme_machine();
    health0(&mut facts).media_errors = Some(3);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC205", Severity::Warning, &["3 unrecovered"]);
}

#[test]
fn nc206_pending_sectors_are_critical_reallocated_a_warning() {
    let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    drive0(&mut facts).health = Some(Health {
        source: "smartctl".into(),
        passed: Some(true),
        reallocated_sectors: Some(8),
        pending_sectors: Some(0),
        uncorrectable_sectors: Some(0),
        ..Health::default()
    });
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC206", Severity::Warning, &["8 reallocated"]);
    health0(&mut facts).pending_sectors = Some(2);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC206", Severity::Critical, &["2 pending"]);
}

#[test]
fn nc208_mx500_attribute_197_alone_is_not_bad_sectors() {
    let mut facts = sata_machine("CT2000MX500SSD1", 2_000_398_934_016);
    drive0(&mut facts).health = Some(Health {
        source: "smartctl".into(),
        passed: Some(true),
        reallocated_sectors: Some(0),
        pending_sectors: Some(1),
        uncorrectable_sectors: Some(0),
        ..Health::default()
    });
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC206"), "{:#?}", v.findings);
    assert_finding(
        &v,
        "NC208",
        Severity::Info,
        &[
            "Current_Pending_ECC_Cnt",
            "reads 1",
            "ticket #1227",
            "crucial-mx500/pending-ecc-flips",
        ],
    );
    assert!(has(&v, "NC200"), "a healthy drive stays healthy");
    assert_eq!(v.drives[0].grade, Grade::Good);

    // Above what flips, or together with reallocated sectors, it is evidence again.
    health0(&mut facts).pending_sectors = Some(2);
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC208"));
    assert_finding(&v, "NC206", Severity::Critical, &["2 pending"]);
    let h = health0(&mut facts);
    h.pending_sectors = Some(1);
    h.reallocated_sectors = Some(4);
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC208"));
    assert_finding(
        &v,
        "NC206",
        Severity::Critical,
        &["4 reallocated", "1 pending"],
    );

    // The quirk belongs to the MX500: the same reading on another family is a pending sector.
    let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    drive0(&mut facts).health = Some(Health {
        source: "smartctl".into(),
        passed: Some(true),
        pending_sectors: Some(1),
        ..Health::default()
    });
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC208"));
    assert_finding(&v, "NC206", Severity::Critical, &["1 pending"]);
}

#[test]
fn nc207_smartctl_threshold_bits() {
    let mut facts = nvme_machine();
    health0(&mut facts).smartctl_status = vec![
        "attributes at or below threshold in the past".into(),
        "device error log has errors".into(),
    ];
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC207", Severity::Info, &["in the past", "error log"]);
    health0(&mut facts).smartctl_status =
        vec!["prefail attributes at or below threshold now".into()];
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC207", Severity::Warning, &["threshold now"]);
}

#[test]
fn nc210_temperature_ok_warm_and_over_the_drive_limit() {
    let mut facts = nvme_machine();
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC210", Severity::Ok, &["38 C"]);
    drive0(&mut facts).temperature_c = Some(57.0);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC210",
        Severity::Warning,
        &["57 C", "below 50 C", "heatsink"],
    );
    assert_eq!(v.grade, Grade::Ugly);
    // WCTEMP 358 K = 85 C.
    drive0(&mut facts).temperature_c = Some(86.0);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC210", Severity::Critical, &["86 C", "85 C"]);
}

#[test]
fn nc210_a_temperature_just_under_the_limit_does_not_round_up_to_it() {
    // 323 K from an NVMe SMART log (QEMU's default) is 49.85 C.
    let mut facts = nvme_machine();
    drive0(&mut facts).temperature_c = Some(49.85);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC210", Severity::Ok, &["49.8 C", "below 50 C"]);
    drive0(&mut facts).temperature_c = Some(49.4);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC210", Severity::Ok, &["49 C", "below 50 C"]);
}

#[test]
fn nc211_thermal_throttling_history() {
    let mut facts = nvme_machine();
    health0(&mut facts).thermal_throttle_t1_transitions = Some(14);
    health0(&mut facts).warning_temp_minutes = Some(120);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC211",
        Severity::Warning,
        &["14 light", "120 minutes above the warning"],
    );
}

// ---------------------------------------------------------------- NC3xx TRIM

#[test]
fn nc300_trim_passes_through() {
    let v = run_for(&nvme_machine(), "geth");
    assert_finding(&v, "NC300", Severity::Ok, &["nvme0n1p2"]);
}

#[test]
fn nc301_drive_without_trim() {
    let mut facts = nvme_machine();
    drive0(&mut facts).trim_supported = Some(false);
    facts.trim_effective = Some(false);
    for l in &mut facts.layers {
        l.discard_max_bytes = Some(0);
    }
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC301", Severity::Warning, &["does not report TRIM"]);
    // The disk layer's zero is the drive's own doing, not a second finding.
    assert!(!has(&v, "NC302"), "{:?}", codes(&v));
    assert!(!has(&v, "NC303"));
}

#[test]
fn nc302_dm_crypt_without_allow_discards_gets_the_exact_command() {
    let mut facts = nvme_machine();
    facts.stack = vec!["dm-0".into(), "nvme0n1p3".into(), "nvme0n1".into()];
    facts.layers = vec![
        layer(
            "dm-0",
            LayerKind::Crypt,
            Some("luks-3f2a"),
            0,
            &["nvme0n1p3"],
            0,
        ),
        layer(
            "nvme0n1p3",
            LayerKind::Partition,
            Some("3"),
            1,
            &["nvme0n1"],
            2_199_023_255_040,
        ),
        layer("nvme0n1", LayerKind::Disk, None, 2, &[], 2_199_023_255_040),
    ];
    facts.trim_effective = Some(false);
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC302");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.title.contains("dm-crypt"), "{f:#?}");
    assert!(
        f.fix
            .as_deref()
            .unwrap_or("")
            .contains("sudo cryptsetup --allow-discards --persistent refresh luks-3f2a"),
        "{f:#?}"
    );
    assert_eq!(f.subject.as_deref(), Some("dm-0"));
}

#[test]
fn nc302_names_the_lowest_blocking_layer_only() {
    let mut facts = nvme_machine();
    facts.layers = vec![
        layer("dm-1", LayerKind::Lvm, Some("vg-eth"), 0, &["dm-0"], 0),
        layer(
            "dm-0",
            LayerKind::Crypt,
            Some("cryptdata"),
            1,
            &["nvme0n1p2"],
            0,
        ),
        layer(
            "nvme0n1p2",
            LayerKind::Partition,
            Some("2"),
            2,
            &["nvme0n1"],
            2_199_023_255_040,
        ),
        layer("nvme0n1", LayerKind::Disk, None, 3, &[], 2_199_023_255_040),
    ];
    facts.trim_effective = Some(false);
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC302");
    assert!(f.detail.contains("cryptdata"), "{f:#?}");
}

#[test]
fn nc302_md_raid_and_raid_controller() {
    let mut facts = nvme_machine();
    facts.layers = vec![
        layer(
            "md0",
            LayerKind::Md,
            Some("raid5"),
            0,
            &["nvme0n1", "nvme1n1", "nvme2n1"],
            0,
        ),
        layer("nvme0n1", LayerKind::Disk, None, 1, &[], 2_199_023_255_040),
    ];
    facts.trim_effective = Some(false);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC302",
        Severity::Warning,
        &["md RAID", "raid5", "devices_handle_discard_safely=Y"],
    );

    let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    drive0(&mut facts).trim_supported = Some(false);
    drive0(&mut facts).controller_mode = Some(ControllerMode::Raid);
    drive0(&mut facts).controller_driver = Some("megaraid_sas".into());
    drive0(&mut facts).controller_pci_class = Some("0x010400".into());
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC302",
        Severity::Warning,
        &["RAID controller", "megaraid_sas", "HBA"],
    );
}

#[test]
fn nc303_no_periodic_trim() {
    let mut facts = nvme_machine();
    facts.fstrim_timer = Some(false);
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC303");
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.fix.as_deref(),
        Some("sudo systemctl enable --now fstrim.timer")
    );
    // Online discard counts as periodic TRIM.
    facts.mount.as_mut().expect("mount").discard = true;
    assert!(!has(&run_for(&facts, "geth"), "NC303"));
    // Without systemd configuration it cannot be told.
    facts.mount.as_mut().expect("mount").discard = false;
    facts.fstrim_timer = None;
    assert_finding(
        &run_for(&facts, "geth"),
        "NC303",
        Severity::Info,
        &["fstrim"],
    );
}

// ---------------------------------------------------------------- NC4xx controller, link

#[test]
fn nc401_ide_and_raid_mode_and_ahci() {
    let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC401", Severity::Ok, &["AHCI"]);
    drive0(&mut facts).controller_mode = Some(ControllerMode::Ide);
    drive0(&mut facts).controller_driver = Some("ata_piix".into());
    drive0(&mut facts).controller_pci_class = Some("0x01018a".into());
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC401",
        Severity::Warning,
        &["IDE", "ata_piix", "AHCI in the UEFI/BIOS"],
    );
    drive0(&mut facts).controller_mode = Some(ControllerMode::Raid);
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC401", Severity::Warning, &["RAID mode", "AHCI"]);
}

#[test]
fn nc401_a_drive_behind_a_hardware_raid_card_is_not_told_to_change_the_sata_mode() {
    let mut facts = sata_machine("QEMU HARDDISK", 1 << 30);
    let drive = drive0(&mut facts);
    drive.interface = Some(Interface::Unknown);
    drive.controller_mode = Some(ControllerMode::Raid);
    drive.controller_driver = Some("megaraid_sas".into());
    drive.controller_pci_class = Some("0x010400".into());
    drive.ata = None;
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC401",
        Severity::Warning,
        &[
            "hardware RAID controller",
            "megaraid_sas",
            "SMART health",
            "HBA/JBOD (IT) mode",
            "-d megaraid,N /dev/sda",
        ],
    );
    let finding = v
        .findings
        .iter()
        .find(|f| f.code == "NC401")
        .expect("NC401");
    assert!(
        !finding.fix.as_deref().unwrap_or_default().contains("UEFI"),
        "a RAID card has no SATA mode in the UEFI: {:?}",
        finding.fix
    );
}

#[test]
fn nc402_pcie_link_below_maximum() {
    let mut facts = nvme_machine();
    drive0(&mut facts).pcie_link = Some(PcieLink {
        current_gts: Some(8.0),
        current_width: Some(2),
        max_gts: Some(16.0),
        max_width: Some(4),
    });
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC402",
        Severity::Warning,
        &["8.0 GT/s x2 of 16.0 GT/s x4", "lanes"],
    );
    let v = run_for(&nvme_machine(), "geth");
    assert_finding(&v, "NC402", Severity::Ok, &["8.0 GT/s x4"]);
}

#[test]
fn nc403_sata_link_below_maximum() {
    let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    drive0(&mut facts).sata_link_gbps = Some(3.0);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC403",
        Severity::Warning,
        &["3.0 Gb/s of 6.0 Gb/s", "cable"],
    );
}

#[test]
fn nc404_usb_attachment() {
    let mut facts = nvme_machine();
    let d = drive0(&mut facts);
    d.name = "sda".into();
    d.interface = Some(Interface::Usb);
    d.model = Some("PSSD T7".into());
    d.nvme = None;
    d.pcie_link = None;
    d.usb = Some(UsbDetails {
        driver: Some("uas".into()),
        vendor_id: Some("04e8".into()),
        product_id: Some("4001".into()),
        manufacturer: Some("Samsung".into()),
        product: Some("PSSD T7".into()),
        speed_mbps: Some(10000),
    });
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC404",
        Severity::Warning,
        &["USB via PSSD T7 at 10000 Mb/s", "uas"],
    );
    drive0(&mut facts).usb.as_mut().expect("usb").speed_mbps = Some(480);
    drive0(&mut facts).usb.as_mut().expect("usb").driver = Some("usb-storage".into());
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC404", Severity::Critical, &["480 Mb/s", "USB 2"]);
}

// ---------------------------------------------------------------- NC5xx mount, capacity

#[test]
fn nc501_atime_edits_the_users_own_fstab_line() {
    let mut facts = nvme_machine();
    assert_finding(
        &run_for(&facts, "geth"),
        "NC501",
        Severity::Ok,
        &["noatime"],
    );
    let m = facts.mount.as_mut().expect("mount");
    m.atime = AtimeMode::Relatime;
    m.mount_options = vec!["rw".into(), "relatime".into()];
    m.super_options = vec!["rw".into(), "discard".into()];
    m.fstab = FstabEntry::Line {
        number: 9,
        text: "UUID=0a1b2c3d-aaaa-bbbb-cccc-0123456789ab /var/lib/ethereum ext4 defaults,discard,relatime 0 2".into(),
    };
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC501");
    assert_eq!(f.severity, Severity::Info);
    let fix = f.fix.as_deref().unwrap_or("");
    // The user's device spec and `discard` stay; only the access-time option changes.
    assert!(
        fix.contains("to `UUID=0a1b2c3d-aaaa-bbbb-cccc-0123456789ab /var/lib/ethereum ext4 defaults,discard,noatime 0 2`"),
        "{fix}"
    );
    assert!(fix.contains("change line 9"), "{fix}");
    assert!(
        fix.contains("`sudo mount -o remount,noatime /var/lib/ethereum`"),
        "{fix}"
    );
    assert!(
        !fix.contains("/dev/nvme0n1p2"),
        "no invented device spec: {fix}"
    );

    let m = facts.mount.as_mut().expect("mount");
    m.atime = AtimeMode::Strictatime;
    m.fstab = FstabEntry::Line {
        number: 3,
        text: "LABEL=chain\t/var/lib/ethereum\txfs\tstrictatime,nofail".into(),
    };
    let fix = one(&run_for(&facts, "geth"), "NC501")
        .fix
        .clone()
        .unwrap_or_default();
    assert!(
        fix.contains("`LABEL=chain /var/lib/ethereum xfs noatime,nofail`"),
        "{fix}"
    );
}

#[test]
fn nc501_without_an_fstab_line_names_the_mount_unit() {
    let mut facts = nvme_machine();
    let m = facts.mount.as_mut().expect("mount");
    m.atime = AtimeMode::Relatime;
    m.mount_options = vec!["rw".into(), "relatime".into()];
    m.mount_point = "/mnt/eth data".into();
    m.fstab = FstabEntry::NoLine;
    let fix = one(&run_for(&facts, "geth"), "NC501")
        .fix
        .clone()
        .unwrap_or_default();
    assert!(
        fix.contains("/etc/fstab has no line for /mnt/eth data"),
        "{fix}"
    );
    assert!(
        fix.contains(r"systemctl cat 'mnt-eth\x20data.mount'"),
        "{fix}"
    );
    assert!(fix.contains("remount,noatime '/mnt/eth data'"), "{fix}");

    facts.mount.as_mut().expect("mount").fstab = FstabEntry::Unreadable;
    let fix = one(&run_for(&facts, "geth"), "NC501")
        .fix
        .clone()
        .unwrap_or_default();
    assert!(fix.contains("/etc/fstab could not be read"), "{fix}");
    assert!(!fix.contains(" 0 2"), "no invented fstab line: {fix}");
}

#[test]
fn mount_unit_names_follow_systemd_escape() {
    use verdict::findings::mount::mount_unit_name;
    assert_eq!(mount_unit_name("/"), "-.mount");
    assert_eq!(
        mount_unit_name("/var/lib/ethereum"),
        "var-lib-ethereum.mount"
    );
    assert_eq!(mount_unit_name("/mnt/my-disk/"), r"mnt-my\x2ddisk.mount");
    assert_eq!(mount_unit_name("/srv/.hidden"), r"srv-.hidden.mount");
    assert_eq!(mount_unit_name("/.data"), r"\x2edata.mount");
}

#[test]
fn nc502_btrfs_and_nc503_zfs() {
    let mut facts = nvme_machine();
    let m = facts.mount.as_mut().expect("mount");
    m.fs_type = "btrfs".into();
    m.super_options = vec!["rw".into(), "ssd".into(), "space_cache=v2".into()];
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC502",
        Severity::Warning,
        &["copy-on-write", "sudo chattr +C /var/lib/ethereum"],
    );
    facts
        .mount
        .as_mut()
        .expect("mount")
        .super_options
        .push("nodatacow".into());
    assert!(!has(&run_for(&facts, "geth"), "NC502"));

    let m = facts.mount.as_mut().expect("mount");
    m.fs_type = "zfs".into();
    m.source = "tank/ethereum".into();
    m.atime = AtimeMode::Relatime;
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC503",
        Severity::Info,
        &["tank/ethereum", "recordsize=16K", "atime=off"],
    );
    assert_finding(
        &v,
        "NC501",
        Severity::Info,
        &["sudo zfs set atime=off tank/ethereum"],
    );
    assert_finding(
        &v,
        "NC303",
        Severity::Info,
        &["sudo zpool set autotrim=on tank"],
    );
}

#[test]
fn nc504_parity_raid() {
    let mut facts = nvme_machine();
    facts.layers.insert(
        0,
        layer(
            "md127",
            LayerKind::Md,
            Some("raid6"),
            0,
            &["sda", "sdb", "sdc", "sdd"],
            1 << 30,
        ),
    );
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC504",
        Severity::Warning,
        &["md127", "raid6", "sda, sdb, sdc, sdd", "RAID10"],
    );
}

#[test]
fn nc505_read_only_file_system() {
    let mut facts = nvme_machine();
    facts.mount.as_mut().expect("mount").read_only = true;
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC505",
        Severity::Critical,
        &["read-only", "sudo mount -o remount,rw /var/lib/ethereum"],
    );
    assert_eq!(v.grade, Grade::Bad);
}

#[test]
fn nc506_unresolved_stack() {
    let mut facts = nvme_machine();
    facts.unresolved = vec!["overlay: no backing device".into()];
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC506", Severity::Info, &["overlay: no backing device"]);
}

#[test]
fn nc509_unknown_client_falls_back_to_strictest() {
    let v = run_for(&nvme_machine(), "parity");
    assert_finding(&v, "NC509", Severity::Warning, &["parity", "geth"]);
    assert_eq!(v.client, "strictest");
}

#[test]
fn nc510_capacity_against_the_client() {
    let mut facts = nvme_machine();
    drive0(&mut facts).capacity_bytes = Some(500_107_862_016);
    let v = run_for(&facts, "nethermind");
    assert_finding(
        &v,
        "NC510",
        Severity::Critical,
        &["500 GB", "Nethermind needs at least 2 TB"],
    );
    assert_eq!(v.grade, Grade::Bad);
    assert_eq!(
        v.failing_client, None,
        "only strictest names a failing client"
    );

    // A 1.92 TB data-center drive is the 2 TB class.
    drive0(&mut facts).capacity_bytes = Some(1_920_383_410_176);
    let v = run_for(&facts, "nethermind");
    assert_finding(&v, "NC510", Severity::Ok, &["1.9 TB"]);

    // Nethermind's minimum is its recommendation: said once.
    drive0(&mut facts).capacity_bytes = Some(500_107_862_016);
    let f = one(&run_for(&facts, "nethermind"), "NC510").clone();
    assert!(!f.detail.contains("recommended"), "{}", f.detail);
    // Erigon's differ (1 TB minimum, 2 TB recommended): both are said.
    let f = one(&run_for(&facts, "erigon"), "NC510").clone();
    assert!(
        f.detail.contains("at least 1 TB (recommended 2 TB)"),
        "{}",
        f.detail
    );
}

#[test]
fn nc510_strictest_names_the_most_demanding_failing_client() {
    let mut facts = nvme_machine();
    drive0(&mut facts).capacity_bytes = Some(1_000_204_886_016);
    let v = run(&facts);
    let f = one(&v, "NC510");
    assert_eq!(f.severity, Severity::Critical);
    let failing = v.failing_client.clone().expect("a failing client");
    let needs = db();
    let client = needs.client(&failing).expect("known client");
    assert!(f.detail.contains(&client.display), "{f:#?}");
    assert!(f.detail.contains("most demanding"), "{f:#?}");
    // Nothing is more demanding in size than the one named.
    let max_min = needs
        .clients
        .iter()
        .map(|c| c.min_disk_bytes)
        .max()
        .unwrap_or(0);
    assert_eq!(client.min_disk_bytes, max_min);
    // A client that fits a 1 TB drive passes the same facts.
    let lenient = needs
        .clients
        .iter()
        .find(|c| c.min_disk_bytes <= 1_000_000_000_000)
        .expect("some client fits 1 TB");
    let v = run_for(&facts, &lenient.name);
    assert!(all(&v, "NC510")
        .iter()
        .all(|f| f.severity < Severity::Critical));
}

#[test]
fn nc511_free_space() {
    let mut facts = nvme_machine();
    facts.mount.as_mut().expect("mount").free_bytes = Some(120 * GB);
    let v = run_for(&facts, "nethermind");
    assert_finding(
        &v,
        "NC511",
        Severity::Warning,
        &["120 GB free", "94% used", "Nethermind", "322 GB"],
    );
    facts.mount.as_mut().expect("mount").free_bytes = Some(1_500 * GB);
    assert_finding(
        &run_for(&facts, "nethermind"),
        "NC511",
        Severity::Ok,
        &["1.5 TB free"],
    );
}

fn run_pair(facts: &probe::Facts, client: &str, consensus: &str) -> verdict::judge::Verdict {
    verdict::judge::judge_node(
        facts,
        None,
        &db(),
        &verdict::judge::ClientChoice::Named(client.into()),
        Some(consensus),
    )
}

#[test]
fn nc510_nc511_judge_the_execution_and_consensus_client_together() {
    let mut facts = nvme_machine();
    drive0(&mut facts).capacity_bytes = Some(2_000_398_934_016);
    facts.mount.as_mut().expect("mount").free_bytes = Some(1_100 * GB);

    // Geth alone: a 2 TB drive is its recommended size, 1.1 TB free is enough.
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC510",
        Severity::Ok,
        &[
            "recommended size for Geth",
            "takes up to 200 GB more",
            "name yours to count it",
            "4 TB the conservative choice",
        ],
    );
    assert_finding(&v, "NC511", Severity::Ok, &["1.1 TB free"]);
    assert_eq!(v.consensus_client, None);

    // With Lighthouse on the same disk: the drive still fits, the free space does not
    // (Geth's 1 TB plus Lighthouse's 200 GB).
    let v = run_pair(&facts, "geth", "lighthouse");
    assert_eq!(v.consensus_client.as_deref(), Some("lighthouse"));
    assert_finding(
        &v,
        "NC510",
        Severity::Ok,
        &[
            "Geth + Lighthouse",
            "Lighthouse's beacon database adds about 200 GB",
        ],
    );
    assert_finding(
        &v,
        "NC511",
        Severity::Warning,
        &["Geth + Lighthouse", "1.2 TB"],
    );

    // Lodestar's documentation asks for 4 TB for the whole node.
    facts.mount.as_mut().expect("mount").free_bytes = Some(1_500 * GB);
    let v = run_pair(&facts, "geth", "lodestar");
    assert_finding(
        &v,
        "NC510",
        Severity::Warning,
        &[
            "Geth + Lodestar",
            "below the recommended 4 TB",
            "recommends 4 TB for the whole node",
        ],
    );

    // The conservative note is not made for a drive that already has 4 TB.
    drive0(&mut facts).capacity_bytes = Some(4_000_787_030_016);
    let v = run_pair(&facts, "geth", "nimbus");
    let f = one(&v, "NC510");
    assert!(!f.detail.contains("conservative"), "{f:#?}");
}

#[test]
fn nc509_unknown_consensus_client_is_said_and_not_counted() {
    let v = run_pair(&nvme_machine(), "geth", "grandine-typo");
    assert_finding(
        &v,
        "NC509",
        Severity::Warning,
        &["grandine-typo", "lighthouse"],
    );
    assert_eq!(v.consensus_client, None);
}

#[test]
fn nc511_is_critical_when_a_sync_or_prune_cannot_finish() {
    let mut facts = nvme_machine();
    let mount = facts.mount.as_mut().expect("mount");
    // 96 % used: more than a quarter of Nethermind's 322 GB is free, but the disk is full for
    // a client running as its own user.
    mount.total_bytes = Some(2_000 * GB);
    mount.free_bytes = Some(90 * GB);
    let v = run_for(&facts, "nethermind");
    assert_finding(
        &v,
        "NC511",
        Severity::Critical,
        &["90 GB free", "96% used", "Too little free space"],
    );
    assert_eq!(v.grade, Grade::Bad);

    // Under a quarter of Nethermind's 322 GB left, on a volume far from full (70 %).
    let mount = facts.mount.as_mut().expect("mount");
    mount.total_bytes = Some(233 * GB);
    mount.free_bytes = Some(70 * GB);
    assert_finding(
        &run_for(&facts, "nethermind"),
        "NC511",
        Severity::Critical,
        &["70 GB free"],
    );

    // Below the need but able to finish: a warning.
    let mount = facts.mount.as_mut().expect("mount");
    mount.total_bytes = Some(2_000 * GB);
    mount.free_bytes = Some(200 * GB);
    assert_finding(
        &run_for(&facts, "nethermind"),
        "NC511",
        Severity::Warning,
        &["200 GB free", "Little free space"],
    );
}

// ---------------------------------------------------------------- NC6xx platform

#[test]
fn nc601_vps_platform_from_the_database() {
    let mut facts = nvme_machine();
    let d = drive0(&mut facts);
    d.name = "vda".into();
    d.model = None;
    d.interface = Some(Interface::Virtio);
    d.nvme = None;
    d.pcie_link = None;
    d.health = None;
    facts.platform.sys_vendor = Some("QEMU".into());
    facts.platform.product_name = Some("Standard PC (i440FX + PIIX, 1996)".into());
    facts.platform.cloud = Some("contabo".into());
    facts.platform.virtualized = Some(true);
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC601");
    assert!(f.title.contains("Contabo"), "{f:#?}");
    assert!(f.severity >= Severity::Warning, "{f:#?}");
    assert!(v.grade >= Grade::Ugly);
    assert!(
        !has(&v, "NC602"),
        "a listed platform is judged by its entry"
    );
}

#[test]
fn nc602_virtual_disk_without_and_with_a_benchmark() {
    let mut facts = nvme_machine();
    let d = drive0(&mut facts);
    d.name = "vda".into();
    d.model = None;
    d.interface = Some(Interface::Virtio);
    d.nvme = None;
    d.pcie_link = None;
    facts.platform.sys_vendor = Some("QEMU".into());
    facts.platform.product_name = Some("Standard PC (Q35 + ICH9, 2009)".into());
    facts.platform.cloud = Some("kvm".into());
    facts.platform.virtualized = Some(true);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC602",
        Severity::Warning,
        &["vda", "10,000 provisioned IOPS"],
    );
    assert!(
        one(&v, "NC602")
            .fix
            .as_deref()
            .unwrap_or("")
            .contains("`nodecheck check --bench full`"),
        "nothing measured: measure it"
    );

    // The quick check measured latency, not the provisioned IOPS.
    let report = bench_report(latency(90.0, 180.0, 250.0), None, EngineKind::IoUring);
    let v = judge(
        &facts,
        Some(&report),
        &db(),
        &ClientChoice::Named("geth".into()),
    );
    let f = one(&v, "NC602");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.fix.as_deref().unwrap_or("").contains("Measure its IOPS"),
        "{f:#?}"
    );

    // After the IOPS test nothing asks to measure again.
    let report = bench_report(
        latency(90.0, 180.0, 250.0),
        Some((20_000.0, 7_000.0)),
        EngineKind::IoUring,
    );
    let v = judge(
        &facts,
        Some(&report),
        &db(),
        &ClientChoice::Named("geth".into()),
    );
    let f = one(&v, "NC602");
    assert_eq!(f.severity, Severity::Info);
    let fix = f.fix.as_deref().unwrap_or("");
    assert!(
        !fix.contains("--bench") && !fix.to_lowercase().contains("measure it"),
        "{fix}"
    );
    assert_eq!(f.title, "Virtual or cloud volume");
}

#[test]
fn nc603_io_uring_blocked_by_seccomp_or_sysctl() {
    let mut facts = nvme_machine();
    facts.io_uring = IoUringStatus {
        available: Some(false),
        sysctl_disabled: Some(0),
        reason: Some("io_uring_setup: EPERM (Docker seccomp?)".into()),
    };
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC603",
        Severity::Info,
        &["seccomp", "--security-opt seccomp=unconfined"],
    );
    facts.io_uring.sysctl_disabled = Some(2);
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC603",
        Severity::Info,
        &[
            "kernel.io_uring_disabled = 2",
            "sysctl -w kernel.io_uring_disabled=0",
        ],
    );
}

// ---------------------------------------------------------------- NC7xx bench

#[test]
fn nc701_qd1_latency() {
    let facts = nvme_machine();
    let fast = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    let v = judge(
        &facts,
        Some(&fast),
        &db(),
        &ClientChoice::Named("geth".into()),
    );
    assert_finding(&v, "NC701", Severity::Ok, &["p99 140 µs", "max 260 µs"]);

    let spiky = bench_report(latency(70.0, 140.0, 900.0), None, EngineKind::IoUring);
    let v = judge(
        &facts,
        Some(&spiky),
        &db(),
        &ClientChoice::Named("geth".into()),
    );
    assert_finding(&v, "NC701", Severity::Info, &["max 900 µs", "300 µs"]);

    let slow = bench_report(latency(600.0, 2_500.0, 9_000.0), None, EngineKind::IoUring);
    let v = judge(&facts, Some(&slow), &db(), &ClientChoice::Strictest);
    let f = one(&v, "NC701");
    assert!(f.severity >= Severity::Warning, "{f:#?}");
    assert!(f.detail.contains("p99 2.5 ms"), "{f:#?}");

    let hopeless = bench_report(
        latency(3_000.0, 20_000.0, 90_000.0),
        None,
        EngineKind::IoUring,
    );
    let v = judge(&facts, Some(&hopeless), &db(), &ClientChoice::Strictest);
    assert_eq!(one(&v, "NC701").severity, Severity::Critical);
}

#[test]
fn nc702_randrw_below_the_client_needs() {
    let facts = nvme_machine();
    let report = bench_report(
        latency(70.0, 140.0, 260.0),
        Some((7_000.0, 2_300.0)),
        EngineKind::IoUring,
    );
    let v = judge(
        &facts,
        Some(&report),
        &db(),
        &ClientChoice::Named("nethermind".into()),
    );
    assert_finding(
        &v,
        "NC702",
        Severity::Critical,
        &["7.0k/2.3k", "Nethermind needs 10k read and 10k write IOPS"],
    );

    let v = judge(&facts, Some(&report), &db(), &ClientChoice::Strictest);
    assert_eq!(
        v.failing_client.as_deref(),
        Some("nethermind"),
        "{:#?}",
        v.findings
    );

    let good = bench_report(
        latency(70.0, 140.0, 260.0),
        Some((140_000.0, 46_000.0)),
        EngineKind::IoUring,
    );
    let v = judge(
        &facts,
        Some(&good),
        &db(),
        &ClientChoice::Named("nethermind".into()),
    );
    assert_finding(&v, "NC702", Severity::Ok, &["140k/46k"]);
}

#[test]
fn nc703_fallback_engine_and_nc704_caveats() {
    let facts = nvme_machine();
    let mut report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::Psync);
    report.warnings = vec!["span 4 GiB < 150 GiB: less comparable".into()];
    let v = judge(
        &facts,
        Some(&report),
        &db(),
        &ClientChoice::Named("geth".into()),
    );
    assert_finding(&v, "NC703", Severity::Info, &["psync", "seccomp"]);
    assert_finding(&v, "NC704", Severity::Info, &["span 4 GiB"]);
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
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC102",
        Severity::Warning,
        &["10,000 provisioned IOPS", "aws ec2 modify-volume"],
    );
    // The volume is judged by its entry, not again as an anonymous virtual disk.
    assert!(!has(&v, "NC602"), "{:?}", codes(&v));
    assert_eq!(v.grade, Grade::Ugly);
}

#[test]
fn smart_fixes_name_the_device() {
    let mut facts = nvme_machine();
    health0(&mut facts).media_errors = Some(1);
    let v = run_for(&facts, "geth");
    let fix = one(&v, "NC205").fix.clone().unwrap_or_default();
    assert!(fix.contains("sudo smartctl -x /dev/nvme0n1"), "{fix}");
}

#[test]
fn nc102_capacity_rule_adata_s40g_4tb_is_qlc_and_bad_2tb_fine() {
    let mut facts = nvme_machine();
    drive0(&mut facts).model = Some("XPG SPECTRIX S40G".into());
    drive0(&mut facts).firmware = Some("32B3T8EA".into());
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
    assert_eq!(
        v.drives[0].entry.as_ref().and_then(|e| e.nand.as_deref()),
        Some("qlc")
    );

    drive0(&mut facts).capacity_bytes = Some(2_048_408_248_320);
    let v = run_for(&facts, "geth");
    assert!(all(&v, "NC102")
        .iter()
        .all(|f| f.severity <= Severity::Info));
    assert_eq!(v.drives[0].grade, Grade::Good);
    assert_eq!(
        v.drives[0].entry.as_ref().and_then(|e| e.nand.as_deref()),
        Some("tlc")
    );
}

#[test]
fn nc102_990_pro_before_1b2qjxd7() {
    let mut facts = nvme_machine();
    drive0(&mut facts).model = Some("Samsung SSD 990 PRO 2TB".into());
    drive0(&mut facts).firmware = Some("0B2QJXD7".into());
    let v = run_for(&facts, "geth");
    assert_finding(&v, "NC102", Severity::Critical, &["0B2QJXD7", "1B2QJXD7"]);
    drive0(&mut facts).firmware = Some("4B2QJXD7".into());
    let v = run_for(&facts, "geth");
    assert!(!has(&v, "NC102"), "{:?}", codes(&v));
    assert_eq!(v.grade, Grade::Good);
}

#[test]
fn nc301_usb_bridge_gets_the_udev_unmap_rule() {
    let mut facts = nvme_machine();
    let d = drive0(&mut facts);
    d.name = "sdb".into();
    d.interface = Some(Interface::Usb);
    d.model = Some("Portable SSD T5".into());
    d.trim_supported = Some(false);
    d.nvme = None;
    d.pcie_link = None;
    d.usb = Some(UsbDetails {
        driver: Some("uas".into()),
        vendor_id: Some("04e8".into()),
        product_id: Some("61f5".into()),
        manufacturer: Some("Samsung".into()),
        product: Some("Portable SSD T5".into()),
        speed_mbps: Some(5000),
    });
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC301",
        Severity::Warning,
        &[
            "over USB",
            r#"ATTRS{idVendor}=="04e8", ATTRS{idProduct}=="61f5", SUBSYSTEM=="scsi_disk", ATTR{provisioning_mode}="unmap""#,
            "sg_vpd -p lbpv /dev/sdb",
        ],
    );
}

#[test]
fn nc402_older_generation_at_full_width_is_info() {
    let mut facts = nvme_machine();
    drive0(&mut facts).pcie_link = Some(PcieLink {
        current_gts: Some(8.0),
        current_width: Some(4),
        max_gts: Some(16.0),
        max_width: Some(4),
    });
    let v = run_for(&facts, "geth");
    assert_finding(
        &v,
        "NC402",
        Severity::Info,
        &["8.0 GT/s x4 of 16.0 GT/s x4"],
    );
    drive0(&mut facts).pcie_link = Some(PcieLink {
        current_gts: Some(2.5),
        current_width: Some(4),
        max_gts: Some(8.0),
        max_width: Some(4),
    });
    assert_finding(
        &run_for(&facts, "geth"),
        "NC402",
        Severity::Warning,
        &["2.5 GT/s x4 of 8.0 GT/s x4"],
    );
}

#[test]
fn nc701_over_nfs_says_what_the_network_adds() {
    let mut facts = nvme_machine();
    facts.drives.clear();
    facts.layers.clear();
    facts.stack.clear();
    if let Some(mount) = facts.mount.as_mut() {
        mount.fs_type = "nfs4".into();
        mount.source = "diskstation.lan:/volume1/ethereum".into();
        mount.super_options = vec!["rw".into(), "vers=4.2".into(), "addr=192.168.1.10".into()];
        mount.network =
            probe::network::share_of(&mount.fs_type, &mount.source, &mount.super_options);
    }
    let report = bench_report(
        latency(1_400.0, 6_000.0, 20_000.0),
        None,
        bench::EngineKind::IoUring,
    );
    let v = judge(
        &facts,
        Some(&report),
        &db(),
        &ClientChoice::Named("geth".into()),
    );
    assert_finding(&v, "NC520", Severity::Critical, &["diskstation.lan"]);
    let f = one(&v, "NC701");
    assert!(
        f.detail.contains("Measured over NFS")
            && f.detail
                .contains("add about 1.3 ms to every read (p50 1.4 ms)"),
        "{f:#?}"
    );

    // The same measurement on a local drive carries no such note.
    let v = judge(
        &nvme_machine(),
        Some(&report),
        &db(),
        &ClientChoice::Named("geth".into()),
    );
    assert!(!one(&v, "NC701").detail.contains("Measured over"));
}
