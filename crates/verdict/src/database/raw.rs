//! The TOML files exactly as written, before regexes are compiled and references checked.
//! Every table denies unknown keys so that a typo fails loudly instead of being ignored, and
//! ids and patterns keep their spans so errors can point at them. Optional keys are `Option`s,
//! which serde leaves `None` when the key is absent; lists need `#[serde(default)]`.

use serde::Deserialize;
use toml::Spanned;

use super::{Class, CrowdResult, Dram, EntryInterface, Nand, ProcessNames, TraitMatch};
use crate::model::{Grade, Severity};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DrivesFile {
    pub schema_version: Spanned<u32>,
    pub version: String,
    #[serde(default)]
    pub sources: Vec<SourceRaw>,
    #[serde(default)]
    pub benchmarks: Vec<BenchmarkRaw>,
    #[serde(default)]
    pub remarks: Vec<RemarkRaw>,
    #[serde(default)]
    pub generic: Vec<GenericRaw>,
    #[serde(default)]
    pub drives: Vec<DriveRaw>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceRaw {
    pub id: Spanned<String>,
    pub title: String,
    pub url: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BenchmarkRaw {
    pub id: Spanned<String>,
    pub description: String,
    pub command: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RemarkRaw {
    pub id: Spanned<String>,
    pub topic: String,
    pub text: String,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GenericRaw {
    pub id: Spanned<String>,
    pub when: TraitMatch,
    pub grade: Grade,
    pub notes: String,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DriveRaw {
    pub id: Spanned<String>,
    pub vendor: String,
    pub family: String,
    pub interface: EntryInterface,
    pub form_factor: Option<String>,
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    pub class: Class,
    pub grade: Grade,
    #[serde(default)]
    pub derived: bool,
    pub notes: String,
    pub sources: Vec<String>,
    #[serde(default)]
    pub models: Vec<Spanned<String>>,
    pub unmatchable: Option<String>,
    #[serde(default)]
    pub examples: Vec<String>,
    #[serde(default)]
    pub firmware: Vec<FirmwareRaw>,
    #[serde(default)]
    pub capacity: Vec<CapacityRaw>,
    #[serde(default)]
    pub advisories: Vec<AdvisoryRaw>,
    #[serde(default)]
    pub smart_attributes: Vec<SmartAttributeRaw>,
    #[serde(default)]
    pub results: Vec<CrowdResult>,
    pub platform: Option<PlatformRaw>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FirmwareRaw {
    pub id: Spanned<String>,
    #[serde(rename = "match")]
    pub pattern: Spanned<String>,
    pub grade: Option<Grade>,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CapacityRaw {
    pub id: Spanned<String>,
    pub min_bytes: Option<u64>,
    pub max_bytes: Option<u64>,
    pub grade: Option<Grade>,
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdvisoryRaw {
    pub id: Spanned<String>,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SmartAttributeRaw {
    pub id: Spanned<String>,
    pub attribute: Spanned<u8>,
    pub name: String,
    pub benign_raw_max: u64,
    pub text: String,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlatformRaw {
    pub cloud: Option<String>,
    pub sys_vendor: Option<Spanned<String>>,
    pub product_name: Option<Spanned<String>>,
    pub bios_version: Option<Spanned<String>>,
}

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
    pub schema_version: Spanned<u32>,
    #[serde(default)]
    pub sources: Vec<SourceRaw>,
    pub clients: Vec<ClientRaw>,
    #[serde(default)]
    pub consensus: Vec<ConsensusRaw>,
    pub sizing: Option<SizingRaw>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConsensusRaw {
    pub name: Spanned<String>,
    pub display: String,
    pub database_bytes: u64,
    pub node_disk_bytes: Option<u64>,
    pub notes: String,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SizingRaw {
    pub conservative_disk_bytes: u64,
    pub text: String,
    pub sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClientRaw {
    pub name: Spanned<String>,
    pub display: String,
    pub min_disk_bytes: u64,
    pub recommended_disk_bytes: u64,
    pub min_free_bytes: u64,
    pub min_read_iops: Option<u32>,
    pub min_write_iops: Option<u32>,
    pub max_qd1_read_p99_us: Option<f64>,
    pub notes: String,
    pub sources: Vec<String>,
    pub process: Spanned<ProcessNames>,
}
