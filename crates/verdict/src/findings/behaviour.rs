//! NC8xx: what the drive's behaviour shows (`nodecheck bench --test sync|cliff|span`), judged
//! by data/behaviour.toml. These findings grade drives the database does not know, and catch
//! listed drives that behave worse than their entry (a silent component change, a worn drive).
//! Each code is explained in docs/behaviour.md.

use ::bench::behaviour::{CliffResult, CliffStop, SpanResult, SyncResult};
use ::bench::BenchReport;

use crate::behaviour_thresholds::BehaviourThresholds;
use crate::code::{Code, Family};
use crate::model::{Finding, Grade, Severity};

use super::{format_bytes, format_latency_us};

/// The database entry the probed drive matched, when it matched one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedAs<'a> {
    pub model: &'a str,
    pub grade: Grade,
}

const FIX_TLC_DRAM: &str = "Put the chain database on a TLC NVMe drive with DRAM (the \"Good\" list: `nodecheck db list --grade good`).";

fn finding(code: Code, severity: Severity, title: &str, detail: String, subject: &str) -> Finding {
    Finding::new(code, severity, title, detail).about(subject)
}

/// A [`finding`] on a measurement graded against thresholds: `fix` is the advice for any
/// grade short of `Ok`.
fn graded(
    code: Code,
    severity: Severity,
    title: &str,
    detail: String,
    subject: &str,
    fix: &str,
) -> Finding {
    let f = finding(code, severity, title, detail, subject);
    if severity == Severity::Ok {
        f
    } else {
        f.with_fix(fix)
    }
}

/// Lower is better: `Critical` above `critical`, `Warning` above `warn`.
fn grade_high(value: f64, warn: f64, critical: f64) -> Severity {
    if !value.is_finite() || value > critical {
        Severity::Critical
    } else if value > warn {
        Severity::Warning
    } else {
        Severity::Ok
    }
}

/// Higher is better: `Critical` below `critical`, `Warning` below `warn`.
fn grade_low(value: f64, warn: f64, critical: f64) -> Severity {
    if !value.is_finite() || value < critical {
        Severity::Critical
    } else if value < warn {
        Severity::Warning
    } else {
        Severity::Ok
    }
}

fn sync_findings(sync: &SyncResult, t: &BehaviourThresholds, subject: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let base = &sync.baseline_lat_us;
    let severity = grade_high(base.p99, t.read.warn_p99_us, t.read.critical_p99_us);
    let meaning = match severity {
        Severity::Ok => "within eth-docker's guidance for a good node drive".to_owned(),
        _ => format!(
            "above the {} a good node drive stays under; every state read of the client waits this long",
            format_latency_us(t.read.warn_p99_us)
        ),
    };
    out.push(graded(
        Code::BaselineReadLatency,
        severity,
        "QD1 read latency between write bursts",
        format!(
            "QD1 4 KiB random reads with no writes in flight: p50 {}, p99 {}, max {}: {meaning}.",
            format_latency_us(base.p50),
            format_latency_us(base.p99),
            format_latency_us(base.max),
        ),
        subject,
        "Check the drive's temperature (`smartctl -x`), stop other I/O on it, and prefer local NVMe over network or VPS storage.",
    ));

    let burst = &sync.burst_lat_us;
    let severity = grade_high(burst.p99, t.burst.warn_p99_us, t.burst.critical_p99_us);
    let meaning = match severity {
        Severity::Ok => "reads keep flowing while the client commits".to_owned(),
        Severity::Critical => "reads stall like a hard disk's while the client commits; it will not keep up at chain head".to_owned(),
        _ => "reads slow down markedly while the client commits a batch".to_owned(),
    };
    out.push(graded(
        Code::ReadLatencyDuringBursts,
        severity,
        "Read latency during write bursts",
        format!(
            "While {} of random {}-{} KiB writes at queue depth {} were committed ({:.0} MB/s), QD1 reads took p50 {}, p99 {}, max {} (baseline p99 {}): {meaning}.",
            format_bytes(sync.burst_bytes),
            sync.burst_block_min / 1024,
            sync.burst_block_max / 1024,
            sync.burst_queue_depth,
            sync.burst_write_mb_s,
            format_latency_us(burst.p50),
            format_latency_us(burst.p99),
            format_latency_us(burst.max),
            format_latency_us(base.p99),
        ),
        subject,
        FIX_TLC_DRAM,
    ));

    let cycles = sync.cycles.len();
    let tolerance = sync.recovery_tolerance * 100.0;
    let (severity, detail) = if sync.recovery.unrecovered_cycles > 0 {
        let severity = if sync.recovery_timeout_s * 1e3 >= t.recovery.critical_ms {
            Severity::Critical
        } else {
            Severity::Warning
        };
        (
            severity,
            format!(
                "In {} of {cycles} cycles read p99 was still more than {tolerance:.0} % above baseline {:.0} s after the burst's fdatasync: the drive does not recover from a commit before the next one.",
                sync.recovery.unrecovered_cycles, sync.recovery_timeout_s
            ),
        )
    } else {
        let worst = sync.recovery.recovery_ms_max.unwrap_or(0.0);
        let severity = grade_high(worst, t.recovery.warn_ms, t.recovery.critical_ms);
        let meaning = match severity {
            Severity::Ok => "reads are back to full speed almost at once".to_owned(),
            Severity::Critical => {
                "longer than a 12 s slot: the node falls behind after every commit".to_owned()
            }
            _ => {
                "a visible share of every slot is spent reading slowly after each commit".to_owned()
            }
        };
        (
            severity,
            format!(
                "Read p99 was back within {tolerance:.0} % of baseline {} after the burst (median {}, over {cycles} cycles): {meaning}.",
                format_ms(worst),
                format_ms(sync.recovery.recovery_ms_median.unwrap_or(worst)),
            ),
        )
    };
    out.push(graded(
        Code::BurstRecovery,
        severity,
        "Recovery after write bursts",
        detail,
        subject,
        FIX_TLC_DRAM,
    ));
    out
}

