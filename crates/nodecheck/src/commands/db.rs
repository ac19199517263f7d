//! `nodecheck db lookup MODEL` and `nodecheck db list`: the drive database on its own.

use anyhow::Result;
use serde::Serialize;
use verdict::database::{may_be_truncated, Advisory, Database, DriveEntry, DriveQuery, Lookup};
use verdict::judge::EntrySummary;
use verdict::Grade;

use super::emit;
use crate::config::{DbListConfig, DbLookupConfig, GlobalOptions};
use crate::render::table::new_table;
use crate::render::{clip, printable, RenderOptions};

/// `db lookup --json`: the keys issue 3 names (`grade`, `entry.{family,grade,nand,dram,class}`)
/// plus the advisories that hit, how the entry was found, and the families a name that found
/// none could be (`candidates`) or is close to (`suggestions`).
#[derive(Debug, Serialize)]
struct LookupDocument<'a> {
    database_version: &'a str,
    model: &'a str,
    firmware: Option<&'a str>,
    capacity_bytes: Option<u64>,
    grade: Grade,
    /// `model`, `family_name` or `model_prefix`; `null` when nothing matched.
    matched_by: Option<MatchedBy>,
    entry: Option<EntryDocument<'a>>,
    advisories: &'a [Advisory],
    /// Every family the name could be when it names more than one (a family name several
    /// vendors use, or a model string cut to its first 16 characters).
    candidates: Vec<FamilyDocument<'a>>,
    /// The nearest families when nothing matched.
    suggestions: Vec<FamilyDocument<'a>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum MatchedBy {
    Model,
    FamilyName,
    ModelPrefix,
}

#[derive(Debug, Serialize)]
struct EntryDocument<'a> {
    #[serde(flatten)]
    summary: EntrySummary,
    interface: &'static str,
    notes: &'a str,
    sources: &'a [String],
}

#[derive(Debug, Serialize)]
struct FamilyDocument<'a> {
    id: &'a str,
    family: String,
    grade: Grade,
}

impl<'a> FamilyDocument<'a> {
    fn of(entry: &'a DriveEntry) -> FamilyDocument<'a> {
        FamilyDocument {
            id: &entry.id,
            family: entry.display_name(),
            grade: entry.grade,
        }
    }
}

/// How many near families an unknown name suggests.
const SUGGESTIONS: usize = 5;

/// What a lookup found, whichever way it found it.
struct Answer<'a> {
    found: Lookup<'a>,
    matched_by: Option<MatchedBy>,
    candidates: Vec<&'a DriveEntry>,
    suggestions: Vec<&'a DriveEntry>,
}

