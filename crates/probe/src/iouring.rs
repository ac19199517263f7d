//! Whether io_uring can be used here: the `kernel.io_uring_disabled` sysctl (6.6+) and, on the
//! live machine, a real `io_uring_setup` — the only way to see a seccomp filter (Docker >= 25
//! blocks io_uring by default) or a too-small RLIMIT_MEMLOCK.

use crate::facts::IoUringStatus;
use crate::root::Root;

pub fn status(root: &Root, privileged: bool) -> IoUringStatus {
    let sysctl_disabled = root
        .read_attr("/proc/sys/kernel/io_uring_disabled")
        .and_then(|text| text.parse::<u8>().ok());
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
    match try_setup() {
        Ok(()) => IoUringStatus {
            available: Some(true),
            sysctl_disabled,
            reason: None,
        },
        Err(reason) => IoUringStatus {
            available: Some(false),
            sysctl_disabled,
            // The sysctl explains an EPERM better than the generic Docker hint.
            reason: Some(
                match (&sysctl_reason, reason.starts_with("io_uring_setup: EPERM")) {
                    (Some(sysctl), true) => format!("io_uring_setup: EPERM ({sysctl})"),
                    _ => reason,
                },
            ),
        },
    }
}

/// Creates and drops a tiny ring.
fn try_setup() -> Result<(), String> {
    match io_uring::IoUring::new(2) {
        Ok(_ring) => Ok(()),
        Err(err) => Err(match err.raw_os_error() {
            Some(libc::EPERM) => {
                "io_uring_setup: EPERM, blocked (Docker >= 25 seccomp or sysctl)".to_string()
            }
            Some(libc::ENOMEM) => {
                "io_uring_setup: ENOMEM, RLIMIT_MEMLOCK too low (raise `ulimit -l`)".to_string()
            }
            Some(libc::ENOSYS) => {
                "io_uring_setup: ENOSYS, kernel too old or built without io_uring".to_string()
            }
            _ => format!("io_uring_setup: {err}"),
        }),
    }
}
