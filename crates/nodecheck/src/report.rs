//! The one document every output format renders: probe facts, bench results and the verdict.
//!
//! `nodecheck check --json` prints it as is; `triage` reads it back, so it stays
//! deserializable across versions (new fields get `#[serde(default)]`).

use bench::BenchReport;
use probe::Facts;
use serde::{Deserialize, Serialize};
use verdict::Verdict;
use verdict::{Finding, Grade, Severity};

use crate::config::Clients;

/// Version of the report document. Bumped when a field is renamed or re-typed.
/// 2: `drives[].grade` became `drives[].verdict` (the drive's verdict on this machine) beside
/// the new `drives[].database_grade` (the database's grade of the model); schema 1 documents
/// are still read, their `grade` as the verdict.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub nodecheck_version: String,
    /// Version of the drive database the verdict used.
    pub database_version: String,
    /// The overall verdict.
    pub grade: Grade,
    /// The verdict in one sentence (the last line of the table output).
    pub summary: String,
    #[serde(default)]
    pub client: ClientNote,
    /// Ordered by severity, worst first, then by code.
    pub findings: Vec<Finding>,
    /// Each drive's two grades: the database's grade of its model and its verdict here.
    #[serde(default)]
    pub drives: Vec<DriveGrade>,
    /// How the path was chosen when the user gave none.
    #[serde(default)]
    pub datadir: Option<DatadirNote>,
    /// Things the reader must know about this run (not root, replayed snapshot, bench skipped).
    #[serde(default)]
    pub notes: Vec<String>,
    pub facts: probe::Facts,
    #[serde(default)]
    pub bench: Option<bench::BenchReport>,
    /// The SVG plot of the behaviour tests that `check --plot` wrote, as given on the command
    /// line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plot: Option<String>,
    /// What the facts were read from when not this machine now: the snapshot archive, the
    /// replayed tree or the file `triage` judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// Which client's needs the verdict applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientNote {
    /// The client whose needs applied: asked for with `--client`, or the one whose datadir
    /// was detected (`detected`); `None` means every client's.
    pub requested: Option<String>,
    /// True when `requested` is the client of the auto-detected datadir.
    #[serde(default)]
    pub detected: bool,
    /// The history mode asked for with `--history`; `None`: each client's own default.
    #[serde(default)]
    pub history: Option<String>,
    /// `supernode` when the consensus client keeps every blob column.
    #[serde(default)]
    pub consensus_mode: Option<String>,
    /// Whose needs applied, in words, as every format says it (the summary ends with it).
    #[serde(default)]
    pub story: String,
    /// With no `--client`: the client whose needs this storage misses first, if any.
    pub fails_first: Option<String>,
    /// The consensus client named with `--cl`, whose database was counted on the same disk.
    #[serde(default)]
    pub consensus: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriveGrade {
    pub drive: String,
    pub model: Option<String>,
    /// The database's grade of the model, firmware and capacity (what `nodecheck db lookup`
    /// answers, or a generic rule's): the same on every machine.
    #[serde(default = "unknown_grade")]
    pub database_grade: Grade,
    /// The drive's verdict on this machine: the database's grade made worse by what was found
    /// about this drive here (failing SMART, a throttled link). Schema 1 called it `grade`;
    /// `triage` reads that name until schema 3.
    #[serde(alias = "grade")]
    pub verdict: Grade,
    /// The database entry's family name when the model matched one.
    pub family: Option<String>,
    /// For a drive without an entry: the class its part number or the probe's evidence gives it
    /// (`data/classes.toml`), with that evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<verdict::ClassSummary>,
}

fn unknown_grade() -> Grade {
    Grade::Unknown
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatadirNote {
    pub path: String,
    /// True when nodecheck found it rather than being told.
    pub detected: bool,
    pub client: Option<String>,
    /// Other client datadirs that exist on the machine.
    #[serde(default)]
    pub others: Vec<String>,
}

/// Worst first, then by code, so the reader meets what matters first and the order is stable.
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.code.cmp(&b.code))
            .then_with(|| a.subject.cmp(&b.subject))
    });
}