impl Answer<'_> {
    fn grade(&self) -> Grade {
        if self.found.entry.is_some() {
            return self.found.grade;
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
/// nearest families as suggestions.
fn answer<'a>(db: &'a Database, query: &DriveQuery<'_>) -> Answer<'a> {
    let found = db.lookup(query);
    let by_family = db.entries_by_family_name(query.model);
    if let [entry] = by_family.as_slice() {
        return Answer {
            found: db.lookup_entry(entry, query),
            matched_by: Some(MatchedBy::FamilyName),
            candidates: Vec::new(),
            suggestions: Vec::new(),
        };
    }
    if !by_family.is_empty() {
        return Answer {
            found,
            matched_by: Some(MatchedBy::FamilyName),
            candidates: by_family,
            suggestions: Vec::new(),
        };
    }
    if found.entry.is_some() {
        return Answer {
            found,
            matched_by: Some(MatchedBy::Model),
            candidates: Vec::new(),
            suggestions: Vec::new(),
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
            };
        }
    }
    Answer {
        found,
        matched_by: None,
        candidates: Vec::new(),
        suggestions: db.nearest_families(query.model, SUGGESTIONS),
    }
}

pub fn lookup(config: &DbLookupConfig, global: &GlobalOptions) -> Result<u8> {
    let db = crate::database::load(global)?;
    let mut query = DriveQuery::new(&config.model);
    if let Some(fw) = &config.firmware {
        query = query.firmware(fw);
    }
    if let Some(capacity) = config.capacity_bytes {
        query = query.capacity(capacity);
    }
    let answer = answer(&db, &query);
    let grade = answer.grade();
    if config.json {
        let found = &answer.found;
        let doc = LookupDocument {
            database_version: &db.version,
            model: &config.model,
            firmware: config.firmware.as_deref(),
            capacity_bytes: config.capacity_bytes,
            grade,
            matched_by: answer.matched_by,
            entry: found.entry.map(|e| EntryDocument {
                summary: EntrySummary::of(e, found.nand, found.dram),
                interface: e.interface.as_str(),
                notes: &e.notes,
                sources: &e.sources,
            }),
            advisories: &found.advisories,
            candidates: answer
                .candidates
                .iter()
                .map(|e| FamilyDocument::of(e))
                .collect(),
            suggestions: answer
                .suggestions
                .iter()
                .map(|e| FamilyDocument::of(e))
                .collect(),
        };
        let mut json = serde_json::to_string_pretty(&doc)?;
        json.push('\n');
        emit(&json)?;
    } else {
        emit(&render_lookup(
            config,
            &answer,
            &RenderOptions::for_stdout(global.verbosity),
        ))?;
    }
    // A lookup answers a question, it does not check this machine, so a known grade exits 0
    // whatever it is (scripts read the JSON); a name the database cannot grade exits 1, so a
    // typo is not mistaken for an answer.
    Ok(if grade == Grade::Unknown {
        crate::exit_codes::UGLY
    } else {
        crate::exit_codes::GOOD
    })
}

fn render_lookup(config: &DbLookupConfig, answer: &Answer<'_>, options: &RenderOptions) -> String {
    let mut out = String::new();
    let mut asked = printable(&clip(config.model.trim(), 80));
    if let Some(fw) = &config.firmware {
        asked.push_str(&format!(", firmware {}", printable(&clip(fw, 20))));
    }
    if let Some(c) = config.capacity_bytes {
        asked.push_str(&format!(", {}", units::size::decimal(c)));
    }
    let found = &answer.found;
    let Some(entry) = found.entry else {
        out.push_str(&render_unmatched(&asked, answer));
        return out;
    };
    let summary = EntrySummary::of(entry, found.nand, found.dram);
    let mut table = new_table(options);
    table.set_header(["", ""]);
    table.add_row(["asked".to_string(), asked]);
    if answer.matched_by == Some(MatchedBy::FamilyName) {
        table.add_row([
            "matched by".to_string(),
            "family name (not a model string)".to_string(),
        ]);
    }
    table.add_row(["grade".to_string(), found.grade.as_str().to_uppercase()]);
    table.add_row(["family".to_string(), summary.family.clone()]);
    table.add_row(["family grade".to_string(), summary.grade.to_string()]);
    table.add_row(["interface".to_string(), entry.interface.label().to_string()]);
    table.add_row([
        "NAND".to_string(),
        summary.nand.clone().unwrap_or_else(|| "unknown".into()),
    ]);
    table.add_row([
        "DRAM".to_string(),
        summary.dram.clone().unwrap_or_else(|| "unknown".into()),
    ]);
    table.add_row(["class".to_string(), summary.class.clone()]);
    if !entry.notes.is_empty() {
        table.add_row(["notes".to_string(), entry.notes.clone()]);
    }
    for a in &found.advisories {
        let mut text = format!("[{}] {}", a.severity, a.text);
        if let Some(fix) = &a.fix {
            text.push_str(&format!("\nFix: {fix}"));
        }
        table.add_row([a.code.clone(), text]);
    }
    if !entry.sources.is_empty() {
        table.add_row(["sources".to_string(), entry.sources.join(", ")]);
    }
    out.push_str(&table.to_string());
    out.push('\n');
    out
}

fn family_list(entries: &[&DriveEntry]) -> String {
    let named: Vec<String> = entries
        .iter()
        .map(|e| format!("{} ({})", e.display_name(), e.grade))
        .collect();
    let width = named.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    named
        .iter()
        .zip(entries)
        .map(|(name, e)| {
            format!(
                "  {name:<width$}   nodecheck db lookup '{}'\n",
                e.display_name()
            )
        })
        .collect()
}

fn render_unmatched(asked: &str, answer: &Answer<'_>) -> String {
    match answer.matched_by {
        Some(MatchedBy::FamilyName) => format!(
            "{asked}: {} families have this name; say which:\n{}",
            answer.candidates.len(),
            family_list(&answer.candidates)
        ),
        Some(MatchedBy::ModelPrefix) => format!(
            "{asked}: {}. The name is cut short (a SCSI INQUIRY product holds 16 characters), and it could be:\n{}\
             Read the full model with `sudo smartctl -d sat -i /dev/<drive>` and look that up.\n",
            answer.grade().as_str(),
            family_list(&answer.candidates)
        ),
        _ if !answer.suggestions.is_empty() => format!(
            "{asked}: unknown. No database entry matches this model string or family name. Nearest families:\n{}\
             Check the exact string the drive reports (`nodecheck probe`), or add the drive: \
             see docs/contributing-drives.md.\n",
            family_list(&answer.suggestions)
        ),
        _ => format!(
            "{asked}: unknown. No database entry matches this model string or family name.\n\
             Check the exact string the drive reports (`nodecheck probe`), or add the drive: \
             see docs/contributing-drives.md.\n"
        ),
    }
}

#[derive(Debug, Serialize)]
struct ListItem<'a> {
    id: &'a str,
    family: String,
    interface: &'static str,
    grade: Grade,
    nand: Option<String>,
    dram: Option<String>,
    class: String,
    notes: &'a str,
}

