//! The plots as a reader sees them: each SVG is laid out by a real SVG renderer (usvg, with
//! the font the PNG uses), and the tick labels it places are read back with their positions.
//! Every decade the data spans has a label, labels near the smallest and largest points, no
//! label twice, values in axis order; and the PNG beside the SVG holds that text.

use std::time::Duration;

use crate::plot_support::{empty_report, measured_on, span_report, GIB};
use bench::behaviour::models::DriveModel;
use bench::behaviour::sync::SyncPlan;
use bench::behaviour::SyncPhase;
use bench::BenchReport;
use nodecheck::{render_svg, svg_options, write_plot};
use resvg::usvg::{Group, Node, Tree};

/// plotters' layout in plot.rs: panels of 500 px, a 12 px margin, 70 px for the y labels and
/// 40 px for the x labels.
const PANEL_HEIGHT: f32 = 500.0;
const Y_LABEL_RIGHT: f32 = 12.0 + 70.0;
const X_LABEL_TOP: f32 = PANEL_HEIGHT - 12.0 - 40.0;

/// A sync run on a QLC model, its reads between bursts moved to 20-60 µs: the fast reads of a
/// good drive, which plotters' own log axis left without a label below 100 µs.
fn sync_report() -> BenchReport {
    let plan = SyncPlan {
        runtime: Duration::from_secs(12),
        max_plot_points: 600,
        ..SyncPlan::default()
    };
    let mut sync = measured_on(DriveModel::qlc_small_slc(), 64 * GIB, &plan);
    let mut i = 0u32;
    for point in sync
        .samples
        .iter_mut()
        .filter(|p| p.phase == SyncPhase::Read)
    {
        point.lat_us = 20.0 + f64::from(i % 41);
        i += 1;
    }
    assert!(i > 10, "the mock run has reads between bursts");
    BenchReport {
        sync: Some(sync),
        ..empty_report()
    }
}

/// A numeric text as laid out: its value and the centre of its box.
#[derive(Debug, Clone)]
struct Label {
    text: String,
    value: f64,
    x: f32,
    y: f32,
}

fn collect(group: &Group, out: &mut Vec<Label>) {
    for node in group.children() {
        match node {
            Node::Group(group) => collect(group, out),
            Node::Text(text) => {
                let content: String = text.chunks().iter().map(|c| c.text()).collect();
                let content = content.trim().to_string();
                if let Ok(value) = content.parse::<f64>() {
                    let rect = text.abs_bounding_box();
                    out.push(Label {
                        text: content,
                        value,
                        x: rect.x() + rect.width() / 2.0,
                        y: rect.y() + rect.height() / 2.0,
                    });
                }
            }
            _ => {}
        }
    }
}

fn labels(svg: &str) -> Vec<Label> {
    let tree = Tree::from_str(svg, &svg_options()).expect("usvg reads the plot");
    let mut out = Vec::new();
    collect(tree.root(), &mut out);
    assert!(!out.is_empty(), "the renderer laid out no tick labels");
    out
}

/// Labels left of the first panel's plot area, top to bottom.
fn y_labels(all: &[Label]) -> Vec<Label> {
    let mut out: Vec<Label> = all
        .iter()
        .filter(|l| l.x < Y_LABEL_RIGHT && l.y < PANEL_HEIGHT)
        .cloned()
        .collect();
    out.sort_by(|a, b| a.y.total_cmp(&b.y));
    out
}

/// Labels under the first panel's plot area, left to right.
fn x_labels(all: &[Label]) -> Vec<Label> {
    let mut out: Vec<Label> = all
        .iter()
        .filter(|l| l.y > X_LABEL_TOP && l.y < PANEL_HEIGHT && l.x > Y_LABEL_RIGHT)
        .cloned()
        .collect();
    out.sort_by(|a, b| a.x.total_cmp(&b.x));
    out
}

/// The first panel's tick labels as the renderer lays out `report`'s plot: the x axis's and
/// the y axis's.
fn first_panel_axes(report: &BenchReport) -> (Vec<Label>, Vec<Label>) {
    let all = labels(&render_svg(report).expect("renders"));
    (x_labels(&all), y_labels(&all))
}

