//! Storage facts under a path, read from sysfs, procfs, `/etc` and (on a live machine, as root)
//! NVMe ioctls and `smartctl`.
//!
//! Everything goes through a [`root::Root`]: `/` on a live machine, or a fixture tree / unpacked
//! snapshot in tests and replays. Under a non-`/` root the probe runs no ioctls and no external
//! programs, so the same code answers for another machine.
//!
//! The probe never judges: it returns [`Facts`], plain serializable data with `None` wherever a
//! fact is unknown. Judging is the `verdict` crate's job.

pub mod ata;
pub mod facts;
pub mod nvme;

pub use facts::*;
