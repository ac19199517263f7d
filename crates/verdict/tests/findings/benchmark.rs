//! NC7xx: the benchmark results against what the clients need.

use super::*;

#[test]
fn nc701_qd1_latency() {
    let facts = nvme_machine();
    let fast = bench_report(latency(70.0, 140.0, 260.0), None, EngineKind::IoUring);
    let v = run_bench_for(&facts, &fast, "geth");
    assert_finding(&v, "NC701", Severity::Ok, &["p99 140 µs", "max 260 µs"]);

    // One stall in tens of thousands of reads, still under the 1 ms max of [qd1.at_rest].
    let spiky = bench_report(latency(70.0, 140.0, 900.0), None, EngineKind::IoUring);
    let v = run_bench_for(&facts, &spiky, "geth");
    assert_finding(&v, "NC701", Severity::Ok, &["max 900 µs"]);

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

/// The QD1 rule is data/behaviour.toml's: a figure just above each warning and critical
/// figure gets that severity, just below it does not, at rest and beside a running client.
#[test]
fn nc701_follows_the_qd1_rule_in_behaviour_toml() {
    let facts = nvme_machine();
    let rules = verdict::BehaviourThresholds::embedded().qd1;
    for (beside_client, rule) in [(false, &rules.at_rest), (true, &rules.beside_client)] {
        let judged = |p99: f64, max: f64| {
            let mut report = bench_report(latency(60.0, p99, max), None, EngineKind::IoUring);
            if beside_client {
                report.clients_running = vec!["geth".into()];
            }
            one(&run_bench(&facts, &report), "NC701").severity
        };
        let case = if beside_client {
            "beside a client"
        } else {
            "at rest"
        };
        let quiet_max = rule.warn_max_us * 0.9;
        let quiet_p99 = rule.warn_p99_us * 0.9;
        assert_eq!(judged(quiet_p99, quiet_max), Severity::Ok, "{case}");
        assert_eq!(
            judged(
                rule.warn_p99_us + 1.0,
                quiet_max.max(rule.warn_p99_us + 2.0)
            ),
            Severity::Warning,
            "{case} p99"
        );
        assert_eq!(
            judged(quiet_p99, rule.warn_max_us + 1.0),
            Severity::Warning,
            "{case} max"
        );
        assert_eq!(
            judged(rule.critical_p99_us + 1.0, rule.critical_p99_us + 2.0),
            Severity::Critical,
            "{case} p99"
        );
        assert_eq!(
            judged(quiet_p99, rule.critical_max_us + 1.0),
            Severity::Critical,
            "{case} max"
        );
    }
    // The same figures are judged more kindly beside a client than at rest.
    let mut report = bench_report(latency(60.0, 200.0, 1_500.0), None, EngineKind::IoUring);
    let at_rest = one(&run_bench(&facts, &report), "NC701").clone();
    assert_eq!(at_rest.severity, Severity::Warning);
    assert!(
        at_rest
            .detail
            .contains("max 1.5 ms is above the 1.0 ms at rest"),
        "{at_rest:#?}"
    );
    report.clients_running = vec!["geth".into()];
    assert_eq!(
        one(&run_bench(&facts, &report), "NC701").severity,
        Severity::Ok
    );
    // The bench and submit paths ask the same rule.
    assert_eq!(
        verdict::qd1_rule_word(&bench_report(
            latency(60.0, 400.0, 500.0),
            None,
            EngineKind::IoUring
        )),
        Some("warning")
    );
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
