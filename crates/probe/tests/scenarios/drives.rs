//! One drive per scenario: interface, link, controller mode and identity as the probe reads them.

use super::*;

#[test]
fn nvme_degraded_pcie_link() {
    let facts = run("nvme_degraded_pcie_link");
    assert!(!facts.live && !facts.privileged);
    assert_eq!(facts.stack, vec!["nvme0n1p2", "nvme0n1"]);
    assert_eq!(facts.trim_effective, Some(true));
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.mount_point, "/");
    assert_eq!(mount.fs_type, "ext4");
    assert_eq!(mount.atime, AtimeMode::Relatime);
    assert_eq!(mount.free_bytes, Some(1_100_000_000_000));
    let drive = only_drive(&facts);
    assert_drive(drive, |d| Drive {
        model: Some("Samsung SSD 980 PRO 2TB".into()),
        serial: Some("S6B0NL0T412345K".into()),
        firmware: Some("5B2QGXA7".into()),
        interface: Some(Interface::Nvme),
        capacity_bytes: Some(2_000_398_934_016),
        rotational: Some(false),
        scheduler: Some("none".into()),
        temperature_c: Some(41.85),
        // Kernel 6.8 has the attribute, so absence means no HMB.
        hmb: Some(false),
        controller_driver: Some("nvme".into()),
        ..d
    });
    let link = drive.pcie_link.expect("link");
    assert_eq!((link.current_gts, link.current_width), (Some(8.0), Some(2)));
    assert_eq!((link.max_gts, link.max_width), (Some(16.0), Some(4)));
    let nvme = drive.nvme.as_ref().expect("nvme details");
    assert_eq!(nvme.pci_vendor_id.as_deref(), Some("0x144d"));
    assert_eq!(nvme.pci_address.as_deref(), Some("0000:03:00.0"));
    assert_eq!(facts.fstrim_timer, Some(true));
    assert_eq!(facts.platform.sys_vendor.as_deref(), Some("ASUS"));
    assert_eq!(facts.platform.cloud, None);
    assert_eq!(facts.platform.virtualized, Some(false));
    assert!(facts
        .unavailable
        .iter()
        .any(|u| u.fact == "NVMe SMART log (nvme0)" && u.reason.contains("replayed")));
    assert_eq!(facts.io_uring.sysctl_disabled, Some(0));
    assert_eq!(
        facts.io_uring.available, None,
        "a snapshot cannot show seccomp"
    );
    assert!(facts.warnings.is_empty(), "{:?}", facts.warnings);
    snapshot("nvme_degraded_pcie_link", &facts);
}

#[test]
fn nvme_with_hmb() {
    let facts = run_one_drive("nvme_with_hmb", |d| Drive {
        model: Some("KINGSTON SNV2S2000G".into()),
        hmb: Some(true),
        temperature_c: Some(52.85),
        ..d
    });
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(
        mount.mount_point, "/",
        "the datadir is on the root file system"
    );
    assert_eq!(mount.free_bytes, None, "no statvfs.json in this snapshot");
    assert_unavailable(&facts, "free space of /");
    snapshot("nvme_with_hmb", &facts);
}

#[test]
fn sata_ahci() {
    let facts = run("sata_ahci");
    assert_eq!(facts.stack, vec!["sda1", "sda"]);
    assert_eq!(facts.trim_effective, Some(true));
    let drive = only_drive(&facts);
    assert_drive(drive, |d| Drive {
        model: Some("CT2000MX500SSD1".into()),
        // IDENTIFY beats the SCSI rev.
        firmware: Some("M3CR046".into()),
        serial: Some("2235E6A1B2C3".into()),
        // libata's placeholder vendor ATA is dropped.
        vendor: None,
        interface: Some(Interface::Sata),
        controller_mode: Some(ControllerMode::Ahci),
        controller_driver: Some("ahci".into()),
        controller_pci_class: Some("0x010601".into()),
        sata_link_gbps: Some(6.0),
        sata_link_max_gbps: Some(6.0),
        trim_supported: Some(true),
        rotation_rate_rpm: Some(0),
        temperature_c: Some(34.0),
        temperature_source: Some(HealthSource::Hwmon),
        ..d
    });
    let ata = drive.ata.as_ref().expect("ata");
    assert_eq!(ata.port.as_deref(), Some("ata3"));
    assert_eq!(ata.device.as_deref(), Some("dev3.0"));
    assert_eq!(ata.trim_mode.as_deref(), Some("queued"));
    assert_eq!(ata.deterministic_read_after_trim, Some(true));
    assert_eq!(facts.fstrim_timer, Some(false));
    assert_unavailable(&facts, "SMART health (sda)");
    snapshot("sata_ahci", &facts);
}

