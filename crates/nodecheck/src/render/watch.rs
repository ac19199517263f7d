//! `nodecheck watch`'s report: the figures over the whole run, the verdict and its evidence,
//! in every format (Prometheus in [`prometheus`]).

use std::fmt::Write as _;

use probe::diskstats::IostatFigures;
use probe::io_sample::{ClientInterval, Interval, Stall};
use serde::{Deserialize, Serialize};
use verdict::watch::{Level, Outcome, ProbeLatency, WatchVerdict};

use super::{printable, Document, Format, RenderOptions};

mod prometheus;

/// Raised when a field changes meaning or goes away; `triage` refuses newer reports.
pub const WATCH_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchReport {
    pub schema_version: u32,
    /// Always `watch`: tells this document apart from a check report.
    pub kind: String,
    pub nodecheck_version: String,
    /// The datadir watched.
    pub path: String,
    pub seconds: f64,
    pub interval_seconds: f64,
    /// Over the whole run, per device, with `iostat -o JSON`'s names.
    pub devices: Vec<DeviceFigures>,
    pub host_pressure: HostPressure,
    pub clients: Vec<ClientFigures>,
    pub latency_probe: Option<ProbeLatency>,
    pub verdict: WatchVerdict,
    /// What could not be measured because it needs root.
    pub needs_root: Vec<String>,
    /// What was missing or odd (no device, no client, cgroup v1, no PSI) and what was done.
    pub notes: Vec<String>,
    /// Where the samples came from when not this run (`triage`).
    pub source: Option<String>,
    /// Every interval, for graphs.
    pub intervals: Vec<Interval>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceFigures {
    #[serde(rename = "disk_device")]
    pub name: String,
    #[serde(flatten)]
    pub figures: IostatFigures,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostPressure {
    pub io: Option<Stall>,
    pub cpu: Option<Stall>,
    pub memory: Option<Stall>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientFigures {
    pub client: String,
    pub pid: u32,
    pub container: bool,
    /// Its cgroup v2 directory, when it has one.
    pub cgroup: Option<String>,
    #[serde(flatten)]
    pub figures: ClientInterval,
}

impl WatchReport {
    pub fn exit_code(&self) -> u8 {
        match self.verdict.outcome {
            Outcome::NotStorageBound => crate::exit_codes::GOOD,
            Outcome::PartlyStorageBound => crate::exit_codes::UGLY,
            Outcome::StorageBound => crate::exit_codes::BAD,
        }
    }
}

impl Document for WatchReport {
    const FORMATS: &'static [Format] = &[
        Format::Table,
        Format::Json,
        Format::Markdown,
        Format::Discord,
        Format::Prometheus,
    ];

    fn draw(&self, format: Format, options: &RenderOptions) -> Option<String> {
        Some(match format {
            // -qq: the verdict line alone, as `check -qq` prints its own.
            Format::Table if options.verbosity <= -2 => {
                format!("{}\n", printable(&self.verdict.summary))
            }
            Format::Table => table(self),
            Format::Json => serde_json::to_string_pretty(self).ok()? + "\n",
            Format::Markdown => options.redact(markdown(self)),
            Format::Discord => options.redact(discord(self)),
            Format::Prometheus => prometheus::render(self),
        })
    }
}

fn percent(stall: Option<&Stall>) -> String {
    match stall {
        Some(s) => match s.full {
            Some(full) => format!("some {:.1} %, full {full:.1} %", s.some),
            None => format!("some {:.1} %", s.some),
        },
        None => "unavailable".to_string(),
    }
}

fn mb_per_s(bytes: Option<f64>) -> String {
    bytes.map_or_else(
        || "unreadable".to_string(),
        |b| format!("{:.1} MB/s", b / 1e6),
    )
}

fn level_mark(level: Level) -> &'static str {
    match level {
        Level::Fine => "ok",
        Level::Partly => "partly",
        Level::Bound => "bound",
    }
}

/// One progress line: the figures of the interval just measured.
pub fn progress_line(interval: &Interval, names: &[(u32, String)]) -> String {
    let mut line = format!("{:>6.1}s", interval.start_s + interval.elapsed_s);
    for (device, f) in &interval.devices {
        let _ = write!(
            line,
            "  {device}: r/s {:.0} w/s {:.0} rMB/s {:.1} wMB/s {:.1} r_await {:.2} w_await {:.2} aqu-sz {:.2} util {:.0}%",
            f.reads_per_s,
            f.writes_per_s,
            f.read_kb_per_s / 1000.0,
            f.write_kb_per_s / 1000.0,
            f.r_await,
            f.w_await,
            f.queue_size,
            f.util
        );
    }
    let _ = write!(line, "  io PSI {}", percent(interval.host_io.as_ref()));
    for client in &interval.clients {
        let name = names
            .iter()
            .find(|(pid, _)| *pid == client.pid)
            .map_or("client", |(_, n)| n.as_str());
        let _ = write!(
            line,
            "  {name} r {} w {}",
            mb_per_s(client.read_bytes_per_s),
            mb_per_s(client.write_bytes_per_s)
        );
    }
    printable(&line)
}

fn device_rows(report: &WatchReport) -> Vec<[String; 9]> {
    report
        .devices
        .iter()
        .map(|d| {
            let f = &d.figures;
            [
                printable(&d.name),
                format!("{:.1}", f.reads_per_s),
                format!("{:.1}", f.writes_per_s),
                format!("{:.1}", f.read_kb_per_s),
                format!("{:.1}", f.write_kb_per_s),
                format!("{:.2}", f.r_await),
                format!("{:.2}", f.w_await),
                format!("{:.2}", f.queue_size),
                format!("{:.1}", f.util),
            ]
        })
        .collect()
}

const DEVICE_HEADER: [&str; 9] = [
    "Device", "r/s", "w/s", "rkB/s", "wkB/s", "r_await", "w_await", "aqu-sz", "%util",
];

fn table(report: &WatchReport) -> String {
    let mut out = format!(
        "nodecheck watch {} ({:.0} s, every {:.1} s)\n\n",
        printable(&report.path),
        report.seconds,
        report.interval_seconds
    );
    if let Some(source) = &report.source {
        let _ = writeln!(out, "Source: {}\n", printable(source));
    }
    let mut devices = comfy_table::Table::new();
    devices.load_preset(comfy_table::presets::NOTHING);
    devices.set_header(DEVICE_HEADER);
    for row in device_rows(report) {
        devices.add_row(row);
    }
    if !report.devices.is_empty() {
        let _ = writeln!(out, "{devices}\n");
    }
    let p = &report.host_pressure;
    let _ = writeln!(
        out,
        "Host pressure (PSI): io {}; cpu {}; memory {}",
        percent(p.io.as_ref()),
        percent(p.cpu.as_ref()),
        percent(p.memory.as_ref())
    );
    for c in &report.clients {
        let _ = writeln!(
            out,
            "Client {} (pid {}{}): reads {}, writes {}; cgroup io PSI {}",
            printable(&c.client),
            c.pid,
            if c.container { ", in a container" } else { "" },
            mb_per_s(c.figures.read_bytes_per_s),
            mb_per_s(c.figures.write_bytes_per_s),
            percent(c.figures.io.as_ref())
        );
    }
    if let Some(l) = &report.latency_probe {
        let _ = writeln!(
            out,
            "Latency probe ({} QD1 4 KiB O_DIRECT reads of the chain's blocks): p50 {:.0} µs, p90 {:.0} µs, p99 {:.0} µs, max {:.0} µs",
            l.reads, l.p50_us, l.p90_us, l.p99_us, l.max_us
        );
    }
    out.push('\n');
    let _ = writeln!(out, "{}", printable(&report.verdict.summary));
    for e in &report.verdict.evidence {
        let _ = writeln!(
            out,
            "  [{}] {}: {} ({})",
            level_mark(e.level),
            printable(&e.figure),
            shown(e.value, &e.unit),
            e.thresholds
        );
    }
    out.push_str(
        "  %util is shown, not judged: on NVMe and RAID it can reach 100 % with room to spare.\n",
    );
    list(&mut out, "Next steps", &report.verdict.next_steps, "  - ");
    list(&mut out, "Caveats", &report.verdict.caveats, "  - ");
    list(&mut out, "Needs root", &report.needs_root, "  - ");
    list(&mut out, "Notes", &report.notes, "  - ");
    out
}

fn list(out: &mut String, title: &str, items: &[String], bullet: &str) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}:");
    for item in items {
        let _ = writeln!(out, "{bullet}{}", printable(item));
    }
}

