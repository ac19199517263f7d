//! Real short runs of the behaviour tests on this machine's disk, through `bench::run` with
//! the test file it creates, fills and removes: well-formed, plausible results and nothing left
//! behind. Small sizes and seconds, so the figures say nothing about the drive; what is
//! checked is that the workloads really ran against it.

mod support;

use std::path::Path;
use std::time::Duration;

use bench::behaviour::cliff::CliffPlan;
use bench::behaviour::span::SpanPlan;
use bench::behaviour::sync::SyncPlan;
use bench::behaviour::{BehaviourTests, CliffStop, SyncPhase, WritePattern};
use bench::{BenchError, EngineKind};
use bench::{BenchTarget, NoProgress, Plan};
use support::skip::skip;
use support::{scratch, MIB};

fn plan_for(dir: &Path, tests: BehaviourTests) -> Plan {
    let mut plan = Plan::full(BenchTarget::Directory(dir.to_path_buf()));
    plan.qd1 = false;
    plan.randrw = false;
    plan.behaviour = tests;
    plan.size = Some(256 * MIB);
    plan.safety.reserve = Some(1 << 30);
    // The machine running the tests may host anything; these runs are seconds of I/O.
    plan.safety.force = true;
    plan
}

/// Runs `tests` in a scratch directory and checks the run left nothing there, or explains why
/// this machine cannot run them (a file system without O_DIRECT).
fn run_or_skip(tests: BehaviourTests) -> Option<bench::BenchReport> {
    let dir = scratch("behaviour-real-");
    match bench::run(&plan_for(dir.path(), tests), &mut NoProgress) {
        Ok(report) => {
            assert_empty(dir.path());
            Some(report)
        }
        Err(BenchError::Io { context, source }) if source.raw_os_error() == Some(libc::EINVAL) => {
            skip(format_args!(
                "the scratch file system refuses O_DIRECT ({context}: {source})"
            ));
            None
        }
        Err(err) => panic!("behaviour run failed: {err}"),
    }
}

