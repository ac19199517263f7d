//! `--test cliff`: sustained writes, first sequential over the test file and then random, with
//! throughput recorded per interval until it falls off the cliff where the drive's write cache
//! (SLC, on most consumer drives) is full. Stops as soon as the cliff is established: every
//! further gigabyte is wear and time for nothing.
//!
//! Writes overwrite the test file in place, so the file never grows past the size the
//! free-space reserve allowed when it was created; the byte budget bounds wear and time only.

use std::time::Duration;

use super::analysis::{self, CliffRule};
use super::{
    BehaviourError, BehaviourTest, CliffDrop, CliffResult, CliffStop, IntervalWrite, Session,
    ThroughputPoint, WritePattern,
};
use crate::progress::Phase;

/// Parameters of the cliff test.
#[derive(Debug, Clone, PartialEq)]
pub struct CliffPlan {
    pub interval: Duration,
    pub sequential_block: u32,
    pub random_block: u32,
    pub queue_depth: u32,
    /// Sequential writes until this many bytes, random after; `None` for one pass over the file.
    pub sequential_bytes: Option<u64>,
    /// Never write more than this in total.
    pub max_bytes: u64,
    pub max_runtime: Duration,
    pub rule: CliffRule,
    pub seed: u64,
    pub max_plot_points: usize,
}

impl Default for CliffPlan {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(1),
            sequential_block: 1 << 20,
            random_block: 128 << 10,
            queue_depth: 8,
            sequential_bytes: None,
            max_bytes: 1 << 40,
            max_runtime: Duration::from_secs(30 * 60),
            rule: CliffRule::default(),
            seed: 0x6e6f_6465_636c_6966,
            max_plot_points: 4000,
        }
    }
}

impl BehaviourTest for CliffPlan {
    type Measured = CliffResult;
    const PHASE: Phase = Phase::Cliff;

    fn expected_runtime(&self, _size: u64) -> Duration {
        self.max_runtime
    }

    /// Writes until the cliff is established, the budget is spent or the runtime is over,
    /// telling `progress` the elapsed time, throughput and bytes after each interval.
    fn run(&self, session: Session<'_>) -> Result<CliffResult, BehaviourError> {
        let size = session.device.size();
        let largest_block = u64::from(self.sequential_block.max(self.random_block));
        if !self.sequential_block.is_multiple_of(4096)
            || !self.random_block.is_multiple_of(4096)
            || largest_block == 0
        {
            return Err(BehaviourError::InvalidPlan(
                "cliff block sizes must be positive multiples of 4 KiB".into(),
            ));
        }
        if self.interval.is_zero() || self.queue_depth == 0 {
            return Err(BehaviourError::InvalidPlan(
                "the interval and queue depth must be positive".into(),
            ));
        }
        if size < largest_block {
            return Err(BehaviourError::FileTooSmall {
                size,
                needed: largest_block,
            });
        }
        let sequential_bytes = self.sequential_bytes.unwrap_or(size);
        let began = session.device.elapsed();
        let mut written = 0u64;
        let mut cursor = 0u64;
        let mut samples: Vec<ThroughputPoint> = Vec::new();
        let mut mb_s: Vec<f64> = Vec::new();
        let stop = loop {
            if (session.cancel)() {
                return Err(BehaviourError::Interrupted);
            }
            if written >= self.max_bytes {
                break CliffStop::ByteBudget;
            }
            if session.device.elapsed().saturating_sub(began) >= self.max_runtime {
                break CliffStop::Runtime;
            }
            let (pattern, block) = if written < sequential_bytes {
                (WritePattern::Sequential, self.sequential_block)
            } else {
                (WritePattern::Random, self.random_block)
            };
            let start = session.device.elapsed();
            let bytes = session.device.write_for(
                &IntervalWrite {
                    interval: self.interval,
                    pattern,
                    block,
                    queue_depth: self.queue_depth,
                    limit_bytes: self.max_bytes - written,
                    seed: self.seed.wrapping_add(samples.len() as u64),
                },
                &mut cursor,
            )?;
            let end = session.device.elapsed();
            written += bytes;
            let rate = analysis::mb_per_s(bytes, end.saturating_sub(start));
            mb_s.push(rate);
            samples.push(ThroughputPoint {
                t_s: end.saturating_sub(began).as_secs_f64(),
                written_bytes: written,
                mb_s: rate,
                pattern,
            });
            (session.progress)(
                end.saturating_sub(began),
                &format!("{rate:.0} MB/s, {:.1} GB written", written as f64 / 1e9),
            );
            if analysis::detect_cliff(&mb_s, &self.rule)
                .cliff_index
                .is_some()
            {
                break CliffStop::CliffEstablished;
            }
        };
        let found = analysis::detect_cliff(&mb_s, &self.rule);
        let cache_estimate = found.cliff_index.map(|i| match i {
            0 => 0,
            _ => samples[i - 1].written_bytes,
        });
        Ok(CliffResult {
            engine: session.device.engine(),
            runtime_s: session.device.elapsed().saturating_sub(began).as_secs_f64(),
            written_bytes: written,
            span_bytes: size,
            sequential_block: self.sequential_block,
            random_block: self.random_block,
            queue_depth: self.queue_depth,
            drop: CliffDrop {
                pre_cliff_mb_s: found.pre_mb_s,
                cache_estimate_bytes: cache_estimate,
                cliff_at_s: found.cliff_index.map(|i| samples[i].t_s),
                post_cliff_mb_s: found.post_mb_s,
            },
            stop,
            samples: analysis::thin(&samples, self.max_plot_points),
        })
    }
}
