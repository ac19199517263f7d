//! The probe against every fixture scenario: explicit checks of the facts that matter plus a
//! JSON snapshot of the whole document.

use std::path::{Path, PathBuf};

use ::probe::fixture::{self, SCENARIOS};
use ::probe::probe as run_probe;
use ::probe::root::{AccessKind, ATTR_CAP};
use ::probe::{
    AtimeMode, ControllerMode, Drive, Facts, Interface, LayerKind, ModelSource, ProbeOptions, Root,
    SCHEMA_VERSION,
};

struct Probed {
    _dir: tempfile::TempDir,
    root_dir: PathBuf,
    facts: Facts,
}

fn run(name: &str) -> Probed {
    let scenario = fixture::scenario_named(name).unwrap_or_else(|| panic!("no scenario {name}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root_dir = dir.path().join("root");
    (scenario.build)(&root_dir).expect("fixture builds");
    let root = Root::at(&root_dir).expect("root").recording();
    let facts = run_probe(
        &root,
        Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .unwrap_or_else(|err| panic!("{name}: probe failed: {err}"));
    let accessed = root.accessed();
    assert!(!accessed.is_empty(), "{name}: recording saw nothing");
    for entry in &accessed {
        // Everything read must exist inside the fixture, as the kind recorded.
        let host = root.host_path(&entry.path);
        let metadata = std::fs::symlink_metadata(&host).unwrap_or_else(|err| {
            panic!("{name}: recorded {} missing: {err}", entry.path.display())
        });
        match entry.kind {
            AccessKind::Symlink { .. } => assert!(metadata.file_type().is_symlink()),
            AccessKind::Dir => assert!(metadata.is_dir()),
            AccessKind::File => assert!(metadata.is_file()),
            AccessKind::Present => {
                assert!(!metadata.is_dir() && !metadata.file_type().is_symlink())
            }
        }
    }
    Probed {
        _dir: dir,
        root_dir,
        facts,
    }
}

fn snapshot(name: &str, facts: &Facts) {
    let mut facts = facts.clone();
    facts.root = "[fixture]".to_string();
    insta::assert_json_snapshot!(name, facts);
}

fn only_drive(facts: &Facts) -> &Drive {
    assert_eq!(facts.drives.len(), 1, "drives: {:?}", facts.drives);
    &facts.drives[0]
}

#[test]
fn nvme_degraded_pcie_link() {
    let probed = run("nvme_degraded_pcie_link");
    let facts = &probed.facts;
    assert!(!facts.live && !facts.privileged);
    assert_eq!(facts.stack, vec!["nvme0n1p2", "nvme0n1"]);
    assert_eq!(facts.trim_effective, Some(true));
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.mount_point, "/");
    assert_eq!(mount.fs_type, "ext4");
    assert_eq!(mount.atime, AtimeMode::Relatime);
    assert_eq!(mount.free_bytes, Some(1_100_000_000_000));
    let drive = only_drive(facts);
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
    snapshot("nvme_degraded_pcie_link", facts);
}

#[test]
fn nvme_with_hmb() {
    let probed = run("nvme_with_hmb");
    let drive = only_drive(&probed.facts);
    assert_eq!(drive.model.as_deref(), Some("KINGSTON SNV2S2000G"));
    assert_eq!(drive.hmb, Some(true));
    assert_eq!(drive.temperature_c, Some(52.85));
    let mount = probed.facts.mount.as_ref().expect("mount");
    assert_eq!(
        mount.mount_point, "/",
        "the datadir is on the root file system"
    );
    assert_eq!(mount.free_bytes, None, "no statvfs.json in this snapshot");
    assert!(probed
        .facts
        .unavailable
        .iter()
        .any(|u| u.fact == "free space of /"));
    snapshot("nvme_with_hmb", &probed.facts);
}

#[test]
fn sata_ahci() {
    let probed = run("sata_ahci");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["sda1", "sda"]);
    assert_eq!(facts.trim_effective, Some(true));
    let drive = only_drive(facts);
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
    assert!(facts
        .unavailable
        .iter()
        .any(|u| u.fact == "SMART health (sda)"));
    snapshot("sata_ahci", facts);
}

#[test]
fn sata_raid_mode_trim_blocked() {
    let probed = run("sata_raid_mode_trim_blocked");
    let facts = &probed.facts;
    assert_eq!(
        facts.mount.as_ref().map(|m| m.mount_point.as_str()),
        Some(fixture::DATADIR)
    );
    let drive = only_drive(facts);
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
    snapshot("sata_raid_mode_trim_blocked", facts);
}

#[test]
fn sata_ide_mode() {
    let probed = run("sata_ide_mode");
    let drive = only_drive(&probed.facts);
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 860 EVO 500GB"));
    assert_eq!(drive.controller_mode, Some(ControllerMode::Ide));
    assert_eq!(drive.controller_driver.as_deref(), Some("ata_piix"));
    assert_eq!(drive.sata_link_gbps, Some(3.0));
    assert_eq!(drive.sata_link_max_gbps, Some(6.0));
    assert!(probed.facts.mount.as_ref().expect("mount").discard);
    snapshot("sata_ide_mode", &probed.facts);
}

#[test]
fn usb_uas() {
    let probed = run("usb_uas");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["sdb1", "sdb"]);
    let drive = only_drive(facts);
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
    snapshot("usb_uas", facts);
}

