//! `smartctl -j` (smartmontools >= 7.0) JSON: parsing, merging into a [`Drive`], and running
//! smartctl on a live machine.
//!
//! smartctl's JSON is wide and version dependent, so the parser reads the document as a
//! [`serde_json::Value`] and picks the keys it knows: a key with an unexpected type is treated
//! as absent instead of failing the whole report. What must hold is that the document *is*
//! smartctl output (`json_format_version` and a `smartctl` object), so that another tool's
//! JSON, a truncated file or smartctl's text output are reported as such.
//!
//! Key names follow `docs/sources/linux-storage-facts.md` and smartmontools' `ataprint.cpp` /
//! `nvmeprint.cpp`. 128-bit NVMe counters that do not fit a JSON double exactly also come as
//! `KEY_s` decimal strings, which take precedence here.

mod convert;
pub mod merge;
mod parse;
mod report;
mod run;
mod self_test;

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

pub use parse::{decode_exit_status, parse};
pub use report::{AtaAttribute, NvmeHealthLog, SmartctlReport, TrimSupport};
pub use run::{run_smartctl, run_smartctl_with, SmartctlRun, DEFAULT_TIMEOUT};
pub use self_test::FAILED_SELF_TEST;

/// `smartctl -x` on a drive with long logs prints a few hundred KiB; more means something is
/// wrong, and the cap keeps a runaway process from exhausting memory.
const MAX_OUTPUT_BYTES: usize = 16 << 20;

/// Why smartctl output could not be used.
#[derive(Debug, Error)]
pub enum SmartctlError {
    #[error("smartctl output is empty")]
    Empty,
    #[error("smartctl {version} is too old: JSON output (-j) needs smartmontools 7.0 or newer")]
    TooOld { version: String },
    #[error("this is smartctl's text output, not JSON: run `smartctl -j -x DEVICE`")]
    TextOutput,
    #[error("smartctl JSON is truncated (ends at line {line}, column {column})")]
    Truncated { line: usize, column: usize },
    #[error("not valid JSON: {source}")]
    InvalidJson {
        #[source]
        source: serde_json::Error,
    },
    #[error("not smartctl output: the JSON document is {found}, expected an object")]
    NotAnObject { found: &'static str },
    #[error("not smartctl output: the JSON object has no `{missing}` key")]
    Foreign { missing: &'static str },
    #[error("unsupported smartctl JSON format version {major}.{minor} (this build reads 1.x)")]
    UnsupportedFormat { major: u64, minor: u64 },
    #[error("`{}` is not installed or not on PATH (install smartmontools >= 7.0)", program.display())]
    NotInstalled { program: PathBuf },
    #[error("cannot run `{}`: {source}", program.display())]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("smartctl on {} did not finish within {} s", device.display(), timeout.as_secs())]
    Timeout { device: PathBuf, timeout: Duration },
    #[error("smartctl on {} printed more than {} MiB", device.display(), MAX_OUTPUT_BYTES >> 20)]
    OutputTooLarge { device: PathBuf },
    #[error("smartctl on {} printed nothing (exit status {status:?}): {stderr}", device.display())]
    NoOutput {
        device: PathBuf,
        status: Option<i32>,
        stderr: String,
    },
}
