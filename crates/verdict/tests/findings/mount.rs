//! NC5xx: the file system, its mount options and its free space against the clients.

use super::*;

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
    let fix = fix_of(&run_for(&facts, "geth"), "NC501");
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
    let fix = fix_of(&run_for(&facts, "geth"), "NC501");
    assert!(
        fix.contains("/etc/fstab has no line for /mnt/eth data"),
        "{fix}"
    );
    assert!(
        fix.contains(r"systemctl cat -- 'mnt-eth\x20data.mount'"),
        "{fix}"
    );
    assert!(fix.contains("remount,noatime '/mnt/eth data'"), "{fix}");

    // The root file system's unit starts with a dash: without `--` systemctl reads it as
    // options (`invalid option -- '.'`).
    let m = facts.mount.as_mut().expect("mount");
    m.mount_point = "/".into();
    let fix = fix_of(&run_for(&facts, "geth"), "NC501");
    assert!(fix.contains("`systemctl cat -- -.mount`"), "{fix}");

    facts.mount.as_mut().expect("mount").fstab = FstabEntry::Unreadable;
    let fix = fix_of(&run_for(&facts, "geth"), "NC501");
    assert!(fix.contains("/etc/fstab could not be read"), "{fix}");
    assert!(!fix.contains(" 0 2"), "no invented fstab line: {fix}");
}

#[test]
fn nc502_btrfs_and_nc503_zfs() {
    let mut facts = nvme_machine();
    let m = facts.mount.as_mut().expect("mount");
    m.fs_type = "btrfs".into();
    m.super_options = vec!["rw".into(), "ssd".into(), "space_cache=v2".into()];
    assert_judged(
        &facts,
        "geth",
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
    let v = assert_judged(
        &facts,
        "geth",
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
    assert_judged(
        &facts,
        "geth",
        "NC504",
        Severity::Warning,
        &["md127", "raid6", "sda, sdb, sdc, sdd", "RAID10"],
    );
}

#[test]
fn nc505_read_only_file_system() {
    let mut facts = nvme_machine();
    facts.mount.as_mut().expect("mount").read_only = true;
    let v = assert_judged(
        &facts,
        "geth",
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
    assert_judged(
        &facts,
        "geth",
        "NC506",
        Severity::Info,
        &["overlay: no backing device"],
    );
}

#[test]
fn nc509_unknown_client_falls_back_to_strictest() {
    let v = assert_judged(
        &nvme_machine(),
        "parity",
        "NC509",
        Severity::Warning,
        &["parity", "geth"],
    );
    assert_eq!(v.client, "strictest");
}

fn run_pair(facts: &probe::Facts, client: &str, consensus: &str) -> verdict::Verdict {
    verdict::judge_node(
        facts,
        None,
        db(),
        &verdict::ClientChoice::Named(client.into()),
        Some(consensus),
    )
}

#[test]
fn nc511_counts_the_consensus_clients_database_in_the_free_space() {
    let mut facts = nvme_machine();
    facts.mount.as_mut().expect("mount").free_bytes = Some(1_100 * GB);
    // Geth alone wants 1 TB free: 1.1 TB is enough.
    assert_judged(&facts, "geth", "NC511", Severity::Ok, &["1.1 TB free"]);
    // With Lighthouse on the same disk it is not (Geth's 1 TB plus Lighthouse's 200 GB).
    let v = run_pair(&facts, "geth", "lighthouse");
    assert_eq!(v.consensus_client.as_deref(), Some("lighthouse"));
    assert_finding(
        &v,
        "NC511",
        Severity::Warning,
        &["Geth + Lighthouse", "1.2 TB"],
    );
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

/// Free space against Nethermind's need: plenty, short of it, and too little for a sync or
/// prune to finish.
#[test]
fn nc511_free_space_against_the_client() {
    let with_space = |total_gb: u64, free_gb: u64| {
        let mut facts = nvme_machine();
        let mount = facts.mount.as_mut().expect("mount");
        mount.total_bytes = Some(total_gb * GB);
        mount.free_bytes = Some(free_gb * GB);
        facts
    };
    let cases = [
        FindingCase {
            name: "a warning that names the client and its need",
            facts: with_space(1_967, 120),
            code: "NC511",
            severity: Severity::Warning,
            needles: &["120 GB free", "94% used", "Nethermind", "322 GB"],
        },
        FindingCase {
            name: "plenty free",
            facts: with_space(1_967, 1_500),
            code: "NC511",
            severity: Severity::Ok,
            needles: &["1.5 TB free"],
        },
        FindingCase {
            name: "96% used: more than a quarter of Nethermind's 322 GB is free, but the disk \
                   is full for a client running as its own user",
            facts: with_space(2_000, 90),
            code: "NC511",
            severity: Severity::Critical,
            needles: &["90 GB free", "96% used", "Too little free space"],
        },
        FindingCase {
            name: "under a quarter of Nethermind's 322 GB left, on a volume far from full (70%)",
            facts: with_space(233, 70),
            code: "NC511",
            severity: Severity::Critical,
            needles: &["70 GB free"],
        },
        FindingCase {
            name: "below the need but able to finish: a warning",
            facts: with_space(2_000, 200),
            code: "NC511",
            severity: Severity::Warning,
            needles: &["200 GB free", "Little free space"],
        },
    ];
    FindingCase::check_all_grading(&cases, "nethermind", Severity::Critical, Grade::Bad);
}
