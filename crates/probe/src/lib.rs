//! Storage facts under a path, read from sysfs, procfs, `/etc` and (on a live machine, as root)
//! NVMe ioctls and `smartctl`.
//!
//! Everything goes through a [`Root`]: `/` on a live machine, or a fixture tree / unpacked
//! snapshot in tests and replays. Under a non-`/` root the probe runs no ioctls and no external
//! programs, so the same code answers for another machine.
//!
//! The probe never judges: it returns [`Facts`], plain serializable data with `None` wherever a
//! fact is unknown. Judging is the `verdict` crate's job.

// The insides: how the facts under a path are gathered.
mod block;
mod devices;
mod error;
mod facts;
mod gather;
mod pci;
mod platform;
mod power;
mod process_io;
mod root;
mod stack;
mod usb;
mod vmbus;
mod zfs;

// Readers of one raw format or one kernel interface, public as namespaces because callers use
// them on their own: the snapshot's redaction re-encodes ATA identify dumps, `watch` samples
// `diskstats` and cgroups, the commands look for a client's datadir when given no path, the bench reads interrupts, io_uring limits and free space, and
// the fuzz targets and proptests feed each parser hostile bytes.
pub mod ata;
pub mod cgroup;
pub mod datadir;
pub mod diskstats;
pub mod dm;
pub mod extents;
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
pub mod pressure;
pub mod processes;
pub mod smartctl;
pub mod space;
pub mod sysfs;
pub mod vpd;

#[cfg(feature = "fixtures")]
pub mod fixture;

// The entry: probe the storage under a path, through a root.
pub use gather::{probe_path, ProbeOptions};
pub use root::{AccessKind, AccessedPath, Root, ATTR_CAP, BYTES_CAP, TEXT_CAP};

pub use error::ProbeError;

// The facts it returns.
pub use facts::{
    AtaDetails, AtimeMode, ControllerMode, Drive, Facts, FstabEntry, Health, HealthSource,
    Interface, IoUringStatus, Layer, LayerKind, ModelSource, MountFacts, NetworkShare, NvmeDetails,
    NvmeIdentify, PcieLink, Platform, ShareKind, Unavailable, UnavailableReason, UsbDetails,
    SCHEMA_VERSION,
};
pub use power::PowerSettings;
pub use vmbus::VmbusDisk;
pub use zfs::ZfsFacts;
