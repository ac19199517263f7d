//! The mock device makes statistics and stopping exact: every expected number here is computed
//! by hand from the injected latencies.

use std::time::Duration;

use crate::support::GIB;
use bench::engine::mock::{
    ConstantLatency, DeviceState, LatencyModel, MockEngine, ScriptedLatency,
};
use bench::engine::{Target, Work};
use bench::CancelToken;
use bench::{Direction, Io, Job, Next, ProgressCounter, StopCondition};
use bench::{RandomIoJob, RandomPattern};

/// The simulated device: a 1 GiB span, small enough for exact hand-computed statistics.
const SPAN: u64 = GIB;

/// A device that answers every read in `read_us` and every write in `write_us` microseconds.
fn constant_latency_us(read_us: u64, write_us: u64) -> MockEngine {
    MockEngine::new(ConstantLatency {
        read: Duration::from_micros(read_us),
        write: Duration::from_micros(write_us),
    })
}

fn job(read_percent: u32, runtime: Duration, max_ios: Option<u64>) -> RandomIoJob {
    let mut stop = StopCondition::new(runtime, CancelToken::new());
    stop.max_ios = max_ios;
    RandomIoJob::new(
        RandomPattern::new(1, SPAN, 4096, read_percent),
        stop,
        ProgressCounter::default(),
    )
}

/// `job` once `engine` ran it at `queue_depth`, its statistics filled in.
fn run(engine: &MockEngine, queue_depth: u32, mut job: RandomIoJob) -> RandomIoJob {
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    bench::engine::run(
        engine,
        Work::new(&Target::simulated(SPAN), queue_depth, &mut jobs, &mut || {}),
    )
    .unwrap();
    job
}

#[test]
fn qd1_at_a_constant_100us_gives_exactly_10000_iops_for_one_second() {
    let engine = constant_latency_us(100, 100);
    let qd1 = run(&engine, 1, job(100, Duration::from_secs(1), None));
    let stats = &qd1.stats;
    assert_eq!(stats.read.count(), 10_000);
    assert_eq!(stats.write.count(), 0);
    assert_eq!(stats.elapsed, Duration::from_secs(1));
    let result = bench::qd1_result(stats, SPAN, "file", bench::EngineKind::Mock);
    assert!((result.iops - 10_000.0).abs() < 1e-6, "{result:?}");
    assert!((result.lat_us.p50 - 100.0).abs() < 0.1, "{result:?}");
    assert!((result.lat_us.max - 100.0).abs() < 0.1, "{result:?}");
}

#[test]
fn percentiles_follow_a_scripted_distribution() {
    // 1000 latencies: 900 at 50 us, 90 at 500 us, 9 at 2 ms, 1 at 20 ms, in a fixed order.
    let mut script = vec![Duration::from_micros(50); 900];
    script.extend(vec![Duration::from_micros(500); 90]);
    script.extend(vec![Duration::from_millis(2); 9]);
    script.push(Duration::from_millis(20));
    let total: Duration = script.iter().sum();
    let engine = MockEngine::new(ScriptedLatency::new(script));
    let qd1 = run(
        &engine,
        1,
        job(100, Duration::from_secs(3600), Some(10_000)),
    );
    let summary = qd1.stats.read.summary_us();
    assert_eq!(qd1.stats.read.count(), 10_000);
    assert_eq!(qd1.stats.elapsed, total * 10);
    assert!((summary.p50 - 50.0).abs() < 0.1, "{summary:?}");
    assert!((summary.p90 - 50.0).abs() < 0.1, "{summary:?}");
    assert!((summary.p99 - 500.0).abs() < 0.5, "{summary:?}");
    assert!((summary.p999 - 2000.0).abs() < 2.0, "{summary:?}");
    assert!((summary.max - 20_000.0).abs() < 20.0, "{summary:?}");
    let mean = total.as_secs_f64() * 1e6 / 1000.0;
    assert!((summary.mean - mean).abs() < 0.01, "{summary:?} vs {mean}");
}

#[test]
fn queue_depth_multiplies_throughput_and_latency_is_per_direction() {
    let engine = constant_latency_us(200, 400);
    let randrw = run(&engine, 64, job(75, Duration::from_millis(500), None));
    let stats = &randrw.stats;
    let read = stats.read.summary_us();
    let write = stats.write.summary_us();
    assert!((read.max - 200.0).abs() < 0.2 && (read.p50 - 200.0).abs() < 0.2);
    assert!((write.max - 400.0).abs() < 0.2 && (write.p50 - 400.0).abs() < 0.2);
    // 64 slots, each cycling at 200 us (reads) or 400 us (writes): mean service time
    // 0.75*200 + 0.25*400 = 250 us → about 64 / 250 us = 256k IOPS over 0.5 s.
    let ios = stats.ios() as f64;
    let expected = 64.0 / 250e-6 * 0.5;
    assert!(
        (ios / expected - 1.0).abs() < 0.02,
        "{ios} I/O, expected about {expected}"
    );
    let share = stats.read.count() as f64 / ios;
    assert!((share - 0.75).abs() < 0.01, "read share {share}");
    // The last completion lands within one write latency after the runtime ends.
    assert!(stats.elapsed >= Duration::from_millis(500));
    assert!(stats.elapsed <= Duration::from_micros(500_400));
}

