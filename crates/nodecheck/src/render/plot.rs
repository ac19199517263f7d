//! Plots of the behaviour tests, for people who would rather look than read: read latency over
//! time through the sync test's bursts, write throughput over the gigabytes written in the
//! cliff test, and read latency over the spans of the span test. Drawn as SVG (embeds in a
//! markdown report or a GitHub comment) and rasterised from that SVG to a PNG beside it, for
//! chats and forums that do not show SVG. The PNG is rendered with a font built into the
//! binary, so it looks the same on every machine, with or without fonts installed.

use std::ops::Range;
use std::sync::Arc;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, KeyPointWeight, Ranged};
use plotters::prelude::*;

use bench::behaviour::{CliffResult, SpanResult, SyncPhase, SyncResult, WritePattern};
use bench::BenchReport;

mod file;

pub use file::{check_plot_path, write_plot};

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

/// DejaVu Sans (Bitstream Vera license, see `assets/DejaVuSans-LICENSE`): the plots' text in
/// the PNG, whatever fonts the machine has.
const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
const FONT_FAMILY: &str = "DejaVu Sans";

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("nothing to plot: the report has no sync, cliff or span result")]
    Nothing,
    #[error(
        "plots are written as SVG with a PNG beside it; name the file *.svg or *.png (got {0})"
    )]
    Format(String),
    #[error("drawing the plot failed: {0}")]
    Draw(String),
    #[error("rasterising the plot to PNG failed: {0}")]
    Raster(String),
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

/// A GiB tick label with up to two significant digits below 10 GiB, so that the spans of a
/// small test file (8 MiB = 0.0078 GiB) do not all read `0.0`.
fn gib_label(gib: f64) -> String {
    tick_label(gib, 10.0)
}

/// `value` as a whole number from `whole_from` up, with two significant digits below it;
/// `0` for anything not positive.
fn tick_label(value: f64, whole_from: f64) -> String {
    if !value.is_finite() || value <= 0.0 {
        return "0".to_string();
    }
    if value >= whole_from {
        return format!("{value:.0}");
    }
    let decimals = (1.0 - value.log10().floor()).clamp(0.0, 9.0) as usize;
    trim_zeros(format!("{value:.decimals$}"))
}

/// `1.0` → `1`, `0.50` → `0.5`: tick labels as short as their value.
fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A logarithmic axis whose labelled ticks are the 1-2-5 values of every decade in its range
/// (only the powers of ten once it spans more than three decades), so that points anywhere on
/// it have a label nearby. plotters' own log axis labels only whole powers of ten.
#[derive(Debug, Clone)]
struct LogAxis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl LogAxis {
    /// The axis from `lo` to `hi` (both > 0, `lo < hi`; anything else is made so).
    fn new(lo: f64, hi: f64) -> LogAxis {
        let lo = if lo.is_finite() && lo > 0.0 { lo } else { 1.0 };
        let hi = if hi.is_finite() && hi > lo {
            hi
        } else {
            lo * 10.0
        };
        LogAxis {
            lo,
            hi,
            ticks: log_ticks(lo, hi),
        }
    }
}

/// Labelled ticks of a log axis from `lo` to `hi`: 1, 2 and 5 times each power of ten in the
/// range while it spans at most three decades, only the powers beyond that; 1-9 when the
/// range is too narrow to hold two of those.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    let in_range = |multipliers: &[f64]| -> Vec<f64> {
        let mut ticks = Vec::new();
        for exponent in first..=last {
            let power = 10f64.powi(exponent);
            for m in multipliers {
                let tick = m * power;
                // Ticks a rounding error outside the range still belong to it.
                if tick >= lo * (1.0 - 1e-9) && tick <= hi * (1.0 + 1e-9) {
                    ticks.push(tick);
                }
            }
        }
        ticks
    };
    let decades = hi.log10() - lo.log10();
    let candidates: [&[f64]; 3] = if decades > 3.0 {
        [
            &[1.0],
            &[1.0, 2.0, 5.0],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        ]
    } else {
        [
            &[1.0, 2.0, 5.0],
            &[1.0, 2.0, 3.0, 5.0],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        ]
    };
    let mut ticks = Vec::new();
    for multipliers in candidates {
        ticks = in_range(multipliers);
        if ticks.len() >= 2 {
            break;
        }
    }
    ticks
}

