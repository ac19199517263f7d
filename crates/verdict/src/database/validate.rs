//! Consistency checks that parsing alone cannot make: examples against every entry, order,
//! citations, references, client sanity.

use std::collections::HashSet;
use std::fmt;

use super::{
    ClientCatalog, Database, DriveEntry, EntryInterface, ModelForms, BAD_SECTOR_ATTRIBUTES,
};
use crate::model::Grade;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum IssueLevel {
    Warning,
    Error,
}

/// One problem found by [`Database::validate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationIssue {
    pub level: IssueLevel,
    /// The entry (or client, rule) it is about.
    pub subject: String,
    pub message: String,
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            IssueLevel::Warning => "warning",
            IssueLevel::Error => "error",
        };
        write!(f, "{level}: {}: {}", self.subject, self.message)
    }
}

struct Issues(Vec<ValidationIssue>);

impl Issues {
    fn error(&mut self, subject: &str, message: String) {
        self.0.push(ValidationIssue {
            level: IssueLevel::Error,
            subject: subject.to_string(),
            message,
        });
    }

    fn warning(&mut self, subject: &str, message: String) {
        self.0.push(ValidationIssue {
            level: IssueLevel::Warning,
            subject: subject.to_string(),
            message,
        });
    }
}

pub(crate) fn validate(db: &Database) -> Vec<ValidationIssue> {
    let mut issues = Issues(Vec::new());
    let source_ids: HashSet<&str> = db.sources.iter().map(|s| s.id.as_str()).collect();
    let benchmark_ids: HashSet<&str> = db.benchmarks.iter().map(|b| b.id.as_str()).collect();

    if db.version.trim().is_empty() {
        issues.error("database", "`version` is empty".into());
    }
    if db.drives.is_empty() {
        issues.error("database", "no [[drives]] entries".into());
    }

    for e in &db.drives {
        check_entry(e, db, &source_ids, &benchmark_ids, &mut issues);
    }
    check_examples_are_exclusive(db, &mut issues);
    check_order(db, &mut issues);

    for g in &db.generic {
        check_citations(&g.id, &g.sources, &source_ids, &mut issues);
        if g.when.is_empty() {
            issues.error(
                &g.id,
                "generic rule has no conditions and would match every drive".into(),
            );
        }
        if g.notes.trim().is_empty() {
            issues.error(&g.id, "generic rule has empty notes".into());
        }
    }
    for r in &db.remarks {
        check_citations(&r.id, &r.sources, &source_ids, &mut issues);
    }
    check_clients(db, &source_ids, &mut issues);
    for (class, message) in super::classes::validate(db, &source_ids) {
        issues.error(&class, message);
    }
    for (id, message) in super::controllers::validate(&db.controllers, &db.pci_ids, &source_ids) {
        issues.error(&format!("controller {id}"), message);
    }
    check_consensus(db, &source_ids, &mut issues);

    issues.0
}

fn check_citations(subject: &str, sources: &[String], ids: &HashSet<&str>, issues: &mut Issues) {
    if sources.is_empty() {
        issues.error(
            subject,
            "has no source: cite where the claim comes from".into(),
        );
    }
    for s in sources {
        if !ids.contains(s.as_str()) {
            issues.error(
                subject,
                format!("cites unknown source `{s}` (add it to [[sources]])"),
            );
        }
    }
}