pub fn list(config: &DbListConfig, global: &GlobalOptions) -> Result<u8> {
    let db = crate::database::load(global)?;
    let entries: Vec<&DriveEntry> = db
        .drives
        .iter()
        .filter(|e| match config.grade {
            Some(g) => e.grade == g,
            None => true,
        })
        .collect();
    if config.json {
        let items: Vec<ListItem<'_>> = entries
            .iter()
            .map(|e| {
                let s = EntrySummary::of(e, e.nand, e.dram);
                ListItem {
                    id: &e.id,
                    family: s.family,
                    interface: e.interface.as_str(),
                    grade: e.grade,
                    nand: s.nand,
                    dram: s.dram,
                    class: s.class,
                    notes: &e.notes,
                }
            })
            .collect();
        let doc = serde_json::json!({
            "database_version": db.version,
            "entries": items,
        });
        let mut json = serde_json::to_string_pretty(&doc)?;
        json.push('\n');
        emit(&json)?;
        return Ok(crate::exit_codes::GOOD);
    }
    emit(&render_list(
        &db,
        &entries,
        &RenderOptions::for_stdout(global.verbosity),
    ))?;
    Ok(crate::exit_codes::GOOD)
}

fn render_list(db: &Database, entries: &[&DriveEntry], options: &RenderOptions) -> String {
    let mut table = new_table(options);
    table.set_header(["Family", "Bus", "Grade", "NAND", "DRAM", "Class"]);
    for e in entries {
        let s = EntrySummary::of(e, e.nand, e.dram);
        table.add_row([
            clip(&s.family, 40),
            e.interface.label().to_string(),
            e.grade.to_string(),
            s.nand.unwrap_or_else(|| "-".into()),
            s.dram.unwrap_or_else(|| "-".into()),
            s.class,
        ]);
    }
    format!(
        "{table}\n{} entries (database {})\n",
        entries.len(),
        db.version
    )
}
