//! Random I/O over a span at a queue depth, timed per request: the QD1 test is this at depth
//! 1 with reads only ([`crate::qd1`]), randrw at depth 64 with 75 % reads ([`crate::randrw`]).

use std::ops::Range;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::cancel::CancelToken;
use crate::engine::{Engine, Target, Work};
use crate::error::BenchError;
use crate::plan::Plan;
use crate::progress::{Phase, Progress};
use crate::workload::{Direction, Io, IoStats, Job, Next, ProgressCounter, StopCondition, ALIGN};

/// The seeded offset and direction sequence shared by every random workload, so that the same
/// seed gives the same sequence (fio's `randrepeat=1`).
#[derive(Debug, Clone)]
pub struct RandomPattern {
    rng: SmallRng,
    blocks: u64,
    block_size: u32,
    read_percent: u32,
    /// Offsets only inside these ranges ([`RandomPattern::within`]); empty: the whole span.
    ranges: Vec<BlockRange>,
}

/// A byte range of whole blocks and the number of blocks in the ranges before it, so that a
/// block number drawn over all ranges finds its range by binary search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BlockRange {
    start: u64,
    blocks_before: u64,
}

/// The whole blocks of `ranges` inside `[0, len)`: each start rounded up and each end down to
/// `block_size`, empty and out-of-bounds pieces dropped, in the order given.
pub fn aligned_ranges(ranges: &[Range<u64>], len: u64, block_size: u32) -> Vec<Range<u64>> {
    let block = u64::from(block_size.max(ALIGN as u32));
    ranges
        .iter()
        .filter_map(|range| {
            let start = range.start.checked_next_multiple_of(block)?;
            let end = range.end.min(len) / block * block;
            (start < end).then_some(start..end)
        })
        .collect()
}

