//! The serializable results of a benchmark run: the contract with `verdict` and the renderers.

use serde::{Deserialize, Serialize};
use strum::{Display, IntoStaticStr};

pub const SCHEMA_VERSION: u32 = 1;

/// Which I/O engine produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr, Display)]
#[strum(serialize_all = "snake_case")]
pub enum EngineKind {
    IoUring,
    Psync,
    /// The simulated device used in tests.
    Mock,
}

impl EngineKind {
    /// The engine's name in every output: the same word as in the JSON report.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// Latency distribution in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct LatencySummary {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

/// Where a test's worker ran: the CPUs taking the device's completion interrupts
/// (crate::affinity), or wherever the scheduler put it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The CPUs the worker was pinned to; empty when it was not pinned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<usize>,
    /// Why it was pinned or not, in words (`qd1 ran on CPU 1, which takes ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinning: Option<String>,
}

impl Placement {
    /// The CPUs as a list (`0-3,8`), or `None` when the worker was not pinned.
    pub fn cpu_list(&self) -> Option<String> {
        (!self.cpus.is_empty()).then(|| crate::affinity::format_cpu_list(&self.cpus))
    }
}

/// QD1 4 KiB random reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Qd1Result {
    pub iops: f64,
    pub lat_us: LatencySummary,
    pub ios: u64,
    pub runtime_s: f64,
    /// Bytes the random offsets were drawn from.
    pub span_bytes: u64,
    /// `file` (a test file nodecheck created) or `device` (read-only on the raw device).
    pub target: String,
    pub engine: EngineKind,
    /// The CPUs the QD1 worker ran on.
    #[serde(flatten)]
    pub placement: Placement,
    /// Which blocks the reads were drawn from and why; absent in reports from before it was
    /// recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_span: Option<ReadSpan>,
}

/// Which blocks a QD1 run read. A drive answers a read of a block that was never written (or
/// was discarded) from its mapping table without touching flash, so only reads of written
/// blocks measure the drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadSpan {
    pub kind: ReadSpanKind,
    /// Why these blocks (`datadir holds 212 GiB in 1,804 extents`, `too little data ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr, Display)]
#[strum(serialize_all = "snake_case")]
pub enum ReadSpanKind {
    /// The test file, written in full with incompressible data before the reads.
    TestFile,
    /// Only the extents of files already on the file system, mapped to the device.
    DataExtents,
    /// Anywhere on the device, never-written blocks included.
    WholeDevice,
}

impl ReadSpanKind {
    /// Whether every read hit a block that holds written data.
    pub fn hits_data(self) -> bool {
        !matches!(self, ReadSpanKind::WholeDevice)
    }
}

/// The community's fio test: 4 KiB randrw 75/25 at QD64, O_DIRECT.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RandRwResult {
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_bw_bytes_per_s: f64,
    pub write_bw_bytes_per_s: f64,
    pub read_lat_us: LatencySummary,
    pub write_lat_us: LatencySummary,
    pub read_ios: u64,
    pub write_ios: u64,
    pub span_bytes: u64,
    pub runtime_s: f64,
    pub queue_depth: u32,
    pub block_size: u32,
    pub seed: u64,
    pub engine: EngineKind,
    /// The span was the community's 150 GiB (or more), so the figure compares with the list.
    pub fio_comparable: bool,
    /// The CPUs the randrw worker ran on.
    #[serde(flatten)]
    pub placement: Placement,
}

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
    pub sync: Option<crate::behaviour::SyncResult>,
    /// `--test cliff`: sustained-write throughput and where the write cache runs out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cliff: Option<crate::behaviour::CliffResult>,
    /// `--test span`: QD1 read latency over growing spans (mapping-table pressure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<crate::behaviour::SpanResult>,
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
