//! What the user says the node runs: whose needs the verdict applies, the consensus client on
//! the same disk and how each keeps its data. The judge's input beside facts, bench and
//! database.

use serde::{Deserialize, Serialize};

use crate::clients::{ConsensusMode, HistoryMode};

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
