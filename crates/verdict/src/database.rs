//! The curated Good/Bad/Ugly drive database (`data/drives.toml`, `data/clients.toml`).
//!
//! Entries match the model string a drive reports to Linux (NVMe sysfs `model`, ATA IDENTIFY
//! or smartctl `model_name`, a USB bridge's product string) with whole-string,
//! case-insensitive regexes, like smartmontools' drivedb. A lookup applies the entry's
//! capacity rules and firmware rules on top of its grade and returns the advisories that hit.
//! The schema is documented in `docs/database-schema.md`.

mod build;
mod classes;
pub mod corpus;
mod error;
mod families;
mod matching;
mod raw;
mod truncated;
mod validate;

use std::path::Path;

use regex::Regex;
use serde::{Deserialize, Serialize};

pub use crate::clients::{ClientNeeds, ConsensusNeeds, Sizing};
use crate::model::{Grade, Severity};
pub use classes::{
    controller_maker, ClassQuery, ClassRule, Classification, Evidence, EvidenceKind,
    EMBEDDED_CLASSES, EMBEDDED_CLASSES_ORIGIN,
};
pub use error::{DbError, ErrorKind, Position};
pub use matching::{canonical_model, normalize_model, ModelForms};
pub use truncated::{full_model_command, may_be_truncated, PrefixCandidates, SCSI_PRODUCT_LEN};
pub use validate::{IssueLevel, ValidationIssue};

/// Schema version of `data/*.toml` this build reads.
pub const SCHEMA_VERSION: u32 = 1;

/// The drives file compiled into the binary.
pub const EMBEDDED_DRIVES: &str = include_str!("../../../data/drives.toml");
/// The client requirements compiled into the binary.
pub const EMBEDDED_CLIENTS: &str = include_str!("../../../data/clients.toml");
/// Origin names used in error messages for the embedded files.
pub const EMBEDDED_DRIVES_ORIGIN: &str = "data/drives.toml";
pub const EMBEDDED_CLIENTS_ORIGIN: &str = "data/clients.toml";
/// The largest drives file `--db` reads: the embedded list is a few hundred KiB, and a
/// community list many times its size still fits.
pub const MAX_DATABASE_BYTES: u64 = 16 << 20;

/// The loaded database.
#[derive(Debug, Clone)]
pub struct Database {
    pub schema_version: u32,
    /// Data version (`2026.11.30`), bumped whenever data changes.
    pub version: String,
    /// Where the drives file came from (`data/drives.toml` or the `--db` path).
    pub origin: String,
    pub sources: Vec<Source>,
    pub benchmarks: Vec<Benchmark>,
    /// Statements of the list that are true but match nothing (heat, bare metal, sizes).
    pub remarks: Vec<Remark>,
    pub drives: Vec<DriveEntry>,
    pub generic: Vec<GenericRule>,
    /// Classes for drives without an entry (`data/classes.toml`, always the embedded file).
    pub classes: Vec<ClassRule>,
    pub clients: Vec<ClientNeeds>,
    /// Consensus clients, which share the execution client's disk.
    pub consensus: Vec<ConsensusNeeds>,
    /// The list's sizing advice (`[sizing]` in data/clients.toml).
    pub sizing: Option<Sizing>,
}

/// A document the data cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub id: String,
    pub title: String,
    pub url: Option<String>,
}

/// A benchmark that crowd results were produced with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Benchmark {
    pub id: String,
    pub description: String,
    pub command: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Remark {
    pub id: String,
    /// `general`, `cloud`, `sizing`, ...: where the rendered list shows it.
    pub topic: String,
    pub text: String,
    pub sources: Vec<String>,
}

/// How an entry's drive is attached, as the list sorts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryInterface {
    Nvme,
    Sata,
    Sas,
    Usb,
    /// Virtual disks of VPS platforms (virtio-blk, virtio-scsi, Xen).
    Virtio,
}

