//! Pure decisions over time series: latency summaries, when reads have recovered from a write
//! burst, where sustained-write throughput falls off a cliff, and how latency grows with span.
//! Nothing here does I/O or reads a clock, so every rule is tested on constructed series.

use std::collections::VecDeque;
use std::time::Duration;

use crate::stats::{LatencyHistogram, Mean};

/// Read samples are recorded in nanoseconds up to a minute, with three significant digits.
const READ_LATENCY_MAX: Duration = Duration::from_secs(60);

/// A histogram of the behaviour tests' read samples: up to a minute, u64 counts, and the mean
/// over its buckets.
pub fn read_latencies() -> LatencyHistogram<u64> {
    LatencyHistogram::with_bounds(READ_LATENCY_MAX, Mean::Buckets)
}

/// Median of a slice; `None` when it is empty. NaNs sort last and so do not pull it around.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// Decides, read by read, when latency is back to baseline after a burst.
///
/// Recovered means: over a window of the last `window` reads, p99 is within `tolerance` of the
/// baseline p99. p99 of a window is at most the threshold exactly when no more than
/// `floor(window / 100)` of its reads exceed it, so the tracker only counts exceedances and
/// costs O(1) per read, which keeps the reader's own overhead out of the measurement.
/// The recovery time is from the end of the burst to the first read of the first window that
/// qualifies: from that read on, latency was back.
#[derive(Debug, Clone)]
pub struct RecoveryTracker {
    threshold_us: f64,
    window: usize,
    allowed_over: usize,
    recent: VecDeque<(Duration, bool)>,
    over: usize,
    burst_end: Duration,
}

impl RecoveryTracker {
    pub fn new(baseline_p99_us: f64, tolerance: f64, window: usize, burst_end: Duration) -> Self {
        let window = window.max(1);
        Self {
            threshold_us: baseline_p99_us * (1.0 + tolerance),
            window,
            allowed_over: window / 100,
            recent: VecDeque::with_capacity(window),
            over: 0,
            burst_end,
        }
    }

    pub fn threshold_us(&self) -> f64 {
        self.threshold_us
    }

    /// Feeds one read that started at `t` (since the start of the test). Returns the recovery
    /// time once the window qualifies.
    pub fn push(&mut self, t: Duration, latency_us: f64) -> Option<Duration> {
        let exceeded = latency_us > self.threshold_us;
        self.recent.push_back((t, exceeded));
        if exceeded {
            self.over += 1;
        }
        if self.recent.len() > self.window {
            if let Some((_, was_over)) = self.recent.pop_front() {
                if was_over {
                    self.over -= 1;
                }
            }
        }
        if self.recent.len() == self.window && self.over <= self.allowed_over {
            let first = self.recent.front().map_or(t, |(start, _)| *start);
            return Some(first.saturating_sub(self.burst_end));
        }
        None
    }
}

/// How the cliff detector decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CliffRule {
    /// Throughput is smoothed with a running median over this many intervals so that one slow
    /// interval (a garbage-collection pause, a journal commit) is not a cliff.
    pub smoothing: usize,
    /// A cliff is a fall of the smoothed throughput below this fraction of the best level seen.
    pub drop_ratio: f64,
    /// ... that then holds for this many intervals.
    pub confirm_intervals: usize,
}

impl Default for CliffRule {
    fn default() -> Self {
        Self {
            smoothing: 5,
            drop_ratio: 0.5,
            confirm_intervals: 10,
        }
    }
}

/// What the throughput series shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CliffAnalysis {
    /// Median throughput of the intervals before the drop, or of all when there was none.
    pub pre_mb_s: f64,
    /// Index of the first interval below the drop line, when a cliff is established.
    pub cliff_index: Option<usize>,
    /// Median throughput from the interval after the cliff on.
    pub post_mb_s: Option<f64>,
}

