//! `nodecheck bench --test sync|span|cliff [--plot FILE.svg]` end to end on this machine's disk:
//! the JSON carries the behaviour result, the plot is a real SVG of it, a block device is
//! refused, and the scratch directory is left empty.

mod cli_support;

use std::path::Path;
use std::process::{Command, Output};

use cli_support::process::nodecheck_process;
use cli_support::skip::skip;
use cli_support::{entries, scratch};

/// Small and safe on a shared machine: a 256 MiB file, a 1 GiB reserve, --force because a
/// node process on the test machine must not fail unrelated tests.
fn nodecheck_bench(dir: &Path, extra: &[&str]) -> Command {
    let mut command = nodecheck_process();
    command.arg("bench").arg(dir);
    command.args(["--size", "256M", "--reserve", "1G", "--force", "--json"]);
    command.args(extra);
    command
}

/// The run's output once it succeeded and left nothing behind in `dir`; `None` (after saying
/// why) when the scratch file system refuses O_DIRECT and there is nothing to assert.
fn succeeded(output: Output, dir: &Path) -> Option<Output> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("O_DIRECT") {
        skip(format_args!(
            "the scratch file system refuses O_DIRECT: {stderr}"
        ));
        return None;
    }
    assert!(output.status.success(), "{stderr}");
    assert!(entries(dir).is_empty(), "{:?}", entries(dir));
    Some(output)
}

#[test]
fn sync_with_a_plot() {
    let dir = scratch("behaviour-e2e-");
    let plots = scratch("behaviour-e2e-");
    let plot = plots.path().join("sync.svg");
    let output = nodecheck_bench(
        dir.path(),
        &["--test", "sync", "--runtime", "2", "--burst", "32M"],
    )
    .arg("--plot")
    .arg(&plot)
    .output()
    .expect("running nodecheck");
    let Some(output) = succeeded(output, dir.path()) else {
        return;
    };
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the output is JSON");
    let sync = &report["sync"];
    assert!(
        sync["baseline_lat_us"]["p99"]
            .as_f64()
            .is_some_and(|v| v > 0.0),
        "{sync}"
    );
    assert!(
        sync["burst_lat_us"]["max"]
            .as_f64()
            .is_some_and(|v| v > 0.0),
        "{sync}"
    );
    assert!(
        sync["burst_write_mb_s"].as_f64().is_some_and(|v| v > 0.0),
        "{sync}"
    );
    assert_eq!(sync["burst_bytes"].as_u64(), Some(32 << 20));
    assert!(sync["cycles"].as_array().is_some_and(|c| !c.is_empty()));
    assert!(report.get("qd1").is_none_or(|v| v.is_null()), "{report}");
    assert!(
        report.get("cliff").is_none(),
        "absent tests are left out: {report}"
    );

    let svg = std::fs::read_to_string(&plot).expect("the plot was written");
    assert!(svg.starts_with("<svg"));
    let png = std::fs::read(plot.with_extension("png")).expect("the PNG beside it");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    for text in [
        "time since the start of the test (s)",
        "QD1 read latency (µs, log scale)",
        "reads during write burst",
    ] {
        assert!(svg.contains(text), "the plot lacks {text:?}");
    }
    assert!(svg.contains("<circle"), "no samples drawn");
}

#[test]
fn span_reports_every_span() {
    let dir = scratch("behaviour-e2e-");
    let output = nodecheck_bench(dir.path(), &["--test", "span"])
        .output()
        .expect("running nodecheck");
    let Some(output) = succeeded(output, dir.path()) else {
        return;
    };
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let points = report["span"]["points"].as_array().expect("span points");
    // The default smallest span is 1 GiB, more than this 256 MiB file: one span, the file.
    assert_eq!(points.len(), 1, "{points:?}");
    assert_eq!(points[0]["span_bytes"].as_u64(), Some(256 << 20));
    assert!(points[0]["ios"].as_u64().is_some_and(|n| n > 0));
}

#[test]
fn behaviour_tests_refuse_a_block_device() {
    let dir = scratch("behaviour-e2e-");
    let output = nodecheck_bench(dir.path(), &["--test", "sync", "--device", "/dev/null"])
        .output()
        .expect("running nodecheck");
    assert_eq!(output.status.code(), Some(3), "a usage error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("read-only"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_plot_that_is_neither_svg_nor_png_is_refused_before_anything_runs() {
    let dir = scratch("behaviour-e2e-");
    let plots = scratch("behaviour-e2e-");
    let plot = plots.path().join("sync.jpg");
    let output = nodecheck_bench(dir.path(), &["--test", "sync"])
        .arg("--plot")
        .arg(&plot)
        .output()
        .expect("running nodecheck");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "a usage error: {stderr}");
    assert!(stderr.contains("name the file *.svg or *.png"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing was measured");
    assert!(!plot.exists());
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn span_as_markdown_links_its_plot() {
    let dir = scratch("behaviour-e2e-");
    let plots = scratch("behaviour-e2e-");
    let plot = plots.path().join("span.svg");
    let output = nodecheck_process()
        .arg("bench")
        .arg(dir.path())
        .args(["--size", "256M", "--reserve", "1G", "--force"])
        .args(["--test", "span", "--format", "markdown"])
        .arg("--plot")
        .arg(&plot)
        .output()
        .expect("running nodecheck");
    let Some(output) = succeeded(output, dir.path()) else {
        return;
    };
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.starts_with("## nodecheck bench `"), "{text}");
    // One span (the whole 256 MiB file): the ratio is 1 by construction.
    assert!(
        text.contains("\n- span: QD1 read latency over 256 MiB to 256 MiB: mean 1.00x"),
        "{text}"
    );
    assert!(
        text.contains(
            "### Plot\n\n[span.svg](span.svg): QD1 read latency over the span test's growing spans."
        ),
        "{text}"
    );
    assert!(
        text.contains("<details><summary>Full result (JSON)"),
        "{text}"
    );
    let svg = std::fs::read_to_string(&plot).expect("the plot was written");
    assert!(
        svg.contains("span: QD1 read latency over growing spans"),
        "span panel"
    );
}