fn assert_empty(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .expect("listing the scratch directory")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn sync_on_this_disk() {
    let tests = BehaviourTests {
        sync: Some(SyncPlan {
            read_phase: Duration::from_millis(500),
            burst_bytes: 32 * MIB,
            burst_queue_depth: 8,
            runtime: Duration::from_secs(2),
            recovery_timeout: Duration::from_secs(3),
            ..SyncPlan::default()
        }),
        ..BehaviourTests::default()
    };
    let Some(report) = run_or_skip(tests) else {
        return;
    };
    let sync = report.sync.expect("sync result");
    assert_eq!(sync.engine, EngineKind::Psync);
    // Bursts run on the engine the bench chose (io_uring here unless the sandbox blocks it).
    assert_eq!(sync.burst_engine, Some(report.engine));
    assert!(!sync.cycles.is_empty());
    assert_eq!(sync.span_bytes, 256 * MIB);
    let base = sync.baseline_lat_us;
    // A QD1 4 KiB O_DIRECT read takes at least a microsecond and, on anything that boots,
    // well under a second.
    assert!(base.p50 >= 1.0 && base.p50 < 1e6, "{base:?}");
    assert!(base.p50 <= base.p99 && base.p99 <= base.max, "{base:?}");
    assert!(sync.burst_lat_us.max > 0.0);
    for cycle in &sync.cycles {
        assert!(cycle.burst_end_s > cycle.burst_start_s, "{cycle:?}");
        // 32 MiB in bursts: faster than 1 MB/s and slower than any bus.
        assert!(
            cycle.burst_write_mb_s > 1.0 && cycle.burst_write_mb_s < 100_000.0,
            "{cycle:?}"
        );
        assert!(cycle.fdatasync_ms >= 0.0);
        if let Some(r) = cycle.recovery_ms {
            assert!((0.0..=3_000.0).contains(&r), "{cycle:?}");
        }
    }
    assert!(sync.runtime_s >= 2.0, "{}", sync.runtime_s);
    assert!(sync.samples.iter().any(|p| p.phase == SyncPhase::Read));
    assert!(sync.samples.iter().any(|p| p.phase == SyncPhase::Burst));
    println!(
        "sync here: baseline p50 {:.0} us p99 {:.0} us, burst p99 {:.0} us, {:.0} MB/s, recovery {:?} ms",
        base.p50, base.p99, sync.burst_lat_us.p99, sync.burst_write_mb_s, sync.recovery.recovery_ms_max
    );
}

#[test]
fn span_on_this_disk() {
    let tests = BehaviourTests {
        span: Some(SpanPlan {
            min_span: 16 * MIB,
            reads_per_span: 500,
            time_per_span: Duration::from_millis(500),
            ..SpanPlan::default()
        }),
        ..BehaviourTests::default()
    };
    let Some(report) = run_or_skip(tests) else {
        return;
    };
    let span = report.span.expect("span result");
    let spans: Vec<u64> = span.points.iter().map(|p| p.span_bytes).collect();
    assert_eq!(
        spans,
        vec![16 * MIB, 32 * MIB, 64 * MIB, 128 * MIB, 256 * MIB]
    );
    for p in &span.points {
        assert!(p.ios > 0, "{p:?}");
        assert!(p.lat_us.p50 >= 1.0 && p.lat_us.p50 < 1e6, "{p:?}");
    }
    assert!(span.latency_ratio > 0.0 && span.latency_ratio.is_finite());
    println!("span here: ratio {:.2}", span.latency_ratio);
}

#[test]
fn cliff_on_this_disk() {
    let tests = BehaviourTests {
        cliff: Some(CliffPlan {
            interval: Duration::from_millis(250),
            sequential_block: 1 << 20,
            random_block: 128 << 10,
            queue_depth: 4,
            max_bytes: 512 * MIB,
            max_runtime: Duration::from_secs(4),
            ..CliffPlan::default()
        }),
        ..BehaviourTests::default()
    };
    let Some(report) = run_or_skip(tests) else {
        return;
    };
    let cliff = report.cliff.expect("cliff result");
    assert!(
        cliff.written_bytes > 0 && cliff.written_bytes <= 512 * MIB,
        "{cliff:?}"
    );
    assert!(!cliff.samples.is_empty());
    // One sequential pass over the 256 MiB file, then random writes.
    let mut before = 0;
    for p in &cliff.samples {
        let expected = if before < 256 * MIB {
            WritePattern::Sequential
        } else {
            WritePattern::Random
        };
        assert_eq!(p.pattern, expected, "{p:?} after {before} bytes");
        before = p.written_bytes;
    }
    println!(
        "cliff here: {:.0} MB/s over {} intervals, {} MiB, stop {:?}",
        cliff.drop.pre_cliff_mb_s,
        cliff.samples.len(),
        cliff.written_bytes >> 20,
        cliff.stop
    );
    assert!(cliff
        .samples
        .windows(2)
        .all(|w| w[0].written_bytes <= w[1].written_bytes));
    assert!(
        cliff.drop.pre_cliff_mb_s > 1.0 && cliff.drop.pre_cliff_mb_s < 100_000.0,
        "{cliff:?}"
    );
    assert!(matches!(
        cliff.stop,
        CliffStop::ByteBudget | CliffStop::Runtime | CliffStop::CliffEstablished
    ));
}

#[test]
fn a_cancelled_run_leaves_nothing_behind() {
    let dir = scratch("behaviour-real-");
    let plan = plan_for(
        dir.path(),
        BehaviourTests {
            sync: Some(SyncPlan::default()),
            ..BehaviourTests::default()
        },
    );
    plan.cancel.cancel();
    let outcome = bench::run(&plan, &mut NoProgress);
    assert!(
        matches!(outcome, Err(BenchError::Interrupted(_))),
        "{outcome:?}"
    );
    assert_empty(dir.path());
}
