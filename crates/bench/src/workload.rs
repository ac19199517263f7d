//! Workloads: generators of `(offset, len, read|write)` with a stop condition, fed to an engine
//! at a queue depth, and told of every completion with its latency.
//!
//! A [`Job`] is one stream of I/O driven by one engine worker. Engines ask it for the next I/O
//! while they have a free slot and hand back each completion; the job decides when to stop by
//! returning `None`. Time comes from the engine (`now` since the start of the run) so that the
//! mock device can run the same job on virtual time, deterministically.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

use crate::cancel::CancelToken;
use crate::stats::LatencyHistogram;

/// The direction of one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Read,
    Write,
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Direction::Read => "read",
            Direction::Write => "write",
        })
    }
}

/// One I/O request: `len` bytes at byte `offset` of the target. Engines require `offset` and
/// `len` to be multiples of [`ALIGN`] (O_DIRECT) and `len <= EngineConfig::max_io_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Io {
    pub offset: u64,
    pub len: u32,
    pub direction: Direction,
}

/// Offset, length and buffer alignment O_DIRECT needs on every Linux file system and device.
pub const ALIGN: u64 = 4096;

/// One stream of I/O: what to issue next, what to do with each completion.
pub trait Job: Send {
    /// The next I/O to issue, or `None` to stop issuing (in-flight I/O still completes).
    fn next_io(&mut self, now: Duration) -> Option<Io>;

    /// Called before a write is submitted, with the buffer it will write; the default leaves
    /// the engine's random content.
    fn fill(&mut self, _io: &Io, _buf: &mut [u8]) {}

    /// Called for each completed I/O with its latency (submission to reaping), the time of
    /// completion and, for reads on real engines, the data read (empty on the mock device).
    fn complete(&mut self, io: &Io, latency: Duration, now: Duration, data: &[u8]);
}

/// When a job stops issuing I/O: whichever comes first.
#[derive(Debug, Clone)]
pub struct StopCondition {
    pub runtime: Duration,
    /// Stop after this many I/O have been issued (tests, and `--size`-bounded runs).
    pub max_ios: Option<u64>,
    pub cancel: CancelToken,
}

impl StopCondition {
    pub fn new(runtime: Duration, cancel: CancelToken) -> Self {
        StopCondition {
            runtime,
            max_ios: None,
            cancel,
        }
    }

    fn reached(&self, now: Duration, issued: u64) -> bool {
        now >= self.runtime
            || self.max_ios.is_some_and(|max| issued >= max)
            || self.cancel.is_cancelled()
    }
}

/// The seeded offset and direction sequence shared by every random workload, so that the same
/// seed gives the same sequence (fio's `randrepeat=1`).
#[derive(Debug, Clone)]
pub struct RandomPattern {
    rng: SmallRng,
    blocks: u64,
    block_size: u32,
    read_percent: u32,
}

impl RandomPattern {
    /// `span` is rounded down to whole blocks; it must hold at least one block.
    pub fn new(seed: u64, span: u64, block_size: u32, read_percent: u32) -> Self {
        let block_size = block_size.max(ALIGN as u32);
        RandomPattern {
            rng: SmallRng::seed_from_u64(seed),
            blocks: (span / u64::from(block_size)).max(1),
            block_size,
            read_percent: read_percent.min(100),
        }
    }

    pub fn next_io(&mut self) -> Io {
        // gen_range is unbiased (rejection sampling), which the uniformity test relies on.
        let block = self.rng.gen_range(0..self.blocks);
        let direction = if self.read_percent == 100
            || (self.read_percent > 0 && self.rng.gen_range(0..100) < self.read_percent)
        {
            Direction::Read
        } else {
            Direction::Write
        };
        Io {
            offset: block * u64::from(self.block_size),
            len: self.block_size,
            direction,
        }
    }
}

/// What a random job measured.
#[derive(Debug, Clone)]
pub struct IoStats {
    pub read: LatencyHistogram,
    pub write: LatencyHistogram,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Time of the last completion since the start: the measured runtime.
    pub elapsed: Duration,
}

