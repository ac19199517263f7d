//! Turns the raw TOML tables into a [`Database`]: compiles regexes (pointing errors at the
//! pattern's position in the file) and rejects duplicate ids.

use std::collections::HashMap;

use regex::{Regex, RegexBuilder};
use toml::Spanned;

use super::error::{DbError, ErrorKind};
use super::raw::{ClientsFile, DriveRaw, DrivesFile, PlatformRaw, ResultBlockFile, SourceRaw};
use crate::clients::{ClientCatalog, ConsensusNeeds, ProcessNames, Sizing};

use super::{
    AdvisoryRule, Benchmark, CapacityRule, ClientNeeds, CrowdResult, Database, DriveEntry,
    FirmwareRule, GenericRule, PlatformMatch, Remark, SmartAttributeQuirk, Source, SCHEMA_VERSION,
};

/// Compiled regexes are capped so a hostile `--db` file cannot exhaust memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

pub(crate) fn database(
    drives_text: &str,
    drives_origin: &str,
    clients_text: &str,
    clients_origin: &str,
) -> Result<Database, DbError> {
    let file: DrivesFile = toml::from_str(drives_text)
        .map_err(|e| DbError::from_toml(&e, drives_origin, drives_text))?;
    let ctx = Ctx {
        origin: drives_origin,
        text: drives_text,
    };
    ctx.schema_version(&file.schema_version)?;

    let mut ids = IdSet::default();
    let mut sources = Vec::with_capacity(file.sources.len());
    for s in file.sources {
        sources.push(ctx.source(s, &mut ids)?);
    }
    let benchmarks = ctx.with_unique_ids(
        file.benchmarks,
        &mut ids,
        "benchmark",
        |b| &b.id,
        |b| {
            Ok(Benchmark {
                id: b.id.into_inner(),
                description: b.description,
                command: b.command,
            })
        },
    )?;
    let remarks = ctx.with_unique_ids(
        file.remarks,
        &mut ids,
        "remark",
        |r| &r.id,
        |r| {
            Ok(Remark {
                id: r.id.into_inner(),
                topic: r.topic,
                text: r.text,
                sources: r.sources,
            })
        },
    )?;
    let generic = ctx.with_unique_ids(
        file.generic,
        &mut ids,
        "generic rule",
        |g| &g.id,
        |g| {
            Ok(GenericRule {
                id: g.id.into_inner(),
                when: g.when,
                grade: g.grade,
                notes: g.notes,
                sources: g.sources,
            })
        },
    )?;
    let drives = ctx.with_unique_ids(
        file.drives,
        &mut ids,
        "drive entry",
        |d| &d.id,
        |d| ctx.drive(d),
    )?;

    let ClientCatalog {
        clients,
        consensus,
        sizing,
        sources: client_sources,
        ..
    } = clients(clients_text, clients_origin)?;
    for (s, offset) in client_sources {
        // Drives and clients cite from one pool of sources; the same id in both files would
        // make a citation ambiguous.
        if let Some(existing) = sources.iter().find(|e: &&Source| e.id == s.id) {
            if existing.title != s.title || existing.url != s.url {
                return Err(DbError::at(
                    ErrorKind::DuplicateId,
                    clients_origin,
                    clients_text,
                    offset,
                    format!(
                        "source id `{}` is defined differently in {drives_origin}",
                        s.id
                    ),
                    "rename the source in one of the files or make both definitions identical",
                ));
            }
            continue;
        }
        sources.push(s);
    }

    Ok(Database {
        schema_version: *file.schema_version.get_ref(),
        version: file.version,
        origin: drives_origin.to_string(),
        sources,
        benchmarks,
        remarks,
        drives,
        generic,
        classes: Vec::new(),
        clients,
        consensus,
        sizing,
    })
}

/// A source and the byte offset of its id in the file that defines it.
pub(crate) type SourceAt = (Source, usize);

