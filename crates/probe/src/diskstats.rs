//! Per-device I/O counters from `/proc/diskstats`, and the `iostat -x` figures sysstat derives
//! from two readings (`docs/sources/live-io-and-extents.md`; kernel
//! `Documentation/admin-guide/iostats.rst`).

use serde::{Deserialize, Serialize};

/// Bytes per sector in `/proc/diskstats`, whatever the device's block size.
const SECTOR_BYTES: f64 = 512.0;

/// One device's counters, as the kernel prints them after `major minor name`. Kernels before
/// 4.18 print 11 counters, 4.18 to 5.4 print 15, 5.5+ print 17: the missing ones are 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskCounters {
    pub reads: u64,
    pub reads_merged: u64,
    pub sectors_read: u64,
    pub read_ms: u64,
    pub writes: u64,
    pub writes_merged: u64,
    pub sectors_written: u64,
    pub write_ms: u64,
    pub in_flight: u64,
    pub io_ms: u64,
    pub weighted_io_ms: u64,
    pub discards: u64,
    pub discard_ms: u64,
    pub flushes: u64,
    pub flush_ms: u64,
}

/// A line of `/proc/diskstats`: the device and its counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskLine {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    pub counters: DiskCounters,
}

/// One line, or `None` when it is not a diskstats line (fewer than 11 counters, a counter that
/// is not a number).
pub fn parse_line(line: &str) -> Option<DiskLine> {
    let mut fields = line.split_whitespace();
    let major = fields.next()?.parse().ok()?;
    let minor = fields.next()?.parse().ok()?;
    let name = fields.next()?.to_string();
    let values: Vec<u64> = fields.map(|f| f.parse().ok()).collect::<Option<_>>()?;
    if values.len() < 11 {
        return None;
    }
    let at = |i: usize| values.get(i).copied().unwrap_or(0);
    Some(DiskLine {
        major,
        minor,
        name,
        counters: DiskCounters {
            reads: at(0),
            reads_merged: at(1),
            sectors_read: at(2),
            read_ms: at(3),
            writes: at(4),
            writes_merged: at(5),
            sectors_written: at(6),
            write_ms: at(7),
            in_flight: at(8),
            io_ms: at(9),
            weighted_io_ms: at(10),
            discards: at(11),
            discard_ms: at(14),
            flushes: at(15),
            flush_ms: at(16),
        },
    })
}

/// Every well-formed line of a `/proc/diskstats` text; others are skipped.
pub fn parse(text: &str) -> Vec<DiskLine> {
    text.lines().filter_map(parse_line).collect()
}

/// What `iostat -x` prints for one device over one interval, named as `iostat -o JSON` names
/// it so scripts written for sysstat read it unchanged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IostatFigures {
    #[serde(rename = "r/s")]
    pub reads_per_s: f64,
    #[serde(rename = "w/s")]
    pub writes_per_s: f64,
    #[serde(rename = "rkB/s")]
    pub read_kb_per_s: f64,
    #[serde(rename = "wkB/s")]
    pub write_kb_per_s: f64,
    /// Milliseconds per completed read, queueing included.
    pub r_await: f64,
    pub w_await: f64,
    #[serde(rename = "aqu-sz")]
    pub queue_size: f64,
    /// Percent of the interval with at least one request in flight.
    pub util: f64,
}

