//! Completes a [`Database`] read straight from the TOML: compiles regexes (pointing errors at
//! the pattern's position in the file) and rejects duplicate ids.

use std::cell::{Cell, OnceCell};
use std::collections::HashMap;

use regex::{Regex, RegexBuilder};
use serde::de::DeserializeOwned;

use super::error::{DbError, ErrorKind};
use super::raw::{ClientsFile, ResultBlockFile};
use super::spans::Spans;
use crate::clients::{ClientCatalog, ConsensusMode, ProcessNames, StorageFigure};

use super::{
    ClientNeeds, CrowdResult, Database, DriveEntry, PlatformMatch, Source, SCHEMA_VERSION,
};

/// Compiled regexes are capped so a hostile `--db` file cannot exhaust memory: each one, and
/// all of one file's together (70,000 patterns each under the first cap once took 5.8 GB). The
/// embedded database's patterns take about 3% of the total.
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// The regex crate's compiled form (forward and reverse NFA, one-pass DFA, literal prefilters)
/// takes about seven times the NFA measured here, so this keeps a database's regexes near
/// 60 MB.
pub(crate) const REGEX_TOTAL_LIMIT: usize = 8 << 20;
/// Far more drive entries than any database needs (the embedded one has about a hundred); a
/// file with more is not a drive database.
pub(crate) const MAX_DRIVE_ENTRIES: usize = 5_000;

pub(crate) fn database(
    drives_text: &str,
    drives_origin: &str,
    clients_text: &str,
    clients_origin: &str,
) -> Result<Database, DbError> {
    let (mut db, ctx) = read(drives_text, drives_origin, |db: &Database| {
        db.schema_version
    })?;
    if db.drives.len() > MAX_DRIVE_ENTRIES {
        return Err(ctx.err(
            ErrorKind::TooLarge,
            &format!("drives.{MAX_DRIVE_ENTRIES}"),
            format!(
                "{} drive entries, more than the {MAX_DRIVE_ENTRIES} a database may have",
                db.drives.len()
            ),
            "a drive database lists models, not every unit: merge entries with one pattern",
        ));
    }

    let mut ids = IdSet::default();
    let sources = db.sources.iter().map(|s| &s.id);
    ctx.unique_ids(&mut ids, "source", "sources", sources)?;
    let benchmarks = db.benchmarks.iter().map(|b| &b.id);
    ctx.unique_ids(&mut ids, "benchmark", "benchmarks", benchmarks)?;
    let remarks = db.remarks.iter().map(|r| &r.id);
    ctx.unique_ids(&mut ids, "remark", "remarks", remarks)?;
    let generic = db.generic.iter().map(|g| &g.id);
    ctx.unique_ids(&mut ids, "generic rule", "generic", generic)?;
    ctx.with_unique_ids(
        &mut db.drives,
        &mut ids,
        "drive entry",
        "drives",
        |d| &d.id,
        |d, at| ctx.drive(d, at),
    )?;

    let (catalog, sources) = clients(clients_text, clients_origin)?;
    let clients_ctx = Ctx::new(clients_origin, clients_text);
    for (i, s) in sources.into_iter().enumerate() {
        // Drives and clients cite from one pool of sources; the same id in both files would
        // make a citation ambiguous.
        if let Some(existing) = db.sources.iter().find(|e| e.id == s.id) {
            if existing.title != s.title || existing.url != s.url {
                return Err(clients_ctx.err(
                    ErrorKind::DuplicateId,
                    &format!("sources.{i}.id"),
                    format!(
                        "source id `{}` is defined differently in {drives_origin}",
                        s.id
                    ),
                    "rename the source in one of the files or make both definitions identical",
                ));
            }
            continue;
        }
        db.sources.push(s);
    }

    db.origin = drives_origin.to_string();
    db.clients = catalog;
    Ok(db)
}

