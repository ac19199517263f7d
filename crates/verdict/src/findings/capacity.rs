//! NC5xx (capacity part): the drive size and free space against the chosen client's needs.

use probe::Facts;

use crate::code::Code;
use crate::model::{Finding, Severity};

use super::{format_bytes, ClientFailure, Clients};

pub fn check(
    facts: &Facts,
    clients: &Clients<'_>,
    failures: &mut Vec<ClientFailure>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if clients.needs.is_empty() {
        return out;
    }
    size(facts, clients, failures, &mut out);
    free(facts, clients, failures, &mut out);
    out
}

/// Data-center drives sell 1.92, 3.84 and 7.68 TB where consumer drives sell 2, 4 and 8 TB:
/// the same size class with more over-provisioning, so a need is met within this fraction.
pub const SIZE_CLASS_TOLERANCE: f64 = 0.96;

/// The client's free-space need is what one sync or prune cycle writes before it frees
/// anything; with less than this share of it left, neither can finish (docs/findings.md).
pub const CRITICAL_FREE_FRACTION: f64 = 0.25;
/// ext4 keeps its last 5 % for root: a client running as its own user sees a full disk here.
pub const FULL_FRACTION: f64 = 0.95;

/// The size the client docs speak of: the drive ("a 2 TB SSD"). A file system is always a
/// little smaller than its drive, so it is used only when the drives' sizes are unknown.
fn usable_size(facts: &Facts) -> Option<(u64, String)> {
    let sizes: Vec<u64> = facts
        .drives
        .iter()
        .filter_map(|d| d.capacity_bytes)
        .collect();
    if !sizes.is_empty() && sizes.len() == facts.drives.len() {
        let names: Vec<&str> = facts.drives.iter().map(|d| d.name.as_str()).collect();
        // Several drives under one path are RAID or LVM members; the file system says what
        // they add up to, when it is known.
        if sizes.len() > 1 {
            if let Some(total) = facts.mount.as_ref().and_then(|m| m.total_bytes) {
                return Some((total, format!("the file system over {}", names.join(" + "))));
            }
        }
        // Saturating: a hand-edited report can claim any size.
        let sum = sizes.iter().fold(0u64, |acc, s| acc.saturating_add(*s));
        return Some((sum, format!("drive {}", names.join(" + "))));
    }
    let mount = facts.mount.as_ref()?;
    Some((
        mount.total_bytes?,
        format!("the file system at {}", mount.mount_point),
    ))
}

/// What the size finding adds about the consensus client on the same disk and the list's
/// conservative size, after the verdict sentence.
fn node_note(clients: &Clients<'_>, have: f64) -> String {
    let mut note = String::new();
    match clients.consensus {
        Some(cl) => note.push_str(&format!(
            " The figures are for the pair: {}'s beacon database adds about {} to the free space a sync needs{}.",
            cl.display,
            format_bytes(cl.database_bytes),
            cl.node_disk_bytes
                .map(|d| format!(", and its documentation recommends {} for the whole node", format_bytes(d)))
                .unwrap_or_default()
        )),
        None => {
            if let Some(largest) = clients.consensus_known.iter().map(|c| c.database_bytes).max() {
                let names: Vec<&str> = clients
                    .consensus_known
                    .iter()
                    .map(|c| c.display.as_str())
                    .collect();
                note.push_str(&format!(
                    " A consensus client shares the disk ({}) and its database takes up to {} more; name yours to count it.",
                    names.join(", "),
                    format_bytes(largest)
                ));
            }
        }
    }
    if let Some(sizing) = clients.sizing {
        if have < sizing.conservative_disk_bytes as f64 {
            note.push_str(&format!(
                " The community list calls {} the conservative choice.",
                format_bytes(sizing.conservative_disk_bytes)
            ));
        }
    }
    note
}

