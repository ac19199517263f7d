//! `cargo xtask db-coverage [--json] [--max-unknown PCT] [--max-unknown-nvme PCT]
//! [--max-unknown-sata PCT]`: how the database does on real model strings.
//!
//! Reads the labelled corpus (`data/corpus/*.tsv`) and prints, per family, how many strings
//! match; overall, how many labelled strings resolve to exactly their family, how many unlisted
//! strings get their expected class, and every collision (a string two entries claim). Then it
//! reads the random sample (`data/corpus/sample/*.tsv`, drawn as docs/database-corpus.md
//! describes) and prints the share that gets neither a family nor a class against the target.
//! Fails below 100 % matched, on any collision or wrong class, on a family without corpus
//! strings, and when the sample's unknown share exceeds `--max-unknown` (default: the gate in
//! `verdict::corpus`). The per-interface limits let one interface be held at the gate while the
//! other is still a ratchet above it; each defaults to `--max-unknown`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use verdict::corpus::{
    evaluate, parse_corpus, CorpusRow, Coverage, Kind, Mismatch, SAMPLE_UNKNOWN_GATE_PERCENT,
    SAMPLE_UNKNOWN_TARGET_PERCENT,
};
use verdict::sample::{parse_weights, proportional, VendorShare, SLOTS_PER_INTERFACE};

use crate::db::{load, read};
use crate::project_root;

const CORPUS_DIR: &str = "data/corpus";
const SAMPLE_DIR: &str = "data/corpus/sample";
/// Model folders per vendor: the weights of the proportional sample (docs/database-corpus.md).
const WEIGHTS_FILE: &str = "data/corpus/weights/vendor-folders.tsv";

/// The gated sample of one interface: its slots, the rows filling them, how many grade unknown.
#[derive(Debug, Serialize)]
struct ProportionalReport {
    kind: Kind,
    slots: u32,
    filled: usize,
    unfilled: u32,
    rows_without_weight: usize,
    grade_unknown: usize,
    grade_unknown_percent: f64,
    /// The share above which this interface fails.
    max_unknown_percent: f64,
    vendors: Vec<VendorShare>,
    /// The counted rows whose grade is unknown, to work on.
    grade_unknown_rows: Vec<Mismatch>,
}

#[derive(Debug, Serialize)]
struct SourceSize {
    file: String,
    rows: usize,
    distinct_models: usize,
}

#[derive(Debug, Serialize)]
struct Report {
    sources: Vec<SourceSize>,
    corpus: Coverage,
    /// Families with model patterns but no corpus string.
    families_without_strings: Vec<String>,
    sample_sources: Vec<SourceSize>,
    sample: Coverage,
    /// The sample's strings that got neither a family nor a class, to work on.
    sample_unknown_models: Vec<String>,
    sample_unknown_percent: f64,
    /// Per drive kind of the sample's report rows: the share whose grade is unknown.
    sample_grade_unknown_percent: BTreeMap<Kind, f64>,
    /// Per interface, the proportional sample the gate reads (vendors in proportion to their
    /// model folders; rows over a vendor's share left out in a grade-blind order).
    proportional: Vec<ProportionalReport>,
    corpus_grade_unknown_percent: BTreeMap<Kind, f64>,
    target_unknown_percent: f64,
    max_unknown_percent: f64,
    passed: bool,
}

const USAGE: &str = "usage: cargo xtask db-coverage [--json] [--max-unknown PCT] \
                     [--max-unknown-nvme PCT] [--max-unknown-sata PCT]";

fn parse_percent(flag: &str, value: Option<&String>) -> Result<f64> {
    let v = value.with_context(|| format!("{flag} needs a percentage ({USAGE})"))?;
    v.parse()
        .ok()
        .filter(|p: &f64| p.is_finite() && (0.0..=100.0).contains(p))
        .with_context(|| format!("{flag} `{v}` is not a percentage between 0 and 100"))
}