fn check_entry(
    e: &DriveEntry,
    db: &Database,
    source_ids: &HashSet<&str>,
    benchmark_ids: &HashSet<&str>,
    issues: &mut Issues,
) {
    check_citations(&e.id, &e.sources, source_ids, issues);
    if !is_kebab(&e.id) {
        issues.error(
            &e.id,
            "id must be lower-case kebab-case (a-z, 0-9, `-`)".into(),
        );
    }
    for (what, value) in [
        ("vendor", &e.vendor),
        ("family", &e.family),
        ("notes", &e.notes),
    ] {
        if value.trim().is_empty() {
            issues.error(&e.id, format!("`{what}` is empty"));
        }
    }
    if e.grade == Grade::Unknown {
        issues.error(&e.id, "an entry's grade must be good, ugly or bad (unknown is what a lookup says when nothing matches)".into());
    }
    let matchable = !e.models.is_empty() || e.platform.is_some();
    match (&e.unmatchable, matchable) {
        (None, false) => issues.error(
            &e.id,
            "no `models` and no `platform`: nothing can match it (set `unmatchable` with the reason if that is intended)".into(),
        ),
        (Some(_), true) => issues.error(&e.id, "`unmatchable` is set but the entry has patterns".into()),
        _ => {}
    }
    if !e.models.is_empty() && e.examples.is_empty() {
        issues.error(
            &e.id,
            "has model patterns but no `examples` (real reported strings)".into(),
        );
    }
    for (pattern, re) in e.model_patterns.iter().zip(&e.models) {
        if re.is_match("") {
            issues.error(
                &e.id,
                format!("model pattern `{pattern}` matches the empty string"),
            );
        }
        if !e.examples.iter().any(|x| ModelForms::new(x).matched_by(re)) {
            issues.warning(
                &e.id,
                format!("model pattern `{pattern}` is not exercised by any example"),
            );
        }
    }
    for x in &e.examples {
        if !e.matches_model(x) {
            issues.error(
                &e.id,
                format!("example `{x}` does not match the entry's own patterns"),
            );
        }
    }
    for f in &e.firmware {
        if f.matches("") {
            issues.error(
                &e.id,
                format!("firmware rule `{}` matches an empty revision", f.id),
            );
        }
        if f.text.trim().is_empty() {
            issues.error(&e.id, format!("firmware rule `{}` has no text", f.id));
        }
        if f.grade.is_some_and(|g| g > Grade::Good) && f.fix.is_none() {
            issues.error(
                &e.id,
                format!(
                    "firmware rule `{}` downgrades the drive but gives no fix",
                    f.id
                ),
            );
        }
    }
    check_smart_attributes(e, source_ids, issues);
    for c in &e.capacity {
        if c.min_bytes.is_none() && c.max_bytes.is_none() {
            issues.error(
                &e.id,
                format!(
                    "capacity rule `{}` has neither min_bytes nor max_bytes",
                    c.id
                ),
            );
        }
    }
    for r in &e.results {
        if !benchmark_ids.contains(r.benchmark.as_str()) {
            issues.error(
                &e.id,
                format!("result cites unknown benchmark `{}`", r.benchmark),
            );
        }
        if let Some(s) = &r.source {
            if !source_ids.contains(s.as_str()) {
                issues.error(&e.id, format!("result cites unknown source `{s}`"));
            }
        }
        if r.source.is_none() && r.nodecheck_version.is_none() {
            issues.error(
                &e.id,
                "result has neither a `source` nor a `nodecheck_version`: say where it comes from"
                    .into(),
            );
        }
        if let Some(model) = &r.model {
            let owners = db.entries_matching(model);
            if !owners.iter().any(|o| o.id == e.id) {
                issues.error(
                    &e.id,
                    format!(
                        "result for model `{model}` is filed under an entry that does not match it"
                    ),
                );
            }
        }
        if r.read_iops == 0 && r.write_iops == 0 {
            issues.error(&e.id, "result with zero read and write IOPS".into());
        }
        check_result_context(&e.id, r, issues);
    }
}

/// A result `nodecheck submit` made carries what it was measured through; without it a figure
/// from a cache or a Gen3 slot would enter the crowd data unmarked.
fn check_result_context(id: &str, r: &super::entry::CrowdResult, issues: &mut Issues) {
    for problem in result_context_problems(r) {
        issues.error(id, problem);
    }
}

/// What is wrong with the `context` of a result from nodecheck (`cargo xtask db-check` asks
/// this of a drives file and of a result block alike); nothing for a result from a source.
pub fn result_context_problems(r: &super::entry::CrowdResult) -> Vec<String> {
    if r.nodecheck_version.is_none() {
        return Vec::new();
    }
    let Some(context) = &r.context else {
        return vec!["result from nodecheck has no `context` (file system, stack, PCIe link, VM/cloud, peak temperature, span, engine, whether reads hit data): resubmit with a current `nodecheck submit`".into()];
    };
    let mut problems = Vec::new();
    let mut missing = Vec::new();
    if context.file_system.trim().is_empty() {
        missing.push("file_system");
    }
    if context.stack.is_empty() {
        missing.push("stack");
    }
    if context.pcie_link.trim().is_empty() {
        missing.push("pcie_link");
    }
    if context.cloud.trim().is_empty() {
        missing.push("cloud");
    }
    if !context.peak_temperature_c.is_some_and(f64::is_finite) {
        missing.push("peak_temperature_c");
    }
    if context.qd1_span_bytes == 0 {
        missing.push("qd1_span_bytes");
    }
    if context.qd1_engine.trim().is_empty() {
        missing.push("qd1_engine");
    }
    if !missing.is_empty() {
        problems.push(format!("result context lacks {}", missing.join(", ")));
    }
    if !context.reads_hit_data {
        problems.push("result's QD1 reads hit never-written blocks (`reads_hit_data = false`): the latency is the mapping table's, not the drive's".into());
    }
    problems
}

