//! The judge: runs every check over probe facts, bench results and the database, and folds
//! the findings into one verdict. Pure: no I/O and no terminal formatting.

use serde::{Deserialize, Serialize};

use crate::behaviour_thresholds::BehaviourThresholds;
use crate::clients::{ClientNeeds, ConsensusMode, HistoryMode};
use crate::code::Code;
use crate::database::Database;
use crate::findings::{self, identity::DriveIdentity, ClientFailure, Clients};
use crate::model::{Finding, Grade, Severity};

/// Whose needs the verdict applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientChoice {
    /// Every client's needs; the verdict names the most demanding client that fails.
    Strictest,
    /// One client by its database name (`geth`, `nethermind`, `besu`, `erigon`, `reth`).
    Named(String),
}

/// Whose needs the verdict applies and how the node keeps its data: the execution client,
/// the consensus client on the same disk (its `--cl` name), the history mode (`None`: each
/// client's own default) and the consensus client's mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChoice {
    pub client: ClientChoice,
    pub consensus: Option<String>,
    pub history: Option<HistoryMode>,
    pub consensus_mode: ConsensusMode,
}

impl NodeChoice {
    /// `client` with the consensus client `consensus`, each in its default mode.
    pub fn new(client: ClientChoice, consensus: Option<&str>) -> NodeChoice {
        NodeChoice {
            client,
            consensus: consensus.map(str::to_owned),
            history: None,
            consensus_mode: ConsensusMode::Default,
        }
    }
}

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
    let client = &choice.client;
    let consensus = choice.consensus.as_deref();
    let mut findings: Vec<Finding> = Vec::new();

    let consensus = match consensus {
        None => None,
        Some(name) => match db.consensus_client(name) {
            Some(needs) => Some(needs),
            None => {
                findings.push(unknown_client(
                    &format!("consensus client called \"{name}\""),
                    db.consensus.iter().map(|c| c.name.as_str()),
                    "its database was not counted",
                    "Name one of",
                ));
                None
            }
        },
    };
    // Each execution client's needs with the consensus client's on the same disk.
    let paired: Vec<ClientNeeds> = match consensus {
        Some(cl) => db
            .clients
            .iter()
            .map(|c| c.paired_with(cl, choice.consensus_mode))
            .collect(),
        None => db.clients.clone(),
    };
    let named = |strictest: bool, needs| clients_of(needs, strictest, consensus, db, choice);
    let strictest = || named(true, paired.iter().collect());

    let (clients, client_label) = match client {
        ClientChoice::Strictest => (strictest(), "strictest".to_owned()),
        ClientChoice::Named(name) => match paired
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name.trim()))
        {
            Some(needs) => (named(false, vec![needs]), needs.name.clone()),
            None => {
                findings.push(unknown_client(
                    &format!("client called \"{name}\""),
                    db.clients.iter().map(|c| c.name.as_str()),
                    "judged against the strictest needs instead",
                    "Name one of the known clients",
                ));
                (strictest(), "strictest".to_owned())
            }
        },
    };

    let mut failures: Vec<ClientFailure> = Vec::new();
    let (identity_findings, identities) = findings::identity::check(facts, db);
    findings.extend(identity_findings);
    findings.extend(findings::health::check(facts, &identities));
    findings.extend(findings::during_run::check(facts, bench));
    findings.extend(findings::trim::check(facts, db));
    findings.extend(findings::crypt::check(facts));
    findings.extend(findings::controller::check(facts));
    findings.extend(findings::power::check(facts));
    findings.extend(findings::mount::check(facts));
    findings.extend(findings::capacity::check(facts, &clients, &mut failures));
    findings.extend(findings::platform::check(
        facts,
        db,
        findings::platform::Measured::of(bench),
    ));
    findings.extend(findings::virtual_disks::check(facts, bench));
    findings.extend(findings::zfs::check(facts, bench.is_some()));
    let mut bench_fast = false;
    if let Some(report) = bench {
        let mut outcome = findings::bench::check(report, &clients, &mut failures);
        bench_fast = outcome.fast;
        let share = facts.mount.as_ref().and_then(|m| m.network.as_ref());
        if let (Some(share), Some(qd1)) = (share, report.qd1.as_ref()) {
            let note = findings::network::latency_note(share, qd1.lat_us.p50);
            if let (Some(note), Some(latency)) = (
                note,
                outcome
                    .findings
                    .iter_mut()
                    .find(|f| f.code == Code::Qd1Latency),
            ) {
                latency.detail.push_str(&note);
            }
        }
        findings.extend(outcome.findings);
        findings.extend(findings::caches::check(facts, report));
        // The bench measured the path, so an entry is comparable only when one drive is under it.
        let listed = match (facts.drives.as_slice(), identities.as_slice()) {
            ([drive], [identity]) => identity.entry.and(drive.model.as_deref()).map(|model| {
                findings::behaviour::ListedAs {
                    model,
                    grade: identity.grade,
                }
            }),
            _ => None,
        };
        let behaviour =
            findings::behaviour::check(report, &BehaviourThresholds::embedded(), listed);
        // Passing behaviour tests (sync with its write bursts, span) vouch for a drive no list
        // knows; the behaviour module owns what "passing" means.
        if findings::behaviour::proves_fit(report, &behaviour) {
            bench_fast = true;
        }
        findings.extend(behaviour);
        bench_fast &= !findings::caches::answered_by_cache(facts, report);
    }
    let (_, root_finding) = findings::identity::needs_root(facts);
    findings.extend(root_finding);

    // Stable: within a severity the order is the order the checks ran in.
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));

    let drives: Vec<DriveVerdict> = facts
        .drives
        .iter()
        .zip(&identities)
        .map(|(drive, identity)| drive_verdict(drive, identity, &findings))
        .collect();

    let grade = fold_grade(&findings, &drives, bench_fast);
    let failing_client = if clients.strictest {
        most_demanding_failure(&failures)
    } else {
        None
    };

    Verdict {
        grade,
        client: client_label,
        failing_client,
        consensus_client: consensus.map(|c| c.name.clone()),
        findings,
        drives,
        database_version: db.version.clone(),
    }
}

/// NC509: a client name the database does not know, what was done instead, and the names
/// it does know. The command line only passes known names; a library caller may not.
fn unknown_client<'a>(
    what: &str,
    known: impl Iterator<Item = &'a str>,
    instead: &str,
    fix: &str,
) -> Finding {
    let known = known.collect::<Vec<_>>().join(", ");
    Finding::new(
        Code::UnknownClient,
        Severity::Warning,
        "Unknown client",
        format!("No {what} in the database (known: {known}); {instead}."),
    )
    .with_fix(format!("{fix}: {known}"))
}

fn clients_of<'a>(
    needs: Vec<&'a ClientNeeds>,
    strictest: bool,
    consensus: Option<&'a crate::clients::ConsensusNeeds>,
    db: &'a Database,
    choice: &NodeChoice,
) -> Clients<'a> {
    Clients {
        needs,
        strictest,
        consensus,
        consensus_known: &db.consensus,
        sizing: db.sizing.as_ref(),
        history: choice.history,
        consensus_mode: choice.consensus_mode,
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
