//! Is a running node held up by its storage? A pure function of what `nodecheck watch`
//! sampled (one [`Interval`] over the whole run, the latency probe's percentiles) and the
//! `[watch]` thresholds of `data/behaviour.toml`.
//!
//! Two questions decide it: did the client's tasks stall on I/O (PSI), and was the drive slow
//! per request (await, the QD1 probe)? Stalls with a slow drive are storage-bound; either alone
//! is partly; neither is not. `%util` is reported but never judged: it is the share of time
//! with at least one request in flight, and a drive serving many requests in parallel (NVMe,
//! RAID, network volumes) can show 100 % with capacity to spare.

use probe::io_sample::{Interval, Stall};
use serde::{Deserialize, Serialize};

use crate::code::Code;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchThresholds {
    pub io_some_partly_percent: f64,
    pub io_some_bound_percent: f64,
    pub io_full_bound_percent: f64,
    pub pressure_source: String,
    pub pressure_reasoning: String,
    pub busy_util_percent: f64,
    pub busy_reasoning: String,
    pub read_await_partly_ms: f64,
    pub read_await_bound_ms: f64,
    pub write_await_partly_ms: f64,
    pub write_await_bound_ms: f64,
    pub await_source: String,
    pub await_reasoning: String,
    pub probe_p99_partly_us: f64,
    pub probe_p99_bound_us: f64,
    pub probe_source: String,
    pub probe_reasoning: String,
    pub cpu_some_percent: f64,
    pub memory_some_percent: f64,
    pub other_source: String,
    pub other_reasoning: String,
}

impl WatchThresholds {
    /// Each pair ordered, every figure positive, every figure sourced.
    pub fn validate(&self) -> Result<(), String> {
        for (name, partly, bound) in [
            (
                "io_some",
                self.io_some_partly_percent,
                self.io_some_bound_percent,
            ),
            (
                "read_await",
                self.read_await_partly_ms,
                self.read_await_bound_ms,
            ),
            (
                "write_await",
                self.write_await_partly_ms,
                self.write_await_bound_ms,
            ),
            (
                "probe_p99",
                self.probe_p99_partly_us,
                self.probe_p99_bound_us,
            ),
        ] {
            if !(partly.is_finite() && bound.is_finite() && partly > 0.0 && partly < bound) {
                return Err(format!(
                    "{name}: partly ({partly}) must be positive and below bound ({bound})"
                ));
            }
        }
        for value in [
            self.io_full_bound_percent,
            self.cpu_some_percent,
            self.memory_some_percent,
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("thresholds must be positive numbers, not {value}"));
            }
        }
        for text in [
            &self.pressure_source,
            &self.pressure_reasoning,
            &self.busy_reasoning,
            &self.await_source,
            &self.await_reasoning,
            &self.probe_source,
            &self.probe_reasoning,
            &self.other_source,
            &self.other_reasoning,
        ] {
            if text.trim().is_empty() {
                return Err("every threshold needs a source and its reasoning".to_string());
            }
        }
        Ok(())
    }
}

/// The QD1 4 KiB O_DIRECT reads of the client's own blocks, as percentiles (microseconds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProbeLatency {
    pub reads: u64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Fine,
    Partly,
    Bound,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    #[strum(serialize = "storage-bound")]
    StorageBound,
    #[strum(serialize = "partly storage-bound")]
    PartlyStorageBound,
    #[strum(serialize = "not storage-bound")]
    NotStorageBound,
}

/// One figure the verdict weighed, with the threshold it was held against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// What was measured (`read await of nvme0n1`).
    pub figure: String,
    pub value: f64,
    pub unit: String,
    pub level: Level,
    /// The thresholds in words (`partly ≥ 1 ms, bound ≥ 5 ms`).
    pub thresholds: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchVerdict {
    pub outcome: Outcome,
    /// One sentence: the outcome and the figures that decided it.
    pub summary: String,
    /// How long tasks stalled on I/O: the worst of the clients' cgroups, else the host.
    pub stall: Option<Level>,
    /// How slow the drive was per request: the worst device's await or the probe's p99.
    pub slowness: Level,
    pub evidence: Vec<Evidence>,
    pub next_steps: Vec<String>,
    /// Why a figure could not be judged (no PSI, no I/O to time).
    pub caveats: Vec<String>,
}

/// Fewer requests than this over the run make an await figure noise, not evidence.
const MIN_TIMED_REQUESTS: f64 = 20.0;

/// Probe reads needed before the p99 is judged rather than the p90.
const MIN_READS_FOR_P99: u64 = 100;

fn level(value: f64, partly: f64, bound: f64) -> Level {
    if value >= bound {
        Level::Bound
    } else if value >= partly {
        Level::Partly
    } else {
        Level::Fine
    }
}

