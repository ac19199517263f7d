//! `nodecheck triage FILE`: judges what someone pasted, without touching this machine.
//!
//! Reads a saved `smartctl -j -x` output, a saved `nodecheck check --json` report (re-judged
//! with this build's database), or a `nodecheck probe --json` facts document.

use std::io::Read;
use std::path::Path;

use anyhow::{anyhow, Context, Result};
use probe::Facts;
use verdict::judge::ClientChoice;

use super::emit;
use crate::config::{GlobalOptions, TriageConfig};
use crate::redact::Redactor;
use crate::render::{self, RenderOptions};
use crate::report::{self, Report};

/// A pasted report is far smaller; more is not something nodecheck or smartctl wrote.
const MAX_INPUT_BYTES: u64 = 64 << 20;

/// What a triage file turned out to be.
#[derive(Debug)]
pub enum Input {
    Report(Box<Report>),
    Facts(Box<Facts>),
    Smartctl(Box<Facts>),
}

pub fn run(config: &TriageConfig, global: &GlobalOptions) -> Result<u8> {
    let db = crate::database::load(global)?;
    let bytes = read_input(&config.file)?;
    let origin = config
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| config.file.display().to_string());
    let input = classify(&bytes, &origin)
        .with_context(|| format!("cannot triage {}", config.file.display()))?;
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
        Input::Facts(f) => (*f, None, vec!["Judged from a saved `nodecheck probe --json`.".to_string()]),
        Input::Smartctl(f) => (
            *f,
            None,
            vec![format!(
                "Judged from a saved smartctl output ({origin}): drive facts only, no mount, stack or measurements."
            )],
        ),
    };
    let client = match config.client {
        Some(c) => ClientChoice::Named(c.id().to_string()),
        None => ClientChoice::Strictest,
    };
    let consensus = config.consensus.map(|c| c.id());
    let verdict = verdict::judge::judge_node(&facts, bench.as_ref(), &db, &client, consensus);
    notes.dedup();
    let report = super::check::build_report(facts, bench, verdict, None, notes, config.client);
    let redactor = config
        .redact
        .then(|| Redactor::new().with_facts(&report.facts));
    emit(&render::render(
        &report,
        config.format,
        &RenderOptions::for_stdout(global.verbosity),
        redactor.as_ref(),
    ))?;
    Ok(report::exit_code(report.grade))
}

fn read_input(path: &Path) -> Result<Vec<u8>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(anyhow!(
            "{} is larger than {} MiB: not a smartctl output or nodecheck report",
            path.display(),
            MAX_INPUT_BYTES >> 20
        ));
    }
    Ok(bytes)
}

/// Tells the three documents apart by their keys; anything else gets smartctl's parser, whose
/// errors say precisely what is wrong (truncated, text output, foreign JSON).
pub fn classify(bytes: &[u8], origin: &str) -> Result<Input> {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
        let is_object_with = |key: &str| value.get(key).is_some();
        if is_object_with("facts") && is_object_with("findings") && is_object_with("schema_version")
        {
            let report: Report = serde_json::from_value(value)
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
        if is_object_with("probe_version") && is_object_with("drives") {
            let facts: Facts = serde_json::from_value(value).context(
                "this looks like `nodecheck probe --json` output but does not match its schema",
            )?;
            return Ok(Input::Facts(Box::new(facts)));
        }
    }
    let parsed = probe::smartctl::parse(bytes)?;
    Ok(Input::Smartctl(Box::new(parsed.to_facts(origin))))
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
