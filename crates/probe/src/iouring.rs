//! Whether io_uring can be used here: the `kernel.io_uring_disabled` sysctl (6.6+) and, on the
//! live machine, a real `io_uring_setup` — the only way to see a seccomp filter (Docker >= 25
//! blocks io_uring by default) or a too-small RLIMIT_MEMLOCK.

use std::io;

use crate::facts::IoUringStatus;
use crate::root::Root;

pub fn status(root: &Root, privileged: bool) -> IoUringStatus {
    let sysctl_disabled = sysctl(root);
    let sysctl_reason = match sysctl_disabled {
        Some(2) => Some("disabled for everyone by sysctl kernel.io_uring_disabled=2".to_string()),
        Some(1) if !privileged => Some(
            "restricted to privileged users and kernel.io_uring_group by sysctl kernel.io_uring_disabled=1"
                .to_string(),
        ),
        _ => None,
    };
    if !root.is_live() {
        // A snapshot cannot show seccomp or rlimits: only a sysctl that forbids it is certain.
        return IoUringStatus {
            available: (sysctl_disabled == Some(2)).then_some(false),
            sysctl_disabled,
            reason: sysctl_reason,
        };
    }
    match io_uring::IoUring::new(2) {
        Ok(_ring) => IoUringStatus {
            available: Some(true),
            sysctl_disabled,
            reason: None,
        },
        Err(err) => IoUringStatus {
            available: Some(false),
            sysctl_disabled,
            reason: Some(explain_setup_error(root, &err)),
        },
    }
}

/// Why `io_uring_setup` failed, in the operator's terms: an EPERM is told apart by the sysctl
/// (which a seccomp filter does not set), an ENOMEM names the locked-memory limit.
pub fn explain_setup_error(root: &Root, err: &io::Error) -> String {
    match err.raw_os_error() {
        Some(libc::EPERM) => match sysctl(root) {
            Some(2) => {
                "io_uring_setup: EPERM, io_uring is disabled (kernel.io_uring_disabled=2)".into()
            }
            Some(1) => "io_uring_setup: EPERM, io_uring is limited to privileged users and \
                        kernel.io_uring_group (kernel.io_uring_disabled=1)"
                .into(),
            _ => "io_uring_setup: EPERM, blocked by a seccomp filter (Docker >= 25's default \
                  profile?)"
                .into(),
        },
        Some(libc::ENOSYS) => {
            "io_uring_setup: ENOSYS, the kernel has no io_uring (older than 5.1 or built without \
             it)"
            .into()
        }
        Some(libc::ENOMEM) => format!(
            "io_uring_setup: ENOMEM, the locked-memory limit is too low (RLIMIT_MEMLOCK {})",
            memlock_limit()
        ),
        _ => format!("io_uring_setup: {err}"),
    }
}

/// This process's soft RLIMIT_MEMLOCK, which bounds io_uring's rings and registered buffers
/// on kernels before 5.12.
pub fn memlock_limit() -> String {
    match nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_MEMLOCK) {
        Ok((soft, _)) if soft == libc::RLIM_INFINITY => "unlimited".into(),
        Ok((soft, _)) => format!("{} KiB", soft / 1024),
        Err(err) => format!("unknown: {err}"),
    }
}

/// `kernel.io_uring_disabled`: 0 all, 1 privileged only, 2 nobody; `None` before 6.6.
fn sysctl(root: &Root) -> Option<u8> {
    root.read_attr("/proc/sys/kernel/io_uring_disabled")
        .and_then(|text| text.parse::<u8>().ok())
}