/// `client_names` names the clients of `run.clients` by pid.
pub fn judge(
    run: &Interval,
    client_names: &[(u32, String)],
    latency: Option<&ProbeLatency>,
    t: &WatchThresholds,
) -> WatchVerdict {
    let mut evidence = Vec::new();
    let mut caveats = Vec::new();
    let stall = judge_stall(run, client_names, t, &mut evidence, &mut caveats);
    let slowness = judge_slowness(run, latency, t, &mut evidence, &mut caveats);
    let outcome = match (stall, slowness) {
        (Some(Level::Bound), s) if s >= Level::Partly => Outcome::StorageBound,
        (Some(s), Level::Bound) if s >= Level::Partly => Outcome::StorageBound,
        (Some(s), _) if s >= Level::Partly => Outcome::PartlyStorageBound,
        (_, Level::Bound) => Outcome::PartlyStorageBound,
        _ => Outcome::NotStorageBound,
    };
    let decided_by: Vec<String> = evidence
        .iter()
        .filter(|e| e.level > Level::Fine)
        .map(|e| format!("{} {}", e.figure, shown(e.value, &e.unit)))
        .collect();
    let summary = match (outcome, decided_by.is_empty()) {
        (Outcome::NotStorageBound, _) => format!(
            "NOT STORAGE-BOUND: tasks {} and the drive answered in time",
            stall_words(stall)
        ),
        (_, true) => format!("{}", outcome).to_uppercase(),
        (_, false) => format!(
            "{}: {}",
            outcome.to_string().to_uppercase(),
            decided_by.join(", ")
        ),
    };
    let next_steps = next_steps(outcome, stall, slowness, run, t);
    WatchVerdict {
        outcome,
        summary,
        stall,
        slowness,
        evidence,
        next_steps,
        caveats,
    }
}

fn stall_words(stall: Option<Level>) -> &'static str {
    match stall {
        Some(Level::Fine) => "rarely stalled on I/O of the watched drives",
        None => "could not be seen stalling (no PSI)",
        Some(_) => "stalled on I/O",
    }
}

fn shown(value: f64, unit: &str) -> String {
    match unit {
        "%" => format!("{value:.1} %"),
        "ms" => format!("{value:.2} ms"),
        "us" => format!("{value:.0} µs"),
        _ => format!("{value:.1} {unit}"),
    }
}

fn judge_stall(
    run: &Interval,
    client_names: &[(u32, String)],
    t: &WatchThresholds,
    evidence: &mut Vec<Evidence>,
    caveats: &mut Vec<String>,
) -> Option<Level> {
    let words = format!(
        "some: partly ≥ {} %, bound ≥ {} %; full: bound ≥ {} %",
        t.io_some_partly_percent, t.io_some_bound_percent, t.io_full_bound_percent
    );
    let mut judge_one = |who: String, stall: &Stall| -> Level {
        let some = level(
            stall.some,
            t.io_some_partly_percent,
            t.io_some_bound_percent,
        );
        evidence.push(Evidence {
            figure: format!("I/O stall (PSI some) of {who}"),
            value: stall.some,
            unit: "%".into(),
            level: some,
            thresholds: words.clone(),
        });
        let full = stall.full.map_or(Level::Fine, |full| {
            let l = if full >= t.io_full_bound_percent {
                Level::Bound
            } else {
                Level::Fine
            };
            evidence.push(Evidence {
                figure: format!("I/O stall (PSI full) of {who}"),
                value: full,
                unit: "%".into(),
                level: l,
                thresholds: words.clone(),
            });
            l
        });
        some.max(full)
    };
    let name = |pid: u32| {
        client_names
            .iter()
            .find(|(p, _)| *p == pid)
            .map_or_else(|| format!("pid {pid}"), |(_, n)| format!("{n} (pid {pid})"))
    };
    let clients: Vec<Level> = run
        .clients
        .iter()
        .filter_map(|c| {
            Some(judge_one(
                format!("{}'s cgroup", name(c.pid)),
                c.io.as_ref()?,
            ))
        })
        .collect();
    let host = run
        .host_io
        .as_ref()
        .map(|s| judge_one("the host".to_string(), s));
    if host.is_none() {
        caveats.push(
            "No I/O pressure (PSI) figures: the kernel lacks CONFIG_PSI or booted with psi=0, or the input carried none; \
             the stall of tasks on I/O cannot be seen, so the verdict rests on await alone \
             (add psi=1 to the kernel command line to see it)"
                .to_string(),
        );
    }
    // The client's own cgroup says whether the node waits; the host's mixes in every process.
    let stall = clients.into_iter().max().or(host)?;
    let busiest = run
        .devices
        .values()
        .map(|f| f.util)
        .fold(None, |m: Option<f64>, u| Some(m.map_or(u, |m| m.max(u))));
    match busiest {
        Some(util) if stall > Level::Fine && util < t.busy_util_percent => {
            caveats.push(format!(
                "Tasks stalled on I/O, but the watched devices were busy only {util:.1} % of the time (below {} %): the stall is on another device, not counted against this one",
                t.busy_util_percent
            ));
            Some(Level::Fine)
        }
        _ => Some(stall),
    }
}

