//! The judge as a whole: grade folding, ordering, the JSON contract, the strictest client,
//! and snapshots of whole verdicts for representative machines.

use crate::support::*;
use bench::EngineKind;
use probe::{AtimeMode, Facts, Health, Interface, IoUringStatus, LayerKind, Unavailable};
use verdict::Verdict;
use verdict::{Grade, Severity};

fn unknown_drive() -> Facts {
    let mut facts = nvme_machine();
    facts.drives[0].model = Some("ACME FastDisk 9000 2TB".into());
    facts
}

#[test]
fn known_good_drive_on_a_clean_machine_is_good() {
    let v = run(&nvme_machine());
    assert_eq!(v.grade, Grade::Good, "{:#?}", v.findings);
    assert_eq!(v.client, "strictest");
    assert_eq!(v.failing_client, None);
    assert!(v
        .findings
        .iter()
        .all(|f| f.severity == Severity::Ok || f.severity == Severity::Info));
}

#[test]
fn unknown_drive_without_problems_is_unknown_until_measured() {
    let facts = unknown_drive();
    let v = run(&facts);
    assert_eq!(v.grade, Grade::Unknown, "{:#?}", v.findings);
    assert_eq!(v.drives[0].grade, Grade::Unknown);

    let fast = bench_report(
        latency(60.0, 120.0, 240.0),
        Some((150_000.0, 50_000.0)),
        EngineKind::IoUring,
    );
    let v = run_bench(&facts, &fast);
    assert_eq!(v.grade, Grade::Good, "{:#?}", v.findings);

    // Fast QD1 reads alone do not vouch: QLC drives read fine and fail on writes.
    let reads_only = bench_report(latency(60.0, 120.0, 240.0), None, EngineKind::IoUring);
    let v = run_bench(&facts, &reads_only);
    assert_eq!(v.grade, Grade::Unknown, "{:#?}", v.findings);
    assert_eq!(one(&v, "NC701").severity, Severity::Ok);

    // A fast QD1 figure but a flattering span is not proof.
    let mut small_span = fast.clone();
    if let Some(rw) = small_span.randrw.as_mut() {
        rw.fio_comparable = false;
        rw.span_bytes = 4 << 30;
    }
    let v = run_bench(&facts, &small_span);
    assert_eq!(v.grade, Grade::Unknown, "{:#?}", v.findings);
}

#[test]
fn any_warning_makes_it_ugly_any_critical_bad() {
    let mut facts = nvme_machine();
    facts.drives[0].temperature_c = Some(55.0);
    assert_eq!(run(&facts).grade, Grade::Ugly);
    let health = facts.drives[0].health.as_mut().expect("health");
    health.media_errors = Some(1);
    health.available_spare_pct = Some(2);
    let v = run(&facts);
    assert_eq!(v.grade, Grade::Bad);
    assert_eq!(v.drives[0].grade, Grade::Bad);
}