/// The checks every log axis must pass for data from `lo` to `hi`.
fn assert_log_axis_readable(axis: &str, labels: &[Label], lo: f64, hi: f64) {
    let texts: Vec<&str> = labels.iter().map(|l| l.text.as_str()).collect();
    let mut unique = texts.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        texts.len(),
        "{axis}: a label twice: {texts:?}"
    );
    // On a log axis the decade from 10^d to 10^(d+1) holds a label for every d the data
    // touches.
    let first = lo.log10().floor() as i32;
    let last = hi.log10().floor() as i32;
    for decade in first..=last {
        let (from, to) = (10f64.powi(decade), 10f64.powi(decade + 1));
        assert!(
            labels
                .iter()
                .any(|l| l.value >= from * 0.999 && l.value < to),
            "{axis}: no label in [{from}, {to}) although the data spans {lo}..{hi}: {texts:?}"
        );
    }
    for (end, what) in [(lo, "smallest"), (hi, "largest")] {
        assert!(
            labels
                .iter()
                .any(|l| l.value >= end / 2.5 && l.value <= end * 2.5),
            "{axis}: no label within 2.5x of the {what} point {end}: {texts:?}"
        );
    }
}

/// The smallest and largest of `values`, all positive: the data a log axis must cover.
fn extent(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::MAX, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

#[test]
fn sync_latency_axis_labels_every_decade_down_to_the_fastest_reads() {
    let report = sync_report();
    let (time, axis) = first_panel_axes(&report);
    let sync = report.sync.as_ref().expect("sync");
    let (lo, hi) = extent(
        sync.samples
            .iter()
            .map(|p| p.lat_us)
            .filter(|v| v.is_finite() && *v > 0.0),
    );
    assert!(lo <= 20.0 && hi > 1000.0, "data from {lo} to {hi} µs");
    assert_log_axis_readable("sync latency", &axis, lo, hi);
    // Top to bottom is largest to smallest.
    assert!(
        axis.windows(2).all(|w| w[0].value > w[1].value),
        "{:?}",
        axis.iter().map(|l| &l.text).collect::<Vec<_>>()
    );
    assert!(axis.iter().any(|l| l.text == "20"), "a label at 20 µs");
    // The time axis is labelled too.
    assert!(time.len() >= 3, "{time:?}");
}

#[test]
fn span_axis_has_one_label_per_tick_across_the_spans() {
    let report = span_report();
    let (axis, latency) = first_panel_axes(&report);
    let span = report.span.as_ref().expect("span");
    let gib = |bytes: u64| bytes as f64 / GIB as f64;
    let (lo, hi) = extent(span.points.iter().map(|p| gib(p.span_bytes)));
    assert_log_axis_readable("span", &axis, lo, hi);
    assert!(
        axis.windows(2).all(|w| w[0].value < w[1].value),
        "{:?}",
        axis.iter().map(|l| &l.text).collect::<Vec<_>>()
    );
    assert!(!latency.is_empty(), "the latency axis is labelled");
}

#[test]
fn the_png_beside_the_svg_holds_the_drawing_and_its_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let svg_path = dir.path().join("sync.svg");
    write_plot(&sync_report(), &svg_path).expect("writes");
    let png_path = dir.path().join("sync.png");
    let png = std::fs::read(&png_path).expect("the PNG is written beside the SVG");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).expect("a valid PNG");
    assert_eq!((pixmap.width(), pixmap.height()), (1000, 500));
    // The tick labels left of the plot area are drawn: dark pixels where they stand.
    let dark = |x0: u32, x1: u32, y0: u32, y1: u32| {
        let mut count = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                let p = pixmap.pixel(x, y).expect("inside");
                if p.red() < 100 && p.green() < 100 && p.blue() < 100 {
                    count += 1;
                }
            }
        }
        count
    };
    assert!(
        dark(0, Y_LABEL_RIGHT as u32 - 10, 40, 440) > 200,
        "no text in the label column"
    );
    assert!(dark(0, 1000, 0, 500) < 1000 * 500 / 2, "mostly white");

    // Asked for the PNG, the SVG comes along.
    let other = dir.path().join("again.png");
    write_plot(&span_report(), &other).expect("writes");
    let svg = std::fs::read_to_string(dir.path().join("again.svg")).expect("svg beside");
    assert!(svg.starts_with("<svg"));
}
