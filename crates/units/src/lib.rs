//! The units every nodecheck crate reads and prints, defined once so that a size, a latency or
//! a rate reads the same in a finding, a table, a bench report and an error message.
//!
//! - [`size`]: byte counts. Two parsing conventions exist on purpose: drive capacities follow
//!   the vendors (`2TB` is 2·10¹² bytes, binary needs the `i`), test-file sizes follow fio
//!   (`150G` is 150 GiB) so that the community's fio command and ours agree. Printing has one
//!   function per audience (a drive label, a free-space figure, an exact cap).
//! - [`latency`]: microsecond figures in the unit a person would say (`85 µs`, `1.2 ms`).
//! - [`rate`]: IOPS and throughput.
//! - [`signal`]: termination signals by name, for messages.
//! - [`text`]: bounding hostile strings for output and quoting them for a shell.
//!
//! The crate depends on nothing of nodecheck's, so probe, bench, verdict and the binary can all
//! use it.

pub mod latency;
pub mod rate;
pub mod signal;
pub mod size;
pub mod text;

#[cfg(test)]
mod tests;
