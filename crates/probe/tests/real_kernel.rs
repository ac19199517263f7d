//! Trees a real kernel wrote: what the probe read in `cargo xtask vm`'s guests (Debian's 6.1
//! kernel on QEMU's emulated NVMe, AHCI, IDE, USB and md/LVM/dm-crypt/btrfs stacks), saved by
//! `cargo xtask vm --update-test-data` into `tests/data/qemu/<scenario>/`.
//!
//! Each hand-written fixture that models the same layout must give the probe the same shape of
//! facts: which facts are established at all, and the categorical ones (interface, controller
//! mode and driver, layer kinds, TRIM through the stack). Models, serials and sizes differ by
//! design and are not compared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{assert_drive, build_scenario, data_path, only_drive};
use ::probe::fixture;
use ::probe::probe_path;
use ::probe::{
    AtimeMode, ControllerMode, Drive, Facts, HealthSource, Interface, LayerKind, ProbeOptions, Root,
};
use serde_json::Value;

const DATADIR: &str = "/var/lib/ethereum";

fn tree(scenario: &str) -> PathBuf {
    data_path("qemu", scenario)
}

/// Only what sysfs and procfs hold: the fixtures carry no smartctl output.
fn tree_only() -> ProbeOptions {
    ProbeOptions {
        run_smartctl: false,
        ioctls: false,
        ..ProbeOptions::default()
    }
}

fn real(scenario: &str) -> Facts {
    let root = Root::at(tree(scenario)).expect("real tree");
    probe_path(&root, Path::new(DATADIR), &tree_only())
        .unwrap_or_else(|err| panic!("{scenario}: {err}"))
}

fn hand_written(name: &str) -> Facts {
    let scenario = fixture::scenario_named(name).expect("fixture");
    let dir = build_scenario(scenario);
    let root = Root::at(dir.path()).expect("root");
    probe_path(&root, Path::new(scenario.probe_path), &tree_only()).expect("probe")
}

/// Categorical facts keep their value; every other fact becomes whether it was established.
const COMPARED_BY_VALUE: &[&str] = &[
    "interface",
    "controller_mode",
    "controller_driver",
    "controller_pci_class",
    "transport",
    "state",
    "driver",
];

/// Facts that depend on the emulated hardware rather than on the kernel's layout.
const HARDWARE_SPECIFIC: &[&str] = &[
    // QEMU's disks have no temperature sensor for libata's drivetemp and carry no hwmon;
    // fixtures model drives that do.
    "temperature_c",
    "temperature_source",
    // PCI class of the emulated controller is compared where the fixture models the same one.
    "pci_vendor_id",
    "pci_device_id",
    "pci_address",
];

fn shape(value: &Value, prefix: &str, out: &mut BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                if HARDWARE_SPECIFIC.contains(&key.as_str()) {
                    continue;
                }
                if COMPARED_BY_VALUE.contains(&key.as_str()) {
                    out.insert(path, value.to_string());
                } else if value.is_object() {
                    shape(value, &path, out);
                } else {
                    let established = !value.is_null();
                    out.insert(path, if established { "set" } else { "null" }.to_string());
                }
            }
        }
        other => {
            out.insert(prefix.to_string(), (!other.is_null()).to_string());
        }
    }
}

fn drive_shapes(facts: &Facts) -> Vec<BTreeMap<String, String>> {
    facts
        .drives
        .iter()
        .map(|drive| {
            let mut out = BTreeMap::new();
            let mut value = serde_json::to_value(drive).expect("json");
            // Health comes from ioctls and smartctl, never from the tree.
            value["health"] = Value::Null;
            shape(&value, "", &mut out);
            out
        })
        .collect()
}

/// Stacked layers (partitions aside, which are a matter of how the disk was laid out): kind,
/// whether it passes discard, and whether the probe named it.
fn stacked_layers(facts: &Facts) -> Vec<(LayerKind, bool, bool)> {
    facts
        .layers
        .iter()
        .filter(|layer| !matches!(layer.kind, LayerKind::Partition))
        .map(|layer| {
            (
                layer.kind,
                layer.discard_max_bytes.is_some_and(|bytes| bytes > 0),
                layer.detail.is_some(),
            )
        })
        .collect()
}

/// QEMU's IDENTIFY leaves the SATA generation bits of word 76 clear (it sets only NCQ), so
/// the link's maximum is unknown there; every real SATA drive declares it, as the fixtures do.
const QEMU_IDENTIFY_WORD_76: &str = "sata_link_max_gbps";

