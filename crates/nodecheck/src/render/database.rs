//! The drive database on its own (`nodecheck db lookup`, `nodecheck db list`): tables for
//! the terminal, documents for scripts.

use serde::Serialize;
use verdict::EntrySummary;
use verdict::Grade;
use verdict::{Advisory, ClassRule, Database, DriveEntry, UnlistedGrade};

use super::table::new_table;
use super::{clip, json, printable, Document, Format, RenderOptions};
use crate::database::{Answer, MatchedBy};
use units::size::decimal as format_decimal;

/// Version of the `db lookup --json` and `db list --json` documents; bumped when a field is
/// renamed or re-typed.
pub const DB_DOCUMENT_SCHEMA_VERSION: u32 = 1;

/// The widest a family name is printed in `db list` before it wraps (never cut).
const FAMILY_COLUMN_CHARS: usize = 40;

/// What `db lookup` was asked and what it found.
pub struct LookupAnswer<'a> {
    pub database_version: &'a str,
    pub model: &'a str,
    pub firmware: Option<&'a str>,
    pub capacity_bytes: Option<u64>,
    pub answer: Answer<'a>,
    /// Classes the model string matches that also need a firmware revision the lookup did not
    /// give (or gave another of): the hint to pass `--firmware`.
    pub firmware_classes: Vec<&'a ClassRule>,
}

impl Document for LookupAnswer<'_> {
    const FORMATS: &'static [Format] = &[Format::Table, Format::Json];

    fn draw(&self, format: Format, options: &RenderOptions) -> Option<String> {
        match format {
            Format::Table => Some(render_lookup(self, options)),
            Format::Json => Some(json::render(&self.document())),
            Format::Markdown | Format::Discord | Format::Prometheus => None,
        }
    }
}

impl LookupAnswer<'_> {
    fn document(&self) -> LookupDocument<'_> {
        let found = &self.answer.found;
        LookupDocument {
            schema_version: DB_DOCUMENT_SCHEMA_VERSION,
            database_version: self.database_version,
            model: self.model,
            firmware: self.firmware,
            capacity_bytes: self.capacity_bytes,
            grade: self.answer.grade(),
            matched_by: self.answer.matched_by,
            entry: found.entry.map(|e| EntryDocument {
                summary: EntrySummary::of(e, found.nand, found.dram),
                interface: e.interface.as_str(),
                notes: &e.notes,
                sources: &e.sources,
            }),
            advisories: &found.advisories,
            candidates: self
                .answer
                .candidates
                .iter()
                .map(|e| FamilyDocument::of(e))
                .collect(),
            suggestions: self
                .answer
                .suggestions
                .iter()
                .map(|e| FamilyDocument::of(e))
                .collect(),
            unlisted: self.answer.unlisted.as_ref().map(UnlistedDocument::of),
            firmware_classes: self
                .firmware_classes
                .iter()
                .map(|c| FirmwareClassDocument {
                    id: &c.id,
                    label: &c.label,
                    firmware_examples: &c.firmware_examples,
                })
                .collect(),
        }
    }
}

/// A class the model string would reach with the right firmware revision.
#[derive(Debug, Serialize)]
struct FirmwareClassDocument<'a> {
    id: &'a str,
    label: &'a str,
    /// Revisions the class's drives really report.
    firmware_examples: &'a [String],
}

/// How `db lookup` graded a string no entry names: the class, the evidence for it and the
/// list's rules it reaches, as `check` reports them.
#[derive(Debug, Serialize)]
struct UnlistedDocument<'a> {
    /// The class rule's id (`samsung-oem-dram`), or `controller`, `host-memory-buffer`,
    /// `rotational` when probe evidence alone decided.
    class_id: &'a str,
    label: String,
    class: Option<&'static str>,
    nand: Option<&'static str>,
    dram: Option<&'static str>,
    evidence: Vec<&'a str>,
    /// The list's generic rules the class reaches; the grade is the worst of theirs.
    rules: Vec<&'a str>,
    grade: Grade,
}