fn format_ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        format!("{ms:.0} ms")
    }
}

/// `Some(severity)` when the cliff result looks like QLC (or worse).
fn cliff_finding(cliff: &CliffResult, t: &BehaviourThresholds, subject: &str) -> Finding {
    let warn = t.cliff.warn_post_cliff_mb_s;
    let critical = t.cliff.critical_post_cliff_mb_s;
    let (severity, detail) = match (cliff.drop.post_cliff_mb_s, cliff.drop.cache_estimate_bytes) {
        (Some(post), Some(cache)) => {
            let severity = grade_low(post, warn, critical);
            let what = match severity {
                Severity::Ok => format!(
                    "behaves like TLC: after its write cache filled at about {}, writes went on at {post:.0} MB/s (from {:.0} MB/s), enough for a sync.",
                    format_bytes(cache),
                    cliff.drop.pre_cliff_mb_s
                ),
                Severity::Warning => format!(
                    "behaves like a QLC drive: writes fell to {post:.0} MB/s after {} (from {:.0} MB/s); below {warn:.0} MB/s, where TLC drives stay.",
                    format_bytes(cache),
                    cliff.drop.pre_cliff_mb_s
                ),
                _ => format!(
                    "behaves like a QLC drive: writes fell to {post:.0} MB/s after {} (from {:.0} MB/s); below {critical:.0} MB/s a sync that writes hundreds of GB will not finish in days.",
                    format_bytes(cache),
                    cliff.drop.pre_cliff_mb_s
                ),
            };
            (severity, what)
        }
        _ => {
            let sustained = cliff.drop.pre_cliff_mb_s;
            let severity = grade_low(sustained, warn, critical);
            let why_stopped = match cliff.stop {
                CliffStop::ByteBudget => "the write budget",
                CliffStop::Runtime => "the time limit",
                CliffStop::CliffEstablished => "the cliff",
            };
            let what = if severity == Severity::Ok {
                format!(
                    "no write cliff within {} written (stopped by {why_stopped}); writes sustained {sustained:.0} MB/s. Its cache, if any, is larger than that.",
                    format_bytes(cliff.written_bytes)
                )
            } else {
                format!(
                    "writes sustained only {sustained:.0} MB/s over {} without a cliff: the cache is already full or absent, and the drive writes like QLC or worse.",
                    format_bytes(cliff.written_bytes)
                )
            };
            (severity, what)
        }
    };
    graded(
        Code::WriteCliff,
        severity,
        "Sustained writes (write cliff)",
        format!("Sequential then random writes: {detail}"),
        subject,
        FIX_TLC_DRAM,
    )
}