#[test]
fn findings_are_sorted_by_severity_and_keep_check_order_within_one() {
    let mut facts = nvme_machine();
    facts.drives[0].temperature_c = Some(61.0);
    facts.fstrim_timer = Some(false);
    // A 500 GB drive holds no client's database: NC510 is critical.
    facts.drives[0].capacity_bytes = Some(500_107_862_016);
    let mount = facts.mount.as_mut().expect("mount");
    mount.atime = AtimeMode::Relatime;
    mount.total_bytes = Some(492 * GB);
    mount.free_bytes = Some(450 * GB);
    let v = run(&facts);
    let severities: Vec<Severity> = v.findings.iter().map(|f| f.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(severities, sorted, "{:?}", codes(&v));
    // Warnings in the order the checks ran: temperature (NC2xx) before TRIM (NC3xx).
    let warnings = codes_at(&v, Severity::Warning);
    assert_eq!(warnings, ["NC210", "NC303", "NC511"], "{:?}", codes(&v));
    assert_eq!(v.findings[0].code, "NC510");
    let oks = codes_at(&v, Severity::Ok);
    let mut in_check_order = oks.clone();
    in_check_order.sort();
    assert_eq!(oks, in_check_order);
}

#[test]
fn strictest_names_the_client_in_failing_client_and_text() {
    let mut facts = nvme_machine();
    facts.mount.as_mut().expect("mount").free_bytes = Some(1_100 * GB);
    let v = run(&facts);
    // Reth wants 1.2 TB free, the most of any client; the others are satisfied.
    let failing = v.failing_client.clone().expect("failing client");
    let client = db().client(&failing).cloned().expect("known client");
    assert!(client.min_free_bytes > 1_100 * GB);
    let f = one(&v, "NC511");
    assert!(f.detail.contains(&client.display), "{f:#?}");
    assert!(f.detail.contains("most demanding"), "{f:#?}");
    for other in &db().clients.execution {
        if other.min_free_bytes > client.min_free_bytes {
            panic!("{} is more demanding than {}", other.name, client.name);
        }
    }
    // Named: the same facts pass for a client with a lower floor.
    let v = run_for(&facts, "geth");
    assert_eq!(one(&v, "NC511").severity, Severity::Ok);
    assert_eq!(v.client, "geth");
    assert_eq!(v.failing_client, None);
}

#[test]
fn json_keys_are_the_documented_contract() {
    let mut facts = nvme_machine();
    facts.fstrim_timer = Some(false);
    let v = run(&facts);
    let json = serde_json::to_value(&v).expect("serialize");
    // The verdict travels inside the binary's report, which versions the document and lists
    // what needs root as finding NC190.
    for key in ["schema_version", "needs_root"] {
        assert!(json.get(key).is_none(), "the verdict carries {key}: {json}");
    }
    assert_eq!(json["grade"], "ugly");
    let finding = &json["findings"][0];
    for key in ["code", "severity", "title", "detail", "fix"] {
        assert!(
            finding.get(key).is_some(),
            "findings[].{key} missing: {finding}"
        );
    }
    assert_eq!(finding["code"], "NC303");
    assert_eq!(finding["severity"], "warning");
    let entry = &json["drives"][0]["entry"];
    assert_eq!(entry["family"], "Samsung 970 EVO Plus");
    assert_eq!(entry["grade"], "good");
    assert_eq!(entry["nand"], "tlc");
    assert_eq!(entry["dram"], "yes");
    assert_eq!(entry["class"], "mainstream");
    let back: Verdict = serde_json::from_value(json).expect("round trip");
    assert_eq!(back, v);
}

#[test]
fn no_drives_at_all_is_unknown_not_good() {
    let mut facts = nvme_machine();
    facts.drives.clear();
    facts.layers.clear();
    facts.unresolved = vec!["zfs pool tank: not resolvable through sysfs".into()];
    let v = run(&facts);
    assert_eq!(v.grade, Grade::Unknown, "{:#?}", v.findings);
    assert!(v.drives.is_empty());
}

#[test]
fn behaviour_findings_join_the_verdict_and_flag_a_listed_drive_that_measures_worse() {
    let facts = nvme_machine();
    let mut report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    // QD1 mean latency over 1 GiB vs the whole 200 GiB file: a DRAM-less drive's mapping misses.
    let point = |span_gib: u64, mean: f64| bench::behaviour::SpanPoint {
        span_bytes: span_gib << 30,
        ios: 20_000,
        lat_us: latency(mean, mean * 2.5, mean * 6.0),
    };
    report.span = Some(bench::behaviour::SpanResult {
        engine: EngineKind::IoUring,
        runtime_s: 40.0,
        points: vec![point(1, 80.0), point(16, 120.0), point(200, 190.0)],
        latency_ratio: 190.0 / 80.0,
        p99_ratio: 190.0 / 80.0,
    });
    let v = run_bench_for(&facts, &report, "geth");
    let span = one(&v, "NC805");
    assert!(span.severity >= Severity::Warning, "{span:#?}");
    let worse = one(&v, "NC807");
    assert!(
        worse.detail.contains("Samsung SSD 970 EVO Plus 2TB"),
        "{worse:#?}"
    );
    assert_eq!(v.grade, Grade::Ugly);
}

/// The three behaviour tests on one of the bench's simulated drives.
fn behaviour_of(model: bench::behaviour::models::DriveModel) -> bench::BenchReport {
    use bench::behaviour::cliff::CliffPlan;
    use bench::behaviour::measure;
    use bench::behaviour::models::MockDrive;
    use bench::behaviour::span::SpanPlan;
    use bench::behaviour::sync::SyncPlan;
    const GIB: u64 = 1 << 30;
    let never = || false;
    let file = 256 * GIB;
    let sync = measure(
        &mut MockDrive::new(model.clone(), file, 7),
        &SyncPlan {
            runtime: std::time::Duration::from_secs(20),
            ..SyncPlan::default()
        },
        &never,
    )
    .expect("sync runs on the mock");
    let cliff = measure(
        &mut MockDrive::new(model.clone(), file, 7),
        &CliffPlan {
            max_bytes: 200 * GIB,
            ..CliffPlan::default()
        },
        &never,
    )
    .expect("cliff runs on the mock");
    let span = measure(
        &mut MockDrive::new(model, file, 7),
        &SpanPlan {
            reads_per_span: 3000,
            ..SpanPlan::default()
        },
        &never,
    )
    .expect("span runs on the mock");
    let mut report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::Mock);
    report.engine_reason = None;
    report.sync = Some(sync);
    report.cliff = Some(cliff);
    report.span = Some(span);
    report
}

