//! The QD1 test: 4 KiB random reads one at a time over the test file (or, read-only, a whole
//! device). A client waits for every state read it cannot batch, so this latency, not
//! bandwidth, is what decides whether a node keeps up with the chain.

use crate::plan::Plan;
#[cfg(doc)]
use crate::progress::Phase;
use crate::random::{per_second, RandomWorkload};
use crate::report::{EngineKind, Placement, Qd1Result};
use crate::workload::IoStats;

/// One request in flight at a time…
pub const QUEUE_DEPTH: u32 = 1;
/// …and all of them reads.
pub const READ_PERCENT: u32 = 100;

/// The QD1 test of `plan`, for [`crate::random::measure`] on [`Phase::Qd1`].
pub fn workload(plan: &Plan) -> RandomWorkload {
    RandomWorkload {
        ranges: plan.qd1_ranges.clone(),
        ..RandomWorkload::of(plan, QUEUE_DEPTH, READ_PERCENT)
    }
}

/// QD1 figures from the merged statistics; `span` is the bytes the offsets were drawn from.
pub fn result(stats: &IoStats, span: u64, target: &str, engine: EngineKind) -> Qd1Result {
    let seconds = stats.elapsed.as_secs_f64();
    Qd1Result {
        iops: per_second(stats.read.count(), seconds),
        lat_us: stats.read.summary_us(),
        ios: stats.read.count(),
        runtime_s: seconds,
        span_bytes: span,
        target: target.to_string(),
        engine,
        placement: Placement::default(),
        read_span: None,
    }
}