impl EntryInterface {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryInterface::Nvme => "nvme",
            EntryInterface::Sata => "sata",
            EntryInterface::Sas => "sas",
            EntryInterface::Usb => "usb",
            EntryInterface::Virtio => "virtio",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            EntryInterface::Nvme => "NVMe",
            EntryInterface::Sata => "SATA",
            EntryInterface::Sas => "SAS",
            EntryInterface::Usb => "USB",
            EntryInterface::Virtio => "Virtual disk",
        }
    }

    /// The entry interface a probed interface corresponds to; `None` for `Mmc`/`Unknown`.
    pub fn from_probe(interface: probe::facts::Interface) -> Option<EntryInterface> {
        use probe::facts::Interface;
        match interface {
            Interface::Nvme => Some(EntryInterface::Nvme),
            Interface::Sata => Some(EntryInterface::Sata),
            Interface::Sas => Some(EntryInterface::Sas),
            Interface::Usb => Some(EntryInterface::Usb),
            Interface::Virtio | Interface::Xen => Some(EntryInterface::Virtio),
            Interface::Mmc | Interface::Unknown => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Nand {
    Slc,
    Mlc,
    Tlc,
    Qlc,
    /// Intel/Micron 3D XPoint (Optane): not NAND, listed here because it replaces it.
    Xpoint,
}

impl Nand {
    pub fn as_str(self) -> &'static str {
        match self {
            Nand::Slc => "slc",
            Nand::Mlc => "mlc",
            Nand::Tlc => "tlc",
            Nand::Qlc => "qlc",
            Nand::Xpoint => "xpoint",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Nand::Slc => "SLC",
            Nand::Mlc => "MLC",
            Nand::Tlc => "TLC",
            Nand::Qlc => "QLC",
            Nand::Xpoint => "3D XPoint",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dram {
    Yes,
    No,
    /// DRAM-less, borrowing host memory (NVMe Host Memory Buffer).
    Hmb,
}

impl Dram {
    pub fn as_str(self) -> &'static str {
        match self {
            Dram::Yes => "yes",
            Dram::No => "no",
            Dram::Hmb => "hmb",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Dram::Yes => "DRAM",
            Dram::No => "DRAM-less",
            Dram::Hmb => "DRAM-less (HMB)",
        }
    }

    /// No DRAM of its own, HMB or not.
    pub fn is_dramless(self) -> bool {
        matches!(self, Dram::No | Dram::Hmb)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Mainstream,
    Performance,
    Budget,
    DataCenter,
    Portable,
    Cloud,
    Hdd,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Mainstream => "mainstream",
            Class::Performance => "performance",
            Class::Budget => "budget",
            Class::DataCenter => "data_center",
            Class::Portable => "portable",
            Class::Cloud => "cloud",
            Class::Hdd => "hdd",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Class::Mainstream => "Mainstream",
            Class::Performance => "Performance",
            Class::Budget => "Budget",
            Class::DataCenter => "Data center",
            Class::Portable => "Portable",
            Class::Cloud => "Cloud / VPS",
            Class::Hdd => "Hard disk",
        }
    }
}

/// One drive family (or one cloud volume type / VPS product line).
#[derive(Debug, Clone, Serialize)]
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
    pub derived: bool,
    pub notes: String,
    pub sources: Vec<String>,
    /// Compiled whole-string, case-insensitive model regexes.
    #[serde(skip)]
    pub models: Vec<Regex>,
    /// The model patterns as written in the file (what `models` was compiled from).
    #[serde(rename = "models")]
    pub model_patterns: Vec<String>,
    /// Why the entry has no model regex (the drive reports nothing identifiable).
    pub unmatchable: Option<String>,
    /// Real model strings as drives report them; each must match this entry and no other.
    pub examples: Vec<String>,
    pub firmware: Vec<FirmwareRule>,
    pub capacity: Vec<CapacityRule>,
    /// Advisories that hold for every drive of the family.
    pub advisories: Vec<AdvisoryRule>,
    /// ATA SMART attributes this family's firmware uses its own way (drivedb's `-v` presets).
    pub smart_attributes: Vec<SmartAttributeQuirk>,
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
#[derive(Debug, Clone, Serialize)]
pub struct FirmwareRule {
    /// Unique within the entry; the advisory code is `<entry id>/<rule id>`.
    pub id: String,
    /// Whole-string regex on the firmware revision, as written.
    #[serde(rename = "match")]
    pub pattern: String,
    #[serde(skip)]
    pub regex: Regex,
    /// Grade of the drive while it runs this firmware; `None` leaves the grade alone.
    pub grade: Option<Grade>,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

/// A capacity range of a family built differently (the 4TB model is QLC).
#[derive(Debug, Clone, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AdvisoryRule {
    pub id: String,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

/// A crowd-sourced benchmark result. The same table is what `nodecheck submit` prints, so a
/// contributor can paste it under the entry (see docs/database-schema.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// How a cloud/VPS entry is recognised from the machine's DMI identity.
#[derive(Debug, Clone, Serialize)]
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

/// A rule that grades drives by their traits when no entry matches the model.
#[derive(Debug, Clone, Serialize)]
pub struct GenericRule {
    pub id: String,
    pub when: TraitMatch,
    pub grade: Grade,
    pub notes: String,
    pub sources: Vec<String>,
}

/// Conditions of a generic rule: each non-empty list must contain the drive's trait, each
/// `Some` flag must equal it. An unknown trait never satisfies a condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TraitMatch {
    pub nand: Vec<Nand>,
    pub dram: Vec<Dram>,
    pub class: Vec<Class>,
    pub interface: Vec<EntryInterface>,
    pub rotational: Option<bool>,
    pub virtualized: Option<bool>,
}

/// What is known about a drive's make-up, from an entry, the probe (HMB, rotational) or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traits {
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    pub class: Option<Class>,
    pub interface: Option<EntryInterface>,
    pub rotational: Option<bool>,
    pub virtualized: Option<bool>,
}

impl TraitMatch {
    pub fn matches(&self, t: &Traits) -> bool {
        fn list<T: PartialEq + Copy>(want: &[T], have: Option<T>) -> bool {
            want.is_empty() || have.is_some_and(|h| want.contains(&h))
        }
        fn flag(want: Option<bool>, have: Option<bool>) -> bool {
            want.is_none() || want == have
        }
        list(&self.nand, t.nand)
            && list(&self.dram, t.dram)
            && list(&self.class, t.class)
            && list(&self.interface, t.interface)
            && flag(self.rotational, t.rotational)
            && flag(self.virtualized, t.virtualized)
    }

    pub fn is_empty(&self) -> bool {
        *self == TraitMatch::default()
    }
}

/// What a lookup is asked about: the drive as the probe (or a smartctl report) saw it.
#[derive(Debug, Clone, Copy, Default)]
pub struct DriveQuery<'a> {
    pub model: &'a str,
    pub firmware: Option<&'a str>,
    pub capacity_bytes: Option<u64>,
    pub interface: Option<probe::facts::Interface>,
}

