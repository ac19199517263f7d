//! Phrases shared by the human-readable formats: a mount, a drive stack, a measurement, each
//! in the words every text format uses.

use probe::{AtimeMode, Drive, Facts, Interface};

use super::{clip, printable, shown};
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
    // Not an error: a saved smartctl output, for one, has no mount to show.
    let Some(m) = &facts.mount else {
        return "not known".to_string();
    };
    let mut parts = vec![printable(&clip(&m.fs_type, 20)), atime(m.atime).to_string()];
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
        printable(&clip(&m.mount_point, 60)),
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
        .map(|n| printable(&clip(n, 24)))
        .collect();
    clip(&names.join(" → "), 120)
}

pub fn platform(facts: &Facts) -> Option<String> {
    let p = &facts.platform;
    let mut parts = Vec::new();
    if let Some(cloud) = &p.cloud {
        parts.push(printable(&clip(cloud, 20)));
    }
    let dmi: Vec<String> = [&p.sys_vendor, &p.product_name]
        .into_iter()
        .flatten()
        .map(|s| printable(&clip(s.trim(), 30)))
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

/// `QD1 4 KiB random read: p50 85 µs, p99 210 µs, p99.9 400 µs, max 1.2 ms (11765 IOPS on a
/// file over 1 GiB, io_uring engine, on CPU 1) — good: p99 and max within the 300 µs p99 and
/// 1.0 ms max that good drives stay under at rest (data/behaviour.toml)`: the figures, then
/// the QD1 rule's judgement of them with the figures it holds them to.
pub fn qd1(bench: &bench::BenchReport) -> Option<String> {
    let q = bench.qd1.as_ref()?;
    let judged = verdict::qd1_judgement(bench)
        .map(|(severity, why)| format!(" — {}: {why}", qd1_word(severity)))
        .unwrap_or_default();
    Some(format!(
        "QD1 4 KiB random read: p50 {}, p99 {}, p99.9 {}, max {} ({:.0} IOPS on a {} over {}, {} engine{}){judged}",
        format_latency_us(q.lat_us.p50),
        format_latency_us(q.lat_us.p99),
        format_latency_us(q.lat_us.p999),
        format_latency_us(q.lat_us.max),
        q.iops,
        clip(&q.target, 10),
        format_binary(q.span_bytes),
        q.engine.name(),
        (q.placement.cpu_list())
            .map(|cpus| format!(", on CPU {cpus}"))
            .unwrap_or_default(),
    ))
}

/// The word a QD1 judgement starts with: what the operator wants to know first.
pub fn qd1_word(severity: verdict::Severity) -> &'static str {
    match severity {
        verdict::Severity::Critical => "too slow",
        verdict::Severity::Warning => "slow",
        _ => "good",
    }
}

pub fn randrw(bench: &bench::BenchReport) -> Option<String> {
    let r = bench.randrw.as_ref()?;
    Some(format!(
        "randrw 75/25 4 KiB QD{}: {:.0} read / {:.0} write IOPS over {}{}{}",
        r.queue_depth,
        r.read_iops,
        r.write_iops,
        format_binary(r.span_bytes),
        (r.placement.cpu_list())
            .map(|cpus| format!(" on CPU {cpus}"))
            .unwrap_or_default(),
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
    let recovery = match (s.recovery.recovery_ms_median, s.recovery.unrecovered_cycles) {
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

/// `cliff: writes fell from 900 to 80 MB/s after 23.4 GB` or `cliff: none in 40.0 GB written`.
pub fn cliff(bench: &bench::BenchReport) -> Option<String> {
    let c = bench.cliff.as_ref()?;
    Some(
        match (c.drop.cache_estimate_bytes, c.drop.post_cliff_mb_s) {
            (Some(cache), Some(post)) => format!(
                "cliff: writes fell from {:.0} to {post:.0} MB/s after {:.1} GB",
                c.drop.pre_cliff_mb_s,
                cache as f64 / 1e9
            ),
            _ => format!(
                "cliff: none in {:.1} GB written ({:.0} MB/s throughout)",
                c.written_bytes as f64 / 1e9,
                c.drop.pre_cliff_mb_s
            ),
        },
    )
}

/// What a plot of `bench` shows, in one line (its panels follow [`super::plot::render_svg`]).
pub fn plot_caption(bench: &bench::BenchReport) -> String {
    let mut panels = Vec::new();
    if bench.sync.is_some() {
        panels.push("QD1 read latency over time through the sync test's write bursts and recovery");
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
