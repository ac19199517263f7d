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
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 980 PRO 2TB"));
    assert_eq!(drive.serial.as_deref(), Some("S6B0NL0T412345K"));
    assert_eq!(drive.firmware.as_deref(), Some("5B2QGXA7"));
    assert_eq!(drive.interface, Some(Interface::Nvme));
    assert_eq!(drive.capacity_bytes, Some(2_000_398_934_016));
    assert_eq!(drive.rotational, Some(false));
    assert_eq!(drive.scheduler.as_deref(), Some("none"));
    assert_eq!(drive.temperature_c, Some(41.85));
    assert_eq!(
        drive.hmb,
        Some(false),
        "kernel 6.8 has the attribute, so absence means no HMB"
    );
    let link = drive.pcie_link.expect("link");
    assert_eq!((link.current_gts, link.current_width), (Some(8.0), Some(2)));
    assert_eq!((link.max_gts, link.max_width), (Some(16.0), Some(4)));
    assert_eq!(drive.controller_driver.as_deref(), Some("nvme"));
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
    let facts = run("nvme_with_hmb");
    let drive = only_drive(&facts);
    assert_eq!(drive.model.as_deref(), Some("KINGSTON SNV2S2000G"));
    assert_eq!(drive.hmb, Some(true));
    assert_eq!(drive.temperature_c, Some(52.85));
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
    assert_eq!(drive.model.as_deref(), Some("CT2000MX500SSD1"));
    assert_eq!(
        drive.firmware.as_deref(),
        Some("M3CR046"),
        "IDENTIFY beats the SCSI rev"
    );
    assert_eq!(drive.serial.as_deref(), Some("2235E6A1B2C3"));
    assert_eq!(
        drive.vendor, None,
        "libata's placeholder vendor ATA is dropped"
    );
    assert_eq!(drive.interface, Some(Interface::Sata));
    assert_eq!(drive.controller_mode, Some(ControllerMode::Ahci));
    assert_eq!(drive.controller_driver.as_deref(), Some("ahci"));
    assert_eq!(drive.controller_pci_class.as_deref(), Some("0x010601"));
    assert_eq!(drive.sata_link_gbps, Some(6.0));
    assert_eq!(drive.sata_link_max_gbps, Some(6.0));
    assert_eq!(drive.trim_supported, Some(true));
    assert_eq!(drive.rotation_rate_rpm, Some(0));
    assert_eq!(drive.temperature_c, Some(34.0));
    assert_eq!(drive.temperature_source.as_deref(), Some("hwmon"));
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
    let drive = only_drive(&facts);
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 870 QVO 1TB"));
    assert_eq!(drive.controller_mode, Some(ControllerMode::Raid));
    assert_eq!(
        drive.trim_supported,
        Some(true),
        "the drive itself can TRIM"
    );
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
    let facts = run("sata_ide_mode");
    let drive = only_drive(&facts);
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 860 EVO 500GB"));
    assert_eq!(drive.controller_mode, Some(ControllerMode::Ide));
    assert_eq!(drive.controller_driver.as_deref(), Some("ata_piix"));
    assert_eq!(drive.sata_link_gbps, Some(3.0));
    assert_eq!(drive.sata_link_max_gbps, Some(6.0));
    assert!(facts.mount.as_ref().expect("mount").discard);
    snapshot("sata_ide_mode", &facts);
}

#[test]
fn usb_uas() {
    let facts = run("usb_uas");
    assert_eq!(facts.stack, vec!["sdb1", "sdb"]);
    let drive = only_drive(&facts);
    assert_eq!(drive.interface, Some(Interface::Usb));
    assert_eq!(drive.model.as_deref(), Some("Portable SSD T5"));
    assert_eq!(drive.vendor.as_deref(), Some("Samsung"));
    assert_eq!(drive.controller_driver.as_deref(), Some("uas"));
    let usb = drive.usb.as_ref().expect("usb");
    assert_eq!(usb.driver.as_deref(), Some("uas"));
    assert_eq!(usb.vendor_id.as_deref(), Some("04e8"));
    assert_eq!(usb.product_id.as_deref(), Some("61f5"));
    assert_eq!(usb.speed_mbps, Some(5000));
    assert_eq!(drive.write_cache.as_deref(), Some("write through"));
    assert_eq!(facts.trim_effective, Some(false));
    snapshot("usb_uas", &facts);
}