#[test]
fn an_unknown_drive_is_graded_by_its_behaviour() {
    use bench::behaviour::models::DriveModel;
    let facts = unknown_drive();

    let v = run_bench(&facts, &behaviour_of(DriveModel::tlc_dram()));
    assert_eq!(v.grade, Grade::Good, "{:#?}", v.findings);

    let v = run_bench(&facts, &behaviour_of(DriveModel::qlc_small_slc()));
    assert!(v.grade >= Grade::Ugly, "{:#?}", v.findings);
    let cliff = one(&v, "NC804");
    assert!(cliff.severity >= Severity::Warning, "{cliff:#?}");
}

// ---------------------------------------------------------------- snapshots

fn snapshot(mut v: Verdict) -> Verdict {
    // The data version changes with every database release; the verdict's shape does not.
    v.database_version = "[database version]".into();
    v
}

#[test]
fn snapshot_home_node_970_evo_plus() {
    insta::assert_json_snapshot!("home_node_970_evo_plus", snapshot(run(&nvme_machine())));
}

/// A Crucial P3 (QLC, DRAM-less) behind LUKS without allow-discards, relatime, no fstrim
/// timer, running warm, and a slow benchmark: everything the list warns about at once.
#[test]
fn snapshot_budget_qlc_on_luks() {
    let mut facts = nvme_machine();
    let d = &mut facts.drives[0];
    d.model = Some("CT2000P3SSD8".into());
    d.firmware = Some("P9CR30A".into());
    d.hmb = Some(true);
    d.temperature_c = Some(63.0);
    if let Some(h) = d.health.as_mut() {
        h.thermal_throttle_t1_transitions = Some(212);
        h.percentage_used = Some(41);
    }
    luks_without_discards(&mut facts, "luks-8c1d");
    facts.fstrim_timer = Some(false);
    let m = facts.mount.as_mut().expect("mount");
    m.source = "/dev/mapper/luks-8c1d".into();
    m.mount_point = "/".into();
    m.atime = AtimeMode::Relatime;
    m.mount_options = vec!["rw".into(), "relatime".into()];
    facts.path = "/home/eth/.ethereum".into();
    let report = bench_report(
        latency(180.0, 1_900.0, 14_000.0),
        Some((9_500.0, 3_100.0)),
        EngineKind::IoUring,
    );
    let v = run_bench(&facts, &report);
    assert_eq!(v.grade, Grade::Bad);
    insta::assert_json_snapshot!("budget_qlc_on_luks", snapshot(v));
}

/// A KVM VPS: virtio disk without a model, Docker blocking io_uring, psync benchmark, not root.
#[test]
fn snapshot_vps_virtio_in_docker() {
    let mut facts = nvme_machine();
    let d = &mut facts.drives[0];
    *d = probe::Drive {
        name: "vda".into(),
        capacity_bytes: Some(2_199_023_255_552),
        interface: Some(Interface::Virtio),
        rotational: Some(true),
        scheduler: Some("none".into()),
        trim_supported: Some(true),
        ..probe::Drive::default()
    };
    facts.stack = vec!["vda1".into(), "vda".into()];
    facts.layers = partition_on_disk("vda1", "vda", 0, 1 << 30);
    facts.platform = probe::Platform {
        sys_vendor: Some("QEMU".into()),
        product_name: Some("Standard PC (Q35 + ICH9, 2009)".into()),
        cloud: Some("kvm".into()),
        virtualized: Some(true),
        ..probe::Platform::default()
    };
    facts.io_uring = IoUringStatus {
        available: Some(false),
        sysctl_disabled: Some(0),
        reason: Some("io_uring_setup: EPERM (Docker seccomp?)".into()),
    };
    facts.privileged = false;
    facts.unavailable = vec![Unavailable {
        fact: "smartctl health (vda)".into(),
        reason: "needs root".into(),
    }];
    let m = facts.mount.as_mut().expect("mount");
    m.source = "/dev/vda1".into();
    m.mount_point = "/".into();
    m.atime = AtimeMode::Relatime;
    m.mount_options = vec!["rw".into(), "relatime".into()];
    m.free_bytes = Some(1_800 * GB);
    m.total_bytes = Some(2_163 * GB);
    let report = bench_report(latency(380.0, 1_100.0, 4_800.0), None, EngineKind::Psync);
    let v = run_bench_for(&facts, &report, "nethermind");
    insta::assert_json_snapshot!("vps_virtio_in_docker", snapshot(v));
}