#[test]
fn runs_are_deterministic() {
    let results: Vec<(u64, u64, Duration)> = (0..2)
        .map(|_| {
            let engine = MockEngine::new(ScriptedLatency::new(vec![
                Duration::from_micros(80),
                Duration::from_micros(120),
                Duration::from_micros(1000),
            ]));
            let randrw = run(&engine, 16, job(75, Duration::from_millis(200), None));
            (
                randrw.stats.read.count(),
                randrw.stats.write.count(),
                randrw.stats.elapsed,
            )
        })
        .collect();
    assert_eq!(results[0], results[1]);
}

#[test]
fn stopping_by_count_and_by_cancellation() {
    let engine = constant_latency_us(10, 10);
    let counted = run(&engine, 8, job(75, Duration::from_secs(10), Some(1234)));
    assert_eq!(counted.stats.ios(), 1234);

    let cancel = CancelToken::new();
    cancel.cancel();
    let cancelled = run(
        &engine,
        8,
        RandomIoJob::new(
            RandomPattern::new(1, SPAN, 4096, 75),
            StopCondition::new(Duration::from_secs(10), cancel),
            ProgressCounter::default(),
        ),
    );
    assert_eq!(cancelled.stats.ios(), 0);
}

/// A model that sees the device state: latency grows with the bytes written, the shape of a
/// drive whose write cache fills. Shows the trait carries what such models need.
struct SlowsAfterWrites;

impl LatencyModel for SlowsAfterWrites {
    fn latency(&mut self, _io: &Io, state: &DeviceState) -> Duration {
        if state.written_bytes >= 4096 * 100 {
            Duration::from_millis(1)
        } else {
            Duration::from_micros(10)
        }
    }
}

#[test]
fn models_see_written_bytes() {
    let engine = MockEngine::new(SlowsAfterWrites);
    let writes = run(&engine, 1, job(0, Duration::from_secs(3600), Some(200)));
    assert_eq!(writes.stats.write.count(), 200);
    // 100 fast writes, then 100 slow ones.
    assert_eq!(
        writes.stats.elapsed,
        Duration::from_micros(10) * 100 + Duration::from_millis(1) * 100
    );
    assert_eq!(writes.stats.read.count(), 0);
}

