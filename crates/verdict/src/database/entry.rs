//! One drive family's entry in `data/drives.toml`, compiled: its model patterns, firmware and
//! capacity rules, advisories, SMART attribute quirks, crowd results and, for cloud volumes and
//! VPS products, the platform it is matched by.

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::{Class, Dram, EntryInterface, ModelForms, Nand};
use crate::model::{Grade, Severity};

/// One drive family (or one cloud volume type / VPS product line), read from the TOML as
/// written; the loader compiles its patterns.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveEntry {
    /// Stable, unique, kebab-case (`samsung-980-pro`).
    pub id: String,
    pub vendor: String,
    pub family: String,
    pub interface: EntryInterface,
    pub form_factor: Option<String>,
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    pub class: Class,
    /// The family's grade before capacity and firmware rules.
    pub grade: Grade,
    /// The list does not name this family: its grade applies the list's own rules (TLC with
    /// DRAM good, DRAM-less ugly, QLC and DRAM-less bad) to the NAND and DRAM its sources give.
    #[serde(default)]
    pub derived: bool,
    pub notes: String,
    pub sources: Vec<String>,
    /// Compiled whole-string, case-insensitive model regexes.
    #[serde(skip)]
    pub models: Vec<Regex>,
    /// The model patterns as written in the file (what `models` was compiled from).
    #[serde(rename = "models", default)]
    pub model_patterns: Vec<String>,
    /// Why the entry has no model regex (the drive reports nothing identifiable).
    pub unmatchable: Option<String>,
    /// Real model strings as drives report them; each must match this entry and no other.
    #[serde(default)]
    pub examples: Vec<String>,
    #[serde(default)]
    pub firmware: Vec<FirmwareRule>,
    #[serde(default)]
    pub capacity: Vec<CapacityRule>,
    /// Advisories that hold for every drive of the family.
    #[serde(default)]
    pub advisories: Vec<AdvisoryRule>,
    /// ATA SMART attributes this family's firmware uses its own way (drivedb's `-v` presets).
    #[serde(default)]
    pub smart_attributes: Vec<SmartAttributeQuirk>,
    #[serde(default)]
    pub results: Vec<CrowdResult>,
    pub platform: Option<PlatformMatch>,
}

impl DriveEntry {
    /// True when `model` (as reported, any padding) is one of this family's.
    pub fn matches_model(&self, model: &str) -> bool {
        self.matches_forms(&ModelForms::new(model))
    }

    /// True when one of the entry's patterns matches the reported or the canonical form.
    pub fn matches_forms(&self, forms: &ModelForms) -> bool {
        !forms.is_empty() && self.models.iter().any(|re| forms.matched_by(re))
    }
}

/// A firmware revision that changes the verdict on a family.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirmwareRule {
    /// Unique within the entry; the advisory code is `<entry id>/<rule id>`.
    pub id: String,
    /// Whole-string regex on the firmware revision, as written.
    #[serde(rename = "match")]
    pub pattern: String,
    /// `pattern` compiled by the loader, which refuses a file whose pattern does not compile;
    /// `None` only on a rule that did not come through the loader.
    #[serde(skip)]
    pub regex: Option<Regex>,
    /// Grade of the drive while it runs this firmware; `None` leaves the grade alone.
    pub grade: Option<Grade>,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

/// A capacity range of a family built differently (the 4TB model is QLC).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityRule {
    pub id: String,
    /// Inclusive lower bound in bytes.
    pub min_bytes: Option<u64>,
    /// Inclusive upper bound in bytes.
    pub max_bytes: Option<u64>,
    /// Grade of drives in this range; `None` leaves the grade alone.
    pub grade: Option<Grade>,
    /// NAND of drives in this range when it differs from the family's.
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

impl FirmwareRule {
    /// True when the compiled pattern matches the whole revision; a rule that was never
    /// compiled matches nothing.
    pub fn matches(&self, firmware: &str) -> bool {
        self.regex.as_ref().is_some_and(|re| re.is_match(firmware))
    }
}

impl CapacityRule {
    pub fn contains(&self, capacity_bytes: u64) -> bool {
        let above_min = match self.min_bytes {
            Some(min) => capacity_bytes >= min,
            None => true,
        };
        let below_max = match self.max_bytes {
            Some(max) => capacity_bytes <= max,
            None => true,
        };
        above_min && below_max
    }
}

/// The ATA SMART attributes the health checks read as bad-sector counts (reallocated,
/// current pending, offline uncorrectable): the only ones a quirk can change the reading of.
pub const BAD_SECTOR_ATTRIBUTES: [u8; 3] = [5, 197, 198];

