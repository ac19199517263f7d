//! Live NVMe admin commands through `NVME_IOCTL_ADMIN_CMD` (no nvme-cli).
//!
//! Only the probe running on the live machine calls these; replays and tests use the page
//! parsers in [`super::pages`] directly.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use thiserror::Error;

use super::pages::{
    parse_identify_controller, parse_smart_log, PageError, SmartLog, IDENTIFY_PAGE_LEN,
    SMART_LOG_LEN,
};
use crate::facts::NvmeIdentify;

/// `_IOWR('N', 0x41, struct nvme_passthru_cmd)` from `include/uapi/linux/nvme_ioctl.h`.
pub const NVME_IOCTL_ADMIN_CMD: u32 = 0xC048_4E41;

const OPCODE_GET_LOG_PAGE: u8 = 0x02;
const OPCODE_IDENTIFY: u8 = 0x06;
const CNS_IDENTIFY_CONTROLLER: u32 = 0x01;
/// Log identifier 02h with NUMDL = 127 (128 dwords = 512 bytes) in bits 31:16.
const CDW10_SMART_LOG: u32 = 0x007F_0002;
/// The SMART log for the whole controller, as NVMe 1.4 and earlier require.
const NSID_ALL: u32 = 0xFFFF_FFFF;
/// Generous enough for a drive that is busy with garbage collection, short enough that a
/// wedged controller does not hang the probe.
const ADMIN_TIMEOUT_MS: u32 = 5_000;

/// `struct nvme_passthru_cmd` (a.k.a. `nvme_admin_cmd`), 72 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct NvmePassthruCmd {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    pub result: u32,
}

// The kernel decodes the struct by size and offset; a layout drift would send garbage to the
// drive, so it must fail the build instead.
const _: () = assert!(std::mem::size_of::<NvmePassthruCmd>() == 72);
const _: () = assert!(std::mem::offset_of!(NvmePassthruCmd, addr) == 24);
const _: () = assert!(std::mem::offset_of!(NvmePassthruCmd, cdw10) == 40);
const _: () = assert!(std::mem::offset_of!(NvmePassthruCmd, result) == 68);
const _: () = assert!(
    nix::request_code_readwrite!(b'N', 0x41, std::mem::size_of::<NvmePassthruCmd>()) as u32
        == NVME_IOCTL_ADMIN_CMD
);

nix::ioctl_readwrite_bad!(nvme_admin_cmd, NVME_IOCTL_ADMIN_CMD, NvmePassthruCmd);

/// A page-aligned DMA target: the kernel maps user buffers for the controller, and some
/// controllers (and older kernels' bounce logic) misbehave on unaligned ones.
#[repr(C, align(4096))]
struct AlignedPage([u8; IDENTIFY_PAGE_LEN]);

/// Why an admin command could not deliver its page.
#[derive(Debug, Error)]
pub enum IoctlError {
    #[error("cannot open {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{command} ioctl on {} failed: {errno}", path.display())]
    Ioctl {
        path: PathBuf,
        command: &'static str,
        errno: Errno,
    },
    /// The controller completed the command with a non-zero NVMe status (status code type
    /// and code, as the ioctl returns them).
    #[error("{command} on {} returned NVMe status {status:#x}", path.display())]
    NvmeStatus {
        path: PathBuf,
        command: &'static str,
        status: i32,
    },
    #[error("{command} on {}: {source}", path.display())]
    Page {
        path: PathBuf,
        command: &'static str,
        #[source]
        source: PageError,
    },
}

impl IoctlError {
    /// True when the failure is a privilege problem (EACCES/EPERM opening the device or
    /// issuing the command): the fact needs root rather than being absent.
    pub fn needs_root(&self) -> bool {
        let is_privilege_errno = |errno: i32| errno == libc::EACCES || errno == libc::EPERM;
        match self {
            IoctlError::Open { source, .. } => {
                source.raw_os_error().is_some_and(is_privilege_errno)
            }
            IoctlError::Ioctl { errno, .. } => is_privilege_errno(*errno as i32),
            IoctlError::NvmeStatus { .. } | IoctlError::Page { .. } => false,
        }
    }
}

fn open_device(dev: &Path) -> Result<File, IoctlError> {
    // Read-only is enough for admin passthrough and is what nvme-cli uses.
    File::open(dev).map_err(|source| IoctlError::Open {
        path: dev.to_path_buf(),
        source,
    })
}

fn run_admin(
    dev: &Path,
    command: &'static str,
    mut cmd: NvmePassthruCmd,
    buffer: &mut AlignedPage,
    data_len: usize,
) -> Result<(), IoctlError> {
    let file = open_device(dev)?;
    cmd.addr = buffer.0.as_mut_ptr() as u64;
    cmd.data_len = u32::try_from(data_len.min(buffer.0.len())).unwrap_or(0);
    cmd.timeout_ms = ADMIN_TIMEOUT_MS;
    // SAFETY: `cmd` is a valid `nvme_passthru_cmd` whose `addr`/`data_len` describe `buffer`,
    // which outlives the call and is at least `data_len` bytes long; the fd is open.
    let status = unsafe { nvme_admin_cmd(file.as_raw_fd(), &mut cmd) }.map_err(|errno| {
        IoctlError::Ioctl {
            path: dev.to_path_buf(),
            command,
            errno,
        }
    })?;
    if status != 0 {
        return Err(IoctlError::NvmeStatus {
            path: dev.to_path_buf(),
            command,
            status,
        });
    }
    Ok(())
}

/// Sends Identify Controller (opcode 06h, CNS 01h) to `dev` (`/dev/nvme0`) and parses it.
pub fn admin_identify_controller(dev: &Path) -> Result<NvmeIdentify, IoctlError> {
    const COMMAND: &str = "Identify Controller";
    let mut buffer = Box::new(AlignedPage([0; IDENTIFY_PAGE_LEN]));
    let cmd = NvmePassthruCmd {
        opcode: OPCODE_IDENTIFY,
        nsid: 0,
        cdw10: CNS_IDENTIFY_CONTROLLER,
        ..NvmePassthruCmd::default()
    };
    run_admin(dev, COMMAND, cmd, &mut buffer, IDENTIFY_PAGE_LEN)?;
    parse_identify_controller(&buffer.0).map_err(|source| IoctlError::Page {
        path: dev.to_path_buf(),
        command: COMMAND,
        source,
    })
}

/// Reads the SMART / Health Information log (Get Log Page 02h, controller-wide) from `dev`.
pub fn admin_smart_log(dev: &Path) -> Result<SmartLog, IoctlError> {
    const COMMAND: &str = "Get Log Page (SMART / Health)";
    let mut buffer = Box::new(AlignedPage([0; IDENTIFY_PAGE_LEN]));
    let cmd = NvmePassthruCmd {
        opcode: OPCODE_GET_LOG_PAGE,
        nsid: NSID_ALL,
        cdw10: CDW10_SMART_LOG,
        ..NvmePassthruCmd::default()
    };
    run_admin(dev, COMMAND, cmd, &mut buffer, SMART_LOG_LEN)?;
    parse_smart_log(&buffer.0[..SMART_LOG_LEN]).map_err(|source| IoctlError::Page {
        path: dev.to_path_buf(),
        command: COMMAND,
        source,
    })
}
