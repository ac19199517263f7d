//! The judge: runs every check over probe facts, bench results and the database, and folds
//! the findings into one verdict. Pure: no I/O and no terminal formatting.

use serde::{Deserialize, Serialize};

use crate::database::Database;
use crate::findings::context::{Context, Node};
use crate::findings::{self, identity::DriveIdentity, ClientFailure, Fit};
use crate::model::{Finding, Grade, Severity};

pub use crate::node::{ClientChoice, NodeChoice};

/// The judge's answer. It is not a document of its own: the binary's report carries its
/// grade, findings and drives under the report's schema version, and what needs root is the
/// NC190 finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub grade: Grade,
    /// The client whose needs were applied, or `strictest`.
    pub client: String,
    /// With [`ClientChoice::Strictest`]: the most demanding client whose needs are not met.
    pub failing_client: Option<String>,
    /// The consensus client whose database was counted on the same disk, when one was named.
    #[serde(default)]
    pub consensus_client: Option<String>,
    /// Sorted critical, warning, info, ok; in check order within a severity.
    pub findings: Vec<Finding>,
    pub drives: Vec<DriveVerdict>,
    /// Version of the drive database that judged (`2026.11.30`).
    #[serde(default)]
    pub database_version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriveVerdict {
    pub name: String,
    pub model: Option<String>,
    pub firmware: Option<String>,
    pub grade: Grade,
    pub entry: Option<EntrySummary>,
    /// For a drive without an entry: the class its part number or the probe evidence implies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassSummary>,
}

/// The class of a drive the database does not list, and the evidence that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassSummary {
    /// The data/classes.toml id, or `rotational` / `host-memory-buffer` when only the probe's
    /// evidence decided.
    pub id: String,
    pub label: String,
    pub class: Option<String>,
    pub nand: Option<String>,
    pub dram: Option<String>,
    pub evidence: Vec<String>,
}

impl ClassSummary {
    pub fn of(c: &crate::database::Classification<'_>) -> ClassSummary {
        ClassSummary {
            id: c.id().to_owned(),
            label: c.label(),
            class: c.class.map(|x| x.as_str().to_owned()),
            nand: c.nand.map(|n| n.as_str().to_owned()),
            dram: c.dram.map(|d| d.as_str().to_owned()),
            evidence: c.evidence.iter().map(|e| e.text.clone()).collect(),
        }
    }
}

/// The database entry that matched a drive, as lookups show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntrySummary {
    pub id: String,
    pub family: String,
    pub grade: Grade,
    pub nand: Option<String>,
    pub dram: Option<String>,
    pub class: String,
}

impl EntrySummary {
    /// NAND and DRAM come from the lookup, which applies capacity rules to the entry's own.
    pub fn of(
        entry: &crate::database::DriveEntry,
        nand: Option<crate::database::Nand>,
        dram: Option<crate::database::Dram>,
    ) -> EntrySummary {
        EntrySummary {
            id: entry.id.clone(),
            family: format!("{} {}", entry.vendor, entry.family),
            grade: entry.grade,
            nand: nand.map(|n| n.as_str().to_owned()),
            dram: dram.map(|d| d.as_str().to_owned()),
            class: entry.class.as_str().to_owned(),
        }
    }
}

pub fn judge(
    facts: &probe::Facts,
    bench: Option<&::bench::BenchReport>,
    db: &Database,
    client: &ClientChoice,
) -> Verdict {
    judge_node(facts, bench, db, client, None)
}

/// [`judge`] for an execution client and the consensus client `consensus` (its `--cl` name)
/// on one disk: the size and free-space findings apply the pair's needs.
pub fn judge_node(
    facts: &probe::Facts,
    bench: Option<&::bench::BenchReport>,
    db: &Database,
    client: &ClientChoice,
    consensus: Option<&str>,
) -> Verdict {
    judge_choice(
        facts,
        bench,
        db,
        &NodeChoice::new(client.clone(), consensus),
    )
}

/// [`judge`] for the node `choice` describes: its clients, history mode and consensus mode.
pub fn judge_choice(
    facts: &probe::Facts,
    bench: Option<&::bench::BenchReport>,
    db: &Database,
    choice: &NodeChoice,
) -> Verdict {
    let node = Node::resolve(db, choice);
    let ctx = Context::new(facts, bench, db, choice, &node);

    let mut findings: Vec<Finding> = Vec::new();
    let mut failures: Vec<ClientFailure> = Vec::new();
    let (mut shown, mut void) = (false, false);
    for output in findings::run_all(&ctx) {
        findings.extend(output.findings);
        failures.extend(output.failures);
        shown |= output.fit == Fit::Shown;
        void |= output.fit == Fit::Void;
    }
    // Stable: within a severity the order is the order the checks ran in.
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));

    let drives: Vec<DriveVerdict> = facts
        .drives
        .iter()
        .zip(&ctx.identities)
        .map(|(drive, identity)| drive_verdict(drive, identity, &findings))
        .collect();
    let grade = fold_grade(&findings, &drives, shown && !void);
    let failing_client = if ctx.clients.strictest {
        most_demanding_failure(&failures)
    } else {
        None
    };

    Verdict {
        grade,
        client: node.label(),
        failing_client,
        consensus_client: node.consensus_name(),
        findings,
        drives,
        database_version: db.version.clone(),
    }
}

/// The failure that matters most: the most severe, and the first found at that severity
/// (size before free space before speed), whose threshold was already the most demanding.
fn most_demanding_failure(failures: &[ClientFailure]) -> Option<String> {
    let worst = failures.iter().map(|f| f.severity).max()?;
    failures
        .iter()
        .find(|f| f.severity == worst)
        .map(|f| f.client.clone())
}

fn drive_verdict(
    drive: &probe::Drive,
    identity: &DriveIdentity<'_>,
    findings: &[Finding],
) -> DriveVerdict {
    let worst = findings
        .iter()
        .filter(|f| f.subject.as_deref() == Some(drive.name.as_str()))
        .map(|f| f.severity)
        .max();
    let grade = match worst {
        Some(Severity::Critical) => Grade::Bad,
        Some(Severity::Warning) => Grade::Ugly,
        _ => identity.grade,
    };
    DriveVerdict {
        name: drive.name.clone(),
        model: drive.model.clone(),
        firmware: drive.firmware.clone(),
        grade,
        entry: identity
            .entry
            .map(|e| EntrySummary::of(e, identity.nand, identity.dram)),
        class: identity.class.clone(),
    }
}

/// Any critical finding makes the verdict bad, any warning ugly; otherwise it is good only
/// when something positively says so: every drive known good, or a measurement.
fn fold_grade(findings: &[Finding], drives: &[DriveVerdict], bench_fast: bool) -> Grade {
    match findings.iter().map(|f| f.severity).max() {
        Some(Severity::Critical) => Grade::Bad,
        Some(Severity::Warning) => Grade::Ugly,
        _ => {
            let all_known_good =
                !drives.is_empty() && drives.iter().all(|d| d.grade == Grade::Good);
            if all_known_good || bench_fast {
                Grade::Good
            } else {
                Grade::Unknown
            }
        }
    }
}