/// SMART attribute quirks: only ATA drives have attributes, only the bad-sector attributes
/// are read in a way a quirk changes, one quirk per attribute, and each says why with a source.
fn check_smart_attributes(e: &DriveEntry, source_ids: &HashSet<&str>, issues: &mut Issues) {
    let mut seen = HashSet::new();
    for q in &e.smart_attributes {
        let subject = format!("{}/{}", e.id, q.id);
        if e.interface == EntryInterface::Nvme || e.interface == EntryInterface::Virtio {
            issues.error(
                &subject,
                format!(
                    "SMART attribute quirk on a {} entry: only ATA drives report attributes",
                    e.interface.as_str()
                ),
            );
        }
        if !BAD_SECTOR_ATTRIBUTES.contains(&q.attribute) {
            issues.error(
                &subject,
                format!(
                    "attribute {} is not one nodecheck reads as a bad-sector count ({}): the quirk would change nothing",
                    q.attribute,
                    BAD_SECTOR_ATTRIBUTES.map(|a| a.to_string()).join(", ")
                ),
            );
        }
        if !seen.insert(q.attribute) {
            issues.error(
                &subject,
                format!("attribute {} has more than one quirk", q.attribute),
            );
        }
        if q.name.trim().is_empty() || q.name.contains(char::is_whitespace) {
            issues.error(
                &subject,
                "`name` must be the attribute's name as smartctl prints it (`Current_Pending_ECC_Cnt`)".into(),
            );
        }
        if q.text.trim().is_empty() {
            issues.error(
                &subject,
                "`text` is empty: say why the value is benign".into(),
            );
        }
        check_citations(&subject, &q.sources, source_ids, issues);
    }
}

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Runs every example string of every entry against every entry: an example must match its
/// own entry only.
fn check_examples_are_exclusive(db: &Database, issues: &mut Issues) {
    for owner in &db.drives {
        for example in &owner.examples {
            for other in db.drives.iter().filter(|o| o.id != owner.id) {
                if other.matches_model(example) {
                    issues.error(
                        &owner.id,
                        format!("example `{example}` also matches entry `{}`", other.id),
                    );
                }
            }
        }
    }
}

/// Entries are kept in the list's order: by interface, then alphabetically by vendor.
fn check_order(db: &Database, issues: &mut Issues) {
    for pair in db.drives.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let ka = (a.interface, a.vendor.to_lowercase());
        let kb = (b.interface, b.vendor.to_lowercase());
        if kb < ka {
            issues.error(
                &b.id,
                format!(
                    "out of order: `{}` ({} / {}) must come before `{}` ({} / {}); entries are sorted by interface (nvme, sata, sas, usb, virtio) then vendor",
                    b.id,
                    b.interface.as_str(),
                    b.vendor,
                    a.id,
                    a.interface.as_str(),
                    a.vendor
                ),
            );
        }
    }
}

/// A client's name is what users write to pick it, so it must be one lower-case word; `why`
/// says where they write it.
fn check_name_is_a_word(name: &str, what: &str, why: &str, issues: &mut Issues) {
    if name != name.to_lowercase() || name.contains(' ') {
        issues.error(
            name,
            format!("{what} name must be a lower-case word ({why})"),
        );
    }
}

fn check_consensus(db: &Database, source_ids: &HashSet<&str>, issues: &mut Issues) {
    let expected = ClientCatalog::embedded().consensus_names();
    CONSENSUS.missing(expected, |name| db.consensus_client(name).is_some(), issues);
    for c in &db.clients.consensus {
        CONSENSUS.row(&c.name, &c.sources, source_ids, issues);
        if c.notes.trim().is_empty() {
            issues.error(&c.name, "`notes` is empty".into());
        }
        for f in &c.storage {
            check_citations(&c.name, &f.sources, source_ids, issues);
        }
        let figures = c
            .storage
            .iter()
            .map(|f| ("storage disk_bytes", Some(f.disk_bytes)));
        for (what, v) in figures.chain([("node_disk_bytes", c.node_disk_bytes)]) {
            if v.is_some_and(|v| v < 1_000_000_000) {
                issues.error(&c.name, format!("{what} is under 1 GB: sizes are in bytes"));
            }
        }
    }
    match &db.clients.sizing {
        None => issues.error("sizing", "no [sizing] table in the clients file".into()),
        Some(sizing) => {
            check_citations("sizing", &sizing.sources, source_ids, issues);
            if sizing.text.trim().is_empty() {
                issues.error("sizing", "`text` is empty".into());
            }
            let largest = db
                .clients
                .execution
                .iter()
                .map(|c| c.recommended_disk_bytes)
                .max()
                .unwrap_or(0);
            if sizing.conservative_disk_bytes < largest {
                issues.error(
                    "sizing",
                    "conservative_disk_bytes is below a client's recommended size".into(),
                );
            }
        }
    }
}

