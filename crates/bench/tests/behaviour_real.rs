//! Real short runs of the behaviour tests on this machine's disk, through `bench::run` with
//! the test file it creates, fills and removes: well-formed, plausible results and nothing left
//! behind. Small sizes and seconds, so the figures say nothing about the drive; what is
//! checked is that the workloads really ran against it.

use std::path::Path;
use std::time::Duration;

use crate::support::skip::skip;
use crate::support::{scratch, MIB};
use bench::behaviour::cliff::CliffPlan;
use bench::behaviour::span::SpanPlan;
use bench::behaviour::sync::SyncPlan;
use bench::behaviour::{BehaviourTests, CliffStop, SyncPhase, WritePattern};
use bench::{BenchError, EngineKind};
use bench::{BenchTarget, NoProgress, Plan};

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
    // Reads and bursts run on the engine the bench chose, the qd1 test's (io_uring here unless
    // the sandbox blocks it), not on a pread loop of their own.
    assert_eq!(sync.engine, report.engine);
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
    assert_eq!(span.engine, report.engine);
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
    assert_eq!(cliff.engine, report.engine);
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

/// The behaviour tests' writes and syncs pass the engine's read-only guard like every other
/// test's: before they ran on an engine, a sustained write or a burst on a read-only target went
/// to `pwrite` and only the kernel's EBADF stopped it; now the engine refuses it before any I/O.
#[test]
fn behaviour_writes_to_a_read_only_target_are_refused_by_the_engine() {
    use bench::behaviour::file::FileDevice;
    use bench::behaviour::{measure, BehaviourError};
    use bench::engine::{EngineChoice, EngineConfig, Target};

    let dir = scratch("behaviour-readonly-");
    let path = dir.path().join("precious");
    std::fs::write(&path, vec![0x5a; 2 << 20]).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let target = Target::new(file, 2 << 20, false);
    let choice = EngineChoice {
        kind: EngineKind::Psync,
        config: EngineConfig::default(),
        reason: None,
    };
    let mut device = FileDevice::new(target, &choice).unwrap();
    let never = || false;
    let span = SpanPlan {
        min_span: 1 << 20,
        reads_per_span: 20,
        time_per_span: Duration::from_millis(200),
        ..SpanPlan::default()
    };
    let read = measure(&mut device, &span, &never).expect("reads are allowed");
    assert_eq!(read.engine, EngineKind::Psync);
    assert!(read.points.iter().all(|p| p.ios > 0), "{read:?}");
    let cliff = CliffPlan {
        interval: Duration::from_millis(100),
        sequential_block: 4096,
        random_block: 4096,
        queue_depth: 2,
        max_bytes: 1 << 20,
        ..CliffPlan::default()
    };
    let refused = |err: BehaviourError| {
        assert!(err.to_string().contains("read-only target"), "{err}");
    };
    refused(measure(&mut device, &cliff, &never).unwrap_err());
    let sync = SyncPlan {
        read_phase: Duration::from_millis(20),
        burst_bytes: 1 << 20,
        burst_queue_depth: 4,
        runtime: Duration::from_millis(50),
        ..SyncPlan::default()
    };
    refused(measure(&mut device, &sync, &never).unwrap_err());
    drop(device);
    assert!(std::fs::read(&path).unwrap().iter().all(|&b| b == 0x5a));
}

/// A sync alone is refused on a read-only target too: a burst's `fdatasync` cannot slip past
/// the guard.
#[test]
fn a_sync_of_a_read_only_target_is_refused_before_the_kernel() {
    use bench::engine::{EngineConfig, Target, Work};
    use bench::{Job, Next, SYNC};

    struct SyncOnce(bool);
    impl Job for SyncOnce {
        fn next_io(&mut self, _now: Duration) -> Next {
            if std::mem::replace(&mut self.0, true) {
                Next::Done
            } else {
                Next::Io(SYNC)
            }
        }
        fn complete(&mut self, _: &bench::Io, _: Duration, _: Duration, _: &[u8]) {}
    }
    let dir = scratch("behaviour-readonly-sync-");
    let path = dir.path().join("precious");
    std::fs::write(&path, vec![0x5a; 1 << 20]).unwrap();
    let target = Target::new(std::fs::File::open(&path).unwrap(), 1 << 20, false);
    let engine = bench::engine::psync::PsyncEngine::new(EngineConfig::default());
    let mut job = SyncOnce(false);
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    let err =
        bench::engine::run(&engine, Work::new(&target, 1, &mut jobs, &mut || {})).unwrap_err();
    assert!(err.to_string().contains("sync a read-only target"), "{err}");
}

#[test]
fn behaviour_tests_run_on_the_portable_engine_when_asked() {
    let tests = BehaviourTests {
        span: Some(SpanPlan {
            min_span: 64 * MIB,
            reads_per_span: 200,
            time_per_span: Duration::from_millis(300),
            ..SpanPlan::default()
        }),
        ..BehaviourTests::default()
    };
    let dir = scratch("behaviour-psync-");
    let mut plan = plan_for(dir.path(), tests);
    plan.engine.preference = bench::EnginePreference::Psync;
    let report = match bench::run(&plan, &mut NoProgress) {
        Ok(report) => report,
        Err(BenchError::Io { context, source }) if source.raw_os_error() == Some(libc::EINVAL) => {
            return skip(format_args!(
                "the scratch file system refuses O_DIRECT ({context}: {source})"
            ));
        }
        Err(err) => panic!("behaviour run failed: {err}"),
    };
    assert_empty(dir.path());
    assert_eq!(report.engine, EngineKind::Psync);
    assert_eq!(report.span.expect("span result").engine, EngineKind::Psync);
}

