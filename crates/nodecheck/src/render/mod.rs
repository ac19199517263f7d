//! One module per output format. Renderers are pure: a [`Report`] in, text out. They never
//! read the machine, and redaction is applied to their finished text.

pub mod discord;
pub mod json;
pub mod markdown;
pub mod prometheus;
pub mod table;

use std::io::IsTerminal;

use crate::config::Format;
use crate::redact::Redactor;
use crate::report::Report;

/// How to render, decided once from the terminal and the command line.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// ANSI colors in the table.
    pub color: bool,
    /// 0 normal; negative quieter; positive shows passed checks and unavailable facts.
    pub verbosity: i8,
}

impl RenderOptions {
    /// Colors only on a terminal and only when `NO_COLOR` is unset or empty
    /// (<https://no-color.org>).
    pub fn for_stdout(verbosity: i8) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        RenderOptions {
            color: !no_color && std::io::stdout().is_terminal(),
            verbosity,
        }
    }
}

/// Renders the report in a format; markdown and discord are redacted by `redactor` when given.
pub fn render(
    report: &Report,
    format: Format,
    options: &RenderOptions,
    redactor: Option<&Redactor>,
) -> String {
    match format {
        Format::Table => table::render(report, options),
        Format::Json => json::render(report),
        Format::Prometheus => prometheus::render(report),
        Format::Markdown => {
            let text = markdown::render(report);
            match redactor {
                Some(r) => r.redact(&text),
                None => text,
            }
        }
        // Redaction can lengthen text, so discord trims after redacting.
        Format::Discord => discord::render(report, redactor),
    }
}

pub use units::text::clip;