pub fn run(args: &[String]) -> Result<()> {
    let mut json = false;
    let mut max_unknown = SAMPLE_UNKNOWN_GATE_PERCENT;
    let mut per_interface: BTreeMap<Kind, f64> = BTreeMap::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            "--max-unknown" => max_unknown = parse_percent(arg, it.next())?,
            "--max-unknown-nvme" => {
                per_interface.insert(Kind::Nvme, parse_percent(arg, it.next())?);
            }
            "--max-unknown-sata" => {
                per_interface.insert(Kind::Ssd, parse_percent(arg, it.next())?);
            }
            other => bail!("db-coverage: unknown argument `{other}` ({USAGE})"),
        }
    }
    let limit_for = |kind: Kind| per_interface.get(&kind).copied().unwrap_or(max_unknown);

    let root = project_root();
    let db = load(&root)?;
    let (rows, sources) = read_dir(&root.join(CORPUS_DIR))?;
    let (sample_rows, sample_sources) = read_dir(&root.join(SAMPLE_DIR))?;
    if rows.is_empty() {
        bail!("db-coverage: no corpus rows in {CORPUS_DIR}");
    }
    if sample_rows.is_empty() {
        bail!("db-coverage: no sample rows in {SAMPLE_DIR}");
    }

    let corpus = evaluate(&db, &rows);
    let sample = evaluate(&db, &sample_rows);
    let sample_unknown_models: Vec<String> = sample_rows
        .iter()
        .filter(|row| {
            verdict::corpus::evaluate_row(&db, row).got() == verdict::corpus::Expect::Nothing
        })
        .map(|row| format!("{} `{}`", row.vendor, row.model))
        .collect();
    let families_without_strings: Vec<String> = db
        .drives
        .iter()
        .filter(|e| !e.models.is_empty() && e.platform.is_none())
        .filter(|e| !corpus.per_family.contains_key(&e.id))
        .map(|e| e.id.clone())
        .collect();
    let sample_unknown_percent = sample.unknown_percent();
    let per_kind = |c: &Coverage| -> BTreeMap<Kind, f64> {
        [Kind::Nvme, Kind::Ssd, Kind::Hdd]
            .into_iter()
            .filter_map(|k| c.grade_unknown_percent(k).map(|p| (k, p)))
            .collect()
    };
    let sample_grade_unknown_percent = per_kind(&sample);
    let corpus_grade_unknown_percent = per_kind(&corpus);
    let weights_path = root.join(WEIGHTS_FILE);
    let weights =
        parse_weights(&read(&weights_path)?, WEIGHTS_FILE).map_err(|e| anyhow::anyhow!("{e}"))?;
    let proportional: Vec<ProportionalReport> = [Kind::Nvme, Kind::Ssd]
        .into_iter()
        .map(|kind| {
            let p = proportional(&sample_rows, &weights, kind, SLOTS_PER_INTERFACE);
            let counted: Vec<CorpusRow> = p.rows.iter().map(|r| (*r).clone()).collect();
            let cov = evaluate(&db, &counted);
            let grade_unknown = cov.grade_unknown.get(&kind).copied().unwrap_or(0);
            ProportionalReport {
                kind,
                slots: p.slots,
                filled: counted.len(),
                unfilled: p.unfilled(),
                rows_without_weight: p.rows_without_weight,
                grade_unknown,
                grade_unknown_percent: if counted.is_empty() {
                    100.0
                } else {
                    100.0 * grade_unknown as f64 / counted.len() as f64
                },
                max_unknown_percent: limit_for(kind),
                vendors: p.vendors,
                grade_unknown_rows: cov.grade_unknown_rows,
            }
        })
        .collect();
    let sample_has_reports = proportional.iter().all(|p| p.filled > 0);
    let passed = corpus.labelled_matched == corpus.labelled
        && sample_has_reports
        && proportional
            .iter()
            .all(|p| p.grade_unknown_percent <= p.max_unknown_percent)
        && corpus.collisions.is_empty()
        && corpus.mismatches.is_empty()
        && families_without_strings.is_empty()
        && sample.collisions.is_empty()
        && sample.mismatches.is_empty()
        && sample_unknown_percent <= max_unknown;
    let report = Report {
        sources,
        corpus,
        families_without_strings,
        sample_sources,
        sample,
        sample_unknown_models,
        sample_unknown_percent,
        sample_grade_unknown_percent,
        proportional,
        corpus_grade_unknown_percent,
        target_unknown_percent: SAMPLE_UNKNOWN_TARGET_PERCENT,
        max_unknown_percent: max_unknown,
        passed,
    };

    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report, &db);
    }
    if !report.passed {
        bail!("db-coverage: failed (see above)");
    }
    Ok(())
}

