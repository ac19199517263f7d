//! `nodecheck check [PATH]` (and bare `nodecheck [PATH]`): probe, measure, judge, report.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use bench::{BenchReport, BenchTarget, Plan};
use probe::root::Root;
use probe::Facts;
use units::text::shell_quote;
use verdict::judge::{ClientChoice, Verdict};

use super::{emit, is_root, say, UsageError};
use crate::config::{
    BenchDepth, BenchTuning, CheckConfig, ClientName, Format, GlobalOptions, SourceChoice,
};
use crate::datadir;
use crate::redact::Redactor;
use crate::render::{self, RenderOptions};
use crate::report::{self, ClientNote, DatadirNote, DriveGrade, Report};
use crate::snapshot;

pub fn run(config: &CheckConfig, global: &GlobalOptions) -> Result<u8> {
    if let Some(plot) = &config.plot {
        // Refused now rather than after a run of several minutes.
        check_plot_request(plot, config)?;
    }
    let db = crate::database::load(global)?;

    // Keeps an unpacked snapshot alive until the report is printed.
    let mut _unpacked = None;
    let (root, manifest) = match &config.source {
        SourceChoice::Live => (Root::live(), None),
        SourceChoice::Root(dir) => {
            let root = Root::at(dir)
                .with_context(|| format!("cannot replay the tree at {}", dir.display()))?;
            let manifest = snapshot::read_manifest(&root);
            (root, manifest)
        }
        SourceChoice::Snapshot(file) => {
            let unpacked = snapshot::unpack(file)?;
            bench::hook::pause_point(bench::hook::SNAPSHOT_UNPACKED, None);
            let root = Root::at(unpacked.root())
                .with_context(|| format!("cannot replay {}", file.display()))?;
            let manifest = Some(unpacked.manifest.clone());
            _unpacked = Some(unpacked);
            (root, manifest)
        }
    };

    let (path, datadir) = choose_path(config, root.is_live(), manifest.as_ref());
    if root.is_live() {
        refuse_device_path(&path)?;
    }
    // Files given on the command line win over the ones a snapshot saved.
    let replayed_smartctl = match (&manifest, config.smartctl_json.is_empty()) {
        (Some(m), true) => snapshot::smartctl_files(m),
        _ => Vec::new(),
    };
    let options = probe::ProbeOptions {
        smartctl_json: config.smartctl_json.clone(),
        replayed_smartctl,
        run_smartctl: config.run_smartctl,
        ..probe::ProbeOptions::default()
    };
    let facts = probe::probe(&root, &path, &options)
        .with_context(|| format!("cannot probe the storage under {}", path.display()))?;

    // Said before measuring, so a non-root user reads it first and need not wait to rerun.
    if let Some(line) = needs_root_line(&facts, config.path.as_deref(), is_root()) {
        if config.format == Format::Table && global.verbosity >= 0 {
            // The first line of the report; machine formats keep stdout for the document.
            emit(&format!("{line}\n"))?;
        } else {
            say(global, &line);
        }
    }
    match &datadir {
        Some(note) if note.detected => say(
            global,
            &format!(
                "Checking {} ({} datadir found; pass a PATH to check another)",
                note.path,
                note.client.as_deref().unwrap_or("client")
            ),
        ),
        Some(_) => say(
            global,
            "No client datadir found in the default places; checking the current directory \
             (pass the node's data directory as PATH)",
        ),
        None => {}
    }

    let mut notes = Vec::new();
    let bench = if root.is_live() {
        measure(config, &path, &facts, global, &mut notes)
    } else {
        if config.bench != BenchDepth::None {
            notes.push("Replayed machine: nothing was measured.".to_string());
        }
        None
    };

    let client = match config.client {
        Some(c) => ClientChoice::Named(c.id().to_string()),
        None => ClientChoice::Strictest,
    };
    let consensus = config.consensus.map(|c| c.id());
    let verdict = verdict::judge::judge_node(&facts, bench.as_ref(), &db, &client, consensus);
    let plot = match (&config.plot, &bench) {
        (Some(path), Some(measured)) => draw_plot(path, measured, global, &mut notes),
        (Some(_), None) => {
            notes.push("No plot written: nothing was measured.".to_string());
            None
        }
        (None, _) => None,
    };
    let mut report = build_report(facts, bench, verdict, datadir, notes, config.client);
    report.plot = plot;
    // The unpacked tree is a temporary directory gone when this returns: name the archive.
    report.source = match &config.source {
        SourceChoice::Live => None,
        SourceChoice::Root(dir) => Some(format!("replayed from the tree {}", dir.display())),
        SourceChoice::Snapshot(file) => {
            Some(format!("replayed from the snapshot {}", file.display()))
        }
    };

    let options = RenderOptions::for_stdout(global.verbosity);
    let redactor = config.redact.then(|| {
        Redactor::new()
            .with_facts(&report.facts)
            .with_local_hostname()
    });
    let mut out = String::new();
    out.push_str(&render::render(
        &report,
        config.format,
        &options,
        redactor.as_ref(),
    ));
    emit(&out)?;
    Ok(report::exit_code(report.grade))
}

