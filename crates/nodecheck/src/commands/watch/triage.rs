//! `nodecheck triage FILE` for what watch-like tools print: a `watch --save` record, a
//! `watch --json` report, a pasted `iostat -x` (text or `-o JSON`) or `ioping` output. Each
//! is judged by the same rules (verdict::watch) as a live `nodecheck watch`.

use std::collections::BTreeMap;

use anyhow::{anyhow, Context, Result};
use probe::diskstats::IostatFigures;
use probe::io_sample::{ClientInterval, Interval};
use serde::Deserialize;
use verdict::watch::{self, ProbeLatency, WatchThresholds};

use super::saved::{SavedWatch, SAMPLES_FORMAT};
use crate::render::watch::{DeviceFigures, HostPressure, WatchReport, WATCH_SCHEMA_VERSION};

/// A watch-like input, turned into the report triage prints; `None` when the bytes are not
/// one of them (then triage tries its other documents).
pub fn report(bytes: &[u8], origin: &str) -> Result<Option<WatchReport>> {
    let thresholds = WatchThresholds::embedded();
    if let Ok(keys) = serde_json::from_slice::<Keys>(bytes) {
        if let Some(format) = keys.nodecheck_watch_samples {
            if format > SAMPLES_FORMAT {
                return Err(anyhow!("these readings are in format {format}, newer than this nodecheck reads ({SAMPLES_FORMAT}); update nodecheck"));
            }
            let saved: SavedWatch = serde_json::from_slice(bytes).context(
                "this looks like `nodecheck watch --save FILE` readings but does not match their format",
            )?;
            let source = format!(
                "replayed from the readings {origin} (saved by nodecheck {})",
                saved.nodecheck_version
            );
            return Ok(Some(saved.report(&thresholds, Some(source))));
        }
        if keys.kind.as_deref() == Some("watch") {
            let saved: WatchReport = serde_json::from_slice(bytes).context(
                "this looks like a `nodecheck watch --json` report but does not match its schema",
            )?;
            if saved.schema_version > WATCH_SCHEMA_VERSION {
                return Err(anyhow!("this watch report has schema version {}, newer than this nodecheck reads ({WATCH_SCHEMA_VERSION}); update nodecheck", saved.schema_version));
            }
            return Ok(Some(rejudge(saved, origin, &thresholds)));
        }
        if keys.sysstat.is_some() {
            let devices = iostat_json(bytes)?;
            return Ok(Some(pasted(
                devices,
                None,
                "iostat -o JSON",
                origin,
                &thresholds,
            )));
        }
    }
    let text = String::from_utf8_lossy(bytes);
    if let Some(devices) = iostat_text(&text) {
        return Ok(Some(pasted(
            devices,
            None,
            "iostat -x",
            origin,
            &thresholds,
        )));
    }
    if let Some(latency) = ioping_text(&text) {
        return Ok(Some(pasted(
            BTreeMap::new(),
            Some(latency),
            "ioping",
            origin,
            &thresholds,
        )));
    }
    Ok(None)
}

#[derive(Deserialize)]
struct Keys {
    nodecheck_watch_samples: Option<u32>,
    kind: Option<String>,
    sysstat: Option<serde::de::IgnoredAny>,
}

/// A saved report, judged again with this build's thresholds.
fn rejudge(saved: WatchReport, origin: &str, thresholds: &WatchThresholds) -> WatchReport {
    let whole = Interval {
        start_s: 0.0,
        elapsed_s: saved.seconds,
        devices: saved
            .devices
            .iter()
            .map(|d| (d.name.clone(), d.figures))
            .collect(),
        host_io: saved.host_pressure.io,
        host_cpu: saved.host_pressure.cpu,
        host_memory: saved.host_pressure.memory,
        clients: saved.clients.iter().map(|c| c.figures.clone()).collect(),
    };
    let names: Vec<(u32, String)> = saved
        .clients
        .iter()
        .map(|c| (c.pid, c.client.clone()))
        .collect();
    let verdict = watch::judge(&whole, &names, saved.latency_probe.as_ref(), thresholds);
    WatchReport {
        verdict,
        source: Some(format!(
            "re-judged from a saved nodecheck {} watch report ({origin})",
            saved.nodecheck_version
        )),
        ..saved
    }
}

/// A report for a pasted tool output: per-device figures or probe latencies, no PSI.
fn pasted(
    devices: BTreeMap<String, IostatFigures>,
    latency: Option<ProbeLatency>,
    tool: &str,
    origin: &str,
    thresholds: &WatchThresholds,
) -> WatchReport {
    // Pasted output does not say its interval: one second, iostat's and ioping's usual.
    let whole = Interval {
        start_s: 0.0,
        elapsed_s: 1.0,
        devices,
        host_io: None,
        host_cpu: None,
        host_memory: None,
        clients: Vec::<ClientInterval>::new(),
    };
    let verdict = watch::judge(&whole, &[], latency.as_ref(), thresholds);
    WatchReport {
        schema_version: WATCH_SCHEMA_VERSION,
        kind: "watch".to_string(),
        nodecheck_version: env!("CARGO_PKG_VERSION").to_string(),
        path: origin.to_string(),
        seconds: 0.0,
        interval_seconds: 0.0,
        devices: whole.devices.iter().map(|(name, figures)| DeviceFigures { name: name.clone(), figures: *figures }).collect(),
        host_pressure: HostPressure::default(),
        clients: Vec::new(),
        latency_probe: latency,
        verdict,
        needs_root: Vec::new(),
        notes: vec![format!("Judged from a pasted `{tool}` output: it carries no pressure (PSI) figures, so the verdict rests on latency; `nodecheck watch` on the machine measures both.")],
        source: Some(format!("pasted {tool} output ({origin})")),
        intervals: Vec::new(),
    }
}

