//! One reading of everything `nodecheck watch` follows, kept as the raw lines the kernel
//! printed (so `watch --save` can store them and `triage` can recompute every figure), and
//! the figures over the interval between two readings.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::cgroup::{self, CgroupLayout};
use crate::diskstats::{self, IostatFigures};
use crate::pressure::{self, Pressure};
use crate::process_io;
use crate::root::Root;

/// What to read each time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Targets {
    /// Kernel names of the block devices (`nvme0n1`, `md0`) as `/proc/diskstats` names them.
    pub devices: Vec<String>,
    pub clients: Vec<ClientTarget>,
}

/// A running client and where its cgroup's files are, when it has a v2 cgroup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientTarget {
    pub client: String,
    pub pid: u32,
    /// In-root directory of its v2 cgroup (`/sys/fs/cgroup/system.slice/geth.service`).
    pub cgroup_dir: Option<PathBuf>,
}

impl ClientTarget {
    /// `client` (pid `pid`) with its cgroup found under `layout`.
    pub fn locate(root: &Root, layout: &CgroupLayout, client: &str, pid: u32) -> ClientTarget {
        ClientTarget {
            client: client.to_string(),
            pid,
            cgroup_dir: cgroup::v2_dir(root, layout, pid),
        }
    }
}

/// The files of one reading, exactly as read (`None`: missing or unreadable).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSample {
    /// Milliseconds on a monotonic clock since the first reading: intervals come from it.
    pub at_ms: u64,
    /// Wall-clock time of the reading, milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// The `/proc/diskstats` lines of the watched devices.
    pub diskstats: Vec<String>,
    pub pressure_io: Option<String>,
    pub pressure_cpu: Option<String>,
    pub pressure_memory: Option<String>,
    pub clients: Vec<RawClientSample>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawClientSample {
    pub pid: u32,
    /// `/proc/PID/io` (needs root for another user's process).
    pub io: Option<String>,
    /// The cgroup's `io.pressure`.
    pub io_pressure: Option<String>,
    /// The cgroup's `io.stat`.
    pub io_stat: Option<String>,
}