/// Parses `data/clients.toml`. Everything a consumer relies on without further checks is
/// checked here: unique names, sizes that can be true at all (a minimum no larger than the
/// recommendation, free space that fits on the recommended drive, a whole-node drive larger
/// than the beacon database) and a way to recognise each execution client's process.
/// `cargo xtask db-check` adds the editorial checks (citations, unit slips, lower-case names).
pub(crate) fn clients(text: &str, origin: &str) -> Result<(ClientCatalog, Vec<Source>), DbError> {
    let (file, ctx) = read(text, origin, |f: &ClientsFile| f.schema_version)?;
    let mut ids = IdSet::default();
    let sources = file.sources.iter().map(|s| &s.id);
    ctx.unique_ids(&mut ids, "source", "sources", sources)?;
    let clients = file.clients;
    for (i, c) in clients.iter().enumerate() {
        let at = format!("clients.{i}");
        ids.insert(&ctx, &c.name, &format!("{at}.name"), "client")?;
        ctx.sane_needs(c, &at)?;
        ctx.figures(
            "client",
            &c.name,
            &c.history,
            c.default_history,
            &at,
            "history",
        )?;
        ctx.process(&c.name, &c.process, &at)?;
    }
    // Execution and consensus clients share one namespace of names in error messages.
    for (i, c) in file.consensus.iter().enumerate() {
        let name_at = format!("consensus.{i}.name");
        ids.insert(&ctx, &c.name, &name_at, "client")?;
        let at = format!("consensus.{i}");
        ctx.figures(
            "consensus client",
            &c.name,
            &c.storage,
            ConsensusMode::Default,
            &at,
            "storage",
        )?;
        if c.node_disk_bytes
            .is_some_and(|disk| disk <= c.default_database_bytes())
        {
            return Err(ctx.invalid(
                &name_at,
                format!(
                    "consensus client `{}`: node_disk_bytes (the drive for the whole node) must exceed its default database",
                    c.name
                ),
                "node_disk_bytes is the whole drive the client's documentation recommends",
            ));
        }
    }
    Ok((
        ClientCatalog {
            execution: clients,
            consensus: file.consensus,
            sizing: file.sizing,
        },
        file.sources,
    ))
}

/// Reads a data file straight into `T` and checks the schema version it states.
pub(super) fn read<'a, T: DeserializeOwned>(
    text: &'a str,
    origin: &'a str,
    schema_version: impl Fn(&T) -> u32,
) -> Result<(T, Ctx<'a>), DbError> {
    let file: T = toml::from_str(text).map_err(|e| DbError::from_toml(&e, origin, text))?;
    let ctx = Ctx::new(origin, text);
    ctx.schema_version(schema_version(&file))?;
    Ok((file, ctx))
}

pub(crate) fn result_block(text: &str, origin: &str) -> Result<Vec<CrowdResult>, DbError> {
    let file: ResultBlockFile =
        toml::from_str(text).map_err(|e| DbError::from_toml(&e, origin, text))?;
    Ok(file.drives.results)
}

