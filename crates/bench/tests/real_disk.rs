//! Real runs on this machine's disk at small sizes, for both engines: the whole `bench::run`
//! path (test file, prefill, qd1, randrw, cleanup) and a write-then-verify pass through each
//! engine.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Duration;

use crate::support::scratch;
use crate::support::skip::skip;
use bench::engine::{self, EngineConfig, EnginePreference, Target, Work};
use bench::{BenchTarget, Phase, Plan, Progress};
use bench::{Direction, Io, Job, Next, ALIGN};
use bench::{EngineKind, LatencySummary};

fn io_uring_available() -> bool {
    match engine::select(EnginePreference::IoUring, EngineConfig::default(), 1 << 20) {
        Ok(_) => true,
        Err(err) => {
            skip(format_args!("the io_uring part: {err}"));
            false
        }
    }
}

#[derive(Default)]
struct Recorder {
    phases: Vec<Phase>,
    finished: Vec<Phase>,
    updates: usize,
    last_prefill_position: u64,
    warnings: Vec<String>,
}

impl Progress for Recorder {
    fn start(&mut self, phase: Phase, _total: u64) {
        self.phases.push(phase);
    }
    fn update(&mut self, position: u64, rate: &str) {
        self.updates += 1;
        if self.phases.last() == Some(&Phase::Prefill) {
            self.last_prefill_position = position;
            assert!(rate.ends_with("MB/s"), "{rate}");
        } else {
            assert!(rate.ends_with("IOPS"), "{rate}");
        }
    }
    fn finish(&mut self, phase: Phase) {
        self.finished.push(phase);
    }
    fn warn(&mut self, message: &str) {
        self.warnings.push(message.to_string());
    }
}

fn assert_plausible(lat: &LatencySummary) {
    assert!(lat.p50 > 0.0, "{lat:?}");
    assert!(lat.p50 <= lat.p90 && lat.p90 <= lat.p99, "{lat:?}");
    assert!(
        lat.p99 <= lat.p999 && lat.p999 <= lat.max * 1.001,
        "{lat:?}"
    );
    assert!(lat.mean > 0.0 && lat.mean <= lat.max * 1.001, "{lat:?}");
}

fn full_run(preference: EnginePreference, expected: EngineKind) {
    let dir = scratch("bench-test-");
    let mut plan = Plan::full(BenchTarget::Directory(dir.path().to_path_buf()));
    plan.size = Some(256 << 20);
    plan.safety.reserve = Some(1 << 30);
    plan.runtime = Duration::from_secs(2);
    plan.engine.preference = preference;
    // A live node on this machine must not stop the test; it would only add a warning.
    plan.safety.force = true;
    let mut recorder = Recorder::default();
    let report = bench::run(&plan, &mut recorder).expect("bench run");

    assert_eq!(report.engine, expected);
    assert_eq!(recorder.phases, [Phase::Prefill, Phase::Qd1, Phase::RandRw]);
    assert_eq!(recorder.finished, recorder.phases);
    assert_eq!(recorder.last_prefill_position, 256 << 20);

    let qd1 = report.qd1.expect("qd1 result");
    assert_eq!(qd1.engine, expected);
    assert_eq!(qd1.span_bytes, 256 << 20);
    assert!(qd1.ios > 100, "{qd1:?}");
    assert!((1.9..3.0).contains(&qd1.runtime_s), "{qd1:?}");
    assert!((qd1.iops - qd1.ios as f64 / qd1.runtime_s).abs() < 1.0);
    assert_plausible(&qd1.lat_us);
    // One I/O at a time: IOPS cannot beat the mean latency.
    assert!(qd1.iops <= 1e6 / qd1.lat_us.mean * 1.05, "{qd1:?}");
    // Pinned to the interrupt CPU or not, the report says which and why.
    let pinning = qd1
        .placement
        .pinning
        .as_deref()
        .expect("the pinning decision is reported");
    assert_eq!(
        qd1.placement.cpus.is_empty(),
        !pinning.starts_with("qd1 ran on CPU"),
        "{pinning}"
    );
    let allowed = bench::allowed_cpus().unwrap();
    assert!(
        qd1.placement.cpus.iter().all(|cpu| allowed.contains(cpu)),
        "{qd1:?}"
    );

    let randrw = report.randrw.expect("randrw result");
    assert_eq!(randrw.engine, expected);
    assert!(!randrw.fio_comparable);
    assert_eq!((randrw.queue_depth, randrw.block_size), (64, 4096));
    assert!(
        randrw.read_ios > 1000 && randrw.write_ios > 300,
        "{randrw:?}"
    );
    let share = randrw.read_ios as f64 / (randrw.read_ios + randrw.write_ios) as f64;
    assert!((share - 0.75).abs() < 0.03, "read share {share}");
    assert!((randrw.read_bw_bytes_per_s - randrw.read_iops * 4096.0).abs() < 1.0);
    assert_plausible(&randrw.read_lat_us);
    assert_plausible(&randrw.write_lat_us);
    // Pinned like qd1, to the same CPUs: the decision depends on the device, not the test.
    let pinning = randrw
        .placement
        .pinning
        .as_deref()
        .expect("the pinning decision is reported");
    assert!(pinning.starts_with("randrw "), "{pinning}");
    assert_eq!(randrw.placement.cpus, qd1.placement.cpus);
    assert!(report
        .warnings
        .iter()
        .any(|w| w.contains("less comparable")));

    // The test file is gone.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn full_run_on_io_uring() {
    if std::env::var_os(engine::FORCE_NO_IO_URING_ENV).is_some() || !io_uring_available() {
        skip("io_uring is off or unavailable here");
        return;
    }
    full_run(EnginePreference::IoUring, EngineKind::IoUring);
}

