//! NVMe: Identify Controller and SMART / Health log pages, parsed from raw byte buffers, and
//! the live admin-command ioctls that fetch them.
//!
//! Parsing is kept apart from the ioctl so that tests, fuzzers and replays feed raw
//! 4096/512-byte pages; only [`ioctl`] touches a device.

pub mod ioctl;
pub mod pages;
pub mod power;

pub use ioctl::{admin_identify_controller, admin_smart_log, IoctlError, NvmePassthruCmd};
pub use pages::{
    parse_identify_controller, parse_smart_log, PageError, SmartLog, IDENTIFY_PAGE_LEN,
    SMART_LOG_LEN,
};
