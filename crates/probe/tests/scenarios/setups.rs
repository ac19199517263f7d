//! ZFS pools, passed-through and virtual disks in a KVM guest, btrfs on md: the setups
//! operators run, on fixtures that follow the kernel's and udev's layouts.

use super::*;

#[test]
fn zfs_members_come_from_udev_records() {
    let facts = run("zfs_mirror");
    assert!(facts.unresolved.is_empty(), "{:?}", facts.unresolved);
    let names: Vec<&str> = facts.drives.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["nvme0n1", "nvme1n1"]);
    assert!(facts
        .drives
        .iter()
        .all(|d| d.model.as_deref() == Some("Samsung SSD 980 PRO 2TB")));
    let zfs = facts.zfs.as_ref().expect("zfs facts");
    assert_eq!(zfs.pool, "tank");
    assert_eq!(zfs.dataset, "tank/ethereum");
    // Partition 9 (the reserve) is no member: udev names no file system on it.
    assert_eq!(zfs.members, ["nvme0n1p1", "nvme1n1p1"]);
    assert_eq!(zfs.members_from.as_deref(), Some("udev"));
    assert_eq!(zfs.pool_state.as_deref(), Some("ONLINE"));
    assert_eq!(zfs.module_version.as_deref(), Some("2.2.2-0ubuntu9"));
    assert_eq!(zfs.pool_number("ashift"), Some(9));
    assert_eq!(zfs.dataset_number("recordsize"), Some(131_072));
    assert_eq!(zfs.arc_c_max_bytes, Some(16_663_842_816));
    assert_eq!(zfs.mem_total_bytes, Some(32_551_756 * 1024));
    assert_eq!(zfs.direct_io_bypasses_arc(), Some(false));
    assert!(facts.layers.iter().any(|l| l.name == "nvme1n1p1"));
}

#[test]
fn zfs_without_udev_records_is_said_plainly() {
    let facts = run("zfs_dataset");
    let zfs = facts.zfs.as_ref().expect("zfs facts");
    assert!(zfs.members.is_empty());
    assert!(
        facts.unresolved[0].contains("zpool status -P tank"),
        "{:?}",
        facts.unresolved
    );
}

#[test]
fn a_passed_through_disk_shows_its_whole_model_behind_virtio_scsi() {
    let facts = run("vm_scsi_passthrough");
    let drive = only_drive(&facts);
    assert_eq!(drive.interface, Some(Interface::Virtio));
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 870 EVO 2TB"));
    assert_eq!(
        drive.model_source,
        Some(ModelSource::SatDeviceIdentification)
    );
    assert_eq!(drive.serial.as_deref(), Some("S6PNNS0T412345A"));
    assert_eq!(drive.firmware.as_deref(), Some("2B6Q"));
    assert_eq!(drive.controller_driver.as_deref(), Some("virtio_scsi"));
    assert_eq!(facts.platform.cloud.as_deref(), Some("kvm"));
}

#[test]
fn a_qemu_volume_shows_the_guest_side_evidence() {
    let facts = run("vm_qemu_harddisk");
    let drive = only_drive(&facts);
    assert_eq!(drive.model.as_deref(), Some("QEMU HARDDISK"));
    assert_eq!(drive.model_source, Some(ModelSource::ScsiInquiry));
    assert_eq!(drive.queue_count, Some(1));
    assert_eq!(drive.queue_rotational, Some(true));
    assert_eq!(facts.trim_effective, Some(false));
}

#[test]
fn btrfs_on_md_resolves_from_the_mount_source() {
    let facts = run("btrfs_on_md");
    assert!(facts.unresolved.is_empty(), "{:?}", facts.unresolved);
    assert_eq!(facts.stack.first().map(String::as_str), Some("md0"));
    assert_eq!(facts.drives.len(), 2);
}

#[test]
fn a_usb_bridge_revision_is_not_the_drive_firmware() {
    let facts = run("usb_uas");
    let drive = facts.drives.iter().find(|d| d.name == "sdb").expect("sdb");
    assert_eq!(drive.firmware, None);
    let usb = drive.usb.as_ref().expect("usb");
    assert_eq!(usb.bridge_revision.as_deref(), Some("0"));
    // A SAT bridge passes the drive's own revision on.
    let facts = run("usb_sata_bridge_cut_model");
    let drive = facts.drives.iter().find(|d| d.name == "sdb").expect("sdb");
    assert_eq!(drive.firmware.as_deref(), Some("2B6Q"));
    assert_eq!(
        drive
            .usb
            .as_ref()
            .and_then(|u| u.bridge_revision.as_deref()),
        None
    );
}

/// The bridge's identity and what the kernel did with it, from the USB device's sysfs: ids,
/// release, the UAS alternate setting in the raw descriptors, the driver bound, and whether
/// the kernel sends UNMAP.
#[test]
fn a_usb_bridge_is_read_with_its_release_uas_offer_and_unmap_mode() {
    let facts = run("usb_jmicron_broken_fua");
    let drive = facts.drives.iter().find(|d| d.name == "sdb").expect("sdb");
    let usb = drive.usb.as_ref().expect("usb");
    assert_eq!(
        (usb.vendor_id.as_deref(), usb.product_id.as_deref()),
        (Some("152d"), Some("0578"))
    );
    assert_eq!(usb.bcd_device.as_deref(), Some("0404"));
    assert_eq!(usb.driver.as_deref(), Some("uas"));
    assert_eq!(usb.uas_offered, Some(true));
    assert_eq!(usb.provisioning_mode.as_deref(), Some("full"));
    assert_eq!(usb.quirks_parameter, None);
    // A SAT bridge: the revision is the drive's (its last four characters), not the bridge's.
    assert_eq!(drive.firmware.as_deref(), Some("046"));
    assert_eq!(usb.bridge_revision, None);

    let facts = run("usb_uas_turned_off");
    let usb = facts
        .drives
        .iter()
        .find(|d| d.name == "sdb")
        .and_then(|d| d.usb.as_ref())
        .expect("usb");
    assert_eq!(usb.driver.as_deref(), Some("usb-storage"));
    assert_eq!(
        usb.uas_offered,
        Some(true),
        "offered, yet bound to usb-storage"
    );
}

/// `usb-storage.quirks=` on the kernel command line, as the module parameter holds it.
#[test]
fn the_usb_storage_quirks_parameter_is_read_for_the_bridge() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::usb_uas_turned_off(dir.path()).expect("fixture");
    std::fs::create_dir_all(dir.path().join("sys/module/usb_storage/parameters")).unwrap();
    std::fs::write(
        dir.path().join("sys/module/usb_storage/parameters/quirks"),
        "0bc2:2322:u,174C:55AA:u\n",
    )
    .unwrap();
    let root = Root::at(dir.path()).expect("root");
    let facts =
        probe_path(&root, Path::new(fixture::DATADIR), &ProbeOptions::default()).expect("probe");
    let usb = facts
        .drives
        .iter()
        .find(|d| d.name == "sdb")
        .and_then(|d| d.usb.as_ref())
        .expect("usb");
    assert_eq!(usb.quirks_parameter.as_deref(), Some("u"));
}