impl<'a> DriveQuery<'a> {
    pub fn new(model: &'a str) -> DriveQuery<'a> {
        DriveQuery {
            model,
            ..DriveQuery::default()
        }
    }

    pub fn firmware(mut self, firmware: &'a str) -> Self {
        self.firmware = Some(firmware);
        self
    }

    pub fn capacity(mut self, capacity_bytes: u64) -> Self {
        self.capacity_bytes = Some(capacity_bytes);
        self
    }

    pub fn interface(mut self, interface: probe::facts::Interface) -> Self {
        self.interface = Some(interface);
        self
    }
}

/// The answer to a lookup: the drive's own grade from model, capacity and firmware (not a
/// judgement of fitness for a particular client).
#[derive(Debug, Clone, Serialize)]
pub struct Lookup<'a> {
    pub entry: Option<&'a DriveEntry>,
    /// `Unknown` when no entry matches.
    pub grade: Grade,
    /// Capacity, firmware and family advisories, in that order.
    pub advisories: Vec<Advisory>,
    /// NAND of this drive (a capacity rule can differ from the family's).
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
}

/// One thing the database says about a particular drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Advisory {
    /// `<entry id>/<rule id>`, stable across data versions.
    pub code: String,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

/// The DMI identity a platform lookup uses; `From<&probe::Platform>` builds it from the facts.
/// Netcup tells its VPS and RS products apart only by `bios_version`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlatformQuery<'a> {
    pub sys_vendor: Option<&'a str>,
    pub product_name: Option<&'a str>,
    pub bios_version: Option<&'a str>,
    pub cloud: Option<&'a str>,
}

impl<'a> From<&'a probe::facts::Platform> for PlatformQuery<'a> {
    fn from(p: &'a probe::facts::Platform) -> Self {
        PlatformQuery {
            sys_vendor: p.sys_vendor.as_deref(),
            product_name: p.product_name.as_deref(),
            bios_version: p.bios_version.as_deref(),
            cloud: p.cloud.as_deref(),
        }
    }
}

impl Database {
    /// The database compiled into the binary.
    pub fn embedded() -> Result<Database, DbError> {
        Database::parse_parts(
            EMBEDDED_DRIVES,
            EMBEDDED_DRIVES_ORIGIN,
            EMBEDDED_CLIENTS,
            EMBEDDED_CLIENTS_ORIGIN,
        )
    }