/// Loading already rejected figures that cannot be true (see `build::clients`); these are the
/// editorial checks: every client of the catalog, citations, names users can type, sizes in
/// bytes.
fn check_clients(db: &Database, source_ids: &HashSet<&str>, issues: &mut Issues) {
    let expected = ClientCatalog::embedded().execution_names();
    EXECUTION.missing(expected, |name| db.client(name).is_some(), issues);
    for c in &db.clients.execution {
        EXECUTION.row(&c.name, &c.sources, source_ids, issues);
        // Sizes are written in bytes; a figure under 1 GB is almost certainly a unit slip.
        for f in &c.history {
            check_citations(&c.name, &f.sources, source_ids, issues);
        }
        let figures = c
            .history
            .iter()
            .map(|f| ("history disk_bytes", f.disk_bytes));
        for (what, v) in [
            ("recommended_disk_bytes", c.recommended_disk_bytes),
            ("min_free_bytes", c.min_free_bytes),
        ]
        .into_iter()
        .chain(figures)
        {
            if v > 0 && v < 1_000_000_000 {
                issues.error(
                    &c.name,
                    format!("{what} = {v} is under 1 GB: sizes are in bytes"),
                );
            }
        }
    }
}

/// Every size figure of the clients file whose `as_of` lies more than the `[sizing]`
/// `max_figure_age_months` before `today` (year, month), so sizes cannot silently rot; the
/// caller passes the date because the library reads no clock.
pub(crate) fn stale_figures(db: &Database, today: (u32, u32)) -> Vec<ValidationIssue> {
    let mut issues = Issues(Vec::new());
    let Some(max_age) = db.clients.sizing.as_ref().map(|s| s.max_figure_age_months) else {
        return issues.0;
    };
    let months = |(y, m): (u32, u32)| i64::from(y) * 12 + i64::from(m);
    let execution = db.clients.execution.iter().flat_map(|c| {
        c.history
            .iter()
            .map(move |f| (c.name.as_str(), f.mode.as_str(), f.as_of.as_str()))
    });
    let consensus = db.clients.consensus.iter().flat_map(|c| {
        c.storage
            .iter()
            .map(move |f| (c.name.as_str(), f.mode.as_str(), f.as_of.as_str()))
    });
    for (client, mode, as_of) in execution.chain(consensus) {
        let Some(date) = crate::clients::year_month(as_of) else {
            continue;
        };
        let age = months(today) - months(date);
        if age > i64::from(max_age) {
            issues.error(
                client,
                format!(
                    "the `{mode}` figure is from {as_of}, {age} months old (more than max_figure_age_months = {max_age}): measure or find a newer one"
                ),
            );
        }
    }
    issues.0
}

/// A table of clients in the clients file, as its checks name it.
struct ClientTable {
    /// What one row is (`consensus client`).
    what: &'static str,
    /// Where a missing client belongs.
    table: &'static str,
    /// Where users write the client's name.
    why: &'static str,
}

const EXECUTION: ClientTable = ClientTable {
    what: "client",
    table: "the clients table",
    why: "users type it on the command line",
};

const CONSENSUS: ClientTable = ClientTable {
    what: "consensus client",
    table: "the [[consensus]] table",
    why: "users name the consensus client with it",
};

impl ClientTable {
    /// Each client of the embedded catalog, the one list of clients, must be in the table
    /// (`present` says whether it is): a `--db` clients file covers what nodecheck offers.
    fn missing<'a>(
        &self,
        expected: impl Iterator<Item = &'a str>,
        present: impl Fn(&str) -> bool,
        issues: &mut Issues,
    ) {
        for name in expected.filter(|name| !present(name)) {
            issues.error(
                "clients",
                format!("{} `{name}` is missing from {}", self.what, self.table),
            );
        }
    }

    /// What every row needs: its sources cited, and a name of one lower-case word.
    fn row(&self, name: &str, sources: &[String], source_ids: &HashSet<&str>, issues: &mut Issues) {
        check_citations(name, sources, source_ids, issues);
        check_name_is_a_word(name, self.what, self.why, issues);
    }
}
