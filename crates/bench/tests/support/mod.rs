//! Shared helpers for the bench crate's integration tests: sizes, a scratch directory on a real
//! disk, and the `SKIPPED` line for a test this machine cannot run.

// Each test file uses a different part of this module.
#![allow(dead_code)]

#[path = "../../../nodecheck/tests/cli_support/scratch.rs"]
pub mod scratch;
#[path = "../../../nodecheck/tests/cli_support/skip.rs"]
pub mod skip;

// Unused by the test files that make no scratch directory.
#[allow(unused_imports)]
pub use scratch::scratch;

pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;
