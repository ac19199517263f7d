//! The QD1 test: 4 KiB random reads one at a time over the test file (or, read-only, a whole
//! device). A client waits for every state read it cannot batch, so this latency, not
//! bandwidth, is what decides whether a node keeps up with the chain.

use serde::{Deserialize, Serialize};

use crate::affinity::Placement;
use crate::engine::EngineKind;
use crate::plan::Plan;
#[cfg(doc)]
use crate::progress::Phase;
use crate::random::{per_second, RandomWorkload};
use crate::stats::LatencySummary;
use crate::workload::IoStats;

/// QD1 4 KiB random reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Qd1Result {
    pub iops: f64,
    pub lat_us: LatencySummary,
    pub ios: u64,
    pub runtime_s: f64,
    /// Bytes the random offsets were drawn from.
    pub span_bytes: u64,
    /// `file` (a test file nodecheck created) or `device` (read-only on the raw device).
    pub target: String,
    pub engine: EngineKind,
    /// The CPUs the QD1 worker ran on.
    #[serde(flatten)]
    pub placement: Placement,
    /// Which blocks the reads were drawn from and why; absent in reports from before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_span: Option<ReadSpan>,
    /// Reads that completed inside the `io_uring_enter` that submitted them (the device's whole
    /// time fell inside the call), timed from before the call, as fio's `lat` is; the others
    /// are timed from its return (fio's `clat`). Absent when none did.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reads_timed_through_submit: u64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// Which blocks a QD1 run read. A drive answers a read of a block that was never written (or
/// was discarded) from its mapping table without touching flash, so only reads of written
/// blocks measure the drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadSpan {
    pub kind: ReadSpanKind,
    /// Why these blocks (`datadir holds 212 GiB in 1,804 extents`, `too little data ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "snake_case")]
pub enum ReadSpanKind {
    /// The test file, written in full with incompressible data before the reads.
    TestFile,
    /// Only the extents of files already on the file system, mapped to the device.
    DataExtents,
    /// Anywhere on the device, never-written blocks included.
    WholeDevice,
}

impl ReadSpanKind {
    /// Whether every read hit a block that holds written data.
    pub fn hits_data(self) -> bool {
        !matches!(self, ReadSpanKind::WholeDevice)
    }
}

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
        reads_timed_through_submit: stats.timed_through_submit,
    }
}
