//! Storage benchmarks for nodecheck: QD1 4 KiB random-read latency and the community's fio
//! randrw 75/25 QD64 test, on an io_uring engine with a portable fallback.
//!
//! Entry point: [`run`] with a [`Plan`] and a [`Progress`]. Building blocks for other
//! workloads (the behaviour tests, `nodecheck check`): [`engine`] (io_uring, psync, mock device)
//! and [`workload`] (jobs generating I/O and receiving completions).

pub mod affinity;
pub mod behaviour;
pub mod cancel;
pub mod engine;
pub mod error;
pub mod hook;
pub mod report;
pub mod run;
pub mod stats;
pub mod testfile;
pub mod workload;

pub use cancel::CancelToken;
pub use engine::EnginePreference;
pub use error::{BenchError, ByteSize};
pub use report::*;
pub use run::{run, BenchTarget, NoProgress, Phase, Plan, Progress};
