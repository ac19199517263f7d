//! Judges storage for an Ethereum node: the curated Good/Bad/Ugly drive database and a pure
//! function from probe facts (and optional bench results) to a verdict with findings and fixes.

pub mod findings;
pub mod judge;
pub mod model;

pub use judge::{judge, ClientChoice, DriveVerdict, EntrySummary, Verdict};
pub use model::*;