/// Parses `data/clients.toml`. Everything a consumer relies on without further checks is
/// checked here: unique names, sizes that can be true at all (a minimum no larger than the
/// recommendation, free space that fits on the recommended drive, a whole-node drive larger
/// than the beacon database) and a way to recognise each execution client's process.
/// `cargo xtask db-check` adds the editorial checks (citations, unit slips, lower-case names).
pub(crate) fn clients(text: &str, origin: &str) -> Result<ClientCatalog, DbError> {
    let file: ClientsFile =
        toml::from_str(text).map_err(|e| DbError::from_toml(&e, origin, text))?;
    let ctx = Ctx { origin, text };
    ctx.schema_version(&file.schema_version)?;
    let mut ids = IdSet::default();
    let mut sources = Vec::with_capacity(file.sources.len());
    for s in file.sources {
        // Keep where each source was defined: a clash with the drives file is reported there.
        let offset = s.id.span().start;
        sources.push((ctx.source(s, &mut ids)?, offset));
    }
    let mut clients = Vec::with_capacity(file.clients.len());
    let mut processes = Vec::with_capacity(file.clients.len());
    for c in file.clients {
        ids.insert(&ctx, &c.name, "client")?;
        let at = c.name.span().start;
        let needs = ClientNeeds {
            name: c.name.into_inner(),
            display: c.display,
            min_disk_bytes: c.min_disk_bytes,
            recommended_disk_bytes: c.recommended_disk_bytes,
            min_free_bytes: c.min_free_bytes,
            min_read_iops: c.min_read_iops,
            min_write_iops: c.min_write_iops,
            max_qd1_read_p99_us: c.max_qd1_read_p99_us,
            notes: c.notes,
            sources: c.sources,
        };
        ctx.sane_needs(&needs, at)?;
        processes.push(ctx.process(&needs.name, c.process)?);
        clients.push(needs);
    }
    // Execution and consensus clients share one namespace of names in error messages.
    let consensus = ctx.with_unique_ids(file.consensus, &mut ids, "client", |c| &c.name, |c| {
        let at = c.name.span().start;
        if c.node_disk_bytes
            .is_some_and(|disk| disk <= c.database_bytes)
        {
            return Err(ctx.invalid(
                at,
                format!(
                    "consensus client `{}`: node_disk_bytes (the drive for the whole node) must exceed database_bytes",
                    c.name.get_ref()
                ),
                "node_disk_bytes is the whole drive the client's documentation recommends",
            ));
        }
        Ok(ConsensusNeeds {
            name: c.name.into_inner(),
            display: c.display,
            database_bytes: c.database_bytes,
            node_disk_bytes: c.node_disk_bytes,
            notes: c.notes,
            sources: c.sources,
        })
    })?;
    let sizing = file.sizing.map(|s| Sizing {
        conservative_disk_bytes: s.conservative_disk_bytes,
        text: s.text,
        sources: s.sources,
    });
    Ok(ClientCatalog {
        clients,
        consensus,
        sizing,
        processes,
        sources,
    })
}

pub(crate) fn result_block(text: &str, origin: &str) -> Result<Vec<CrowdResult>, DbError> {
    let file: ResultBlockFile =
        toml::from_str(text).map_err(|e| DbError::from_toml(&e, origin, text))?;
    Ok(file.drives.results)
}

pub(super) struct Ctx<'a> {
    pub(super) origin: &'a str,
    pub(super) text: &'a str,
}

