//! Judges storage for an Ethereum node: the curated Good/Bad/Ugly drive database and a pure
//! function from probe facts (and optional bench results) to a verdict with findings and fixes.

pub mod behaviour_thresholds;
pub mod clients;
pub mod code;
pub mod database;
pub mod findings;
pub mod judge;
pub mod model;
mod node;
mod output;
pub mod setups;
mod storage_figures;
pub mod watch;

pub use clients::{ClientCatalog, ClientNeeds, ConsensusMode, HistoryMode, ProcessNames};
pub use code::{Code, Family, UnknownCode};
pub use database::{Database, DbError, DriveEntry, DriveQuery, Lookup};
pub use judge::{judge, judge_choice, judge_node};
pub use model::*;
pub use node::{ClientChoice, NodeChoice};
pub use output::{ClassSummary, DriveVerdict, EntrySummary, Verdict};
