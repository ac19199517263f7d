//! NC212-NC214: what the drive went through while it was measured (its temperature sampled
//! during the run, its thermal and error counters before and after) and the SATA link's CRC
//! count. A drive that throttles or fails reads while measured makes the figures its heat's
//! or its errors', and the sync will meet the same.

use ::bench::BenchReport;
use probe::Facts;

use crate::code::Code;
use crate::model::{Finding, Severity};

/// NC212, NC213 from the bench report's run conditions, NC214 from the probe's SATA counters.
pub fn check(facts: &Facts, bench: Option<&BenchReport>) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(conditions) = bench.and_then(|b| b.conditions.as_ref()) {
        findings.extend(heat(conditions));
        findings.extend(errors(conditions));
    }
    findings.extend(crc_errors(facts));
    findings
}

fn cooling_fix(drive: &str) -> String {
    format!(
        "Give {drive} airflow and a heatsink (an M.2 drive without one throttles under sustained load), and move it out of the M.2 slot under the graphics card if it sits there; measure again with `sudo nodecheck check`"
    )
}

/// NC212: the peak temperature during the run and whether the drive entered thermal
/// management (NVMe SMART log transition counts and times, bytes 192-231, before and after).
fn heat(conditions: &::bench::RunConditions) -> Option<Finding> {
    let drive = conditions.drive.as_str();
    let peak = conditions.temperature.as_ref().map(|t| {
        format!(
            "peak {:.0} °C (from {:.0} °C, {} samples from {})",
            t.peak_c, t.first_c, t.samples, t.source
        )
    });
    let growth = conditions.growth();
    let throttled = growth.and_then(|g| g.throttled());
    let (severity, title, detail) = match (throttled, &peak) {
        (Some(true), _) => {
            let growth = growth.unwrap_or_default();
            let mut seen = Vec::new();
            if let Some(n) = growth.thermal_transitions.filter(|&n| n > 0) {
                seen.push(format!("{n} thermal-management transitions"));
            }
            if let Some(n) = growth.thermal_seconds.filter(|&n| n > 0) {
                seen.push(format!("{n} s throttled"));
            }
            if let Some(n) = growth.hot_minutes.filter(|&n| n > 0) {
                seen.push(format!("{n} min above the warning temperature"));
            }
            (
                Severity::Warning,
                "The drive throttled during the measurement",
                format!(
                    "{drive}: during the measurement the SMART log counted {}{}; the figures are the throttled drive's, and a sync's sustained writes will throttle it the same way.",
                    seen.join(", "),
                    peak.as_ref().map(|p| format!("; {p}")).unwrap_or_default()
                ),
            )
        }
        (Some(false), _) => (
            Severity::Ok,
            "No throttling during the measurement",
            format!(
                "{drive}: the thermal-management counters did not move during the measurement{}.",
                peak.as_ref().map(|p| format!("; {p}")).unwrap_or_default()
            ),
        ),
        (None, Some(peak)) => (
            Severity::Info,
            "Temperature during the measurement",
            format!(
                "{drive}: {peak}; whether it throttled is in the NVMe SMART log's thermal counters, which {}.",
                conditions
                    .gaps
                    .first()
                    .map_or("could not be read", String::as_str)
            ),
        ),
        (None, None) => return None,
    };
    let finding = Finding::new(Code::ThrottledDuringRun, severity, title, detail).about(drive);
    Some(if severity >= Severity::Warning {
        finding.with_fix(cooling_fix(drive))
    } else {
        finding
    })
}

/// NC213: media errors or error-log entries the drive added while it was measured.
fn errors(conditions: &::bench::RunConditions) -> Vec<Finding> {
    let drive = conditions.drive.as_str();
    let Some(growth) = conditions.growth() else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    if let Some(n) = growth.media_errors.filter(|&n| n > 0) {
        findings.push(
            Finding::new(
                Code::ErrorsDuringRun,
                Severity::Critical,
                "Media errors during the measurement",
                format!("{drive}: the drive counted {n} new media errors (unrecovered data) while nodecheck read it."),
            )
            .with_fix(format!("Back up what is on {drive} now, run `sudo smartctl -t long /dev/{drive}` and replace the drive if the count keeps growing"))
            .about(drive),
        );
    }
    if let Some(n) = growth.error_log_entries.filter(|&n| n > 0) {
        findings.push(
            Finding::new(
                Code::ErrorsDuringRun,
                Severity::Warning,
                "Error-log entries during the measurement",
                format!("{drive}: the drive logged {n} new errors while nodecheck read it."),
            )
            .with_fix(format!("Read them with `sudo smartctl -l error /dev/{drive}`: entries for admin commands a tool sent are harmless, read or transport errors are not (reseat the drive, update its firmware)"))
            .about(drive),
        );
    }
    findings
}

/// NC214: ATA attribute 199 counts CRC errors on the SATA link, not the media: a bad cable,
/// connector or backplane, which also drops the link to a lower speed.
fn crc_errors(facts: &Facts) -> Vec<Finding> {
    facts
        .drives
        .iter()
        .filter_map(|drive| {
            let count = drive.health.as_ref()?.crc_errors.filter(|&n| n > 0)?;
            Some(
                Finding::new(
                    Code::InterfaceCrcErrors,
                    Severity::Warning,
                    "SATA link CRC errors",
                    format!(
                        "{}: {count} interface CRC errors (SMART attribute 199): data was corrupted on the cable between the controller and the drive and sent again, which slows I/O and can drop the link speed.",
                        drive.name
                    ),
                )
                .with_fix("Replace the SATA data cable (or reseat it, and try another port or backplane slot); the count never goes down, so check that it stops growing")
                .about(&drive.name),
            )
        })
        .collect()
}