#[test]
fn hdd() {
    let probed = run("hdd");
    let drive = only_drive(&probed.facts);
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
    assert_eq!(probed.facts.trim_effective, Some(false));
    snapshot("hdd", &probed.facts);
}

#[test]
fn qemu_sata_ssd_rotation_unreported() {
    let probed = run("qemu_sata_ssd_rotation_unreported");
    let drive = only_drive(&probed.facts);
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
    assert!(
        probed.facts.warnings.is_empty(),
        "{:?}",
        probed.facts.warnings
    );
    snapshot("qemu_sata_ssd_rotation_unreported", &probed.facts);
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
    assert!(
        facts.warnings.iter().any(|w| w.contains("vpd_pgb1")),
        "{:?}",
        facts.warnings
    );
}

#[test]
fn network_and_host_shares_name_their_server_and_export() {
    use ::probe::ShareKind;
    // (scenario, kind, fs type, server, address, export)
    let cases = [
        (
            "nfs4_nas",
            ShareKind::Nfs,
            "nfs4",
            Some("diskstation.lan"),
            Some("192.168.1.10"),
            Some("/volume1/ethereum"),
        ),
        (
            "cifs_nas",
            ShareKind::Smb,
            "cifs",
            Some("192.168.1.10"),
            None,
            Some("ethereum"),
        ),
        (
            "cephfs",
            ShareKind::Ceph,
            "ceph",
            Some("10.0.0.11:3300, 10.0.0.12:3300, 10.0.0.13:3300"),
            None,
            Some("/volumes/eth (file system cephfs)"),
        ),
        (
            "glusterfs",
            ShareKind::Glusterfs,
            "fuse.glusterfs",
            Some("gluster1.lan"),
            None,
            Some("gv0"),
        ),
        (
            "vm_9p_host_share",
            ShareKind::NineP,
            "9p",
            None,
            None,
            Some("ethdata"),
        ),
        (
            "vm_virtiofs_host_share",
            ShareKind::Virtiofs,
            "virtiofs",
            None,
            None,
            Some("ethdata"),
        ),
    ];
    for (name, kind, fs_type, server, address, export) in cases {
        let probed = run(name);
        let facts = &probed.facts;
        let mount = facts.mount.as_ref().expect("mount");
        assert_eq!(mount.mount_point, fixture::DATADIR, "{name}");
        assert_eq!(mount.fs_type, fs_type, "{name}");
        let share = mount
            .network
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no share"));
        assert_eq!(share.kind, kind, "{name}");
        assert_eq!(share.server.as_deref(), server, "{name}");
        assert_eq!(share.address.as_deref(), address, "{name}");
        assert_eq!(share.export.as_deref(), export, "{name}");
        assert!(facts.drives.is_empty(), "{name}: {:?}", facts.drives);
        assert!(
            facts
                .unresolved
                .iter()
                .any(|u| u.contains("network or host-shared file system")),
            "{name}: {:?}",
            facts.unresolved
        );
        assert!(mount.free_bytes.is_some(), "{name}");
    }
    let nfs = run("nfs4_nas");
    let share = nfs.facts.mount.as_ref().and_then(|m| m.network.clone());
    let share = share.expect("share");
    assert_eq!(share.version.as_deref(), Some("4.2"));
    assert_eq!(share.transport.as_deref(), Some("tcp"));
    let local = run("sata_ahci");
    assert_eq!(
        local.facts.mount.as_ref().and_then(|m| m.network.clone()),
        None
    );
}