fn shown(value: f64, unit: &str) -> String {
    match unit {
        "%" => format!("{value:.1} %"),
        "ms" => format!("{value:.2} ms"),
        "us" => format!("{value:.0} µs"),
        _ => format!("{value:.1} {unit}"),
    }
}

fn markdown(report: &WatchReport) -> String {
    let mut out = format!(
        "### nodecheck watch: {}\n\n`{}`, {:.0} s sampled every {:.1} s (nodecheck {})\n\n",
        report.verdict.summary,
        report.path,
        report.seconds,
        report.interval_seconds,
        report.nodecheck_version
    );
    if !report.devices.is_empty() {
        let _ = writeln!(out, "| {} |", DEVICE_HEADER.join(" | "));
        let _ = writeln!(out, "|{}", "---|".repeat(DEVICE_HEADER.len()));
        for row in device_rows(report) {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        out.push('\n');
    }
    let p = &report.host_pressure;
    let _ = writeln!(
        out,
        "- Host PSI: io {}; cpu {}; memory {}",
        percent(p.io.as_ref()),
        percent(p.cpu.as_ref()),
        percent(p.memory.as_ref())
    );
    for c in &report.clients {
        let _ = writeln!(
            out,
            "- {} (pid {}): reads {}, writes {}; cgroup io PSI {}",
            c.client,
            c.pid,
            mb_per_s(c.figures.read_bytes_per_s),
            mb_per_s(c.figures.write_bytes_per_s),
            percent(c.figures.io.as_ref())
        );
    }
    if let Some(l) = &report.latency_probe {
        let _ = writeln!(
            out,
            "- Latency probe: p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs over {} reads",
            l.p50_us, l.p99_us, l.max_us, l.reads
        );
    }
    out.push_str("\n**Evidence**\n\n");
    for e in &report.verdict.evidence {
        let _ = writeln!(
            out,
            "- {} — {}: {} ({})",
            level_mark(e.level),
            e.figure,
            shown(e.value, &e.unit),
            e.thresholds
        );
    }
    out.push_str("\n**Next steps**\n\n");
    for step in report
        .verdict
        .next_steps
        .iter()
        .chain(&report.verdict.caveats)
        .chain(&report.needs_root)
        .chain(&report.notes)
    {
        let _ = writeln!(out, "- {step}");
    }
    out
}

/// Discord caps a message at 2000 characters: the verdict, the worst figures, the first step.
fn discord(report: &WatchReport) -> String {
    let mut out = format!(
        "**nodecheck watch** `{}` ({:.0} s)\n**{}**\n",
        report.path, report.seconds, report.verdict.summary
    );
    for d in &report.devices {
        let f = &d.figures;
        let _ = writeln!(
            out,
            "`{}` r/s {:.0} w/s {:.0} r_await {:.2} ms w_await {:.2} ms aqu-sz {:.2} util {:.0} %",
            d.name, f.reads_per_s, f.writes_per_s, f.r_await, f.w_await, f.queue_size, f.util
        );
    }
    let _ = writeln!(out, "PSI io {}", percent(report.host_pressure.io.as_ref()));
    if let Some(l) = &report.latency_probe {
        let _ = writeln!(out, "QD1 probe p99 {:.0} µs", l.p99_us);
    }
    if let Some(step) = report.verdict.next_steps.first() {
        let _ = writeln!(out, "> {step}");
    }
    super::clip(&out, 1990)
}
