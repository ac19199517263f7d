//! Judges storage for an Ethereum node: the curated Good/Bad/Ugly drive database and a pure
//! function from probe facts (and optional bench results) to a verdict with findings and fixes.
//!
//! The modules are private; what callers use is listed here by name. Two families keep a
//! namespace of their own because their names would read wrongly at the root: [`watch`]
//! (judging a running node's I/O, with its own `judge` and `Outcome`) and [`corpus`] (the
//! database's coverage of real model strings, for `cargo xtask`).

mod behaviour_thresholds;
mod clients;
mod code;
mod database;
mod findings;
mod judge;
mod model;
mod node;
mod output;
mod setups;
mod storage_figures;
pub mod watch;

// The judge and its answer.
pub use judge::{judge, judge_choice, judge_node};
pub use model::{Finding, Grade, Severity};
pub use node::{ClientChoice, NodeChoice};
pub use output::{ClassSummary, DriveVerdict, EntrySummary, Verdict};

// Finding codes.
pub use code::{Code, Family, UnknownCode};

// What the judge's rules say outside a verdict: the QD1 rule for the paths that print no
// findings, and what could not be read without root.
pub use findings::bench::{qd1_judgement, qd1_rule_word};
pub use findings::needs_root::needs_root;

// The drive database.
pub use database::corpus;
pub use database::sample;
pub use database::{
    canonical_model, controller_maker, may_be_truncated, parse_hex_u16, parse_result_block,
    result_context_problems, Advisory, Class, ClassQuery, ClassRule, Components, CrowdResult,
    Database, DbError, Dram, DriveEntry, DriveQuery, EntryInterface, ErrorKind, IssueLevel, Lookup,
    Nand, PciId, PlatformQuery, ResultContext, Traits, UnlistedGrade, ValidationIssue,
    EMBEDDED_CLIENTS, EMBEDDED_DRIVES,
};

// The clients and what they need, and the thresholds behaviour is judged by.
pub use behaviour_thresholds::{BehaviourThresholds, ThresholdsError};
pub use clients::{
    year_month, ClientCatalog, ClientNeeds, ConsensusMode, ConsensusNeeds, HistoryMode,
    ProcessNames, Sizing, StorageFigure,
};
