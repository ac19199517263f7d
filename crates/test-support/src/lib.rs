//! What the integration tests of several crates share, as a dev-only crate (rust-analyzer's
//! `crates/test-utils`): the `SKIPPED` line of a test this machine cannot run, and scratch
//! directories on a disk-backed file system. Each crate's own test support (fixture roots,
//! running the binary, saved captures) stays beside its tests.

mod scratch;
mod skip;

pub use scratch::scratch_in;
pub use skip::skip;
