//! NC7xx: the benchmark results against what the clients need.

use super::*;

#[test]
fn nc701_qd1_latency() {
    let facts = nvme_machine();
    let fast = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    let v = run_bench_for(&facts, &fast, "geth");
    assert_finding(&v, "NC701", Severity::Ok, &["p99 140 µs", "max 260 µs"]);

    let spiky = bench_report(latency(70.0, 140.0, 900.0), None, EngineKind::IoUring);
    let v = run_bench_for(&facts, &spiky, "geth");
    assert_finding(&v, "NC701", Severity::Info, &["max 900 µs", "300 µs"]);

    let slow = bench_report(latency(600.0, 2_500.0, 9_000.0), None, EngineKind::IoUring);
    let v = run_bench(&facts, &slow);
    let f = one(&v, "NC701");
    assert!(f.severity >= Severity::Warning, "{f:#?}");
    assert!(f.detail.contains("p99 2.5 ms"), "{f:#?}");

    let hopeless = bench_report(
        latency(3_000.0, 20_000.0, 90_000.0),
        None,
        EngineKind::IoUring,
    );
    let v = run_bench(&facts, &hopeless);
    assert_eq!(one(&v, "NC701").severity, Severity::Critical);
}

#[test]
fn nc702_randrw_below_the_client_needs() {
    let facts = nvme_machine();
    let report = bench_report(
        latency(70.0, 140.0, 260.0),
        Some((7_000.0, 2_300.0)),
        EngineKind::IoUring,
    );
    let v = run_bench_for(&facts, &report, "nethermind");
    assert_finding(
        &v,
        "NC702",
        Severity::Critical,
        &["7.0k/2.3k", "Nethermind needs 10k read and 10k write IOPS"],
    );

    let v = run_bench(&facts, &report);
    assert_eq!(
        v.failing_client.as_deref(),
        Some("nethermind"),
        "{:#?}",
        v.findings
    );

    let good = bench_report(
        latency(70.0, 140.0, 260.0),
        Some((140_000.0, 46_000.0)),
        EngineKind::IoUring,
    );
    let v = run_bench_for(&facts, &good, "nethermind");
    assert_finding(&v, "NC702", Severity::Ok, &["140k/46k"]);
}

#[test]
fn nc703_fallback_engine_and_nc704_caveats() {
    let facts = nvme_machine();
    let mut report = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::Psync);
    report.warnings = vec!["span 4 GiB < 150 GiB: less comparable".into()];
    let v = run_bench_for(&facts, &report, "geth");
    assert_finding(&v, "NC703", Severity::Info, &["psync", "seccomp"]);
    assert_finding(&v, "NC704", Severity::Info, &["span 4 GiB"]);
}

#[test]
fn nc701_over_nfs_says_what_the_network_adds() {
    let mut facts = nvme_machine();
    facts.drives.clear();
    facts.layers.clear();
    facts.stack.clear();
    if let Some(mount) = facts.mount.as_mut() {
        mount.fs_type = "nfs4".into();
        mount.source = "diskstation.lan:/volume1/ethereum".into();
        mount.super_options = vec!["rw".into(), "vers=4.2".into(), "addr=192.168.1.10".into()];
        mount.network =
            probe::network::share_of(&mount.fs_type, &mount.source, &mount.super_options);
    }
    let report = bench_report(
        latency(1_400.0, 6_000.0, 20_000.0),
        None,
        bench::EngineKind::IoUring,
    );
    let v = run_bench_for(&facts, &report, "geth");
    assert_finding(&v, "NC520", Severity::Critical, &["diskstation.lan"]);
    let f = one(&v, "NC701");
    assert!(
        f.detail.contains("Measured over NFS")
            && f.detail
                .contains("add about 1.3 ms to every read (p50 1.4 ms)"),
        "{f:#?}"
    );

    // The same measurement on a local drive carries no such note.
    let v = run_bench_for(&nvme_machine(), &report, "geth");
    assert!(!one(&v, "NC701").detail.contains("Measured over"));
}