#[test]
fn lvm_on_partition() {
    let probed = run("lvm_on_partition");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["dm-0", "nvme0n1p3", "nvme0n1"]);
    assert_eq!(facts.layers[0].kind, LayerKind::Lvm);
    assert_eq!(facts.layers[0].detail.as_deref(), Some("vg0-ethereum"));
    assert_eq!(facts.layers[1].kind, LayerKind::Partition);
    assert_eq!(facts.layers[1].detail.as_deref(), Some("partition 3"));
    assert_eq!(facts.layers[2].kind, LayerKind::Disk);
    assert_eq!(
        facts.layers.iter().map(|l| l.depth).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert_eq!(facts.trim_effective, Some(true));
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.source, "/dev/mapper/vg0-ethereum");
    assert_eq!(mount.atime, AtimeMode::Noatime);
    assert_eq!(
        only_drive(facts).model.as_deref(),
        Some("WDS200T3X0C-00SJG0")
    );
    snapshot("lvm_on_partition", facts);
}

#[test]
fn md_raid1() {
    let probed = run("md_raid1");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["md0", "sda1", "sda", "sdb1", "sdb"]);
    assert_eq!(facts.layers[0].kind, LayerKind::Md);
    assert_eq!(facts.layers[0].detail.as_deref(), Some("raid1"));
    assert_eq!(facts.layers[0].lower, vec!["sda1", "sdb1"]);
    assert_eq!(facts.drives.len(), 2);
    assert_eq!(facts.drives[0].name, "sda");
    assert_eq!(facts.drives[1].serial.as_deref(), Some("2235E6A1B2C4"));
    assert_eq!(facts.trim_effective, Some(true));
    snapshot("md_raid1", facts);
}

#[test]
fn dm_crypt_without_allow_discards_blocks_trim() {
    let probed = run("dm_crypt");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["dm-0", "nvme0n1p2", "nvme0n1"]);
    assert_eq!(facts.layers[0].kind, LayerKind::Crypt);
    assert_eq!(facts.layers[0].discard_max_bytes, Some(0));
    assert_eq!(facts.trim_effective, Some(false));
    assert_eq!(only_drive(facts).trim_supported, Some(true));
    snapshot("dm_crypt", facts);
}

#[test]
fn virtio_vps() {
    let probed = run("virtio_vps");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["vda1", "vda"]);
    let drive = only_drive(facts);
    assert_eq!(drive.interface, Some(Interface::Virtio));
    assert_eq!(drive.model, None, "virtio has no model; never a guess");
    assert_eq!(drive.serial, None, "empty serial is unknown");
    assert_eq!(drive.controller_driver.as_deref(), Some("virtio_blk"));
    assert_eq!(drive.capacity_bytes, Some(343_597_383_680));
    assert_eq!(facts.platform.cloud.as_deref(), Some("hetzner"));
    assert_eq!(facts.platform.virtualized, Some(true));
    assert_eq!(
        facts.mount.as_ref().and_then(|m| m.total_bytes),
        Some(337_000_000_000)
    );
    snapshot("virtio_vps", facts);
}