fn size(
    facts: &Facts,
    clients: &Clients<'_>,
    failures: &mut Vec<ClientFailure>,
    out: &mut Vec<Finding>,
) {
    let Some((bytes, what)) = usable_size(facts) else {
        return;
    };
    let have = bytes as f64 / SIZE_CLASS_TOLERANCE;
    let below_min = clients.failing_by(|c| Some(c.min_disk_bytes as f64), |t| have < t, true);
    if let Some((client, need)) = below_min.first() {
        failures.push(ClientFailure {
            client: client.name.clone(),
            severity: Severity::Critical,
        });
        out.push(
            Finding::new(
                Code::Size,
                Severity::Critical,
                "Too small for the client",
                {
                    let need = format_bytes(*need as u64);
                    let recommended = format_bytes(client.recommended_disk_bytes);
                    let recommended = if recommended == need {
                        String::new()
                    } else {
                        format!(" (recommended {recommended})")
                    };
                    format!(
                        "{what} holds {}; {} needs at least {need}{recommended}.{}",
                        format_bytes(bytes),
                        clients.name(client),
                        node_note(clients, have),
                    )
                },
            )
            .with_fix(format!(
                "Use a drive of at least {} for the node's data",
                format_bytes(client.recommended_disk_bytes.max(client.min_disk_bytes))
            )),
        );
        return;
    }
    let below_rec = clients.failing_by(
        |c| Some(c.recommended_disk_bytes as f64),
        |t| have < t,
        true,
    );
    if let Some((client, rec)) = below_rec.first() {
        failures.push(ClientFailure {
            client: client.name.clone(),
            severity: Severity::Warning,
        });
        out.push(
            Finding::new(
                Code::Size,
                Severity::Warning,
                "Smaller than the client's recommended size",
                format!(
                    "{what} holds {}: enough for {} today (minimum {}), but below the recommended {}; the chain grows every week.{}",
                    format_bytes(bytes),
                    clients.name(client),
                    format_bytes(client.min_disk_bytes),
                    format_bytes(*rec as u64),
                    node_note(clients, have),
                ),
            )
            .with_fix(format!("Plan a move to a drive of {} or more", format_bytes(*rec as u64))),
        );
        return;
    }
    let names: Vec<&str> = clients.needs.iter().map(|c| c.display.as_str()).collect();
    out.push(Finding::new(
        Code::Size,
        Severity::Ok,
        "Big enough for the client",
        format!(
            "{what} holds {}, at least the recommended size for {}.{}",
            format_bytes(bytes),
            names.join(", "),
            node_note(clients, have)
        ),
    ));
}

fn free(
    facts: &Facts,
    clients: &Clients<'_>,
    failures: &mut Vec<ClientFailure>,
    out: &mut Vec<Finding>,
) {
    let Some(mount) = facts.mount.as_ref() else {
        return;
    };
    let Some(free) = mount.free_bytes else {
        return;
    };
    let have = free as f64;
    let failing = clients.failing_by(|c| Some(c.min_free_bytes as f64), |t| have < t, true);
    let used_fraction = mount
        .total_bytes
        .filter(|t| *t > 0)
        .map(|t| t.saturating_sub(free) as f64 / t as f64);
    let used = used_fraction
        .map(|u| format!(" ({:.0}% used)", 100.0 * u))
        .unwrap_or_default();
    if let Some((client, need)) = failing.first() {
        let cannot_finish = have < need * CRITICAL_FREE_FRACTION
            || used_fraction.is_some_and(|u| u >= FULL_FRACTION);
        let (severity, title) = if cannot_finish {
            (Severity::Critical, "Too little free space to sync or prune")
        } else {
            (Severity::Warning, "Little free space")
        };
        failures.push(ClientFailure {
            client: client.name.clone(),
            severity,
        });
        out.push(
            Finding::new(
                Code::FreeSpace,
                severity,
                title,
                format!(
                    "{} has {} free{used}; {} wants at least {} free to sync and to prune.",
                    mount.mount_point,
                    format_bytes(free),
                    clients.name(client),
                    format_bytes(*need as u64),
                ),
            )
            .with_fix(format!(
                "Free space (prune the client's database; find what is big with `sudo du -xh --max-depth=2 {} | sort -h | tail`), or move the data to a larger drive",
                mount.mount_point
            )),
        );
    } else {
        out.push(Finding::new(
            Code::FreeSpace,
            Severity::Ok,
            "Enough free space",
            format!(
                "{} has {} free{used}.",
                mount.mount_point,
                format_bytes(free)
            ),
        ));
    }
}
