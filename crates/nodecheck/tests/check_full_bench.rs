//! `nodecheck check --bench full --plot FILE.svg --format markdown` end to end on this machine:
//! the full check runs the behaviour tests (sync, span) beside qd1 and randrw, the verdict
//! judges them, the plot is written and linked from the report, and no test file is left.
//! Shrunk with `--bench-size`, `--bench-runtime` and `--bench-reserve` to finish in seconds.

use std::path::Path;
use std::process::Output;

use crate::cli_support::process::{check_bench_full, nodecheck_process};
use crate::cli_support::{assert_all_positive, codes_in, entries, machine_lock, scratch};
use test_support::skip;

fn check_full(dir: &Path, plot: &Path, format: &[&str]) -> Output {
    check_bench_full(dir, "64M")
        .arg("--plot")
        .arg(plot)
        .args(format)
        .output()
        .expect("running nodecheck")
}

/// Runs the full check and returns its stdout once it reached a verdict (good, ugly or bad:
/// this machine's drive decides), not a usage or runtime error, and left no test file behind.
/// `None` when the bench could not run here (no O_DIRECT on the scratch file system, a node
/// running): the check says so in a note, and there is nothing of the caller's to assert.
fn run_to_a_verdict(dir: &Path, plot: &Path, format: &[&str]) -> Option<String> {
    let output = check_full(dir, plot, format);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stdout.contains("Measurement skipped") {
        skip(format_args!("the bench could not run here: {stdout}"));
        return None;
    }
    assert!(
        matches!(output.status.code(), Some(0..=2)),
        "{:?}\n{stderr}\n{stdout}",
        output.status
    );
    assert!(entries(dir).is_empty(), "{:?}", entries(dir));
    Some(stdout)
}

#[test]
fn full_check_plots_and_links_the_behaviour_tests() {
    let _machine = machine_lock();
    let dir = scratch("check-full-e2e-");
    let plots = scratch("check-full-e2e-");
    let plot = plots.path().join("node sync.svg");
    let Some(stdout) = run_to_a_verdict(dir.path(), &plot, &["--format", "markdown"]) else {
        return;
    };

    // The report links the plot by its relative file name, with what it shows.
    assert!(
        stdout.contains(
            "### Plot\n\n[node sync.svg](node%20sync.svg): QD1 read latency over time through \
             the sync test's write bursts and recovery; QD1 read latency over the span test's \
             growing spans."
        ),
        "{stdout}"
    );
    assert!(stdout.contains("- sync cycle ("), "{stdout}");
    assert!(
        stdout.contains("- span: QD1 read latency over "),
        "{stdout}"
    );
    // The verdict judged the behaviour: NC801 (read latency between bursts) is always decided
    // once the sync test ran, passed or not.
    assert!(stdout.contains("NC801"), "{stdout}");

    let svg = std::fs::read_to_string(&plot).expect("the plot was written");
    assert!(svg.starts_with("<svg"), "{:.200}", svg);
    assert!(svg.contains("sync: QD1 read latency through"), "sync panel");
    assert!(
        svg.contains("span: QD1 read latency over growing spans"),
        "span panel"
    );
    assert!(svg.contains("reads during write burst"), "burst series");
    let png = std::fs::read(plot.with_extension("png")).expect("the PNG beside the SVG");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));

    // The report's JSON (folded into the markdown for `nodecheck triage`) names the plot too.
    let json_start = stdout.find("```json\n").expect("the folded JSON") + 8;
    let json_end = json_start + stdout[json_start..].find("```").expect("closed");
    let report: serde_json::Value =
        serde_json::from_str(&stdout[json_start..json_end]).expect("valid JSON");
    assert_eq!(report["plot"].as_str(), Some(plot.to_str().unwrap()));
}

#[test]
fn full_check_json_carries_sync_span_and_the_plot() {
    let _machine = machine_lock();
    let dir = scratch("check-full-e2e-");
    let plots = scratch("check-full-e2e-");
    let plot = plots.path().join("full.svg");
    let Some(stdout) = run_to_a_verdict(dir.path(), &plot, &["--json"]) else {
        return;
    };
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(report["plot"].as_str(), Some(plot.to_str().unwrap()));
    let bench = &report["bench"];
    assert_all_positive(
        bench,
        &[
            "/qd1/iops",
            "/randrw/read_iops",
            "/sync/baseline_lat_us/p99",
        ],
    );
    let sync = &bench["sync"];
    assert_eq!(
        sync["burst_bytes"].as_u64(),
        Some(16 << 20),
        "a quarter of 64M"
    );
    assert!(sync["cycles"].as_array().is_some_and(|c| !c.is_empty()));
    assert!(
        sync["samples"].as_array().is_some_and(|s| !s.is_empty()),
        "the full JSON keeps the plot samples"
    );
    let spans: Vec<u64> = bench["span"]["points"]
        .as_array()
        .expect("span points")
        .iter()
        .map(|p| p["span_bytes"].as_u64().expect("span_bytes"))
        .collect();
    assert_eq!(spans, [8 << 20, 16 << 20, 32 << 20, 64 << 20]);
    assert!(bench.get("cliff").is_none(), "the cliff test stays opt-in");
    let codes = codes_in(&report, "findings");
    for code in ["NC801", "NC802", "NC803", "NC805"] {
        assert!(codes.contains(&code), "{code} judged: {codes:?}");
    }
    assert!(std::fs::metadata(&plot).is_ok_and(|m| m.len() > 1000));
}

#[test]
fn a_plot_without_the_full_bench_is_refused_before_measuring() {
    let _machine = machine_lock();
    let dir = scratch("check-full-e2e-");
    let plots = scratch("check-full-e2e-");
    for (args, wanted) in [
        (&["--bench", "quick"][..], "--bench full"),
        (&["--bench", "full"][..], "name the file *.svg or *.png"),
    ] {
        let plot = plots.path().join(if wanted == "--bench full" {
            "p.svg"
        } else {
            "p.jpg"
        });
        let output = nodecheck_process()
            .arg("check")
            .arg(dir.path())
            .args(args)
            .arg("--plot")
            .arg(&plot)
            .output()
            .expect("running nodecheck");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains(wanted), "{stderr}");
        assert!(entries(dir.path()).is_empty(), "nothing measured");
        assert!(!plot.exists());
    }
}
