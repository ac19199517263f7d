//! `nodecheck triage FILE`: judges what someone pasted, without touching this machine.
//!
//! Reads a saved `smartctl -j -x` output, a saved `nodecheck check --json` report (re-judged
//! with this build's database), or a `nodecheck probe --json` facts document.

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use probe::smartctl::SmartctlReport;
use probe::Facts;
use serde::de::IgnoredAny;
use serde::Deserialize;

use super::emit;
use crate::config::{GlobalOptions, TriageConfig};
use crate::redact::Redactor;
use crate::render::{self, RenderOptions};
use crate::report::{self, Report};

/// `smartctl -j -x` prints a few hundred KiB at most and a `check --json` report less; the
/// cap also bounds what smartctl's parser, which holds the whole JSON tree, can be made to
/// allocate.
pub const MAX_INPUT_BYTES: u64 = 4 << 20;

/// What a triage file turned out to be.
#[derive(Debug)]
pub enum Input {
    Report(Box<Report>),
    Facts(Box<Facts>),
    Smartctl {
        report: Box<SmartctlReport>,
        facts: Box<Facts>,
    },
}

pub fn run(config: &TriageConfig, global: &GlobalOptions) -> Result<u8> {
    let db = crate::database::load(global)?;
    let bytes = read_input(&config.file)?;
    let origin = config
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| config.file.display().to_string());
    if let Some(watched) = super::watch::triage::report(&bytes, &origin)
        .with_context(|| format!("cannot triage {}", config.file.display()))?
    {
        return super::watch::print_report(&watched, config.format, config.redact, global);
    }
    let input = classify(&bytes, &origin)
        .with_context(|| format!("cannot triage {}", config.file.display()))?;
    // A smartctl run that read no health data: the verdict line says the health is unknown
    // and what to run instead, not "nothing wrong was found".
    let health_unknown = match &input {
        Input::Smartctl { report, facts } if !report.has_health_data() => {
            let drive = facts
                .drives
                .first()
                .map_or(origin.as_str(), |d| d.name.as_str());
            Some(health_unknown_summary(report, drive))
        }
        _ => None,
    };
    let (facts, bench, mut notes) = match input {
        Input::Report(r) => {
            let r = *r;
            let mut notes = vec![format!(
                "Re-judged from a saved nodecheck {} report (database {} then, {} now).",
                r.nodecheck_version, r.database_version, db.version
            )];
            notes.extend(r.notes);
            (r.facts, r.bench, notes)
        }
        Input::Facts(f) => (
            *f,
            None,
            vec!["Judged from a saved `nodecheck probe --json`.".to_string()],
        ),
        Input::Smartctl { report, facts } => {
            let mut notes = vec![format!(
                "Judged from a saved smartctl output ({origin}): drive facts only, no mount, stack or measurements."
            )];
            notes.extend(smartctl_notes(&report));
            (*facts, None, notes)
        }
    };
    let verdict = super::judge(&facts, bench.as_ref(), &db, config.clients);
    notes.dedup();
    let mut report = crate::report::build(facts, bench, verdict, None, notes, config.clients);
    if let Some(summary) = health_unknown {
        if report.grade <= verdict::Grade::Unknown {
            report.grade = verdict::Grade::Unknown;
            report.summary = summary;
        }
    }
    // A saved report of a live machine says nothing of where it was read from: name the file.
    report.source = Some(format!("replayed from {origin}"));
    let redactor = config
        .redact
        .then(|| Redactor::new().with_facts(&report.facts));
    let options = RenderOptions::for_stdout(global.verbosity).redacting(redactor);
    emit(&render::render(&report, config.format, &options)?)?;
    Ok(report::exit_code(report.grade))
}

fn read_input(path: &Path) -> Result<Vec<u8>> {
    Ok(probe::input::read_user_file(
        path,
        MAX_INPUT_BYTES,
        "a smartctl output or nodecheck report",
    )?)
}

/// The top-level keys that tell the documents apart, read without building the document: a
/// huge array or object costs no memory here.
#[derive(Deserialize)]
struct TopLevelKeys {
    facts: Option<IgnoredAny>,
    findings: Option<IgnoredAny>,
    schema_version: Option<IgnoredAny>,
    probe_version: Option<IgnoredAny>,
    drives: Option<IgnoredAny>,
}

/// Tells the three documents apart by their keys; anything else gets smartctl's parser, whose
/// errors say precisely what is wrong (truncated, text output, foreign JSON). A smartctl run
/// that read nothing about any device is an error carrying smartctl's own messages.
pub fn classify(bytes: &[u8], origin: &str) -> Result<Input> {
    if let Ok(keys) = serde_json::from_slice::<TopLevelKeys>(bytes) {
        if keys.facts.is_some() && keys.findings.is_some() && keys.schema_version.is_some() {
            let report: Report = serde_json::from_slice(bytes)
                .context("this looks like a nodecheck report but does not match its schema")?;
            if report.schema_version > report::SCHEMA_VERSION {
                return Err(anyhow!(
                    "this report has schema version {}, newer than this nodecheck reads ({}); update nodecheck",
                    report.schema_version,
                    report::SCHEMA_VERSION
                ));
            }
            return Ok(Input::Report(Box::new(report)));
        }
        if keys.probe_version.is_some() && keys.drives.is_some() {
            let facts: Facts = serde_json::from_slice(bytes).context(
                "this looks like `nodecheck probe --json` output but does not match its schema",
            )?;
            return Ok(Input::Facts(Box::new(facts)));
        }
    }
    let parsed = probe::smartctl::parse(bytes)?;
    if !parsed.has_device_data() {
        let device = parsed.device_name.as_deref().unwrap_or("/dev/DEVICE");
        return Err(anyhow!(
            "smartctl read nothing from {}{}{}; {}",
            parsed.device_name.as_deref().unwrap_or("the device"),
            exit_status_words(&parsed),
            messages_clause(&parsed),
            what_to_run(&parsed, device)
        ));
    }
    let facts = parsed.to_facts(origin);
    Ok(Input::Smartctl {
        report: Box::new(parsed),
        facts: Box::new(facts),
    })
}

