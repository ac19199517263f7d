//! The three simulated drives are told apart by the behaviour workloads, deterministically.

use std::time::Duration;

use crate::support::GIB;
use bench::behaviour::cliff::CliffPlan;
use bench::behaviour::measure;
use bench::behaviour::models::{DriveModel, MockDrive};
use bench::behaviour::span::SpanPlan;
use bench::behaviour::sync::SyncPlan;
use bench::behaviour::{BehaviourError, CliffStop, SyncPhase};

const GB: f64 = 1e9;
/// The simulated test file: the community's 150 GiB plus room for the span test to outgrow a
/// DRAM-less drive's mapping cache several times over.
const FILE: u64 = 256 * GIB;

fn never() -> bool {
    false
}

fn sync_plan() -> SyncPlan {
    SyncPlan {
        runtime: Duration::from_secs(20),
        ..SyncPlan::default()
    }
}

fn cliff_plan() -> CliffPlan {
    CliffPlan {
        max_bytes: 200 * GIB,
        ..CliffPlan::default()
    }
}

fn span_plan() -> SpanPlan {
    SpanPlan {
        reads_per_span: 3000,
        ..SpanPlan::default()
    }
}

/// The cliff was found and the speed after it is `mb_s`, within 1 MB/s.
fn assert_post_cliff(m: &Measured, mb_s: f64) {
    let post = m.cliff.drop.post_cliff_mb_s.expect("post-cliff speed");
    assert!((post - mb_s).abs() < 1.0, "post-cliff {post}");
}

/// Reads across the whole span are as fast as within a small one: the drive's mapping
/// table is not a bottleneck.
fn assert_flat_span(m: &Measured) {
    assert!(
        m.span.latency_ratio < 1.05,
        "span ratio {}",
        m.span.latency_ratio
    );
}

fn run_all(model: &DriveModel) -> Measured {
    let sync = measure(
        &mut MockDrive::new(model.clone(), FILE, 7),
        &sync_plan(),
        &never,
    )
    .expect("sync on the mock");
    let cliff = measure(
        &mut MockDrive::new(model.clone(), FILE, 7),
        &cliff_plan(),
        &never,
    )
    .expect("cliff on the mock");
    let span = measure(
        &mut MockDrive::new(model.clone(), FILE, 7),
        &span_plan(),
        &never,
    )
    .expect("span on the mock");
    Measured { sync, cliff, span }
}

#[derive(Debug, PartialEq)]
struct Measured {
    sync: bench::behaviour::SyncResult,
    cliff: bench::behaviour::CliffResult,
    span: bench::behaviour::SpanResult,
}

#[test]
fn tlc_with_dram_is_flat_fast_and_recovers_at_once() {
    let m = run_all(&DriveModel::tlc_dram());
    assert!(
        m.sync.baseline_lat_us.p99 < 100.0,
        "{:?}",
        m.sync.baseline_lat_us
    );
    assert!(m.sync.burst_lat_us.p99 < 200.0, "{:?}", m.sync.burst_lat_us);
    assert_eq!(m.sync.recovery.unrecovered_cycles, 0);
    let worst = m.sync.recovery.recovery_ms_max.expect("recovered");
    assert!(worst < 100.0, "recovery {worst} ms");
    // Its cache does run out, but TLC keeps writing far faster than any client needs.
    assert_eq!(m.cliff.stop, CliffStop::CliffEstablished);
    assert_post_cliff(&m, 900.0);
    assert_flat_span(&m);
}

#[test]
fn qlc_falls_off_a_cliff_at_its_cache_size_and_recovers_slowly() {
    let m = run_all(&DriveModel::qlc_small_slc());
    assert_eq!(m.cliff.stop, CliffStop::CliffEstablished);
    let cache = m
        .cliff
        .drop
        .cache_estimate_bytes
        .expect("cache size estimate") as f64
        / GB;
    // The model's cache is 24 GB; the estimate may miss by at most the interval of the drop.
    assert!((22.0..=24.0).contains(&cache), "cache estimate {cache} GB");
    assert_post_cliff(&m, 80.0);
    assert!(m.cliff.drop.pre_cliff_mb_s > 1000.0);
    // Stopped soon after the cliff instead of writing the whole budget.
    assert!(
        m.cliff.written_bytes < 30 * GIB,
        "{}",
        m.cliff.written_bytes
    );
    let worst = m
        .sync
        .recovery
        .recovery_ms_max
        .expect("recovered within the timeout");
    assert!(worst > 5_000.0, "recovery {worst} ms");
    assert!(
        m.sync.burst_lat_us.p99 > 1_000.0,
        "{:?}",
        m.sync.burst_lat_us
    );
    // Reads queue behind nothing but are slowed while the write channel is busy.
    assert!(
        m.sync.burst_lat_us.p50 > 2.0 * m.sync.baseline_lat_us.p50,
        "{:?} against {:?}",
        m.sync.burst_lat_us,
        m.sync.baseline_lat_us
    );
    // Each burst wrote its gibibyte at the cache's random-write speed (1800 MB/s x 0.7) and
    // then paid the model's fdatasync, which came after its last write.
    let model = DriveModel::qlc_small_slc();
    let expected_s = GIB as f64 / (model.cache_write_mb_s * model.random_write_factor * 1e6)
        + model.fdatasync_ms / 1e3;
    let expected_mb_s = GIB as f64 / expected_s / 1e6;
    for cycle in &m.sync.cycles {
        assert!(
            (cycle.fdatasync_ms - model.fdatasync_ms).abs() < 0.01,
            "{cycle:?}"
        );
        assert!(
            (cycle.burst_write_mb_s / expected_mb_s - 1.0).abs() < 0.01,
            "{cycle:?}, expected {expected_mb_s} MB/s"
        );
    }
    assert_flat_span(&m);
}