#[test]
fn full_run_on_the_portable_engine() {
    full_run(EnginePreference::Psync, EngineKind::Psync);
}

/// Writes every block of the file once with content derived from its offset, then reads every
/// block back and checks it.
struct WriteThenVerify {
    blocks: u64,
    next: u64,
    verifying: bool,
    written: u64,
    verified: u64,
    mismatches: Vec<u64>,
}

fn pattern(offset: u64, buf: &mut [u8]) {
    for (index, word) in buf.chunks_exact_mut(8).enumerate() {
        let value = offset.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index as u64;
        word.copy_from_slice(&value.to_le_bytes());
    }
}

impl Job for WriteThenVerify {
    fn next_io(&mut self, _now: Duration) -> Next {
        if self.next == self.blocks {
            if self.verifying || self.written < self.blocks {
                // Reads start only when every write completed, so they see the final data.
                return Next::Done;
            }
            self.verifying = true;
            self.next = 0;
        }
        // Scatter the order so that the engine's slots and offsets do not line up.
        let block = (self.next * 7919) % self.blocks;
        self.next += 1;
        Next::Io(Io {
            offset: block * ALIGN,
            len: ALIGN as u32,
            direction: if self.verifying {
                Direction::Read
            } else {
                Direction::Write
            },
        })
    }

    fn fill(&mut self, io: &Io, buf: &mut [u8]) {
        pattern(io.offset, buf);
    }

    fn complete(&mut self, io: &Io, _latency: Duration, _now: Duration, data: &[u8]) {
        match io.direction {
            Direction::Write => self.written += 1,
            Direction::Read => {
                let mut expected = vec![0u8; io.len as usize];
                pattern(io.offset, &mut expected);
                if data == expected.as_slice() {
                    self.verified += 1;
                } else {
                    self.mismatches.push(io.offset);
                }
            }
            // It issues none.
            Direction::Sync => {}
        }
    }
}

fn write_then_verify(preference: EnginePreference) {
    let dir = scratch("bench-test-");
    let path = dir.path().join("verify.bin");
    let size: u64 = 8 << 20;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path)
        .unwrap();
    file.set_len(size).unwrap();
    let choice = engine::select(preference, EngineConfig::default(), 1 << 20).unwrap();
    let engine = choice.engine(ALIGN as u32);
    let target = Target::new(file, size, true);
    // 7919 is prime and the block count a power of two, so the scatter visits every block.
    let blocks = size / ALIGN;
    // io_uring keeps 16 I/O in flight in its one ring; the portable engine would need 16 jobs
    // for that, and one job at depth 1 exercises it as well.
    let (_, queue_depth) = engine.layout(16);
    let mut job = WriteThenVerify {
        blocks,
        next: 0,
        verifying: false,
        written: 0,
        verified: 0,
        mismatches: Vec::new(),
    };
    {
        let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
        bench::engine::run(
            &*engine,
            Work::new(&target, queue_depth, &mut jobs, &mut || {}),
        )
        .unwrap();
    }
    assert_eq!(job.written, blocks);
    // The job stopped issuing until its writes completed; the second run does the reads.
    {
        let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
        bench::engine::run(
            &*engine,
            Work::new(&target, queue_depth, &mut jobs, &mut || {}),
        )
        .unwrap();
    }
    assert!(
        job.mismatches.is_empty(),
        "mismatches at {:?}",
        job.mismatches
    );
    assert_eq!(job.verified, blocks);
    verify_with_plain_reads(&path, size);
}