fn assert_same_shape(real_name: &str, fixture_name: &str) {
    assert_same_shape_except(real_name, fixture_name, &[], &[]);
}

/// As [`assert_same_shape`], ignoring stacked layers of the `skip` kinds (a fixture that
/// models the same drive and crypt layer without LVM on top) and the drive facts in
/// `emulation_differs` (where QEMU's emulated device is not the hardware the fixture models).
fn assert_same_shape_except(
    real_name: &str,
    fixture_name: &str,
    skip: &[LayerKind],
    emulation_differs: &[&str],
) {
    let real = real(real_name);
    let fixture = hand_written(fixture_name);
    let real_drives = drive_shapes(&real);
    let fixture_drives = drive_shapes(&fixture);
    assert_eq!(
        real_drives.len(),
        fixture_drives.len(),
        "{real_name} vs {fixture_name}: drive count"
    );
    for (real_drive, fixture_drive) in real_drives.iter().zip(&fixture_drives) {
        let differences: Vec<String> = real_drive
            .keys()
            .chain(fixture_drive.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter(|key| !emulation_differs.contains(&key.as_str()))
            .filter(|key| real_drive.get(*key) != fixture_drive.get(*key))
            .map(|key| {
                format!(
                    "{key}: real kernel {:?}, fixture {:?}",
                    real_drive.get(key),
                    fixture_drive.get(key)
                )
            })
            .collect();
        assert!(
            differences.is_empty(),
            "{real_name} vs fixture {fixture_name}:\n  {}",
            differences.join("\n  ")
        );
    }
    // Whether the device takes discard is the emulated device's answer, not the layout's.
    let discard_differs = emulation_differs.contains(&"discard_max_bytes");
    let layers = |facts: &Facts| -> Vec<(LayerKind, bool, bool)> {
        stacked_layers(facts)
            .into_iter()
            .filter(|(kind, _, _)| !skip.contains(kind))
            .map(|(kind, discard, named)| (kind, discard && !discard_differs, named))
            .collect()
    };
    assert_eq!(
        layers(&real),
        layers(&fixture),
        "{real_name} vs fixture {fixture_name}: stacked layers"
    );
    assert!(
        discard_differs || real.trim_effective == fixture.trim_effective,
        "{real_name} vs fixture {fixture_name}: TRIM through the stack"
    );
    assert_eq!(
        real.mount.as_ref().map(|m| m.fs_type.clone()),
        fixture.mount.as_ref().map(|m| m.fs_type.clone()),
        "{real_name} vs fixture {fixture_name}: file system"
    );
}

#[test]
fn nvme_fixture_matches_the_real_kernel() {
    assert_same_shape("nvme", "nvme_degraded_pcie_link");
}

#[test]
fn sata_ahci_fixture_matches_the_real_kernel() {
    assert_same_shape_except("sata_ahci", "sata_ahci", &[], &[QEMU_IDENTIFY_WORD_76]);
}

#[test]
fn sata_ide_fixture_matches_the_real_kernel() {
    // QEMU's PIIX3 is a parallel ATA controller in compatibility mode (class 0x010180, no SATA
    // link); the fixture models an Intel SATA controller set to IDE mode (native, 0x01018f).
    assert_same_shape_except(
        "sata_ide",
        "sata_ide_mode",
        &[],
        &[
            QEMU_IDENTIFY_WORD_76,
            "sata_link_gbps",
            "controller_pci_class",
        ],
    );
}

#[test]
fn md_raid1_fixture_matches_the_real_kernel() {
    assert_same_shape_except("md_raid1", "md_raid1", &[], &[QEMU_IDENTIFY_WORD_76]);
}

#[test]
fn dm_crypt_fixture_matches_the_real_kernel() {
    assert_same_shape_except("lvm_on_crypt", "dm_crypt", &[LayerKind::Lvm], &[]);
}

#[test]
fn usb_uas_fixture_matches_the_real_kernel() {
    // QEMU's SCSI disk answers UNMAP through UAS; the fixture's enclosure is one of the
    // bridges that do not, so Linux gives it no discard. The bridge's bcdDevice, raw
    // descriptors and provisioning_mode are compared: the tree was recorded with the probe
    // that reads them. QEMU's SCSI disk also answers the Block Device Characteristics VPD page
    // (0xb1) through the bridge, which the fixture's Samsung T5 is not known to.
    assert_same_shape_except(
        "usb_uas",
        "usb_uas",
        &[],
        &["discard_max_bytes", "vpd_rotation_rate_rpm"],
    );
}

/// What the USB reads give on a real kernel: QEMU's bridges have a release number, offer UAS
/// (usb-uas) or only Bulk-Only (usb-storage), and the disk's provisioning mode says whether
/// the kernel sends UNMAP through them.
#[test]
fn real_usb_trees_read_the_bridge_release_uas_and_provisioning_mode() {
    for (scenario, uas_offered) in [("usb_uas", true), ("usb_storage", false)] {
        let facts = real(scenario);
        let usb = only_drive(&facts).usb.clone().expect("usb details");
        assert!(usb.bcd_device.is_some(), "{scenario}: {usb:?}");
        assert_eq!(usb.uas_offered, Some(uas_offered), "{scenario}: {usb:?}");
        assert!(usb.provisioning_mode.is_some(), "{scenario}: {usb:?}");
    }
}

#[test]
fn btrfs_on_md_fixture_matches_the_real_kernel() {
    assert_same_shape_except("btrfs_on_md", "btrfs_on_md", &[], &[QEMU_IDENTIFY_WORD_76]);
}

/// btrfs on md RAID1, recorded on a real kernel: btrfs lists md0 as its one device, and md0
/// resolves to both SATA members, each with its model and serial.
#[test]
fn real_btrfs_on_md_tree_reaches_both_members() {
    let facts = real("btrfs_on_md");
    assert_eq!(
        facts.mount.as_ref().map(|m| m.fs_type.as_str()),
        Some("btrfs")
    );
    assert_eq!(facts.layers[0].kind, LayerKind::Md);
    assert_eq!(facts.layers[0].detail.as_deref(), Some("raid1"));
    assert!(facts.unresolved.is_empty(), "{:?}", facts.unresolved);
    // In md's order of its members, which is not the serials' order.
    let mut members: Vec<(Option<&str>, Option<&str>)> = facts
        .drives
        .iter()
        .map(|d| (d.model.as_deref(), d.serial.as_deref()))
        .collect();
    members.sort();
    assert_eq!(
        members,
        [
            (Some("CT1000MX500SSD1"), Some("2301E6B1D001")),
            (Some("CT1000MX500SSD1"), Some("2301E6B1D002")),
        ]
    );
}

#[test]
fn btrfs_fixture_matches_the_real_kernel() {
    assert_same_shape("btrfs_two_devices", "btrfs_two_devices");
}

#[test]
fn real_nvme_tree() {
    let facts = real("nvme");
    let drive = only_drive(&facts);
    assert_drive(drive, |d| Drive {
        model: Some("QEMU NVMe Ctrl".into()),
        serial: Some("NCQEMUNVME01".into()),
        interface: Some(Interface::Nvme),
        capacity_bytes: Some(2 << 30),
        temperature_source: Some(HealthSource::Hwmon),
        ..d
    });
    let link = drive.pcie_link.expect("PCIe link");
    assert_eq!((link.current_gts, link.current_width), (Some(2.5), Some(1)));
    assert_eq!((link.max_gts, link.max_width), (Some(2.5), Some(1)));
    assert_eq!(facts.stack, ["nvme0n1p1", "nvme0n1"]);
    assert_eq!(facts.trim_effective, Some(true));
    assert_eq!(
        facts.mount.as_ref().map(|m| m.atime),
        Some(AtimeMode::Noatime)
    );
}

#[test]
fn real_sata_trees_take_the_model_from_identify() {
    for (scenario, mode, driver) in [
        ("sata_ahci", ControllerMode::Ahci, "ahci"),
        ("sata_ide", ControllerMode::Ide, "ata_piix"),
    ] {
        let facts = real(scenario);
        let drive = only_drive(&facts);
        // The SCSI view holds only INQUIRY's 16 bytes ("Samsung SSD 870 ").
        assert_eq!(
            drive.model.as_deref(),
            Some("Samsung SSD 870 EVO 2TB"),
            "{scenario}"
        );
        assert_eq!(drive.serial.as_deref(), Some("S6PNNS0T412345A"));
        assert_eq!(drive.interface, Some(Interface::Sata));
        assert_eq!(drive.controller_mode, Some(mode), "{scenario}");
        assert_eq!(drive.controller_driver.as_deref(), Some(driver));
        assert_eq!(drive.rotational, Some(false), "rotation_rate=1");
        assert_eq!(drive.rotation_rate_rpm, Some(0));
        assert_eq!(drive.trim_supported, Some(true), "IDENTIFY word 169");
    }
    let ahci = real("sata_ahci");
    assert_eq!(
        ahci.drives[0].controller_pci_class.as_deref(),
        Some("0x010601")
    );
    assert_eq!(
        ahci.mount.as_ref().map(|m| m.atime),
        Some(AtimeMode::Strictatime)
    );
}

#[test]
fn real_md_raid1_tree() {
    let facts = real("md_raid1");
    assert_eq!(facts.layers[0].kind, LayerKind::Md);
    assert_eq!(facts.layers[0].detail.as_deref(), Some("raid1"));
    assert_eq!(facts.drives.len(), 2);
    assert!(facts
        .drives
        .iter()
        .all(|d| d.model.as_deref() == Some("CT1000MX500SSD1")));
}

#[test]
fn real_lvm_on_dm_crypt_trees() {
    for (scenario, passes) in [("lvm_on_crypt", false), ("lvm_on_crypt_discards", true)] {
        let facts = real(scenario);
        let kinds: Vec<LayerKind> = facts.layers.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            [LayerKind::Lvm, LayerKind::Crypt, LayerKind::Disk],
            "{scenario}"
        );
        assert_eq!(facts.layers[1].detail.as_deref(), Some("cryptdata"));
        assert_eq!(
            facts.layers[1].discard_max_bytes.is_some_and(|b| b > 0),
            passes,
            "{scenario}: the crypt layer"
        );
        assert_eq!(facts.trim_effective, Some(passes), "{scenario}");
    }
}

