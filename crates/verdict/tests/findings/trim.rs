//! NC3xx: whether TRIM reaches the drive through every layer, and whether it runs.

use super::*;

#[test]
fn nc300_trim_passes_through() {
    assert_judged(
        &nvme_machine(),
        "geth",
        "NC300",
        Severity::Ok,
        &["nvme0n1p2"],
    );
}

#[test]
fn nc301_drive_without_trim() {
    let mut facts = nvme_machine();
    drive0(&mut facts).trim_supported = Some(false);
    facts.trim_effective = Some(false);
    for l in &mut facts.layers {
        l.discard_max_bytes = Some(0);
    }
    let v = assert_judged(
        &facts,
        "geth",
        "NC301",
        Severity::Warning,
        &["does not report TRIM"],
    );
    // The disk layer's zero is the drive's own doing, not a second finding.
    assert!(!has(&v, "NC302"), "{:?}", codes(&v));
    assert!(!has(&v, "NC303"));
}

#[test]
fn nc302_dm_crypt_without_allow_discards_gets_the_exact_command() {
    let mut facts = nvme_machine();
    luks_without_discards(&mut facts, "luks-3f2a");
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC302");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.title.contains("dm-crypt"), "{f:#?}");
    let fix = fix_of(&v, "NC302");
    // `cryptsetup refresh` resets every flag it is not given: NC302's command carries NC507's
    // work-queue flags too, so pasting it does not turn them back off.
    assert!(
        fix.contains("sudo cryptsetup refresh --perf-no_read_workqueue --perf-no_write_workqueue --allow-discards --persistent luks-3f2a"),
        "{f:#?}"
    );
    assert!(
        fix.contains("no-read-workqueue,no-write-workqueue,discard"),
        "{fix}"
    );
    assert_eq!(f.subject.as_deref(), Some("dm-0"));
}

#[test]
fn nc302_names_the_lowest_blocking_layer_only() {
    let mut facts = nvme_machine();
    facts.layers = vec![layer(
        "dm-1",
        LayerKind::Lvm,
        Some("vg-eth"),
        0,
        &["dm-0"],
        0,
    )];
    facts
        .layers
        .extend(crypt_without_discards("cryptdata", 1, "nvme0n1p2"));
    facts.trim_effective = Some(false);
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC302");
    assert!(f.detail.contains("cryptdata"), "{f:#?}");
}

#[test]
fn nc302_md_raid_and_raid_controller() {
    let mut md_raid = nvme_machine();
    md_raid.layers = vec![
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
    md_raid.trim_effective = Some(false);
    let mut raid_card = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    drive0(&mut raid_card).trim_supported = Some(false);
    behind_megaraid(drive0(&mut raid_card));
    let cases = [
        FindingCase {
            name: "md RAID",
            facts: md_raid,
            code: "NC302",
            severity: Severity::Warning,
            needles: &["md RAID", "raid5", "devices_handle_discard_safely=Y"],
        },
        FindingCase {
            name: "RAID controller",
            facts: raid_card,
            code: "NC302",
            severity: Severity::Warning,
            needles: &["RAID controller", "megaraid_sas", "HBA"],
        },
    ];
    FindingCase::check_all(&cases, "geth");
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

#[test]
fn nc301_usb_bridge_gets_the_udev_unmap_rule() {
    let mut facts = nvme_machine();
    samsung_over_usb(&mut facts, "sdb", "Portable SSD T5", "61f5", 5000).trim_supported =
        Some(false);
    assert_judged(
        &facts,
        "geth",
        "NC301",
        Severity::Warning,
        &[
            "over USB",
            r#"ATTRS{idVendor}=="04e8", ATTRS{idProduct}=="61f5", SUBSYSTEM=="scsi_disk", ATTR{provisioning_mode}="unmap""#,
            "sg_vpd -p lbpv /dev/sdb",
        ],
    );
}