/// Independent of the engines: the file holds the pattern when read with ordinary I/O.
fn verify_with_plain_reads(path: &Path, size: u64) {
    let data = std::fs::read(path).unwrap();
    assert_eq!(data.len() as u64, size);
    let mut seen = HashMap::new();
    for (index, block) in data.chunks(ALIGN as usize).enumerate() {
        let mut expected = vec![0u8; ALIGN as usize];
        pattern(index as u64 * ALIGN, &mut expected);
        assert!(block == expected.as_slice(), "block {index} differs");
        seen.insert(index, ());
    }
    assert_eq!(seen.len() as u64, size / ALIGN);
}

#[test]
fn written_data_reads_back_intact_on_io_uring() {
    if !io_uring_available() {
        skip("io_uring is unavailable here");
        return;
    }
    write_then_verify(EnginePreference::IoUring);
}

#[test]
fn written_data_reads_back_intact_on_the_portable_engine() {
    write_then_verify(EnginePreference::Psync);
}

#[test]
fn sqpoll_ring_runs_qd1() {
    if !io_uring_available() {
        skip("io_uring is unavailable here");
        return;
    }
    let dir = scratch("bench-test-");
    let mut plan = Plan::full(BenchTarget::Directory(dir.path().to_path_buf()));
    plan.size = Some(32 << 20);
    plan.safety.reserve = Some(1 << 30);
    plan.runtime = Duration::from_millis(500);
    plan.engine.preference = EnginePreference::IoUring;
    plan.randrw = false;
    plan.engine.sqpoll = true;
    plan.safety.force = true;
    let report = bench::run(&plan, &mut bench::NoProgress).expect("bench run with SQPOLL");
    assert_eq!(report.engine, EngineKind::IoUring);
    let qd1 = report.qd1.expect("qd1 result");
    assert!(qd1.ios > 10, "{qd1:?}");
    assert_plausible(&qd1.lat_us);
    // Either SQPOLL ran, or the reason it did not is in the report.
    if let Some(reason) = &report.engine_reason {
        assert!(reason.contains("SQPOLL"), "{reason}");
    }
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

/// Records the CPUs its worker thread may run on, for a few reads.
struct AffinityProbe {
    left: u32,
    seen: Option<Vec<usize>>,
}

impl Job for AffinityProbe {
    fn next_io(&mut self, _now: Duration) -> Next {
        if self.seen.is_none() {
            self.seen = Some(bench::allowed_cpus().unwrap());
        }
        let Some(left) = self.left.checked_sub(1) else {
            return Next::Done;
        };
        self.left = left;
        Next::Io(Io {
            offset: u64::from(self.left) * ALIGN,
            len: ALIGN as u32,
            direction: Direction::Read,
        })
    }

    fn complete(&mut self, _io: &Io, _latency: Duration, _now: Duration, _data: &[u8]) {}
}

#[test]
fn a_pinned_target_runs_its_workers_and_the_ticking_caller_on_those_cpus_then_restores_the_caller()
{
    let dir = scratch("bench-test-");
    let path = dir.path().join("pinned.dat");
    std::fs::write(&path, vec![7u8; 64 * ALIGN as usize]).unwrap();
    let caller = bench::allowed_cpus().unwrap();
    let last = *caller.last().unwrap();
    let mut preferences = vec![EnginePreference::Psync];
    if io_uring_available() {
        preferences.push(EnginePreference::IoUring);
    }
    for preference in preferences {
        let choice = engine::select(preference, EngineConfig::default(), 1 << 20).unwrap();
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(&path)
            .unwrap();
        let target = Target::new(file, 64 * ALIGN, false).pinned_to(vec![last]);
        let mut probe = AffinityProbe {
            left: 16,
            seen: None,
        };
        let mut jobs: Vec<&mut dyn Job> = vec![&mut probe];
        let mut caller_during_run = Vec::new();
        let engine = choice.engine(ALIGN as u32);
        bench::engine::run(
            &*engine,
            Work::new(&target, 1, &mut jobs, &mut || {
                caller_during_run.push(bench::allowed_cpus().unwrap())
            }),
        )
        .unwrap();
        assert!(!caller_during_run.is_empty());
        assert!(caller_during_run.iter().all(|cpus| cpus == &[last]));
        assert_eq!(target.pin_error(), None);
        assert_eq!(probe.seen, Some(vec![last]), "{preference:?}");
        assert_eq!(bench::allowed_cpus().unwrap(), caller);
    }
}
