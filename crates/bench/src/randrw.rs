//! The randrw test: the community's fio job (4 KiB random reads and writes, 75/25, queue depth
//! 64, O_DIRECT over a 150 GiB file), so that a drive's figure compares with the published
//! list of drives that did or did not keep up with a sync.

use serde::{Deserialize, Serialize};

use crate::affinity::Placement;
use crate::engine::EngineKind;
use crate::error::ByteSize;
use crate::plan::Plan;
#[cfg(doc)]
use crate::progress::Phase;
use crate::random::{per_second, RandomWorkload};
use crate::stats::LatencySummary;
use crate::testfile::COMMUNITY_SIZE;
use crate::workload::IoStats;

/// The community's fio test: 4 KiB randrw 75/25 at QD64, O_DIRECT.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RandRwResult {
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_bw_bytes_per_s: f64,
    pub write_bw_bytes_per_s: f64,
    pub read_lat_us: LatencySummary,
    pub write_lat_us: LatencySummary,
    pub read_ios: u64,
    pub write_ios: u64,
    pub span_bytes: u64,
    pub runtime_s: f64,
    pub queue_depth: u32,
    pub block_size: u32,
    pub seed: u64,
    pub engine: EngineKind,
    /// The span was the community's 150 GiB (or more), so the figure compares with the list.
    pub fio_comparable: bool,
    /// The CPUs the randrw worker ran on.
    #[serde(flatten)]
    pub placement: Placement,
}

/// The randrw test of `plan` (its queue depth and read share), for
/// [`crate::random::measure`] on [`Phase::RandRw`].
pub fn workload(plan: &Plan) -> RandomWorkload {
    RandomWorkload::of(plan, plan.random.queue_depth, plan.random.read_percent)
}

/// Why a figure measured over `span` bytes does not compare with the community's list, if it
/// does not: random writes over a smaller file hit the drive's caches more often.
pub fn comparability_warning(span: u64) -> Option<String> {
    (span < COMMUNITY_SIZE).then(|| {
        format!(
            "randrw span {} < {}: less comparable with the community's fio figures",
            ByteSize(span),
            ByteSize(COMMUNITY_SIZE)
        )
    })
}

/// randrw figures from the merged statistics.
pub fn result(plan: &Plan, stats: &IoStats, span: u64, engine: EngineKind) -> RandRwResult {
    let seconds = stats.elapsed.as_secs_f64();
    RandRwResult {
        read_iops: per_second(stats.read.count(), seconds),
        write_iops: per_second(stats.write.count(), seconds),
        read_bw_bytes_per_s: per_second(stats.read_bytes, seconds),
        write_bw_bytes_per_s: per_second(stats.write_bytes, seconds),
        read_lat_us: stats.read.summary_us(),
        write_lat_us: stats.write.summary_us(),
        read_ios: stats.read.count(),
        write_ios: stats.write.count(),
        span_bytes: span,
        runtime_s: seconds,
        queue_depth: plan.random.queue_depth,
        block_size: plan.random.block_size,
        seed: plan.seed,
        engine,
        fio_comparable: span >= COMMUNITY_SIZE,
        placement: Placement::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_span_under_the_community_file_is_less_comparable() {
        assert_eq!(comparability_warning(COMMUNITY_SIZE), None);
        let warning = comparability_warning(1 << 30).expect("a 1 GiB span");
        assert!(warning.contains("1.0 GiB < 150.0 GiB"), "{warning}");
    }
}
