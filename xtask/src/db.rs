//! `cargo xtask db-check` and `cargo xtask docs`.
//!
//! `db-check [FILE...]` parses `data/drives.toml` and `data/clients.toml` from the working tree
//! (not the copy embedded at build time), runs every consistency check of
//! `Database::validate`, loads and validates the behaviour thresholds in `data/behaviour.toml`
//! (`BehaviourThresholds::from_toml_str`: the binary embeds that file and would refuse to start
//! judging with a broken one), and fails when `docs/drives.md` differs from what `cargo xtask
//! docs` would write. Extra FILE arguments are a contributor's drive file (a complete database with
//! `schema_version`) or a result block as `nodecheck submit` prints it (`[[drives.results]]`
//! tables); each is checked on its own and against the database.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use verdict::BehaviourThresholds;
use verdict::{Database, DriveQuery, IssueLevel};

use crate::project_root;

const DRIVES: &str = "data/drives.toml";
const CLIENTS: &str = "data/clients.toml";
const CLASSES: &str = "data/classes.toml";
const BEHAVIOUR: &str = "data/behaviour.toml";
const DRIVES_DOC: &str = "docs/drives.md";

pub fn check(args: &[String]) -> Result<()> {
    let root = project_root();
    let db = load(&root)?;
    let mut errors = report_issues(&db, DRIVES);
    let behaviour = match check_behaviour(&root) {
        Ok(thresholds) => Some(thresholds),
        Err(message) => {
            eprintln!("{message}");
            errors += 1;
            None
        }
    };

    let rendered = xtask::drives_page::render_drives_markdown(&db);
    let doc_path = root.join(DRIVES_DOC);
    match fs::read_to_string(&doc_path) {
        Ok(current) if current == rendered => {}
        Ok(_) => {
            eprintln!("error: {DRIVES_DOC} is stale: run `cargo xtask docs` and commit the result");
            errors += 1;
        }
        Err(e) => {
            eprintln!("error: cannot read {DRIVES_DOC} ({e}): run `cargo xtask docs` and commit the result");
            errors += 1;
        }
    }

    // Sizes rot: a figure older than the clients file allows fails the check on the day it
    // expires, so someone measures or finds a newer one.
    for issue in db.stale_figures(current_year_month()) {
        eprintln!("{CLIENTS}: {issue}");
        errors += 1;
    }

    for arg in args {
        if arg.starts_with('-') {
            bail!("db-check: unknown option `{arg}` (usage: cargo xtask db-check [FILE...])");
        }
        errors += check_extra_file(&db, &root, Path::new(arg))?;
    }

    if errors > 0 {
        bail!("db-check: {errors} error(s)");
    }
    let behaviour = behaviour.map_or_else(String::new, |t| {
        format!(
            "; {BEHAVIOUR}: read p99 warn {}, recovery warn {} ms, post-cliff warn {} MB/s, span warn {}x",
            units::latency::format_us(t.read.warn_p99_us),
            t.recovery.warn_ms,
            t.cliff.warn_post_cliff_mb_s,
            t.span.warn_ratio
        )
    });
    println!(
        "db-check: ok: data version {}, {} drive entries ({} example model strings cross-checked), {} generic rules, {} classes, {} execution and {} consensus clients{behaviour}; {DRIVES_DOC} is up to date",
        db.version,
        db.drives.len(),
        db.drives.iter().map(|e| e.examples.len()).sum::<usize>(),
        db.generic.len(),
        db.classes.len(),
        db.clients.execution.len(),
        db.clients.consensus.len()
    );
    Ok(())
}

pub fn docs(args: &[String]) -> Result<()> {
    if let Some(arg) = args.first() {
        bail!("docs: unexpected argument `{arg}` (usage: cargo xtask docs)");
    }
    let root = project_root();
    let db = load(&root)?;
    let errors = report_issues(&db, DRIVES);
    if errors > 0 {
        bail!("docs: fix the {errors} database error(s) first");
    }
    let path = root.join(DRIVES_DOC);
    let rendered = xtask::drives_page::render_drives_markdown(&db);
    let unchanged = fs::read_to_string(&path).is_ok_and(|current| current == rendered);
    if unchanged {
        println!("docs: {DRIVES_DOC} already up to date");
    } else {
        fs::write(&path, rendered).with_context(|| format!("writing {}", path.display()))?;
        println!("docs: wrote {DRIVES_DOC}");
    }
    Ok(())
}