/// Reads every target once. Reads only: nothing here opens a file for writing.
pub fn read(root: &Root, targets: &Targets, at_ms: u64, unix_ms: u64) -> RawSample {
    let diskstats = root
        .read_text("/proc/diskstats")
        .map(|text| {
            text.lines()
                .filter(|line| {
                    diskstats::parse_line(line).is_some_and(|l| targets.devices.contains(&l.name))
                })
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let clients = targets
        .clients
        .iter()
        .map(|target| {
            let in_cgroup = |file: &str| {
                let dir = target.cgroup_dir.as_ref()?;
                root.read_text(dir.join(file))
            };
            RawClientSample {
                pid: target.pid,
                io: root.read_text(format!("/proc/{}/io", target.pid)),
                io_pressure: in_cgroup("io.pressure"),
                io_stat: in_cgroup("io.stat"),
            }
        })
        .collect();
    RawSample {
        at_ms,
        unix_ms,
        diskstats,
        pressure_io: root.read_text("/proc/pressure/io"),
        pressure_cpu: root.read_text("/proc/pressure/cpu"),
        pressure_memory: root.read_text("/proc/pressure/memory"),
        clients,
    }
}

/// Percent of an interval that tasks were stalled: `some` (at least one) and `full` (all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    pub some: f64,
    pub full: Option<f64>,
}

impl Stall {
    fn between(before: Option<&str>, after: Option<&str>, elapsed_s: f64) -> Option<Stall> {
        let before: Pressure = pressure::parse(before?)?;
        let after: Pressure = pressure::parse(after?)?;
        Some(Stall {
            some: pressure::stalled_percent(&before.some, &after.some, elapsed_s),
            full: match (before.full, after.full) {
                (Some(b), Some(a)) => Some(pressure::stalled_percent(&b, &a, elapsed_s)),
                _ => None,
            },
        })
    }
}

/// The figures over the interval between two readings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Seconds from the first reading's start.
    pub start_s: f64,
    pub elapsed_s: f64,
    /// Per device, by kernel name.
    pub devices: BTreeMap<String, IostatFigures>,
    /// The host's PSI; `None` when `/proc/pressure` is missing (no `CONFIG_PSI`, `psi=0`).
    pub host_io: Option<Stall>,
    pub host_cpu: Option<Stall>,
    pub host_memory: Option<Stall>,
    pub clients: Vec<ClientInterval>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientInterval {
    pub pid: u32,
    /// Bytes per second the process read from and wrote to block devices (`/proc/PID/io`).
    pub read_bytes_per_s: Option<f64>,
    pub write_bytes_per_s: Option<f64>,
    /// The PSI of its cgroup.
    pub io: Option<Stall>,
    /// Bytes per second its cgroup moved per device (`io.stat`, unified layout only).
    pub cgroup_read_bytes_per_s: Option<f64>,
    pub cgroup_write_bytes_per_s: Option<f64>,
}

impl Interval {
    /// The figures from `before` to `after`; `None` when no time passed between them.
    pub fn between(before: &RawSample, after: &RawSample) -> Option<Interval> {
        let elapsed_s = after.at_ms.checked_sub(before.at_ms)? as f64 / 1000.0;
        if elapsed_s <= 0.0 {
            return None;
        }
        let counters = |sample: &RawSample| -> BTreeMap<String, diskstats::DiskCounters> {
            sample
                .diskstats
                .iter()
                .filter_map(|line| diskstats::parse_line(line))
                .map(|line| (line.name, line.counters))
                .collect()
        };
        let earlier = counters(before);
        let devices = counters(after)
            .into_iter()
            .filter_map(|(name, now)| {
                let then = earlier.get(&name)?;
                Some((name, IostatFigures::between(then, &now, elapsed_s)))
            })
            .collect();
        let clients = after
            .clients
            .iter()
            .filter_map(|now| {
                let then = before.clients.iter().find(|c| c.pid == now.pid)?;
                Some(ClientInterval::between(then, now, elapsed_s))
            })
            .collect();
        Some(Interval {
            start_s: before.at_ms as f64 / 1000.0,
            elapsed_s,
            devices,
            host_io: Stall::between(
                before.pressure_io.as_deref(),
                after.pressure_io.as_deref(),
                elapsed_s,
            ),
            host_cpu: Stall::between(
                before.pressure_cpu.as_deref(),
                after.pressure_cpu.as_deref(),
                elapsed_s,
            ),
            host_memory: Stall::between(
                before.pressure_memory.as_deref(),
                after.pressure_memory.as_deref(),
                elapsed_s,
            ),
            clients,
        })
    }
}

impl ClientInterval {
    fn between(before: &RawClientSample, after: &RawClientSample, elapsed_s: f64) -> Self {
        let rate = |a: u64, b: u64| b.saturating_sub(a) as f64 / elapsed_s;
        let io = before
            .io
            .as_deref()
            .and_then(process_io::parse)
            .zip(after.io.as_deref().and_then(process_io::parse));
        let stat_totals = |text: Option<&str>| {
            let lines = cgroup::parse_io_stat(text?);
            (!lines.is_empty()).then(|| {
                lines
                    .iter()
                    .fold((0u64, 0u64), |(r, w), l| (r + l.rbytes, w + l.wbytes))
            })
        };
        let stat =
            stat_totals(before.io_stat.as_deref()).zip(stat_totals(after.io_stat.as_deref()));
        ClientInterval {
            pid: after.pid,
            read_bytes_per_s: io.map(|(b, a)| rate(b.read_bytes, a.read_bytes)),
            write_bytes_per_s: io.map(|(b, a)| rate(b.write_bytes, a.write_bytes)),
            io: Stall::between(
                before.io_pressure.as_deref(),
                after.io_pressure.as_deref(),
                elapsed_s,
            ),
            cgroup_read_bytes_per_s: stat.map(|(b, a)| rate(b.0, a.0)),
            cgroup_write_bytes_per_s: stat.map(|(b, a)| rate(b.1, a.1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at_ms: u64, reads: u64, psi_total: u64, read_bytes: u64) -> RawSample {
        RawSample {
            at_ms,
            unix_ms: 0,
            diskstats: vec![format!(
                "259 0 nvme0n1 {reads} 0 {} {} 0 0 0 0 0 {} {}",
                reads * 8,
                reads / 10,
                at_ms / 2,
                reads / 5
            )],
            pressure_io: Some(format!(
                "some avg10=0.00 avg60=0.00 avg300=0.00 total={psi_total}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total={}\n",
                psi_total / 2
            )),
            pressure_cpu: None,
            pressure_memory: None,
            clients: vec![RawClientSample {
                pid: 42,
                io: Some(format!("read_bytes: {read_bytes}\nwrite_bytes: 0\n")),
                io_pressure: None,
                io_stat: None,
            }],
        }
    }

    #[test]
    fn an_interval_has_every_figure() {
        let interval = Interval::between(&sample(0, 0, 0, 0), &sample(2000, 4000, 400_000, 8192))
            .expect("interval");
        assert_eq!(interval.elapsed_s, 2.0);
        let nvme = interval.devices["nvme0n1"];
        assert_eq!(nvme.reads_per_s, 2000.0);
        assert_eq!(nvme.r_await, 0.1);
        let io = interval.host_io.expect("psi");
        assert_eq!(io.some, 20.0);
        assert_eq!(io.full, Some(10.0));
        assert!(interval.host_cpu.is_none());
        assert_eq!(interval.clients[0].read_bytes_per_s, Some(4096.0));
        assert_eq!(interval.clients[0].io, None);
        assert!(Interval::between(&sample(5, 0, 0, 0), &sample(5, 0, 0, 0)).is_none());
    }
}