#[test]
fn invalid_io_is_rejected_before_the_device() {
    struct Misaligned;
    impl Job for Misaligned {
        fn next_io(&mut self, _now: Duration) -> Next {
            Next::Io(Io {
                offset: 100,
                len: 4096,
                direction: Direction::Read,
            })
        }
        fn complete(&mut self, _: &Io, _: Duration, _: Duration, _: &[u8]) {}
    }
    let engine = constant_latency_us(10, 10);
    let mut job = Misaligned;
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    let err = bench::engine::run(
        &engine,
        Work::new(&Target::simulated(SPAN), 1, &mut jobs, &mut || {}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("invalid I/O"), "{err}");
}

/// A file system where every byte written takes a new byte (btrfs overwriting a CoW file),
/// with `start` bytes free: free space is what the writes completed so far left.
struct CopyOnWriteFs {
    start: u64,
    written: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl bench::engine::FreeSpace for CopyOnWriteFs {
    fn available(&self) -> Result<u64, bench::BenchError> {
        let written = self.written.load(std::sync::atomic::Ordering::Relaxed);
        Ok(self.start.saturating_sub(written))
    }
    fn name(&self) -> String {
        "/mnt/cow".to_string()
    }
}

/// Overwrites 1 MiB blocks of the target for ever (until 10 s of virtual time), each write
/// counted into the simulated file system's used space on completion.
struct Overwriter {
    next: u64,
    written: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Job for Overwriter {
    fn next_io(&mut self, now: Duration) -> Next {
        if now >= Duration::from_secs(10) {
            return Next::Done;
        }
        let io = Io {
            offset: self.next % SPAN,
            len: 1 << 20,
            direction: Direction::Write,
        };
        self.next += 1 << 20;
        Next::Io(io)
    }
    fn complete(&mut self, io: &Io, _: Duration, _: Duration, _: &[u8]) {
        self.written
            .fetch_add(u64::from(io.len), std::sync::atomic::Ordering::Relaxed);
    }
}

/// On btrfs, free space can fall from 187 MB to 34 MB under a 40 MB reserve while the
/// bench overwrote its own file, and the run exited 0. Every write phase runs through the
/// engine's guard, which watches free space and stops under the reserve; at a 1 MiB write per
/// millisecond (1 GB/s) the 100 ms interval alone would overshoot by 100 MB, so the watch also
/// reads the space again after half the headroom is written.
#[test]
fn writes_stop_at_the_free_space_reserve_on_a_copy_on_write_file_system() {
    let written = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let start = 187_000_000;
    let reserve = 40_000_000;
    let fs = CopyOnWriteFs {
        start,
        written: written.clone(),
    };
    let watch = bench::engine::SpaceWatch::new(std::sync::Arc::new(fs), reserve);
    let target = Target::simulated(SPAN).watching(watch);
    let engine = constant_latency_us(10, 1000);
    let mut job = Overwriter {
        next: 0,
        written: written.clone(),
    };
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    let err = bench::engine::run(&engine, Work::new(&target, 4, &mut jobs, &mut || {}))
        .expect_err("the run must stop under the reserve");
    assert!(
        matches!(err, bench::BenchError::ReserveReached { .. }),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("/mnt/cow") && message.contains("reserve"),
        "{message}"
    );
    let free = start - written.load(std::sync::atomic::Ordering::Relaxed);
    // Only the writes already in flight when the watch stopped the job (queue depth 4 of
    // 1 MiB) may complete below the reserve; without the watch all 10 GB would be written.
    assert!(free + 4 * (1 << 20) >= reserve, "free space fell to {free}");
    assert!(
        free < reserve + 2 * (1 << 20),
        "stopped too early, at {free} free"
    );
}

#[test]
fn reads_go_on_under_the_reserve_and_a_roomy_file_system_lets_writes_run() {
    let written = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let roomy = CopyOnWriteFs {
        start: u64::MAX / 2,
        written: written.clone(),
    };
    let target = Target::simulated(SPAN).watching(bench::engine::SpaceWatch::new(
        std::sync::Arc::new(roomy),
        1 << 30,
    ));
    let mut job = Overwriter {
        next: 0,
        written: written.clone(),
    };
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    let engine = constant_latency_us(10, 1000);
    bench::engine::run(&engine, Work::new(&target, 4, &mut jobs, &mut || {})).unwrap();
    // 4 writes of 1 MiB per virtual millisecond for 10 s, none refused.
    assert!(written.load(std::sync::atomic::Ordering::Relaxed) >= 39_000 << 20);

    let full = CopyOnWriteFs {
        start: 0,
        written: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
    };
    let target = Target::simulated(SPAN).watching(bench::engine::SpaceWatch::new(
        std::sync::Arc::new(full),
        1 << 30,
    ));
    let mut reads = job_reads_only();
    let mut jobs: Vec<&mut dyn Job> = vec![&mut reads];
    bench::engine::run(&engine, Work::new(&target, 1, &mut jobs, &mut || {})).unwrap();
    assert_eq!(reads.stats.read.count(), 100);
}

fn job_reads_only() -> RandomIoJob {
    job(100, Duration::from_secs(10), Some(100))
}

/// A copy-on-write file system whose `statvfs` lags the writes (btrfs and ZFS free overwritten
/// blocks only at their next commit, and the test file could not be made nodatacow): the watch
/// then counts every byte written as taken, so the run stops once the bytes written reach the
/// room above the reserve, whatever `statvfs` says.
#[test]
fn on_a_lagging_copy_on_write_file_system_every_byte_written_counts() {
    let lagging = CopyOnWriteFs {
        start: u64::MAX / 2,
        written: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
    };
    let watch = bench::engine::SpaceWatch::new(std::sync::Arc::new(lagging), 40_000_000)
        .counting_writes(100_000_000);
    let target = Target::simulated(SPAN).watching(watch);
    let written = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut job = Overwriter {
        next: 0,
        written: written.clone(),
    };
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    let engine = constant_latency_us(10, 1000);
    let err = bench::engine::run(&engine, Work::new(&target, 4, &mut jobs, &mut || {}))
        .expect_err("the counted writes reach the reserve");
    assert!(
        matches!(err, bench::BenchError::ReserveReached { .. }),
        "{err}"
    );
    let written = written.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        (58_000_000..=60_000_000).contains(&written),
        "wrote {written} bytes of the 60 MB above the reserve"
    );
}

/// Reads one 4 KiB block after another until `until`, counting its completions.
struct Reads {
    until: Duration,
    done: u64,
}

impl Job for Reads {
    fn next_io(&mut self, now: Duration) -> Next {
        if now >= self.until {
            return Next::Done;
        }
        Next::Io(Io {
            offset: 0,
            len: 4096,
            direction: Direction::Read,
        })
    }
    fn complete(&mut self, _: &Io, _: Duration, _: Duration, _: &[u8]) {
        self.done += 1;
    }
}

#[test]
fn each_job_keeps_its_own_queue_depth() {
    // 100 µs per read: QD1 completes 10,000 in a second, QD4 40,000 beside it.
    let engine = constant_latency_us(100, 100);
    let second = Duration::from_secs(1);
    let mut shallow = Reads {
        until: second,
        done: 0,
    };
    let mut deep = Reads {
        until: second,
        done: 0,
    };
    let mut jobs: Vec<&mut dyn Job> = vec![&mut shallow, &mut deep];
    let target = Target::simulated(SPAN);
    bench::engine::run(
        &engine,
        Work::with_depths(&target, &mut jobs, &[1, 4], &mut || {}),
    )
    .unwrap();
    assert_eq!((shallow.done, deep.done), (10_000, 40_000));
}

/// Idle until `leader` has seen `after` completions (read through a shared counter), then
/// writes `writes` blocks and closes them with a sync, whose completion time it keeps.
struct Follower<'a> {
    leader_done: &'a std::sync::atomic::AtomicU64,
    after: u64,
    writes: u32,
    inflight: u32,
    synced_at: Option<Duration>,
    sync_latency: Duration,
    started_at: Option<Duration>,
}

impl Job for Follower<'_> {
    fn next_io(&mut self, now: Duration) -> Next {
        use std::sync::atomic::Ordering;
        if self.synced_at.is_some() {
            return Next::Done;
        }
        if self.leader_done.load(Ordering::Relaxed) < self.after {
            return Next::Idle;
        }
        self.started_at.get_or_insert(now);
        if self.writes > 0 {
            self.writes -= 1;
            self.inflight += 1;
            return Next::Io(Io {
                offset: u64::from(self.writes) * 4096,
                len: 4096,
                direction: Direction::Write,
            });
        }
        if self.inflight > 0 {
            return Next::Idle;
        }
        self.inflight += 1;
        Next::Io(bench::SYNC)
    }
    fn complete(&mut self, io: &Io, latency: Duration, now: Duration, _: &[u8]) {
        self.inflight -= 1;
        if io.direction == Direction::Sync {
            self.synced_at = Some(now);
            self.sync_latency = latency;
        }
    }
}

