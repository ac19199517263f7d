//! From a machine to a verdict: each of the probe's fixture trees (kernel-accurate sysfs,
//! mountinfo, DMI, systemd) is probed and judged, and the finding that scenario exists for
//! must come out with its fix. The hostile trees must be judged without a panic.

use crate::support::*;
use probe::fixture::scenario_named;
use probe::ProbeOptions;
use probe::Root;
use verdict::Verdict;
use verdict::{Grade, Severity};

fn judged(name: &str) -> Verdict {
    let scenario = scenario_named(name).unwrap_or_else(|| panic!("no scenario {name}"));
    let dir = tempfile::tempdir().expect("tempdir");
    (scenario.build)(dir.path()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let root = Root::at(dir.path()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let facts = probe::probe_path(
        &root,
        std::path::Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    run(&facts)
}

#[test]
fn every_scenario_is_judged_without_panicking() {
    for (name, facts) in probed_fixtures() {
        let v = run(&facts);
        assert_eq!(v.drives.len(), facts.drives.len(), "{name}");
        let severities: Vec<Severity> = v.findings.iter().map(|f| f.severity).collect();
        assert!(
            severities.windows(2).all(|w| w[0] >= w[1]),
            "{name}: {:?}",
            codes(&v)
        );
    }
}

#[test]
fn degraded_pcie_link_is_named_with_both_speeds() {
    let v = judged("nvme_degraded_pcie_link");
    let f = all(&v, "NC402")
        .into_iter()
        .find(|f| f.severity == Severity::Warning)
        .unwrap_or_else(|| panic!("no NC402 warning in {:?}", codes(&v)));
    assert!(f.detail.contains(" of "), "{f:#?}");
    assert!(f.detail.contains("GT/s x"), "{f:#?}");
}

#[test]
fn hmb_drive_is_flagged_dram_less() {
    let v = judged("nvme_with_hmb");
    assert!(has(&v, "NC106"), "{:?}", codes(&v));
}

#[test]
fn sata_controller_modes() {
    let v = judged("sata_ide_mode");
    let f = one(&v, "NC401");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.title.contains("IDE"), "{f:#?}");

    let v = judged("sata_raid_mode_trim_blocked");
    let f = one(&v, "NC401");
    assert!(f.title.contains("RAID"), "{f:#?}");
    let trim = one(&v, "NC302");
    assert!(
        trim.title.contains("RAID controller") || trim.title.contains("controller"),
        "{trim:#?}"
    );

    let v = judged("sata_ahci");
    assert_eq!(one(&v, "NC401").severity, Severity::Ok);
}

#[test]
fn usb_drive_is_flagged() {
    let v = judged("usb_uas");
    let f = one(&v, "NC404");
    assert!(f.severity >= Severity::Warning, "{f:#?}");
}

/// NC405 names the bridge by its USB ids: the Samsung T5's own bridge (the `0` it answers
/// is its firmware, not the drive's), a JMicron JMS578 with the kernel's BROKEN_FUA and no
/// UNMAP, an ASMedia enclosure offering UAS that the kernel's ASMedia rule turned off.
#[test]
fn usb_bridges_are_named_with_their_kernel_quirks() {
    let v = judged("usb_uas");
    let f = one(&v, "NC405");
    assert_eq!(f.severity, Severity::Info, "{f:#?}");
    assert!(f.title.contains("Samsung Portable SSD T5"), "{f:#?}");
    assert!(
        f.detail
            .contains("The revision `0` it answers is the bridge's firmware, not the drive's"),
        "{f:#?}"
    );
    assert!(f.detail.contains("release 1.00"), "{f:#?}");
    assert!(f.detail.contains("It runs on UAS"), "{f:#?}");
    assert!(f.detail.contains("provisioning_mode `full`"), "{f:#?}");
    assert_eq!(f.subject.as_deref(), Some("sdb"));
    assert!(v.drives.iter().all(|d| d.model.as_deref() != Some("0")));

    let v = judged("usb_jmicron_broken_fua");
    let f = one(&v, "NC405");
    assert_eq!(f.severity, Severity::Info, "{f:#?}");
    assert!(f.title.contains("JMicron JMS578"), "{f:#?}");
    assert!(f.detail.contains("(US_FL_BROKEN_FUA)"), "{f:#?}");
    assert!(f.detail.contains("(152d:0578), release 4.04"), "{f:#?}");
    assert!(
        !f.detail.contains("bridge's firmware"),
        "a SAT bridge passes the drive's own revision: {f:#?}"
    );
    assert!(
        f.detail.contains("The firmware `046` it passes on is only the last four characters of the drive's revision (SAT): `sudo smartctl -d sat -i /dev/sdb`"),
        "{f:#?}"
    );
    assert!(f.detail.contains("unusual_uas.h"), "{f:#?}");
    assert_eq!(f.fix, None);

    let v = judged("usb_uas_turned_off");
    let f = one(&v, "NC405");
    assert_eq!(f.severity, Severity::Warning, "{f:#?}");
    assert!(f.title.contains("ASMedia"), "{f:#?}");
    assert!(
        f.detail
            .contains("Its descriptors offer UAS, yet it runs on usb-storage"),
        "{f:#?}"
    );
    assert!(f.detail.contains("ASMedia rule (uas-detect.h)"), "{f:#?}");
    assert!(f.detail.contains("raspberrypi/linux #5060"), "{f:#?}");
    let fix = f.fix.as_deref().unwrap_or_default();
    assert!(fix.starts_with("Do not force UAS back on."), "{fix}");
}

/// `usb-storage.quirks=174c:55aa:u` set by the owner is quoted, with where to remove it.
#[test]
fn a_usb_storage_quirks_parameter_is_quoted_in_the_fix() {
    let scenario = scenario_named("usb_uas_turned_off").unwrap();
    let dir = tempfile::tempdir().unwrap();
    (scenario.build)(dir.path()).unwrap();
    let parameters = dir.path().join("sys/module/usb_storage/parameters");
    std::fs::create_dir_all(&parameters).unwrap();
    std::fs::write(parameters.join("quirks"), "174c:55aa:u\n").unwrap();
    let root = Root::at(dir.path()).unwrap();
    let facts = probe::probe_path(
        &root,
        std::path::Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .unwrap();
    let v = run(&facts);
    let f = one(&v, "NC405");
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.detail.contains(
            "this kernel's command line turns UAS off for it (`usb-storage.quirks=174c:55aa:u`)"
        ),
        "{f:#?}"
    );
    let fix = f.fix.as_deref().unwrap_or_default();
    assert!(fix.contains("`cat /proc/cmdline`"), "{fix}");
    assert!(fix.contains("/boot/firmware/cmdline.txt"), "{fix}");
}

#[test]
fn hard_disk_is_bad() {
    let v = judged("hdd");
    assert_eq!(one(&v, "NC105").severity, Severity::Critical);
    assert_eq!(v.grade, Grade::Bad);
}

#[test]
fn known_ssd_the_kernel_marks_rotational_is_no_hard_disk() {
    let v = judged("qemu_sata_ssd_rotation_unreported");
    assert!(!has(&v, "NC105"), "{:?}", codes(&v));
    let f = one(&v, "NC120");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.title
            .contains("The kernel marks sda rotational, but it is solid state"),
        "{f:#?}"
    );
    assert!(
        f.detail
            .contains("its model is a known SSD (Samsung 870 QVO)"),
        "{f:#?}"
    );
    assert!(f.detail.contains("I/O scheduler"), "{f:#?}");
    assert!(
        f.fix
            .as_deref()
            .unwrap_or("")
            .contains("ATTR{queue/rotational}=\"0\""),
        "{f:#?}"
    );
    // The drive is graded as the QLC SSD it is, and TRIM is judged as for any SSD.
    let drive = &v.drives[0];
    assert_eq!(drive.grade, Grade::Ugly);
    assert!(has(&v, "NC300"), "{:?}", codes(&v));
}

#[test]
fn network_storage_is_critical_and_names_server_and_export() {
    for (name, needles) in [
        (
            "nfs4_nas",
            &["NFS (version 4.2) from diskstation.lan (192.168.1.10), export /volume1/ethereum"][..],
        ),
        (
            "cifs_nas",
            &["SMB/CIFS (version 3.1.1) from 192.168.1.10, share ethereum"][..],
        ),
        (
            "cephfs",
            &["CephFS from 10.0.0.11:3300, 10.0.0.12:3300, 10.0.0.13:3300, path /volumes/eth"][..],
        ),
        (
            "glusterfs",
            &["GlusterFS from gluster1.lan, volume gv0"][..],
        ),
    ] {
        let v = judged(name);
        let f = one(&v, "NC520");
        assert_eq!(f.severity, Severity::Critical, "{name}");
        for needle in needles {
            assert!(f.detail.contains(needle), "{name}: {f:#?}");
        }
        let fix = f.fix.as_deref().unwrap_or("");
        assert!(
            fix.contains("local NVMe SSD") && fix.contains("NAS for backups"),
            "{name}: {fix}"
        );
        assert_eq!(v.grade, Grade::Bad, "{name}");
        assert!(!has(&v, "NC506"), "{name}: NC520 says it: {:?}", codes(&v));
    }
}

#[test]
fn host_shares_in_a_vm_are_a_warning() {
    for (name, label) in [
        (
            "vm_9p_host_share",
            "9p from the VM's host, mount tag ethdata",
        ),
        (
            "vm_virtiofs_host_share",
            "virtiofs from the VM's host, mount tag ethdata",
        ),
    ] {
        let v = judged(name);
        let f = one(&v, "NC520");
        assert_eq!(f.severity, Severity::Warning, "{name}");
        assert!(f.detail.contains(label), "{name}: {f:#?}");
        assert!(f.detail.contains("host's drive decides"), "{name}: {f:#?}");
        assert!(
            f.fix.as_deref().unwrap_or("").contains("mount tag ethdata"),
            "{name}: {f:#?}"
        );
        assert!(v.grade >= Grade::Ugly, "{name}: {:?}", v.grade);
    }
}

#[test]
fn dm_crypt_without_discards_gets_the_refresh_command() {
    let v = judged("dm_crypt");
    let f = one(&v, "NC302");
    assert!(
        f.fix
            .as_deref()
            .unwrap_or("")
            .contains("sudo cryptsetup refresh --perf-no_read_workqueue --perf-no_write_workqueue --allow-discards --persistent cryptdata"),
        "{f:#?}"
    );
}

/// Ubuntu's encrypted LVM install, its crypt table saved as `dmsetup table` prints it:
/// opened with discards but with dm-crypt's work queues, so NC507 says so with the refresh
/// command; with all three flags the check passes; without a table there is no NC507.
#[test]
fn luks_work_queues_are_read_from_the_table_and_judged() {
    let v = judged("lvm_on_luks");
    let f = one(&v, "NC507");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.detail
            .contains("without no_read_workqueue, no_write_workqueue:"),
        "{f:#?}"
    );
    assert!(!f.detail.contains("allow_discards"), "{f:#?}");
    assert_eq!(f.subject.as_deref(), Some("dm-0"));
    assert!(
        f.fix.as_deref().unwrap_or("").starts_with(
            "sudo cryptsetup refresh --perf-no_read_workqueue --perf-no_write_workqueue --allow-discards --persistent dm_crypt-0"
        ),
        "{f:#?}"
    );
    assert!(
        !has(&judged("dm_crypt"), "NC507"),
        "no table read, nothing judged"
    );

    let scenario = scenario_named("lvm_on_luks").unwrap();
    let dir = tempfile::tempdir().unwrap();
    (scenario.build)(dir.path()).unwrap();
    std::fs::write(
        dir.path().join("nodecheck/dm/dm-0.table"),
        "0 3900596224 crypt aes-xts-plain64 :64:logon:cryptsetup:x-d0 0 259:3 32768 3 allow_discards no_read_workqueue no_write_workqueue\n",
    )
    .unwrap();
    let root = Root::at(dir.path()).unwrap();
    let facts = probe::probe_path(
        &root,
        std::path::Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .unwrap();
    let tuned = run(&facts);
    assert_eq!(one(&tuned, "NC507").severity, Severity::Ok);
}

/// A LUKS volume opened with no flags at all drops TRIM (NC302) and uses the work queues
/// (NC507). `cryptsetup refresh` resets every flag it is not given, so both findings must
/// print the same command: pasting either one leaves nothing for the other to undo.
#[test]
fn nc302_and_nc507_print_one_refresh_command_for_a_luks_volume() {
    let scenario = scenario_named("lvm_on_luks").unwrap();
    let dir = tempfile::tempdir().unwrap();
    (scenario.build)(dir.path()).unwrap();
    std::fs::write(
        dir.path().join("nodecheck/dm/dm-0.table"),
        "0 3900596224 crypt aes-xts-plain64 :64:logon:cryptsetup:x-d0 0 259:3 32768\n",
    )
    .unwrap();
    std::fs::write(
        dir.path()
            .join("sys/devices/virtual/block/dm-0/queue/discard_max_bytes"),
        "0\n",
    )
    .unwrap();
    let root = Root::at(dir.path()).unwrap();
    let facts = probe::probe_path(
        &root,
        std::path::Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .unwrap();
    let v = run(&facts);
    let trim = one(&v, "NC302");
    let crypt = one(&v, "NC507");
    assert!(crypt.detail.contains("allow_discards"), "{crypt:#?}");
    assert_eq!(trim.fix, crypt.fix, "{trim:#?}\n{crypt:#?}");
    assert!(
        trim.fix.as_deref().unwrap_or("").starts_with(
            "sudo cryptsetup refresh --perf-no_read_workqueue --perf-no_write_workqueue --allow-discards --persistent dm_crypt-0"
        ),
        "{trim:#?}"
    );
}

/// A VPS whose disks carry no provider identity gets its provider's fix, named from DMI,
/// with the sources; not AWS's gp3 advice.
#[test]
fn vps_providers_get_their_own_fix() {
    for (scenario, wanted, source) in [
        (
            "vultr_vps",
            "`vultr-cli block-storage list`",
            "https://docs.vultr.com/reference/vultr-cli/block-storage",
        ),
        (
            "openstack_vps",
            "`openstack volume list --long`",
            "https://www.ovhcloud.com/asia/public-cloud/faq/",
        ),
        (
            "ovh_vps",
            "`openstack volume list --long`",
            "https://github.com/joedicastro/vps-comparison/blob/bfa44f89b487321dffc8336a74ede0e5b62a9b36/logs/ovh-vpsssd1-ubuntu/hard_dmidecode.log",
        ),
        // Contabo's VPS name no provider in DMI: the plain KVM guest's fix says so.
        (
            "contabo_vps",
            "a Contabo VPS reports only `QEMU`",
            "https://github.com/abuessa911/ndsp-platform/",
        ),
        (
            "virtio_vps",
            "`/dev/disk/by-id/scsi-0HC_Volume_*` is network storage",
            "https://docs.hetzner.com/cloud/volumes/overview",
        ),
    ] {
        let v = judged(scenario);
        let f = one(&v, "NC602");
        let fix = f.fix.as_deref().unwrap_or_default();
        assert!(fix.contains(wanted), "{scenario}: {fix}");
        assert!(!fix.contains("gp3"), "{scenario}: {fix}");
        assert!(f.detail.contains(source), "{scenario}: {f:#?}");
    }
}

/// A GCP C3 local SSD reports `nvme_card0` (one controller per local SSD): local storage,
/// not a persistent disk, and not AWS's advice.
#[test]
fn gcp_numbered_local_ssd_is_local_storage() {
    let v = judged("gcp_local_ssd");
    let f = one(&v, "NC612");
    assert_eq!(f.severity, Severity::Info, "{f:#?}");
    assert!(f.title.contains("Google Cloud local SSD (NVMe)"), "{f:#?}");
    assert!(f.detail.contains("(local storage)"), "{f:#?}");
    assert!(
        v.findings
            .iter()
            .all(|f| !f.fix.as_deref().unwrap_or_default().contains("gp3")),
        "{:?}",
        codes(&v)
    );
}

#[test]
fn vps_and_cloud_volumes() {
    let v = judged("virtio_vps");
    assert!(has(&v, "NC602") || has(&v, "NC601"), "{:?}", codes(&v));

    // Netcup names its product line only in the DMI BIOS version.
    let v = judged("netcup_rs");
    let vps = all(&v, "NC601");
    assert!(
        vps.iter().any(|f| f.detail.contains("`netcup-rs`")),
        "{vps:#?}"
    );

    let v = judged("aws_ebs");
    let advisory = all(&v, "NC102");
    assert!(
        advisory.iter().any(|f| f.detail.contains("10,000")),
        "{advisory:#?}"
    );
}

#[test]
fn copy_on_write_file_systems() {
    assert!(has(&judged("btrfs_two_devices"), "NC502"));
    assert!(has(&judged("zfs_dataset"), "NC503"));
}

#[test]
fn mirrored_raid_is_not_parity_raid() {
    let v = judged("md_raid1");
    assert!(!has(&v, "NC504"), "{:?}", codes(&v));
}
