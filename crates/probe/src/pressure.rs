//! Pressure stall information (PSI): `/proc/pressure/{io,cpu,memory}` for the host and
//! `io.pressure` for a cgroup v2, in the same format (kernel
//! `Documentation/accounting/psi.rst`; docs/sources/live-io-and-extents.md).

use serde::{Deserialize, Serialize};

/// One `some` or `full` line: averages in percent of wall time, `total` in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StallLine {
    pub avg10: f64,
    pub avg60: f64,
    pub avg300: f64,
    pub total_us: u64,
}

/// A pressure file: `some` (at least one task stalled) and `full` (all non-idle tasks stalled;
/// absent for the host's CPU before 5.13).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Pressure {
    pub some: StallLine,
    pub full: Option<StallLine>,
}

/// A pressure file's text, or `None` when it has no well-formed `some` line.
pub fn parse(text: &str) -> Option<Pressure> {
    let mut some = None;
    let mut full = None;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let slot = match words.next() {
            Some("some") => &mut some,
            Some("full") => &mut full,
            _ => continue,
        };
        *slot = parse_values(words);
    }
    Some(Pressure { some: some?, full })
}

fn parse_values<'a>(words: impl Iterator<Item = &'a str>) -> Option<StallLine> {
    let (mut avg10, mut avg60, mut avg300, mut total) = (None, None, None, None);
    for word in words {
        let (key, value) = word.split_once('=')?;
        match key {
            "avg10" => avg10 = value.parse::<f64>().ok().filter(|v| v.is_finite()),
            "avg60" => avg60 = value.parse::<f64>().ok().filter(|v| v.is_finite()),
            "avg300" => avg300 = value.parse::<f64>().ok().filter(|v| v.is_finite()),
            "total" => total = value.parse::<u64>().ok(),
            _ => {}
        }
    }
    Some(StallLine {
        avg10: avg10?,
        avg60: avg60?,
        avg300: avg300?,
        total_us: total?,
    })
}

/// The share of `elapsed_s` (percent) that the `total` counter grew by: the stall over exactly
/// our interval, not the kernel's 10/60/300 s averages.
pub fn stalled_percent(before: &StallLine, after: &StallLine, elapsed_s: f64) -> f64 {
    if !(elapsed_s.is_finite() && elapsed_s > 0.0) {
        return 0.0;
    }
    let stalled_us = after.total_us.saturating_sub(before.total_us) as f64;
    (stalled_us / (elapsed_s * 1e6) * 100.0).min(100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Read on this project's build machine (kernel 6.18).
    const REAL: &str = "some avg10=0.07 avg60=0.08 avg300=0.23 total=3117701\nfull avg10=0.03 avg60=0.03 avg300=0.07 total=1633628\n";

    #[test]
    fn a_real_file_parses() {
        let p = parse(REAL).expect("parses");
        assert_eq!(p.some.avg300, 0.23);
        assert_eq!(p.some.total_us, 3_117_701);
        assert_eq!(p.full.expect("full").total_us, 1_633_628);
    }

    #[test]
    fn a_file_without_full_or_some() {
        let p = parse("some avg10=1.00 avg60=0.50 avg300=0.10 total=10\n").expect("parses");
        assert!(p.full.is_none());
        assert!(parse("full avg10=1.00 avg60=0.50 avg300=0.10 total=10\n").is_none());
        assert!(parse("some avg10=x avg60=0.50 avg300=0.10 total=10\n").is_none());
        assert!(parse("").is_none());
    }

    #[test]
    fn the_stall_over_an_interval_comes_from_total() {
        let before = StallLine {
            total_us: 1_000_000,
            ..StallLine::default()
        };
        let after = StallLine {
            total_us: 1_500_000,
            ..StallLine::default()
        };
        assert_eq!(stalled_percent(&before, &after, 2.0), 25.0);
        assert_eq!(stalled_percent(&after, &before, 2.0), 0.0);
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,300}") {
            let _ = parse(&text);
        }
    }
}