    /// A drives file given with `--db FILE`; client requirements come from the embedded
    /// `data/clients.toml`.
    ///
    /// The file goes through the bounded reader (a regular file of at most
    /// [`MAX_DATABASE_BYTES`]); bytes that are not UTF-8 are an error at their line and column.
    pub fn load(path: &Path) -> Result<Database, DbError> {
        let origin = path.display().to_string();
        let bytes = probe::input::read_user_file(path, MAX_DATABASE_BYTES, "a drive database")
            .map_err(|err| match err {
                // A missing or forbidden file stays the I/O error it always was.
                probe::input::ReadError::Open { source, .. } => DbError::Io {
                    path: origin.clone(),
                    source,
                },
                other => DbError::Unreadable(other),
            })?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(err) => {
                let valid_up_to = err.utf8_error().valid_up_to();
                let bytes = err.into_bytes();
                let valid = String::from_utf8_lossy(&bytes[..valid_up_to]);
                return Err(DbError::at(
                    ErrorKind::Encoding,
                    &origin,
                    &valid,
                    valid_up_to,
                    "the file is not valid UTF-8",
                    "save the file as UTF-8 (TOML files must be UTF-8)",
                ));
            }
        };
        Database::parse(&text, &origin)
    }

    /// Parses a drives file; `origin` names it in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Database, DbError> {
        Database::parse_parts(text, origin, EMBEDDED_CLIENTS, EMBEDDED_CLIENTS_ORIGIN)
    }

    /// Parses a drives file and a clients file.
    pub fn parse_parts(
        drives_text: &str,
        drives_origin: &str,
        clients_text: &str,
        clients_origin: &str,
    ) -> Result<Database, DbError> {
        let mut db = build::database(drives_text, drives_origin, clients_text, clients_origin)?;
        db.classes = classes::parse(EMBEDDED_CLASSES, EMBEDDED_CLASSES_ORIGIN)?;
        Ok(db)
    }

    /// Replaces the classes with another classes file (tests and `cargo xtask` checks of a
    /// candidate file).
    pub fn with_classes(mut self, text: &str, origin: &str) -> Result<Database, DbError> {
        self.classes = classes::parse(text, origin)?;
        Ok(self)
    }

    /// The class of a drive that has no entry: by part-number scheme first, refined by what the
    /// probe saw. `None` when nothing is known.
    pub fn classify(&self, q: &ClassQuery) -> Option<Classification<'_>> {
        classes::classify(self, q)
    }

    /// Matches a drive: model regexes first, then capacity rules, then firmware rules.
    pub fn lookup(&self, q: &DriveQuery) -> Lookup<'_> {
        matching::lookup(self, q)
    }

    /// Every entry whose model regexes match `model` (a valid database has at most one).
    pub fn entries_matching(&self, model: &str) -> Vec<&DriveEntry> {
        let forms = ModelForms::new(model);
        self.drives
            .iter()
            .filter(|e| e.matches_forms(&forms))
            .collect()
    }

    /// The cloud/VPS entry for this machine: DMI-matched entries first, then the entry of any
    /// cloud volume among `models` (the machine's drive model strings).
    pub fn lookup_platform(
        &self,
        p: &probe::facts::Platform,
        models: &[&str],
    ) -> Option<&DriveEntry> {
        self.lookup_platform_query(&PlatformQuery::from(p), models)
    }

    /// [`Database::lookup_platform`] with a DMI identity that may include the BIOS version.
    /// When several DMI entries match equally (Contabo's SSD and NVMe plans look the same
    /// from inside the guest), the worst-graded one is returned; see
    /// [`Database::platform_matches`] for all of them.
    pub fn lookup_platform_query(&self, q: &PlatformQuery, models: &[&str]) -> Option<&DriveEntry> {
        matching::lookup_platform(self, q, models)
    }

    /// Every DMI-matched cloud/VPS entry for this identity.
    pub fn platform_matches(&self, q: &PlatformQuery) -> Vec<&DriveEntry> {
        matching::platform_matches(self, q)
    }

    /// Client requirements by `--client` name, case-insensitively.
    pub fn client(&self, name: &str) -> Option<&ClientNeeds> {
        self.clients
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name.trim()))
    }

    /// A consensus client by its `--cl` name, case-insensitively.
    pub fn consensus_client(&self, name: &str) -> Option<&ConsensusNeeds> {
        self.consensus
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Requirements that satisfy every client in the database.
    pub fn strictest_client(&self) -> Option<ClientNeeds> {
        ClientNeeds::strictest(&self.clients)
    }

    /// Generic rules whose conditions the traits meet, in file order.
    pub fn generic_matches(&self, t: &Traits) -> Vec<&GenericRule> {
        self.generic.iter().filter(|g| g.when.matches(t)).collect()
    }

    pub fn entry(&self, id: &str) -> Option<&DriveEntry> {
        self.drives.iter().find(|e| e.id == id)
    }

    pub fn source(&self, id: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.id == id)
    }

    pub fn benchmark(&self, id: &str) -> Option<&Benchmark> {
        self.benchmarks.iter().find(|b| b.id == id)
    }

    /// Consistency checks beyond parsing, run by `cargo xtask db-check`.
    pub fn validate(&self) -> Vec<ValidationIssue> {
        validate::validate(self)
    }
}

/// Parses a contributor's result block (the `[[drives.results]]` tables `nodecheck submit`
/// prints) so it can be checked before it is pasted under an entry.
pub fn parse_result_block(text: &str, origin: &str) -> Result<Vec<CrowdResult>, DbError> {
    build::result_block(text, origin)
}
