//! Rates: operations and bytes per second.

/// IOPS as the community's list writes them: `68k`, `1.5k`, `950`; `n/a` when not measured.
pub fn iops(per_second: f64) -> String {
    if !per_second.is_finite() {
        "n/a".to_owned()
    } else if per_second >= 10_000.0 {
        format!("{:.0}k", per_second / 1000.0)
    } else if per_second >= 1000.0 {
        format!("{:.1}k", per_second / 1000.0)
    } else {
        format!("{per_second:.0}")
    }
}

/// Operations per second of a running measurement, for a progress line: `10450 IOPS`.
pub fn live_iops(operations: u64, seconds: f64) -> String {
    format!("{:.0} IOPS", per_second(operations as f64, seconds))
}

/// Throughput of a running measurement, for a progress line: `512 MB/s` (decimal, as drives
/// state their speeds).
pub fn live_megabytes(bytes: u64, seconds: f64) -> String {
    format!("{:.0} MB/s", per_second(bytes as f64, seconds) / 1e6)
}

/// `count / seconds`, with the first millisecond counted as a millisecond so that a rate at
/// the very start of a run is large rather than infinite.
fn per_second(count: f64, seconds: f64) -> f64 {
    count / seconds.max(1e-3)
}