fn span_finding(span: &SpanResult, t: &BehaviourThresholds, subject: &str) -> Finding {
    let (first, last) = match (span.points.first(), span.points.last()) {
        (Some(first), Some(last)) => (first, last),
        _ => {
            return finding(
                Code::SpanLatency,
                Severity::Info,
                "Read latency over growing spans",
                "The span test recorded no reads.".into(),
                subject,
            )
        }
    };
    if span.points.len() < 2 {
        return finding(
            Code::SpanLatency,
            Severity::Info,
            "Read latency over growing spans (mapping table)",
            format!(
                "The test file ({}) was too small to compare spans: mapping-table pressure was not measured. Free space for a larger test file and rerun `nodecheck bench --test span DIR`.",
                format_bytes(last.span_bytes)
            ),
            subject,
        );
    }
    let ratio = span.latency_ratio;
    let severity = grade_high(ratio, t.span.warn_ratio, t.span.critical_ratio);
    let meaning = match severity {
        Severity::Ok => "flat, as with a mapping table held in DRAM".to_owned(),
        Severity::Warning => "behaves like a DRAM-less drive: mapping-table misses add a NAND read once reads spread out, and a state database spreads over everything".to_owned(),
        _ => "reads get several times slower the more data they span; the state database will read slower the larger it grows".to_owned(),
    };
    graded(
        Code::SpanLatency,
        severity,
        "Read latency over growing spans (mapping table)",
        format!(
            "QD1 4 KiB random reads averaged {} over {} and {} over {} ({ratio:.2}x): {meaning}.",
            format_latency_us(first.lat_us.mean),
            format_bytes(first.span_bytes),
            format_latency_us(last.lat_us.mean),
            format_bytes(last.span_bytes),
        ),
        subject,
        FIX_TLC_DRAM,
    )
}

/// Behaviour findings for a bench report. `listed` is the database entry the drive matched;
/// when it is graded good but the drive behaves worse, NC807 says so.
pub fn check(
    bench: &BenchReport,
    thresholds: &BehaviourThresholds,
    listed: Option<ListedAs<'_>>,
) -> Vec<Finding> {
    let subject = bench.path.as_str();
    let mut findings = Vec::new();
    if let Some(sync) = &bench.sync {
        findings.extend(sync_findings(sync, thresholds, subject));
    }
    let cliff = bench
        .cliff
        .as_ref()
        .map(|c| cliff_finding(c, thresholds, subject));
    let span = bench
        .span
        .as_ref()
        .map(|s| span_finding(s, thresholds, subject));
    if let (Some(c), Some(s)) = (&cliff, &span) {
        if c.severity >= Severity::Warning && s.severity >= Severity::Warning {
            findings.push(
                finding(
                    Code::QlcAndDramLess,
                    Severity::Critical,
                    "QLC and DRAM-less behaviour together",
                    "Writes fall off a QLC-like cliff and reads slow down like a DRAM-less drive's. The community list: \"anything both QLC and DRAMless will likely not be able to sync at all or not be able to consistently keep up with chain head\".".into(),
                    subject,
                )
                .with_fix(FIX_TLC_DRAM),
            );
        }
    }
    findings.extend(cliff);
    findings.extend(span);

    if let Some(listed) = listed {
        let worse: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.severity >= Severity::Warning)
            .collect();
        if listed.grade == Grade::Good && !worse.is_empty() {
            let codes: Vec<&str> = worse.iter().map(|f| f.code.as_str()).collect();
            findings.push(finding(
                Code::WorseThanEntry,
                Severity::Warning,
                "Behaves worse than its database entry",
                format!(
                    "{} is listed as good, but this drive measured worse ({}). Same-name drives change components (970 EVO Plus rework, Kingston NV series), and worn or hot drives slow down: trust the measurement.",
                    listed.model,
                    codes.join(", ")
                ),
                subject,
            ));
        }
    }
    findings
}