impl Ranged for LogAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (lo, hi) = (self.lo.log10(), self.hi.log10());
        let v = if value.is_finite() && *value > 0.0 {
            value.log10()
        } else {
            lo
        };
        let fraction = (v - lo) / (hi - lo);
        let span = f64::from(limit.1) - f64::from(limit.0);
        (f64::from(limit.0) + fraction * span).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // The light grid is not drawn; every labelled tick is a bold one.
        match hint.weight() {
            KeyPointWeight::Bold => self.ticks.clone(),
            KeyPointWeight::Any => Vec::new(),
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// A microsecond tick label: whole numbers from 1 µs, two significant digits below.
fn us_label(us: f64) -> String {
    tick_label(us, 1.0)
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
        .build_cartesian_2d(0.0..t_max, LogAxis::new(lo, hi))
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("time since the start of the test (s)")
        .y_desc("QD1 read latency (µs, log scale)")
        .light_line_style(WHITE)
        .y_label_formatter(&|v| us_label(*v))
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
        .x_desc("data written (GB)")
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
    if let (Some(cache), Some(post)) = (cliff.drop.cache_estimate_bytes, cliff.drop.post_cliff_mb_s)
    {
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
        .build_cartesian_2d(LogAxis::new(x_lo, x_hi), 0.0..y_hi)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("span of the random reads (GiB, log scale)")
        .y_desc("QD1 read latency (µs)")
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

/// How an SVG from [`render_svg`] is read for rasterising: the built-in font answers for
/// every family the SVG names.
pub fn svg_options() -> resvg::usvg::Options<'static> {
    let mut options = resvg::usvg::Options {
        font_family: FONT_FAMILY.to_string(),
        ..resvg::usvg::Options::default()
    };
    let fonts = Arc::make_mut(&mut options.fontdb);
    fonts.load_font_data(FONT.to_vec());
    fonts.set_sans_serif_family(FONT_FAMILY);
    fonts.set_serif_family(FONT_FAMILY);
    fonts.set_monospace_family(FONT_FAMILY);
    options
}

/// Rasterises an SVG plot to PNG bytes at its own size.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PlotError> {
    let tree = resvg::usvg::Tree::from_str(svg, &svg_options())
        .map_err(|e| PlotError::Raster(e.to_string()))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| PlotError::Raster(format!("cannot allocate {size:?} pixels")))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| PlotError::Raster(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::file::plot_paths;
    use super::{gib_label, log_ticks, us_label};
    use std::path::{Path, PathBuf};

    #[test]
    fn log_ticks_cover_every_decade_with_labels_near_the_data() {
        // Sync latencies from 20 µs to 5 ms, padded by 1.5 either way.
        assert_eq!(
            log_ticks(20.0 / 1.5, 5000.0 * 1.5),
            vec![20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0]
        );
        // More than three decades: the powers of ten only.
        assert_eq!(
            log_ticks(0.5, 20_000.0),
            vec![1.0, 10.0, 100.0, 1000.0, 10_000.0]
        );
        // Narrow ranges still get two labels.
        assert_eq!(log_ticks(2.1, 4.7), vec![3.0, 4.0]);
        assert_eq!(log_ticks(61.0, 89.0), vec![70.0, 80.0]);
        assert!(log_ticks(0.0, 10.0).is_empty());
        assert!(log_ticks(f64::NAN, 10.0).is_empty());
        assert!(log_ticks(10.0, 1.0).is_empty());
    }

    #[test]
    fn microsecond_labels() {
        for (us, label) in [
            (20.0, "20"),
            (1000.0, "1000"),
            (0.5, "0.5"),
            (0.25, "0.25"),
            (f64::INFINITY, "0"),
        ] {
            assert_eq!(us_label(us), label, "{us}");
        }
    }

    #[test]
    fn the_png_goes_beside_the_svg() {
        assert_eq!(
            plot_paths(Path::new("out/sync.svg")),
            Some((PathBuf::from("out/sync.svg"), PathBuf::from("out/sync.png")))
        );
        assert_eq!(
            plot_paths(Path::new("sync.PNG")),
            Some((PathBuf::from("sync.svg"), PathBuf::from("sync.PNG")))
        );
        assert_eq!(plot_paths(Path::new("sync.jpg")), None);
        assert_eq!(plot_paths(Path::new("sync")), None);
    }

    #[test]
    fn small_spans_keep_two_significant_digits() {
        for (gib, label) in [
            (128.0, "128"),
            (1.5, "1.5"),
            (1.0, "1"),
            (0.5, "0.5"),
            (8.0 / 1024.0, "0.0078"),
            (0.0, "0"),
            (f64::NAN, "0"),
        ] {
            assert_eq!(gib_label(gib), label, "{gib}");
        }
    }
}
