//! The curated Good/Bad/Ugly drive database (`data/drives.toml`, `data/clients.toml`).
//!
//! Entries match the model string a drive reports to Linux (NVMe sysfs `model`, ATA IDENTIFY
//! or smartctl `model_name`, a USB bridge's product string) with whole-string,
//! case-insensitive regexes, like smartmontools' drivedb. A lookup applies the entry's
//! capacity rules and firmware rules on top of its grade and returns the advisories that hit.
//! The schema is documented in `docs/database-schema.md`.

pub(crate) mod build;
mod classes;
mod controllers;
pub mod corpus;
mod entry;
mod error;
mod families;
mod generic;
mod matching;
mod query;
mod raw;
pub mod sample;
mod spans;
mod traits;
mod truncated;
mod unlisted;
mod validate;

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::behaviour_thresholds::BehaviourThresholds;

pub use crate::clients::{ClientCatalog, ClientNeeds, ConsensusNeeds, Sizing};
pub use classes::{
    controller_maker, ClassQuery, ClassRule, Classification, EMBEDDED_CLASSES,
    EMBEDDED_CLASSES_ORIGIN,
};
pub use controllers::{
    parse_hex_u16, ControllerMatch, ControllerRule, PciId, PciIds, EMBEDDED_CONTROLLERS,
    EMBEDDED_CONTROLLERS_ORIGIN, EMBEDDED_PCI_IDS,
};
pub use entry::{
    CrowdResult, DriveEntry, PlatformMatch, ResultContext, SmartAttributeQuirk,
    BAD_SECTOR_ATTRIBUTES,
};
pub use error::{DbError, ErrorKind};
pub use generic::{GenericRule, Traits};
pub use matching::{canonical_model, normalize_model, ModelForms};
pub use query::{Advisory, DriveQuery, Lookup, PlatformQuery};
pub use traits::{Class, Components, Dram, EntryInterface, Nand};
pub use truncated::{full_model_command, may_be_truncated, PrefixCandidates, SCSI_PRODUCT_LEN};
pub use unlisted::UnlistedGrade;
pub use validate::{result_context_problems, IssueLevel, ValidationIssue};

/// Schema version of `data/*.toml` this build reads.
pub const SCHEMA_VERSION: u32 = 1;

/// The drives file compiled into the binary.
pub const EMBEDDED_DRIVES: &str = include_str!("../../../data/drives.toml");
/// The client requirements compiled into the binary.
pub const EMBEDDED_CLIENTS: &str = include_str!("../../../data/clients.toml");
/// Origin names used in error messages for the embedded files.
pub const EMBEDDED_DRIVES_ORIGIN: &str = "data/drives.toml";
pub const EMBEDDED_CLIENTS_ORIGIN: &str = "data/clients.toml";
/// The largest drives file `--db` reads: the embedded list is under 100 KiB, and a community
/// list forty times its size still fits. Parsing TOML takes about 35 bytes per byte read, so
/// this also keeps the parse of a hostile file near 150 MB.
pub const MAX_DATABASE_BYTES: u64 = 4 << 20;

/// The loaded database. The drives file deserializes straight into it; what the file does not
/// hold (its origin, the classes, the clients) and the compiled regexes are filled in by the
/// loader.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Database {
    pub schema_version: u32,
    /// Data version (`2026.11.30`), bumped whenever data changes.
    pub version: String,
    /// Where the drives file came from (`data/drives.toml` or the `--db` path).
    #[serde(skip)]
    pub origin: String,
    #[serde(default)]
    pub sources: Vec<Source>,
    #[serde(default)]
    pub benchmarks: Vec<Benchmark>,
    /// Statements of the list that are true but match nothing (heat, bare metal, sizes).
    #[serde(default)]
    pub remarks: Vec<Remark>,
    #[serde(default)]
    pub generic: Vec<GenericRule>,
    #[serde(default)]
    pub drives: Vec<DriveEntry>,
    /// Classes for drives without an entry (`data/classes.toml`, always the embedded file).
    #[serde(skip)]
    pub classes: Vec<ClassRule>,
    /// What NVMe controllers' PCI ids imply (`data/controllers.toml`, always embedded).
    #[serde(skip)]
    pub controllers: Vec<ControllerRule>,
    /// Names of NVMe controller PCI ids (`data/pci-ids/nvme.ids`, always embedded).
    #[serde(skip)]
    pub pci_ids: PciIds,
    /// The execution and consensus clients and the sizing advice (`data/clients.toml`).
    #[serde(skip)]
    pub clients: ClientCatalog,
    /// What behaviour, QD1 latency and cache speed are judged by (`data/behaviour.toml`,
    /// always the embedded file). The database carries them so that a verdict is a function
    /// of its inputs alone; a test or a caller with other limits replaces them here.
    #[serde(skip, default = "BehaviourThresholds::embedded")]
    pub thresholds: BehaviourThresholds,
}

