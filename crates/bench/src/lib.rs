//! Storage benchmarks for nodecheck: QD1 4 KiB random-read latency and the community's fio
//! randrw 75/25 QD64 test, on an io_uring engine with a portable fallback, and the behaviour
//! tests that judge a drive by what it does under a client's load.
//!
//! Entry point: [`run`] with a [`Plan`] and a [`Progress`], returning a [`BenchReport`]. Every
//! test runs on one I/O path: a [`Job`] of the test issues [`Io`]s through [`engine::run`],
//! whose one loop checks each one against the [`engine::Target`] (no write to a read-only
//! target, the free-space reserve held while anything writes), queues it on the chosen
//! [`engine::Engine`]'s [`engine::IoQueue`] (io_uring, psync, or the mock device), reaps it and
//! times it. The [`behaviour`] tests (sync, cliff, span) are built on the same engines.
//!
//! Two modules are public because they are extension points: [`engine`] (engines, targets and
//! the mock device) and [`behaviour`] (the behaviour tests, their plans and the simulated
//! drives). Everything else is private and re-exported by name below.
//!
//! The library installs no signal handlers: the binary owns them and cancels a run through its
//! [`CancelToken`].

mod affinity;
pub mod behaviour;
mod cancel;
mod conditions;
pub mod engine;
mod error;
mod hook;
mod plan;
mod prefill;
mod progress;
mod qd1;
mod random;
mod randrw;
mod report;
mod run;
mod stats;
mod testfile;
mod workload;

pub use affinity::{allowed_cpus, pinning_for, Pinning, Placement};
pub use cancel::CancelToken;
pub use conditions::{DriveCounters, RunConditions, TemperatureTrace};
pub use engine::{EngineKind, EnginePreference};
pub use error::{BenchError, ByteSize};
pub use hook::{pause_point, AFTER_PREFILL, PAUSE_ENV};
pub use plan::{
    BenchTarget, EngineSettings, Plan, RandomIo, Safety, Selection, DEFAULT_SEED, QUICK_FILE_BYTES,
    QUICK_RUNTIME,
};
pub use prefill::FillJob;
pub use progress::{NoProgress, Phase, Progress};
pub use qd1::{Qd1Result, ReadSpan, ReadSpanKind};
pub use random::{RandomIoJob, RandomPattern};
pub use randrw::RandRwResult;
pub use report::{BenchReport, SCHEMA_VERSION};
pub use run::{run, STALE_FILE_WARNING};
pub use stats::LatencySummary;
pub use testfile::MIN_FILE_SIZE;
pub use workload::{
    Direction, Io, IoStats, Job, Next, ProgressCounter, StopCondition, ALIGN, SYNC,
};

/// The QD1 figures of merged statistics, as [`run`] computes them (for tests of the figures).
pub use qd1::result as qd1_result;
/// The randrw figures of merged statistics, as [`run`] computes them.
pub use randrw::result as randrw_result;