impl Ctx<'_> {
    pub(super) fn err(
        &self,
        kind: ErrorKind,
        offset: usize,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> DbError {
        DbError::at(kind, self.origin, self.text, offset, message, fix)
    }

    pub(super) fn schema_version(&self, v: &Spanned<u32>) -> Result<(), DbError> {
        if *v.get_ref() == SCHEMA_VERSION {
            return Ok(());
        }
        Err(self.err(
            ErrorKind::SchemaVersion,
            v.span().start,
            format!(
                "schema_version = {} but this nodecheck reads schema_version = {SCHEMA_VERSION}",
                v.get_ref()
            ),
            "use a database written for this nodecheck version, or upgrade nodecheck",
        ))
    }

    fn invalid(&self, offset: usize, message: String, fix: &str) -> DbError {
        self.err(ErrorKind::BadValue, offset, message, fix)
    }

    /// Sizes and speeds that cannot all be true are an error at the client's name.
    fn sane_needs(&self, c: &ClientNeeds, at: usize) -> Result<(), DbError> {
        let problem = if c.min_disk_bytes == 0 {
            Some("min_disk_bytes is 0")
        } else if c.recommended_disk_bytes < c.min_disk_bytes {
            Some("recommended_disk_bytes is below min_disk_bytes")
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
                at,
                format!("client `{}`: {problem}", c.name),
                "sizes are bytes and speeds as the client documentation publishes them",
            )),
            None => Ok(()),
        }
    }

    fn process(&self, client: &str, raw: Spanned<ProcessNames>) -> Result<ProcessNames, DbError> {
        let at = raw.span().start;
        let process = ProcessNames {
            client: client.to_owned(),
            ..raw.into_inner()
        };
        let mut all = process
            .names
            .iter()
            .chain(&process.name_prefixes)
            .chain(&process.launcher_arguments);
        if process.names.is_empty() || all.clone().any(|n| n.trim().is_empty()) {
            return Err(self.invalid(
                at,
                format!("client `{client}`: process needs at least one name and no empty ones"),
                "name the program the client runs as, e.g. `process = { names = [\"geth\"] }`",
            ));
        }
        if let Some(upper) = all.find(|n| n.chars().any(char::is_uppercase)) {
            return Err(self.invalid(
                at,
                format!("client `{client}`: process name `{upper}` is not lower case"),
                "process names are compared case-insensitively: write them in lower case",
            ));
        }
        Ok(process)
    }

    fn source(&self, s: SourceRaw, ids: &mut IdSet) -> Result<Source, DbError> {
        ids.insert(self, &s.id, "source")?;
        Ok(Source {
            id: s.id.into_inner(),
            title: s.title,
            url: s.url,
        })
    }

    /// Compiles a whole-string, case-insensitive regex. On failure the error points at the
    /// pattern's value in the file and quotes the regex crate's explanation.
    pub(super) fn regex(&self, pattern: &Spanned<String>, what: &str) -> Result<Regex, DbError> {
        let anchored = format!("^(?:{})$", pattern.get_ref());
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
                    pattern.span().start,
                    format!(
                        "{what} `{}` is not a valid regex: {detail}",
                        pattern.get_ref()
                    ),
                    "fix the pattern (Rust regex syntax; escape literal `.`, `(`, `+` with `\\\\`)",
                )
            })
    }

    fn drive(&self, d: DriveRaw) -> Result<DriveEntry, DbError> {
        let mut models = Vec::with_capacity(d.models.len());
        let mut model_patterns = Vec::with_capacity(d.models.len());
        for m in &d.models {
            models.push(self.regex(m, "model pattern")?);
            model_patterns.push(m.get_ref().clone());
        }

        let mut rule_ids = IdSet::default();
        let firmware = self.with_unique_ids(
            d.firmware,
            &mut rule_ids,
            "rule",
            |f| &f.id,
            |f| {
                let regex = self.regex(&f.pattern, "firmware pattern")?;
                Ok(FirmwareRule {
                    id: f.id.into_inner(),
                    pattern: f.pattern.into_inner(),
                    regex,
                    grade: f.grade,
                    severity: f.severity,
                    text: f.text,
                    fix: f.fix,
                })
            },
        )?;
        let capacity = self.with_unique_ids(
            d.capacity,
            &mut rule_ids,
            "rule",
            |c| &c.id,
            |c| {
                if let (Some(min), Some(max)) = (c.min_bytes, c.max_bytes) {
                    if min > max {
                        return Err(self.err(
                            ErrorKind::BadValue,
                            c.id.span().start,
                            format!(
                                "capacity rule `{}`: min_bytes {min} > max_bytes {max}",
                                c.id.get_ref()
                            ),
                            "swap min_bytes and max_bytes",
                        ));
                    }
                }
                Ok(CapacityRule {
                    id: c.id.into_inner(),
                    min_bytes: c.min_bytes,
                    max_bytes: c.max_bytes,
                    grade: c.grade,
                    nand: c.nand,
                    dram: c.dram,
                    severity: c.severity,
                    text: c.text,
                    fix: c.fix,
                })
            },
        )?;
        let advisories = self.with_unique_ids(
            d.advisories,
            &mut rule_ids,
            "rule",
            |a| &a.id,
            |a| {
                Ok(AdvisoryRule {
                    id: a.id.into_inner(),
                    severity: a.severity,
                    text: a.text,
                    fix: a.fix,
                })
            },
        )?;
        let smart_attributes = self.with_unique_ids(
            d.smart_attributes,
            &mut rule_ids,
            "rule",
            |q| &q.id,
            |q| {
                Ok(SmartAttributeQuirk {
                    id: q.id.into_inner(),
                    attribute: *q.attribute.get_ref(),
                    name: q.name,
                    benign_raw_max: q.benign_raw_max,
                    text: q.text,
                    sources: q.sources,
                })
            },
        )?;
        let platform = match d.platform {
            Some(p) => Some(self.platform(p)?),
            None => None,
        };

        Ok(DriveEntry {
            id: d.id.into_inner(),
            vendor: d.vendor,
            family: d.family,
            interface: d.interface,
            form_factor: d.form_factor,
            nand: d.nand,
            dram: d.dram,
            class: d.class,
            grade: d.grade,
            derived: d.derived,
            notes: d.notes,
            sources: d.sources,
            models,
            model_patterns,
            unmatchable: d.unmatchable,
            examples: d.examples,
            firmware,
            capacity,
            advisories,
            smart_attributes,
            results: d.results,
            platform,
        })
    }

    /// Builds each of `raws` with `build` after registering its id (read by `id`) in `ids` as
    /// a `what`, so an empty or repeated id is reported where it stands, before its item is
    /// checked.
    fn with_unique_ids<R, T>(
        &self,
        raws: Vec<R>,
        ids: &mut IdSet,
        what: &str,
        id: impl Fn(&R) -> &Spanned<String>,
        mut build: impl FnMut(R) -> Result<T, DbError>,
    ) -> Result<Vec<T>, DbError> {
        raws.into_iter()
            .map(|raw| {
                ids.insert(self, id(&raw), what)?;
                build(raw)
            })
            .collect()
    }

    fn platform(&self, p: PlatformRaw) -> Result<PlatformMatch, DbError> {
        let compile =
            |field: &Option<Spanned<String>>, what: &str| -> Result<Option<Regex>, DbError> {
                field.as_ref().map(|s| self.regex(s, what)).transpose()
            };
        Ok(PlatformMatch {
            sys_vendor: compile(&p.sys_vendor, "sys_vendor pattern")?,
            product_name: compile(&p.product_name, "product_name pattern")?,
            bios_version: compile(&p.bios_version, "bios_version pattern")?,
            cloud: p.cloud,
            sys_vendor_pattern: p.sys_vendor.map(Spanned::into_inner),
            product_name_pattern: p.product_name.map(Spanned::into_inner),
            bios_version_pattern: p.bios_version.map(Spanned::into_inner),
        })
    }
}

/// Ids seen so far, with where they were first defined, so the error can name both places.
#[derive(Default)]
pub(super) struct IdSet {
    seen: HashMap<String, usize>,
}

impl IdSet {
    pub(super) fn insert(
        &mut self,
        ctx: &Ctx,
        id: &Spanned<String>,
        what: &str,
    ) -> Result<(), DbError> {
        let name = id.get_ref();
        if name.trim().is_empty() {
            return Err(ctx.err(
                ErrorKind::BadValue,
                id.span().start,
                format!("empty {what} id"),
                "give it a short kebab-case id such as `samsung-980-pro`",
            ));
        }
        if let Some(&first) = self.seen.get(name) {
            let first = super::error::Position::of_offset(ctx.text, first);
            return Err(ctx.err(
                ErrorKind::DuplicateId,
                id.span().start,
                format!(
                    "{what} id `{name}` is already used at line {}, column {}",
                    first.line, first.column
                ),
                "ids must be unique: rename this one (or merge the two)",
            ));
        }
        self.seen.insert(name.clone(), id.span().start);
        Ok(())
    }
}