/// Bytes in `ranges` (they are taken as disjoint).
pub fn ranges_bytes(ranges: &[Range<u64>]) -> u64 {
    ranges
        .iter()
        .map(|range| range.end.saturating_sub(range.start))
        .fold(0, u64::saturating_add)
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
            ranges: Vec::new(),
        }
    }

    /// Offsets drawn only from the whole blocks of `ranges` (byte ranges of the target, the
    /// extents that hold data), every block equally likely. `None` when no whole block is in
    /// them.
    pub fn within(
        seed: u64,
        ranges: &[Range<u64>],
        len: u64,
        block_size: u32,
        read_percent: u32,
    ) -> Option<Self> {
        let mut pattern = RandomPattern::new(seed, len, block_size, read_percent);
        let block = u64::from(pattern.block_size);
        let mut blocks = 0u64;
        for range in aligned_ranges(ranges, len, pattern.block_size) {
            pattern.ranges.push(BlockRange {
                start: range.start,
                blocks_before: blocks,
            });
            blocks += (range.end - range.start) / block;
        }
        if blocks == 0 {
            return None;
        }
        pattern.blocks = blocks;
        Some(pattern)
    }

    pub fn next_io(&mut self) -> Io {
        // gen_range is unbiased (rejection sampling), which the uniformity test relies on.
        let block = self.rng.gen_range(0..self.blocks);
        let offset = match self.ranges.partition_point(|r| r.blocks_before <= block) {
            0 => block * u64::from(self.block_size),
            index => {
                let range = self.ranges[index - 1];
                range.start + (block - range.blocks_before) * u64::from(self.block_size)
            }
        };
        let direction = if self.read_percent == 100
            || (self.read_percent > 0 && self.rng.gen_range(0..100) < self.read_percent)
        {
            Direction::Read
        } else {
            Direction::Write
        };
        Io {
            offset,
            len: self.block_size,
            direction,
        }
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
    fn next_io(&mut self, now: Duration) -> Next {
        if self.stop.reached(now, self.issued) {
            return Next::Done;
        }
        self.issued += 1;
        Next::Io(self.pattern.next_io())
    }

    fn timed_through_submit(&mut self, _io: &Io) {
        self.stats.timed_through_submit += 1;
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
            // The random pattern issues no syncs.
            Direction::Sync => {}
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

/// One random workload as a test asks for it.
#[derive(Debug, Clone)]
pub struct RandomWorkload {
    pub queue_depth: u32,
    pub read_percent: u32,
    pub block_size: u32,
    pub runtime: Duration,
    /// Job `i` draws its offsets from `seed + i`.
    pub seed: u64,
    pub cancel: CancelToken,
    /// Draw offsets only inside these byte ranges of the target (the QD1 test on the data
    /// of a device, [`Plan::qd1_ranges`]); `None`: anywhere in it.
    pub ranges: Option<Vec<Range<u64>>>,
}

impl RandomWorkload {
    /// The plan's block size, runtime, seed and cancellation at this depth and read share.
    pub fn of(plan: &Plan, queue_depth: u32, read_percent: u32) -> Self {
        RandomWorkload {
            queue_depth,
            read_percent,
            block_size: plan.random.block_size,
            runtime: plan.runtime,
            seed: plan.seed,
            cancel: plan.cancel.clone(),
            ranges: None,
        }
    }
}

/// Runs `workload` on `target` and merges what its jobs measured. Progress positions are
/// milliseconds of the runtime.
pub fn measure(
    workload: &RandomWorkload,
    engine: &dyn Engine,
    target: &Target,
    phase: Phase,
    progress: &mut dyn Progress,
) -> Result<IoStats, BenchError> {
    let (job_count, per_job_depth) = engine.layout(workload.queue_depth);
    let counter = ProgressCounter::default();
    let pattern = |seed: u64| match &workload.ranges {
        None => Ok(RandomPattern::new(
            seed,
            target.len(),
            workload.block_size,
            workload.read_percent,
        )),
        Some(ranges) => RandomPattern::within(
            seed,
            ranges,
            target.len(),
            workload.block_size,
            workload.read_percent,
        )
        .ok_or_else(|| {
            BenchError::InvalidPlan(format!(
                "no whole {}-byte block of the target lies in the ranges to read",
                workload.block_size
            ))
        }),
    };
    let mut jobs: Vec<RandomIoJob> = (0..u64::from(job_count))
        .map(|index| {
            Ok(RandomIoJob::new(
                pattern(workload.seed.wrapping_add(index))?,
                StopCondition::new(workload.runtime, workload.cancel.clone()),
                counter.clone(),
            ))
        })
        .collect::<Result<_, BenchError>>()?;
    let mut job_refs: Vec<&mut dyn Job> = jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
    let total_ms = u64::try_from(workload.runtime.as_millis()).unwrap_or(u64::MAX);
    progress.start(phase, total_ms);
    let started = Instant::now();
    let mut tick = || {
        let elapsed = started.elapsed();
        progress.update(
            u64::try_from(elapsed.as_millis())
                .unwrap_or(u64::MAX)
                .min(total_ms),
            &units::rate::live_iops(counter.get(), elapsed.as_secs_f64()),
        );
    };
    let result = crate::engine::run(
        engine,
        Work::new(target, per_job_depth, &mut job_refs, &mut tick),
    );
    progress.finish(phase);
    drop(job_refs);
    workload.cancel.check()?;
    result?;
    let mut stats = IoStats::new();
    for job in &jobs {
        stats.merge(&job.stats);
    }
    Ok(stats)
}

/// `count` per second, 0 for a zero or negative duration.
pub(crate) fn per_second(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
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
    fn offsets_within_ranges_stay_inside_them_and_cover_each_in_proportion() {
        // A 4 MiB and a 12 MiB extent with unaligned ends, and one past the end of the target.
        let ranges = [
            (1 << 20) + 100..(5 << 20) + 7,
            (64 << 20)..(76 << 20),
            SPAN..SPAN + (8 << 20),
        ];
        let mut pattern =
            RandomPattern::within(5, &ranges, SPAN, 4096, 100).expect("whole blocks inside");
        let (mut first, mut second) = (0u64, 0u64);
        let draws = 160_000;
        for _ in 0..draws {
            let io = pattern.next_io();
            assert_eq!(io.offset % 4096, 0);
            let end = io.offset + u64::from(io.len);
            if io.offset >= (1 << 20) + 4096 && end <= 5 << 20 {
                first += 1;
            } else if io.offset >= 64 << 20 && end <= 76 << 20 {
                second += 1;
            } else {
                panic!("offset {} outside every range", io.offset);
            }
        }
        // 1023 of 4095 blocks are in the first range.
        let share = first as f64 / draws as f64;
        assert!(
            (share - 1023.0 / 4095.0).abs() < 0.01,
            "first share {share}"
        );
        assert_eq!(first + second, draws);
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)] // one byte range of a target, as meant
    fn ranges_without_a_whole_block_give_no_pattern() {
        assert!(RandomPattern::within(1, &[100..4000], SPAN, 4096, 100).is_none());
        assert!(RandomPattern::within(1, &[SPAN..SPAN + 8192], SPAN, 4096, 100).is_none());
        assert!(RandomPattern::within(1, &[], SPAN, 4096, 100).is_none());
        assert_eq!(
            ranges_bytes(&aligned_ranges(&[0..10_000], SPAN, 4096)),
            8192
        );
    }

    #[test]
    fn pure_read_and_pure_write_patterns() {
        let mut reads = RandomPattern::new(3, SPAN, 4096, 100);
        let mut writes = RandomPattern::new(3, SPAN, 4096, 0);
        assert!((0..10_000).all(|_| reads.next_io().direction == Direction::Read));
        assert!((0..10_000).all(|_| writes.next_io().direction == Direction::Write));
    }
}
