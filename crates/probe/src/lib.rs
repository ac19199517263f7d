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
pub mod block;
pub mod cgroup;
pub mod diskstats;
pub mod dm;
pub mod error;
pub mod extents;
pub mod facts;
#[cfg(feature = "fixtures")]
pub mod fixture;
pub mod fstab;
pub mod hwmon;
pub mod input;
pub mod interrupts;
pub mod io_sample;
pub mod iouring;
pub mod mapping;
pub mod mounts;
pub mod network;
pub mod nvme;
pub mod pci;
pub mod platform;
pub mod power;
pub mod pressure;
pub mod probe;
pub mod process_io;
pub mod processes;
pub mod root;
pub mod smartctl;
pub mod space;
pub mod stack;
pub mod sysfs;
pub mod usb;
pub mod vpd;
pub mod zfs;

pub use error::ProbeError;
pub use facts::*;
pub use probe::{probe, ProbeOptions};
pub use root::Root;
pub use zfs::ZfsFacts;
