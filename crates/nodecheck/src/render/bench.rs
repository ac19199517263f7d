//! A bench result (`nodecheck bench`): text for the terminal, markdown for a post, JSON.

use std::fmt::Write as _;

use bench::{BenchReport, ByteSize, LatencySummary};

use super::{json, markdown, printable, Document, Format, RenderOptions};

/// What `nodecheck bench` measured, and where its plot was drawn (the markdown links it).
#[derive(Debug, Clone)]
pub struct BenchDocument<'a> {
    pub report: &'a BenchReport,
    pub plot: Option<String>,
}

impl Document for BenchDocument<'_> {
    const FORMATS: &'static [Format] = &[Format::Table, Format::Json, Format::Markdown];

    fn draw(&self, format: Format, options: &RenderOptions) -> Option<String> {
        match format {
            Format::Table => Some(render_text(self.report)),
            Format::Json => Some(json::render(self.report)),
            Format::Markdown => {
                let report = options.redacted(self.report);
                Some(options.redact(markdown::render_bench(&report, self.plot.as_deref())))
            }
            Format::Discord | Format::Prometheus => None,
        }
    }
}

fn latency_line(label: &str, lat: &LatencySummary) -> String {
    format!(
        "  {label:<14} mean {:.1}  p50 {:.1}  p90 {:.1}  p99 {:.1}  p99.9 {:.1}  max {:.1}\n",
        lat.mean, lat.p50, lat.p90, lat.p99, lat.p999, lat.max
    )
}

/// The human-readable result.
fn render_text(report: &BenchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "nodecheck bench {} (engine {})",
        printable(&report.path),
        report.engine.name()
    );
    if let Some(reason) = &report.engine_reason {
        let _ = writeln!(out, "  engine: {}", printable(reason));
    }
    if let Some(qd1) = &report.qd1 {
        let _ = writeln!(
            out,
            "\nQD1 4 KiB random read ({} of {}, {:.0} s): {:.0} IOPS",
            qd1.target,
            ByteSize(qd1.span_bytes),
            qd1.runtime_s,
            qd1.iops
        );
        out.push_str(&latency_line("latency µs", &qd1.lat_us));
        if let Some(span) = &qd1.read_span {
            let _ = writeln!(
                out,
                "  read: {}{}",
                span.kind,
                span.why
                    .as_deref()
                    .map(|why| format!(" ({why})"))
                    .unwrap_or_default()
            );
        }
        // A handful among tens of thousands changes no percentile; say so once it could.
        if qd1.reads_timed_through_submit > 0 && qd1.reads_timed_through_submit * 100 >= qd1.ios {
            let _ = writeln!(
                out,
                "  timing: {} of {} reads completed inside the call that submitted them; those \
                 are timed from before the call (fio's lat), the rest from its return (fio's clat)",
                qd1.reads_timed_through_submit, qd1.ios
            );
        }
        if let Some((severity, why)) = verdict::qd1_judgement(report) {
            let _ = writeln!(out, "  {}: {why}", super::text::qd1_word(severity));
        }
        if let Some(pinning) = &qd1.placement.pinning {
            let _ = writeln!(out, "  {pinning}");
        }
    }
    if let Some(rw) = &report.randrw {
        let _ = writeln!(
            out,
            "\nrandrw 4 KiB 75/25 QD{} ({} span, {:.0} s, {}comparable with the community's \
             150G fio figure)",
            rw.queue_depth,
            ByteSize(rw.span_bytes),
            rw.runtime_s,
            if rw.fio_comparable { "" } else { "not " }
        );
        let _ = writeln!(
            out,
            "  read  {:>9.0} IOPS  {:>7.1} MB/s",
            rw.read_iops,
            rw.read_bw_bytes_per_s / 1e6
        );
        let _ = writeln!(
            out,
            "  write {:>9.0} IOPS  {:>7.1} MB/s",
            rw.write_iops,
            rw.write_bw_bytes_per_s / 1e6
        );
        out.push_str(&latency_line("read lat µs", &rw.read_lat_us));
        out.push_str(&latency_line("write lat µs", &rw.write_lat_us));
        if let Some(pinning) = &rw.placement.pinning {
            let _ = writeln!(out, "  {pinning}");
        }
    }
    render_behaviour(&mut out, report);
    if !report.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for warning in &report.warnings {
            let _ = writeln!(out, "  - {}", printable(warning));
        }
    }
    out
}

/// The sync, cliff and span results (docs/behaviour.md explains them).
fn render_behaviour(out: &mut String, report: &BenchReport) {
    if let Some(sync) = &report.sync {
        let _ = writeln!(
            out,
            "\nsync: {} cycles of QD1 reads + {} random writes at QD{} with fdatasync ({:.0} s, \
             reads {}, bursts {})",
            sync.cycles.len(),
            ByteSize(sync.burst_bytes),
            sync.burst_queue_depth,
            sync.runtime_s,
            sync.engine.name(),
            sync.burst_engine.unwrap_or(sync.engine).name()
        );
        out.push_str(&latency_line("baseline µs", &sync.baseline_lat_us));
        out.push_str(&latency_line("in burst µs", &sync.burst_lat_us));
        let recovery = match (
            sync.recovery.recovery_ms_median,
            sync.recovery.recovery_ms_max,
        ) {
            (Some(median), Some(max)) => format!("median {median:.0} ms, worst {max:.0} ms"),
            _ => "none recovered".to_string(),
        };
        let _ = writeln!(
            out,
            "  burst writes {:.0} MB/s; recovery to p99 within {:.0} % of baseline: {recovery}{}",
            sync.burst_write_mb_s,
            sync.recovery_tolerance * 100.0,
            if sync.recovery.unrecovered_cycles > 0 {
                format!(
                    " ({} cycles not recovered after {:.0} s)",
                    sync.recovery.unrecovered_cycles, sync.recovery_timeout_s
                )
            } else {
                String::new()
            }
        );
    }
    if let Some(cliff) = &report.cliff {
        let _ = writeln!(
            out,
            "\ncliff: {:.1} GB written in {:.0} s ({}), {:.0} MB/s before any drop",
            cliff.written_bytes as f64 / 1e9,
            cliff.runtime_s,
            cliff.engine.name(),
            cliff.drop.pre_cliff_mb_s
        );
        match (cliff.drop.cache_estimate_bytes, cliff.drop.post_cliff_mb_s) {
            (Some(cache), Some(post)) => {
                let _ = writeln!(
                    out,
                    "  writes fell to {post:.0} MB/s after {:.1} GB (write cache size, roughly)",
                    cache as f64 / 1e9
                );
            }
            _ => {
                let _ = writeln!(out, "  no cliff before the test stopped ({:?})", cliff.stop);
            }
        }
    }
    if let Some(span) = &report.span {
        let _ = writeln!(
            out,
            "\nspan: QD1 read latency over growing spans ({}; largest/smallest mean {:.2}x)",
            span.engine.name(),
            span.latency_ratio
        );
        for point in &span.points {
            out.push_str(&latency_line(
                &format!("{}", ByteSize(point.span_bytes)),
                &point.lat_us,
            ));
        }
    }
}