#[test]
fn netcup_rs() {
    let probed = run("netcup_rs");
    let facts = &probed.facts;
    assert_eq!(facts.platform.sys_vendor.as_deref(), Some("netcup"));
    assert_eq!(facts.platform.product_name.as_deref(), Some("KVM Server"));
    assert_eq!(
        facts.platform.bios_version.as_deref(),
        Some("RS 2000 G9"),
        "Netcup names the product line only in the BIOS version"
    );
    assert_eq!(facts.platform.cloud.as_deref(), Some("netcup"));
    assert_eq!(only_drive(facts).interface, Some(Interface::Virtio));
    snapshot("netcup_rs", facts);
}

#[test]
fn aws_ebs() {
    let probed = run("aws_ebs");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["nvme1n1"]);
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.fs_type, "xfs");
    let drive = only_drive(facts);
    assert_eq!(drive.name, "nvme1n1");
    assert_eq!(drive.model.as_deref(), Some("Amazon Elastic Block Store"));
    assert_eq!(drive.serial.as_deref(), Some("vol0fedcba9876543210"));
    assert_eq!(
        drive.pcie_link, None,
        "unknown speed and width 0 are not a link"
    );
    assert_eq!(drive.trim_supported, Some(false));
    assert_eq!(facts.platform.cloud.as_deref(), Some("aws"));
    assert_eq!(facts.platform.virtualized, Some(true));
    snapshot("aws_ebs", facts);
}

#[test]
fn btrfs_over_two_drives() {
    let probed = run("btrfs_two_devices");
    let facts = &probed.facts;
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.fs_type, "btrfs");
    assert_eq!(mount.dev, "0:33");
    assert!(mount.discard);
    assert_eq!(
        facts.stack,
        vec!["nvme0n1p1", "nvme0n1", "nvme1n1p1", "nvme1n1"]
    );
    assert_eq!(facts.drives.len(), 2);
    assert_eq!(facts.drives[1].serial.as_deref(), Some("S6B0NL0T412399M"));
    assert_eq!(facts.trim_effective, Some(true));
    assert!(facts.unresolved.is_empty(), "{:?}", facts.unresolved);
    snapshot("btrfs_two_devices", facts);
}

#[test]
fn a_symlinked_datadir_is_followed_inside_the_root() {
    let probed = run("datadir_symlink");
    let facts = &probed.facts;
    assert_eq!(facts.path, fixture::DATADIR);
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.mount_point, "/mnt/fast");
    assert_eq!(facts.stack, vec!["nvme0n1p1", "nvme0n1"]);
    assert_eq!(
        only_drive(facts).model.as_deref(),
        Some("Samsung SSD 980 PRO 2TB")
    );
}

#[test]
fn nvme_behind_vmd() {
    let probed = run("nvme_behind_vmd");
    let drive = only_drive(&probed.facts);
    assert_eq!(drive.controller_mode, Some(ControllerMode::Vmd));
    assert_eq!(
        drive.nvme.as_ref().and_then(|n| n.pci_address.as_deref()),
        Some("10000:e1:00.0")
    );
    assert_eq!(drive.pcie_link.and_then(|l| l.max_width), Some(4));
}