/// Looks for an established cliff in per-interval throughput (MB/s, in time order).
///
/// The reference level is the best smoothed throughput before the drop, so a drive that ramps
/// up over its first seconds is judged against its cache speed and not its start. The cliff
/// interval is the first raw interval below the drop line inside the run of smoothed values
/// below it; the interval at the cliff is usually half fast and half slow, so the post-cliff
/// figure starts one interval later.
pub fn detect_cliff(mb_s: &[f64], rule: &CliffRule) -> CliffAnalysis {
    let smoothing = rule.smoothing.max(1);
    let confirm = rule.confirm_intervals.max(1);
    let smoothed: Vec<f64> = (0..mb_s.len())
        .map(|i| {
            let start = (i + 1).saturating_sub(smoothing);
            median(&mb_s[start..=i]).unwrap_or(0.0)
        })
        .collect();
    let mut best = 0.0_f64;
    let mut cliff: Option<usize> = None;
    for (i, &level) in smoothed.iter().enumerate() {
        let line = best * rule.drop_ratio;
        if best > 0.0 && level < line {
            // The smoothed value lags; the drop began at the first raw interval below the line
            // within the smoothing window.
            let window_start = (i + 1).saturating_sub(smoothing);
            let first_raw = (window_start..=i).find(|&j| mb_s[j] < line).unwrap_or(i);
            let after = &smoothed[i..];
            let held = after.len() >= confirm && after[..confirm].iter().all(|&v| v < line);
            if held {
                cliff = Some(first_raw);
                break;
            }
        } else {
            best = best.max(level);
        }
    }
    match cliff {
        Some(index) => {
            let pre = median(&mb_s[..index]).unwrap_or(0.0);
            let post = median(&mb_s[(index + 1).min(mb_s.len())..]);
            CliffAnalysis {
                pre_mb_s: pre,
                cliff_index: Some(index),
                post_mb_s: post,
            }
        }
        None => CliffAnalysis {
            pre_mb_s: median(mb_s).unwrap_or(0.0),
            cliff_index: None,
            post_mb_s: None,
        },
    }
}

/// Ratio of two latencies, guarded against an empty or zero denominator.
pub fn latency_ratio(largest: f64, smallest: f64) -> f64 {
    if smallest > 0.0 && largest.is_finite() {
        largest / smallest
    } else {
        1.0
    }
}

/// Keeps at most `max` points, evenly spread, always including the first and last, so that a
/// report stays small however long the run.
pub fn thin<T: Copy>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max {
        return points.to_vec();
    }
    if max < 2 {
        return points.iter().take(max).copied().collect();
    }
    let last = points.len() - 1;
    (0..max).map(|k| points[k * last / (max - 1)]).collect()
}