/// How one family's firmware uses an ATA SMART attribute, as smartmontools' drivedb records it:
/// a raw value up to `benign_raw_max` on this attribute alone is not a sign of bad sectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmartAttributeQuirk {
    /// Unique within the entry; the finding cites `<entry id>/<rule id>`.
    pub id: String,
    /// ATA attribute id (one of [`BAD_SECTOR_ATTRIBUTES`]).
    pub attribute: u8,
    /// The attribute's name on this family (`Current_Pending_ECC_Cnt`).
    pub name: String,
    /// Highest raw value that, with every other bad-sector attribute at 0, means nothing.
    pub benign_raw_max: u64,
    /// Why, for the finding.
    pub text: String,
    pub sources: Vec<String>,
}

impl DriveEntry {
    /// The family's quirk for ATA attribute `attribute`, if it has one.
    pub fn smart_attribute(&self, attribute: u8) -> Option<&SmartAttributeQuirk> {
        self.smart_attributes
            .iter()
            .find(|q| q.attribute == attribute)
    }
}

/// An advisory that holds for every drive of a family.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdvisoryRule {
    pub id: String,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

/// A crowd-sourced benchmark result. The same table is what `nodecheck submit` prints, so a
/// contributor can paste it under the entry (see docs/database-schema.md). Read from the TOML
/// as written: every key but the figures and the benchmark is optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrowdResult {
    pub model: Option<String>,
    pub firmware: Option<String>,
    pub capacity_bytes: Option<u64>,
    pub interface: Option<EntryInterface>,
    pub read_iops: u32,
    pub write_iops: u32,
    pub qd1_read_p50_us: Option<f64>,
    pub qd1_read_p99_us: Option<f64>,
    pub qd1_read_p999_us: Option<f64>,
    pub engine: Option<String>,
    pub span_bytes: Option<u64>,
    pub nodecheck_version: Option<String>,
    pub date: Option<String>,
    /// Benchmark id (see `Database::benchmarks`).
    pub benchmark: String,
    /// Source id the figure comes from, when it was not submitted through nodecheck.
    pub source: Option<String>,
    pub note: Option<String>,
    /// What the result was measured through (required of results `nodecheck submit` made:
    /// a figure from a cache, a Gen3 slot or a throttled drive is marked as such).
    #[serde(default)]
    pub context: Option<ResultContext>,
}

/// The circumstances of a submitted result, as `nodecheck submit` records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultContext {
    /// The file system the test file was on (`ext4`, `xfs`, `zfs`).
    pub file_system: String,
    /// The storage stack from the mounted device down (`nvme0n1p1 nvme0n1`).
    pub stack: Vec<String>,
    /// The PCIe link as negotiated and its maximum (`16.0 GT/s x4 of 16.0 GT/s x4`); `none`
    /// for a drive not on PCIe.
    pub pcie_link: String,
    /// Measured inside a virtual machine.
    pub virtualized: bool,
    /// The cloud or VPS platform recognised, `none` otherwise.
    pub cloud: String,
    /// The drive's peak temperature during the measurement.
    pub peak_temperature_c: Option<f64>,
    /// Bytes the QD1 offsets were drawn from.
    pub qd1_span_bytes: u64,
    /// The engine of the QD1 test.
    pub qd1_engine: String,
    /// Whether every QD1 read hit a block holding written data.
    pub reads_hit_data: bool,
}

/// How a cloud/VPS entry is recognised from the machine's DMI identity.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformMatch {
    /// The probe's platform classification (`Platform::cloud`), compared case-insensitively.
    pub cloud: Option<String>,
    #[serde(rename = "sys_vendor")]
    pub sys_vendor_pattern: Option<String>,
    #[serde(skip)]
    pub sys_vendor: Option<Regex>,
    #[serde(rename = "product_name")]
    pub product_name_pattern: Option<String>,
    #[serde(skip)]
    pub product_name: Option<Regex>,
    #[serde(rename = "bios_version")]
    pub bios_version_pattern: Option<String>,
    #[serde(skip)]
    pub bios_version: Option<Regex>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: &str = r#"
        id = "bricks"
        match = "3B2QGXA7"
        severity = "critical"
        text = "this firmware bricks the drive"
    "#;

    #[test]
    fn a_firmware_rule_matches_only_once_the_loader_compiled_it() {
        let mut rule: FirmwareRule = toml::from_str(RULE).expect("a valid rule");
        assert!(!rule.matches("3B2QGXA7"), "an uncompiled rule matched");
        rule.regex = Some(Regex::new("^(?:3B2QGXA7)$").expect("a valid regex"));
        assert!(rule.matches("3B2QGXA7"));
        assert!(!rule.matches("3B2QGXA8"));
    }
}
