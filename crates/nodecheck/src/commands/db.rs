//! `nodecheck db lookup MODEL` and `nodecheck db list`: the drive database on its own.

use anyhow::Result;
use serde::Serialize;
use verdict::database::{Advisory, Database, DriveEntry, DriveQuery};
use verdict::judge::EntrySummary;
use verdict::Grade;

use super::emit;
use crate::config::{DbListConfig, DbLookupConfig, GlobalOptions};
use crate::render::table::new_table;
use crate::render::{clip, printable, RenderOptions};
use crate::size::format_decimal;

/// `db lookup --json`: the keys issue 3 names (`grade`, `entry.{family,grade,nand,dram,class}`)
/// plus the advisories that hit.
#[derive(Debug, Serialize)]
struct LookupDocument<'a> {
    database_version: &'a str,
    model: &'a str,
    firmware: Option<&'a str>,
    capacity_bytes: Option<u64>,
    grade: Grade,
    entry: Option<EntryDocument<'a>>,
    advisories: &'a [Advisory],
}

#[derive(Debug, Serialize)]
struct EntryDocument<'a> {
    #[serde(flatten)]
    summary: EntrySummary,
    interface: &'static str,
    notes: &'a str,
    sources: &'a [String],
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
    let found = db.lookup(&query);
    if config.json {
        let doc = LookupDocument {
            database_version: &db.version,
            model: &config.model,
            firmware: config.firmware.as_deref(),
            capacity_bytes: config.capacity_bytes,
            grade: found.grade,
            entry: found.entry.map(|e| EntryDocument {
                summary: EntrySummary::of(e, found.nand, found.dram),
                interface: e.interface.as_str(),
                notes: &e.notes,
                sources: &e.sources,
            }),
            advisories: &found.advisories,
        };
        let mut json = serde_json::to_string_pretty(&doc)?;
        json.push('\n');
        emit(&json)?;
    } else {
        emit(&render_lookup(
            config,
            &found,
            &RenderOptions::for_stdout(global.verbosity),
        ))?;
    }
    // A lookup answers a question; it is not a check of this machine, so it exits 0
    // whatever the grade (scripts read the JSON).
    Ok(crate::exit_codes::GOOD)
}

fn render_lookup(
    config: &DbLookupConfig,
    found: &verdict::database::Lookup<'_>,
    options: &RenderOptions,
) -> String {
    let mut out = String::new();
    let mut asked = printable(&clip(&config.model, 80));
    if let Some(fw) = &config.firmware {
        asked.push_str(&format!(", firmware {}", printable(&clip(fw, 20))));
    }
    if let Some(c) = config.capacity_bytes {
        asked.push_str(&format!(", {}", format_decimal(c)));
    }
    let Some(entry) = found.entry else {
        out.push_str(&format!(
            "{asked}: unknown. No database entry matches this model string.\n\
             Check the exact string the drive reports (`nodecheck probe`), or add the drive: \
             see docs/contributing-drives.md.\n"
        ));
        return out;
    };
    let summary = EntrySummary::of(entry, found.nand, found.dram);
    let mut table = new_table(options);
    table.set_header(["", ""]);
    table.add_row(["asked".to_string(), asked]);
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