/// `--plot` draws the behaviour tests, which only a live `--bench full` runs, into an SVG file.
fn check_plot_request(plot: &Path, config: &CheckConfig) -> Result<()> {
    if config.source != SourceChoice::Live {
        return Err(UsageError(
            "--plot draws measurements, and nothing is measured under --root or --snapshot"
                .to_string(),
        )
        .into());
    }
    if config.bench != BenchDepth::Full {
        return Err(UsageError(
            "--plot draws the sync and span tests, which only --bench full runs; add --bench full"
                .to_string(),
        )
        .into());
    }
    bench::plot::check_plot_path(plot).map_err(|err| UsageError(err.to_string()))?;
    Ok(())
}

/// Writes the plot of what was measured; returns the path for the report. A plot that cannot
/// be drawn does not cost the operator the verdict of a long run: it becomes a note.
fn draw_plot(
    path: &Path,
    measured: &BenchReport,
    global: &GlobalOptions,
    notes: &mut Vec<String>,
) -> Option<String> {
    match bench::plot::write_plot(measured, path) {
        Ok(()) => Some(path.display().to_string()),
        Err(err) => {
            let note = format!("No plot written to {}: {err}", path.display());
            say(global, &note);
            notes.push(note);
            None
        }
    }
}

/// `check /dev/sdX` would probe and measure the file system holding the device node (devtmpfs,
/// in RAM), not the device: refused with the two commands that answer the question instead.
fn refuse_device_path(path: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(metadata) = std::fs::metadata(path) else {
        return Ok(());
    };
    let kind = metadata.file_type();
    if !(kind.is_block_device() || kind.is_char_device()) {
        return Ok(());
    }
    let shown = shell_quote(&path.display().to_string());
    let what = if kind.is_block_device() {
        "a block device"
    } else {
        "a character device"
    };
    Err(UsageError(format!(
        "{shown} is {what}: check judges the storage under a directory (the node's data \
         directory or the mount point of the device's file system), and a device node lives on \
         devtmpfs, in memory. Give that directory; for the device's own read latency, read-only: \
         `sudo nodecheck bench --device {shown} --test qd1`"
    ))
    .into())
}

/// PATH as given; else under a replay the path the snapshot was taken for; else a detected
/// client datadir; else the current directory.
fn choose_path(
    config: &CheckConfig,
    live: bool,
    manifest: Option<&snapshot::Manifest>,
) -> (PathBuf, Option<DatadirNote>) {
    if let Some(path) = &config.path {
        return (path.clone(), None);
    }
    if !live {
        let path = manifest
            .map(|m| PathBuf::from(&m.path))
            .unwrap_or_else(|| PathBuf::from("/"));
        return (path, None);
    }
    match datadir::detect(Path::new("/"), &datadir::home_dirs()) {
        Some(found) => {
            let note = DatadirNote {
                path: found.path.display().to_string(),
                detected: true,
                client: found.client.map(|c| c.id().to_string()),
                others: found
                    .others
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect(),
            };
            (found.path, Some(note))
        }
        None => {
            let note = DatadirNote {
                path: ".".to_string(),
                detected: false,
                client: None,
                others: Vec::new(),
            };
            (PathBuf::from("."), Some(note))
        }
    }
}

