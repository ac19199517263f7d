//! Shared helpers for the bench crate's integration tests: sizes, a scratch directory on a real
//! disk, and the `SKIPPED` line for a test this machine cannot run.

// Each test file uses a different part of this module.
#![allow(dead_code)]

/// The `SKIPPED` line, from the workspace's test-support crate.
pub mod skip {
    // Unused by the test files that skip nothing.
    #[allow(unused_imports)]
    pub use test_support::skip;
}

/// A scratch directory on a disk-backed file system inside the target directory (O_DIRECT
/// needs one); `prefix` names the test file that made it.
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    test_support::scratch_in(env!("CARGO_TARGET_TMPDIR"), prefix)
}

pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;