impl IostatFigures {
    /// sysstat's formulas (`rd_sec`, `rd_ticks`, `tot_ticks`, `rq_ticks` deltas) over
    /// `elapsed_s` seconds. A counter that went backwards (the device was re-created) counts
    /// as no I/O rather than as a wrapped 64-bit number.
    pub fn between(before: &DiskCounters, after: &DiskCounters, elapsed_s: f64) -> IostatFigures {
        if !(elapsed_s.is_finite() && elapsed_s > 0.0) {
            return IostatFigures::default();
        }
        let delta = |a: u64, b: u64| b.saturating_sub(a) as f64;
        let reads = delta(before.reads, after.reads);
        let writes = delta(before.writes, after.writes);
        let per_io = |ms: f64, ios: f64| if ios > 0.0 { ms / ios } else { 0.0 };
        let elapsed_ms = elapsed_s * 1000.0;
        IostatFigures {
            reads_per_s: reads / elapsed_s,
            writes_per_s: writes / elapsed_s,
            read_kb_per_s: delta(before.sectors_read, after.sectors_read) * SECTOR_BYTES
                / 1024.0
                / elapsed_s,
            write_kb_per_s: delta(before.sectors_written, after.sectors_written) * SECTOR_BYTES
                / 1024.0
                / elapsed_s,
            r_await: per_io(delta(before.read_ms, after.read_ms), reads),
            w_await: per_io(delta(before.write_ms, after.write_ms), writes),
            queue_size: delta(before.weighted_io_ms, after.weighted_io_ms) / elapsed_ms,
            // sysstat caps util at 100 % too: io_ms can run ahead of the wall clock by a tick.
            util: (delta(before.io_ms, after.io_ms) / elapsed_ms * 100.0).min(100.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Read on a Debian 12 machine (docs/sources/live-io-and-extents.md).
    const REAL: &str = "254 0 vda 22588817 5556 183125458 9119776 5661735 105740 382167168 6897158 0 607452 16096189 251458 43 316379184 78673 7559 580";

    #[test]
    fn a_real_line_parses_field_by_field() {
        let line = parse_line(REAL).expect("parses");
        assert_eq!(
            (line.major, line.minor, line.name.as_str()),
            (254, 0, "vda")
        );
        assert_eq!(line.counters.reads, 22_588_817);
        assert_eq!(line.counters.sectors_written, 382_167_168);
        assert_eq!(line.counters.weighted_io_ms, 16_096_189);
        assert_eq!(line.counters.flush_ms, 580);
    }

    #[test]
    fn old_kernels_with_eleven_counters_parse() {
        let line = parse_line("8 0 sda 10 0 80 5 2 0 16 4 0 9 9").expect("parses");
        assert_eq!(line.counters.writes, 2);
        assert_eq!(line.counters.discards, 0);
        assert!(parse_line("8 0 sda 1 2 3").is_none());
        assert!(parse_line("8 0 sda 1 2 3 4 5 6 7 8 9 x 11").is_none());
    }

    #[test]
    fn figures_follow_sysstat() {
        let before = DiskCounters::default();
        let after = DiskCounters {
            reads: 2000,
            sectors_read: 16_000,
            read_ms: 1000,
            writes: 500,
            sectors_written: 8000,
            write_ms: 2500,
            io_ms: 1500,
            weighted_io_ms: 7000,
            ..DiskCounters::default()
        };
        let f = IostatFigures::between(&before, &after, 2.0);
        assert_eq!(f.reads_per_s, 1000.0);
        assert_eq!(f.writes_per_s, 250.0);
        assert_eq!(f.read_kb_per_s, 4000.0);
        assert_eq!(f.write_kb_per_s, 2000.0);
        assert_eq!(f.r_await, 0.5);
        assert_eq!(f.w_await, 5.0);
        assert_eq!(f.queue_size, 3.5);
        assert_eq!(f.util, 75.0);
        let json = serde_json::to_value(f).expect("serializes");
        for key in [
            "r/s", "w/s", "rkB/s", "wkB/s", "r_await", "w_await", "aqu-sz", "util",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
    }

    #[test]
    fn counters_going_backwards_are_no_io() {
        let before = DiskCounters {
            reads: 10,
            ..DiskCounters::default()
        };
        let f = IostatFigures::between(&before, &DiskCounters::default(), 1.0);
        assert_eq!(f.reads_per_s, 0.0);
        assert_eq!(
            IostatFigures::between(&before, &before, 0.0),
            IostatFigures::default()
        );
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,300}") {
            let _ = parse(&text);
        }
    }
}