#[test]
fn hdd() {
    let facts = run("hdd");
    let drive = only_drive(&facts);
    assert_eq!(drive.model.as_deref(), Some("WDC WD20EFRX-68EUZN0"));
    assert_eq!(drive.firmware.as_deref(), Some("82.00A82"));
    assert_eq!(drive.rotational, Some(true));
    assert_eq!(drive.rotation_rate_rpm, Some(5400));
    assert_eq!(
        drive.vpd_rotation_rate_rpm,
        Some(5400),
        "libata's VPD page 0xB1 repeats word 217"
    );
    assert_eq!(drive.queue_rotational, Some(true));
    assert_eq!(drive.trim_supported, Some(false));
    assert_eq!(drive.physical_block_size, Some(4096));
    assert_eq!(drive.scheduler.as_deref(), Some("mq-deadline"));
    assert_eq!(drive.temperature_c, Some(38.0));
    assert_eq!(facts.trim_effective, Some(false));
    snapshot("hdd", &facts);
}

#[test]
fn qemu_sata_ssd_rotation_unreported() {
    let facts = run("qemu_sata_ssd_rotation_unreported");
    let drive = only_drive(&facts);
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 870 QVO 1TB"));
    assert_eq!(drive.interface, Some(Interface::Sata));
    // Word 217 = 0 is "not reported", and the VPD page built from it says the same.
    assert_eq!(drive.rotation_rate_rpm, None);
    assert_eq!(drive.vpd_rotation_rate_rpm, None);
    assert_eq!(
        drive.queue_rotational,
        Some(true),
        "the kernel's flag as read"
    );
    assert_eq!(drive.rotational, Some(true), "nothing better to go by");
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
        run_probe(&root, Path::new(fixture::DATADIR), &ProbeOptions::default()).expect("probe");
    let drive = only_drive(&facts);
    assert_eq!(drive.rotation_rate_rpm, None);
    assert_eq!(drive.vpd_rotation_rate_rpm, Some(0));
    assert_eq!(drive.queue_rotational, Some(true));
    assert_eq!(drive.rotational, Some(false), "the page outranks the flag");

    // A malformed page is a warning, never a value.
    std::fs::write(
        root_dir.join(scsi).join("vpd_pgb1"),
        [0u8, 0xB0, 0, 0x3C, 0, 1],
    )
    .expect("page");
    let facts = run_probe(
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
    let drive = &facts.drives[0];
    assert_eq!(drive.interface, Some(Interface::Sas));
    assert_eq!(drive.vendor.as_deref(), Some("SEAGATE"));
    assert_eq!(drive.model.as_deref(), Some("ST4000NM0295"));
    assert_eq!(drive.controller_mode, Some(ControllerMode::Sas));
    assert_eq!(drive.controller_driver.as_deref(), Some("mpt3sas"));
    assert_eq!(drive.rotational, Some(true));
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
    let drive = only_drive(&facts);
    assert_eq!(drive.name, "sdb");
    assert_eq!(drive.interface, Some(Interface::Usb));
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 870"));
    assert_eq!(drive.model_source, Some(ModelSource::ScsiInquiry));
    assert_eq!(
        drive.vendor, None,
        "libata's placeholder vendor `ATA` is dropped"
    );
    assert_eq!(drive.capacity_bytes, Some(3_907_029_168 * 512));
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
        run_probe(&root, Path::new(fixture::DATADIR), &ProbeOptions::default()).expect("probe");
    let drive = only_drive(&facts);
    assert_eq!(drive.model.as_deref(), Some("CT2000MX500SSD1"));
    assert_eq!(
        drive.firmware.as_deref(),
        Some("M3CR046"),
        "IDENTIFY still used"
    );
    assert_eq!(drive.trim_supported, Some(true));
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