/// The database as the working tree has it (drives, clients and classes files), not the copy
/// embedded at build time.
pub(crate) fn load(root: &Path) -> Result<Database> {
    let drives = read(&root.join(DRIVES))?;
    let clients = read(&root.join(CLIENTS))?;
    let classes = read(&root.join(CLASSES))?;
    // The error already names file, line, column and fix; anyhow adds nothing useful.
    Database::parse_parts(&drives, DRIVES, &clients, CLIENTS)
        .and_then(|db| db.with_classes(&classes, CLASSES))
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// Loads data/behaviour.toml from the working tree; the error is one line naming the file and
/// what is wrong with it (a TOML error carries its line and column).
fn check_behaviour(root: &Path) -> Result<BehaviourThresholds, String> {
    let path = root.join(BEHAVIOUR);
    let text =
        fs::read_to_string(&path).map_err(|e| format!("error: cannot read {BEHAVIOUR} ({e})"))?;
    validate_behaviour(&text)
}

fn validate_behaviour(text: &str) -> Result<BehaviourThresholds, String> {
    BehaviourThresholds::from_toml_str(text)
        .map_err(|e| format!("{BEHAVIOUR}: error: {e}").trim_end().to_string())
}

pub(crate) fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// Prints the validation issues and returns how many are errors.
fn report_issues(db: &Database, origin: &str) -> usize {
    let issues = db.validate();
    let mut errors = 0;
    for issue in &issues {
        eprintln!("{origin}: {issue}");
        if issue.level == IssueLevel::Error {
            errors += 1;
        }
    }
    errors
}

fn check_extra_file(db: &Database, root: &Path, path: &Path) -> Result<usize> {
    let path: PathBuf = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| root.join(path))
    };
    let origin = path.display().to_string();
    let text = read(&path)?;
    if looks_like_drives_file(&text) {
        let clients = read(&root.join(CLIENTS))?;
        let other = match Database::parse_parts(&text, &origin, &clients, CLIENTS) {
            Ok(other) => other,
            Err(e) => {
                eprintln!("{e}");
                return Ok(1);
            }
        };
        let errors = report_issues(&other, &origin);
        if errors == 0 {
            println!(
                "{origin}: ok: drive file with {} entries",
                other.drives.len()
            );
        }
        return Ok(errors);
    }

    let results = match verdict::parse_result_block(&text, &origin) {
        Ok(results) => results,
        Err(e) => {
            eprintln!("{e}");
            return Ok(1);
        }
    };
    let mut errors = 0;
    if results.is_empty() {
        eprintln!("{origin}: error: no [[drives.results]] table in the file");
        return Ok(1);
    }
    for (i, r) in results.iter().enumerate() {
        let n = i + 1;
        let mut fail = |msg: String| {
            eprintln!("{origin}: error: result {n}: {msg}");
            errors += 1;
        };
        if db.benchmark(&r.benchmark).is_none() {
            fail(format!("unknown benchmark `{}`", r.benchmark));
        }
        if r.read_iops == 0 && r.write_iops == 0 {
            fail("zero read and write IOPS".into());
        }
        if r.nodecheck_version.is_none() && r.source.is_none() {
            fail(
                "neither `nodecheck_version` nor `source`: say where the figures come from".into(),
            );
        }
        for problem in verdict::result_context_problems(r) {
            fail(problem);
        }
        let Some(model) = &r.model else {
            fail("no `model`: the block must say which drive it measured".into());
            continue;
        };
        let mut q = DriveQuery::new(model);
        q.firmware = r.firmware.as_deref();
        q.capacity_bytes = r.capacity_bytes;
        let lookup = db.lookup(&q);
        match lookup.entry {
            Some(entry) => println!(
                "{origin}: result {n}: `{model}` belongs under [[drives]] id = \"{}\" ({} {}, grade {})",
                entry.id, entry.vendor, entry.family, lookup.grade
            ),
            None => println!(
                "{origin}: result {n}: `{model}` matches no entry: add a [[drives]] entry for it (docs/contributing-drives.md)"
            ),
        }
    }
    Ok(errors)
}

/// A drives file declares `schema_version` at top level; a result block never does.
fn looks_like_drives_file(text: &str) -> bool {
    text.lines()
        .map(str::trim_start)
        .any(|l| l.starts_with("schema_version"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped_behaviour() -> String {
        fs::read_to_string(project_root().join(BEHAVIOUR)).expect("data/behaviour.toml")
    }

    #[test]
    fn the_shipped_behaviour_thresholds_pass() {
        let thresholds = check_behaviour(&project_root()).expect("data/behaviour.toml is valid");
        assert!(thresholds.read.warn_p99_us > 0.0);
    }

    #[test]
    fn invalid_behaviour_thresholds_fail_naming_the_file_and_the_problem() {
        let shipped = shipped_behaviour();
        let inverted = shipped.replace("critical_ratio = 3.0", "critical_ratio = 1.2");
        assert_ne!(inverted, shipped, "the edit must apply");
        let err = validate_behaviour(&inverted).expect_err("inverted span limits");
        assert!(err.starts_with("data/behaviour.toml: error: "), "{err}");
        assert!(err.contains("[span]"), "{err}");

        let unknown = shipped.replace("[recovery]", "[recovery]\nwarn_seconds = 1.0");
        let err = validate_behaviour(&unknown).expect_err("unknown field");
        assert!(err.contains("warn_seconds"), "{err}");

        let no_source = shipped.replacen("source = \"eth-docker", "source = \" \"\n# \"", 1);
        assert_ne!(no_source, shipped, "the edit must apply");
        let err = validate_behaviour(&no_source).expect_err("empty source");
        assert!(err.contains("source"), "{err}");

        assert!(validate_behaviour("[").is_err());
    }

    #[test]
    fn a_missing_behaviour_file_is_an_error() {
        let dir = std::env::temp_dir().join(format!("xtask-db-check-{}", std::process::id()));
        let err = check_behaviour(&dir).expect_err("no data/ there");
        assert!(err.contains("cannot read data/behaviour.toml"), "{err}");
    }
}

/// Today's year and month in UTC, from the system clock (days since 1970 to the civil
/// calendar, Howard Hinnant's `civil_from_days`).
fn current_year_month() -> (u32, u32) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_year_month(secs / 86_400)
}

fn civil_year_month(days_since_epoch: u64) -> (u32, u32) {
    let z = days_since_epoch as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year as u32, month as u32)
}

#[cfg(test)]
mod date_tests {
    use super::civil_year_month;

    #[test]
    fn days_since_1970_give_the_civil_year_and_month() {
        assert_eq!(civil_year_month(0), (1970, 1));
        assert_eq!(civil_year_month(31), (1970, 2));
        // 2024-02-29 is day 19782; 2026-12-01 is day 20788.
        assert_eq!(civil_year_month(19_782), (2024, 2));
        assert_eq!(civil_year_month(19_783), (2024, 3));
        assert_eq!(civil_year_month(20_788), (2026, 12));
    }
}