/// Counts its reads into a counter another job watches.
struct Leader<'a> {
    reads: Reads,
    done: &'a std::sync::atomic::AtomicU64,
}

impl Job for Leader<'_> {
    fn next_io(&mut self, now: Duration) -> Next {
        self.reads.next_io(now)
    }
    fn complete(&mut self, io: &Io, latency: Duration, now: Duration, data: &[u8]) {
        self.reads.complete(io, latency, now, data);
        self.done
            .store(self.reads.done, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn an_idle_job_starts_when_another_job_lets_it_and_its_sync_follows_its_writes() {
    // Reads 100 µs, writes and syncs 1 ms each: the follower starts at the leader's 50th read
    // (5 ms), writes 8 blocks at QD8 (done at 6 ms), then syncs (done at 7 ms).
    let engine = constant_latency_us(100, 1000);
    let done = std::sync::atomic::AtomicU64::new(0);
    let mut leader = Leader {
        reads: Reads {
            until: Duration::from_millis(20),
            done: 0,
        },
        done: &done,
    };
    let mut follower = Follower {
        leader_done: &done,
        after: 50,
        writes: 8,
        inflight: 0,
        synced_at: None,
        sync_latency: Duration::ZERO,
        started_at: None,
    };
    let mut jobs: Vec<&mut dyn Job> = vec![&mut leader, &mut follower];
    let target = Target::simulated(SPAN);
    bench::engine::run(
        &engine,
        Work::with_depths(&target, &mut jobs, &[1, 8], &mut || {}),
    )
    .unwrap();
    assert_eq!(follower.started_at, Some(Duration::from_millis(5)));
    assert_eq!(follower.synced_at, Some(Duration::from_millis(7)));
    assert_eq!(follower.sync_latency, Duration::from_millis(1));
    assert_eq!(leader.reads.done, 200);
}

#[test]
fn a_simulated_run_whose_every_job_waits_fails_instead_of_hanging() {
    struct Waits;
    impl Job for Waits {
        fn next_io(&mut self, _now: Duration) -> Next {
            Next::Idle
        }
        fn complete(&mut self, _: &Io, _: Duration, _: Duration, _: &[u8]) {}
    }
    let engine = constant_latency_us(10, 10);
    let mut job = Waits;
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    let err = bench::engine::run(
        &engine,
        Work::new(&Target::simulated(SPAN), 1, &mut jobs, &mut || {}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("every job"), "{err}");
}
