//! Shared helpers for the bench crate's integration tests: sizes, a scratch directory on a real
//! disk, and the `SKIPPED` line for a test this machine cannot run.

// Each test file uses a different part of this module.
#![allow(dead_code)]

#[path = "../../../nodecheck/tests/cli_support/skip.rs"]
pub mod skip;

pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;

/// A scratch directory on a disk-backed file system inside the target directory: O_DIRECT
/// needs one (tmpfs refuses it). `prefix` names the test file that made it.
pub fn scratch_dir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("creating a scratch directory")
}
