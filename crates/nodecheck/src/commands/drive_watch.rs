//! The drive's state around a measurement: its temperature sampled while the bench runs and
//! its thermal and error counters before and after. Gen4/Gen5 drives throttle only under
//! sustained load, so a temperature read at rest says little; the bench itself reads nothing
//! of the machine, so the binary watches from beside it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use bench::{DriveCounters, RunConditions, TemperatureTrace};
use probe::{Drive, Root};

/// How often the temperature is sampled: hwmon answers from the driver's cached value and
/// the SMART log is one admin command, so once a second costs nothing measurable.
const SAMPLE_EVERY: Duration = Duration::from_secs(1);

/// A watch on one drive while a measurement runs.
pub(crate) struct DriveWatch {
    drive: String,
    before: Option<DriveCounters>,
    gaps: Vec<String>,
    stop: Arc<AtomicBool>,
    sampler: Option<JoinHandle<(Option<&'static str>, Vec<f64>)>>,
    read: Reader,
}

/// Where the counters and the temperature come from.
#[derive(Debug, Clone)]
enum Reader {
    /// As root on NVMe: the SMART log of the controller (`/dev/nvme0`).
    SmartLog(String),
    /// Otherwise hwmon, by block device name, and the probe's SATA counters are read once.
    Hwmon(String),
}

impl Reader {
    fn temperature(&self) -> Option<(&'static str, f64)> {
        match self {
            Reader::SmartLog(controller) => {
                let log = probe::nvme::admin_smart_log(&dev(controller)).ok()?;
                Some(("nvme-smart-log", log.temperature_c()?))
            }
            Reader::Hwmon(name) => Some((
                "hwmon",
                probe::hwmon::block_device_temperature(&Root::live(), name)?,
            )),
        }
    }