/// A client as the findings name it (`Reth`), from its id in the report (`reth`).
pub fn client_display(id: &str) -> String {
    let mut chars = id.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Replaces control characters (from hostile sysfs strings) so they cannot move the cursor
/// or break a line-oriented format.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// A fact for display: clipped, printable, `unknown` when absent.
pub fn shown(value: Option<&str>, max: usize) -> String {
    match value {
        Some(v) if !v.trim().is_empty() => printable(&clip(v.trim(), max)),
        _ => "unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_counts_characters_not_bytes() {
        assert_eq!(clip("µµµµ", 3), "µµ…");
        assert_eq!(clip("abc", 3), "abc");
    }

    #[test]
    fn control_characters_are_neutralised() {
        assert_eq!(printable("a\u{1b}[2Jb\n"), "a?[2Jb?");
    }
}

/// Phrases shared by the human-readable formats.
pub mod text {
    use probe::{AtimeMode, Drive, Facts, Interface};

    use super::{clip, shown};
    use units::latency::format_us as format_latency_us;
    use units::size::{binary as format_binary, decimal as format_decimal};

    pub fn atime(mode: AtimeMode) -> &'static str {
        match mode {
            AtimeMode::Noatime => "noatime",
            AtimeMode::Relatime => "relatime",
            AtimeMode::Strictatime => "strictatime",
        }
    }

    pub fn interface(interface: Option<Interface>) -> &'static str {
        match interface {
            Some(Interface::Nvme) => "NVMe",
            Some(Interface::Sata) => "SATA",
            Some(Interface::Sas) => "SAS",
            Some(Interface::Usb) => "USB",
            Some(Interface::Virtio) => "virtio",
            Some(Interface::Xen) => "Xen",
            Some(Interface::Mmc) => "MMC",
            Some(Interface::Unknown) | None => "unknown",
        }
    }

    /// `/ (ext4, noatime, 129 GB free of 2 TB)`: decimal, like drive sizes and the findings
    /// about free space, so the header and NC511 print the same figure.
    pub fn mount(facts: &Facts) -> String {
        let Some(m) = &facts.mount else {
            return "mount not found".to_string();
        };
        let mut parts = vec![
            super::printable(&clip(&m.fs_type, 20)),
            atime(m.atime).to_string(),
        ];
        if m.lazytime {
            parts.push("lazytime".into());
        }
        if m.discard {
            parts.push("discard".into());
        }
        if let (Some(free), Some(total)) = (m.free_bytes, m.total_bytes) {
            parts.push(format!(
                "{} free of {}",
                format_decimal(free),
                format_decimal(total)
            ));
        }
        format!(
            "{} ({})",
            super::printable(&clip(&m.mount_point, 60)),
            parts.join(", ")
        )
    }

    /// `dm-0 → nvme0n1p2 → nvme0n1`.
    pub fn stack(facts: &Facts) -> String {
        if facts.stack.is_empty() {
            return "not resolved".to_string();
        }
        let names: Vec<String> = facts
            .stack
            .iter()
            .map(|n| super::printable(&clip(n, 24)))
            .collect();
        clip(&names.join(" → "), 120)
    }

    pub fn platform(facts: &Facts) -> Option<String> {
        let p = &facts.platform;
        let mut parts = Vec::new();
        if let Some(cloud) = &p.cloud {
            parts.push(super::printable(&clip(cloud, 20)));
        }
        let dmi: Vec<String> = [&p.sys_vendor, &p.product_name]
            .into_iter()
            .flatten()
            .map(|s| super::printable(&clip(s.trim(), 30)))
            .collect();
        if !dmi.is_empty() {
            parts.push(dmi.join(" "));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    pub fn capacity(drive: &Drive) -> String {
        drive
            .capacity_bytes
            .map(format_decimal)
            .unwrap_or_else(|| "unknown".into())
    }

    pub fn temperature(drive: &Drive) -> String {
        match drive.temperature_c {
            Some(t) if t.is_finite() => format!("{t:.0} °C"),
            _ => "unknown".into(),
        }
    }

    pub fn model(drive: &Drive, max: usize) -> String {
        shown(drive.model.as_deref(), max)
    }

    pub fn firmware(drive: &Drive) -> String {
        shown(drive.firmware.as_deref(), 16)
    }

    /// `QD1 4k random read: p50 85 µs, p99 210 µs, p99.9 400 µs, max 1.2 ms (11k IOPS, file, io_uring)`.
    pub fn qd1(bench: &bench::BenchReport) -> Option<String> {
        let q = bench.qd1.as_ref()?;
        Some(format!(
            "QD1 4k random read: p50 {}, p99 {}, p99.9 {}, max {} ({:.0} IOPS on a {} over {}, {}{})",
            format_latency_us(q.lat_us.p50),
            format_latency_us(q.lat_us.p99),
            format_latency_us(q.lat_us.p999),
            format_latency_us(q.lat_us.max),
            q.iops,
            clip(&q.target, 10),
            format_binary(q.span_bytes),
            q.engine.name(),
            if q.cpus.is_empty() {
                String::new()
            } else {
                format!(", CPU {}", bench::affinity::format_cpu_list(&q.cpus))
            },
        ))
    }

    pub fn randrw(bench: &bench::BenchReport) -> Option<String> {
        let r = bench.randrw.as_ref()?;
        Some(format!(
            "randrw 75/25 4k QD{}: {:.0} read / {:.0} write IOPS over {}{}{}",
            r.queue_depth,
            r.read_iops,
            r.write_iops,
            format_binary(r.span_bytes),
            if r.cpus.is_empty() {
                String::new()
            } else {
                format!(" on CPU {}", bench::affinity::format_cpu_list(&r.cpus))
            },
            if r.fio_comparable {
                ""
            } else {
                " (smaller than the list's 150G: not comparable)"
            },
        ))
    }

    /// `sync cycle (1 GiB write bursts at QD32): QD1 read p99 95 µs alone, p99 1.2 ms / max
    /// 4.1 ms during bursts, recovery 120 ms (median), bursts 850 MB/s`.
    pub fn sync(bench: &bench::BenchReport) -> Option<String> {
        let s = bench.sync.as_ref()?;
        let recovery = match (s.recovery_ms_median, s.unrecovered_cycles) {
            (Some(median), 0) => format!("recovery {median:.0} ms (median)"),
            (Some(median), n) => format!(
                "recovery {median:.0} ms (median), {n} cycles not recovered in {:.0} s",
                s.recovery_timeout_s
            ),
            (None, _) => format!(
                "reads not back to baseline within {:.0} s",
                s.recovery_timeout_s
            ),
        };
        Some(format!(
            "sync cycle ({} write bursts at QD{}): QD1 read p99 {} alone, p99 {} / max {} during bursts, {recovery}, bursts {:.0} MB/s",
            format_binary(s.burst_bytes),
            s.burst_queue_depth,
            format_latency_us(s.baseline_lat_us.p99),
            format_latency_us(s.burst_lat_us.p99),
            format_latency_us(s.burst_lat_us.max),
            s.burst_write_mb_s,
        ))
    }

    /// `span: QD1 read latency over 1 GiB to 150 GiB: mean 1.04x, p99 1.10x`.
    pub fn span(bench: &bench::BenchReport) -> Option<String> {
        let s = bench.span.as_ref()?;
        let (first, last) = (s.points.first()?, s.points.last()?);
        Some(format!(
            "span: QD1 read latency over {} to {}: mean {:.2}x, p99 {:.2}x (largest/smallest span)",
            format_binary(first.span_bytes),
            format_binary(last.span_bytes),
            s.latency_ratio,
            s.p99_ratio,
        ))
    }

    /// `cliff: writes fell to 80 MB/s after 23.4 GB` or `cliff: none in 40.0 GB written`.
    /// Every measurement line the bench produced, in report order (qd1, randrw, sync, span,
    /// cliff): what the table and markdown renderers both list.
    pub fn measurements(bench: &bench::BenchReport) -> impl Iterator<Item = String> {
        [
            qd1(bench),
            randrw(bench),
            sync(bench),
            span(bench),
            cliff(bench),
        ]
        .into_iter()
        .flatten()
    }

    pub fn cliff(bench: &bench::BenchReport) -> Option<String> {
        let c = bench.cliff.as_ref()?;
        Some(match (c.cache_estimate_bytes, c.post_cliff_mb_s) {
            (Some(cache), Some(post)) => format!(
                "cliff: writes fell from {:.0} to {post:.0} MB/s after {:.1} GB",
                c.pre_cliff_mb_s,
                cache as f64 / 1e9
            ),
            _ => format!(
                "cliff: none in {:.1} GB written ({:.0} MB/s throughout)",
                c.written_bytes as f64 / 1e9,
                c.pre_cliff_mb_s
            ),
        })
    }

    /// What a plot of `bench` shows, in one line (its panels follow bench::plot::render_svg).
    pub fn plot_caption(bench: &bench::BenchReport) -> String {
        let mut panels = Vec::new();
        if bench.sync.is_some() {
            panels.push(
                "QD1 read latency over time through the sync test's write bursts and recovery",
            );
        }
        if bench.cliff.is_some() {
            panels.push("write throughput over the gigabytes written, with the cliff marked");
        }
        if bench.span.is_some() {
            panels.push("QD1 read latency over the span test's growing spans");
        }
        if panels.is_empty() {
            return "Plot of the behaviour tests".to_string();
        }
        let mut caption = panels.join("; ");
        caption[..1].make_ascii_uppercase();
        caption
    }
}