impl IoStats {
    pub fn new() -> Self {
        IoStats {
            read: LatencyHistogram::new(),
            write: LatencyHistogram::new(),
            read_bytes: 0,
            write_bytes: 0,
            elapsed: Duration::ZERO,
        }
    }

    pub fn merge(&mut self, other: &IoStats) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.read_bytes += other.read_bytes;
        self.write_bytes += other.write_bytes;
        self.elapsed = self.elapsed.max(other.elapsed);
    }

    pub fn ios(&self) -> u64 {
        self.read.count() + self.write.count()
    }
}

impl Default for IoStats {
    fn default() -> Self {
        Self::new()
    }
}

/// Shared completion counter for progress display; updated in batches to stay off the hot path.
#[derive(Debug, Clone, Default)]
pub struct ProgressCounter(Arc<AtomicU64>);

impl ProgressCounter {
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

const PROGRESS_BATCH: u64 = 256;

/// Random I/O over a span: `qd1` (100 % reads) and `randrw` (75 % reads) are this job.
#[derive(Debug)]
pub struct RandomIoJob {
    pattern: RandomPattern,
    stop: StopCondition,
    issued: u64,
    unreported: u64,
    progress: ProgressCounter,
    pub stats: IoStats,
}

impl RandomIoJob {
    pub fn new(pattern: RandomPattern, stop: StopCondition, progress: ProgressCounter) -> Self {
        RandomIoJob {
            pattern,
            stop,
            issued: 0,
            unreported: 0,
            progress,
            stats: IoStats::new(),
        }
    }
}

impl Job for RandomIoJob {
    fn next_io(&mut self, now: Duration) -> Option<Io> {
        if self.stop.reached(now, self.issued) {
            return None;
        }
        self.issued += 1;
        Some(self.pattern.next_io())
    }

    fn complete(&mut self, io: &Io, latency: Duration, now: Duration, _data: &[u8]) {
        match io.direction {
            Direction::Read => {
                self.stats.read.record(latency);
                self.stats.read_bytes += u64::from(io.len);
            }
            Direction::Write => {
                self.stats.write.record(latency);
                self.stats.write_bytes += u64::from(io.len);
            }
        }
        self.stats.elapsed = now;
        self.unreported += 1;
        if self.unreported == PROGRESS_BATCH {
            self.progress.add(PROGRESS_BATCH);
            self.unreported = 0;
        }
    }
}

impl Drop for RandomIoJob {
    fn drop(&mut self) {
        self.progress.add(self.unreported);
    }
}

/// Writes `[start, end)` in `chunk`-sized pieces, every `stride`-th chunk starting at `first`,
/// with fresh incompressible, non-deduplicable content: the prefill of the test file.
#[derive(Debug)]
pub struct FillJob {
    next: u64,
    end: u64,
    chunk: u32,
    stride: u64,
    cancel: CancelToken,
    stamp: SmallRng,
    progress: ProgressCounter,
    pub written: u64,
}

impl FillJob {
    /// Job `index` of `jobs` filling `[0, size)`; `size` and `chunk` must be multiples of [`ALIGN`].
    pub fn new(
        size: u64,
        chunk: u32,
        index: u64,
        jobs: u64,
        seed: u64,
        cancel: CancelToken,
        progress: ProgressCounter,
    ) -> Self {
        FillJob {
            next: index * u64::from(chunk),
            end: size,
            chunk,
            stride: jobs.max(1) * u64::from(chunk),
            cancel,
            stamp: SmallRng::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            progress,
            written: 0,
        }
    }
}

impl Job for FillJob {
    fn next_io(&mut self, _now: Duration) -> Option<Io> {
        if self.next >= self.end || self.cancel.is_cancelled() {
            return None;
        }
        let len = (self.end - self.next).min(u64::from(self.chunk));
        let io = Io {
            offset: self.next,
            len: len as u32,
            direction: Direction::Write,
        };
        self.next += self.stride;
        Some(io)
    }

    fn fill(&mut self, io: &Io, buf: &mut [u8]) {
        // The buffers already hold random bytes; a random word at the head of every sector makes
        // each sector unique without regenerating megabytes per write, so neither compressing
        // nor deduplicating controllers can shortcut the later reads and writes.
        for (index, sector) in buf.chunks_mut(ALIGN as usize).enumerate() {
            let stamp = self.stamp.next_u64() ^ (io.offset + index as u64 * ALIGN);
            if let Some(head) = sector.get_mut(..8) {
                head.copy_from_slice(&stamp.to_le_bytes());
            }
        }
    }

