//! Plots of the behaviour tests, for people who would rather look than read: read latency over
//! time through the sync test's bursts, write throughput over the gigabytes written in the
//! cliff test, and read latency over the spans of the span test. SVG only: it needs no font files or native libraries, so it renders the same on
//! every machine and embeds in a markdown report or a GitHub comment.

use std::path::Path;

use plotters::prelude::*;

use crate::behaviour::{CliffResult, SpanResult, SyncPhase, SyncResult, WritePattern};
use crate::report::BenchReport;

const WIDTH: u32 = 1000;
const PANEL_HEIGHT: u32 = 500;

const READ_COLOUR: RGBColor = RGBColor(31, 119, 180);
const BURST_COLOUR: RGBColor = RGBColor(214, 39, 40);
const RECOVERY_COLOUR: RGBColor = RGBColor(255, 127, 14);
const BASELINE_COLOUR: RGBColor = RGBColor(44, 160, 44);
const SEQUENTIAL_COLOUR: RGBColor = RGBColor(31, 119, 180);
const RANDOM_COLOUR: RGBColor = RGBColor(148, 103, 189);
const CLIFF_COLOUR: RGBColor = RGBColor(214, 39, 40);
const MEAN_COLOUR: RGBColor = RGBColor(31, 119, 180);
const P99_COLOUR: RGBColor = RGBColor(255, 127, 14);

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("nothing to plot: the report has no sync, cliff or span result")]
    Nothing,
    #[error("only SVG plots are supported; name the file *.svg (got {0})")]
    Format(String),
    #[error("drawing the plot failed: {0}")]
    Draw(String),
    #[error("writing {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn draw_err<E: std::fmt::Debug>(e: E) -> PlotError {
    PlotError::Draw(format!("{e:?}"))
}

/// The legend box every panel draws, in one style.
fn draw_legend<'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    position: SeriesLabelPosition,
) -> Result<(), PlotError> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(draw_err)
}

/// Burst sizes are set in binary units (`--burst 1GiB`), so they are shown that way.
fn format_size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{:.0} MiB", bytes as f64 / MIB as f64)
    }
}

