//! Latency statistics: an HDR histogram per direction, recorded per I/O in nanoseconds.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::report::LatencySummary;

/// Latencies above this are clamped: no storage request legitimately takes longer, and the
/// bound keeps the histogram small (about 100 KB with 3 significant figures).
const HIGHEST_NS: u64 = 100_000_000_000;

/// A per-I/O latency histogram with 3 significant figures (0.1 % resolution) from 1 ns to 100 s.
/// Counts are u32 per bucket: 4 billion I/O in one bucket is beyond any run, and it halves the
/// memory of the 64 per-thread histograms the portable engine keeps.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    histogram: Histogram<u32>,
    sum_ns: u128,
}

impl LatencyHistogram {
    pub fn new() -> Self {
        let histogram = Histogram::new_with_bounds(1, HIGHEST_NS, 3)
            .unwrap_or_else(|_| unreachable!("constant bounds are valid"));
        LatencyHistogram {
            histogram,
            sum_ns: 0,
        }
    }

    #[inline]
    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos())
            .unwrap_or(u64::MAX)
            .clamp(1, HIGHEST_NS);
        self.histogram.saturating_record(ns);
        self.sum_ns += u128::from(ns);
    }

    pub fn merge(&mut self, other: &LatencyHistogram) {
        // Both have identical bounds, so `add` cannot fail on range; saturate on the impossible.
        if self.histogram.add(&other.histogram).is_err() {
            for value in other.histogram.iter_recorded() {
                self.histogram
                    .saturating_record_n(value.value_iterated_to(), value.count_at_value());
            }
        }
        self.sum_ns += other.sum_ns;
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// Mean, percentiles and maximum in microseconds; all zero when nothing was recorded.
    pub fn summary_us(&self) -> LatencySummary {
        if self.histogram.is_empty() {
            return LatencySummary::default();
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        LatencySummary {
            mean: self.sum_ns as f64 / self.count() as f64 / 1000.0,
            p50: us(self.histogram.value_at_quantile(0.50)),
            p90: us(self.histogram.value_at_quantile(0.90)),
            p99: us(self.histogram.value_at_quantile(0.99)),
            p999: us(self.histogram.value_at_quantile(0.999)),
            max: us(self.histogram.max()),
        }
    }

    /// Latency at a quantile in `[0, 1]`.
    pub fn quantile(&self, quantile: f64) -> Duration {
        Duration::from_nanos(self.histogram.value_at_quantile(quantile.clamp(0.0, 1.0)))
    }
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_latencies() {
        let mut h = LatencyHistogram::new();
        for us in 1..=1000u64 {
            h.record(Duration::from_micros(us));
        }
        let s = h.summary_us();
        assert!((s.mean - 500.5).abs() < 0.01, "{s:?}");
        assert!((s.p50 - 500.0).abs() <= 0.5, "{s:?}");
        assert!((s.p90 - 900.0).abs() <= 0.9, "{s:?}");
        assert!((s.p99 - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.p999 - 999.0).abs() <= 1.0, "{s:?}");
        assert!((s.max - 1000.0).abs() <= 1.0, "{s:?}");
    }

    #[test]
    fn empty_and_extreme_values() {
        let mut h = LatencyHistogram::new();
        assert_eq!(h.summary_us(), LatencySummary::default());
        h.record(Duration::ZERO);
        h.record(Duration::from_secs(10_000));
        assert_eq!(h.count(), 2);
        assert!(h.summary_us().max <= HIGHEST_NS as f64 / 1000.0 * 1.001);
    }

    #[test]
    fn merge_adds_counts_and_sums() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        a.record(Duration::from_micros(100));
        b.record(Duration::from_micros(300));
        a.merge(&b);
        assert_eq!(a.count(), 2);
        assert!((a.summary_us().mean - 200.0).abs() < 0.01);
    }
}
