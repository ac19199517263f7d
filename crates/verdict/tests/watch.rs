//! verdict::watch: real readings captured beside fio (crates/nodecheck/tests/data/watch/) and
//! the rules one at a time.

use std::collections::BTreeMap;

use probe::diskstats::IostatFigures;
use probe::io_sample::{ClientInterval, Interval, RawSample, Stall};
use verdict::watch::{judge, Level, Outcome, ProbeLatency, WatchThresholds};

#[derive(serde::Deserialize)]
struct Saved {
    samples: Vec<RawSample>,
}

fn whole_run(name: &str) -> Interval {
    let path = format!(
        "{}/../nodecheck/tests/data/watch/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let saved: Saved =
        serde_json::from_slice(&std::fs::read(path).expect("fixture")).expect("json");
    Interval::between(
        saved.samples.first().expect("first"),
        saved.samples.last().expect("last"),
    )
    .expect("interval")
}

fn t() -> WatchThresholds {
    WatchThresholds::embedded()
}

fn busy_device(r_await: f64, w_await: f64) -> BTreeMap<String, IostatFigures> {
    BTreeMap::from([(
        "nvme0n1".to_string(),
        IostatFigures {
            reads_per_s: 500.0,
            writes_per_s: 200.0,
            r_await,
            w_await,
            util: 60.0,
            ..IostatFigures::default()
        },
    )])
}

fn run(
    devices: BTreeMap<String, IostatFigures>,
    host_io: Option<Stall>,
    clients: Vec<ClientInterval>,
) -> Interval {
    Interval {
        start_s: 0.0,
        elapsed_s: 10.0,
        devices,
        host_io,
        host_cpu: None,
        host_memory: None,
        clients,
    }
}

#[test]
fn embedded_thresholds_are_valid_and_sourced() {
    let t = t();
    t.validate().expect("valid");
    assert!(t.probe_source.contains("eth-docker"));
    assert!(t.pressure_source.contains("psi"));
}

#[test]
fn real_readings_beside_fio() {
    let saturated = whole_run("loop-fio-randrw-psync16.watch.json");
    let v = judge(&saturated, &[], None, &t());
    assert_eq!(v.stall, Some(Level::Bound));
    // Without the probe, the loop device's 0.35 ms await is not slow: partly.
    assert_eq!(v.outcome, Outcome::PartlyStorageBound, "{v:#?}");
    let slow_probe = ProbeLatency {
        reads: 80,
        p50_us: 271.0,
        p90_us: 576.0,
        p99_us: 72845.0,
        max_us: 72845.0,
    };
    assert_eq!(
        judge(&saturated, &[], Some(&slow_probe), &t()).outcome,
        Outcome::StorageBound
    );

    let idle = whole_run("loop-idle.watch.json");
    let v = judge(&idle, &[], None, &t());
    assert_eq!(v.outcome, Outcome::NotStorageBound, "{v:#?}");
}

#[test]
fn stalls_with_a_slow_drive_are_storage_bound_and_either_alone_is_partly() {
    let stalled = Some(Stall {
        some: 45.0,
        full: Some(2.0),
    });
    let calm = Some(Stall {
        some: 1.0,
        full: Some(0.0),
    });
    let t = t();
    assert_eq!(
        judge(&run(busy_device(2.0, 1.0), stalled, vec![]), &[], None, &t).outcome,
        Outcome::StorageBound
    );
    assert_eq!(
        judge(&run(busy_device(0.2, 1.0), stalled, vec![]), &[], None, &t).outcome,
        Outcome::PartlyStorageBound
    );
    assert_eq!(
        judge(&run(busy_device(8.0, 1.0), calm, vec![]), &[], None, &t).outcome,
        Outcome::PartlyStorageBound
    );
    assert_eq!(
        judge(&run(busy_device(0.2, 1.0), calm, vec![]), &[], None, &t).outcome,
        Outcome::NotStorageBound
    );
    // full alone is a bound stall.
    let full = Some(Stall {
        some: 12.0,
        full: Some(15.0),
    });
    assert_eq!(
        judge(&run(busy_device(2.0, 1.0), full, vec![]), &[], None, &t).outcome,
        Outcome::StorageBound
    );
}

#[test]
fn the_clients_cgroup_decides_over_the_host() {
    let client = ClientInterval {
        pid: 7,
        io: Some(Stall {
            some: 50.0,
            full: None,
        }),
        ..ClientInterval::default()
    };
    let calm_host = Some(Stall {
        some: 2.0,
        full: Some(0.0),
    });
    let v = judge(
        &run(busy_device(2.0, 1.0), calm_host, vec![client]),
        &[(7, "geth".to_string())],
        None,
        &t(),
    );
    assert_eq!(v.outcome, Outcome::StorageBound, "{v:#?}");
    assert!(v
        .evidence
        .iter()
        .any(|e| e.figure.contains("geth (pid 7)'s cgroup")));
}

#[test]
fn without_psi_the_verdict_rests_on_latency_and_says_so() {
    let v = judge(&run(busy_device(8.0, 1.0), None, vec![]), &[], None, &t());
    assert_eq!(v.stall, None);
    assert_eq!(v.outcome, Outcome::PartlyStorageBound);
    assert!(
        v.caveats.iter().any(|c| c.contains("psi=0")),
        "{:?}",
        v.caveats
    );
}

#[test]
fn util_alone_never_decides() {
    let mut devices = busy_device(0.1, 0.2);
    devices.get_mut("nvme0n1").expect("device").util = 100.0;
    let v = judge(
        &run(
            devices,
            Some(Stall {
                some: 1.0,
                full: Some(0.0),
            }),
            vec![],
        ),
        &[],
        None,
        &t(),
    );
    assert_eq!(v.outcome, Outcome::NotStorageBound);
}

#[test]
fn a_few_requests_are_not_timed_and_few_probe_reads_use_the_p90() {
    let mut devices = busy_device(50.0, 50.0);
    let d = devices.get_mut("nvme0n1").expect("device");
    d.reads_per_s = 0.1;
    d.writes_per_s = 0.1;
    let v = judge(
        &run(
            devices,
            Some(Stall {
                some: 0.0,
                full: Some(0.0),
            }),
            vec![],
        ),
        &[],
        None,
        &t(),
    );
    assert_eq!(v.slowness, Level::Fine);
    let one_hiccup = ProbeLatency {
        reads: 50,
        p50_us: 100.0,
        p90_us: 150.0,
        p99_us: 20_000.0,
        max_us: 20_000.0,
    };
    let v = judge(
        &run(busy_device(0.2, 0.5), None, vec![]),
        &[],
        Some(&one_hiccup),
        &t(),
    );
    assert_eq!(v.slowness, Level::Fine, "{v:#?}");
    let many = ProbeLatency {
        reads: 600,
        ..one_hiccup
    };
    assert_eq!(
        judge(
            &run(busy_device(0.2, 0.5), None, vec![]),
            &[],
            Some(&many),
            &t()
        )
        .slowness,
        Level::Bound
    );
}
