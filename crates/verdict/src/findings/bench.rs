//! NC7xx: what the benchmark measured, against the client's needs.

use ::bench::{BenchReport, EngineKind, Qd1Result, RandRwResult};
use probe::NetworkShare;

use crate::behaviour_thresholds::{BehaviourThresholds, Qd1Rule, Qd1Rules};
use crate::code::Code;
use crate::model::{Finding, Severity};

use super::{format_iops, format_latency_us, network, ClientFailure, Clients};

/// A p99 this many times over a client's published need is not "slow", it cannot keep up.
const CRITICAL_FACTOR: f64 = 4.0;
/// IOPS below this fraction of the need cannot keep up either.
const CRITICAL_IOPS_FRACTION: f64 = 0.5;

/// What the bench says, and whether it shows the drive fast enough for every applied need
/// (reads and writes).
pub struct BenchOutcome {
    pub findings: Vec<Finding>,
    pub fast: bool,
}

pub fn check(
    report: &BenchReport,
    clients: &Clients<'_>,
    rules: &Qd1Rules,
    share: Option<&NetworkShare>,
    failures: &mut Vec<ClientFailure>,
) -> BenchOutcome {
    let mut findings = Vec::new();
    let qd1 = report.qd1.as_ref().filter(|q| {
        q.ios > 0 && usable(q.lat_us.p99) && usable(q.lat_us.max) && usable(q.lat_us.p50)
    });
    let randrw = report
        .randrw
        .as_ref()
        .filter(|r| usable(r.read_iops) && usable(r.write_iops));
    findings.extend(unusable_results(
        report.qd1.is_some() && qd1.is_none(),
        report.randrw.is_some() && randrw.is_none(),
    ));

    let qd1 = qd1.map(|q| {
        let mut judged = qd1_latency(q, &report.clients_running, clients, rules, failures);
        // Over a network share the median is mostly the network's; the finding says how much.
        if let Some(note) = share.and_then(|s| network::latency_note(s, q.lat_us.p50)) {
            judged.finding.detail.push_str(&note);
        }
        judged
    });
    let randrw_judged = randrw.map(|r| random_io(r, clients, failures));
    let measured = qd1.is_some() || randrw_judged.is_some();
    let mut fast = true;
    for judged in qd1.into_iter().chain(randrw_judged) {
        fast &= judged.fast;
        findings.push(judged.finding);
    }
    if measured {
        findings.extend(engine_caveat(report));
    }
    findings.extend(bench_caveats(report));

    // A short QD1 run shows fast reads only; a QLC drive reads fine and fails on writes. Only
    // the write-including randrw test (at the community's span) can vouch for a drive.
    BenchOutcome {
        findings,
        fast: measured && fast && randrw.is_some_and(|r| r.fio_comparable),
    }
}

/// One measured figure's finding, and whether it shows the drive fast enough.
struct Judged {
    finding: Finding,
    fast: bool,
}

/// NC705: a NaN or negative figure compares as "fine" against any need; never let it vouch
/// for a drive.
fn unusable_results(qd1: bool, randrw: bool) -> Option<Finding> {
    let unusable: Vec<&str> = [("QD1", qd1), ("randrw", randrw)]
        .into_iter()
        .filter_map(|(name, unusable)| unusable.then_some(name))
        .collect();
    if unusable.is_empty() {
        return None;
    }
    Some(Finding::new(
        Code::BenchResultUnusable,
        Severity::Info,
        "Benchmark result unusable",
        format!(
            "The {} result holds no valid measurement (no I/O, or non-finite or negative figures) and was ignored.",
            unusable.join(" and ")
        ),
    ))
}

