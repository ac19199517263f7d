//! The aggregate of a benchmark run, as [`crate::run`] returns it: every test's result in one
//! serializable report, the contract with `verdict` and the renderers. The vocabulary it is
//! made of lives with its owners ([`EngineKind`] with the engines, [`LatencySummary`] with the
//! statistics, each test's result with its test).

use serde::{Deserialize, Serialize};

use crate::behaviour::{CliffResult, SpanResult, SyncResult};
use crate::engine::EngineKind;
use crate::qd1::Qd1Result;
use crate::randrw::RandRwResult;
#[cfg(doc)]
use crate::stats::LatencySummary;

pub const SCHEMA_VERSION: u32 = 1;

/// A whole `nodecheck bench` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    pub schema_version: u32,
    /// The directory (or, for `--device`, the block device) that was measured.
    pub path: String,
    pub engine: EngineKind,
    /// Why the engine was chosen, when it was not the preferred io_uring engine
    /// (`io_uring_setup: EPERM, blocked by seccomp (Docker >= 25?)`).
    pub engine_reason: Option<String>,
    pub qd1: Option<Qd1Result>,
    pub randrw: Option<RandRwResult>,
    /// `--test sync`: read latency through a write burst and its recovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncResult>,
    /// `--test cliff`: sustained-write throughput and where the write cache runs out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliff: Option<CliffResult>,
    /// `--test span`: QD1 read latency over growing spans (mapping-table pressure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<SpanResult>,
    /// Things the reader must know (`span 20 GiB < 150 GiB: less comparable`, `geth running`).
    pub warnings: Vec<String>,
    /// The Ethereum clients found running when the run started (their I/O shares the drive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients_running: Vec<String>,
    /// The drive's temperature and counters around the run, filled in by the binary (the
    /// bench reads nothing of the machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<crate::conditions::RunConditions>,
}

impl BenchReport {
    /// The report of a run on `path` with `engine` before any test has measured: each test
    /// fills in its own result.
    pub fn new(path: impl Into<String>, engine: EngineKind, engine_reason: Option<String>) -> Self {
        BenchReport {
            schema_version: SCHEMA_VERSION,
            path: path.into(),
            engine,
            engine_reason,
            qd1: None,
            randrw: None,
            sync: None,
            cliff: None,
            span: None,
            warnings: Vec::new(),
            clients_running: Vec::new(),
            conditions: None,
        }
    }
}
