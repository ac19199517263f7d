//! What sits between the data directory and the drives: LVM, md, dm-crypt, btrfs, ZFS, overlay
//! and network shares.

use super::*;

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
        let facts = run(name);
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
    let facts = run("lvm_on_partition");
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
        only_drive(&facts).model.as_deref(),
        Some("WDS200T3X0C-00SJG0")
    );
    snapshot("lvm_on_partition", &facts);
}

#[test]
fn md_raid1() {
    let facts = run("md_raid1");
    assert_eq!(facts.stack, vec!["md0", "sda1", "sda", "sdb1", "sdb"]);
    assert_eq!(facts.layers[0].kind, LayerKind::Md);
    assert_eq!(facts.layers[0].detail.as_deref(), Some("raid1"));
    assert_eq!(facts.layers[0].lower, vec!["sda1", "sdb1"]);
    assert_eq!(facts.drives.len(), 2);
    assert_eq!(facts.drives[0].name, "sda");
    assert_eq!(facts.drives[1].serial.as_deref(), Some("2235E6A1B2C4"));
    assert_eq!(facts.trim_effective, Some(true));
    snapshot("md_raid1", &facts);
}

#[test]
fn dm_crypt_without_allow_discards_blocks_trim() {
    let facts = run("dm_crypt");
    assert_eq!(facts.stack, vec!["dm-0", "nvme0n1p2", "nvme0n1"]);
    assert_eq!(facts.layers[0].kind, LayerKind::Crypt);
    assert_eq!(facts.layers[0].discard_max_bytes, Some(0));
    assert_eq!(facts.trim_effective, Some(false));
    assert_eq!(only_drive(&facts).trim_supported, Some(true));
    snapshot("dm_crypt", &facts);
}

/// Ubuntu's encrypted LVM install: the saved dm tables are read, the crypt key is not kept,
/// and file offsets of the logical volume map through both dm layers and the partition to
/// the drive's own bytes.
#[test]
fn lvm_on_luks_maps_file_offsets_through_the_tables_to_the_drive() {
    let facts = run("lvm_on_luks");
    assert_eq!(facts.stack, vec!["dm-1", "dm-0", "nvme0n1p3", "nvme0n1"]);
    assert_eq!(facts.layers[0].kind, LayerKind::Lvm);
    assert_eq!(facts.layers[0].dm_table.len(), 2);
    let crypt = &facts.layers[1].dm_table[0];
    assert_eq!(crypt.target, "crypt");
    assert_eq!(crypt.options, vec!["allow_discards"]);
    let json = serde_json::to_string(&facts.facts).unwrap();
    assert!(
        !json.contains("logon"),
        "the key reference stays out of the facts"
    );

    let root = Root::at(&facts.root_dir).unwrap();
    let gib = 1u64 << 30;
    // 1 GiB into the volume (first segment), and 1 MiB straddling the segments at 512 GiB.
    let on_disk = ::probe::mapping::to_disk(
        &root,
        &facts.layers,
        vec![
            gib..gib + 4096,
            (512 * gib - (1 << 19))..(512 * gib + (1 << 19)),
        ],
    )
    .unwrap();
    assert_eq!(on_disk.disk, "nvme0n1");
    let partition = 6_397_952 * 512;
    let crypt_data = partition + 32768 * 512;
    let lv_first = crypt_data + 2048 * 512;
    let lv_second = crypt_data + 1_283_459_072 * 512;
    assert_eq!(
        on_disk.ranges,
        vec![
            (lv_first + gib)..(lv_first + gib + 4096),
            (lv_first + 512 * gib - (1 << 19))..(lv_first + 512 * gib),
            lv_second..(lv_second + (1 << 19)),
        ]
    );
    assert_eq!(on_disk.through.len(), 3, "{:?}", on_disk.through);
    assert!(
        on_disk.through[1].contains("dm-crypt"),
        "{:?}",
        on_disk.through
    );

    // Past the end of the volume's table: refused, not guessed.
    let beyond = ::probe::mapping::to_disk(
        &root,
        &facts.layers,
        std::iter::once((1 << 40)..(1 << 40) + 4096).collect(),
    );
    assert!(beyond.unwrap_err().contains("does not cover"));
    snapshot("lvm_on_luks", &facts);
}

/// md RAID1: one in-sync member is read, past its data offset; without the dm table (the
/// older dm_crypt fixture saved none) the reason says the table was not read.
#[test]
fn md_raid1_and_an_unread_table_map_or_say_why() {
    let facts = run("md_raid1");
    let root = Root::at(&facts.root_dir).unwrap();
    let on_disk =
        ::probe::mapping::to_disk(&root, &facts.layers, std::iter::once(0..8192).collect())
            .unwrap();
    // Member sda1 (first by name, in sync) at 1 MiB, on sda from sector 2048.
    assert_eq!(on_disk.disk, "sda");
    assert_eq!(on_disk.ranges, vec![(2 << 20)..(2 << 20) + 8192]);

    let crypt = run("dm_crypt");
    let root = Root::at(&crypt.root_dir).unwrap();
    let why = ::probe::mapping::to_disk(&root, &crypt.layers, std::iter::once(0..8192).collect())
        .unwrap_err();
    assert!(why.contains("table of dm-0 was not read"), "{why}");
}

#[test]
fn btrfs_over_two_drives() {
    let facts = run("btrfs_two_devices");
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
    snapshot("btrfs_two_devices", &facts);
}

#[test]
fn a_symlinked_datadir_is_followed_inside_the_root() {
    let facts = run("datadir_symlink");
    assert_eq!(facts.path, fixture::DATADIR);
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.mount_point, "/mnt/fast");
    assert_eq!(facts.stack, vec!["nvme0n1p1", "nvme0n1"]);
    assert_eq!(
        only_drive(&facts).model.as_deref(),
        Some("Samsung SSD 980 PRO 2TB")
    );
}

/// A file system whose drives sysfs cannot name: no drives, and one unresolved part that
/// mentions `needle`.
fn assert_said_plainly(facts: &Facts, fs_type: &str, needle: &str) {
    assert_eq!(
        facts.mount.as_ref().map(|m| m.fs_type.as_str()),
        Some(fs_type)
    );
    assert!(facts.drives.is_empty(), "{:?}", facts.drives);
    assert!(
        facts.unresolved[0].contains(needle),
        "{:?}",
        facts.unresolved
    );
}

#[test]
fn zfs_is_said_plainly() {
    let facts = run("zfs_dataset");
    assert_said_plainly(&facts, "zfs", "pool tank");
    assert!(facts.stack.is_empty());
    assert_eq!(facts.trim_effective, None);
    assert_eq!(facts.unresolved.len(), 1);
}

#[test]
fn overlay_is_said_plainly() {
    let facts = run("docker_overlay");
    assert_said_plainly(&facts, "overlay", "overlay");
    assert_eq!(
        facts.platform.virtualized, None,
        "no DMI, no drives: cannot tell"
    );
}