fn judge_slowness(
    run: &Interval,
    latency: Option<&ProbeLatency>,
    t: &WatchThresholds,
    evidence: &mut Vec<Evidence>,
    caveats: &mut Vec<String>,
) -> Level {
    let mut worst = Level::Fine;
    for (device, f) in &run.devices {
        for (what, per_s, value, partly, bound) in [
            (
                "read",
                f.reads_per_s,
                f.r_await,
                t.read_await_partly_ms,
                t.read_await_bound_ms,
            ),
            (
                "write",
                f.writes_per_s,
                f.w_await,
                t.write_await_partly_ms,
                t.write_await_bound_ms,
            ),
        ] {
            if per_s * run.elapsed_s < MIN_TIMED_REQUESTS {
                continue;
            }
            let l = level(value, partly, bound);
            worst = worst.max(l);
            evidence.push(Evidence {
                figure: format!("{what} await of {device}"),
                value,
                unit: "ms".into(),
                level: l,
                thresholds: format!("partly ≥ {partly} ms, bound ≥ {bound} ms"),
            });
        }
    }
    if evidence.iter().all(|e| e.unit != "ms") {
        caveats.push(format!(
            "Too little I/O to time (fewer than {MIN_TIMED_REQUESTS} requests of a kind on every device): the drive was idle"
        ));
    }
    if let Some(p) = latency.filter(|p| p.reads > 0) {
        // Below 100 reads the p99 is the slowest read: one hiccup of a shared host would decide.
        let (name, value) = if p.reads >= MIN_READS_FOR_P99 {
            ("p99", p.p99_us)
        } else {
            ("p90", p.p90_us)
        };
        let l = level(value, t.probe_p99_partly_us, t.probe_p99_bound_us);
        worst = worst.max(l);
        evidence.push(Evidence {
            figure: format!(
                "QD1 read latency {name} of the chain's blocks ({} reads)",
                p.reads
            ),
            value,
            unit: "us".into(),
            level: l,
            thresholds: format!(
                "partly ≥ {} µs, bound ≥ {} µs",
                t.probe_p99_partly_us, t.probe_p99_bound_us
            ),
        });
    }
    worst
}

/// The check findings that explain a drive too slow for a node.
const EXPLAINING_CODES: [Code; 10] = [
    Code::DatabaseGrade,
    Code::DramLess,
    Code::HardDisk,
    Code::Throttled,
    Code::PcieLinkBelowMax,
    Code::AccessTime,
    Code::ParityRaid,
    Code::NetworkStorage,
    Code::UnknownProvisionedIops,
    Code::RandomIo,
];

fn next_steps(
    outcome: Outcome,
    stall: Option<Level>,
    slowness: Level,
    run: &Interval,
    t: &WatchThresholds,
) -> Vec<String> {
    let codes: Vec<String> = EXPLAINING_CODES
        .iter()
        .map(|c| format!("{} ({})", c.as_str(), c.title()))
        .collect();
    let check = format!(
        "Run `nodecheck check --bench none` (beside the node it only probes; stop the node, then `nodecheck check` measures too): the findings that explain a slow drive are {}",
        codes.join(", ")
    );
    let cpu = run.host_cpu.map(|s| s.some);
    let memory = run.host_memory.map(|s| s.some);
    let pressure_words = |name: &str, value: Option<f64>, limit: f64| match value {
        Some(v) if v >= limit => format!("{name} pressure is high ({v:.1} % some ≥ {limit} %)"),
        Some(v) => format!("{name} pressure is low ({v:.1} % some)"),
        None => format!("{name} pressure unknown (no PSI)"),
    };
    match outcome {
        Outcome::StorageBound => vec![
            "The drive is the bottleneck: the node waits on it and it is slow per request.".to_string(),
            check,
            "A faster drive (a TLC NVMe with DRAM from the Good list: `nodecheck db list --grade good`) is the fix the other findings do not give.".to_string(),
        ],
        Outcome::PartlyStorageBound => {
            let mut steps = Vec::new();
            if stall >= Some(Level::Partly) && slowness == Level::Fine {
                steps.push("The node waits on I/O, yet each request is quick: it asks for more than the page cache holds. More RAM (or a larger client cache) cuts the reads; a faster drive helps less.".to_string());
            } else if slowness == Level::Bound {
                steps.push("The drive is slow per request, but the node's tasks were not seen waiting on it for long: it slows the node without being the only limit.".to_string());
            } else {
                steps.push("The node waits on I/O part of the time.".to_string());
            }
            steps.push(check);
            steps.push("Watch again during the slow period (`nodecheck watch --for 5m`): the figures move with the chain's load.".to_string());
            steps
        }
        Outcome::NotStorageBound => vec![
            format!(
                "The drive is not what holds the node back: {}; {}.",
                pressure_words("CPU", cpu, t.cpu_some_percent),
                pressure_words("memory", memory, t.memory_some_percent)
            ),
            "Look at CPU (the client's threads in `top -H`), memory (swap, page-cache churn) and peers (the client's peer count in its logs; an execution client needs a synced consensus client).".to_string(),
        ],
    }
}