pub(crate) fn probe_facts(
    root: &Root,
    path: &Path,
    smartctl_json: Vec<PathBuf>,
    run_smartctl: bool,
) -> Result<Facts> {
    let options = probe::ProbeOptions {
        smartctl_json,
        run_smartctl,
        ..probe::ProbeOptions::default()
    };
    probe::probe(root, path, &options)
        .with_context(|| format!("cannot probe the storage under {}", path.display()))
}

/// Runs the measurement `config.bench` asks for. A measurement that cannot run (an Ethereum
/// client is running, no space, io_uring blocked and no fallback) does not stop the check: the
/// verdict is still worth having, and the reason becomes a note.
fn measure(
    config: &CheckConfig,
    path: &Path,
    facts: &Facts,
    global: &GlobalOptions,
    notes: &mut Vec<String>,
) -> Option<BenchReport> {
    let depth = config.bench;
    if depth == BenchDepth::None {
        return None;
    }
    let directory = measured_directory(path);
    // As root, QD1 reads go straight to the drive, read-only, like `ioping -D`: no test file,
    // nothing written. Only a single plain drive qualifies; under RAID the file tells more.
    let device = match (is_root(), facts.drives.as_slice()) {
        (true, [drive]) if depth == BenchDepth::Quick => {
            Some(PathBuf::from("/dev").join(&drive.name))
        }
        _ => None,
    };
    let cooperation = match crate::signals::cooperate() {
        Ok(cooperation) => Some(cooperation),
        Err(err) => {
            notes.push(format!("Ctrl-C handling unavailable: {err}"));
            None
        }
    };
    let cancel = cooperation
        .as_ref()
        .map(|c| c.token().clone())
        .unwrap_or_default();
    let plan_for = |target: BenchTarget| {
        let mut plan = plan_for_depth(target, depth, &config.tuning);
        plan.cancel = cancel.clone();
        plan
    };
    let mut bars = crate::progress::Bars::for_stderr(global.verbosity);
    // Containers and hardened hosts refuse raw devices even to root; a test file answers the
    // same question a little less directly. The note says what happened in the end.
    let mut device_failure = None;
    if let Some(dev) = device {
        match bench::run(&plan_for(BenchTarget::Device(dev.clone())), &mut bars) {
            Ok(report) => return Some(report),
            Err(_) if cancel.is_cancelled() => {
                stop_on_signal(cooperation, bars);
                notes.push("Measurement cancelled.".to_string());
                return None;
            }
            Err(err) => {
                device_failure = Some(format!("reading {} directly failed ({err})", dev.display()))
            }
        }
    }
    match bench::run(
        &plan_for(BenchTarget::Directory(directory.clone())),
        &mut bars,
    ) {
        Ok(report) => {
            if let Some(failure) = device_failure {
                notes.push(format!(
                    "{}; measured on a test file instead.",
                    capitalized(&failure)
                ));
            }
            Some(report)
        }
        Err(_) if cancel.is_cancelled() => {
            stop_on_signal(cooperation, bars);
            notes.push("Measurement cancelled.".to_string());
            None
        }
        Err(err) => {
            let reason =
                super::hints::bench_failure(&err, super::hints::Printer::Check, &directory);
            let note = match device_failure {
                Some(failure) => {
                    format!("Measurement skipped: {failure}, and on a test file: {reason}")
                }
                None => format!("Measurement skipped: {reason}"),
            };
            // The table prints its notes; other formats keep stdout for the document, so a
            // reader at a terminal learns it on stderr, once.
            if config.format != Format::Table {
                say(global, &note);
            }
            notes.push(note);
            None
        }
    }
}

