//! Whose needs a verdict applies (`--client`, `--cl`, `--history`, `--cl-mode`), shared by
//! `check` and `triage`: client names of the embedded catalog in any case, with a hint when a
//! name of the other kind of client is given.

use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};
use verdict::ClientCatalog;

use crate::config::{ClientName, Clients, ConsensusName};

/// `--client` values: the execution clients of `data/clients.toml` in any case (`Geth`), so
/// `--help` and the error for an unknown name list exactly the clients the judge knows; a
/// consensus client's name says to use `--cl`.
fn execution_client() -> CatalogNameParser<ClientName> {
    CatalogNameParser {
        names: ClientCatalog::embedded().execution_names().collect(),
        other: ClientCatalog::embedded().consensus_names().collect(),
        other_hint: "is a consensus client: name it with --cl",
        lookup: ClientName::named,
    }
}

/// `--cl` values: the consensus clients of `data/clients.toml`, in any case; an execution
/// client's name says to use `--client`.
fn consensus_client() -> CatalogNameParser<ConsensusName> {
    CatalogNameParser {
        names: ClientCatalog::embedded().consensus_names().collect(),
        other: ClientCatalog::embedded().execution_names().collect(),
        other_hint: "is an execution client: name it with --client",
        lookup: ConsensusName::named,
    }
}

/// Parses a client name of the catalog case-insensitively and lists the names for `--help`
/// and completions.
#[derive(Clone)]
struct CatalogNameParser<T> {
    names: Vec<&'static str>,
    /// The names of the other kind of client, for a hint instead of "unknown".
    other: Vec<&'static str>,
    other_hint: &'static str,
    lookup: fn(&str) -> Option<T>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for CatalogNameParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let flag = arg.map_or_else(|| "the client".to_owned(), |a| a.to_string());
        let text = value.to_string_lossy();
        let lower = text.trim().to_ascii_lowercase();
        if let Some(client) = (self.lookup)(&lower) {
            return Ok(client);
        }
        let shown = units::text::clip(&crate::render::printable(&text), 40);
        let message = if self.other.contains(&lower.as_str()) {
            format!("`{shown}` {} ", self.other_hint)
        } else {
            format!(
                "invalid value `{shown}` for {flag}: known clients are {} ",
                self.names.join(", ")
            )
        };
        Err(clap::Error::raw(
            clap::error::ErrorKind::InvalidValue,
            message.trim_end().to_owned() + "\n",
        )
        .with_cmd(cmd))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.names
                .iter()
                .map(|n| clap::builder::PossibleValue::new(*n)),
        ))
    }
}

/// `--history`: how much of the chain's history the execution client keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HistoryArg {
    /// Every historical state as well as every block (an archive node).
    Archive,
    /// Every block and receipt since genesis (most clients' default).
    Full,
    /// Blocks since the merge only: pre-merge history expired (about half the size).
    #[value(alias = "pruned")]
    PostMerge,
}

impl From<HistoryArg> for verdict::HistoryMode {
    fn from(arg: HistoryArg) -> Self {
        match arg {
            HistoryArg::Archive => verdict::HistoryMode::Archive,
            HistoryArg::Full => verdict::HistoryMode::Full,
            HistoryArg::PostMerge => verdict::HistoryMode::PostMerge,
        }
    }
}

/// `--cl-mode`: what the consensus client keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConsensusModeArg {
    /// Pruned beacon database, the blobs a node with a few validators keeps.
    Default,
    /// Custody of every blob column: hundreds of GB more.
    Supernode,
}

impl From<ConsensusModeArg> for verdict::ConsensusMode {
    fn from(arg: ConsensusModeArg) -> Self {
        match arg {
            ConsensusModeArg::Default => verdict::ConsensusMode::Default,
            ConsensusModeArg::Supernode => verdict::ConsensusMode::Supernode,
        }
    }
}

/// Whose needs a verdict applies, shared by `check` and `triage`.
#[derive(Debug, Args)]
pub struct ClientArgs {
    /// Judge against this client's size and speed needs, in any case (default: the client
    /// whose datadir was detected, else every client, naming the one that runs out first).
    #[arg(long, value_parser = execution_client())]
    pub client: Option<ClientName>,
    /// The consensus client on the same disk: its database counts toward the size and free
    /// space the node needs (default: the largest consensus allowance is counted).
    #[arg(long, value_parser = consensus_client(), value_name = "CLIENT")]
    pub cl: Option<ConsensusName>,
    /// The execution client's history mode, for the size projection (default: the client's
    /// own default, which the size finding names; Reth's is an archive node).
    #[arg(long, value_enum, value_name = "MODE")]
    pub history: Option<HistoryArg>,
    /// The consensus client's mode: `supernode` custodies every blob column (hundreds of GB).
    #[arg(long, value_enum, value_name = "MODE", default_value = "default")]
    pub cl_mode: ConsensusModeArg,
}

impl ClientArgs {
    pub(super) fn into_clients(self) -> Clients {
        Clients {
            execution: self.client,
            consensus: self.cl,
            history: self.history.map(Into::into),
            consensus_mode: self.cl_mode.into(),
        }
    }
}
