//! `nodecheck watch [PATH]`: samples a running node's I/O without writing a byte, and says
//! whether it is storage-bound (verdict::watch), with the evidence and what to do next.

pub mod latency;
pub mod saved;
pub mod triage;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use probe::cgroup::{self, CgroupLayout};
use probe::io_sample::{self, ClientTarget, Interval, Targets};
use probe::{Facts, LayerKind, Root};
use verdict::watch::WatchThresholds;

use self::saved::{SavedClient, SavedWatch, SAMPLES_FORMAT};
use super::{emit, is_root, say, UsageError};
use crate::config::{ClientName, GlobalOptions, WatchConfig};
use crate::redact::Redactor;
use crate::render::{self, watch::progress_line, RenderOptions};

pub fn run(config: &WatchConfig, global: &GlobalOptions) -> Result<u8> {
    let root = Root::live();
    // Checked before sampling, so a long run is not thrown away at the end: the files are
    // written as every nodecheck output file is (a new file beside, renamed into place,
    // never through a link, never into a FIFO or device).
    for file in config.save.iter().chain(&config.output) {
        crate::output_file::check_target(file)
            .map_err(|err| UsageError(format!("cannot write {}: {err}", file.display())))?;
    }
    let path = choose_path(config, global);
    if !path.is_dir() {
        return Err(UsageError(format!(
            "{} is not a directory: watch follows the storage under the node's data directory",
            path.display()
        ))
        .into());
    }
    let options = probe::ProbeOptions {
        run_smartctl: false,
        ..probe::ProbeOptions::default()
    };
    let facts = probe::probe_path(&root, &path, &options)
        .with_context(|| format!("cannot find the storage under {}", path.display()))?;
    let mut notes = Vec::new();
    let mut needs_root = Vec::new();
    let privileged = is_root();

    let devices = watched_devices(&facts);
    if devices.is_empty() {
        notes.push(no_device_note(&facts));
    }
    let running =
        probe::processes::running_clients(&root, &ClientName::processes(), std::process::id());
    if running.is_empty() {
        notes.push("No running execution client found (geth, nethermind, besu, erigon, reth): the host's pressure stands for the node; start the node, or watch while it runs".to_string());
    }
    let layout = cgroup::layout(&root);
    let targets = Targets {
        devices,
        clients: running
            .iter()
            .map(|c| ClientTarget::locate(&root, &layout, &c.client, c.pid))
            .collect(),
    };
    cgroup_notes(&layout, &targets, &mut notes);

    let probe_wanted = config.probe_latency.unwrap_or(privileged);
    let stop = Arc::new(AtomicBool::new(false));
    let prober = if !probe_wanted {
        None
    } else if !privileged {
        needs_root.push("The QD1 latency probe of the chain's blocks (FIEMAP, O_DIRECT reads of the block device) needs root: `sudo nodecheck watch`".to_string());
        None
    } else {
        match latency::locate(&path, facts.mount.as_ref().map(|m| m.fs_type.as_str())) {
            Ok(target) => {
                let stop = Arc::clone(&stop);
                let seed = u64::from(std::process::id()) << 20
                    | u64::from(
                        SystemTime::now()
                            .duration_since(UNIX_EPOCH)
                            .map_or(0, |d| d.subsec_nanos()),
                    );
                Some(std::thread::spawn(move || latency::run(target, stop, seed)))
            }
            Err(why) => {
                notes.push(format!("No latency probe: {why}"));
                None
            }
        }
    };

    let names: Vec<(u32, String)> = running.iter().map(|c| (c.pid, c.client.clone())).collect();
    say(
        global,
        &format!(
            "Watching {} for {:.0} s: {}; {} (Ctrl-C stops early and reports)",
            path.display(),
            config.duration.as_secs_f64(),
            if targets.devices.is_empty() {
                "no block device".to_string()
            } else {
                targets.devices.join(", ")
            },
            if running.is_empty() {
                "no client".to_string()
            } else {
                running
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        ),
    );
    let cooperation = crate::signals::cooperate().context("cannot install signal handlers")?;
    let samples = sample(&root, &targets, config, global, &names, cooperation.token());
    stop.store(true, Ordering::Relaxed);
    let latencies = match prober.map(|handle| handle.join()) {
        Some(Ok(Ok(latencies))) => latencies,
        Some(Ok(Err(why))) => {
            notes.push(format!("No latency probe: {why}"));
            Vec::new()
        }
        Some(Err(_)) => {
            notes.push("No latency probe: its thread failed".to_string());
            Vec::new()
        }
        None => Vec::new(),
    };
    readability_notes(&samples, &targets, privileged, &mut notes, &mut needs_root);

    let saved = SavedWatch {
        nodecheck_watch_samples: SAMPLES_FORMAT,
        nodecheck_version: env!("CARGO_PKG_VERSION").to_string(),
        path: path.display().to_string(),
        interval_seconds: config.interval.as_secs_f64(),
        targets,
        clients: running
            .iter()
            .map(|c| SavedClient {
                client: c.client.clone(),
                pid: c.pid,
                container: c.container,
            })
            .collect(),
        probe_latencies_us: latencies,
        needs_root,
        notes,
        samples,
    };
    if let Some(file) = &config.save {
        let text = serde_json::to_string_pretty(&saved)? + "\n";
        crate::output_file::write_bytes(file, text.as_bytes())
            .with_context(|| format!("cannot save the readings to {}", file.display()))?;
        say(
            global,
            &format!(
                "Raw readings saved to {} (`nodecheck triage {}` judges them again)",
                file.display(),
                file.display()
            ),
        );
    }
    let report = saved.report(&WatchThresholds::embedded(), None);
    let redactor = config
        .redact
        .then(|| Redactor::new().with_facts(&facts).with_local_hostname());
    let options = RenderOptions::for_stdout(global.verbosity).redacting(redactor);
    let text = render::render(&report, config.format, &options)?;
    match &config.output {
        Some(file) => crate::output_file::write_bytes(file, text.as_bytes())
            .with_context(|| format!("cannot write {}", file.display()))?,
        None => emit(&text)?,
    }
    let code = report.exit_code();
    drop(cooperation);
    Ok(code)
}

fn choose_path(config: &WatchConfig, global: &GlobalOptions) -> PathBuf {
    if let Some(path) = &config.path {
        return path.clone();
    }
    match crate::commands::detect_datadir() {
        Some(found) => {
            say(
                global,
                &format!(
                    "Watching {} ({} datadir found; pass a PATH to watch another)",
                    found.path.display(),
                    found.client.unwrap_or("client")
                ),
            );
            found.path
        }
        None => {
            say(global, "No client datadir found in the default places; watching the storage of the current directory (pass the node's data directory as PATH)");
            PathBuf::from(".")
        }
    }
}

/// The physical drives, and the device the file system sits on when it is an array or a
/// mapping (md, LVM, dm-crypt): its await is what the client's requests see.
pub fn watched_devices(facts: &Facts) -> Vec<String> {
    let mut devices: Vec<String> = facts
        .layers
        .iter()
        .filter(|l| l.depth == 0 && !matches!(l.kind, LayerKind::Disk | LayerKind::Partition))
        .map(|l| l.name.clone())
        .collect();
    for drive in &facts.drives {
        if !devices.contains(&drive.name) {
            devices.push(drive.name.clone());
        }
    }
    devices
}

fn no_device_note(facts: &Facts) -> String {
    match &facts.mount {
        Some(m) => format!(
            "No block device under {}: it is on {} ({}), so there are no per-device figures; the pressure and the client's own bytes are still measured",
            facts.path, m.fs_type, m.source
        ),
        None => format!("No block device under {}: no mount found for it; the pressure and the client's own bytes are still measured", facts.path),
    }
}

fn cgroup_notes(layout: &CgroupLayout, targets: &Targets, notes: &mut Vec<String>) {
    match layout {
        CgroupLayout::V1Only => notes.push("cgroup v1 only: there is no per-cgroup pressure, so the clients' stalls are judged from the host's PSI (systemd.unified_cgroup_hierarchy=1 on the kernel command line gives cgroup v2)".to_string()),
        CgroupLayout::None => notes.push("No cgroup file system visible: the host's PSI stands for the clients".to_string()),
        CgroupLayout::Hybrid if !targets.clients.is_empty() => notes.push("Hybrid cgroup layout (v1 controllers, v2 at /sys/fs/cgroup/unified): the clients' cgroup pressure is read there; io.stat needs the io controller on v2".to_string()),
        _ => {}
    }
}

/// Notes for the files the readings show were missing: no PSI, another user's `/proc/PID/io`.
fn readability_notes(
    samples: &[io_sample::RawSample],
    targets: &Targets,
    privileged: bool,
    notes: &mut Vec<String>,
    needs_root: &mut Vec<String>,
) {
    let Some(first) = samples.first() else {
        return;
    };
    if first.pressure_io.is_none() {
        notes.push("No /proc/pressure/io: this kernel has no PSI (CONFIG_PSI off, or booted with psi=0): stalls cannot be seen; per-device await is still measured".to_string());
    }
    for (client, target) in first.clients.iter().zip(&targets.clients) {
        if client.io.is_none() {
            let line = format!("{}'s /proc/{}/io (its own read and write bytes) is readable only by its user or root", target.client, target.pid);
            if privileged {
                notes.push(line)
            } else {
                needs_root.push(line)
            }
        }
    }
}

/// Reads every `interval` until `duration` has passed or a signal arrives, printing one
/// progress line per interval.
fn sample(
    root: &Root,
    targets: &Targets,
    config: &WatchConfig,
    global: &GlobalOptions,
    names: &[(u32, String)],
    token: &bench::CancelToken,
) -> Vec<io_sample::RawSample> {
    let started = Instant::now();
    let read = |at: Instant| {
        let unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        io_sample::read(
            root,
            targets,
            at.duration_since(started).as_millis() as u64,
            unix_ms,
        )
    };
    let mut samples = vec![read(started)];
    let mut next = started + config.interval;
    let end = started + config.duration;
    while next <= end + Duration::from_millis(5) && !token.is_cancelled() {
        while Instant::now() < next && !token.is_cancelled() {
            std::thread::sleep((next - Instant::now()).min(Duration::from_millis(100)));
        }
        if token.is_cancelled() {
            break;
        }
        let now = read(Instant::now());
        if let Some(interval) = samples
            .last()
            .and_then(|prev| Interval::between(prev, &now))
        {
            say(global, &progress_line(&interval, names));
        }
        samples.push(now);
        next += config.interval;
    }
    samples
}

/// Prints a watch report in `format` (triage's path for watch-like inputs).
pub fn print_report(
    report: &crate::render::watch::WatchReport,
    format: crate::config::Format,
    redact: bool,
    global: &GlobalOptions,
) -> Result<u8> {
    let redactor = redact.then(Redactor::new);
    let options = RenderOptions::for_stdout(global.verbosity).redacting(redactor);
    emit(&render::render(report, format, &options)?)?;
    Ok(report.exit_code())
}
