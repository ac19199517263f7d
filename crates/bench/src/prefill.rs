//! The prefill: every byte of the test file written once with incompressible, unique data
//! before anything is measured, so that no test reads unallocated blocks (which a drive
//! answers without touching flash) and no controller can compress or deduplicate the writes.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

use crate::cancel::CancelToken;
use crate::engine::{EngineChoice, Target, Work};
use crate::error::BenchError;
use crate::plan::Plan;
use crate::progress::{Phase, Progress};
use crate::testfile::TestFile;
use crate::workload::{Direction, Io, Job, Next, ProgressCounter, ALIGN};

/// The prefill writes in chunks this large…
pub const PREFILL_CHUNK: u32 = 1 << 20;
/// …this many at a time: enough to saturate any drive's sequential write, 4 MiB of buffers.
pub const PREFILL_QUEUE_DEPTH: u32 = 4;

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
    fn next_io(&mut self, _now: Duration) -> Next {
        if self.next >= self.end || self.cancel.is_cancelled() {
            return Next::Done;
        }
        let len = (self.end - self.next).min(u64::from(self.chunk));
        let io = Io {
            offset: self.next,
            len: len as u32,
            direction: Direction::Write,
        };
        self.next += self.stride;
        Next::Io(io)
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

/// Fills `file` through `target` (its descriptor, as the run set it up) with the plan's seed
/// and flushes it to stable storage, so that the measurement does not pay for the prefill.
/// Progress positions are bytes.
pub fn prefill(
    plan: &Plan,
    choice: &EngineChoice,
    file: &TestFile,
    target: Target,
    progress: &mut dyn Progress,
) -> Result<(), BenchError> {
    let engine = choice.engine(PREFILL_CHUNK);
    let (job_count, queue_depth) = engine.layout(PREFILL_QUEUE_DEPTH);
    let counter = ProgressCounter::default();
    let mut jobs: Vec<FillJob> = (0..u64::from(job_count))
        .map(|index| {
            FillJob::new(
                file.size(),
                PREFILL_CHUNK,
                index,
                u64::from(job_count),
                plan.seed,
                plan.cancel.clone(),
                counter.clone(),
            )
        })
        .collect();
    let mut job_refs: Vec<&mut dyn Job> = jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
    progress.start(Phase::Prefill, file.size());
    let started = Instant::now();
    let mut tick = || {
        let written = counter.get();
        progress.update(
            written,
            &units::rate::live_megabytes(written, started.elapsed().as_secs_f64()),
        );
    };
    let result = crate::engine::run(
        &*engine,
        Work::new(&target, queue_depth, &mut job_refs, &mut tick),
    );
    progress.finish(Phase::Prefill);
    plan.cancel.check()?;
    result?;
    target.sync_data()?;
    plan.cancel.check()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            while let Next::Io(io) = job.next_io(Duration::ZERO) {
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
