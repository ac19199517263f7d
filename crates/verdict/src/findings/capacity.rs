//! NC5xx (capacity part): the drive size and free space against the chosen client's needs.

use probe::Facts;

use crate::clients::{ClientNeeds, ConsensusMode, ConsensusNeeds, HistoryMode, StorageFigure};
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

/// Below this share of a node's synced size in use, a file system counts as fresh: the whole
/// database is still to come. Above it, what is there is taken to be the node's own data.
pub const IN_USE_FRACTION: f64 = 0.5;

/// How long one execution client (with the consensus client on the same disk) lasts on this
/// storage: today's size of both databases in the modes they run in, their growth, and the
/// room left once they are there.
#[derive(Debug, Clone)]
pub struct Runway<'a> {
    pub client: &'a ClientNeeds,
    pub history: HistoryMode,
    /// True when the mode is the client's own default, not one the user named.
    pub history_is_default: bool,
    pub execution: &'a StorageFigure<HistoryMode>,
    /// The consensus client counted, its figure, and whether the user named it.
    pub consensus: Option<(&'a ConsensusNeeds, &'a StorageFigure<ConsensusMode>, bool)>,
    /// Both databases today.
    pub need_bytes: u64,
    pub growth_bytes_per_month: u64,
    /// Room once the databases are synced (negative: they do not fit).
    pub headroom_bytes: i128,
    /// What the room was measured against, in words.
    pub room: String,
    /// `headroom / growth`; `None` when nothing grows.
    pub months: Option<f64>,
}

impl Runway<'_> {
    fn fits(&self) -> bool {
        self.headroom_bytes >= 0
    }

    /// Ordering for "fails first": what does not fit at all, by how much, then the fewest
    /// months.
    fn urgency(&self) -> (bool, f64) {
        if self.fits() {
            (false, -self.months.unwrap_or(f64::INFINITY))
        } else {
            (true, -(self.headroom_bytes as f64))
        }
    }
}

/// The history mode a client is judged in: the one asked for when it has a figure for it,
/// else its default.
fn history_of(
    client: &ClientNeeds,
    asked: Option<HistoryMode>,
) -> Option<(HistoryMode, bool, &StorageFigure<HistoryMode>)> {
    if let Some(mode) = asked {
        if let Some(figure) = client.figure(mode) {
            return Some((mode, false, figure));
        }
    }
    let mode = client.default_history;
    client.figure(mode).map(|f| (mode, true, f))
}

/// The consensus database on the same disk: the named client's in the asked mode, else the
/// largest default allowance of the clients the database knows (a node always runs one).
fn consensus_of<'a>(
    clients: &Clients<'a>,
) -> Option<(&'a ConsensusNeeds, &'a StorageFigure<ConsensusMode>, bool)> {
    if let Some(cl) = clients.consensus {
        let figure = cl
            .figure(clients.consensus_mode)
            .or(cl.figure(ConsensusMode::Default))?;
        return Some((cl, figure, true));
    }
    clients
        .consensus_known
        .iter()
        .filter_map(|cl| {
            cl.figure(clients.consensus_mode)
                .or(cl.figure(ConsensusMode::Default))
                .map(|f| (cl, f, false))
        })
        .max_by_key(|(_, f, _)| f.disk_bytes)
}

/// The room the databases have: on a file system that already holds about the node's size,
/// its free space (the node is there); on a fresh one, its free space less the databases to
/// come; with no file system, the drive less the databases.
fn room(facts: &Facts, need: u64) -> Option<(i128, String)> {
    if let Some(mount) = facts.mount.as_ref() {
        if let (Some(free), Some(total)) = (mount.free_bytes, mount.total_bytes) {
            let used = total.saturating_sub(free);
            if used as f64 >= need as f64 * IN_USE_FRACTION {
                return Some((
                    i128::from(free),
                    format!(
                        "{} already holds {} (taken to be the node's synced data) and has {} free",
                        mount.mount_point,
                        format_bytes(used),
                        format_bytes(free)
                    ),
                ));
            }
            return Some((
                i128::from(free) - i128::from(need),
                format!("{} has {} free", mount.mount_point, format_bytes(free)),
            ));
        }
    }
    let (bytes, what) = usable_size(facts)?;
    Some((
        i128::from(bytes) - i128::from(need),
        format!("{what} holds {}", format_bytes(bytes)),
    ))
}

