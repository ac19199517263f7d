//! What `watch --save` keeps: the raw readings exactly as read, plus what is needed to judge
//! them again. The report of a live run is built from this same record, so `triage` of a
//! saved file gives the verdict the live run gave.

use probe::io_sample::{Interval, RawSample, Targets};
use serde::{Deserialize, Serialize};
use verdict::watch::{self, WatchThresholds};

use crate::render::watch::{
    ClientFigures, DeviceFigures, HostPressure, WatchReport, WATCH_SCHEMA_VERSION,
};

/// Raised when the record changes shape; `triage` refuses newer ones.
pub const SAMPLES_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedWatch {
    /// The record's format version; also the key that tells it apart from other documents.
    pub nodecheck_watch_samples: u32,
    pub nodecheck_version: String,
    pub path: String,
    pub interval_seconds: f64,
    pub targets: Targets,
    pub clients: Vec<SavedClient>,
    /// Latency of each probe read, microseconds, in the order made.
    pub probe_latencies_us: Vec<f64>,
    pub needs_root: Vec<String>,
    pub notes: Vec<String>,
    pub samples: Vec<RawSample>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedClient {
    pub client: String,
    pub pid: u32,
    pub container: bool,
}

impl SavedWatch {
    /// The report over every reading: the figures between the first and the last, each
    /// interval for graphs, and the verdict.
    pub fn report(&self, thresholds: &WatchThresholds, source: Option<String>) -> WatchReport {
        let intervals: Vec<Interval> = self
            .samples
            .windows(2)
            .filter_map(|pair| Interval::between(&pair[0], &pair[1]))
            .collect();
        let whole = match (self.samples.first(), self.samples.last()) {
            (Some(first), Some(last)) => Interval::between(first, last),
            _ => None,
        }
        .unwrap_or_default();
        let names: Vec<(u32, String)> = self
            .clients
            .iter()
            .map(|c| (c.pid, c.client.clone()))
            .collect();
        let latency = super::latency::percentiles(&self.probe_latencies_us);
        let verdict = watch::judge(&whole, &names, latency.as_ref(), thresholds);
        let mut notes = self.notes.clone();
        if self.samples.len() < 2 {
            notes.push("Fewer than two readings: no interval to compute figures over.".to_string());
        }
        WatchReport {
            schema_version: WATCH_SCHEMA_VERSION,
            kind: "watch".to_string(),
            nodecheck_version: self.nodecheck_version.clone(),
            path: self.path.clone(),
            seconds: whole.elapsed_s,
            interval_seconds: self.interval_seconds,
            devices: whole
                .devices
                .iter()
                .map(|(name, figures)| DeviceFigures {
                    name: name.clone(),
                    figures: *figures,
                })
                .collect(),
            host_pressure: HostPressure {
                io: whole.host_io,
                cpu: whole.host_cpu,
                memory: whole.host_memory,
            },
            clients: self
                .clients
                .iter()
                .map(|c| ClientFigures {
                    client: c.client.clone(),
                    pid: c.pid,
                    container: c.container,
                    cgroup: self
                        .targets
                        .clients
                        .iter()
                        .find(|t| t.pid == c.pid)
                        .and_then(|t| t.cgroup_dir.as_ref())
                        .map(|d| d.display().to_string()),
                    figures: whole
                        .clients
                        .iter()
                        .find(|i| i.pid == c.pid)
                        .cloned()
                        .unwrap_or_default(),
                })
                .collect(),
            latency_probe: latency,
            verdict,
            needs_root: self.needs_root.clone(),
            notes,
            source,
            intervals,
        }
    }
}