#[test]
fn sas_multipath() {
    let probed = run("sas_multipath");
    let facts = &probed.facts;
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
fn zfs_is_said_plainly() {
    let probed = run("zfs_dataset");
    let facts = &probed.facts;
    assert_eq!(
        facts.mount.as_ref().map(|m| m.fs_type.as_str()),
        Some("zfs")
    );
    assert!(facts.stack.is_empty() && facts.drives.is_empty());
    assert_eq!(facts.trim_effective, None);
    assert_eq!(facts.unresolved.len(), 1);
    assert!(
        facts.unresolved[0].contains("pool tank"),
        "{:?}",
        facts.unresolved
    );
}

#[test]
fn overlay_is_said_plainly() {
    let probed = run("docker_overlay");
    let facts = &probed.facts;
    assert_eq!(
        facts.mount.as_ref().map(|m| m.fs_type.as_str()),
        Some("overlay")
    );
    assert!(facts.drives.is_empty());
    assert!(
        facts.unresolved[0].contains("overlay"),
        "{:?}",
        facts.unresolved
    );
    assert_eq!(
        facts.platform.virtualized, None,
        "no DMI, no drives: cannot tell"
    );
}

#[test]
fn hostile_missing_attributes_are_unknown() {
    let probed = run("hostile_missing_attributes");
    let facts = &probed.facts;
    let drive = only_drive(facts);
    assert_eq!(drive.model, None);
    assert_eq!(drive.serial, None);
    assert_eq!(drive.capacity_bytes, None);
    assert_eq!(drive.rotational, None);
    assert_eq!(drive.temperature_c, None);
    assert_eq!(
        drive.hmb, None,
        "no osrelease and no transport: cannot tell"
    );
    let link = drive.pcie_link.expect("max width is still there");
    assert_eq!(
        (link.current_gts, link.max_gts, link.max_width),
        (None, None, Some(4))
    );
    assert_eq!(
        facts.trim_effective, None,
        "the disk's discard limit is unknown"
    );
    assert_eq!(facts.platform.sys_vendor, None);
    assert_eq!(facts.io_uring.sysctl_disabled, None);
    assert_eq!(facts.fstrim_timer, Some(true));
}

#[test]
fn hostile_empty_attributes_are_unknown() {
    let probed = run("hostile_empty_attributes");
    let facts = &probed.facts;
    let drive = only_drive(facts);
    assert_eq!(drive.model, None);
    assert_eq!(drive.capacity_bytes, None);
    assert_eq!(drive.scheduler, None);
    assert_eq!(facts.platform.sys_vendor, None);
    assert_eq!(facts.mount.as_ref().and_then(|m| m.free_bytes), None);
    assert!(
        facts.warnings.iter().any(|w| w.contains("statvfs.json")),
        "{:?}",
        facts.warnings
    );
}

#[test]
fn hostile_non_utf8_is_replaced_with_a_warning() {
    let probed = run("hostile_non_utf8");
    let facts = &probed.facts;
    let model = only_drive(facts).model.clone().expect("model");
    assert!(model.starts_with("Samsung SSD \u{fffd}"), "{model}");
    assert!(facts
        .platform
        .sys_vendor
        .as_deref()
        .is_some_and(|v| v.contains('\u{fffd}')));
    assert!(facts.warnings.iter().any(|w| w.contains("not valid UTF-8")));
}

#[test]
fn hostile_huge_model_is_capped() {
    let probed = run("hostile_huge_model");
    let facts = &probed.facts;
    let drive = only_drive(facts);
    // The 1 MB SCSI model is capped; IDENTIFY (also 1 MB, unparsable) is refused.
    assert!(drive.model.as_deref().is_some_and(|m| m.len() <= ATTR_CAP));
    assert!(
        facts.warnings.iter().any(|w| w.contains("truncated")),
        "{:?}",
        facts.warnings
    );
    assert!(facts
        .platform
        .product_name
        .as_deref()
        .is_some_and(|p| p.len() <= ATTR_CAP));
}

#[test]
fn hostile_symlink_loops_end() {
    let probed = run("hostile_symlink_loops");
    let facts = &probed.facts;
    assert_eq!(facts.stack, vec!["dm-0", "dm-1", "nvme0n1p3", "nvme0n1"]);
    let drive = only_drive(facts);
    assert_eq!(drive.nvme, None, "the controller link loops");
    assert_eq!(facts.platform.sys_vendor, None);
    assert!(
        facts.warnings.iter().any(|w| w.contains("symbolic links")),
        "{:?}",
        facts.warnings
    );
}

#[test]
fn hostile_links_never_leave_the_root() {
    let scenario = fixture::scenario_named("hostile_symlink_outside_root").expect("scenario");
    let dir = tempfile::tempdir().expect("tempdir");
    let root_dir = dir.path().join("root");
    (scenario.build)(&root_dir).expect("builds");
    // Bait right outside the root, where an escaping `..` would land.
    std::fs::create_dir_all(dir.path().join("etc")).expect("mkdir");
    std::fs::write(dir.path().join("etc/hostname"), "OUTSIDE-THE-ROOT\n").expect("write");
    std::fs::write(dir.path().join("etc/machine-id"), "OUTSIDE-THE-ROOT\n").expect("write");
    let root = Root::at(&root_dir).expect("root").recording();
    let facts = run_probe(
        &root,
        Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .expect("probe");
    let json = serde_json::to_string(&facts).expect("json");
    assert!(!json.contains("OUTSIDE-THE-ROOT"));
    let drive = only_drive(&facts);
    assert_eq!(drive.model, None, "ROOT/etc/hostname does not exist");
    assert_eq!(drive.serial, None, "ROOT/etc/machine-id does not exist");
    // An absolute link to /proc/self/mountinfo lands on the fixture's mountinfo.
    assert_eq!(drive.pcie_link.and_then(|l| l.current_gts), None);
    for entry in root.accessed() {
        let host = root.host_path(&entry.path);
        assert!(
            host.starts_with(probed_base(&root_dir)),
            "{}",
            host.display()
        );
    }
}

fn probed_base(root_dir: &Path) -> PathBuf {
    std::fs::canonicalize(root_dir).expect("canonical")
}

#[test]
fn hostile_mountinfo_escapes_are_decoded() {
    let probed = run("hostile_mountinfo_escapes");
    let facts = &probed.facts;
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.mount_point, "/var/lib/eth node");
    assert_eq!(mount.dev, "259:2");
    assert_eq!(facts.stack, vec!["nvme0n1p2", "nvme0n1"]);
    assert!(facts.warnings.iter().any(|w| w.contains("malformed")));
}

#[test]
fn hostile_garbage_identify_falls_back_to_scsi() {
    let probed = run("hostile_garbage_identify");
    let facts = &probed.facts;
    let drive = only_drive(facts);
    assert_eq!(drive.model.as_deref(), Some("CT2000MX500SSD1"));
    assert_eq!(
        drive.firmware.as_deref(),
        Some("046"),
        "only the SCSI rev is left"
    );
    assert!(
        facts.warnings.iter().any(|w| w.contains("IDENTIFY")),
        "{:?}",
        facts.warnings
    );
}

#[test]
fn usb_sata_bridge_shows_only_the_inquiry_product() {
    let probed = run("usb_sata_bridge_cut_model");
    let facts = &probed.facts;
    snapshot("usb_sata_bridge_cut_model", facts);
    let drive = only_drive(facts);
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
        let probed = run(name);
        assert_eq!(
            only_drive(&probed.facts).model_source,
            Some(source),
            "{name}"
        );
    }
}