/// Every `.tsv` file directly in `dir`, in name order.
fn read_dir(dir: &Path) -> Result<(Vec<CorpusRow>, Vec<SourceSize>)> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|p| p.is_file() && p.extension().is_some_and(|x| x == "tsv"));
    files.sort();
    let mut rows = Vec::new();
    let mut sizes = Vec::new();
    for path in files {
        let name = path
            .strip_prefix(project_root())
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = read(&path)?;
        let parsed = parse_corpus(&text, &name).map_err(|e| anyhow::anyhow!("{e}"))?;
        let distinct: std::collections::HashSet<&str> =
            parsed.iter().map(|r| r.model.as_str()).collect();
        sizes.push(SourceSize {
            file: name,
            rows: parsed.len(),
            distinct_models: distinct.len(),
        });
        rows.extend(parsed);
    }
    Ok((rows, sizes))
}

fn print_source_line(file: &str, rows: usize, distinct_models: usize) {
    println!("  {file:<42} {rows:>5} rows, {distinct_models:>5} distinct models");
}

fn print_text(r: &Report, db: &verdict::Database) {
    println!("Corpus of real model strings:");
    for s in &r.sources {
        print_source_line(&s.file, s.rows, s.distinct_models);
    }
    let c = &r.corpus;
    print_source_line("total", c.rows, c.distinct_models);
    println!();
    println!("Per family (corpus strings that resolve to it):");
    let mut families: BTreeMap<&str, usize> = BTreeMap::new();
    for e in db
        .drives
        .iter()
        .filter(|e| !e.models.is_empty() && e.platform.is_none())
    {
        families.insert(&e.id, c.per_family.get(&e.id).copied().unwrap_or(0));
    }
    for (id, n) in &families {
        println!("  {id:<34} {n:>5}");
    }
    println!();
    println!("Per class (unlisted strings, and the list's rule each class reaches):");
    for rule in &db.classes {
        let n = c.per_class.get(&rule.id).copied().unwrap_or(0);
        let reaches = reached_rule(db, rule);
        println!("  {:<34} {n:>5}   {reaches}", rule.id);
    }
    println!();
    println!("Generic rules reached by unlisted corpus strings:");
    for g in &db.generic {
        println!(
            "  {:<34} {:>5}",
            g.id,
            c.per_generic.get(&g.id).copied().unwrap_or(0)
        );
    }
    println!();
    println!(
        "Labelled strings matched:   {}/{} ({:.1} %)",
        c.labelled_matched,
        c.labelled,
        c.matched_percent()
    );
    println!(
        "Unlisted strings classified: {}/{} get a class, {}/{} exactly as labelled",
        c.unlisted_classified, c.unlisted, c.unlisted_as_expected, c.unlisted
    );
    println!("Unknown (no family, no class): {}", c.unknown);
    println!("Collisions: {}", c.collisions.len());
    print_mismatches("collision", &c.collisions);
    print_mismatches("mismatch", &c.mismatches);
    if !r.families_without_strings.is_empty() {
        println!(
            "Families without a corpus string: {}",
            r.families_without_strings.join(", ")
        );
    }
    println!();
    println!("Random sample of real reports (unknown rate):");
    for s in &r.sample_sources {
        print_source_line(&s.file, s.rows, s.distinct_models);
    }
    let s = &r.sample;
    println!(
        "  family {}, class {}, unknown {} of {}: unknown rate {:.1} % (target <= {:.1} %: {}; fails above {:.1} %)",
        s.per_family.values().sum::<usize>(),
        s.per_class.values().sum::<usize>(),
        s.unknown,
        s.rows,
        r.sample_unknown_percent,
        r.target_unknown_percent,
        if r.sample_unknown_percent <= r.target_unknown_percent { "met" } else { "not met" },
        r.max_unknown_percent
    );
    for row in &r.sample_unknown_models {
        println!("    unknown: {row}");
    }
    println!();
    println!("Grade unknown after classification (report rows; only a graded answer is known):");
    for (what, rates, cov) in [
        ("corpus", &r.corpus_grade_unknown_percent, &r.corpus),
        ("sample", &r.sample_grade_unknown_percent, &r.sample),
    ] {
        for (kind, pct) in rates {
            println!(
                "  {what} {:<5} {:>4} of {:>4} report rows grade unknown: {pct:.1} %{}",
                kind_name(*kind),
                cov.grade_unknown.get(kind).copied().unwrap_or(0),
                cov.graded_rows.get(kind).copied().unwrap_or(0),
                if what == "sample" {
                    " (every row on file; the gate reads the proportional sample below)"
                } else {
                    ""
                }
            );
        }
    }
    println!();
    println!(
        "Proportional sample (the gate): {} slots per interface over the vendors of {WEIGHTS_FILE}, \
         in proportion to their model folders; a vendor's rows beyond its slots are left out in a \
         seeded order blind to grades (docs/database-corpus.md):"
    , SLOTS_PER_INTERFACE);
    for p in &r.proportional {
        println!(
            "  proportional {:<5} {:>4} of {:>4} counted rows grade unknown: {:.1} % (fails above {:.1} %); \
             {} of {} slots filled, {} rows of vendors without a weight",
            kind_name(p.kind),
            p.grade_unknown,
            p.filled,
            p.grade_unknown_percent,
            p.max_unknown_percent,
            p.filled,
            p.slots,
            p.rows_without_weight
        );
        let short: Vec<String> = p
            .vendors
            .iter()
            .filter(|v| v.taken < v.slots as usize)
            .map(|v| format!("{} {}/{}", v.vendor, v.taken, v.slots))
            .collect();
        if !short.is_empty() {
            println!("    unfilled slots: {}", short.join(", "));
        }
        print_mismatches("    proportional grade unknown", &p.grade_unknown_rows);
    }
    print_mismatches("sample grade unknown", &s.grade_unknown_rows);
    print_mismatches("sample mismatch", &s.mismatches);
    println!();
    println!("db-coverage: {}", if r.passed { "ok" } else { "FAILED" });
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Nvme => "nvme",
        Kind::Ssd => "sata",
        Kind::Hdd => "hdd",
    }
}

/// The generic rule a class's own traits reach (probe evidence can still change it).
fn reached_rule(db: &verdict::Database, rule: &verdict::ClassRule) -> String {
    let traits = verdict::Traits {
        nand: rule.nand,
        dram: rule.dram,
        class: Some(rule.class),
        interface: rule.interface,
        rotational: Some(rule.class == verdict::Class::Hdd),
        virtualized: None,
        components: rule.components,
    };
    match db.generic_matches(&traits).first() {
        Some(g) => format!("-> {} ({})", g.id, g.grade),
        None => "-> no rule of the list (class shown, grade unknown)".to_owned(),
    }
}

fn print_mismatches(what: &str, list: &[Mismatch]) {
    for m in list {
        println!(
            "  {what}: {}:{} `{}`: expected {:?}, got {:?}, entries {:?}",
            m.origin, m.line, m.model, m.expected, m.got, m.entries
        );
    }
}