#[test]
fn real_usb_storage_tree() {
    let facts = real("usb_storage");
    let drive = only_drive(&facts);
    assert_eq!(drive.interface, Some(Interface::Usb));
    let usb = drive.usb.as_ref().expect("usb details");
    assert_eq!(usb.driver.as_deref(), Some("usb-storage"));
    assert_eq!(usb.vendor_id.as_deref(), Some("46f4"));
    assert_eq!(usb.speed_mbps, Some(5000));
    assert_eq!(drive.trim_supported, Some(false));
}

#[test]
fn real_btrfs_tree_finds_both_devices() {
    let facts = real("btrfs_two_devices");
    assert_eq!(
        facts.mount.as_ref().map(|m| m.fs_type.as_str()),
        Some("btrfs")
    );
    let serials: Vec<&str> = facts
        .drives
        .iter()
        .filter_map(|d| d.serial.as_deref())
        .collect();
    assert_eq!(serials, ["NCQEMUBTRFS1", "NCQEMUBTRFS2"]);
}

#[test]
fn real_megaraid_tree_names_the_controller() {
    let facts = real("megasas");
    assert_drive(only_drive(&facts), |d| Drive {
        model: Some("QEMU HARDDISK".into()),
        controller_mode: Some(ControllerMode::Raid),
        controller_driver: Some("megaraid_sas".into()),
        controller_pci_class: Some("0x010400".into()),
        // Behind the HBA the kernel sees a SCSI disk: no ATA IDENTIFY to read.
        ata: None,
        // rotation_rate=1
        rotational: Some(false),
        ..d
    });
}

