//! What every check reads: the probe's facts, the bench report, the database with its
//! thresholds, the clients whose needs apply and who each drive is. Built once per verdict.

use ::bench::BenchReport;
use probe::Facts;

use crate::behaviour_thresholds::BehaviourThresholds;
use crate::clients::{ClientNeeds, ConsensusNeeds};
use crate::database::Database;
use crate::node::{ClientChoice, NodeChoice};

use super::identity::{self, DriveIdentity};
use super::Clients;

/// A client name the user gave that the database does not know (NC509).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownName {
    Consensus(String),
    Execution(String),
}

/// The node's clients resolved against the database. The context borrows the paired needs,
/// so they are resolved before it is built.
#[derive(Debug)]
pub struct NodeClients<'a> {
    /// Each execution client's needs with the consensus client's on the same disk.
    paired: Vec<ClientNeeds>,
    consensus: Option<&'a ConsensusNeeds>,
    /// The named execution client's place in `paired`; `None` applies the strictest needs.
    named: Option<usize>,
    unknown: Vec<UnknownName>,
}

impl<'a> NodeClients<'a> {
    pub fn resolve(db: &'a Database, choice: &NodeChoice) -> NodeClients<'a> {
        let mut unknown = Vec::new();
        let consensus =
            choice
                .consensus
                .as_deref()
                .and_then(|name| match db.consensus_client(name) {
                    Some(needs) => Some(needs),
                    None => {
                        unknown.push(UnknownName::Consensus(name.to_owned()));
                        None
                    }
                });
        let paired: Vec<ClientNeeds> = match consensus {
            Some(cl) => db
                .clients
                .execution
                .iter()
                .map(|c| c.paired_with(cl, choice.consensus_mode))
                .collect(),
            None => db.clients.execution.clone(),
        };
        let named = match &choice.client {
            ClientChoice::Strictest => None,
            ClientChoice::Named(name) => {
                let found = paired
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(name.trim()));
                if found.is_none() {
                    unknown.push(UnknownName::Execution(name.clone()));
                }
                found
            }
        };
        NodeClients {
            paired,
            consensus,
            named,
            unknown,
        }
    }

    /// The client whose needs were applied, or `strictest`.
    pub fn label(&self) -> String {
        match self.named {
            Some(i) => self.paired[i].name.clone(),
            None => "strictest".to_owned(),
        }
    }

    /// The consensus client counted on the same disk.
    pub fn consensus_name(&self) -> Option<String> {
        self.consensus.map(|c| c.name.clone())
    }
}

/// The inputs of every check.
pub struct Context<'a> {
    pub facts: &'a Facts,
    pub bench: Option<&'a BenchReport>,
    pub db: &'a Database,
    pub thresholds: &'a BehaviourThresholds,
    pub clients: Clients<'a>,
    /// Who each drive of `facts.drives` is, in the same order.
    pub identities: Vec<DriveIdentity<'a>>,
    /// Client names the database does not know.
    pub unknown_names: &'a [UnknownName],
}

impl<'a> Context<'a> {
    pub fn new(
        facts: &'a Facts,
        bench: Option<&'a BenchReport>,
        db: &'a Database,
        choice: &NodeChoice,
        node: &'a NodeClients<'a>,
    ) -> Context<'a> {
        let needs = match node.named {
            Some(i) => vec![&node.paired[i]],
            None => node.paired.iter().collect(),
        };
        let clients = Clients {
            needs,
            strictest: node.named.is_none(),
            consensus: node.consensus,
            consensus_known: &db.clients.consensus,
            sizing: db.clients.sizing.as_ref(),
            history: choice.history,
            consensus_mode: choice.consensus_mode,
        };
        Context {
            facts,
            bench,
            db,
            thresholds: &db.thresholds,
            clients,
            identities: identity::identities(facts, db),
            unknown_names: &node.unknown,
        }
    }
}
