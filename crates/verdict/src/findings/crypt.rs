//! NC507: dm-crypt's optional parameters, read from the table of every crypt layer (as root).
//!
//! dm-crypt queues every read and write through kernel work queues unless it is told not to
//! (`no_read_workqueue`, `no_write_workqueue`, Linux 5.9). Cloudflare, who wrote those flags,
//! measured the queues as the main cost of dm-crypt on fast drives: on NVMe they add latency
//! to every 4 KiB read, the reads a syncing client waits on. `allow_discards` lets TRIM reach
//! the drive (NC302 judges the discard limit itself). Sources: the kernel's dm-crypt.rst,
//! cryptsetup(8) `refresh`, Cloudflare's "Speeding up Linux disk encryption" (2020) and
//! crypttab(5) (docs/sources/stack-mapping.md).

use probe::{Facts, LayerKind};

use crate::code::Code;
use crate::model::{Finding, Severity};

/// The flags a node's crypt layer should carry, with cryptsetup's option for each (without
/// its dashes) and the
/// crypttab(5) option that sets it at boot.
const WANTED: [(&str, &str, &str); 3] = [
    (
        "no_read_workqueue",
        "perf-no_read_workqueue",
        "no-read-workqueue",
    ),
    (
        "no_write_workqueue",
        "perf-no_write_workqueue",
        "no-write-workqueue",
    ),
    ("allow_discards", "allow-discards", "discard"),
];

/// One finding per crypt layer whose table was read; none when no table was read (NC190
/// says the check needs root).
pub fn check(facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    for layer in facts.layers.iter().filter(|l| l.kind == LayerKind::Crypt) {
        let Some(target) = layer.dm_table.iter().find(|t| t.target == "crypt") else {
            continue;
        };
        let name = layer.detail.as_deref().unwrap_or(&layer.name);
        let missing: Vec<&(&str, &str, &str)> = WANTED
            .iter()
            .filter(|(flag, _, _)| !target.has_option(flag))
            .collect();
        if missing.is_empty() {
            out.push(
                Finding::new(
                    Code::CryptOptions,
                    Severity::Ok,
                    "dm-crypt skips its work queues and passes TRIM",
                    format!(
                        "The dm-crypt volume {name} ({}) is opened with no_read_workqueue, no_write_workqueue and allow_discards.",
                        layer.name
                    ),
                )
                .about(&layer.name),
            );
            continue;
        }
        let flags: Vec<&str> = missing.iter().map(|(flag, _, _)| *flag).collect();
        let queues_missing = flags.iter().any(|f| f.ends_with("workqueue"));
        let why = if queues_missing {
            "dm-crypt then passes every read and write through kernel work queues, which on a fast drive add latency to each of the client's small reads (Cloudflare measured the queues as most of dm-crypt's cost)"
        } else {
            "TRIM then stops at the encryption layer"
        };
        out.push(
            Finding::new(
                Code::CryptOptions,
                Severity::Info,
                if queues_missing {
                    "dm-crypt uses its work queues"
                } else {
                    "dm-crypt drops TRIM"
                },
                format!(
                    "The dm-crypt volume {name} ({}) is opened without {}: {why}.",
                    layer.name,
                    flags.join(", ")
                ),
            )
            .with_fix(refresh_fix(name))
            .about(&layer.name),
        );
    }
    out
}

/// The one command that sets every flag a node's crypt layer wants. `cryptsetup refresh`
/// resets each flag it is not given, so a fix for one flag (NC302's TRIM) must carry the
/// others too, or pasting it would undo NC507's work queues.
pub fn refresh_fix(name: &str) -> String {
    let options: Vec<String> = WANTED
        .iter()
        .map(|(_, option, _)| format!("--{option}"))
        .collect();
    let crypttab: Vec<&str> = WANTED.iter().map(|(_, _, tab)| *tab).collect();
    format!(
        "sudo cryptsetup refresh {} --persistent {name}   (LUKS2, cryptsetup 2.3.4+, asks for the passphrase; on LUKS1 or plain dm-crypt add `{}` to the volume's options in /etc/crypttab and reboot)",
        options.join(" "),
        crypttab.join(",")
    )
}