#[test]
fn a_real_9p_host_share_names_its_tag_like_the_fixture() {
    let real = real("host_share_9p");
    let fixture = hand_written("vm_9p_host_share");
    let share = |facts: &Facts| {
        let mount = facts.mount.as_ref().expect("a mount holds the datadir");
        let network = mount.network.as_ref().expect("a 9p mount is a share");
        (
            mount.fs_type.clone(),
            network.kind,
            network.server.clone(),
            network.export.clone(),
            network.transport.clone(),
        )
    };
    let (fs_type, kind, server, export, transport) = share(&real);
    assert_eq!(fs_type, "9p");
    assert_eq!(server, None, "a VM's host share names no server");
    assert_eq!(export.as_deref(), Some("ethdata"));
    assert_eq!(transport.as_deref(), Some("virtio"));
    assert_eq!(
        share(&fixture),
        share(&real),
        "the fixture's 9p mount reads the same"
    );
    assert!(
        real.drives.is_empty(),
        "no block device under a share: {:?}",
        real.drives
    );
    let _ = kind;
}

#[test]
fn rotation_unreported_fixture_matches_the_real_kernel() {
    assert_same_shape_except(
        "sata_ssd_rotation_unreported",
        "qemu_sata_ssd_rotation_unreported",
        &[],
        &[QEMU_IDENTIFY_WORD_76],
    );
    let real = real("sata_ssd_rotation_unreported");
    let drive = only_drive(&real);
    assert_eq!(drive.queue_rotational, Some(true), "the kernel's flag");
    assert_eq!(drive.model.as_deref(), Some("Samsung SSD 870 QVO 1TB"));
}