/// A NAS: four WD Red hard disks in md RAID5 under btrfs.
#[test]
fn snapshot_nas_hard_disks_raid5() {
    let mut facts = sata_machine("WDC WD20EFRX-68EUZN0", 2_000_398_934_016);
    let template = facts.drives[0].clone();
    facts.drives = ["sda", "sdb", "sdc", "sdd"]
        .iter()
        .map(|name| probe::Drive {
            name: (*name).into(),
            rotational: Some(true),
            rotation_rate_rpm: Some(5400),
            firmware: Some("82.00A82".into()),
            trim_supported: Some(false),
            temperature_c: Some(36.0),
            health: Some(Health {
                source: "smartctl".into(),
                passed: Some(true),
                reallocated_sectors: Some(0),
                pending_sectors: Some(0),
                uncorrectable_sectors: Some(0),
                power_on_hours: Some(31_000),
                ..Health::default()
            }),
            ..template.clone()
        })
        .collect();
    facts.stack = vec![
        "md0".into(),
        "sda".into(),
        "sdb".into(),
        "sdc".into(),
        "sdd".into(),
    ];
    facts.layers = vec![
        layer(
            "md0",
            LayerKind::Md,
            Some("raid5"),
            0,
            &["sda", "sdb", "sdc", "sdd"],
            0,
        ),
        layer("sda", LayerKind::Disk, None, 1, &[], 0),
        layer("sdb", LayerKind::Disk, None, 1, &[], 0),
        layer("sdc", LayerKind::Disk, None, 1, &[], 0),
        layer("sdd", LayerKind::Disk, None, 1, &[], 0),
    ];
    facts.trim_effective = Some(false);
    let m = facts.mount.as_mut().expect("mount");
    m.fs_type = "btrfs".into();
    m.source = "/dev/md0".into();
    m.mount_point = "/srv/eth".into();
    m.total_bytes = Some(5_900 * GB);
    m.free_bytes = Some(4_100 * GB);
    facts.path = "/srv/eth/geth".into();
    let v = run(&facts);
    assert_eq!(v.grade, Grade::Bad);
    assert_eq!(all(&v, "NC105").len(), 4);
    insta::assert_json_snapshot!("nas_hard_disks_raid5", snapshot(v));
}

#[test]
fn a_nonsense_benchmark_never_vouches_for_a_drive() {
    let facts = unknown_drive();
    let nan = bench_report(
        latency(f64::NAN, f64::NAN, f64::NAN),
        Some((f64::NAN, -1.0)),
        EngineKind::IoUring,
    );
    let v = run_bench(&facts, &nan);
    assert_eq!(v.grade, Grade::Unknown, "{:#?}", v.findings);
    let f = one(&v, "NC705");
    assert!(f.title.contains("unusable"), "{f:#?}");
    assert!(f.detail.contains("QD1 and randrw"), "{f:#?}");
    assert!(!has(&v, "NC701") && !has(&v, "NC702"), "{:?}", codes(&v));
}

#[test]
fn a_huge_model_string_is_clipped_in_the_text() {
    let mut facts = nvme_machine();
    facts.drives[0].model = Some("X".repeat(100_000));
    let v = run(&facts);
    let f = one(&v, "NC103");
    // The model is clipped; the rest is the finding's own sentences and the class evidence.
    assert!(f.detail.len() < 1_000, "{} bytes", f.detail.len());
    assert!(f.detail.contains('…'));
}