#[test]
fn dramless_slows_down_once_reads_outgrow_its_mapping_cache() {
    let m = run_all(&DriveModel::dramless_tlc());
    assert!(
        m.span.latency_ratio > 1.8,
        "span ratio {}",
        m.span.latency_ratio
    );
    let flat: Vec<f64> = m
        .span
        .points
        .iter()
        .filter(|p| p.span_bytes <= 32 * GIB)
        .map(|p| p.lat_us.mean)
        .collect();
    let (lo, hi) = flat
        .iter()
        .fold((f64::MAX, 0.0_f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(
        hi / lo < 1.05,
        "latency should be flat within the mapping cache: {flat:?}"
    );
    assert_post_cliff(&m, 700.0);
    let worst = m.sync.recovery.recovery_ms_max.expect("recovered");
    assert!((1_000.0..5_000.0).contains(&worst), "recovery {worst} ms");
}

#[test]
fn the_same_seed_measures_the_same_drive_identically() {
    let model = DriveModel::dramless_tlc();
    assert_eq!(run_all(&model), run_all(&model));
}

#[test]
fn sync_samples_cover_every_phase_in_time_order() {
    let m = run_all(&DriveModel::qlc_small_slc());
    let s = &m.sync;
    assert!(!s.cycles.is_empty());
    assert!(s.samples.len() <= sync_plan().max_plot_points);
    assert!(s.samples.windows(2).all(|w| w[0].t_s <= w[1].t_s));
    for phase in [SyncPhase::Read, SyncPhase::Burst, SyncPhase::Recovery] {
        assert!(
            s.samples.iter().any(|p| p.phase == phase),
            "no {phase:?} samples"
        );
    }
    // Thinned to the plot's points, the samples still show the stalls of the bursts.
    let slowest = s.samples.iter().map(|p| p.lat_us).fold(0.0, f64::max);
    assert!(slowest > 2_000.0, "slowest plotted read {slowest} µs");
    for c in &s.cycles {
        assert!(c.burst_end_s > c.burst_start_s);
        assert!(c.burst_write_mb_s > 0.0);
    }
    // The simulated cycle runs on virtual time, so the runtime is honoured to within a cycle.
    assert!(
        s.runtime_s >= 20.0 && s.runtime_s < 20.0 + 2.0 + 1.0 + 24.0,
        "{}",
        s.runtime_s
    );
}

#[test]
fn reads_that_never_recover_are_reported_as_such() {
    let plan = SyncPlan {
        recovery_timeout: Duration::from_secs(1),
        runtime: Duration::from_secs(1),
        ..SyncPlan::default()
    };
    let mut drive = MockDrive::new(DriveModel::qlc_small_slc(), FILE, 7);
    let s = measure(&mut drive, &plan, &never).expect("sync");
    assert_eq!(s.cycles.len(), 1);
    assert_eq!(s.recovery.unrecovered_cycles, 1);
    assert_eq!(s.cycles[0].recovery_ms, None);
    assert_eq!(s.recovery.recovery_ms_max, None);
}

#[test]
fn a_drive_without_a_cliff_in_budget_stops_at_the_budget() {
    let plan = CliffPlan {
        max_bytes: 10 * GIB,
        ..CliffPlan::default()
    };
    let mut drive = MockDrive::new(DriveModel::tlc_dram(), FILE, 7);
    let c = measure(&mut drive, &plan, &never).expect("cliff");
    assert_eq!(c.stop, CliffStop::ByteBudget);
    assert_eq!(c.written_bytes, 10 * GIB);
    assert_eq!(c.drop.cache_estimate_bytes, None);
    assert_eq!(c.drop.post_cliff_mb_s, None);
    assert!(
        (c.drop.pre_cliff_mb_s - 2000.0).abs() < 1.0,
        "{}",
        c.drop.pre_cliff_mb_s
    );
}

#[test]
fn cancellation_stops_every_workload() {
    let cancelled = || true;
    let mut drive = MockDrive::new(DriveModel::tlc_dram(), FILE, 7);
    assert!(matches!(
        measure(&mut drive, &sync_plan(), &cancelled),
        Err(BehaviourError::Interrupted)
    ));
    assert!(matches!(
        measure(&mut drive, &cliff_plan(), &cancelled),
        Err(BehaviourError::Interrupted)
    ));
    assert!(matches!(
        measure(&mut drive, &span_plan(), &cancelled),
        Err(BehaviourError::Interrupted)
    ));
}

#[test]
fn nonsense_plans_are_refused_not_run() {
    let mut drive = MockDrive::new(DriveModel::tlc_dram(), FILE, 7);
    let plan = SyncPlan {
        burst_block_min: 6000,
        ..SyncPlan::default()
    };
    assert!(matches!(
        measure(&mut drive, &plan, &never),
        Err(BehaviourError::InvalidPlan(_))
    ));
    let mut tiny = MockDrive::new(DriveModel::tlc_dram(), 64 * 1024, 7);
    assert!(matches!(
        measure(&mut tiny, &SyncPlan::default(), &never),
        Err(BehaviourError::FileTooSmall { .. })
    ));
    assert!(matches!(
        measure(&mut tiny, &CliffPlan::default(), &never),
        Err(BehaviourError::FileTooSmall { .. })
    ));
}
