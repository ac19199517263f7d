//! The TOML files that are more than one public type: the clients file, its execution clients,
//! consensus clients and sizing advice side by side, and a contributor's result block. Every
//! table denies unknown keys so that a typo fails loudly instead of being ignored.

use serde::Deserialize;

use super::{ClientNeeds, ConsensusNeeds, CrowdResult, Sizing, Source};

/// A contributor's result block as `nodecheck submit` prints it: one or more
/// `[[drives.results]]` tables with nothing else around them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResultBlockFile {
    pub drives: ResultBlockDrives,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResultBlockDrives {
    pub results: Vec<CrowdResult>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClientsFile {
    pub schema_version: u32,
    #[serde(default)]
    pub sources: Vec<Source>,
    pub clients: Vec<ClientNeeds>,
    #[serde(default)]
    pub consensus: Vec<ConsensusNeeds>,
    pub sizing: Option<Sizing>,
}
