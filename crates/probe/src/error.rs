//! Errors that stop a probe. Problems that only blur one fact become `None` plus a warning in
//! [`crate::Facts::warnings`] instead, so a single odd attribute never hides the rest.

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ProbeError {
    #[error("root {path}: {source}")]
    RootUnreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("root {0} is not a directory")]
    RootNotADirectory(PathBuf),
    #[error("{path}: too many levels of symbolic links (a loop?)")]
    SymlinkLoop { path: PathBuf },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Read(#[from] crate::input::ReadError),
    #[error("{path}: not found under the root")]
    NotFound { path: PathBuf },
    #[error("cannot read the mount table ({path}): {reason}")]
    MountTable { path: PathBuf, reason: String },
    #[error("no mount holds {path} in the first {} of {} (the file is longer and was cut there)", units::size::binary_exact(*cap as u64), table.display())]
    NoMountInTruncatedTable {
        path: PathBuf,
        table: PathBuf,
        cap: usize,
    },
    #[error("no mount holds {path}")]
    NoMount { path: PathBuf },
    #[error("{path}: {reason}")]
    BadPath { path: PathBuf, reason: String },
}