/// A btrfs file system on a loop device over an image file, unmounted and detached on drop.
struct BtrfsLoop {
    mount: tempfile::TempDir,
    device: String,
    _image_dir: tempfile::TempDir,
}

impl BtrfsLoop {
    /// A fresh `size`-byte btrfs, or why this machine cannot make one.
    fn new(size: u64) -> Result<BtrfsLoop, String> {
        use std::process::Command;
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("needs root for losetup and mount".into());
        }
        let image_dir = scratch("btrfs-image-");
        let image = image_dir.path().join("btrfs.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(size))
            .map_err(|err| format!("creating the image: {err}"))?;
        let run = |command: &mut Command| -> Result<String, String> {
            let output = command
                .output()
                .map_err(|err| format!("{command:?}: {err}"))?;
            if !output.status.success() {
                return Err(format!(
                    "{command:?}: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
        };
        let device = run(Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&image))?;
        let mount = tempfile::tempdir().map_err(|err| err.to_string())?;
        let made = run(Command::new("mkfs.btrfs").args(["-q", "-f", &device]))
            .and_then(|_| run(Command::new("mount").arg(&device).arg(mount.path())));
        if let Err(err) = made {
            let _ = Command::new("losetup").args(["-d", &device]).status();
            return Err(err);
        }
        Ok(BtrfsLoop {
            mount,
            device,
            _image_dir: image_dir,
        })
    }
}

impl Drop for BtrfsLoop {
    fn drop(&mut self) {
        use std::process::{Command, Stdio};
        // io_uring releases its registered files asynchronously after a ring closes, so the
        // file system can be busy for a moment after the run.
        for _ in 0..50 {
            let unmounted = Command::new("umount")
                .arg(self.mount.path())
                .stderr(Stdio::null())
                .status();
            if unmounted.is_ok_and(|status| status.success()) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
    }
}

fn available(dir: &Path) -> u64 {
    let stat = nix::sys::statvfs::statvfs(dir).expect("statvfs");
    stat.blocks_available() as u64 * stat.fragment_size() as u64
}

/// On a real btrfs: a 256 MiB file system (~183 MB free) and a 40 MB reserve, as in
/// the report where copy-on-write overwrites took free space from 187 MB to 34 MB and a second
/// run hit ENOSPC. Free space is sampled every few milliseconds through two runs of the sync
/// and cliff tests (both rewrite the test file); it must never fall under the reserve by more
/// than the writes in flight, and both runs must end cleanly.
#[test]
fn on_btrfs_the_reserve_holds_while_the_bench_overwrites() {
    let fs = match BtrfsLoop::new(256 * MIB) {
        Ok(fs) => fs,
        Err(why) => return skip(format_args!("no btrfs loop device here: {why}")),
    };
    let dir = fs.mount.path().to_path_buf();
    let reserve = 40_000_000;
    let lowest = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(u64::MAX));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (dir, lowest, done) = (dir.clone(), lowest.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                lowest.fetch_min(available(&dir), std::sync::atomic::Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    for run in 1..=2 {
        let tests = BehaviourTests {
            sync: Some(SyncPlan {
                read_phase: Duration::from_millis(200),
                burst_bytes: 32 * MIB,
                runtime: Duration::from_secs(1),
                recovery_timeout: Duration::from_secs(1),
                ..SyncPlan::default()
            }),
            cliff: Some(CliffPlan {
                interval: Duration::from_millis(200),
                max_bytes: 512 * MIB,
                max_runtime: Duration::from_secs(3),
                ..CliffPlan::default()
            }),
            span: None,
        };
        let mut plan = plan_for(&dir, tests);
        plan.size = Some(96 * MIB);
        plan.safety.reserve = Some(reserve);
        match bench::run(&plan, &mut NoProgress) {
            Ok(report) => {
                assert!(report.cliff.is_some() && report.sync.is_some(), "run {run}");
                assert!(
                    !report.warnings.iter().any(|w| w.contains("copy-on-write")),
                    "nodatacow should have been set: {:?}",
                    report.warnings
                );
            }
            // Stopping at the reserve, or refusing to start without room for the test file,
            // are the other safe outcomes; ENOSPC or exit 0 below the reserve are the defect.
            Err(BenchError::ReserveReached { .. } | BenchError::NoRoom { .. }) => {}
            Err(err) => panic!("run {run} on btrfs failed: {err}"),
        }
        assert_empty(&dir);
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    sampler.join().unwrap();
    let lowest = lowest.load(std::sync::atomic::Ordering::Relaxed);
    println!("btrfs: lowest free space {lowest} bytes under a {reserve} byte reserve");
    // The cliff's 8 writes of 1 MiB in flight may land after the last reading.
    assert!(
        lowest + 8 * MIB >= reserve,
        "free space fell to {lowest} under the {reserve} reserve"
    );
}
