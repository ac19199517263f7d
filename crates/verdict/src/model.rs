//! The verdict's own types: grades, severities, findings.

use serde::{Deserialize, Serialize};
use strum::{Display, IntoStaticStr};

use crate::code::Code;

/// How fit something is for an Ethereum node. Ordered from best to worst so that folding
/// findings is `max`; `Unknown` sorts between `Good` and `Ugly`: not known good, not known bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr, Display)]
#[strum(serialize_all = "snake_case")]
pub enum Grade {
    Good,
    Unknown,
    Ugly,
    Bad,
}

impl Grade {
    /// The snake_case name serde writes for it in JSON and TOML.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// How much a finding matters. `Critical` makes the verdict `bad`, `Warning` makes it `ugly`,
/// `Info` and `Ok` leave it alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr, Display)]
#[strum(serialize_all = "snake_case")]
pub enum Severity {
    /// A check that passed, shown so the reader sees it was made.
    Ok,
    Info,
    Warning,
    Critical,
}

impl Severity {
    /// The snake_case name serde writes for it in JSON and TOML.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One thing the verdict says, with the measured value and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable code, serialized as `"NC101"` and documented in `docs/findings.md`.
    pub code: Code,
    pub severity: Severity,
    pub title: String,
    /// What was seen, with the measured value.
    pub detail: String,
    /// The command to run or the setting to change; `None` when nothing can be done.
    pub fix: Option<String>,
    /// The drive or layer it is about (`nvme0n1`), when it is about one.
    pub subject: Option<String>,
}
