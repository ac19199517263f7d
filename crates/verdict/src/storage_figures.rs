//! The dated size figures of `data/clients.toml`: what a client's database takes in each
//! history mode (execution clients) or storage mode (consensus clients), how fast it grows,
//! and the date that says how old the figure is.

use serde::{Deserialize, Serialize};

/// How much of the chain's history an execution client keeps.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum HistoryMode {
    /// Every historical state as well as every block since genesis.
    Archive,
    /// Every block and receipt since genesis, the current state only.
    Full,
    /// Blocks and receipts since the merge only (pre-merge history expired).
    PostMerge,
}

impl HistoryMode {
    /// The `--history` value and data-file name: `archive`, `full`, `post-merge`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The mode in words, for findings: `archive node`, `full history`, `post-merge history`.
    pub fn describe(self) -> &'static str {
        match self {
            HistoryMode::Archive => "archive node",
            HistoryMode::Full => "full history",
            HistoryMode::PostMerge => "post-merge history",
        }
    }

    /// What follows a client's name: "Reth as an archive node", "Geth with full history".
    pub fn after_client(self) -> &'static str {
        match self {
            HistoryMode::Archive => "as an archive node",
            HistoryMode::Full => "with full history",
            HistoryMode::PostMerge => "with post-merge history (pre-merge history expired)",
        }
    }
}

/// What a consensus client keeps beyond its pruned beacon database.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ConsensusMode {
    /// Historic states pruned, the blob sidecars a node with a few validators custodies.
    #[default]
    Default,
    /// Custody of every blob column (a supernode): hundreds of GB of blob sidecars.
    Supernode,
}

impl ConsensusMode {
    /// The `--cl-mode` value and data-file name: `default`, `supernode`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A client's database in one mode: its size as measured or documented on `as_of`, and its
/// growth, each with the sources and the arithmetic (`how`) that gave them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageFigure<M> {
    pub mode: M,
    /// What the synced database takes on disk.
    pub disk_bytes: u64,
    /// How much it grows a month at today's gas limit (0: it does not grow with time).
    pub growth_bytes_per_month: u64,
    /// When the size was measured or published: `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    pub as_of: String,
    /// Where each figure comes from and any arithmetic done on it.
    pub how: String,
    pub sources: Vec<String>,
}

/// A figure's `as_of` as a year and month; a year alone counts as its January, so the
/// figure's age is never understated.
pub fn year_month(as_of: &str) -> Option<(u32, u32)> {
    let mut parts = as_of.split('-');
    let year: u32 = parts
        .next()?
        .parse()
        .ok()
        .filter(|y| (2015..=2100).contains(y))?;
    let month = match parts.next() {
        None => 1,
        Some(m) => m.parse().ok().filter(|m| (1..=12).contains(m))?,
    };
    if let Some(day) = parts.next() {
        day.parse::<u32>().ok().filter(|d| (1..=31).contains(d))?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some((year, month))
}