/// A GiB tick label with two significant digits below 10 GiB, so that the spans of a small test
/// file (8 MiB = 0.0078 GiB) do not all read `0.0`.
fn gib_label(gib: f64) -> String {
    if !gib.is_finite() || gib <= 0.0 {
        return "0".to_string();
    }
    if gib >= 10.0 {
        return format!("{gib:.0}");
    }
    let decimals = (1.0 - gib.log10().floor()).clamp(0.0, 9.0) as usize;
    format!("{gib:.decimals$}")
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw_sync(area: &Area<'_>, sync: &SyncResult) -> Result<(), PlotError> {
    let t_max = sync
        .samples
        .iter()
        .map(|p| p.t_s)
        .fold(sync.runtime_s, f64::max)
        .max(1e-3);
    let finite = sync
        .samples
        .iter()
        .map(|p| p.lat_us)
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = finite.fold((f64::MAX, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if hi > 0.0 {
        ((lo / 1.5).max(0.1), hi * 1.5)
    } else {
        (1.0, 1000.0)
    };
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "sync: QD1 read latency through {} write bursts (QD{})",
                format_size(sync.burst_bytes),
                sync.burst_queue_depth
            ),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..t_max, (lo..hi).log_scale())
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("QD1 read latency (us, log)")
        .light_line_style(WHITE)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(draw_err)?;
    for (phase, colour, label) in [
        (SyncPhase::Read, READ_COLOUR, "reads alone"),
        (SyncPhase::Burst, BURST_COLOUR, "reads during write burst"),
        (
            SyncPhase::Recovery,
            RECOVERY_COLOUR,
            "reads after fdatasync (recovery)",
        ),
    ] {
        let points = sync
            .samples
            .iter()
            .filter(|p| p.phase == phase && p.lat_us.is_finite() && p.lat_us > 0.0)
            .map(|p| Circle::new((p.t_s, p.lat_us), 1, colour.filled()));
        chart
            .draw_series(points)
            .map_err(draw_err)?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, colour.filled()));
    }
    let tolerance = sync.baseline_lat_us.p99 * (1.0 + sync.recovery_tolerance);
    if tolerance.is_finite() && tolerance > 0.0 {
        chart
            .draw_series(LineSeries::new(
                [(0.0, tolerance), (t_max, tolerance)],
                BASELINE_COLOUR.stroke_width(2),
            ))
            .map_err(draw_err)?
            .label(format!(
                "baseline p99 + {:.0} % (recovered below)",
                sync.recovery_tolerance * 100.0
            ))
            .legend(|(x, y)| {
                PathElement::new([(x, y), (x + 20, y)], BASELINE_COLOUR.stroke_width(2))
            });
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

fn draw_cliff(area: &Area<'_>, cliff: &CliffResult) -> Result<(), PlotError> {
    let gb = |bytes: u64| bytes as f64 / 1e9;
    let x_max = gb(cliff.written_bytes).max(1e-3);
    let y_max = cliff
        .samples
        .iter()
        .map(|p| p.mb_s)
        .filter(|v| v.is_finite())
        .fold(1.0_f64, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "cliff: sustained write throughput over data written",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("written (GB)")
        .y_desc("write throughput (MB/s)")
        .light_line_style(WHITE)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(draw_err)?;
    for (pattern, colour, label) in [
        (
            WritePattern::Sequential,
            SEQUENTIAL_COLOUR,
            "sequential writes",
        ),
        (WritePattern::Random, RANDOM_COLOUR, "random writes"),
    ] {
        // Each interval's throughput held over the gigabytes it wrote: a step per interval.
        let mut before = 0;
        let mut points: Vec<(f64, f64)> = Vec::new();
        for p in &cliff.samples {
            if p.pattern == pattern && p.mb_s.is_finite() {
                points.push((gb(before), p.mb_s));
                points.push((gb(p.written_bytes), p.mb_s));
            }
            before = p.written_bytes;
        }
        if points.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(draw_err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    if let (Some(cache), Some(post)) = (cliff.cache_estimate_bytes, cliff.post_cliff_mb_s) {
        let at = gb(cache);
        chart
            .draw_series(LineSeries::new(
                [(at, 0.0), (at, y_max)],
                CLIFF_COLOUR.stroke_width(1),
            ))
            .map_err(draw_err)?
            .label(format!("cliff after {at:.1} GB, then {post:.0} MB/s"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], CLIFF_COLOUR));
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

fn draw_span(area: &Area<'_>, span: &SpanResult) -> Result<(), PlotError> {
    let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
    let finite = |v: f64| v.is_finite() && v > 0.0;
    let points: Vec<(f64, f64, f64)> = span
        .points
        .iter()
        .filter(|p| p.span_bytes > 0 && finite(p.lat_us.mean) && finite(p.lat_us.p99))
        .map(|p| (gib(p.span_bytes), p.lat_us.mean, p.lat_us.p99))
        .collect();
    let x_lo = points.iter().map(|p| p.0).fold(f64::MAX, f64::min);
    let x_hi = points.iter().map(|p| p.0).fold(0.0_f64, f64::max);
    let (x_lo, x_hi) = if x_hi > 0.0 {
        (x_lo / 1.5, x_hi * 1.5)
    } else {
        (0.5, 2.0)
    };
    let y_hi = points.iter().map(|p| p.2).fold(1.0_f64, f64::max) * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "span: QD1 read latency over growing spans ({:.2}x largest/smallest)",
                span.latency_ratio
            ),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x_lo..x_hi).log_scale(), 0.0..y_hi)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("span of the random reads (GiB, log)")
        .y_desc("QD1 read latency (us)")
        .light_line_style(WHITE)
        .x_label_formatter(&|v| gib_label(*v))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(draw_err)?;
    for (pick, colour, label) in [(0usize, MEAN_COLOUR, "mean"), (1usize, P99_COLOUR, "p99")] {
        let line: Vec<(f64, f64)> = points
            .iter()
            .map(|p| (p.0, if pick == 0 { p.1 } else { p.2 }))
            .collect();
        chart
            .draw_series(LineSeries::new(line.clone(), colour.stroke_width(2)))
            .map_err(draw_err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        chart
            .draw_series(line.into_iter().map(|p| Circle::new(p, 3, colour.filled())))
            .map_err(draw_err)?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)
}

/// Renders the report's sync, cliff and span results (whichever are present, one panel each)
/// as SVG.
pub fn render_svg(report: &BenchReport) -> Result<String, PlotError> {
    let panels = usize::from(report.sync.is_some())
        + usize::from(report.cliff.is_some())
        + usize::from(report.span.is_some());
    if panels == 0 {
        return Err(PlotError::Nothing);
    }
    let mut svg = String::new();
    {
        let height = PANEL_HEIGHT * panels as u32;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let areas = root.split_evenly((panels, 1));
        let mut areas = areas.iter();
        if let Some(sync) = &report.sync {
            if let Some(area) = areas.next() {
                draw_sync(area, sync)?;
            }
        }
        if let Some(cliff) = &report.cliff {
            if let Some(area) = areas.next() {
                draw_cliff(area, cliff)?;
            }
        }
        if let Some(span) = &report.span {
            if let Some(area) = areas.next() {
                draw_span(area, span)?;
            }
        }
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

/// Whether a plot can be written to `path` (it must end in `.svg`); check before a long run.
pub fn check_plot_path(path: &Path) -> Result<(), PlotError> {
    let is_svg = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("svg"));
    if is_svg {
        Ok(())
    } else {
        Err(PlotError::Format(path.display().to_string()))
    }
}

/// Renders and writes the plot to `path`, which must end in `.svg`.
pub fn write_plot(report: &BenchReport, path: &Path) -> Result<(), PlotError> {
    check_plot_path(path)?;
    let svg = render_svg(report)?;
    std::fs::write(path, svg).map_err(|source| PlotError::Write {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::gib_label;

    #[test]
    fn small_spans_keep_two_significant_digits() {
        assert_eq!(gib_label(128.0), "128");
        assert_eq!(gib_label(1.5), "1.5");
        assert_eq!(gib_label(0.5), "0.50");
        assert_eq!(gib_label(8.0 / 1024.0), "0.0078");
        assert_eq!(gib_label(0.0), "0");
        assert_eq!(gib_label(f64::NAN), "0");
    }
}