/// ` (exit status 2: device open failed)`, or nothing for a clean run.
fn exit_status_words(report: &SmartctlReport) -> String {
    match report.exit_status {
        Some(status) if status != 0 => {
            format!(" (exit status {status}: {})", report.status.join(", "))
        }
        _ => String::new(),
    }
}

/// `: smartctl said "..."; "..."`, or nothing when it printed no messages.
fn messages_clause(report: &SmartctlReport) -> String {
    if report.messages.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = report
        .messages
        .iter()
        .map(|m| format!("\"{}\"", m.replace(['\n', '\r'], " ")))
        .collect();
    format!(": smartctl said {}", quoted.join("; "))
}

/// What to run instead, from what smartctl said. Its own hints name the device type to try
/// (a MegaRAID/PERC controller, an unknown USB bridge); a RAID virtual disk without SMART
/// needs the physical disks behind it.
fn what_to_run(report: &SmartctlReport, device: &str) -> String {
    let said = report.messages.join("\n").to_ascii_lowercase();
    // virtio and Xen disks have no SMART for smartctl to read, whatever options it gets.
    let virtual_disk = [device.to_ascii_lowercase().as_str(), said.as_str()]
        .iter()
        .any(|text| text.contains("/dev/vd") || text.contains("/dev/xvd"));
    if virtual_disk {
        return "this is a virtual disk (virtio or Xen): it has no SMART data for smartctl to read. \
                Send what nodecheck sees inside the VM instead (`nodecheck check --json`, or \
                `nodecheck snapshot -o node.tar.gz`); the health of the drive behind it is read \
                with smartctl on the host"
            .to_string();
    }
    let megaraid = said.contains("megaraid")
        || said.contains("perc")
        || report
            .device_type
            .as_deref()
            .is_some_and(|t| t.contains("megaraid"));
    if megaraid || report.smart_available == Some(false) {
        format!(
            "the drive sits behind a RAID controller: list its physical disks with `sudo smartctl --scan`, run `sudo smartctl -j -x -d megaraid,N {device}` for each disk N and triage those outputs"
        )
    } else if said.contains("usb bridge") || said.contains("specify device type") {
        format!(
            "the drive is behind a USB bridge smartctl does not recognise: run `sudo smartctl -j -x -d sat {device}` and triage that output"
        )
    } else if report.exit_status.is_some_and(|s| s & 0b10 != 0) {
        format!(
            "smartctl could not open the device: run `sudo smartctl -j -x {device}` as root on the machine itself (add `-d sat` for a USB drive) and triage that output"
        )
    } else {
        format!("run `sudo smartctl -j -x {device}` on the machine and triage that output")
    }
}

/// smartctl's own messages and exit status, shown without `-v` when the run failed or read
/// no health data, because they say why the report is thin.
fn smartctl_notes(report: &SmartctlReport) -> Vec<String> {
    let mut notes = Vec::new();
    if report.run_failed() || !report.has_health_data() {
        if let Some(status) = report.exit_status.filter(|s| *s != 0) {
            notes.push(format!(
                "smartctl exit status {status}: {}.",
                report.status.join(", ")
            ));
        }
        for message in &report.messages {
            notes.push(format!("smartctl said: {message}"));
        }
    }
    notes
}

/// The verdict line for a smartctl run that read no health data.
fn health_unknown_summary(report: &SmartctlReport, drive: &str) -> String {
    let device = report
        .device_name
        .clone()
        .unwrap_or_else(|| format!("/dev/{drive}"));
    let why = if report.smart_available == Some(false) {
        "smartctl found no SMART support on it".to_string()
    } else if report.run_failed() {
        format!("smartctl failed ({})", report.status.join(", "))
    } else {
        "smartctl read no health data".to_string()
    };
    format!(
        "UNKNOWN: the health of {drive} is unknown: {why}; {}",
        what_to_run(report, &device)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn truncated_and_foreign_documents_are_errors() {
        for bad in [
            &b""[..],
            b"{\"json_format_version\": [1, 0], \"smartctl\": {",
            b"[1, 2, 3]",
            b"{\"hello\": \"world\"}",
            b"smartctl 7.3 2022-02-28 r5338\n=== START OF INFORMATION SECTION ===",
            b"\xff\xfe\x00garbage",
        ] {
            assert!(
                classify(bad, "x").is_err(),
                "{:?} must be refused",
                String::from_utf8_lossy(bad)
            );
        }
    }

    proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = classify(&bytes, "fuzz");
        }
    }
}