/// The directory whose file system a measurement of `path` uses: PATH itself, or the
/// directory holding a file PATH (`.` for a bare file name, whose parent is empty).
pub(crate) fn measured_directory(path: &Path) -> PathBuf {
    if path.is_dir() {
        return path.to_path_buf();
    }
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The bench plan of a depth on a target, with the user's `--bench-*` overrides applied.
fn plan_for_depth(target: BenchTarget, depth: BenchDepth, tuning: &BenchTuning) -> Plan {
    let mut plan = match depth {
        BenchDepth::Full => Plan::full(target),
        BenchDepth::Quick | BenchDepth::None => Plan::quick(target),
    };
    let on_file = matches!(plan.target, BenchTarget::Directory(_));
    // Reading the raw device is what `ioping -D` does beside a running node: it writes
    // nothing, so a running client only skews the figures (the bench says so in a warning).
    plan.force = !on_file;
    if let Some(runtime) = tuning.runtime {
        plan.runtime = runtime;
    }
    if on_file {
        plan.size = tuning.size.or(plan.size);
        plan.reserve = tuning.reserve.or(plan.reserve);
    }
    if depth == BenchDepth::Full {
        plan = plan.with_scaled_behaviour();
    }
    plan
}

/// A signal during a measurement: the bench has removed its test file; say so, then end the
/// process as the signal would have (dropping the cooperation does) instead of printing a
/// half-made report.
pub(crate) fn stop_on_signal(
    cooperation: Option<crate::signals::Cooperation>,
    bars: crate::progress::Bars,
) {
    drop(bars);
    let Some(cooperation) = cooperation else {
        return;
    };
    if let Some(signal) = cooperation.signal() {
        crate::stderr::line(&format!(
            "nodecheck: measurement interrupted by {}; test file removed",
            bench::error::signal_name(signal)
        ));
    }
    drop(cooperation);
}

/// The line that tells a non-root user what they are missing and how to get it.
fn needs_root_line(facts: &Facts, path: Option<&Path>, running_as_root: bool) -> Option<String> {
    if !facts.live || running_as_root {
        return None;
    }
    let (mut missing, _) = verdict::findings::identity::needs_root(facts);
    if missing.is_empty() {
        return None;
    }
    missing.dedup();
    let mut rerun = String::from("sudo nodecheck check");
    if let Some(path) = path {
        rerun.push(' ');
        rerun.push_str(&shell_quote(&path.display().to_string()));
    }
    Some(format!(
        "Not running as root: {} need root; rerun with `{rerun}` for the full check.",
        missing.join(", ")
    ))
}

pub(crate) fn build_report(
    facts: Facts,
    bench: Option<BenchReport>,
    verdict: Verdict,
    datadir: Option<DatadirNote>,
    notes: Vec<String>,
    client: Option<ClientName>,
) -> Report {
    let mut findings = verdict.findings;
    report::sort_findings(&mut findings);
    let drives = verdict
        .drives
        .iter()
        .map(|d| DriveGrade {
            drive: d.name.clone(),
            model: d.model.clone(),
            grade: d.grade,
            family: d.entry.as_ref().map(|e| e.family.clone()),
            class: d.class.clone(),
        })
        .collect();
    Report {
        schema_version: report::SCHEMA_VERSION,
        nodecheck_version: env!("CARGO_PKG_VERSION").to_string(),
        database_version: verdict.database_version,
        summary: report::summarize(verdict.grade, &findings),
        grade: verdict.grade,
        client: ClientNote {
            requested: client.map(|c| c.id().to_string()),
            fails_first: verdict.failing_client,
            consensus: verdict.consensus_client,
        },
        findings,
        drives,
        datadir,
        notes,
        facts,
        bench,
        plot: None,
        source: None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use bench::behaviour::{span::SpanPlan, sync::SyncPlan};
    use bench::plan::{QUICK_FILE_BYTES, QUICK_RUNTIME};

    fn live_fixture_facts() -> Facts {
        let dir = tempfile::tempdir().expect("tempdir");
        probe::fixture::nvme_degraded_pcie_link(dir.path()).expect("fixture");
        let root = Root::at(dir.path()).expect("root");
        let mut facts =
            probe_facts(&root, Path::new("/var/lib/ethereum"), Vec::new(), true).expect("probe");
        // As if probed on the live machine without root: the NVMe logs need root there.
        facts.live = true;
        facts.unavailable.push(probe::Unavailable {
            fact: "NVMe SMART log (nvme0)".into(),
            reason: "needs root".into(),
        });
        facts
    }

    #[test]
    fn non_root_hint_names_the_checks_and_the_command() {
        let facts = live_fixture_facts();
        let line = needs_root_line(&facts, Some(Path::new("/var/lib/ethereum")), false)
            .expect("a hint without root");
        assert!(line.starts_with("Not running as root: "), "{line}");
        assert!(line.contains("NVMe SMART log"), "{line}");
        assert!(
            line.contains("`sudo nodecheck check /var/lib/ethereum`"),
            "{line}"
        );
        assert_eq!(
            needs_root_line(&facts, None, true),
            None,
            "root needs no hint"
        );
        let mut replay = facts.clone();
        replay.live = false;
        assert_eq!(
            needs_root_line(&replay, None, false),
            None,
            "replays need no root"
        );
    }

    #[test]
    fn full_runs_sync_and_span_with_their_defaults_on_the_community_file() {
        let target = BenchTarget::Directory("/data".into());
        let plan = plan_for_depth(target.clone(), BenchDepth::Full, &BenchTuning::default());
        assert!(plan.qd1 && plan.randrw);
        assert_eq!(plan.size, None, "the bench's 150 GiB default");
        let sync = plan.behaviour.sync.expect("sync runs in full");
        let span = plan.behaviour.span.expect("span runs in full");
        assert!(
            plan.behaviour.cliff.is_none(),
            "the cliff test stays opt-in"
        );
        let defaults = SyncPlan::default();
        assert_eq!(sync.burst_bytes, defaults.burst_bytes);
        assert_eq!(sync.read_phase, defaults.read_phase);
        assert_eq!(sync.recovery_timeout, defaults.recovery_timeout);
        assert_eq!(sync.runtime, plan.runtime);
        assert_eq!(span.min_span, SpanPlan::default().min_span);
        assert_eq!(span.time_per_span, SpanPlan::default().time_per_span);

        let quick = plan_for_depth(target, BenchDepth::Quick, &BenchTuning::default());
        assert!(quick.qd1 && !quick.randrw && !quick.behaviour.any());
        assert_eq!(quick.runtime, QUICK_RUNTIME);
        assert_eq!(quick.size, Some(QUICK_FILE_BYTES));
    }

    #[test]
    fn a_small_full_run_scales_the_behaviour_tests_down() {
        let tuning = BenchTuning {
            size: Some(64 << 20),
            runtime: Some(Duration::from_secs(1)),
            reserve: Some(1 << 30),
        };
        let plan = plan_for_depth(
            BenchTarget::Directory("/data".into()),
            BenchDepth::Full,
            &tuning,
        );
        assert_eq!(plan.size, Some(64 << 20));
        assert_eq!(plan.reserve, Some(1 << 30));
        assert_eq!(plan.runtime, Duration::from_secs(1));
        let sync = plan.behaviour.sync.expect("sync");
        assert_eq!(sync.burst_bytes, 16 << 20);
        assert_eq!(sync.read_phase, Duration::from_millis(500));
        assert_eq!(sync.recovery_timeout, Duration::from_secs(2));
        let span = plan.behaviour.span.expect("span");
        assert_eq!(span.min_span, 8 << 20);
        assert_eq!(bench::behaviour::span::spans(64 << 20, &span).len(), 4);
        assert_eq!(span.time_per_span, Duration::from_secs(1));
    }

    #[test]
    fn the_device_plan_never_writes() {
        let plan = plan_for_depth(
            BenchTarget::Device("/dev/nvme0n1".into()),
            BenchDepth::Quick,
            &BenchTuning {
                size: Some(1 << 20),
                ..BenchTuning::default()
            },
        );
        assert!(plan.qd1 && !plan.randrw && !plan.behaviour.any());
        assert_eq!(plan.size, None);
        assert!(plan.force);
    }

    #[test]
    fn a_file_measures_the_directory_holding_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("chaindata.ldb");
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(measured_directory(dir.path()), dir.path());
        assert_eq!(measured_directory(&file), dir.path());
        assert_eq!(
            measured_directory(Path::new("no-such-file-here")),
            PathBuf::from(".")
        );
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("/var/lib/geth"), "/var/lib/geth");
        assert_eq!(shell_quote("/mnt/my disk"), "'/mnt/my disk'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
