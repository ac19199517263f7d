//! Storage benchmarks for nodecheck: QD1 4 KiB random-read latency and the community's fio
//! randrw 75/25 QD64 test, on an io_uring engine with a portable fallback.

pub mod report;

pub use report::*;