/// The runway of each client judged, most urgent first.
pub fn runways<'a>(facts: &Facts, clients: &Clients<'a>) -> Vec<Runway<'a>> {
    let consensus = consensus_of(clients);
    let mut out: Vec<Runway<'a>> = clients
        .needs
        .iter()
        .filter_map(|client| {
            let (history, history_is_default, execution) = history_of(client, clients.history)?;
            let cl_bytes = consensus.map_or(0, |(_, f, _)| f.disk_bytes);
            let cl_growth = consensus.map_or(0, |(_, f, _)| f.growth_bytes_per_month);
            let need_bytes = execution.disk_bytes.saturating_add(cl_bytes);
            let growth = execution.growth_bytes_per_month.saturating_add(cl_growth);
            let (headroom_bytes, room) = room(facts, need_bytes)?;
            let months = (growth > 0).then(|| headroom_bytes as f64 / growth as f64);
            Some(Runway {
                client,
                history,
                history_is_default,
                execution,
                consensus,
                need_bytes,
                growth_bytes_per_month: growth,
                headroom_bytes,
                room,
                months,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        let (a_fails, a_by) = a.urgency();
        let (b_fails, b_by) = b.urgency();
        b_fails.cmp(&a_fails).then(b_by.total_cmp(&a_by))
    });
    out
}

/// "Reth with archive node (its own default) takes about 2.8 TB
/// (as of 2025)": the figures behind a runway, with their dates.
fn figures_text(clients: &Clients<'_>, r: &Runway<'_>) -> String {
    // A pair's display is "Reth + Lighthouse"; the history mode is the execution client's.
    let execution = r
        .consensus
        .and_then(|(cl, _, _)| r.client.display.strip_suffix(&format!(" + {}", cl.display)))
        .unwrap_or(&r.client.display);
    let mode = if r.history_is_default {
        format!(
            "{} ({execution}'s own default; name another history mode to judge that one)",
            r.history.after_client(),
        )
    } else {
        r.history.after_client().to_owned()
    };
    // Without a named client the first runway is whichever client runs out first, failing
    // or not: say so rather than "the most demanding client that fails".
    let who = if clients.strictest && clients.needs.len() > 1 {
        format!(
            "{} (the client that runs out of room first)",
            r.client.display
        )
    } else {
        r.client.display.clone()
    };
    let mut text = format!(
        "{who}: {execution} {mode} takes about {} (figure as of {})",
        format_bytes(r.execution.disk_bytes),
        r.execution.as_of
    );
    if let Some((cl, figure, named)) = r.consensus {
        let mode = match clients.consensus_mode {
            ConsensusMode::Default => String::new(),
            ConsensusMode::Supernode => " as a supernode".to_owned(),
        };
        text.push_str(&format!(
            " and {}{mode} about {} (as of {}{})",
            cl.display,
            format_bytes(figure.disk_bytes),
            figure.as_of,
            if named {
                ""
            } else {
                "; no consensus client named, so the largest consensus allowance is counted"
            }
        ));
    }
    text.push_str(&format!(
        ": {} together, growing about {} a month",
        format_bytes(r.need_bytes),
        format_bytes(r.growth_bytes_per_month)
    ));
    text
}

fn conservative_note(clients: &Clients<'_>, capacity: Option<u64>) -> String {
    match (clients.sizing, capacity) {
        (Some(sizing), Some(have))
            if (have as f64) / SIZE_CLASS_TOLERANCE < sizing.conservative_disk_bytes as f64 =>
        {
            format!(
                " The community list and EIP-7870 call {} the conservative size.",
                format_bytes(sizing.conservative_disk_bytes)
            )
        }
        _ => String::new(),
    }
}

fn months_text(months: f64) -> String {
    if months >= 24.0 {
        format!(
            "about {:.0} months ({:.1} years)",
            months.floor(),
            months / 12.0
        )
    } else if months >= 1.0 {
        format!("about {:.0} months", months.floor())
    } else {
        "less than a month".to_owned()
    }
}

/// The drive size that holds `r`'s databases and `months` of growth: the next of the sizes
/// drives are sold in.
fn drive_for(r: &Runway<'_>, months: u32) -> u64 {
    let wanted = r
        .need_bytes
        .saturating_add(r.growth_bytes_per_month.saturating_mul(u64::from(months)));
    const SOLD: [u64; 6] = [
        1_000_000_000_000,
        2_000_000_000_000,
        4_000_000_000_000,
        8_000_000_000_000,
        16_000_000_000_000,
        32_000_000_000_000,
    ];
    SOLD.into_iter()
        .find(|size| *size as f64 * SIZE_CLASS_TOLERANCE >= wanted as f64)
        .unwrap_or(wanted)
}

fn size(
    facts: &Facts,
    clients: &Clients<'_>,
    failures: &mut Vec<ClientFailure>,
    out: &mut Vec<Finding>,
) {
    let runways = runways(facts, clients);
    let Some(first) = runways.first() else {
        return;
    };
    let min_months = clients.sizing.map_or(12, |s| s.min_months_of_growth);
    let capacity = usable_size(facts).map(|(bytes, _)| bytes);
    let figures = figures_text(clients, first);
    let conservative = conservative_note(clients, capacity);
    let target = drive_for(first, min_months.max(24));
    let fix = format!(
        "Use a drive of {} or more for the node's data (it holds {} and two years of growth){}",
        format_bytes(target),
        first.client.display,
        match first.history {
            HistoryMode::PostMerge => String::new(),
            _ => format!(
                ", or run {} with a smaller history mode (post-merge history expiry roughly halves it)",
                first.client.display
            ),
        }
    );
    // Without a named client the shortfall may be another client's: a warning that says
    // which, not a verdict on the user's node.
    let unnamed = clients.strictest && clients.needs.len() > 1;
    let unnamed_note = if unnamed {
        " No client was named or detected, so every client was judged; name yours (and its history mode) for its own figures."
    } else {
        ""
    };
    let (severity, title, detail) = if !first.fits() {
        let short = u64::try_from(-first.headroom_bytes).unwrap_or(u64::MAX);
        (
            Severity::Critical,
            "Too small for the node",
            format!(
                "{figures}; {}: {} less than they take today.{conservative}{unnamed_note}",
                first.room,
                format_bytes(short)
            ),
        )
    } else {
        let left = u64::try_from(first.headroom_bytes).unwrap_or(u64::MAX);
        match first.months {
            Some(months) if months < f64::from(min_months) => (
                Severity::Warning,
                "Fills within a year",
                format!(
                    "{figures}; {}, leaving {} once synced: {} of growth, fewer than {min_months}.{conservative}{unnamed_note}",
                    first.room,
                    format_bytes(left),
                    months_text(months)
                ),
            ),
            months => (
                Severity::Ok,
                "Room for the node to grow",
                format!(
                    "{figures}; {}, leaving {} once synced: {} of growth.{conservative}",
                    first.room,
                    format_bytes(left),
                    months.map_or_else(|| "it does not grow".to_owned(), months_text)
                ),
            ),
        }
    };
    // Unnamed: the shortfall is the most demanding client's, perhaps not the user's. Critical
    // only when no client fits at all, a warning when none lasts `min_months`, else it informs.
    let (severity, title) = if unnamed && severity > Severity::Ok {
        let lasts =
            |r: &Runway<'_>| r.fits() && r.months.is_none_or(|m| m >= f64::from(min_months));
        if !runways.iter().any(Runway::fits) {
            (Severity::Critical, "Too small for any client")
        } else {
            let title = if first.fits() {
                "Fills within a year for the most demanding client"
            } else {
                "Too small for the most demanding client"
            };
            if runways.iter().any(lasts) {
                (Severity::Info, title)
            } else {
                (Severity::Warning, title)
            }
        }
    } else {
        (severity, title)
    };
    if severity > Severity::Info {
        failures.push(ClientFailure {
            client: first.client.name.clone(),
            severity,
        });
    }
    let finding = Finding::new(Code::Size, severity, title, detail);
    out.push(if severity > Severity::Ok {
        finding.with_fix(fix)
    } else {
        finding
    });
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
