//! Storage benchmarks for nodecheck: QD1 4 KiB random-read latency and the community's fio
//! randrw 75/25 QD64 test, on an io_uring engine with a portable fallback, and the behaviour
//! tests that judge a drive by what it does under a client's load.
//!
//! Entry point: [`run`] with a [`Plan`] and a [`Progress`]. One module per test: [`qd1`],
//! [`randrw`] (both [`random`] I/O at a depth) and [`behaviour`] (sync, cliff, span). Building
//! blocks: [`engine`] (io_uring, psync, mock device), [`workload`] (jobs generating I/O and
//! receiving completions), [`testfile`] (the one file a run writes) and [`prefill`].
//!
//! The library installs no signal handlers: the binary owns them and cancels a run through its
//! [`CancelToken`].

pub mod affinity;
pub mod behaviour;
pub mod cancel;
pub mod conditions;
pub mod engine;
pub mod error;
pub mod hook;
pub mod plan;
pub mod prefill;
pub mod progress;
pub mod qd1;
pub mod random;
pub mod randrw;
pub mod report;
pub mod run;
pub mod stats;
pub mod testfile;
pub mod workload;

pub use cancel::CancelToken;
pub use conditions::{DriveCounters, RunConditions, TemperatureTrace};
pub use engine::EnginePreference;
pub use error::{BenchError, ByteSize};
pub use plan::{BenchTarget, EngineSettings, Plan, RandomIo, Safety, Selection};
pub use progress::{NoProgress, Phase, Progress};
pub use report::*;
pub use run::{run, STALE_FILE_WARNING};