#[test]
fn sata_raid_mode_trim_blocked() {
    let facts = run("sata_raid_mode_trim_blocked");
    assert_eq!(
        facts.mount.as_ref().map(|m| m.mount_point.as_str()),
        Some(fixture::DATADIR)
    );
    assert_drive(only_drive(&facts), |d| Drive {
        model: Some("Samsung SSD 870 QVO 1TB".into()),
        controller_mode: Some(ControllerMode::Raid),
        // The drive itself can TRIM...
        trim_supported: Some(true),
        ..d
    });
    assert_eq!(
        facts.trim_effective,
        Some(false),
        "but the controller drops it"
    );
    assert_eq!(facts.layers[1].discard_max_bytes, Some(0));
    snapshot("sata_raid_mode_trim_blocked", &facts);
}

#[test]
fn sata_ide_mode() {
    let facts = run_one_drive("sata_ide_mode", |d| Drive {
        model: Some("Samsung SSD 860 EVO 500GB".into()),
        controller_mode: Some(ControllerMode::Ide),
        controller_driver: Some("ata_piix".into()),
        sata_link_gbps: Some(3.0),
        sata_link_max_gbps: Some(6.0),
        ..d
    });
    assert!(facts.mount.as_ref().expect("mount").discard);
    snapshot("sata_ide_mode", &facts);
}

#[test]
fn usb_uas() {
    let facts = run("usb_uas");
    assert_eq!(facts.stack, vec!["sdb1", "sdb"]);
    let drive = only_drive(&facts);
    assert_drive(drive, |d| Drive {
        interface: Some(Interface::Usb),
        model: Some("Portable SSD T5".into()),
        vendor: Some("Samsung".into()),
        controller_driver: Some("uas".into()),
        write_cache: Some("write through".into()),
        ..d
    });
    let usb = drive.usb.as_ref().expect("usb");
    assert_eq!(usb.driver.as_deref(), Some("uas"));
    assert_eq!(usb.vendor_id.as_deref(), Some("04e8"));
    assert_eq!(usb.product_id.as_deref(), Some("61f5"));
    assert_eq!(usb.speed_mbps, Some(5000));
    assert_eq!(facts.trim_effective, Some(false));
    snapshot("usb_uas", &facts);
}

#[test]
fn hdd() {
    let facts = run_one_drive("hdd", |d| Drive {
        model: Some("WDC WD20EFRX-68EUZN0".into()),
        firmware: Some("82.00A82".into()),
        rotational: Some(true),
        rotation_rate_rpm: Some(5400),
        // libata's VPD page 0xB1 repeats word 217.
        vpd_rotation_rate_rpm: Some(5400),
        queue_rotational: Some(true),
        trim_supported: Some(false),
        physical_block_size: Some(4096),
        scheduler: Some("mq-deadline".into()),
        temperature_c: Some(38.0),
        ..d
    });
    assert_eq!(facts.trim_effective, Some(false));
    snapshot("hdd", &facts);
}

#[test]
fn qemu_sata_ssd_rotation_unreported() {
    let facts = run_one_drive("qemu_sata_ssd_rotation_unreported", |d| Drive {
        model: Some("Samsung SSD 870 QVO 1TB".into()),
        interface: Some(Interface::Sata),
        // Word 217 = 0 is "not reported", and the VPD page built from it says the same.
        rotation_rate_rpm: None,
        vpd_rotation_rate_rpm: None,
        // The kernel's flag as read, and nothing better to go by.
        queue_rotational: Some(true),
        rotational: Some(true),
        ..d
    });
    assert!(facts.warnings.is_empty(), "{:?}", facts.warnings);
    snapshot("qemu_sata_ssd_rotation_unreported", &facts);
}

#[test]
fn vpd_page_decides_the_probe_rotational_flag_without_identify() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root_dir = dir.path().join("root");
    fixture::qemu_sata_ssd_rotation_unreported(&root_dir).expect("fixture");
    // A bridge that hides IDENTIFY but answers the VPD page with "non-rotating".
    let scsi = "sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0";
    std::fs::write(
        root_dir.join("sys/devices/pci0000:00/0000:00:1f.2/ata1/link1/dev1.0/ata_device/dev1.0/id"),
        "",
    )
    .expect("empty IDENTIFY");
    std::fs::write(
        root_dir.join(scsi).join("vpd_pgb1"),
        ::probe::vpd::encode_block_characteristics(0x0001, true),
    )
    .expect("page");
    let root = Root::at(&root_dir).expect("root");
    let facts =
        probe_path(&root, Path::new(fixture::DATADIR), &ProbeOptions::default()).expect("probe");
    assert_drive(only_drive(&facts), |d| Drive {
        rotation_rate_rpm: None,
        vpd_rotation_rate_rpm: Some(0),
        queue_rotational: Some(true),
        // The page outranks the flag.
        rotational: Some(false),
        ..d
    });

    // A malformed page is a warning, never a value.
    std::fs::write(
        root_dir.join(scsi).join("vpd_pgb1"),
        [0u8, 0xB0, 0, 0x3C, 0, 1],
    )
    .expect("page");
    let facts = probe_path(
        &Root::at(&root_dir).expect("root"),
        Path::new(fixture::DATADIR),
        &ProbeOptions::default(),
    )
    .expect("probe");
    assert_eq!(only_drive(&facts).vpd_rotation_rate_rpm, None);
    assert_warning(&facts, "vpd_pgb1");
}

