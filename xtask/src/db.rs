//! `cargo xtask db-check` and `cargo xtask docs`.
//!
//! `db-check [FILE...]` parses `data/drives.toml` and `data/clients.toml` from the working tree
//! (not the copy embedded at build time), runs every consistency check of
//! `Database::validate`, and fails when `docs/drives.md` differs from what `cargo xtask docs`
//! would write. Extra FILE arguments are a contributor's drive file (a complete database with
//! `schema_version`) or a result block as `nodecheck submit` prints it (`[[drives.results]]`
//! tables); each is checked on its own and against the database.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use verdict::database::{self, Database, DriveQuery, IssueLevel};

use crate::project_root;

const DRIVES: &str = "data/drives.toml";
const CLIENTS: &str = "data/clients.toml";
const DRIVES_DOC: &str = "docs/drives.md";

pub fn check(args: &[String]) -> Result<()> {
    let root = project_root();
    let db = load(&root)?;
    let mut errors = report_issues(&db, DRIVES);

    let rendered = database::render_drives_markdown(&db);
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

    for arg in args {
        if arg.starts_with('-') {
            bail!("db-check: unknown option `{arg}` (usage: cargo xtask db-check [FILE...])");
        }
        errors += check_extra_file(&db, &root, Path::new(arg))?;
    }

    if errors > 0 {
        bail!("db-check: {errors} error(s)");
    }
    println!(
        "db-check: ok: data version {}, {} drive entries ({} example model strings cross-checked), {} generic rules, {} clients; {DRIVES_DOC} is up to date",
        db.version,
        db.drives.len(),
        db.drives.iter().map(|e| e.examples.len()).sum::<usize>(),
        db.generic.len(),
        db.clients.len()
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
    let rendered = database::render_drives_markdown(&db);
    let unchanged = fs::read_to_string(&path).is_ok_and(|current| current == rendered);
    if unchanged {
        println!("docs: {DRIVES_DOC} already up to date");
    } else {
        fs::write(&path, rendered).with_context(|| format!("writing {}", path.display()))?;
        println!("docs: wrote {DRIVES_DOC}");
    }
    Ok(())
}

fn load(root: &Path) -> Result<Database> {
    let drives = read(&root.join(DRIVES))?;
    let clients = read(&root.join(CLIENTS))?;
    // The error already names file, line, column and fix; anyhow adds nothing useful.
    Database::parse_parts(&drives, DRIVES, &clients, CLIENTS).map_err(|e| anyhow::anyhow!("{e}"))
}

fn read(path: &Path) -> Result<String> {
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

    let results = match database::parse_result_block(&text, &origin) {
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