    fn counters(&self, drive: &Drive) -> Result<DriveCounters, String> {
        match self {
            Reader::SmartLog(controller) => probe::nvme::admin_smart_log(&dev(controller))
                .map(|log| counters_of_smart_log(&log))
                .map_err(|err| err.to_string()),
            Reader::Hwmon(_) => Err(if drive.nvme.is_some() {
                "the NVMe SMART log (thermal and error counters) needs root".to_string()
            } else {
                "SATA counters are read once, by the probe".to_string()
            }),
        }
    }
}

fn dev(controller: &str) -> std::path::PathBuf {
    std::path::PathBuf::from("/dev").join(controller)
}

/// The counters of an NVMe SMART log page (bytes 160-175 error counts, 192-231 thermal).
pub(crate) fn counters_of_smart_log(log: &probe::nvme::SmartLog) -> DriveCounters {
    let wide = |n: u128| Some(u64::try_from(n).unwrap_or(u64::MAX));
    DriveCounters {
        warning_temp_minutes: Some(u64::from(log.warning_temp_minutes)),
        critical_temp_minutes: Some(u64::from(log.critical_temp_minutes)),
        thermal_t1_transitions: Some(u64::from(log.thermal_t1_transitions)),
        thermal_t2_transitions: Some(u64::from(log.thermal_t2_transitions)),
        thermal_t1_seconds: Some(u64::from(log.thermal_t1_seconds)),
        thermal_t2_seconds: Some(u64::from(log.thermal_t2_seconds)),
        media_errors: wide(log.media_errors),
        error_log_entries: wide(log.error_log_entries),
        crc_errors: None,
    }
}

impl DriveWatch {
    /// Reads the counters and starts sampling the temperature of the one drive under the
    /// measured path; `None` under RAID or with no drive known (whose temperature would it be?).
    pub(crate) fn start(drives: &[Drive], root: bool) -> Option<DriveWatch> {
        let [drive] = drives else {
            return None;
        };
        let read = match (&drive.nvme, root) {
            (Some(nvme), true) => Reader::SmartLog(nvme.controller.clone()),
            _ => Reader::Hwmon(drive.name.clone()),
        };
        let mut gaps = Vec::new();
        let before = match read.counters(drive) {
            Ok(counters) => Some(counters),
            Err(gap) => {
                gaps.push(gap);
                None
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = {
            let (stop, read) = (Arc::clone(&stop), read.clone());
            std::thread::Builder::new()
                .name("nodecheck-temperature".into())
                .spawn(move || sample_until(&stop, &read))
                .map_err(|err| gaps.push(format!("temperature sampling did not start: {err}")))
                .ok()
        };
        Some(DriveWatch {
            drive: drive.name.clone(),
            before,
            gaps,
            stop,
            sampler,
            read,
        })
    }

    /// Stops sampling and reads the counters again.
    pub(crate) fn finish(mut self, drives: &[Drive]) -> RunConditions {
        self.stop.store(true, Ordering::Relaxed);
        let (source, samples) = self
            .sampler
            .take()
            .and_then(|handle| handle.join().ok())
            .unwrap_or((None, Vec::new()));
        let temperature = source.and_then(|source| TemperatureTrace::of(source, &samples));
        if temperature.is_none() {
            self.gaps
                .push(format!("no temperature of {} could be read", self.drive));
        }
        let after = drives
            .iter()
            .find(|d| d.name == self.drive)
            .and_then(|drive| self.read.counters(drive).ok());
        RunConditions {
            drive: std::mem::take(&mut self.drive),
            temperature,
            before: self.before,
            after,
            gaps: std::mem::take(&mut self.gaps),
        }
    }
}

impl Drop for DriveWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Samples once at once (the temperature at the start), then every [`SAMPLE_EVERY`] until
/// `stop`, waking often enough that stopping takes at most a tenth of a second.
fn sample_until(stop: &AtomicBool, read: &Reader) -> (Option<&'static str>, Vec<f64>) {
    let mut samples = Vec::new();
    let mut source = None;
    let tick = Duration::from_millis(100);
    let mut waited = SAMPLE_EVERY;
    while !stop.load(Ordering::Relaxed) {
        if waited >= SAMPLE_EVERY {
            waited = Duration::ZERO;
            if let Some((from, celsius)) = read.temperature() {
                source = Some(from);
                samples.push(celsius);
            }
        }
        std::thread::sleep(tick);
        waited += tick;
    }
    // One last sample: the drive is hottest right at the end of the load.
    if let Some((from, celsius)) = read.temperature() {
        source = Some(from);
        samples.push(celsius);
    }
    (source, samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smart_log_counters_are_the_pages_bytes_192_to_231_and_error_counts() {
        let log = probe::nvme::SmartLog {
            warning_temp_minutes: 7,
            critical_temp_minutes: 1,
            thermal_t1_transitions: 12,
            thermal_t2_transitions: 2,
            thermal_t1_seconds: 300,
            thermal_t2_seconds: 20,
            media_errors: u128::MAX,
            error_log_entries: 4,
            ..probe::nvme::SmartLog::default()
        };
        // Round trip through the page the drive sends, so the offsets are checked too.
        let parsed = probe::nvme::parse_smart_log(&log.to_page()).unwrap();
        let counters = counters_of_smart_log(&parsed);
        assert_eq!(counters.warning_temp_minutes, Some(7));
        assert_eq!(counters.critical_temp_minutes, Some(1));
        assert_eq!(counters.thermal_t1_transitions, Some(12));
        assert_eq!(counters.thermal_t2_seconds, Some(20));
        assert_eq!(counters.media_errors, Some(u64::MAX));
        assert_eq!(counters.error_log_entries, Some(4));
    }

    #[test]
    fn no_watch_without_exactly_one_drive() {
        assert!(DriveWatch::start(&[], false).is_none());
        let two = [Drive::default(), Drive::default()];
        assert!(DriveWatch::start(&two, false).is_none());
    }
}
