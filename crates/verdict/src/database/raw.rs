//! The tables of the TOML files that hold more than a public type: the clients file, whose
//! execution clients carry the process names kept apart in [`ClientCatalog::processes`], and a
//! contributor's result block. Every table denies unknown keys so that a typo fails loudly
//! instead of being ignored.
//!
//! [`ClientCatalog::processes`]: crate::clients::ClientCatalog::processes

use serde::Deserialize;

use super::{ConsensusNeeds, CrowdResult, ProcessNames, Sizing, Source};

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
    pub clients: Vec<ClientRaw>,
    #[serde(default)]
    pub consensus: Vec<ConsensusNeeds>,
    pub sizing: Option<Sizing>,
}

/// An execution client as written: its needs and how its process is recognised.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClientRaw {
    pub name: String,
    pub display: String,
    pub min_disk_bytes: u64,
    pub recommended_disk_bytes: u64,
    pub min_free_bytes: u64,
    pub min_read_iops: Option<u32>,
    pub min_write_iops: Option<u32>,
    pub max_qd1_read_p99_us: Option<f64>,
    pub notes: String,
    pub sources: Vec<String>,
    pub process: ProcessNames,
}