impl<'a> UnlistedDocument<'a> {
    fn of(u: &'a UnlistedGrade<'a>) -> UnlistedDocument<'a> {
        let c = u.classification.as_ref();
        UnlistedDocument {
            class_id: c.map_or("unclassified", |c| c.id()),
            label: c.map(|c| c.label()).unwrap_or_default(),
            class: c.and_then(|c| c.class).map(|x| x.as_str()),
            nand: c.and_then(|c| c.nand).map(|x| x.as_str()),
            dram: c.and_then(|c| c.dram).map(|x| x.as_str()),
            evidence: c
                .map(|c| c.evidence.iter().map(|e| e.text.as_str()).collect())
                .unwrap_or_default(),
            rules: u.rules.iter().map(|r| r.id.as_str()).collect(),
            grade: u.grade,
        }
    }
}

/// The entries `db list` shows.
pub struct Listing<'a> {
    pub db: &'a Database,
    pub entries: Vec<&'a DriveEntry>,
}

impl Document for Listing<'_> {
    const FORMATS: &'static [Format] = &[Format::Table, Format::Json];

    fn draw(&self, format: Format, options: &RenderOptions) -> Option<String> {
        match format {
            Format::Table => Some(render_list(self.db, &self.entries, options)),
            // Through a JSON value, whose maps sort their keys: the listing's entries have
            // always printed their keys in alphabetical order.
            Format::Json => Some(json::render(
                &serde_json::to_value(ListDocument {
                    schema_version: DB_DOCUMENT_SCHEMA_VERSION,
                    database_version: &self.db.version,
                    entries: self.entries.iter().map(|e| ListItem::of(e)).collect(),
                })
                .ok()?,
            )),
            Format::Markdown | Format::Discord | Format::Prometheus => None,
        }
    }
}

/// `db lookup --json`: the grade, the entry (`entry.{family,grade,nand,dram,class}`) plus the advisories that hit, how the entry was found, and the families a name that found
/// none could be (`candidates`) or is close to (`suggestions`).
#[derive(Debug, Serialize)]
struct LookupDocument<'a> {
    schema_version: u32,
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
    /// The class and the list's rules for a string no entry names (`null` otherwise).
    unlisted: Option<UnlistedDocument<'a>>,
    /// Classes the model string matches whose firmware scheme the lookup's firmware (none, or
    /// another revision) does not satisfy; empty when there are none.
    firmware_classes: Vec<FirmwareClassDocument<'a>>,
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