#[test]
fn every_scenario_probes_without_panicking() {
    for scenario in SCENARIOS {
        let probed = run(scenario.name);
        assert!(probed.root_dir.exists());
        assert_eq!(probed.facts.schema_version, SCHEMA_VERSION);
    }
}

#[test]
fn smartctl_json_is_merged_into_the_matching_drive() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::hdd(dir.path()).expect("builds");
    let root = Root::at(dir.path()).expect("root");
    let saved = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/smartctl/WDC_WD20EFRX-68EUZN0_17.json");
    let opts = ProbeOptions {
        smartctl_json: vec![saved],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    let drive = only_drive(&facts);
    let health = drive.health.as_ref().expect("health from smartctl");
    assert_eq!(health.source, "smartctl");
    assert!(drive.model_family.is_some(), "{drive:?}");
    assert!(facts.warnings.is_empty(), "{:?}", facts.warnings);
}

#[test]
fn smartctl_garbage_is_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::hdd(&dir.path().join("root")).expect("builds");
    let garbage = dir.path().join("garbage.json");
    std::fs::write(
        &garbage,
        "{\"json_format_version\": [1, 0], \"smartctl\": {",
    )
    .expect("write");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        smartctl_json: vec![garbage],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    assert!(
        facts.warnings.iter().any(|w| w.contains("smartctl JSON")),
        "{:?}",
        facts.warnings
    );
    assert_eq!(only_drive(&facts).health, None);
}

fn smartctl_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/smartctl")
        .join(name)
}