/// Bytes per second to MB/s (decimal, as drive makers and fio state write speed).
pub fn mb_per_s(bytes: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        bytes as f64 / secs / 1e6
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_summary_matches_known_distribution() {
        let mut h = read_latencies();
        for us in 1..=1000u64 {
            h.record(Duration::from_micros(us));
        }
        let s = h.summary_us();
        assert!((s.p50 - 500.0).abs() < 1.0, "{s:?}");
        assert!((s.p99 - 990.0).abs() < 1.0, "{s:?}");
        assert!((s.max - 1000.0).abs() < 1.0, "{s:?}");
        assert!((s.mean - 500.5).abs() < 1.0, "{s:?}");
    }

    #[test]
    fn histogram_clamps_absurd_latencies_instead_of_failing() {
        let mut h = read_latencies();
        h.record(Duration::from_secs(3600));
        h.record(Duration::ZERO);
        assert_eq!(h.count(), 2);
        assert!(h.summary_us().max <= 60_100_000.0, "{:?}", h.summary_us());
    }

    #[test]
    fn median_of_even_and_odd_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn recovery_is_the_start_of_the_first_clean_window() {
        let burst_end = Duration::from_millis(1000);
        let mut tracker = RecoveryTracker::new(100.0, 0.2, 100, burst_end);
        let mut recovered = None;
        // 300 slow reads 1 ms apart, then fast ones.
        for i in 0..1000u64 {
            let t = burst_end + Duration::from_millis(i);
            let lat = if i < 300 { 500.0 } else { 90.0 };
            if let Some(r) = tracker.push(t, lat) {
                recovered = Some(r);
                break;
            }
        }
        // With window 100, one exceedance is allowed, so the window starting at read 299
        // (one slow read, 99 fast ones) is the first that qualifies.
        assert_eq!(recovered, Some(Duration::from_millis(299)));
    }

    #[test]
    fn recovery_never_reported_while_tail_stays_high() {
        let mut tracker = RecoveryTracker::new(100.0, 0.2, 100, Duration::ZERO);
        for i in 0..10_000u64 {
            // Every 20th read is slow: p99 of any window is slow.
            let lat = if i.is_multiple_of(20) { 1_000.0 } else { 80.0 };
            assert_eq!(tracker.push(Duration::from_micros(i * 100), lat), None);
        }
    }

    #[test]
    fn immediate_recovery_is_zero() {
        let mut tracker = RecoveryTracker::new(100.0, 0.2, 10, Duration::from_secs(5));
        let mut out = None;
        for i in 0..10u64 {
            out = tracker.push(
                Duration::from_secs(5) + Duration::from_micros(i * 100),
                100.0,
            );
        }
        assert_eq!(out, Some(Duration::ZERO));
    }

    #[test]
    fn cliff_found_where_throughput_halves_and_stays() {
        let mut series = vec![1500.0; 3];
        series.extend([2000.0, 2100.0, 1950.0, 2050.0, 2000.0, 2020.0, 1980.0]);
        let cliff_at = series.len();
        series.push(900.0);
        series.extend(std::iter::repeat_n(95.0, 20));
        let a = detect_cliff(&series, &CliffRule::default());
        assert_eq!(a.cliff_index, Some(cliff_at));
        assert_eq!(a.post_mb_s, Some(95.0));
        assert!((a.pre_mb_s - 1980.0).abs() < 50.0, "{a:?}");
    }

    #[test]
    fn short_dips_are_not_cliffs() {
        let mut series = Vec::new();
        for i in 0..60 {
            // A two-interval garbage-collection dip every 15 s.
            series.push(if i % 15 == 7 || i % 15 == 8 {
                100.0
            } else {
                1000.0
            });
        }
        let a = detect_cliff(&series, &CliffRule::default());
        assert_eq!(a.cliff_index, None);
        assert_eq!(a.post_mb_s, None);
        assert_eq!(a.pre_mb_s, 1000.0);
    }

    #[test]
    fn a_drop_that_does_not_hold_long_enough_is_not_yet_a_cliff() {
        let mut series = vec![1000.0; 10];
        series.extend(std::iter::repeat_n(100.0, 5));
        assert_eq!(
            detect_cliff(&series, &CliffRule::default()).cliff_index,
            None
        );
        series.extend(std::iter::repeat_n(100.0, 10));
        assert_eq!(
            detect_cliff(&series, &CliffRule::default()).cliff_index,
            Some(10)
        );
    }

    #[test]
    fn empty_and_degenerate_series() {
        let a = detect_cliff(&[], &CliffRule::default());
        assert_eq!(a.cliff_index, None);
        assert_eq!(a.pre_mb_s, 0.0);
        let a = detect_cliff(&[0.0; 30], &CliffRule::default());
        assert_eq!(a.cliff_index, None);
        assert_eq!(latency_ratio(200.0, 0.0), 1.0);
        assert_eq!(latency_ratio(200.0, 100.0), 2.0);
    }

    #[test]
    fn thinning_keeps_ends_and_bounds() {
        let points: Vec<u32> = (0..1000).collect();
        let thinned = thin(&points, 11);
        assert_eq!(thinned.len(), 11);
        assert_eq!(thinned.first(), Some(&0));
        assert_eq!(thinned.last(), Some(&999));
        assert_eq!(thin(&points[..5], 11), vec![0, 1, 2, 3, 4]);
    }

    mod hostile {
        use proptest::prelude::*;

        use super::super::*;

        fn any_f64() -> impl Strategy<Value = f64> {
            prop_oneof![
                4 => 0.0..5000.0f64,
                1 => Just(f64::NAN),
                1 => Just(f64::INFINITY),
                1 => Just(f64::NEG_INFINITY),
                1 => any::<f64>(),
            ]
        }

        proptest! {
            #[test]
            fn cliff_detection_never_panics_and_stays_in_range(
                series in proptest::collection::vec(any_f64(), 0..200),
                smoothing in 0usize..20,
                confirm in 0usize..30,
                ratio in any_f64(),
            ) {
                let rule = CliffRule { smoothing, drop_ratio: ratio, confirm_intervals: confirm };
                let found = detect_cliff(&series, &rule);
                if let Some(i) = found.cliff_index {
                    prop_assert!(i < series.len());
                }
            }

            #[test]
            fn recovery_tracker_never_panics(
                latencies in proptest::collection::vec(any_f64(), 0..500),
                baseline in any_f64(),
                tolerance in any_f64(),
                window in 0usize..300,
            ) {
                let mut tracker = RecoveryTracker::new(baseline, tolerance, window, Duration::from_secs(1));
                for (i, lat) in latencies.into_iter().enumerate() {
                    let t = Duration::from_secs(1) + Duration::from_micros(i as u64 * 50);
                    if let Some(r) = tracker.push(t, lat) {
                        prop_assert!(r <= Duration::from_micros(i as u64 * 50));
                    }
                }
            }

            #[test]
            fn thinning_is_bounded_and_ordered(len in 0usize..3000, max in 0usize..500) {
                let points: Vec<usize> = (0..len).collect();
                let thinned = thin(&points, max);
                prop_assert_eq!(thinned.len(), len.min(max));
                prop_assert!(thinned.windows(2).all(|w| w[0] < w[1]));
            }
        }
    }
}