/// A file being checked, and where its values stand once an error needs to say so.
pub(super) struct Ctx<'a> {
    origin: &'a str,
    text: &'a str,
    spans: OnceCell<Spans>,
    /// Bytes of compiled regex the file may still use ([`REGEX_TOTAL_LIMIT`]).
    regex_budget: Cell<usize>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(origin: &'a str, text: &'a str) -> Ctx<'a> {
        Ctx {
            origin,
            text,
            spans: OnceCell::new(),
            regex_budget: Cell::new(REGEX_TOTAL_LIMIT),
        }
    }

    /// An error at the value at `path` (see [`Spans::offset`]).
    pub(super) fn err(
        &self,
        kind: ErrorKind,
        path: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> DbError {
        DbError::at(
            kind,
            self.origin,
            self.text,
            self.offset(path),
            message,
            fix,
        )
    }

    fn offset(&self, path: &str) -> usize {
        self.spans
            .get_or_init(|| Spans::parse(self.text))
            .offset(path)
    }

    pub(super) fn schema_version(&self, v: u32) -> Result<(), DbError> {
        if v == SCHEMA_VERSION {
            return Ok(());
        }
        Err(self.err(
            ErrorKind::SchemaVersion,
            "schema_version",
            format!(
                "schema_version = {v} but this nodecheck reads schema_version = {SCHEMA_VERSION}"
            ),
            "use a database written for this nodecheck version, or upgrade nodecheck",
        ))
    }

    fn invalid(&self, path: &str, message: String, fix: &str) -> DbError {
        self.err(ErrorKind::BadValue, path, message, fix)
    }

    /// Sizes and speeds that cannot all be true are an error at the name of the client at
    /// `at`.
    fn sane_needs(&self, c: &ClientNeeds, at: &str) -> Result<(), DbError> {
        let problem = if c.recommended_disk_bytes == 0 {
            Some("recommended_disk_bytes is 0")
        } else if c.min_free_bytes > c.recommended_disk_bytes {
            Some("min_free_bytes exceeds the recommended disk size")
        } else if c
            .max_qd1_read_p99_us
            .is_some_and(|p99| !(p99.is_finite() && p99 > 0.0))
        {
            Some("max_qd1_read_p99_us must be a positive number")
        } else if c.min_read_iops == Some(0) || c.min_write_iops == Some(0) {
            Some("an IOPS floor of 0 is no floor: leave the key out")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(self.invalid(
                &format!("{at}.name"),
                format!("client `{}`: {problem}", c.name),
                "sizes are bytes and speeds as the client documentation publishes them",
            )),
            None => Ok(()),
        }
    }

    /// A client's storage figures: one for `default` (the mode it runs in unless told
    /// otherwise), at most one per mode, each with a size, a date and its arithmetic. `what` is
    /// `client` or `consensus client`, `key` the table the figures stand in.
    fn figures<M: Copy + PartialEq + Into<&'static str>>(
        &self,
        what: &str,
        name: &str,
        figures: &[StorageFigure<M>],
        default: M,
        at: &str,
        key: &str,
    ) -> Result<(), DbError> {
        let fix = "one figure per mode, a size in bytes, `as_of` as YYYY, YYYY-MM or YYYY-MM-DD, and `how` saying where the numbers come from";
        let mode_name = |m: M| -> &'static str { m.into() };
        if !figures.iter().any(|f| f.mode == default) {
            return Err(self.invalid(
                &format!("{at}.name"),
                format!(
                    "{what} `{name}`: no figure for the `{}` mode it runs in by default",
                    mode_name(default)
                ),
                fix,
            ));
        }
        for (j, f) in figures.iter().enumerate() {
            let here = format!("{at}.{key}.{j}");
            let problem = if figures[..j].iter().any(|earlier| earlier.mode == f.mode) {
                Some(format!(
                    "two figures for {} mode `{}`",
                    if key == "history" {
                        "history"
                    } else {
                        "storage"
                    },
                    mode_name(f.mode)
                ))
            } else if f.disk_bytes == 0 {
                Some("disk_bytes is 0".to_owned())
            } else if crate::clients::year_month(&f.as_of).is_none() {
                Some(format!(
                    "as_of `{}` is not a date",
                    units::text::clip(&f.as_of, 40)
                ))
            } else if f.how.trim().is_empty() {
                Some("`how` is empty: say where the figures come from".to_owned())
            } else if f.sources.is_empty() {
                Some("a figure without sources".to_owned())
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(self.invalid(
                    &format!("{here}.mode"),
                    format!("{what} `{name}`: {problem}"),
                    fix,
                ));
            }
        }
        Ok(())
    }

    /// Checks a client's process names.
    fn process(&self, client: &str, process: &ProcessNames, at: &str) -> Result<(), DbError> {
        let at = format!("{at}.process");
        let mut all = process
            .names
            .iter()
            .chain(&process.name_prefixes)
            .chain(&process.launcher_arguments);
        if process.names.is_empty() || all.clone().any(|n| n.trim().is_empty()) {
            return Err(self.invalid(
                &at,
                format!("client `{client}`: process needs at least one name and no empty ones"),
                "name the program the client runs as, e.g. `process = { names = [\"geth\"] }`",
            ));
        }
        if let Some(upper) = all.find(|n| n.chars().any(char::is_uppercase)) {
            return Err(self.invalid(
                &at,
                format!("client `{client}`: process name `{upper}` is not lower case"),
                "process names are compared case-insensitively: write them in lower case",
            ));
        }
        Ok(())
    }

    /// Compiles a whole-string, case-insensitive regex. On failure the error points at the
    /// pattern's value (at `path` in the file) and quotes the regex crate's explanation.
    pub(super) fn regex(&self, pattern: &str, path: &str, what: &str) -> Result<Regex, DbError> {
        let anchored = format!("^(?:{pattern})$");
        self.charge_regex(&anchored, path)?;
        RegexBuilder::new(&anchored)
            .case_insensitive(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| {
                let detail = e
                    .to_string()
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("error:"))
                    .map(|l| l.trim_start_matches("error:").trim().to_string())
                    .unwrap_or_else(|| {
                        e.to_string().lines().last().unwrap_or_default().to_string()
                    });
                self.err(
                    ErrorKind::BadRegex,
                    path,
                    format!("{what} `{pattern}` is not a valid regex: {detail}"),
                    "fix the pattern (Rust regex syntax; escape literal `.`, `(`, `+` with `\\\\`)",
                )
            })
    }

    /// Takes the compiled size of `anchored` from the file's budget, measured on the Thompson NFA
    /// the regex crate builds (its size limit measures the same), before the regex is built.
    /// A pattern that does not compile is left to [`Ctx::regex`] to explain.
    fn charge_regex(&self, anchored: &str, path: &str) -> Result<(), DbError> {
        use regex_automata::nfa::thompson;
        let nfa = thompson::Compiler::new()
            .syntax(regex_automata::util::syntax::Config::new().case_insensitive(true))
            .configure(thompson::Config::new().nfa_size_limit(Some(REGEX_SIZE_LIMIT)))
            .build(anchored);
        let Ok(nfa) = nfa else {
            return Ok(());
        };
        let left = self.regex_budget.get();
        match left.checked_sub(nfa.memory_usage()) {
            Some(left) => {
                self.regex_budget.set(left);
                Ok(())
            }
            None => Err(self.err(
                ErrorKind::TooLarge,
                path,
                format!(
                    "the patterns up to here compile to more than the {} MiB all of a database's \
                     patterns may take together",
                    REGEX_TOTAL_LIMIT >> 20
                ),
                "use fewer or simpler patterns: bounded repeats such as `{50}` compile to a \
                 copy of their pattern per repeat",
            )),
        }
    }

    /// Compiles the patterns of each of `patterns` (the list at `path`).
    pub(super) fn regexes(
        &self,
        patterns: &[String],
        path: &str,
        what: &str,
    ) -> Result<Vec<Regex>, DbError> {
        (patterns.iter().enumerate())
            .map(|(i, p)| self.regex(p, &format!("{path}.{i}"), what))
            .collect()
    }

    /// Compiles the drive entry at `at` and checks its rules.
    fn drive(&self, d: &mut DriveEntry, at: &str) -> Result<(), DbError> {
        d.models = self.regexes(&d.model_patterns, &format!("{at}.models"), "model pattern")?;

        let mut rule_ids = IdSet::default();
        let rules = |table: &str| format!("{at}.{table}");
        self.with_unique_ids(
            &mut d.firmware,
            &mut rule_ids,
            "rule",
            &rules("firmware"),
            |f| &f.id,
            |f, at| {
                f.regex =
                    Some(self.regex(&f.pattern, &format!("{at}.match"), "firmware pattern")?);
                Ok(())
            },
        )?;
        self.with_unique_ids(
            &mut d.capacity,
            &mut rule_ids,
            "rule",
            &rules("capacity"),
            |c| &c.id,
            |c, at| match (c.min_bytes, c.max_bytes) {
                (Some(min), Some(max)) if min > max => Err(self.invalid(
                    &format!("{at}.id"),
                    format!(
                        "capacity rule `{}`: min_bytes {min} > max_bytes {max}",
                        c.id
                    ),
                    "swap min_bytes and max_bytes",
                )),
                _ => Ok(()),
            },
        )?;
        let advisories = d.advisories.iter().map(|a| &a.id);
        self.unique_ids(&mut rule_ids, "rule", &rules("advisories"), advisories)?;
        let quirks = d.smart_attributes.iter().map(|q| &q.id);
        self.unique_ids(&mut rule_ids, "rule", &rules("smart_attributes"), quirks)?;
        if let Some(p) = &mut d.platform {
            self.platform(p, &format!("{at}.platform"))?;
        }
        Ok(())
    }

    /// Checks each of `items` (the table at `table`) with `check` after registering its id
    /// (read by `id`) in `ids` as a `what`, so an empty or repeated id is reported where it
    /// stands, before its item is checked. `check` is given the item's path.
    pub(super) fn with_unique_ids<T>(
        &self,
        items: &mut [T],
        ids: &mut IdSet,
        what: &str,
        table: &str,
        id: impl Fn(&T) -> &String,
        mut check: impl FnMut(&mut T, &str) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        for (i, item) in items.iter_mut().enumerate() {
            let at = format!("{table}.{i}");
            ids.insert(self, id(item), &format!("{at}.id"), what)?;
            check(item, &at)?;
        }
        Ok(())
    }

    /// Registers in `ids` the id of each item of a table (at `table`) that needs no other
    /// check.
    fn unique_ids<'i>(
        &self,
        ids: &mut IdSet,
        what: &str,
        table: &str,
        items: impl IntoIterator<Item = &'i String>,
    ) -> Result<(), DbError> {
        for (i, id) in items.into_iter().enumerate() {
            ids.insert(self, id, &format!("{table}.{i}.id"), what)?;
        }
        Ok(())
    }

    fn platform(&self, p: &mut PlatformMatch, at: &str) -> Result<(), DbError> {
        let compile = |pattern: &Option<String>, key: &str| -> Result<Option<Regex>, DbError> {
            let what = format!("{key} pattern");
            (pattern.as_deref())
                .map(|s| self.regex(s, &format!("{at}.{key}"), &what))
                .transpose()
        };
        p.sys_vendor = compile(&p.sys_vendor_pattern, "sys_vendor")?;
        p.product_name = compile(&p.product_name_pattern, "product_name")?;
        p.bios_version = compile(&p.bios_version_pattern, "bios_version")?;
        Ok(())
    }
}

