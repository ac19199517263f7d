//! NC212-NC214 (the drive during the run, the SATA link) and NC706-NC707 (whether the QD1
//! figures are a drive's at all).

use super::*;
use bench::{DriveCounters, ReadSpan, ReadSpanKind, RunConditions, TemperatureTrace};

fn counters(t1: u64, t1_seconds: u64, media: u64, log: u64) -> DriveCounters {
    DriveCounters {
        warning_temp_minutes: Some(0),
        critical_temp_minutes: Some(0),
        thermal_t1_transitions: Some(t1),
        thermal_t2_transitions: Some(0),
        thermal_t1_seconds: Some(t1_seconds),
        thermal_t2_seconds: Some(0),
        media_errors: Some(media),
        error_log_entries: Some(log),
        crc_errors: None,
    }
}

fn with_conditions(before: DriveCounters, after: DriveCounters) -> bench::BenchReport {
    let mut report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    report.conditions = Some(RunConditions {
        drive: "nvme0n1".into(),
        temperature: TemperatureTrace::of("nvme-smart-log", &[48.0, 71.0, 83.0, 80.0]),
        before: Some(before),
        after: Some(after),
        gaps: Vec::new(),
    });
    report
}

#[test]
fn nc212_throttling_during_the_run_is_a_warning_with_the_cooling_fix() {
    let facts = nvme_machine();
    let hot = with_conditions(counters(2, 10, 0, 0), counters(5, 52, 0, 0));
    let v = run_bench(&facts, &hot);
    assert_finding(
        &v,
        "NC212",
        Severity::Warning,
        &[
            "3 thermal-management transitions",
            "42 s throttled",
            "peak 83 °C",
        ],
    );
    let fix = fix_of(&v, "NC212");
    assert!(
        fix.contains("heatsink") && fix.contains("graphics card") && fix.contains("airflow"),
        "{fix}"
    );

    let calm = with_conditions(counters(2, 10, 0, 0), counters(2, 10, 0, 0));
    assert_finding(
        &run_bench(&facts, &calm),
        "NC212",
        Severity::Ok,
        &["peak 83 °C"],
    );

    let mut unrooted = calm.clone();
    let conditions = unrooted.conditions.as_mut().unwrap();
    conditions.before = None;
    conditions.after = None;
    conditions.gaps = vec!["the NVMe SMART log (thermal and error counters) needs root".into()];
    assert_finding(
        &run_bench(&facts, &unrooted),
        "NC212",
        Severity::Info,
        &["needs root", "peak 83 °C"],
    );
    assert!(!has(
        &run_bench(
            &facts,
            &bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring)
        ),
        "NC212"
    ));
}

#[test]
fn nc213_new_media_errors_and_error_log_entries_each_get_their_fix() {
    let facts = nvme_machine();
    let failing = with_conditions(counters(0, 0, 4, 10), counters(0, 0, 6, 13));
    let v = run_bench(&facts, &failing);
    let found = all(&v, "NC213");
    assert_eq!(found.len(), 2, "{found:#?}");
    let media = found
        .iter()
        .find(|f| f.severity == Severity::Critical)
        .expect("media errors");
    assert!(media.detail.contains("2 new media errors"), "{media:#?}");
    assert!(media
        .fix
        .as_deref()
        .unwrap_or("")
        .contains("smartctl -t long"));
    let log = found
        .iter()
        .find(|f| f.severity == Severity::Warning)
        .expect("error log");
    assert!(log.detail.contains("3 new errors"), "{log:#?}");
    assert!(log
        .fix
        .as_deref()
        .unwrap_or("")
        .contains("smartctl -l error"));
    let clean = with_conditions(counters(0, 0, 4, 10), counters(0, 0, 4, 10));
    assert!(!has(&run_bench(&facts, &clean), "NC213"));
}

#[test]
fn nc214_sata_crc_errors_point_at_the_cable() {
    let mut facts = sata_machine("Samsung SSD 870 EVO 1TB", 1_000_204_886_016);
    assert!(!has(&run(&facts), "NC214"));
    facts.drives[0]
        .health
        .get_or_insert_with(Health::default)
        .crc_errors = Some(37);
    let v = run(&facts);
    assert_finding(
        &v,
        "NC214",
        Severity::Warning,
        &["37 interface CRC errors", "attribute 199"],
    );
    assert!(fix_of(&v, "NC214").contains("cable"));
}