fn render_lookup(lookup: &LookupAnswer<'_>, options: &RenderOptions) -> String {
    let answer = &lookup.answer;
    let mut out = String::new();
    let mut asked = printable(&clip(lookup.model.trim(), 80));
    if let Some(fw) = lookup.firmware {
        asked.push_str(&format!(", firmware {}", printable(&clip(fw, 20))));
    }
    if let Some(c) = lookup.capacity_bytes {
        asked.push_str(&format!(", {}", format_decimal(c)));
    }
    let found = &answer.found;
    if let (None, Some(unlisted)) = (found.entry, &answer.unlisted) {
        out.push_str(&render_unlisted(&asked, unlisted, options));
        if unlisted.grade == Grade::Unknown {
            out.push_str(&firmware_hint(lookup));
        }
        return out;
    }
    let Some(entry) = found.entry else {
        out.push_str(&render_unmatched(&asked, answer));
        out.push_str(&firmware_hint(lookup));
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

/// For an ungraded answer: the classes the model string matches once the drive's firmware is
/// known, and how to give it.
fn firmware_hint(lookup: &LookupAnswer<'_>) -> String {
    if lookup.firmware_classes.is_empty() {
        return String::new();
    }
    let given = match lookup.firmware {
        Some(fw) => format!("firmware {} is not theirs", printable(&clip(fw, 20))),
        None => "no firmware was given".to_string(),
    };
    let mut out = format!(
        "Classes match this model string but also ask for a firmware revision, and {given}:\n"
    );
    for class in &lookup.firmware_classes {
        out.push_str(&format!(
            "  {} (`{}`): firmware such as {}\n",
            class.label,
            class.id,
            class.firmware_examples.join(", ")
        ));
    }
    let model = format!("'{}'", lookup.model.trim().replace('\'', r"'\''"));
    let revision = "<revision>";
    out.push_str(&format!(
        "Read the drive's firmware (`nodecheck probe`, or `Firmware Version:` in `sudo smartctl -i`) \
         and look it up with it: `nodecheck db lookup {model} --firmware {revision}`\n"
    ));
    out
}

/// "not in the list; classed as ..., graded ... by the list's rule ...", then the evidence.
fn render_unlisted(asked: &str, u: &UnlistedGrade<'_>, options: &RenderOptions) -> String {
    let Some(c) = &u.classification else {
        return String::new();
    };
    let rules: Vec<String> = u.rules.iter().map(|r| format!("`{}`", r.id)).collect();
    let graded = if rules.is_empty() {
        "no rule of the list grades it, so the grade is unknown".to_string()
    } else {
        format!(
            "graded {} by the list's rule {}",
            u.grade.as_str(),
            rules.join(" and ")
        )
    };
    let mut table = new_table(options);
    table.set_header(["", ""]);
    table.add_row(["asked".to_string(), asked.to_string()]);
    table.add_row(["grade".to_string(), u.grade.as_str().to_uppercase()]);
    table.add_row(["class".to_string(), c.label()]);
    let part = |v: Option<&'static str>| v.unwrap_or("unknown").to_string();
    table.add_row(["NAND".to_string(), part(c.nand.map(|n| n.label()))]);
    table.add_row(["DRAM".to_string(), part(c.dram.map(|d| d.label()))]);
    for e in &c.evidence {
        table.add_row(["evidence".to_string(), e.text.clone()]);
    }
    for r in &u.rules {
        table.add_row([format!("rule {}", r.id), r.notes.trim().to_string()]);
    }
    format!(
        "{asked}: not in the list; classed as {}, {graded}.\n{table}\n",
        c.label()
    )
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

/// What to do about a string nothing grades, the same advice `check` gives for an unlisted drive.
const UNKNOWN_NEXT_STEPS: &str = "Check the exact string the drive reports (`nodecheck probe`); \
     if it is right, measure the drive with `nodecheck check --bench full` and add it: \
     see docs/contributing-drives.md.\n";

fn render_unmatched(asked: &str, answer: &Answer<'_>) -> String {
    match answer.matched_by {
        Some(MatchedBy::FamilyName) => format!(
            "{asked}: {} families have this name; say which:\n{}",
            answer.candidates.len(),
            family_list(&answer.candidates)
        ),
        Some(MatchedBy::ModelPrefix) => format!(
            "{asked}: {}. The name is cut short (a SCSI INQUIRY product holds 16 characters), and it could be:\n{}\
             Read the full model with `sudo smartctl -d sat -i /dev/DRIVE` and look that up.\n",
            answer.grade().as_str(),
            family_list(&answer.candidates)
        ),
        _ if !answer.suggestions.is_empty() => format!(
            "{asked}: unknown. No database entry matches this model string or family name. Nearest families:\n{}{UNKNOWN_NEXT_STEPS}",
            family_list(&answer.suggestions)
        ),
        _ => format!(
            "{asked}: unknown. No database entry matches this model string or family name.\n{UNKNOWN_NEXT_STEPS}"
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

impl<'a> ListItem<'a> {
    fn of(e: &'a DriveEntry) -> ListItem<'a> {
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
    }
}

/// `db list --json`.
#[derive(Debug, Serialize)]
struct ListDocument<'a> {
    schema_version: u32,
    database_version: &'a str,
    entries: Vec<ListItem<'a>>,
}

fn render_list(db: &Database, entries: &[&DriveEntry], options: &RenderOptions) -> String {
    let mut table = new_table(options);
    table.set_header(["Family", "Bus", "Grade", "NAND", "DRAM", "Class"]);
    for e in entries {
        let s = EntrySummary::of(e, e.nand, e.dram);
        table.add_row([
            wrap(&s.family, FAMILY_COLUMN_CHARS),
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

/// Breaks a family name at spaces (or `/`) so no line is wider than `width` characters; a
/// single word longer than that stays whole. Nothing is cut: `db lookup` must find every name
/// `db list` prints.
fn wrap(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let fits = line.is_empty() || line.chars().count() + 1 + word.chars().count() <= width;
        if !fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_keeps_every_character_and_bounds_lines() {
        let name =
            "Western Digital WD Red / Red Plus / Red Pro (CMR hard disks, WD40EFZX and friends)";
        let wrapped = wrap(name, 40);
        assert_eq!(wrapped.replace('\n', " "), name);
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= 40),
            "{wrapped}"
        );
        assert_eq!(wrap("short", 40), "short");
        assert_eq!(
            wrap("Averyveryveryverylongwordwithoutanyspaceatall", 10)
                .lines()
                .count(),
            1
        );
    }
}
