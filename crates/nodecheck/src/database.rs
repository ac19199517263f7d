//! The drive database the verdict uses (the embedded one, or `--db FILE`), and how `db lookup`
//! answers a name.

use anyhow::{Context, Result};
use serde::Serialize;
use verdict::Grade;
use verdict::{
    controller_maker, may_be_truncated, ClassQuery, Database, DriveEntry, DriveQuery,
    EntryInterface, Lookup, PciId, UnlistedGrade, EMBEDDED_DRIVES,
};

use crate::config::GlobalOptions;

pub fn load(global: &GlobalOptions) -> Result<Database> {
    match &global.db {
        Some(path) => Database::load(path)
            .with_context(|| format!("cannot use the drive database {}", path.display())),
        None => Database::embedded().context("the embedded drive database is invalid"),
    }
}

/// How a lookup found its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchedBy {
    Model,
    FamilyName,
    ModelPrefix,
}

/// How many near families an unknown name suggests.
const SUGGESTIONS: usize = 5;

/// What a lookup found, whichever way it found it.
pub struct Answer<'a> {
    pub found: Lookup<'a>,
    pub matched_by: Option<MatchedBy>,
    pub candidates: Vec<&'a DriveEntry>,
    pub suggestions: Vec<&'a DriveEntry>,
    /// For a string no entry names: its class and the list's rules, as `check` and `triage`
    /// judge it.
    pub unlisted: Option<UnlistedGrade<'a>>,
}

/// What `db lookup` knows besides the model string, as the probe or a smartctl report would.
#[derive(Debug, Clone, Copy, Default)]
pub struct Evidence<'a> {
    pub pci_id: Option<(u16, Option<u16>)>,
    pub interface: Option<EntryInterface>,
    pub model_family: Option<&'a str>,
}

impl Answer<'_> {
    pub fn grade(&self) -> Grade {
        if self.found.entry.is_some() {
            return self.found.grade;
        }
        if let Some(unlisted) = &self.unlisted {
            return unlisted.grade;
        }
        let mut grades = self.candidates.iter().map(|e| e.grade);
        match grades.next() {
            Some(first) if grades.all(|g| g == first) => first,
            _ => Grade::Unknown,
        }
    }
}

/// A family name exactly as `db list` prints it first (the model patterns accept a bare family
/// name too, but then the answer must say no model string was matched); then a model string; then, for a string no
/// longer than a SCSI INQUIRY product, the families whose names start with it; then the
/// nearest families as suggestions; and for a string no entry names, the classification
/// `check` applies from the `evidence` it has.
pub fn answer_with<'a>(
    db: &'a Database,
    query: &DriveQuery<'_>,
    evidence: Evidence<'_>,
) -> Answer<'a> {
    let mut answer = answer_by_name(db, query);
    if answer.found.entry.is_none() && answer.candidates.is_empty() {
        let vendor = evidence.pci_id.map(|(v, _)| format!("{v:04x}"));
        let unlisted = db.grade_unlisted(&ClassQuery {
            model: query.model,
            interface: evidence.interface,
            controller: vendor.as_deref().and_then(controller_maker),
            pci_id: evidence
                .pci_id
                .and_then(|(vendor, device)| device.map(|device| PciId { vendor, device })),
            model_family: evidence.model_family,
            firmware: query.firmware,
            ..ClassQuery::default()
        });
        if unlisted.classification.is_some() {
            answer.unlisted = Some(unlisted);
        }
    }
    answer
}

fn answer_by_name<'a>(db: &'a Database, query: &DriveQuery<'_>) -> Answer<'a> {
    let found = db.lookup(query);
    let by_family = db.entries_by_family_name(query.model);
    if let [entry] = by_family.as_slice() {
        return Answer {
            found: db.lookup_entry(entry, query),
            matched_by: Some(MatchedBy::FamilyName),
            candidates: Vec::new(),
            suggestions: Vec::new(),
            unlisted: None,
        };
    }
    if !by_family.is_empty() {
        return Answer {
            found,
            matched_by: Some(MatchedBy::FamilyName),
            candidates: by_family,
            suggestions: Vec::new(),
            unlisted: None,
        };
    }
    if found.entry.is_some() {
        return Answer {
            found,
            matched_by: Some(MatchedBy::Model),
            candidates: Vec::new(),
            suggestions: Vec::new(),
            unlisted: None,
        };
    }
    if may_be_truncated(query.model, None, None) {
        let prefix = db.prefix_candidates(query.model);
        if !prefix.entries.is_empty() {
            return Answer {
                found,
                matched_by: Some(MatchedBy::ModelPrefix),
                candidates: prefix.entries,
                suggestions: Vec::new(),
                unlisted: None,
            };
        }
    }
    Answer {
        found,
        matched_by: None,
        candidates: Vec::new(),
        suggestions: db.nearest_families(query.model, SUGGESTIONS),
        unlisted: None,
    }
}

/// The embedded database's version, read from its top-level `version = "..."` line without
/// parsing the whole database (this runs for every `--version` and `--help`).
pub fn embedded_version() -> &'static str {
    version_of(EMBEDDED_DRIVES).unwrap_or("unknown")
}

fn version_of(toml_text: &str) -> Option<&str> {
    for line in toml_text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            return None;
        }
        let Some(rest) = line.strip_prefix("version") else {
            continue;
        };
        let value = rest.trim_start().strip_prefix('=')?.trim();
        return value.strip_prefix('"')?.split('"').next();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_line_is_found_before_the_first_table() {
        assert_eq!(
            version_of("schema_version = 1\nversion = \"2026.11.30\"\n[[drives]]\n"),
            Some("2026.11.30")
        );
        assert_eq!(version_of("[[drives]]\nversion = \"x\"\n"), None);
    }

    #[test]
    fn embedded_version_agrees_with_the_parser() {
        let db = Database::embedded().expect("embedded database parses");
        assert_eq!(embedded_version(), db.version);
    }
}