#[test]
fn nc706_reads_faster_than_flash_are_named_a_cache_and_vouch_for_nothing() {
    let limits = verdict::BehaviourThresholds::embedded().cache;
    let mut facts = nvme_machine();
    let cached = bench_report(
        latency(limits.flash_min_p50_us - 10.0, 40.0, 90.0),
        Some((200_000.0, 70_000.0)),
        EngineKind::IoUring,
    );
    let v = run_bench(&facts, &cached);
    assert_finding(
        &v,
        "NC706",
        Severity::Warning,
        &["faster than a flash drive"],
    );
    assert_ne!(v.grade, Grade::Good, "a cache's figures vouch for nothing");

    facts.platform.virtualized = Some(true);
    let v = run_bench(&facts, &cached);
    assert_finding(
        &v,
        "NC706",
        Severity::Warning,
        &["page cache of the VM host"],
    );

    // Optane answers in 9-13 us: only below the any-drive floor is it a cache.
    let mut optane = nvme_machine();
    optane.drives[0].model = Some("INTEL SSDPE21D480GA Optane 900P".into());
    assert!(!has(&run_bench(&optane, &cached), "NC706"));
    let ram = bench_report(
        latency(limits.any_drive_min_p50_us - 1.0, 6.0, 20.0),
        None,
        EngineKind::IoUring,
    );
    assert!(has(&run_bench(&optane, &ram), "NC706"));

    let real = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    assert!(!has(&run_bench(&nvme_machine(), &real), "NC706"));
}

#[test]
fn nc706_on_zfs_says_why_the_quick_file_may_be_the_arcs() {
    let mut facts = nvme_machine();
    facts.mount.as_mut().unwrap().fs_type = "zfs".into();
    let report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    assert_finding(
        &run_bench(&facts, &report),
        "NC706",
        Severity::Info,
        &["2.3", "ARC", "--size"],
    );
}

/// With the ZFS version, the `direct` property and the ARC's size from the probe: before
/// 2.3 a test file that fits in the ARC makes the figures the ARC's (a warning that keeps
/// the bench from vouching for the drive); one larger than the ARC is mostly the drives';
/// on 2.3 with `direct=standard` the reads reach the drives and nothing is said.
#[test]
fn nc706_on_zfs_judges_the_file_against_the_arc_the_probe_read() {
    let mut facts = nvme_machine();
    facts.mount.as_mut().unwrap().fs_type = "zfs".into();
    facts.zfs = Some(probe::ZfsFacts {
        module_version: Some("2.2.2-0ubuntu9".into()),
        arc_c_max_bytes: Some(16 << 30),
        ..probe::ZfsFacts::default()
    });
    let mut report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    report.qd1.as_mut().unwrap().span_bytes = 1 << 30;
    let v = run_bench(&facts, &report);
    assert_finding(
        &v,
        "NC706",
        Severity::Warning,
        &["2.2.2", "are the ARC's", "--size 18G"],
    );

    report.qd1.as_mut().unwrap().span_bytes = 64 << 30;
    assert_finding(
        &run_bench(&facts, &report),
        "NC706",
        Severity::Info,
        &["at most 25 %", "mostly the drives'"],
    );

    let zfs = facts.zfs.as_mut().unwrap();
    zfs.module_version = Some("2.3.1-1".into());
    zfs.dataset_properties
        .insert("direct".into(), "disabled".into());
    report.qd1.as_mut().unwrap().span_bytes = 1 << 30;
    assert_finding(
        &run_bench(&facts, &report),
        "NC706",
        Severity::Warning,
        &["`direct` property is `disabled`"],
    );

    facts
        .zfs
        .as_mut()
        .unwrap()
        .dataset_properties
        .insert("direct".into(), "standard".into());
    assert!(!has(&run_bench(&facts, &report), "NC706"));

    facts.zfs.as_mut().unwrap().dataset_properties.clear();
    facts.zfs.as_mut().unwrap().module_version = Some("2.1.5".into());
    facts.zfs.as_mut().unwrap().arc_c_max_bytes = None;
    assert_finding(
        &run_bench(&facts, &report),
        "NC706",
        Severity::Warning,
        &["could not be read", "unless"],
    );
}

#[test]
fn nc707_whole_device_reads_are_not_the_drives_latency() {
    let facts = nvme_machine();
    let mut report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    let qd1 = report.qd1.as_mut().unwrap();
    qd1.target = "device".into();
    qd1.read_span = Some(ReadSpan {
        kind: ReadSpanKind::WholeDevice,
        why: None,
    });
    assert_finding(
        &run_bench(&facts, &report),
        "NC707",
        Severity::Warning,
        &["never-written"],
    );
    // A saved report from before the span was recorded, read on the device: the same.
    report.qd1.as_mut().unwrap().read_span = None;
    assert!(has(&run_bench(&facts, &report), "NC707"));
    for kind in [ReadSpanKind::DataExtents, ReadSpanKind::TestFile] {
        report.qd1.as_mut().unwrap().read_span = Some(ReadSpan { kind, why: None });
        assert!(!has(&run_bench(&facts, &report), "NC707"), "{kind}");
    }
}
