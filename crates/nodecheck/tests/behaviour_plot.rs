//! The rendered plots have the structure a reader relies on: both axes described, a caption,
//! every series drawn and named in the legend. Snapshotted as a structural summary rather than
//! raw SVG so that a plotters upgrade moving a pixel does not churn the snapshot.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::plot_support::{empty_report, measured_on, span_report, GIB};
use bench::behaviour::cliff::CliffPlan;
use bench::behaviour::models::DriveModel;
use bench::behaviour::sync::SyncPlan;
use bench::BenchReport;
use nodecheck::{render_svg, write_plot, PlotError};

fn report_of_qlc(with_sync: bool, with_cliff: bool) -> BenchReport {
    let sync = with_sync.then(|| {
        let plan = SyncPlan {
            runtime: Duration::from_secs(12),
            max_plot_points: 600,
            ..SyncPlan::default()
        };
        measured_on(DriveModel::qlc_small_slc(), 64 * GIB, &plan)
    });
    let cliff = with_cliff.then(|| {
        let plan = CliffPlan {
            max_bytes: 100 * GIB,
            ..CliffPlan::default()
        };
        measured_on(DriveModel::qlc_small_slc(), 64 * GIB, &plan)
    });
    BenchReport {
        sync,
        cliff,
        ..empty_report()
    }
}

/// The SVG's structure: its size, how many of each element, the fill colours of the drawn
/// points, and every text that is not a tick label (captions, axis descriptions, legend).
fn structure(svg: &str) -> String {
    let mut elements: BTreeMap<String, usize> = BTreeMap::new();
    let mut circle_fills: BTreeMap<String, usize> = BTreeMap::new();
    let mut texts = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        let end = rest.find('>').expect("every tag is closed");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('/') || tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let name = tag
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches('/');
        *elements.entry(name.to_string()).or_default() += 1;
        if name == "circle" {
            let fill = tag
                .split("fill=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or("none");
            *circle_fills.entry(fill.to_string()).or_default() += 1;
        }
        if name == "text" {
            let content = &rest[..rest.find("</text>").expect("text is closed")];
            let is_tick = content
                .trim()
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == 'e');
            if !is_tick {
                texts.push(content.trim().to_string());
            }
        }
    }
    let size = svg
        .split("viewBox=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or("?");
    let mut out = format!("viewBox: {size}\n");
    out += "elements:\n";
    for (name, count) in &elements {
        // Exact point counts follow the data; their presence and colours are the structure.
        let shown = if name == "circle" {
            "many".to_string()
        } else {
            count.to_string()
        };
        out += &format!("  {name}: {shown}\n");
    }
    out += "point colours:\n";
    for (fill, count) in &circle_fills {
        out += &format!("  {fill}: {}\n", if *count > 10 { "many" } else { "few" });
    }
    out += "texts:\n";
    for text in texts {
        out += &format!("  {text}\n");
    }
    out
}

/// A plot of one 1000x500 panel (by its `structure`) that shows each of `texts`.
fn assert_one_panel_showing(structure: &str, texts: &[&str]) {
    assert!(structure.contains("viewBox: 0 0 1000 500"), "{structure}");
    for text in texts {
        assert!(structure.contains(text), "missing {text}: {structure}");
    }
}

#[test]
fn sync_and_cliff_plot_structure() {
    let svg = render_svg(&report_of_qlc(true, true)).expect("renders");
    insta::assert_snapshot!(structure(&svg));
}

#[test]
fn sync_plot_alone_has_one_panel_with_all_phases() {
    let svg = render_svg(&report_of_qlc(true, false)).expect("renders");
    let s = structure(&svg);
    assert_one_panel_showing(
        &s,
        &[
            "time since the start of the test (s)",
            "QD1 read latency (µs, log scale)",
            "reads during write burst",
            "reads after fdatasync (recovery)",
            "reads alone",
        ],
    );
    assert!(!s.contains("data written (GB)"));
}

#[test]
fn span_plot_shows_both_statistics_over_the_spans() {
    let report = span_report();
    let svg = render_svg(&report).expect("renders");
    let s = structure(&svg);
    assert_one_panel_showing(
        &s,
        &[
            "span of the random reads (GiB, log scale)",
            "QD1 read latency (µs)",
            "mean",
            "p99",
            "largest/smallest",
        ],
    );
    // One marker per span and statistic: 1, 2, 4, ... 128 GiB.
    assert_eq!(svg.matches("<circle").count(), 2 * 8, "{s}");
}

#[test]
fn plots_refuse_what_they_cannot_draw() {
    assert!(matches!(
        render_svg(&report_of_qlc(false, false)),
        Err(PlotError::Nothing)
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let jpg = dir.path().join("plot.jpg");
    assert!(matches!(
        write_plot(&report_of_qlc(false, true), &jpg),
        Err(PlotError::Format(_))
    ));
    assert!(!jpg.exists());
    let svg = dir.path().join("plot.SVG");
    write_plot(&report_of_qlc(false, true), &svg).expect("writes");
    let written = std::fs::read_to_string(&svg).expect("readable");
    assert!(
        written.starts_with("<svg"),
        "{}",
        &written[..40.min(written.len())]
    );
    assert!(written.contains("written (GB)"));
}
