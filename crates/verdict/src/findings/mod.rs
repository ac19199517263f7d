//! The checks the judge runs, one module per family of findings.
//!
//! Codes are stable and grouped by hundreds: NC1xx identity, NC2xx health and temperature,
//! NC3xx TRIM, NC4xx controller, link and interface, NC5xx mount, file system and capacity,
//! NC6xx platform, cloud and io_uring, NC7xx benchmark, NC8xx behaviour (sync, cliff, span).
//! Every code has a section in `docs/findings.md`; a test keeps the two in step.

pub mod behaviour;
pub mod bench;
pub mod board;
pub mod caches;
pub mod capacity;
pub mod controller;
pub mod crypt;
pub mod during_run;
pub mod health;
pub mod identity;
pub mod media;
pub mod mount;
pub mod network;
pub mod platform;
pub mod power;
pub mod trim;
pub mod virtual_disks;
pub mod zfs;

use crate::clients::{ClientNeeds, ConsensusMode, ConsensusNeeds, HistoryMode, Sizing};
use crate::code::Code;
use crate::database::{Advisory, DriveEntry};
use crate::model::{Finding, Severity};

/// The clients whose needs the verdict applies: one named client, or all of them when the
/// user did not say which (then the most demanding one that fails is named).
#[derive(Debug, Clone)]
pub struct Clients<'a> {
    /// With a consensus client named, each execution client's needs paired with its.
    pub needs: Vec<&'a ClientNeeds>,
    pub strictest: bool,
    /// The consensus client on the same disk, when the user named one.
    pub consensus: Option<&'a ConsensusNeeds>,
    /// Every consensus client the database knows, for what the size finding says when none
    /// was named.
    pub consensus_known: &'a [ConsensusNeeds],
    /// The list's sizing advice.
    pub sizing: Option<&'a Sizing>,
    /// The history mode the user named (`--history`); each client's own default otherwise.
    pub history: Option<HistoryMode>,
    /// The consensus client's mode (`--cl-mode`).
    pub consensus_mode: ConsensusMode,
}

/// A client whose needs a measured value fails, and how badly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientFailure {
    pub client: String,
    pub severity: Severity,
}

impl<'a> Clients<'a> {
    /// The clients with a threshold for a metric whose measured value fails it, most demanding
    /// threshold first. `higher_is_stricter` tells which way a threshold is more demanding.
    pub fn failing_by<F>(
        &self,
        threshold: F,
        fails: impl Fn(f64) -> bool,
        higher_is_stricter: bool,
    ) -> Vec<(&'a ClientNeeds, f64)>
    where
        F: Fn(&ClientNeeds) -> Option<f64>,
    {
        let mut failing: Vec<(&'a ClientNeeds, f64)> = self
            .needs
            .iter()
            .filter_map(|c| threshold(c).map(|t| (*c, t)))
            .filter(|(_, t)| fails(*t))
            .collect();
        failing.sort_by(|a, b| {
            let order = a.1.total_cmp(&b.1);
            if higher_is_stricter {
                order.reverse()
            } else {
                order
            }
        });
        failing
    }

    /// "Reth" for one chosen client; with the strictest needs, "Reth (the most demanding
    /// client that fails)" so the reader knows why this client is named.
    pub fn name(&self, client: &ClientNeeds) -> String {
        if self.strictest && self.needs.len() > 1 {
            format!("{} (the most demanding client that fails)", client.display)
        } else {
            client.display.clone()
        }
    }
}

impl Finding {
    /// A finding without a fix or subject; chain [`Finding::with_fix`] and [`Finding::about`].
    pub fn new(
        code: Code,
        severity: Severity,
        title: impl Into<String>,
        detail: impl Into<String>,
    ) -> Finding {
        Finding {
            code,
            severity,
            title: title.into(),
            detail: detail.into(),
            fix: None,
            subject: None,
        }
    }

    pub fn with_fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = Some(fix.into());
        self
    }

    pub fn about(mut self, subject: impl Into<String>) -> Finding {
        self.subject = Some(subject.into());
        self
    }
}

// Findings print sizes as drive labels do, latencies in µs/ms and IOPS as the community list;
// the formats are shared with every other output (the units crate).
pub use units::latency::format_us as format_latency_us;
pub use units::rate::iops as format_iops;
pub use units::size::decimal as format_bytes;

/// `text` with at most `kept` of its characters, then `…` if anything was cut: findings state
/// their limits as the characters of a drive string they show.
pub fn clip(text: &str, kept: usize) -> String {
    units::text::clip(text, kept.saturating_add(1))
}

/// The finding of one of `entry`'s database advisories; `drive` names the drive it is about
/// when the machine may have several.
pub(crate) fn database_advisory(
    entry: &DriveEntry,
    advisory: &Advisory,
    drive: Option<&str>,
) -> Finding {
    let text = format!("{} [{}]", advisory.text.trim(), advisory.code);
    let detail = match drive {
        Some(name) => format!("{name}: {text}"),
        None => text,
    };
    let mut f = Finding::new(
        Code::DatabaseAdvisory,
        advisory.severity,
        format!("{} {}: database advisory", entry.vendor, entry.family),
        detail,
    );
    if let Some(name) = drive {
        f = f.about(name);
    }
    if let Some(fix) = &advisory.fix {
        f = f.with_fix(fix.trim());
    }
    f
}