/// Ids seen so far, with the path where each was first defined, so the error can name both
/// places.
#[derive(Default)]
pub(super) struct IdSet {
    seen: HashMap<String, String>,
}

impl IdSet {
    /// Registers `id`, the value at `path`.
    pub(super) fn insert(
        &mut self,
        ctx: &Ctx,
        id: &str,
        path: &str,
        what: &str,
    ) -> Result<(), DbError> {
        if id.trim().is_empty() {
            return Err(ctx.err(
                ErrorKind::BadValue,
                path,
                format!("empty {what} id"),
                "give it a short kebab-case id such as `samsung-980-pro`",
            ));
        }
        if let Some(first) = self.seen.get(id) {
            let first = super::error::Position::of_offset(ctx.text, ctx.offset(first));
            return Err(ctx.err(
                ErrorKind::DuplicateId,
                path,
                format!(
                    "{what} id `{id}` is already used at line {}, column {}",
                    first.line, first.column
                ),
                "ids must be unique: rename this one (or merge the two)",
            ));
        }
        self.seen.insert(id.to_owned(), path.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_patterns_take_a_small_part_of_the_regex_budget() {
        let db = Database::embedded().expect("the embedded database");
        let ctx = Ctx::new(super::super::EMBEDDED_DRIVES_ORIGIN, "");
        let patterns = db
            .drives
            .iter()
            .flat_map(|d| (d.model_patterns.iter()).chain(d.firmware.iter().map(|f| &f.pattern)));
        for pattern in patterns {
            ctx.charge_regex(&format!("^(?:{pattern})$"), "drives")
                .expect("within the budget");
        }
        let used = REGEX_TOTAL_LIMIT - ctx.regex_budget.get();
        assert!(used > 0);
        assert!(
            used * 10 < REGEX_TOTAL_LIMIT,
            "the embedded patterns take {used} of {REGEX_TOTAL_LIMIT} bytes"
        );
    }
}