/// The verdict line: `BAD: <worst finding> (and N more problems)`.
pub fn summarize(grade: Grade, findings: &[Finding]) -> String {
    let problems: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning)
        .collect();
    let word = grade_word(grade);
    match (grade, problems.split_first()) {
        (_, Some((worst, rest))) => {
            let more = match rest.len() {
                0 => String::new(),
                1 => " (and 1 more problem)".to_string(),
                n => format!(" (and {n} more problems)"),
            };
            format!("{word}: {}{more}", worst.title)
        }
        (Grade::Good, None) => format!("{word}: this storage is fit for an Ethereum node"),
        (Grade::Unknown, None) => format!(
            "{word}: nothing wrong was found, but the drive could not be identified as good; measure it with `nodecheck check --bench full`"
        ),
        (_, None) => format!("{word}: see the findings above"),
    }
}

pub fn grade_word(grade: Grade) -> &'static str {
    match grade {
        Grade::Good => "GOOD",
        Grade::Unknown => "UNKNOWN",
        Grade::Ugly => "UGLY",
        Grade::Bad => "BAD",
    }
}

/// Number of the grade for metrics: ordered like [`Grade`]'s `Ord` (worse is higher).
pub fn grade_number(grade: Grade) -> u8 {
    match grade {
        Grade::Good => 0,
        Grade::Unknown => 1,
        Grade::Ugly => 2,
        Grade::Bad => 3,
    }
}

/// The exit code for a verdict. `unknown` is "could not tell", which scripts must not take for
/// good; it shares `ugly`'s code because it is a warning, not a failure to run.
pub fn exit_code(grade: Grade) -> u8 {
    match grade {
        Grade::Good => crate::exit_codes::GOOD,
        Grade::Unknown | Grade::Ugly => crate::exit_codes::UGLY,
        Grade::Bad => crate::exit_codes::BAD,
    }
}

/// Whose needs the verdict applied, in one phrase every format shows: "needs of Geth (its
/// datadir was detected) with Lighthouse", "needs of every client; Reth runs out first".
fn client_story(clients: &Clients, detected: bool, verdict: &Verdict) -> String {
    let display = |id: &str| {
        verdict::ClientCatalog::embedded()
            .execution
            .iter()
            .find(|c| c.name == id)
            .map_or_else(|| id.to_owned(), |c| c.display.clone())
    };
    let mut story = match clients.execution {
        Some(client) if detected => format!(
            "needs of {} (its datadir was detected)",
            display(client.id())
        ),
        Some(client) => format!("needs of {}", display(client.id())),
        None => "needs of every client (none named or detected)".to_owned(),
    };
    if let Some(history) = clients.history {
        story.push_str(&format!(" ({})", history.describe()));
    }
    if let Some(cl) = &verdict.consensus_client {
        let cl = verdict::ClientCatalog::embedded()
            .consensus
            .iter()
            .find(|c| &c.name == cl)
            .map_or_else(|| cl.clone(), |c| c.display.clone());
        story.push_str(&format!(" with {cl}"));
        if clients.consensus_mode == verdict::ConsensusMode::Supernode {
            story.push_str(" as a supernode");
        }
    }
    if let Some(first) = &verdict.failing_client {
        story.push_str(&format!("; {} fails first", display(first)));
    }
    story
}

