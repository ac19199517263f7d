//! Scratch directories for tests that read with O_DIRECT.

use std::path::Path;

/// A scratch directory under `target_tmpdir`, which a test passes as
/// `env!("CARGO_TARGET_TMPDIR")`: a disk-backed file system inside the target directory, since
/// O_DIRECT needs one and /tmp may be tmpfs. (Cargo sets that variable only when it compiles an
/// integration test, so this crate cannot read it itself.) `prefix` names the test file that
/// made it.
pub fn scratch_in(target_tmpdir: impl AsRef<Path>, prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(target_tmpdir)
        .expect("scratch dir")
}
