//! Operators' setups judged from the probe's fixture trees: a ZFS mirror before and after
//! tuning, a drive passed through to a KVM guest, a plain QEMU volume, cloud volumes by their
//! provider, btrfs on md.

use crate::support::*;
use probe::fixture::scenario_named;
use probe::Root;
use probe::{Facts, ProbeOptions};
use verdict::Severity;
use verdict::Verdict;

fn facts_of(name: &str) -> Facts {
    let scenario = scenario_named(name).unwrap_or_else(|| panic!("no scenario {name}"));
    let dir = tempfile::tempdir().expect("tempdir");
    (scenario.build)(dir.path()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let root = Root::at(dir.path()).unwrap_or_else(|e| panic!("{name}: {e}"));
    probe::probe_path(
        &root,
        std::path::Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn judged(name: &str) -> Verdict {
    run(&facts_of(name))
}

#[test]
fn a_zfs_mirror_is_judged_by_its_member_drives_and_properties() {
    let v = judged("zfs_mirror");
    // Both member drives are judged like any other: the database knows the 980 PRO.
    assert_eq!(v.drives.len(), 2, "{:?}", codes(&v));
    assert!(
        v.drives.iter().all(|d| d.entry.is_some()),
        "{:#?}",
        v.drives
    );
    assert!(!has(&v, "NC506"), "the pool was resolved: {:?}", codes(&v));
    let layout = all(&v, "NC530");
    assert!(
        layout.iter().any(|f| f.severity == Severity::Warning
            && f.detail.contains("ashift=9")
            && f.fix
                .as_deref()
                .is_some_and(|x| x.contains("zpool create -o ashift=12"))),
        "{layout:#?}"
    );
    let autotrim = layout;
    assert!(
        autotrim.iter().any(|f| f
            .fix
            .as_deref()
            .is_some_and(|x| x.contains("sudo zpool set autotrim=on tank"))),
        "{autotrim:#?}"
    );
    assert_finding(
        &v,
        "NC531",
        Severity::Info,
        &[
            "recordsize is 128K",
            "sudo zfs set recordsize=16K tank/ethereum",
            "compression=lz4",
            "atime=off",
        ],
    );
    // NC503 reads the real recordsize instead of asserting the default.
    assert_finding(&v, "NC503", Severity::Info, &["recordsize of 128K"]);
    assert_finding(
        &v,
        "NC532",
        Severity::Info,
        &["zfs_arc_max", "/etc/modprobe.d/zfs.conf"],
    );
    assert_finding(
        &v,
        "NC533",
        Severity::Info,
        &["2.2.2-0ubuntu9", "nodecheck bench --device /dev/nvme0n1"],
    );
}

#[test]
fn a_tuned_zfs_mirror_gets_no_tuning_advice() {
    let v = judged("zfs_mirror_tuned");
    for code in ["NC530", "NC531", "NC532", "NC533", "NC506"] {
        assert!(!has(&v, code), "{code}: {:?}", codes(&v));
    }
    assert!(one(&v, "NC503").fix.is_none());
}

#[test]
fn bare_metal_zfs_without_udev_records_is_not_sent_to_another_host() {
    let v = judged("zfs_dataset");
    let fix = fix_of(&v, "NC506");
    assert!(fix.contains("zpool status -P tank"), "{fix}");
    assert!(!fix.contains("host that owns"), "{fix}");
}

#[test]
fn a_passed_through_drive_is_judged_by_its_model() {
    let v = judged("vm_scsi_passthrough");
    assert!(!has(&v, "NC602"), "{:?}", codes(&v));
    assert_eq!(
        v.drives[0].entry.as_ref().map(|e| e.family.as_str()),
        Some("Samsung 870 EVO"),
        "{:#?}",
        v.drives
    );
    assert_finding(
        &v,
        "NC610",
        Severity::Info,
        &[
            "Samsung SSD 870 EVO 2TB",
            "cache=none",
            "/dev/disk/by-id/ata-Samsung_SSD_870_EVO_2TB_S6PNNS0T412345A",
        ],
    );
    assert!(!fix_of(&v, "NC610").contains("gp3"));
}

#[test]
fn a_passed_through_nvme_with_a_known_model_gets_no_cloud_fix() {
    let mut facts = nvme_machine();
    facts.platform.cloud = Some("kvm".into());
    facts.platform.virtualized = Some(true);
    let v = run(&facts);
    assert!(!has(&v, "NC602"), "{:?}", codes(&v));
    assert!(v
        .findings
        .iter()
        .all(|f| !f.fix.as_deref().unwrap_or("").contains("gp3")));
    assert_finding(&v, "NC610", Severity::Info, &["hostpci0"]);
}

#[test]
fn a_qemu_volume_gets_the_host_settings_that_decide_its_speed() {
    let v = judged("vm_qemu_harddisk");
    assert_finding(
        &v,
        "NC611",
        Severity::Warning,
        &[
            "one hardware queue",
            "no discard",
            "rotational",
            "iothread=1,discard=on,ssd=1,cache=none",
        ],
    );
    assert!(!has(&v, "NC610"));
}

#[test]
fn cloud_volumes_are_named_with_their_providers_fix() {
    let mut facts = facts_of("vm_qemu_harddisk");
    let drive = &mut facts.drives[0];
    drive.vendor = Some("HC".into());
    drive.model = Some("Volume".into());
    facts.platform.cloud = Some("hetzner".into());
    let v = run(&facts);
    assert_finding(
        &v,
        "NC612",
        Severity::Warning,
        &["Hetzner Cloud Volume", "Nothing was measured", "local NVMe"],
    );
    assert!(!fix_of(&v, "NC612").contains("gp3"));
    assert!(!has(&v, "NC602"));
    // Measured: network storage is judged by its latency.
    let slow = bench_report(
        latency(1400.0, 3000.0, 9000.0),
        None,
        bench::EngineKind::IoUring,
    );
    assert_finding(
        &run_bench(&facts, &slow),
        "NC612",
        Severity::Warning,
        &["above the 500"],
    );
    let fast = bench_report(
        latency(180.0, 400.0, 900.0),
        None,
        bench::EngineKind::IoUring,
    );
    assert_finding(
        &run_bench(&facts, &fast),
        "NC612",
        Severity::Info,
        &["within 500"],
    );

    let v = judged("aws_ebs");
    assert_finding(
        &v,
        "NC612",
        Severity::Warning,
        &[
            "AWS EBS volume",
            "gp2 volumes below 1 TiB run on burst credits",
        ],
    );
    assert!(all(&v, "NC612").iter().any(|f| f
        .fix
        .as_deref()
        .unwrap_or("")
        .contains("aws ec2 describe-volumes --volume-ids vol-0fedcba9876543210")));
}

#[test]
fn btrfs_on_md_is_judged_down_to_its_drives() {
    let v = judged("btrfs_on_md");
    assert!(!has(&v, "NC506"), "{:?}", codes(&v));
    assert_eq!(v.drives.len(), 2);
}

#[test]
fn a_raspberry_pi_5_gets_its_pcie_lever_not_a_uefi_setting() {
    let facts = facts_of("raspberry_pi_5_nvme");
    assert_eq!(
        facts.platform.board_model.as_deref(),
        Some("Raspberry Pi 5 Model B Rev 1.0")
    );
    let v = run(&facts);
    assert_finding(
        &v,
        "NC402",
        Severity::Warning,
        &["dtparam=pciex1_gen=3", "/boot/firmware/config.txt"],
    );
    assert!(!fix_of(&v, "NC402").contains("UEFI"));
    // At Gen 3 the one lane is the board's limit: said, not warned about.
    let mut gen3 = facts.clone();
    gen3.drives[0].pcie_link.as_mut().expect("link").current_gts = Some(8.0);
    assert_finding(
        &run(&gen3),
        "NC402",
        Severity::Info,
        &["dtparam=pciex1_gen=3"],
    );
    // A PC with the same link keeps the PC's fix.
    let mut pc = facts;
    pc.platform.board_model = None;
    assert!(fix_of(&run(&pc), "NC402").contains("UEFI"));
}

#[test]
fn nvme_families_that_drop_off_the_bus_get_the_exact_power_fix() {
    let mut facts = nvme_machine();
    facts.drives[0].model = Some("Samsung SSD 990 PRO 4TB".into());
    facts.power = Some(probe::PowerSettings {
        apst_max_latency_us: Some(100_000),
        aspm_policy: Some("default".into()),
    });
    let v = run(&facts);
    assert_finding(
        &v,
        "NC420",
        Severity::Warning,
        &[
            "nvme_core.default_ps_max_latency_us=100000",
            "nvme_core.default_ps_max_latency_us=0 pcie_aspm=off",
            "ATTR{d3cold_allowed}=\"0\"",
            "KERNEL==\"0000:01:00.0\"",
        ],
    );
    // With APST and ASPM off it is said, not warned about.
    facts.power = Some(probe::PowerSettings {
        apst_max_latency_us: Some(0),
        aspm_policy: Some("performance".into()),
    });
    assert_finding(&run(&facts), "NC420", Severity::Info, &["APST is off"]);
    // A Phison E18 is known by its controller's PCI id whatever its label says.
    let mut e18 = nvme_machine();
    let nvme = e18.drives[0].nvme.as_mut().expect("nvme");
    nvme.pci_vendor_id = Some("0x1987".into());
    nvme.pci_device_id = Some("0x5018".into());
    e18.drives[0].model = Some("Some Brand E18 2TB".into());
    assert_finding(&run(&e18), "NC420", Severity::Warning, &["Phison E18"]);
    // Other drives get nothing.
    assert!(!has(&run(&nvme_machine()), "NC420"));
}

/// `zpool create` without `-o ashift` records `ashift=0` ("auto"), as a real OpenZFS 2.1 pool
/// showed under QEMU (docs/sources/openzfs-real-kernel.md): each vdev then took the sector
/// size its drives report, which is what NC530 must judge.
#[test]
fn an_auto_ashift_is_judged_by_the_sector_size_the_members_report() {
    let with_sectors = |physical: u32| {
        let mut facts = facts_of("zfs_mirror");
        let zfs = facts.zfs.as_mut().expect("zfs facts");
        zfs.pool_properties.insert("ashift".into(), "0".into());
        for drive in &mut facts.drives {
            drive.physical_block_size = Some(physical);
        }
        run(&facts)
    };
    let small = with_sectors(512);
    let warned: Vec<_> = all(&small, "NC530")
        .into_iter()
        .filter(|f| f.severity == Severity::Warning)
        .collect();
    assert!(
        warned.iter().any(|f| f.detail.contains("ashift=0 (auto)")
            && f.detail.contains("ashift=9 (512 byte blocks)")),
        "{warned:#?}"
    );
    let native = with_sectors(4096);
    assert!(
        !all(&native, "NC530")
            .iter()
            .any(|f| f.severity == Severity::Warning),
        "4 KiB sectors give ashift 12: {:#?}",
        all(&native, "NC530")
    );
}

/// With the pool's `autotrim` read, NC530 judges it; NC303's "make sure the pool trims" is only
/// for when it could not be read (it stayed after `autotrim=on` in the real-kernel run).
#[test]
fn the_pool_trim_reminder_goes_once_autotrim_is_read() {
    let mut facts = facts_of("zfs_mirror");
    let zfs = facts.zfs.as_mut().expect("zfs facts");
    zfs.pool_properties.insert("autotrim".into(), "on".into());
    assert!(!has(&run(&facts), "NC303"), "{:?}", codes(&run(&facts)));
    facts
        .zfs
        .as_mut()
        .expect("zfs facts")
        .pool_properties
        .remove("autotrim");
    assert!(has(&run(&facts), "NC303"), "{:?}", codes(&run(&facts)));
}

/// Azure's temporary disk and a managed disk both report `Msft Virtual Disk`; the VMBus
/// channel each hangs off tells them (Azure's own udev rules, docs/sources/azure-disks.md).
#[test]
fn azures_temporary_disk_is_told_from_a_managed_disk_by_its_vmbus_channel() {
    let facts = facts_of("azure_temporary_disk");
    assert_eq!(facts.platform.cloud.as_deref(), Some("azure"));
    let vmbus = facts.drives[0]
        .vmbus
        .as_ref()
        .expect("the resource disk's channel");
    assert_eq!(vmbus.device_id, "{00000000-0001-8899-0000-000000000000}");
    assert_eq!(vmbus.lun, Some(0));
    let temporary = run(&facts);
    assert_finding(
        &temporary,
        "NC612",
        Severity::Warning,
        &[
            "Azure temporary (resource) disk, erased on deallocation",
            "deallocated",
            "managed data disk",
        ],
    );
    let managed = judged("azure_managed_data_disk");
    let finding = one(&managed, "NC612");
    assert!(
        finding.title.ends_with("Azure managed disk"),
        "{finding:#?}"
    );
    assert!(!finding.detail.contains("temporary"), "{finding:#?}");
    assert!(fix_of(&managed, "NC612").contains("az disk list"));
}
