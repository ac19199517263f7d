//! What the judge answers: the verdict, each drive's verdict and the summaries of the
//! database entry or class a drive was judged by. The identity check fills in the class
//! summary; the judge assembles the rest.

use serde::{Deserialize, Serialize};

use crate::database::{Classification, Dram, DriveEntry, Nand};
use crate::model::{Finding, Grade};

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
    /// The drive's verdict on this machine: the database's grade made worse by any finding
    /// about this drive (failing SMART, a throttling link).
    pub grade: Grade,
    /// The database's grade for the model, firmware and capacity (what `db lookup` answers),
    /// or a generic rule's, whatever this machine does to the drive.
    #[serde(default = "unknown_grade")]
    pub database_grade: Grade,
    pub entry: Option<EntrySummary>,
    /// For a drive without an entry: the class its part number or the probe evidence implies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassSummary>,
}

fn unknown_grade() -> Grade {
    Grade::Unknown
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
    pub fn of(c: &Classification<'_>) -> ClassSummary {
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
    pub fn of(entry: &DriveEntry, nand: Option<Nand>, dram: Option<Dram>) -> EntrySummary {
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