/// NC510 counts the clients nobody named (every execution client, the largest consensus
/// allowance, each client's default history mode) and says so; the library names no option,
/// so the options that name them are added here. `check` and `triage`, the two commands that
/// print a report, both take them.
fn name_the_client_options(findings: &mut [Finding], clients: &Clients, consensus_named: bool) {
    let unnamed: Vec<&str> = [
        (clients.execution.is_none(), "--client NAME"),
        (!consensus_named, "--cl NAME"),
        (clients.history.is_none(), "--history MODE"),
    ]
    .into_iter()
    .filter_map(|(unnamed, option)| unnamed.then_some(option))
    .collect();
    if unnamed.is_empty() {
        return;
    }
    let options = unnamed.join(" ");
    for finding in findings
        .iter_mut()
        .filter(|f| f.code == verdict::Code::Size)
    {
        // In the fix, which no format cuts (a long detail is clipped); a passed size check
        // has no fix, and the detail is short then.
        match &mut finding.fix {
            Some(fix) => fix.push_str(&format!(
                ". To judge only your node's clients, name them: `{options}`"
            )),
            None => finding.detail.push_str(&format!(
                " To judge only your node's clients, name them: `{options}`."
            )),
        }
    }
}

/// The report of a judged machine: the verdict's findings sorted worst first, a grade per
/// drive, and what the command adds (the datadir it chose, notes).
pub fn build(
    facts: Facts,
    bench: Option<BenchReport>,
    verdict: Verdict,
    datadir: Option<DatadirNote>,
    notes: Vec<String>,
    clients: Clients,
) -> Report {
    let detected = match (&datadir, clients.execution) {
        (Some(note), Some(client)) => note.detected && note.client.as_deref() == Some(client.id()),
        _ => false,
    };
    let story = client_story(&clients, detected, &verdict);
    let mut findings = verdict.findings;
    name_the_client_options(&mut findings, &clients, verdict.consensus_client.is_some());
    sort_findings(&mut findings);
    let drives = verdict
        .drives
        .iter()
        .map(|d| DriveGrade {
            drive: d.name.clone(),
            model: d.model.clone(),
            database_grade: d.database_grade,
            verdict: d.grade,
            family: d.entry.as_ref().map(|e| e.family.clone()),
            class: d.class.clone(),
        })
        .collect();
    Report {
        schema_version: SCHEMA_VERSION,
        nodecheck_version: env!("CARGO_PKG_VERSION").to_string(),
        database_version: verdict.database_version,
        summary: format!("{} [{story}]", summarize(verdict.grade, &findings)),
        grade: verdict.grade,
        client: ClientNote {
            requested: clients.execution.map(|c| c.id().to_string()),
            detected,
            history: clients.history.map(|h| h.as_str().to_owned()),
            consensus_mode: (clients.consensus_mode != verdict::ConsensusMode::Default)
                .then(|| clients.consensus_mode.as_str().to_owned()),
            story,
            fails_first: verdict.failing_client,
            consensus: verdict.consensus_client,
        },
        findings,
        drives,
        datadir,
        notes,
        facts,
        bench,
        plot: None,
        source: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(code: &str, severity: Severity, title: &str) -> Finding {
        Finding {
            code: code.parse().expect("a finding code"),
            severity,
            title: title.into(),
            detail: String::new(),
            fix: None,
            subject: None,
        }
    }

    #[test]
    fn worst_first_then_code() {
        let mut f = vec![
            finding("NC501", Severity::Info, "a"),
            finding("NC301", Severity::Critical, "b"),
            finding("NC101", Severity::Ok, "c"),
            finding("NC201", Severity::Critical, "d"),
        ];
        sort_findings(&mut f);
        let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["NC201", "NC301", "NC501", "NC101"]);
    }

    #[test]
    fn summary_names_the_worst_problem() {
        let f = vec![
            finding("NC101", Severity::Critical, "QLC and DRAM-less"),
            finding("NC501", Severity::Warning, "atime on"),
        ];
        assert_eq!(
            summarize(Grade::Bad, &f),
            "BAD: QLC and DRAM-less (and 1 more problem)"
        );
        assert!(summarize(Grade::Good, &[]).starts_with("GOOD: "));
    }

    #[test]
    fn exit_codes_follow_the_grade() {
        assert_eq!(exit_code(Grade::Good), 0);
        assert_eq!(exit_code(Grade::Ugly), 1);
        assert_eq!(exit_code(Grade::Unknown), 1);
        assert_eq!(exit_code(Grade::Bad), 2);
    }
}