/// NC701: the QD1 p99 against the most demanding latency need, or against the fallback when
/// no client publishes one.
fn qd1_latency(
    qd1: &Qd1Result,
    report_clients: &[String],
    clients: &Clients<'_>,
    rules: &Qd1Rules,
    failures: &mut Vec<ClientFailure>,
) -> Judged {
    let p99 = qd1.lat_us.p99;
    let max = qd1.lat_us.max;
    let critical_above = |need: f64| {
        if p99 > need * CRITICAL_FACTOR {
            Severity::Critical
        } else {
            Severity::Warning
        }
    };
    let failing = clients.failing_by(|c| c.max_qd1_read_p99_us, |t| p99 > t, false);
    let mut need_texts = Vec::new();
    let mut severity = Severity::Ok;
    if let Some((client, need)) = failing.first() {
        let client_severity = critical_above(*need);
        failures.push(ClientFailure {
            client: client.name.clone(),
            severity: client_severity,
        });
        severity = client_severity;
        need_texts.push(format!(
            "{} needs p99 <= {}",
            clients.name(client),
            format_latency_us(*need)
        ));
    }
    let beside_client = !report_clients.is_empty();
    let (rule_severity, rule_text) = qd1_rule(qd1, rules.for_run(beside_client), beside_client);
    severity = severity.max(rule_severity);
    need_texts.extend(rule_text);
    let measured_text = format!(
        "QD1 4 KiB random reads ({} reads on a {}, {} engine): p50 {}, p99 {}, max {}, {} IOPS",
        qd1.ios,
        qd1.target,
        qd1.engine.name(),
        format_latency_us(qd1.lat_us.p50),
        format_latency_us(p99),
        format_latency_us(max),
        format_iops(qd1.iops)
    );
    if severity >= Severity::Warning {
        return Judged {
            finding: Finding::new(
                Code::Qd1Latency,
                severity,
                "Slow QD1 read latency",
                format!("{measured_text}; {}.", need_texts.join("; ")),
            )
            .with_fix("Check the drive's temperature, TRIM and link findings above; if they are fine the drive itself is too slow for a sync: replace it with a TLC NVMe drive with DRAM"),
            fast: false,
        };
    }
    Judged {
        finding: Finding::new(
            Code::Qd1Latency,
            Severity::Ok,
            "QD1 read latency",
            format!("{measured_text}."),
        ),
        fast: true,
    }
}

/// The QD1 rule of `data/behaviour.toml` ([qd1.at_rest] or [qd1.beside_client]) applied to
/// one run: how bad, and the sentence naming the figure that broke it. Every path that
/// judges a QD1 figure (`check`, `bench`, `triage`, `submit`) asks this.
pub fn qd1_rule(
    qd1: &Qd1Result,
    rule: &Qd1Rule,
    beside_client: bool,
) -> (Severity, Option<String>) {
    let (p99, max) = (qd1.lat_us.p99, qd1.lat_us.max);
    let situation = if beside_client {
        "beside a running client"
    } else {
        "at rest"
    };
    let broken = |figure: &str, value: f64, limit: f64| {
        format!(
            "{figure} {} is above the {} {situation} that good drives stay under (eth-docker's `ioping -D` guidance, data/behaviour.toml)",
            format_latency_us(value),
            format_latency_us(limit)
        )
    };
    if p99 > rule.critical_p99_us {
        return (
            Severity::Critical,
            Some(broken("p99", p99, rule.critical_p99_us)),
        );
    }
    if max > rule.critical_max_us {
        return (
            Severity::Critical,
            Some(broken("max", max, rule.critical_max_us)),
        );
    }
    if p99 > rule.warn_p99_us {
        return (
            Severity::Warning,
            Some(broken("p99", p99, rule.warn_p99_us)),
        );
    }
    if max > rule.warn_max_us {
        return (
            Severity::Warning,
            Some(broken("max", max, rule.warn_max_us)),
        );
    }
    (Severity::Ok, None)
}

/// The QD1 rule's verdict on a whole report, in one word (`ok`, `warning`, `critical`), for
/// the paths that print no findings (`bench`, `submit`).
pub fn qd1_rule_word(report: &BenchReport) -> Option<&'static str> {
    let qd1 = report.qd1.as_ref().filter(|q| q.ios > 0)?;
    let beside_client = !report.clients_running.is_empty();
    let rules = BehaviourThresholds::embedded().qd1;
    let (severity, _) = qd1_rule(qd1, rules.for_run(beside_client), beside_client);
    Some(match severity {
        Severity::Critical => "critical",
        Severity::Warning => "warning",
        _ => "ok",
    })
}

/// The QD1 rule's judgement of a report's QD1 figures, for the lines that show them (the
/// report's measurement line, `bench`'s result): how bad, and a sentence that names the
/// figures the rule holds them to. `None` without a usable QD1 result.
pub fn qd1_judgement(report: &BenchReport) -> Option<(Severity, String)> {
    let qd1 = report.qd1.as_ref().filter(|q| q.ios > 0)?;
    let beside_client = !report.clients_running.is_empty();
    let rules = BehaviourThresholds::embedded().qd1;
    let rule = rules.for_run(beside_client);
    Some(match qd1_rule(qd1, rule, beside_client) {
        (Severity::Ok, _) | (_, None) => (
            Severity::Ok,
            format!(
                "p99 and max within the {} p99 and {} max that good drives stay under {} (data/behaviour.toml)",
                format_latency_us(rule.warn_p99_us),
                format_latency_us(rule.warn_max_us),
                if beside_client {
                    "beside a running client"
                } else {
                    "at rest"
                }
            ),
        ),
        (severity, Some(broken)) => (severity, broken),
    })
}

