//! What the drive went through while a run measured it: the temperatures sampled during the
//! measurement and the drive's thermal and error counters before and after. The binary reads
//! them (hwmon, the NVMe SMART log) around [`crate::run`]; the bench only carries them in its
//! report, because it reads nothing of the machine itself.

use serde::{Deserialize, Serialize};

/// The drive's state around one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunConditions {
    /// The drive whose state this is (`nvme0n1`).
    pub drive: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<TemperatureTrace>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<DriveCounters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<DriveCounters>,
    /// What could not be read, and why (`the SMART log needs root`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<String>,
}

/// Temperatures sampled during the measurement, in degrees Celsius.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemperatureTrace {
    /// `hwmon` or `nvme-smart-log`.
    pub source: String,
    pub samples: u32,
    pub first_c: f64,
    pub peak_c: f64,
    pub last_c: f64,
}

impl TemperatureTrace {
    /// The trace of `samples` (non-finite ones dropped); `None` when none is left.
    pub fn of(source: &str, samples: &[f64]) -> Option<TemperatureTrace> {
        let finite: Vec<f64> = samples.iter().copied().filter(|c| c.is_finite()).collect();
        let (&first, &last) = (finite.first()?, finite.last()?);
        Some(TemperatureTrace {
            source: source.to_string(),
            samples: u32::try_from(finite.len()).unwrap_or(u32::MAX),
            first_c: first,
            peak_c: finite.iter().copied().fold(f64::MIN, f64::max),
            last_c: last,
        })
    }
}

/// The counters that tell whether a drive throttled or failed reads during a run: the NVMe
/// SMART log's thermal-management transitions and times (bytes 192-231) and its error
/// counts, or the SATA interface CRC count (attribute 199).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriveCounters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning_temp_minutes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_temp_minutes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal_t1_transitions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal_t2_transitions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal_t1_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal_t2_seconds: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_errors: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_log_entries: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crc_errors: Option<u64>,
}

/// How much each counter grew during the run; a counter read only once (or that went
/// backwards, a reset drive) is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CounterGrowth {
    pub thermal_transitions: Option<u64>,
    pub thermal_seconds: Option<u64>,
    pub hot_minutes: Option<u64>,
    pub media_errors: Option<u64>,
    pub error_log_entries: Option<u64>,
    pub crc_errors: Option<u64>,
}

impl RunConditions {
    /// The growth of the counters between `before` and `after`.
    pub fn growth(&self) -> Option<CounterGrowth> {
        let (before, after) = (self.before?, self.after?);
        let grew = |pick: fn(&DriveCounters) -> Option<u64>| {
            let (b, a) = (pick(&before)?, pick(&after)?);
            a.checked_sub(b)
        };
        let sum = |x: Option<u64>, y: Option<u64>| match (x, y) {
            (None, None) => None,
            (x, y) => Some(x.unwrap_or(0).saturating_add(y.unwrap_or(0))),
        };
        Some(CounterGrowth {
            thermal_transitions: sum(
                grew(|c| c.thermal_t1_transitions),
                grew(|c| c.thermal_t2_transitions),
            ),
            thermal_seconds: sum(
                grew(|c| c.thermal_t1_seconds),
                grew(|c| c.thermal_t2_seconds),
            ),
            hot_minutes: sum(
                grew(|c| c.warning_temp_minutes),
                grew(|c| c.critical_temp_minutes),
            ),
            media_errors: grew(|c| c.media_errors),
            error_log_entries: grew(|c| c.error_log_entries),
            crc_errors: grew(|c| c.crc_errors),
        })
    }
}

impl CounterGrowth {
    /// Whether the drive entered thermal management (or spent time above its warning
    /// temperature) during the run; `None` when no thermal counter was read twice.
    pub fn throttled(&self) -> Option<bool> {
        let counters = [
            self.thermal_transitions,
            self.thermal_seconds,
            self.hot_minutes,
        ];
        if counters.iter().all(Option::is_none) {
            return None;
        }
        Some(counters.iter().any(|c| c.is_some_and(|n| n > 0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_keeps_first_peak_and_last_of_finite_samples() {
        let trace = TemperatureTrace::of("hwmon", &[41.0, f64::NAN, 58.5, 52.0]).unwrap();
        assert_eq!(
            (trace.samples, trace.first_c, trace.peak_c, trace.last_c),
            (3, 41.0, 58.5, 52.0)
        );
        assert!(TemperatureTrace::of("hwmon", &[f64::INFINITY]).is_none());
    }

    #[test]
    fn growth_counts_only_counters_read_twice_and_never_goes_negative() {
        let before = DriveCounters {
            thermal_t1_transitions: Some(3),
            thermal_t1_seconds: Some(10),
            media_errors: Some(5),
            crc_errors: Some(9),
            ..DriveCounters::default()
        };
        let after = DriveCounters {
            thermal_t1_transitions: Some(4),
            thermal_t1_seconds: Some(25),
            media_errors: Some(5),
            error_log_entries: Some(2),
            crc_errors: Some(1),
            ..DriveCounters::default()
        };
        let conditions = RunConditions {
            before: Some(before),
            after: Some(after),
            ..RunConditions::default()
        };
        let growth = conditions.growth().unwrap();
        assert_eq!(growth.thermal_transitions, Some(1));
        assert_eq!(growth.thermal_seconds, Some(15));
        assert_eq!(growth.media_errors, Some(0));
        assert_eq!(growth.error_log_entries, None, "read once");
        assert_eq!(growth.crc_errors, None, "went backwards");
        assert_eq!(growth.throttled(), Some(true));
        let quiet = RunConditions {
            before: Some(before),
            after: Some(before),
            ..RunConditions::default()
        };
        assert_eq!(quiet.growth().unwrap().throttled(), Some(false));
        assert_eq!(RunConditions::default().growth(), None);
    }
}
