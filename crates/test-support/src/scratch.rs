//! Scratch directories for tests that read with O_DIRECT. The bench crate's test support
//! module includes this file too (`#[path]`).

/// A scratch directory on a disk-backed file system inside the target directory: O_DIRECT
/// needs one, and /tmp may be tmpfs. `prefix` names the test file that made it.
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("scratch dir")
}