/// A real saved report with its device name and serial replaced, as a report taken on a
/// machine that enumerated the drives differently would look.
fn retargeted_smartctl(dir: &Path, source: &str, device: &str, serial: &str) -> PathBuf {
    let bytes = std::fs::read(smartctl_data(source)).expect("saved report");
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).expect("valid JSON");
    value["device"]["name"] = device.into();
    value["device"]["info_name"] = format!("{device} [SAT]").into();
    value["serial_number"] = serial.into();
    let out = dir.join(format!("{}-{source}", device.trim_start_matches("/dev/")));
    std::fs::write(&out, serde_json::to_vec_pretty(&value).expect("serialize")).expect("write");
    out
}

const PM883_SDA: &str = "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json";
const A400_SDA: &str = "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json";

/// Two drives, two saved reports: one names its drive (`/dev/sda`), the other was taken where
/// the drive was `/dev/sdc` and finds `sdb` by serial. Both drives get their own report.
#[test]
fn several_smartctl_files_each_merge_into_their_own_drive() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::md_raid1(&dir.path().join("root")).expect("builds");
    let by_serial = retargeted_smartctl(dir.path(), A400_SDA, "/dev/sdc", "2235E6A1B2C4");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        // Order does not matter: the serial match must not take sda's report's place.
        smartctl_json: vec![by_serial, smartctl_data(PM883_SDA)],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    assert_eq!(facts.drives.len(), 2);
    let drive = |name: &str| {
        facts
            .drives
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert_eq!(
        drive("sda").model_family.as_deref(),
        Some("Samsung based SSDs")
    );
    assert_eq!(
        drive("sdb").model_family.as_deref(),
        Some("Phison Driven SSDs")
    );
    for name in ["sda", "sdb"] {
        let health = drive(name).health.as_ref().expect("health from smartctl");
        assert_eq!(health.source, "smartctl", "{name}");
    }
    assert!(
        !facts
            .unavailable
            .iter()
            .any(|u| u.fact.starts_with("SMART health")),
        "{:?}",
        facts.unavailable
    );
    assert!(facts.warnings.is_empty(), "{:?}", facts.warnings);
}

/// A report for a drive that is not there is a warning naming the file; the others merge.
#[test]
fn an_unmatched_smartctl_file_is_a_warning_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::md_raid1(&dir.path().join("root")).expect("builds");
    let stranger = retargeted_smartctl(dir.path(), A400_SDA, "/dev/sdq", "NOT-ON-THIS-MACHINE");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        smartctl_json: vec![smartctl_data(PM883_SDA), stranger.clone()],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    let stranger_name = stranger.display().to_string();
    assert!(
        facts
            .warnings
            .iter()
            .any(|w| w.contains(&stranger_name) && w.contains("matches none")),
        "{:?}",
        facts.warnings
    );
    assert_eq!(facts.warnings.len(), 1, "{:?}", facts.warnings);
    let sda = facts.drives.iter().find(|d| d.name == "sda").expect("sda");
    let sdb = facts.drives.iter().find(|d| d.name == "sdb").expect("sdb");
    assert_eq!(sda.model_family.as_deref(), Some("Samsung based SSDs"));
    assert_eq!(sdb.model_family, None, "{sdb:?}");
    assert!(
        facts
            .unavailable
            .iter()
            .any(|u| u.fact == "SMART health (sdb)"),
        "the drive without a report still says so: {:?}",
        facts.unavailable
    );
}

/// Two reports naming the same drive: the first is merged, the second is not guessed onto
/// the other drive.
#[test]
fn two_smartctl_files_for_one_drive_do_not_spill_onto_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::md_raid1(&dir.path().join("root")).expect("builds");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        smartctl_json: vec![smartctl_data(PM883_SDA), smartctl_data(A400_SDA)],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    let sdb = facts.drives.iter().find(|d| d.name == "sdb").expect("sdb");
    assert_eq!(sdb.model_family, None, "{sdb:?}");
    assert!(
        facts
            .warnings
            .iter()
            .any(|w| w.contains(A400_SDA) && w.contains("matches none")),
        "{:?}",
        facts.warnings
    );
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
    let probed = run("sata_ahci");
    assert!(
        !probed.facts.warnings.iter().any(|w| w.contains("checksum")),
        "{:?}",
        probed.facts.warnings
    );
}