/// Sampling the temperature during a measurement reads the same hwmon the probe reads, from
/// the block device's name alone (a real kernel's tree: QEMU's NVMe reports 49.85 °C). The
/// snapshot recorded only what the probe read, so the `/sys/class/block` link the sampler
/// starts from is added as the kernel has it.
#[test]
fn the_temperature_sampled_during_a_run_is_the_probes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(tree("nvme").join("sys"))
        .arg(dir.path())
        .status()
        .expect("cp runs");
    assert!(copied.success());
    let class_block = dir.path().join("sys/class/block");
    std::fs::create_dir_all(&class_block).expect("mkdir");
    std::os::unix::fs::symlink(
        "../../devices/pci0000:00/0000:00:02.0/nvme/nvme0/nvme0n1",
        class_block.join("nvme0n1"),
    )
    .expect("symlink");
    let root = Root::at(dir.path()).expect("tree");
    assert_eq!(
        ::probe::hwmon::block_device_temperature(&root, "nvme0n1"),
        Some(49.85)
    );
    assert_eq!(
        ::probe::hwmon::block_device_temperature(&root, "nvme9n1"),
        None
    );
    assert_eq!(
        ::probe::hwmon::block_device_temperature(&root, "../x"),
        None
    );
}

/// OpenZFS 2.1 (Debian's zfs-dkms built for the guest kernel) with a mirror over two
/// partitioned NVMe drives and no udev: the members come from the guest's own
/// `zpool status -P`, kept by the snapshot, and the properties from its `zpool get`/`zfs get`.
#[test]
fn real_zfs_mirror_resolves_the_pool_to_its_drives() {
    let facts = real("zfs_mirror");
    assert_eq!(
        facts.mount.as_ref().map(|m| m.fs_type.as_str()),
        Some("zfs")
    );
    let zfs = facts.zfs.as_ref().expect("zfs facts");
    assert_eq!(
        (zfs.pool.as_str(), zfs.dataset.as_str()),
        ("tank", "tank/ethereum")
    );
    assert_eq!(zfs.members, ["nvme0n1p1", "nvme1n1p1"]);
    assert_eq!(zfs.members_from.as_deref(), Some("zpool status"));
    assert_eq!(zfs.pool_state.as_deref(), Some("ONLINE"));
    assert!(
        zfs.module_version
            .as_deref()
            .is_some_and(|v| v.starts_with("2.1.")),
        "{:?}",
        zfs.module_version
    );
    // OpenZFS before 2.3 serves O_DIRECT through the ARC.
    assert_eq!(zfs.direct_io_bypasses_arc(), Some(false));
    // Made without `-o ashift`: the pool records 0 ("auto") and each vdev took its drives'
    // sector size, which the verdict reads from the members' physical_block_size.
    assert_eq!(zfs.pool_number("ashift"), Some(0));
    assert_eq!(
        zfs.pool_properties.get("autotrim").map(String::as_str),
        Some("off")
    );
    assert_eq!(zfs.dataset_number("recordsize"), Some(128 << 10));
    for (property, value) in [
        ("compression", "off"),
        ("atime", "on"),
        ("sync", "standard"),
    ] {
        assert_eq!(
            zfs.dataset_properties.get(property).map(String::as_str),
            Some(value),
            "{property}"
        );
    }
    assert_eq!(zfs.arc_max_parameter_bytes, Some(0));
    let (c_max, ram) = (
        zfs.arc_c_max_bytes.expect("c_max"),
        zfs.mem_total_bytes.expect("MemTotal"),
    );
    // OpenZFS 2.1 on Linux defaults the ARC's limit to half of RAM.
    assert!(
        c_max * 2 <= ram + (1 << 20) && c_max * 2 >= ram - (64 << 20),
        "{c_max} of {ram}"
    );
    let serials: Vec<&str> = facts
        .drives
        .iter()
        .filter_map(|d| d.serial.as_deref())
        .collect();
    assert_eq!(serials, ["NCQEMUZFS001", "NCQEMUZFS002"]);
    assert!(
        facts
            .drives
            .iter()
            .all(|d| d.physical_block_size == Some(512)),
        "QEMU's NVMe reports 512-byte sectors"
    );
    assert!(facts.unresolved.is_empty(), "{:?}", facts.unresolved);
}

#[test]
fn zfs_fixture_matches_the_real_kernel() {
    assert_same_shape("zfs_mirror", "zfs_mirror");
}
