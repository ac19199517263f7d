//! `--test span`: QD1 random 4 KiB reads over growing spans of the test file. A drive that keeps
//! its whole mapping table in DRAM reads as fast from 1 GiB as from the whole file; a DRAM-less
//! drive needs an extra NAND read for every LBA whose mapping entry is not in its small cache,
//! so its latency climbs once the span outgrows what that cache covers.
//!
//! The test is one engine run of one QD1 job that moves to the next span when the current one
//! has its reads or its time is up, as its completions tell it.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::analysis;
use super::{BehaviourError, BehaviourTest, ProgressBoard, Session, SpanPoint, SpanResult};
use crate::progress::Phase;
use crate::stats::LatencyHistogram;
use crate::workload::{Direction, Io, Job, Next, ALIGN};

/// Parameters of the span test.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanPlan {
    pub min_span: u64,
    /// Each span is this many times the previous; the last is the whole file.
    pub growth: u64,
    pub reads_per_span: u64,
    /// A span ends after this long even if its reads are not done (slow drives).
    pub time_per_span: Duration,
    pub seed: u64,
}

impl Default for SpanPlan {
    fn default() -> Self {
        Self {
            min_span: 1 << 30,
            growth: 2,
            reads_per_span: 5000,
            time_per_span: Duration::from_secs(3),
            seed: 0x6e6f_6465_7370_616e,
        }
    }
}

/// The spans measured on a file of `size` bytes: `min_span`, growing, and the whole file.
pub fn spans(size: u64, plan: &SpanPlan) -> Vec<u64> {
    let size = size - size % 4096;
    let mut span = plan.min_span.clamp(4096, size.max(4096));
    span -= span % 4096;
    let mut out = vec![span];
    while span < size {
        span = span.saturating_mul(plan.growth.max(2)).min(size);
        span -= span % 4096;
        out.push(span);
    }
    out
}

/// The QD1 reader of the span test: each span in turn, until its reads are done or its time is
/// up.
struct SpanReader<'a> {
    plan: &'a SpanPlan,
    spans: Vec<u64>,
    board: &'a ProgressBoard,
    cancel: &'a (dyn Fn() -> bool + Sync),
    rng: SmallRng,
    /// The span being read (an index into `spans`), its reads so far and its deadline.
    current: Option<(usize, Duration)>,
    hist: LatencyHistogram<u64>,
    points: Vec<SpanPoint>,
    last: Duration,
    interrupted: bool,
}

impl SpanReader<'_> {
    fn begin(&mut self, index: usize, now: Duration) -> Option<u64> {
        let span = *self.spans.get(index)?;
        self.current = Some((index, now + self.plan.time_per_span));
        self.hist = analysis::read_latencies();
        self.board.post(
            now,
            format!("span {:.1} GiB", span as f64 / (1u64 << 30) as f64),
        );
        Some(span)
    }
}

impl Job for SpanReader<'_> {
    fn next_io(&mut self, now: Duration) -> Next {
        if (self.cancel)() {
            self.interrupted = true;
            return Next::Done;
        }
        let span = match self.current {
            None => self.begin(0, now),
            Some((index, deadline))
                if self.hist.count() >= self.plan.reads_per_span || now >= deadline =>
            {
                let span = self.spans[index];
                self.points.push(SpanPoint {
                    span_bytes: span,
                    ios: self.hist.count(),
                    lat_us: self.hist.summary_us(),
                });
                self.begin(index + 1, now)
            }
            Some((index, _)) => Some(self.spans[index]),
        };
        let Some(span) = span else {
            return Next::Done;
        };
        let offset = self.rng.gen_range(0..span / ALIGN) * ALIGN;
        Next::Io(Io {
            offset,
            len: ALIGN as u32,
            direction: Direction::Read,
        })
    }

    fn complete(&mut self, _io: &Io, latency: Duration, now: Duration, _data: &[u8]) {
        self.hist.record(latency);
        self.last = now;
    }
}

impl BehaviourTest for SpanPlan {
    type Measured = SpanResult;
    const PHASE: Phase = Phase::Span;

    fn expected_runtime(&self, size: u64) -> Duration {
        self.time_per_span * spans(size, self).len() as u32
    }

    /// Measures QD1 read latency over each span, telling `progress` the elapsed time and
    /// the span being read.
    fn run(&self, mut session: Session<'_>) -> Result<SpanResult, BehaviourError> {
        let size = session.device.size();
        if size < ALIGN {
            return Err(BehaviourError::FileTooSmall {
                size,
                needed: ALIGN,
            });
        }
        if self.reads_per_span == 0 {
            return Err(BehaviourError::InvalidPlan(
                "at least one read per span is needed".into(),
            ));
        }
        let engine = session.device.engine(ALIGN as u32);
        let board = ProgressBoard::default();
        let mut reader = SpanReader {
            plan: self,
            spans: spans(size, self),
            board: &board,
            cancel: session.cancel,
            rng: SmallRng::seed_from_u64(self.seed),
            current: None,
            hist: analysis::read_latencies(),
            points: Vec::new(),
            last: Duration::ZERO,
            interrupted: false,
        };
        session.run_jobs(&*engine, &mut [&mut reader], &[1], &board)?;
        if reader.interrupted {
            return Err(BehaviourError::Interrupted);
        }
        let points = reader.points;
        let (first, last) = match (points.first(), points.last()) {
            (Some(first), Some(last)) => (first.lat_us, last.lat_us),
            _ => Default::default(),
        };
        Ok(SpanResult {
            engine: engine.kind(),
            runtime_s: reader.last.as_secs_f64(),
            latency_ratio: analysis::latency_ratio(last.mean, first.mean),
            p99_ratio: analysis::latency_ratio(last.p99, first.p99),
            points,
        })
    }
}
