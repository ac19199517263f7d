//! `--test span`: QD1 random 4 KiB reads over growing spans of the test file. A drive that keeps
//! its whole mapping table in DRAM reads as fast from 1 GiB as from the whole file; a DRAM-less
//! drive needs an extra NAND read for every LBA whose mapping entry is not in its small cache,
//! so its latency climbs once the span outgrows what that cache covers.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::analysis;
use super::{BehaviourError, BehaviourTest, Session, SpanPoint, SpanResult};
use crate::progress::Phase;

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

impl BehaviourTest for SpanPlan {
    type Measured = SpanResult;
    const PHASE: Phase = Phase::Span;

    fn expected_runtime(&self, size: u64) -> Duration {
        self.time_per_span * spans(size, self).len() as u32
    }

    /// Measures QD1 read latency over each span, telling `progress` the elapsed time and
    /// the span being read.
    fn run(&self, session: Session<'_>) -> Result<SpanResult, BehaviourError> {
        let size = session.device.size();
        if size < 4096 {
            return Err(BehaviourError::FileTooSmall { size, needed: 4096 });
        }
        if self.reads_per_span == 0 {
            return Err(BehaviourError::InvalidPlan(
                "at least one read per span is needed".into(),
            ));
        }
        let began = session.device.elapsed();
        let mut rng = SmallRng::seed_from_u64(self.seed);
        let mut points = Vec::new();
        for span in spans(size, self) {
            (session.progress)(
                session.device.elapsed().saturating_sub(began),
                &format!("span {:.1} GiB", span as f64 / (1u64 << 30) as f64),
            );
            let mut hist = analysis::read_latencies();
            let deadline = session.device.elapsed() + self.time_per_span;
            let slots = span / 4096;
            while hist.count() < self.reads_per_span && session.device.elapsed() < deadline {
                if (session.cancel)() {
                    return Err(BehaviourError::Interrupted);
                }
                let offset = rng.gen_range(0..slots) * 4096;
                hist.record(session.device.read_qd1(offset)?);
            }
            points.push(SpanPoint {
                span_bytes: span,
                ios: hist.count(),
                lat_us: hist.summary_us(),
            });
        }
        let (first, last) = match (points.first(), points.last()) {
            (Some(first), Some(last)) => (first.lat_us, last.lat_us),
            _ => Default::default(),
        };
        Ok(SpanResult {
            engine: session.device.engine(),
            runtime_s: session.device.elapsed().saturating_sub(began).as_secs_f64(),
            latency_ratio: analysis::latency_ratio(last.mean, first.mean),
            p99_ratio: analysis::latency_ratio(last.p99, first.p99),
            points,
        })
    }
}
