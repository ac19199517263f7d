//! Errors of the benchmark library.

use std::io;
use std::path::PathBuf;

pub use units::size::ByteSize;

/// Everything that can stop a benchmark. Messages are written for the operator: they name the
/// file and the numbers; the way out is added by the command that prints them, because only
/// it knows its own options (`bench --force`, `check --bench-reserve`).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
    #[error("{0}")]
    Unsupported(String),
    #[error(
        "not enough free space on {fs}: {avail} available of {total}, the reserve keeps \
         {reserve} free ({reserve_origin}), leaving {spare} for a test file but at least \
         {needed} is needed"
    )]
    NoRoom {
        fs: String,
        avail: ByteSize,
        total: ByteSize,
        reserve: ByteSize,
        /// How the reserve was decided: the default formula with its numbers, or set for the run.
        reserve_origin: String,
        spare: ByteSize,
        needed: ByteSize,
    },
    #[error(
        "after reserving the {size} test file only {avail} is free on {fs}, under the {reserve} \
         reserve: something else is filling the file system (a bench in another directory, a \
         node); the test file was removed, nothing was measured"
    )]
    ReserveBroken {
        fs: String,
        size: ByteSize,
        avail: ByteSize,
        reserve: ByteSize,
    },
    #[error(
        "another nodecheck bench{} is running in this directory (it holds {}); one bench at a \
         time keeps the free-space reserve and both figures honest: wait for it to finish",
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
        lock.display()
    )]
    Busy { pid: Option<u32>, lock: PathBuf },
    #[error(
        "an Ethereum client is running: {0}. Benchmarking now skews the results and slows the \
         node down"
    )]
    LiveNode(String),
    #[error("refused: {0}")]
    Refused(String),
    #[error("interrupted by {}", units::signal::name(*.0))]
    Interrupted(i32),
    #[error("invalid plan: {0}")]
    InvalidPlan(String),
    #[error("the engine failed: {0}")]
    Engine(String),
    /// There is no room for the test file, and there would be without these test files of
    /// killed runs (left in place because the run was not asked to remove them).
    /// Free space fell under the reserve while a test wrote (on a copy-on-write file system
    /// every overwrite takes new space; or something else filled the file system meanwhile).
    #[error(
        "free space on {fs} fell to {avail} while the bench wrote, under the {reserve} reserve \
         (on a copy-on-write file system such as btrfs or ZFS every overwrite takes new space): \
         the run stopped there; the test file was removed"
    )]
    ReserveReached {
        fs: String,
        avail: ByteSize,
        reserve: ByteSize,
    },
    #[error(
        "not enough free space for the test file while test file(s) of killed runs take it up: {}",
        list_paths(.0)
    )]
    StaleFiles(Vec<PathBuf>),
}

impl BenchError {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        BenchError::Io {
            context: context.into(),
            source,
        }
    }
}

fn list_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