    fn complete(&mut self, io: &Io, _latency: Duration, _now: Duration, _data: &[u8]) {
        self.written += u64::from(io.len);
        self.progress.add(u64::from(io.len));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPAN: u64 = 256 << 20;

    #[test]
    fn offsets_are_aligned_and_inside_the_span() {
        let mut pattern = RandomPattern::new(1, SPAN + 1234, 4096, 75);
        for _ in 0..200_000 {
            let io = pattern.next_io();
            assert_eq!(io.offset % ALIGN, 0);
            assert!(io.offset + u64::from(io.len) <= SPAN + 1234);
            assert_eq!(io.len, 4096);
        }
    }

    #[test]
    fn offsets_cover_the_span_uniformly() {
        // Chi-square over 64 equal buckets; for 63 degrees of freedom the 99.9th percentile is
        // about 103, so a uniform generator passes and a skewed one (say, half the span) fails.
        const BUCKETS: usize = 64;
        const DRAWS: usize = 640_000;
        let mut pattern = RandomPattern::new(7, SPAN, 4096, 75);
        let mut counts = [0u64; BUCKETS];
        for _ in 0..DRAWS {
            let io = pattern.next_io();
            counts[(io.offset * BUCKETS as u64 / SPAN) as usize] += 1;
        }
        let expected = DRAWS as f64 / BUCKETS as f64;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi2 < 103.0, "chi-square {chi2} over {BUCKETS} buckets");
        // And the extremes of the span are reachable.
        assert!(counts[0] > 0 && counts[BUCKETS - 1] > 0);
    }

    #[test]
    fn read_share_is_75_percent_over_a_long_run() {
        let mut pattern = RandomPattern::new(42, SPAN, 4096, 75);
        let draws = 1_000_000;
        let reads = (0..draws)
            .filter(|_| pattern.next_io().direction == Direction::Read)
            .count();
        let share = reads as f64 / draws as f64;
        assert!((share - 0.75).abs() <= 0.01, "read share {share}");
    }

    #[test]
    fn the_same_seed_gives_the_same_sequence() {
        let mut a = RandomPattern::new(99, SPAN, 4096, 75);
        let mut b = RandomPattern::new(99, SPAN, 4096, 75);
        let mut c = RandomPattern::new(100, SPAN, 4096, 75);
        let seq_a: Vec<Io> = (0..10_000).map(|_| a.next_io()).collect();
        let seq_b: Vec<Io> = (0..10_000).map(|_| b.next_io()).collect();
        let seq_c: Vec<Io> = (0..10_000).map(|_| c.next_io()).collect();
        assert_eq!(seq_a, seq_b);
        assert_ne!(seq_a, seq_c);
    }

    #[test]
    fn pure_read_and_pure_write_patterns() {
        let mut reads = RandomPattern::new(3, SPAN, 4096, 100);
        let mut writes = RandomPattern::new(3, SPAN, 4096, 0);
        assert!((0..10_000).all(|_| reads.next_io().direction == Direction::Read));
        assert!((0..10_000).all(|_| writes.next_io().direction == Direction::Write));
    }

    #[test]
    fn fill_jobs_cover_the_file_exactly_once() {
        let size = 10 * (1 << 20) + 3 * ALIGN;
        let jobs = 3;
        let mut seen = Vec::new();
        for index in 0..jobs {
            let mut job = FillJob::new(
                size,
                1 << 20,
                index,
                jobs,
                5,
                CancelToken::new(),
                ProgressCounter::default(),
            );
            while let Some(io) = job.next_io(Duration::ZERO) {
                seen.push((io.offset, io.len));
            }
        }
        seen.sort_unstable();
        let mut expected_offset = 0;
        for (offset, len) in seen {
            assert_eq!(offset, expected_offset);
            expected_offset += u64::from(len);
        }
        assert_eq!(expected_offset, size);
    }
}
