//! The checks the judge runs, one module per family of findings.
//!
//! Codes are stable and grouped by hundreds: NC1xx identity, NC2xx health and temperature,
//! NC3xx TRIM, NC4xx controller, link and interface, NC5xx mount, file system and capacity,
//! NC6xx platform, cloud and io_uring, NC7xx benchmark, NC8xx behaviour (sync, cliff, span).
//! Every code has a section in `docs/findings.md`; a test keeps the two in step.

pub mod behaviour;
pub mod bench;
pub mod capacity;
pub mod controller;
pub mod health;
pub mod identity;
pub mod media;
pub mod mount;
pub mod network;
pub mod platform;
pub mod trim;

use crate::clients::{ClientNeeds, ConsensusNeeds, Sizing};
use crate::code::Code;
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

/// Strings the drive reports end up in the text verbatim; a hostile or broken drive can report
/// kilobytes. Real model strings are at most 40 characters (ATA IDENTIFY words 27-46, NVMe MN).
pub fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Decimal units, as drive makers and client docs state sizes ("2 TB", "250 GB").
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [(&str, f64); 4] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    let value = bytes as f64;
    for (unit, scale) in UNITS {
        if value >= scale {
            let scaled = value / scale;
            return if scaled >= 100.0 || (scaled - scaled.round()).abs() < 0.05 {
                format!("{:.0} {unit}", scaled)
            } else {
                format!("{:.1} {unit}", scaled)
            };
        }
    }
    format!("{bytes} B")
}

/// Latencies read best in the unit a person would say: "180 µs", "1.4 ms".
pub fn format_latency_us(us: f64) -> String {
    if !us.is_finite() {
        return "n/a".to_owned();
    }
    if us >= 1000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{:.0} µs", us)
    }
}

/// IOPS as the community list writes them: "68k", "950".
pub fn format_iops(iops: f64) -> String {
    if !iops.is_finite() {
        return "n/a".to_owned();
    }
    if iops >= 10_000.0 {
        format!("{:.0}k", iops / 1000.0)
    } else if iops >= 1000.0 {
        format!("{:.1}k", iops / 1000.0)
    } else {
        format!("{:.0}", iops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_cuts_on_a_char_boundary() {
        assert_eq!(
            clip("Samsung SSD 980 PRO 2TB", 64),
            "Samsung SSD 980 PRO 2TB"
        );
        assert_eq!(clip("ääääää", 3), "äää…");
        assert_eq!(clip("", 3), "");
    }

    #[test]
    fn bytes_read_like_a_spec_sheet() {
        assert_eq!(format_bytes(250_059_350_016), "250 GB");
        assert_eq!(format_bytes(2_000_398_934_016), "2 TB");
        assert_eq!(format_bytes(1_200_000_000_000), "1.2 TB");
        assert_eq!(format_bytes(120_034_123_776), "120 GB");
        assert_eq!(format_bytes(512), "512 B");
    }

    #[test]
    fn latency_switches_to_ms() {
        assert_eq!(format_latency_us(180.4), "180 µs");
        assert_eq!(format_latency_us(1400.0), "1.4 ms");
        assert_eq!(format_latency_us(f64::NAN), "n/a");
    }

    #[test]
    fn iops_in_thousands() {
        assert_eq!(format_iops(68_000.0), "68k");
        assert_eq!(format_iops(2_500.0), "2.5k");
        assert_eq!(format_iops(950.0), "950");
    }
}
