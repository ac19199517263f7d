//! `nodecheck check [PATH]` (and bare `nodecheck [PATH]`): probe, measure, judge, report.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use bench::BenchReport;
use probe::Facts;
use probe::Root;
use units::text::shell_quote;

use super::{emit, is_root, measure, say, UsageError};
use crate::config::{BenchDepth, CheckConfig, Format, GlobalOptions, SourceChoice};
use crate::redact::Redactor;
use crate::render::{self, plot, RenderOptions};
use crate::report::{self, DatadirNote};
use crate::snapshot;

pub fn run(config: &CheckConfig, global: &GlobalOptions) -> Result<u8> {
    if let Some(plot) = &config.output.plot {
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
            // Said in the reader's terms rather than as the mount table the probe misses.
            if !dir.join("proc/self/mountinfo").exists() {
                bail!(
                    "{} is not a replayed machine: it has no proc/self/mountinfo; --root takes the directory a `nodecheck snapshot -o node.tar.gz` archive unpacks to (or give the archive itself with --snapshot)",
                    dir.display()
                );
            }
            let manifest = snapshot::read_manifest(&root);
            (root, manifest)
        }
        SourceChoice::Snapshot(file) => {
            let unpacked = snapshot::unpack(file)?;
            bench::pause_point(crate::snapshot::PAUSE_UNPACKED, None);
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
    let replayed_smartctl = match (&manifest, config.probe.smartctl_json.is_empty()) {
        (Some(m), true) => snapshot::smartctl_files(m),
        _ => Vec::new(),
    };
    let options = probe::ProbeOptions {
        replayed_smartctl,
        ..config.probe.clone()
    };
    let facts = probe::probe_path(&root, &path, &options)
        .with_context(|| format!("cannot probe the storage under {}", path.display()))?;

    // Said before measuring, so a non-root user reads it first and need not wait to rerun.
    if let Some(line) = needs_root_line(&facts, config, is_root()) {
        if config.output.format == Format::Table && global.verbosity >= 0 {
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
                "Checking {} ({} datadir found; {})",
                note.path,
                note.client.as_deref().unwrap_or("client"),
                match note.others.as_slice() {
                    [] => "pass a PATH to check another".to_string(),
                    others => format!(
                        "also found {}: pass it as PATH to check it",
                        others
                            .iter()
                            .map(|o| shell_quote(o))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            ),
        ),
        Some(_) => say(
            global,
            "No client datadir found in the default places; checking the current directory \
             (pass the node's data directory as PATH)",
        ),
        None => {}
    }

    // A saved smartctl output that was not used (unreadable, or another drive's) changes what
    // the report says about the drive: it is said without -v.
    let mut notes: Vec<String> = facts
        .warnings
        .iter()
        .filter(|w| w.starts_with(probe::smartctl::merge::SAVED_NOT_USED_PREFIX))
        .cloned()
        .collect();
    let bench = if root.is_live() {
        measure::measure(config, &path, &facts, global, &mut notes)
    } else {
        if config.bench != BenchDepth::None {
            notes.push("Replayed machine: nothing was measured.".to_string());
        }
        None
    };

    // The detected datadir's client is the one whose needs apply, unless the user named one.
    let clients = crate::config::Clients {
        execution: config.clients.execution.or_else(|| {
            datadir
                .as_ref()
                .filter(|note| note.detected)
                .and_then(|note| note.client.as_deref())
                .and_then(crate::config::ClientName::named)
        }),
        ..config.clients
    };
    let verdict = super::judge(&facts, bench.as_ref(), &db, clients);
    let plot = match (&config.output.plot, &bench) {
        (Some(path), Some(measured)) => draw_plot(path, measured, global, &mut notes),
        (Some(_), None) => {
            notes.push("No plot written: nothing was measured.".to_string());
            None
        }
        (None, _) => None,
    };
    let mut report = report::build(facts, bench, verdict, datadir, notes, clients);
    report.plot = plot;
    // The unpacked tree is a temporary directory gone when this returns: name the archive.
    report.source = match &config.source {
        SourceChoice::Live => None,
        SourceChoice::Root(dir) => Some(format!("replayed from the tree {}", dir.display())),
        SourceChoice::Snapshot(file) => {
            Some(format!("replayed from the snapshot {}", file.display()))
        }
    };

    let redactor = config.output.redact.then(|| {
        Redactor::new()
            .with_facts(&report.facts)
            .with_local_hostname()
    });
    let options = RenderOptions::for_stdout(global.verbosity).redacting(redactor);
    emit(&render::render(&report, config.output.format, &options)?)?;
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
    plot::check_plot_path(plot).map_err(|err| UsageError(err.to_string()))?;
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
    match plot::write_plot(measured, path) {
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
    match super::detect_datadir() {
        Some(found) => {
            let note = DatadirNote {
                path: found.path.display().to_string(),
                detected: true,
                client: found.client.map(str::to_string),
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

/// The line that tells a non-root user what root would add here and how to get it: the
/// facts that could not be read, or, where the drives give every fact without root, that
/// nothing was missed (and what the quick test would read instead of its test file). Said
/// on every live run without root, so the reader never wonders whether it applied.
fn needs_root_line(facts: &Facts, config: &CheckConfig, running_as_root: bool) -> Option<String> {
    if !facts.live || running_as_root {
        return None;
    }
    let (mut missing, _) = verdict::needs_root(facts);
    missing.dedup();
    let mut rerun = String::from("sudo nodecheck check");
    if let Some(path) = &config.path {
        rerun.push(' ');
        rerun.push_str(&shell_quote(&path.display().to_string()));
    }
    let direct_read = config.bench == BenchDepth::Quick && !facts.drives.is_empty();
    Some(match (missing.is_empty(), direct_read) {
        (false, _) => format!(
            "Not running as root: {} need root; rerun with `{rerun}` for the full check.",
            missing.join(", ")
        ),
        (true, true) => format!(
            "Not running as root: nothing here needed it (root reads NVMe logs, smartctl and \
             device-mapper tables; none were missed); as root, `{rerun}` would read the quick \
             test's blocks from the drive where the data is, instead of from a test file."
        ),
        (true, false) => "Not running as root: nothing here needed it (root reads NVMe logs, \
             smartctl and device-mapper tables; none were missed), so root would add nothing \
             to this check."
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live_fixture_facts() -> Facts {
        let dir = tempfile::tempdir().expect("tempdir");
        probe::fixture::nvme_degraded_pcie_link(dir.path()).expect("fixture");
        let root = Root::at(dir.path()).expect("root");
        let mut facts = super::super::probe::probe_facts(
            &root,
            Path::new("/var/lib/ethereum"),
            &probe::ProbeOptions::default(),
        )
        .expect("probe");
        // As if probed on the live machine without root: the NVMe logs need root there.
        facts.live = true;
        facts.unavailable.push(probe::Unavailable {
            fact: "NVMe SMART log (nvme0)".into(),
            reason: "needs root".into(),
        });
        facts
    }

    fn check_config(path: Option<&str>, bench: BenchDepth) -> CheckConfig {
        let argv = ["nodecheck", "check"].into_iter().chain(path);
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from(argv).expect("parses");
        match cli.into_config().expect("valid").command {
            crate::config::CommandConfig::Check(check) => CheckConfig { bench, ..check },
            other => panic!("expected check, got {other:?}"),
        }
    }

    #[test]
    fn non_root_hint_names_the_checks_and_the_command() {
        let facts = live_fixture_facts();
        let config = check_config(Some("/var/lib/ethereum"), BenchDepth::Quick);
        let line = needs_root_line(&facts, &config, false).expect("a hint without root");
        assert!(line.starts_with("Not running as root: "), "{line}");
        assert!(line.contains("NVMe SMART log"), "{line}");
        assert!(
            line.contains("`sudo nodecheck check /var/lib/ethereum`"),
            "{line}"
        );
        let unnamed = check_config(None, BenchDepth::Quick);
        assert_eq!(
            needs_root_line(&facts, &unnamed, true),
            None,
            "root needs no hint"
        );
        let mut replay = facts.clone();
        replay.live = false;
        assert_eq!(
            needs_root_line(&replay, &unnamed, false),
            None,
            "replays need no root"
        );
    }

    /// A machine whose drives give every fact without root (virtio: no SMART) still gets the
    /// line, saying that nothing was missed and what root would change.
    #[test]
    fn non_root_line_appears_where_no_fact_needs_root() {
        let mut facts = live_fixture_facts();
        facts.unavailable.clear();
        let quick = check_config(Some("/var/lib/my node"), BenchDepth::Quick);
        let line = needs_root_line(&facts, &quick, false).expect("said without root");
        assert!(
            line.starts_with("Not running as root: nothing here needed it (root reads NVMe logs"),
            "{line}"
        );
        assert!(
            line.contains("`sudo nodecheck check '/var/lib/my node'` would read the quick test's blocks from the drive"),
            "{line}"
        );
        let none = check_config(None, BenchDepth::None);
        let line = needs_root_line(&facts, &none, false).expect("said without root");
        assert!(
            line.ends_with("so root would add nothing to this check."),
            "{line}"
        );
        assert_eq!(
            needs_root_line(&facts, &none, true),
            None,
            "root needs no line"
        );
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("/var/lib/geth"), "/var/lib/geth");
        assert_eq!(shell_quote("/mnt/my disk"), "'/mnt/my disk'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