#[test]
fn nvme_behind_vmd() {
    let facts = run("nvme_behind_vmd");
    let drive = only_drive(&facts);
    assert_eq!(drive.controller_mode, Some(ControllerMode::Vmd));
    assert_eq!(
        drive.nvme.as_ref().and_then(|n| n.pci_address.as_deref()),
        Some("10000:e1:00.0")
    );
    assert_eq!(drive.pcie_link.and_then(|l| l.max_width), Some(4));
}

#[test]
fn sas_multipath() {
    let facts = run("sas_multipath");
    assert_eq!(facts.stack, vec!["dm-0", "sda", "sdb"]);
    assert_eq!(facts.layers[0].kind, LayerKind::Multipath);
    assert_eq!(facts.drives.len(), 2);
    assert_drive(&facts.drives[0], |d| Drive {
        interface: Some(Interface::Sas),
        vendor: Some("SEAGATE".into()),
        model: Some("ST4000NM0295".into()),
        controller_mode: Some(ControllerMode::Sas),
        controller_driver: Some("mpt3sas".into()),
        rotational: Some(true),
        ..d
    });
    assert_eq!(facts.trim_effective, Some(false));
    assert_eq!(facts.platform.virtualized, Some(false));
    assert_eq!(
        facts.io_uring.sysctl_disabled, None,
        "kernels before 6.6 have no such sysctl"
    );
}

#[test]
fn usb_sata_bridge_shows_only_the_inquiry_product() {
    let facts = run("usb_sata_bridge_cut_model");
    snapshot("usb_sata_bridge_cut_model", &facts);
    assert_drive(only_drive(&facts), |d| Drive {
        name: "sdb".into(),
        interface: Some(Interface::Usb),
        model: Some("Samsung SSD 870".into()),
        model_source: Some(ModelSource::ScsiInquiry),
        // libata's placeholder vendor `ATA` is dropped.
        vendor: None,
        capacity_bytes: Some(3_907_029_168 * 512),
        ..d
    });
}

#[test]
fn model_sources_follow_the_interface() {
    for (name, source) in [
        ("nvme_degraded_pcie_link", ModelSource::NvmeIdentify),
        ("sata_ahci", ModelSource::AtaIdentify),
        ("hostile_garbage_identify", ModelSource::ScsiInquiry),
    ] {
        let facts = run(name);
        assert_eq!(only_drive(&facts).model_source, Some(source), "{name}");
    }
}

/// An IDENTIFY dump whose word 255 checksum is wrong is still used, and says so by device.
#[test]
fn identify_with_a_bad_checksum_is_used_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::sata_ahci_identify_checksum_mismatch(dir.path()).expect("builds");
    let root = Root::at(dir.path()).expect("root");
    let facts =
        probe_path(&root, Path::new(fixture::DATADIR), &ProbeOptions::default()).expect("probe");
    assert_drive(only_drive(&facts), |d| Drive {
        model: Some("CT2000MX500SSD1".into()),
        // IDENTIFY still used.
        firmware: Some("M3CR046".into()),
        trim_supported: Some(true),
        ..d
    });
    let checksum_warnings: Vec<&String> = facts
        .warnings
        .iter()
        .filter(|w| w.contains("checksum"))
        .collect();
    assert_eq!(checksum_warnings.len(), 1, "{:?}", facts.warnings);
    assert!(
        checksum_warnings[0].starts_with("sda: ") && checksum_warnings[0].contains("word 255"),
        "{checksum_warnings:?}"
    );
}

/// The signed dumps the fixtures write carry no such warning.
#[test]
fn a_valid_identify_checksum_is_silent() {
    let facts = run("sata_ahci");
    assert!(
        !facts.warnings.iter().any(|w| w.contains("checksum")),
        "{:?}",
        facts.warnings
    );
}