/// Whether the behaviour tests positively show the drive fit for a node: the sync and span
/// tests both ran (the cliff test is opt-in) and every behaviour finding passed. The judge can
/// grade an unknown drive `good` on this, as it does on a fast enough qd1/randrw bench.
pub fn proves_fit(bench: &BenchReport, findings: &[Finding]) -> bool {
    let behaviour: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code.family() == Family::Behaviour)
        .collect();
    bench.sync.is_some()
        && bench.span.is_some()
        && !behaviour.is_empty()
        && behaviour.iter().all(|f| f.severity == Severity::Ok)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use ::bench::behaviour::cliff::CliffPlan;
    use ::bench::behaviour::measure;
    use ::bench::behaviour::models::{DriveModel, MockDrive};
    use ::bench::behaviour::span::SpanPlan;
    use ::bench::behaviour::sync::SyncPlan;
    use ::bench::EngineKind;

    use super::*;

    const GIB: u64 = 1 << 30;

    /// A bench report of the three behaviour tests on a simulated drive.
    fn measured(model: DriveModel) -> BenchReport {
        let never = || false;
        let file = 256 * GIB;
        let sync_plan = SyncPlan {
            runtime: Duration::from_secs(20),
            ..SyncPlan::default()
        };
        let cliff_plan = CliffPlan {
            max_bytes: 200 * GIB,
            ..CliffPlan::default()
        };
        let span_plan = SpanPlan {
            reads_per_span: 3000,
            ..SpanPlan::default()
        };
        let sync = measure(
            &mut MockDrive::new(model.clone(), file, 3),
            &sync_plan,
            &never,
        );
        let cliff = measure(
            &mut MockDrive::new(model.clone(), file, 3),
            &cliff_plan,
            &never,
        );
        let span = measure(&mut MockDrive::new(model, file, 3), &span_plan, &never);
        BenchReport {
            sync: Some(sync.expect("sync runs on the mock")),
            cliff: Some(cliff.expect("cliff runs on the mock")),
            span: Some(span.expect("span runs on the mock")),
            ..BenchReport::new("/var/lib/ethereum", EngineKind::Mock, None)
        }
    }

    /// The findings for `report` under the thresholds the data ships with, no database entry.
    fn judged(report: &BenchReport) -> Vec<Finding> {
        check(report, &BehaviourThresholds::embedded(), None)
    }

    fn by_code<'a>(findings: &'a [Finding], code: &str) -> &'a Finding {
        findings
            .iter()
            .find(|f| f.code == code)
            .unwrap_or_else(|| panic!("no {code} in {findings:#?}"))
    }

    fn worst(findings: &[Finding]) -> Severity {
        findings
            .iter()
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Ok)
    }

    #[test]
    fn tlc_with_dram_passes_every_behaviour_check() {
        let findings = judged(&measured(DriveModel::tlc_dram()));
        assert_eq!(worst(&findings), Severity::Ok, "{findings:#?}");
        for code in ["NC801", "NC802", "NC803", "NC804", "NC805"] {
            assert_eq!(by_code(&findings, code).severity, Severity::Ok);
        }
        let cliff = by_code(&findings, "NC804");
        assert!(
            cliff.detail.contains("behaves like TLC"),
            "{}",
            cliff.detail
        );
        assert!(cliff.detail.contains("900 MB/s"), "{}", cliff.detail);
    }

    #[test]
    fn qlc_is_called_qlc_with_the_measured_cliff() {
        let findings = judged(&measured(DriveModel::qlc_small_slc()));
        let cliff = by_code(&findings, "NC804");
        assert_eq!(cliff.severity, Severity::Critical);
        assert!(
            cliff
                .detail
                .contains("behaves like a QLC drive: writes fell to 80 MB/s after 23.4 GB"),
            "{}",
            cliff.detail
        );
        assert!(cliff.fix.is_some());
        assert_eq!(by_code(&findings, "NC803").severity, Severity::Warning);
        assert_eq!(by_code(&findings, "NC802").severity, Severity::Warning);
        assert_eq!(by_code(&findings, "NC805").severity, Severity::Ok);
        assert!(findings.iter().all(|f| f.code != "NC806"));
    }

    #[test]
    fn dramless_is_called_dramless_with_the_measured_ratio() {
        let findings = judged(&measured(DriveModel::dramless_tlc()));
        let span = by_code(&findings, "NC805");
        assert_eq!(span.severity, Severity::Warning, "{span:#?}");
        assert!(
            span.detail.contains("behaves like a DRAM-less drive"),
            "{}",
            span.detail
        );
        assert!(span.detail.contains("1.96x"), "{}", span.detail);
        assert_eq!(by_code(&findings, "NC804").severity, Severity::Ok);
        assert_eq!(by_code(&findings, "NC803").severity, Severity::Warning);
    }

    #[test]
    fn qlc_and_dramless_together_is_critical() {
        let model = DriveModel {
            name: "QLC, DRAM-less",
            mapping_cache_span: Some(32 * GIB),
            mapping_miss_us: 90.0,
            ..DriveModel::qlc_small_slc()
        };
        let findings = judged(&measured(model));
        let both = by_code(&findings, "NC806");
        assert_eq!(both.severity, Severity::Critical);
        assert!(both.detail.contains("not be able to sync"));
    }

    #[test]
    fn a_listed_good_drive_that_behaves_like_qlc_is_called_out() {
        let listed = ListedAs {
            model: "Samsung SSD 970 EVO Plus 2TB",
            grade: Grade::Good,
        };
        let findings = check(
            &measured(DriveModel::qlc_small_slc()),
            &BehaviourThresholds::embedded(),
            Some(listed),
        );
        let worse = by_code(&findings, "NC807");
        assert_eq!(worse.severity, Severity::Warning);
        assert!(worse.detail.contains("970 EVO Plus"), "{}", worse.detail);
        assert!(worse.detail.contains("NC804"), "{}", worse.detail);

        let findings = check(
            &measured(DriveModel::tlc_dram()),
            &BehaviourThresholds::embedded(),
            Some(listed),
        );
        assert!(findings.iter().all(|f| f.code != "NC807"));
    }

    #[test]
    fn thresholds_come_from_the_data_not_the_code() {
        let report = measured(DriveModel::tlc_dram());
        let mut strict = BehaviourThresholds::embedded();
        strict.cliff.warn_post_cliff_mb_s = 2000.0;
        strict.cliff.critical_post_cliff_mb_s = 1000.0;
        let findings = check(&report, &strict, None);
        assert_eq!(by_code(&findings, "NC804").severity, Severity::Critical);
    }

    #[test]
    fn a_report_without_behaviour_tests_says_nothing() {
        let mut report = measured(DriveModel::tlc_dram());
        report.sync = None;
        report.cliff = None;
        report.span = None;
        assert!(judged(&report).is_empty());
    }

    #[test]
    fn hostile_numbers_do_not_panic_and_count_as_bad() {
        let mut report = measured(DriveModel::tlc_dram());
        if let Some(sync) = report.sync.as_mut() {
            sync.baseline_lat_us.p99 = f64::NAN;
            sync.cycles.clear();
            sync.recovery.recovery_ms_max = None;
        }
        if let Some(span) = report.span.as_mut() {
            span.points.clear();
        }
        if let Some(cliff) = report.cliff.as_mut() {
            cliff.drop.post_cliff_mb_s = Some(f64::INFINITY);
        }
        let findings = judged(&report);
        assert_eq!(by_code(&findings, "NC801").severity, Severity::Critical);
        assert_eq!(by_code(&findings, "NC805").severity, Severity::Info);
    }

    #[test]
    fn only_a_drive_that_passes_sync_and_span_proves_fit() {
        let t = BehaviourThresholds::embedded();
        let tlc = measured(DriveModel::tlc_dram());
        assert!(proves_fit(&tlc, &check(&tlc, &t, None)));
        let qlc = measured(DriveModel::qlc_small_slc());
        assert!(!proves_fit(&qlc, &check(&qlc, &t, None)));
        let mut sync_only = tlc.clone();
        sync_only.span = None;
        assert!(!proves_fit(&sync_only, &check(&sync_only, &t, None)));
    }

    #[test]
    fn a_single_span_is_not_judged_as_flat() {
        let mut report = measured(DriveModel::dramless_tlc());
        if let Some(span) = report.span.as_mut() {
            span.points.truncate(1);
            span.latency_ratio = 1.0;
        }
        let findings = judged(&report);
        let span = by_code(&findings, "NC805");
        assert_eq!(span.severity, Severity::Info);
        assert!(span.detail.contains("too small"), "{}", span.detail);
    }
}