#[derive(Deserialize)]
struct SysstatDoc {
    sysstat: SysstatHosts,
}
#[derive(Deserialize)]
struct SysstatHosts {
    hosts: Vec<SysstatHost>,
}
#[derive(Deserialize)]
struct SysstatHost {
    statistics: Vec<SysstatStatistics>,
}
#[derive(Deserialize)]
struct SysstatStatistics {
    #[serde(default)]
    disk: Vec<SysstatDisk>,
}
#[derive(Deserialize)]
struct SysstatDisk {
    disk_device: String,
    #[serde(flatten)]
    figures: IostatFigures,
}

/// `iostat -dx -o JSON`: the last statistics block of the first host.
fn iostat_json(bytes: &[u8]) -> Result<BTreeMap<String, IostatFigures>> {
    let doc: SysstatDoc = serde_json::from_slice(bytes)
        .context("this looks like `iostat -o JSON` output but has no extended disk statistics (run `iostat -dxy -o JSON 10 1`)")?;
    let last = doc
        .sysstat
        .hosts
        .first()
        .and_then(|h| h.statistics.iter().rev().find(|s| !s.disk.is_empty()))
        .ok_or_else(|| {
            anyhow!("the iostat JSON has no disk statistics (run `iostat -dxy -o JSON 10 1`)")
        })?;
    Ok(last
        .disk
        .iter()
        .map(|d| (d.disk_device.clone(), d.figures))
        .collect())
}

/// `iostat -x` text: the last report's rows (the first one is the average since boot when
/// more than one was printed). Column names of sysstat 11 (`avgqu-sz`) and 12 (`aqu-sz`).
pub fn iostat_text(text: &str) -> Option<BTreeMap<String, IostatFigures>> {
    let mut last = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let header: Vec<&str> = line.split_whitespace().collect();
        if !header.first().is_some_and(|h| h.starts_with("Device")) || !header.contains(&"r_await")
        {
            continue;
        }
        let column = |names: &[&str]| header.iter().position(|h| names.contains(h));
        let columns = [
            column(&["r/s"]),
            column(&["w/s"]),
            column(&["rkB/s"]),
            column(&["wkB/s"]),
            column(&["r_await"]),
            column(&["w_await"]),
            column(&["aqu-sz", "avgqu-sz"]),
            column(&["%util"]),
        ];
        let mut block = BTreeMap::new();
        while let Some(row) = lines.next_if(|l| !l.trim().is_empty()) {
            let fields: Vec<&str> = row.split_whitespace().collect();
            let value = |i: Option<usize>| -> Option<f64> {
                fields
                    .get(i?)?
                    .replace(',', ".")
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
            };
            let Some(name) = fields.first() else { continue };
            let v: Vec<Option<f64>> = columns.iter().map(|c| value(*c)).collect();
            let figures = IostatFigures {
                reads_per_s: v[0]?,
                writes_per_s: v[1]?,
                read_kb_per_s: v[2].unwrap_or(0.0),
                write_kb_per_s: v[3].unwrap_or(0.0),
                r_await: v[4]?,
                w_await: v[5]?,
                queue_size: v[6].unwrap_or(0.0),
                util: v[7].unwrap_or(0.0),
            };
            block.insert(name.to_string(), figures);
        }
        if !block.is_empty() {
            last = Some(block);
        }
    }
    last
}

/// `ioping` output: each `time=…` line after the warm-up, as a probe's latencies. When only
/// the summary survived the paste, its max stands for p99 (eth-docker's rule reads the max).
pub fn ioping_text(text: &str) -> Option<ProbeLatency> {
    let mut latencies = Vec::new();
    let mut summary = None;
    for line in text.lines() {
        if let Some(rest) = line.split("time=").nth(1) {
            if line.contains("(warmup)") {
                continue;
            }
            if let Some(us) = duration_us(rest) {
                latencies.push(us);
            }
        } else if let Some(values) = line.trim().strip_prefix("min/avg/max/mdev =") {
            let parts: Vec<f64> = values.split('/').filter_map(duration_us).collect();
            if parts.len() == 4 {
                summary = Some(parts);
            }
        }
    }
    if !latencies.is_empty() {
        return super::latency::percentiles(&latencies);
    }
    let s = summary?;
    Some(ProbeLatency {
        reads: 0,
        p50_us: s[1],
        p90_us: s[2],
        p99_us: s[2],
        max_us: s[2],
    })
    .map(|p| ProbeLatency { reads: 1, ..p })
}

/// `123.4 us`, `1.2 ms`, `850 ns`, `1.1 s` at the start of `text`, in microseconds.
fn duration_us(text: &str) -> Option<f64> {
    let mut words = text.split_whitespace();
    let value: f64 = words
        .next()?
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let scale = match words.next()? {
        "ns" => 0.001,
        "us" | "µs" => 1.0,
        "ms" => 1000.0,
        "s" => 1e6,
        _ => return None,
    };
    Some(value * scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn durations_with_units() {
        assert_eq!(duration_us("241.2 us (warmup)"), Some(241.2));
        assert_eq!(duration_us("1.5 ms"), Some(1500.0));
        assert_eq!(duration_us("x us"), None);
    }

    proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = report(&bytes, "fuzz");
        }

        #[test]
        fn text_never_panics(text in "(Device r_await w_await r/s w/s\\n)?[ a-z0-9.=/\\n]{0,300}") {
            let _ = iostat_text(&text);
            let _ = ioping_text(&text);
        }
    }
}
