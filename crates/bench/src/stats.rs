//! Latency statistics: an HDR histogram of latencies recorded in nanoseconds, per I/O for the
//! random tests and per read sample for the behaviour tests.

use std::time::Duration;

use hdrhistogram::{Counter, Histogram};

use serde::{Deserialize, Serialize};

/// Latency distribution in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct LatencySummary {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

/// Latencies above this are clamped in the per-I/O histograms: no storage request legitimately
/// takes longer, and the bound keeps the histogram small (about 100 KB with 3 significant figures).
const HIGHEST_NS: u64 = 100_000_000_000;

/// Where a histogram's mean comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mean {
    /// The exact mean of the recorded latencies, from their running sum.
    Exact,
    /// The histogram's own mean over its buckets (within their 0.1 % resolution).
    Buckets,
}

/// A latency histogram with 3 significant figures (0.1 % resolution) from 1 ns to an upper
/// bound, that never fails to record: values outside its range are clamped, because one
/// pathological stall must not abort a measurement. [`LatencyHistogram::new`] is the per-I/O
/// one: up to 100 s, counts u32 per bucket (4 billion I/O in one bucket is beyond any run, and it
/// halves the memory of the 64 per-thread histograms the portable engine keeps), exact mean.
#[derive(Debug, Clone)]
pub struct LatencyHistogram<C: Counter = u32> {
    histogram: Histogram<C>,
    sum_ns: u128,
    mean: Mean,
}

impl LatencyHistogram {
    pub fn new() -> Self {
        LatencyHistogram::with_bounds(Duration::from_nanos(HIGHEST_NS), Mean::Exact)
    }
}

impl<C: Counter> LatencyHistogram<C> {
    /// Records latencies up to `highest` (at least 1 ns) and reports the `mean` asked for.
    pub fn with_bounds(highest: Duration, mean: Mean) -> Self {
        let highest_ns = u64::try_from(highest.as_nanos()).unwrap_or(u64::MAX).max(2);
        // The bounds are at least 1 and 2 with 3 significant figures, which hdrhistogram
        // accepts; failure would be a bug in this file, not a property of the input.
        let histogram = Histogram::new_with_bounds(1, highest_ns, 3)
            .unwrap_or_else(|_| unreachable!("valid histogram bounds"));
        LatencyHistogram {
            histogram,
            sum_ns: 0,
            mean,
        }
    }

    #[inline]
    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos())
            .unwrap_or(u64::MAX)
            .clamp(1, self.histogram.high());
        self.histogram.saturating_record(ns);
        self.sum_ns += u128::from(ns);
    }

    pub fn merge(&mut self, other: &LatencyHistogram<C>) {
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
        let mean_ns = match self.mean {
            Mean::Exact => self.sum_ns as f64 / self.count() as f64,
            Mean::Buckets => self.histogram.mean(),
        };
        LatencySummary {
            mean: mean_ns / 1000.0,
            p50: self.quantile_us(0.50),
            p90: self.quantile_us(0.90),
            p99: self.quantile_us(0.99),
            p999: self.quantile_us(0.999),
            max: self.histogram.max() as f64 / 1000.0,
        }
    }

    /// Latency at a quantile in `[0, 1]`, in microseconds; zero when nothing was recorded.
    pub fn quantile_us(&self, quantile: f64) -> f64 {
        if self.histogram.is_empty() {
            return 0.0;
        }
        self.histogram.value_at_quantile(quantile.clamp(0.0, 1.0)) as f64 / 1000.0
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
