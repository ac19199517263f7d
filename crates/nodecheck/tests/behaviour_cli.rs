//! `nodecheck bench --test sync|span|cliff [--plot FILE.svg]` end to end on this machine's disk:
//! the JSON carries the behaviour result, the plot is a real SVG of it, a block device is
//! refused, and the scratch directory is left empty.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::cli_support::process::nodecheck_process;
use crate::cli_support::{assert_all_positive, assert_contains, entries, machine_lock, scratch};
use test_support::skip;

/// Small and safe on a shared machine: a 256 MiB file, a 1 GiB reserve, --force because a
/// node process on the test machine must not fail unrelated tests. `extra` names the output
/// format (`--json` for the tests that read the report).
fn nodecheck_bench(dir: &Path, extra: &[&str]) -> Command {
    let mut command = nodecheck_process();
    command.arg("bench").arg(dir);
    command.args(["--size", "256M", "--reserve", "1G", "--force"]);
    command.args(extra);
    command
}

/// A scratch directory for the test file and another for its plot `name`: the test file's
/// directory must be left empty, the plot's holds what the run wrote.
fn scratch_with_plot(name: &str) -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let dir = scratch("behaviour-e2e-");
    let plots = scratch("behaviour-e2e-");
    let plot = plots.path().join(name);
    (dir, plots, plot)
}

/// A usage error (exit 3) that says `why`, before anything ran: nothing left in `dir`.
fn refused_as_usage(output: &Output, dir: &Path, why: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "a usage error: {stderr}");
    assert_contains(&stderr, why);
    assert!(entries(dir).is_empty(), "{:?}", entries(dir));
}

/// Runs `command`: its output once it succeeded and left nothing behind in `dir`; `None`
/// (after saying why) when the scratch file system refuses O_DIRECT and there is nothing to
/// assert.
fn succeeded(command: &mut Command, dir: &Path) -> Option<Output> {
    let output = command.output().expect("running nodecheck");
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
    let _machine = machine_lock();
    let (dir, _plots, plot) = scratch_with_plot("sync.svg");
    let sync_briefly = [
        "--json",
        "--test",
        "sync",
        "--runtime",
        "2",
        "--burst",
        "32M",
    ];
    let mut command = nodecheck_bench(dir.path(), &sync_briefly);
    let Some(output) = succeeded(command.arg("--plot").arg(&plot), dir.path()) else {
        return;
    };
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the output is JSON");
    let sync = &report["sync"];
    assert_all_positive(
        sync,
        &[
            "/baseline_lat_us/p99",
            "/burst_lat_us/max",
            "/burst_write_mb_s",
        ],
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
    let _machine = machine_lock();
    let dir = scratch("behaviour-e2e-");
    let Some(output) = succeeded(
        &mut nodecheck_bench(dir.path(), &["--json", "--test", "span"]),
        dir.path(),
    ) else {
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
    let _machine = machine_lock();
    let dir = scratch("behaviour-e2e-");
    let output = nodecheck_bench(
        dir.path(),
        &["--json", "--test", "sync", "--device", "/dev/null"],
    )
    .output()
    .expect("running nodecheck");
    refused_as_usage(&output, dir.path(), "read-only");
}

#[test]
fn a_plot_that_is_neither_svg_nor_png_is_refused_before_anything_runs() {
    let _machine = machine_lock();
    let (dir, _plots, plot) = scratch_with_plot("sync.jpg");
    let output = nodecheck_bench(dir.path(), &["--json", "--test", "sync"])
        .arg("--plot")
        .arg(&plot)
        .output()
        .expect("running nodecheck");
    refused_as_usage(&output, dir.path(), "name the file *.svg or *.png");
    assert!(output.stdout.is_empty(), "nothing was measured");
    assert!(!plot.exists());
}

#[test]
fn span_as_markdown_links_its_plot() {
    let _machine = machine_lock();
    let (dir, _plots, plot) = scratch_with_plot("span.svg");
    let mut command = nodecheck_bench(dir.path(), &["--test", "span", "--format", "markdown"]);
    let Some(output) = succeeded(command.arg("--plot").arg(&plot), dir.path()) else {
        return;
    };
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.starts_with("## nodecheck bench `"), "{text}");
    // One span (the whole 256 MiB file): the ratio is 1 by construction.
    assert_contains(
        &text,
        "\n- span: QD1 read latency over 256 MiB to 256 MiB: mean 1.00x",
    );
    assert_contains(
        &text,
        "### Plot\n\n[span.svg](span.svg): QD1 read latency over the span test's growing spans.",
    );
    assert_contains(&text, "<details><summary>Full result (JSON)");
    let svg = std::fs::read_to_string(&plot).expect("the plot was written");
    assert!(
        svg.contains("span: QD1 read latency over growing spans"),
        "span panel"
    );
}
