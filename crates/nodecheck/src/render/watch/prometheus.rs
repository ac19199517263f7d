//! `nodecheck watch --format prometheus`: node_exporter's textfile format. `--output FILE`
//! writes it atomically (a temporary in the same directory, then renamed), so the collector
//! never reads half a file; docs/watch.md shows the systemd timer.

use std::fmt::Write as _;

use verdict::watch::Outcome;

use super::WatchReport;
use crate::render::prometheus::{escape_label, format_value};

/// One of iostat's figures, in the metric's base unit.
type DeviceFigure = fn(&probe::diskstats::IostatFigures) -> f64;

pub fn render(report: &WatchReport) -> String {
    let mut out = String::new();
    let path = escape_label(&report.path);
    let family = |out: &mut String, name: &str, help: &str| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
    };
    family(
        &mut out,
        "nodecheck_watch_storage_bound",
        "Watch verdict: 0 not storage-bound, 1 partly, 2 storage-bound.",
    );
    let outcome = match report.verdict.outcome {
        Outcome::NotStorageBound => 0.0,
        Outcome::PartlyStorageBound => 1.0,
        Outcome::StorageBound => 2.0,
    };
    let _ = writeln!(
        out,
        "nodecheck_watch_storage_bound{{path=\"{path}\"}} {}",
        format_value(outcome)
    );
    family(
        &mut out,
        "nodecheck_watch_seconds",
        "Length of the sampled run in seconds.",
    );
    let _ = writeln!(
        out,
        "nodecheck_watch_seconds{{path=\"{path}\"}} {}",
        format_value(report.seconds)
    );
    let device_metrics: [(&str, &str, DeviceFigure); 8] = [
        ("reads_per_second", "iostat r/s.", |f| f.reads_per_s),
        ("writes_per_second", "iostat w/s.", |f| f.writes_per_s),
        ("read_bytes_per_second", "iostat rkB/s in bytes.", |f| {
            f.read_kb_per_s * 1024.0
        }),
        ("write_bytes_per_second", "iostat wkB/s in bytes.", |f| {
            f.write_kb_per_s * 1024.0
        }),
        ("read_await_seconds", "iostat r_await in seconds.", |f| {
            f.r_await / 1000.0
        }),
        ("write_await_seconds", "iostat w_await in seconds.", |f| {
            f.w_await / 1000.0
        }),
        ("queue_size", "iostat aqu-sz.", |f| f.queue_size),
        (
            "utilisation_ratio",
            "iostat %util as a ratio (not judged: meaningless on NVMe).",
            |f| f.util / 100.0,
        ),
    ];
    for (name, help, value) in device_metrics {
        let name = format!("nodecheck_watch_device_{name}");
        family(&mut out, &name, help);
        for d in &report.devices {
            let _ = writeln!(
                out,
                "{name}{{path=\"{path}\",device=\"{}\"}} {}",
                escape_label(&d.name),
                format_value(value(&d.figures))
            );
        }
    }
    family(
        &mut out,
        "nodecheck_watch_pressure_ratio",
        "Share of the run tasks stalled (PSI), by resource and kind.",
    );
    let p = &report.host_pressure;
    for (resource, stall) in [("io", p.io), ("cpu", p.cpu), ("memory", p.memory)] {
        let Some(stall) = stall else { continue };
        for (kind, value) in [("some", Some(stall.some)), ("full", stall.full)] {
            if let Some(value) = value {
                let _ = writeln!(out, "nodecheck_watch_pressure_ratio{{path=\"{path}\",scope=\"host\",resource=\"{resource}\",kind=\"{kind}\"}} {}", format_value(value / 100.0));
            }
        }
    }
    for c in &report.clients {
        let Some(stall) = c.figures.io else { continue };
        let client = escape_label(&c.client);
        for (kind, value) in [("some", Some(stall.some)), ("full", stall.full)] {
            if let Some(value) = value {
                let _ = writeln!(out, "nodecheck_watch_pressure_ratio{{path=\"{path}\",scope=\"{client}\",resource=\"io\",kind=\"{kind}\"}} {}", format_value(value / 100.0));
            }
        }
    }
    family(
        &mut out,
        "nodecheck_watch_client_bytes_per_second",
        "The client process's block-layer bytes per second (/proc/PID/io).",
    );
    for c in &report.clients {
        let client = escape_label(&c.client);
        for (op, value) in [
            ("read", c.figures.read_bytes_per_s),
            ("write", c.figures.write_bytes_per_s),
        ] {
            if let Some(value) = value {
                let _ = writeln!(out, "nodecheck_watch_client_bytes_per_second{{path=\"{path}\",client=\"{client}\",op=\"{op}\"}} {}", format_value(value));
            }
        }
    }
    if let Some(l) = &report.latency_probe {
        let name = "nodecheck_watch_probe_read_latency_seconds";
        let _ = writeln!(
            out,
            "# HELP {name} QD1 4 KiB O_DIRECT reads of the chain's blocks.\n# TYPE {name} summary"
        );
        for (q, us) in [
            ("0.5", l.p50_us),
            ("0.9", l.p90_us),
            ("0.99", l.p99_us),
            ("1", l.max_us),
        ] {
            let _ = writeln!(
                out,
                "{name}{{path=\"{path}\",quantile=\"{q}\"}} {}",
                format_value(us / 1e6)
            );
        }
        let _ = writeln!(out, "{name}_count{{path=\"{path}\"}} {}", l.reads);
    }
    out
}
