//! NVMe: Identify Controller and SMART / Health log pages, parsed from raw byte buffers, and
//! the live admin-command ioctls that fetch them.
//!
//! Parsing is kept apart from the ioctl so that tests, fuzzers and replays feed raw
//! 4096/512-byte pages; only [`ioctl`] touches a device.

use std::path::{Path, PathBuf};

use crate::root::Root;

pub mod ioctl;
pub mod pages;
pub mod power;

pub use ioctl::{admin_identify_controller, admin_smart_log, IoctlError, NvmePassthruCmd};
pub use pages::{
    parse_identify_controller, parse_smart_log, PageError, SmartLog, IDENTIFY_PAGE_LEN,
    SMART_LOG_LEN,
};

/// The sysfs controller directory of the namespace at `namespace` (`/sys/block/nvme0n1`):
/// its `device` points at `nvmeX`, or with native multipath at `nvme-subsysN`, whose first
/// controller we take.
pub(crate) fn namespace_controller(root: &Root, namespace: &Path) -> Option<PathBuf> {
    let device = root.canonicalize(namespace.join("device")).ok()?;
    let name = device.file_name()?.to_str()?.to_string();
    if !name.starts_with("nvme-subsys") {
        return Some(device);
    }
    root.read_dir(&device)
        .into_iter()
        .find(|entry| {
            entry
                .strip_prefix("nvme")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .and_then(|entry| root.canonicalize(device.join(entry)).ok())
}