/// The clients file is read by the database's loader, so the catalog's constructors live
/// here and the client types know nothing of the database.
impl ClientCatalog {
    /// The catalog compiled into the binary. It is checked by this crate's tests, so a
    /// failure here is a build defect, not an input error.
    pub fn embedded() -> &'static ClientCatalog {
        static CATALOG: OnceLock<ClientCatalog> = OnceLock::new();
        CATALOG.get_or_init(|| {
            ClientCatalog::parse(EMBEDDED_CLIENTS, EMBEDDED_CLIENTS_ORIGIN)
                .unwrap_or_else(|err| panic!("the embedded clients file is invalid: {err}"))
        })
    }

    /// Parses a clients file; `origin` names it in error messages. Rejects duplicate names,
    /// unknown keys, sizes that cannot all be true and execution clients without a process
    /// name.
    pub fn parse(text: &str, origin: &str) -> Result<ClientCatalog, DbError> {
        build::clients(text, origin).map(|(catalog, _sources)| catalog)
    }
}

/// A document the data cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub id: String,
    pub title: String,
    pub url: Option<String>,
}

/// A benchmark that crowd results were produced with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Benchmark {
    pub id: String,
    pub description: String,
    pub command: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Remark {
    pub id: String,
    /// `general`, `cloud`, `sizing`, ...: where the rendered list shows it.
    pub topic: String,
    pub text: String,
    pub sources: Vec<String>,
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
        db.controllers = controllers::parse(EMBEDDED_CONTROLLERS, EMBEDDED_CONTROLLERS_ORIGIN)?;
        db.pci_ids = PciIds::parse(EMBEDDED_PCI_IDS);
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

    /// Classes whose part-number scheme matches `model` but which also require a firmware
    /// scheme that `firmware` (absent, or another revision) does not satisfy: what a lookup
    /// without the drive's firmware could still learn from it.
    pub fn classes_wanting_firmware(&self, model: &str, firmware: Option<&str>) -> Vec<&ClassRule> {
        let forms = ModelForms::new(model);
        self.classes
            .iter()
            .filter(|c| !c.firmware.is_empty() && !c.matches_firmware(firmware))
            .filter(|c| c.matches_forms(&forms))
            .collect()
    }

    /// The grade of a drive no entry names: its class and the generic rules that reach it.
    pub fn grade_unlisted(&self, q: &ClassQuery) -> UnlistedGrade<'_> {
        unlisted::grade(self, q)
    }

    /// The NVMe controller a PCI vendor:device id names, with what its specification implies.
    pub fn controller(&self, id: PciId) -> Option<ControllerMatch<'_>> {
        controllers::find(&self.controllers, &self.pci_ids, id)
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
    pub fn lookup_platform(&self, p: &probe::Platform, models: &[&str]) -> Option<&DriveEntry> {
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
            .execution
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name.trim()))
    }

    /// A consensus client by its `--cl` name, case-insensitively.
    pub fn consensus_client(&self, name: &str) -> Option<&ConsensusNeeds> {
        self.clients
            .consensus
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Requirements that satisfy every client in the database.
    pub fn strictest_client(&self) -> Option<ClientNeeds> {
        ClientNeeds::strictest(&self.clients.execution)
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

    /// The clients file's size figures older than its `max_figure_age_months` on `today`
    /// (year, month), run by `cargo xtask db-check` with the current date.
    pub fn stale_figures(&self, today: (u32, u32)) -> Vec<ValidationIssue> {
        validate::stale_figures(self, today)
    }
}

/// Parses a contributor's result block (the `[[drives.results]]` tables `nodecheck submit`
/// prints) so it can be checked before it is pasted under an entry.
pub fn parse_result_block(text: &str, origin: &str) -> Result<Vec<CrowdResult>, DbError> {
    build::result_block(text, origin)
}