/// NC702: randrw read and write IOPS against the most demanding floors, one sentence per
/// client that fails ("Nethermind needs 10k read and 10k write IOPS").
fn random_io(
    rw: &RandRwResult,
    clients: &Clients<'_>,
    failures: &mut Vec<ClientFailure>,
) -> Judged {
    let read_fail = clients.failing_by(
        |c| c.min_read_iops.map(f64::from),
        |t| rw.read_iops < t,
        true,
    );
    let write_fail = clients.failing_by(
        |c| c.min_write_iops.map(f64::from),
        |t| rw.write_iops < t,
        true,
    );
    let comparable = if rw.fio_comparable {
        String::new()
    } else {
        format!(
            " The span was {} GiB, less than the community's 150 GiB, so an SLC cache may make the figure look better than a sync will see.",
            rw.span_bytes / (1 << 30)
        )
    };
    let measured_text = format!(
        "randrw 75/25 4 KiB at QD{}: {}/{} r/w IOPS ({} engine)",
        rw.queue_depth,
        format_iops(rw.read_iops),
        format_iops(rw.write_iops),
        rw.engine.name()
    );
    let mut shortfalls: Vec<(String, Vec<String>)> = Vec::new();
    let mut severity = Severity::Ok;
    let mut first_client = None;
    for (kind, have, failing) in [
        ("read", rw.read_iops, &read_fail),
        ("write", rw.write_iops, &write_fail),
    ] {
        if let Some((client, need)) = failing.first() {
            let sev = if have < need * CRITICAL_IOPS_FRACTION {
                Severity::Critical
            } else {
                Severity::Warning
            };
            severity = severity.max(sev);
            first_client.get_or_insert_with(|| client.name.clone());
            let who = clients.name(client);
            let what = format!("{} {kind}", format_iops(*need));
            match shortfalls.iter_mut().find(|(w, _)| *w == who) {
                Some((_, needs)) => needs.push(what),
                None => shortfalls.push((who, vec![what])),
            }
        }
    }
    let Some(client) = first_client else {
        return Judged {
            finding: Finding::new(
                Code::RandomIo,
                if rw.fio_comparable {
                    Severity::Ok
                } else {
                    Severity::Info
                },
                "Random I/O meets the client's needs",
                format!("{measured_text}.{comparable}"),
            ),
            fast: rw.fio_comparable,
        };
    };
    failures.push(ClientFailure { client, severity });
    let shortfalls: Vec<String> = shortfalls
        .into_iter()
        .map(|(who, needs)| format!("{who} needs {} IOPS", needs.join(" and ")))
        .collect();
    Judged {
        finding: Finding::new(
            Code::RandomIo,
            severity,
            "Random I/O below the client's needs",
            format!("{measured_text}; {}.{comparable}", shortfalls.join("; ")),
        )
        .with_fix("Replace the drive with a TLC NVMe drive with DRAM (see docs/drives.md); on cloud volumes provision more IOPS"),
        fast: false,
    }
}

/// NC703: figures from the portable engine read lower than fio's at high queue depth.
fn engine_caveat(report: &BenchReport) -> Option<Finding> {
    if report.engine == EngineKind::IoUring {
        return None;
    }
    let why = report
        .engine_reason
        .as_deref()
        .map(|r| format!(": {r}"))
        .unwrap_or_default();
    Some(Finding::new(
        Code::NoIoUring,
        Severity::Info,
        "Benchmark ran without io_uring",
        format!(
            "The {} engine was used{why}. Its figures are somewhat lower than fio's io_uring/libaio figures at high queue depth; QD1 latency is comparable.",
            report.engine.name()
        ),
    ))
}

/// NC704: the bench's own warnings, which bound how far its figures can be trusted.
fn bench_caveats(report: &BenchReport) -> Option<Finding> {
    (!report.warnings.is_empty()).then(|| {
        Finding::new(
            Code::BenchCaveats,
            Severity::Info,
            "Benchmark caveats",
            format!("{}.", report.warnings.join("; ")),
        )
    })
}

fn usable(value: f64) -> bool {
    value.is_finite() && value >= 0.0
}
