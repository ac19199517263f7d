//! The judge: runs every check over probe facts, bench results and the database, and folds
//! the findings into one verdict. Pure: no I/O and no terminal formatting.

use crate::database::Database;
use crate::findings::context::{Context, NodeClients};
use crate::findings::{self, identity::DriveIdentity, ClientFailure, Fit};
use crate::model::{Finding, Grade, Severity};
use crate::output::{DriveVerdict, EntrySummary, Verdict};

pub use crate::node::{ClientChoice, NodeChoice};

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
    let node = NodeClients::resolve(db, choice);
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
        database_grade: identity.grade,
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
