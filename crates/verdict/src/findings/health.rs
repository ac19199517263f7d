//! NC2xx: drive health (SMART / NVMe health log) and temperature.

use probe::{Drive, Facts, Health};

use crate::code::Code;
use crate::database::{DriveEntry, SmartAttributeQuirk, BAD_SECTOR_ATTRIBUTES};
use crate::model::{Finding, Severity};

use super::identity::DriveIdentity;

/// The list's advice: keep the drive below 50 C so it does not throttle.
pub const TEMPERATURE_WARN_C: f64 = 50.0;
/// Wear at which replacement should be planned; the NVMe spec defines 100 as the vendor's
/// rated endurance, so warn with some margin before it.
pub const PERCENTAGE_USED_WARN: u8 = 80;
pub const PERCENTAGE_USED_CRITICAL: u8 = 100;

/// smartctl takes the kernel device node: the namespace for NVMe (`nvme0n1`), else the disk.
fn smart_fix(name: &str) -> String {
    format!("Back up the node's data, check `sudo smartctl -x /dev/{name}`, and plan to replace the drive")
}

fn cooling_fix(name: &str) -> String {
    format!("Add a heatsink to the M.2 drive and airflow over it; check again with `sudo smartctl -x /dev/{name}` under load")
}

/// NVMe critical warning bits (NVMe base spec, SMART / Health log byte 0).
const CRITICAL_WARNING_BITS: [(u8, &str); 5] = [
    (0, "available spare below threshold"),
    (1, "temperature above or below a threshold"),
    (
        2,
        "NVM subsystem reliability degraded by media or internal errors",
    ),
    (3, "media placed in read-only mode"),
    (4, "volatile memory backup device failed"),
];

/// `identities` (from the identity checks, one per drive) carry each drive's database entry,
/// whose SMART attribute quirks change how the bad-sector counts read.
pub fn check(facts: &Facts, identities: &[DriveIdentity<'_>]) -> Vec<Finding> {
    let mut out = Vec::new();
    for drive in &facts.drives {
        let before = out.len();
        let entry = identities
            .iter()
            .find(|i| i.name == drive.name)
            .and_then(|i| i.entry);
        if let Some(health) = &drive.health {
            check_health(drive, health, entry, &mut out);
            let problems = out[before..]
                .iter()
                .any(|f| f.severity >= Severity::Warning);
            if !problems {
                out.push(healthy(drive));
            }
        }
        check_temperature(drive, &mut out);
    }
    out
}

fn healthy(drive: &Drive) -> Finding {
    let mut seen = Vec::new();
    if let Some(h) = &drive.health {
        if let Some(used) = h.percentage_used {
            seen.push(format!("{used}% of rated endurance used"));
        }
        if let Some(spare) = h.available_spare_pct {
            seen.push(format!("{spare}% spare left"));
        }
        if let Some(hours) = h.power_on_hours {
            seen.push(format!("{hours} power-on hours"));
        }
        if h.passed == Some(true) {
            seen.push("SMART overall assessment passed".to_owned());
        }
    }
    let name = &drive.name;
    let detail = if seen.is_empty() {
        format!("{name}: the drive's health log shows no problem.")
    } else {
        format!(
            "{name}: the drive's health log shows no problem: {}.",
            seen.join(", ")
        )
    };
    Finding::new(
        Code::HealthFine,
        Severity::Ok,
        "Drive health is fine",
        detail,
    )
    .about(&drive.name)
}

/// The health log's findings, one check per thing it reports.
fn check_health(drive: &Drive, h: &Health, entry: Option<&DriveEntry>, out: &mut Vec<Finding>) {
    let name = drive.name.as_str();
    out.extend(smart_failing(name, h));
    out.extend(critical_warning(name, h));
    out.extend(spare_below_threshold(name, h));
    out.extend(wear(name, h));
    out.extend(media_errors(name, h));
    out.extend(bad_sectors(name, h, entry));
    out.extend(self_test_failed(name, h));
    out.extend(smartctl_flags(name, h));
}

/// NC201: the drive's own overall assessment, or smartctl's exit status saying it fails.
fn smart_failing(name: &str, h: &Health) -> Option<Finding> {
    let failing_status = h
        .smartctl_status
        .iter()
        .any(|s| s.to_ascii_lowercase().contains("failing"));
    (h.passed == Some(false) || failing_status).then(|| {
        Finding::new(
            Code::SmartFailing,
            Severity::Critical,
            "SMART says the drive is failing",
            format!(
                "{name}: the drive's own overall health assessment failed ({}).",
                if h.smartctl_status.is_empty() {
                    "smart_status.passed = false".to_owned()
                } else {
                    h.smartctl_status.join(", ")
                }
            ),
        )
        .with_fix(smart_fix(name))
        .about(name)
    })
}

/// NC202: the NVMe critical warning byte, decoded bit by bit.
fn critical_warning(name: &str, h: &Health) -> Option<Finding> {
    let bits = h.critical_warning.filter(|b| *b != 0)?;
    let decoded: Vec<String> = CRITICAL_WARNING_BITS
        .iter()
        .filter(|(bit, _)| bits & (1 << bit) != 0)
        .map(|(bit, text)| format!("bit {bit}: {text}"))
        .collect();
    let unknown = bits & !0x1f;
    let mut detail = format!("{name}: NVMe critical warning 0x{bits:02x}");
    if !decoded.is_empty() {
        detail.push_str(&format!(" ({})", decoded.join("; ")));
    }
    if unknown != 0 {
        detail.push_str(&format!(", reserved bits 0x{unknown:02x} also set"));
    }
    detail.push('.');
    // The temperature bit alone is cured by cooling; anything else is the drive itself.
    let fix = if bits & 0b10 != 0 && bits & !0b10 == 0 {
        "Cool the drive (heatsink, airflow) and recheck; if the warning stays, back up and replace it".to_owned()
    } else {
        smart_fix(name)
    };
    Some(
        Finding::new(
            Code::NvmeCriticalWarning,
            Severity::Critical,
            "The drive raises an NVMe critical warning",
            detail,
        )
        .with_fix(fix)
        .about(name),
    )
}

/// NC203: spare blocks below the threshold the drive itself sets.
fn spare_below_threshold(name: &str, h: &Health) -> Option<Finding> {
    let (spare, threshold) = (h.available_spare_pct?, h.available_spare_threshold_pct?);
    (spare < threshold).then(|| {
        Finding::new(
            Code::SpareBelowThreshold,
            Severity::Critical,
            "Spare blocks below the drive's threshold",
            format!(
                "{name}: {spare}% spare capacity left, below the drive's own threshold of {threshold}%; it is close to running out of replacement blocks."
            ),
        )
        .with_fix(smart_fix(name))
        .about(name)
    })
}

/// NC204: rated write endurance used.
fn wear(name: &str, h: &Health) -> Option<Finding> {
    let used = h.percentage_used.filter(|u| *u >= PERCENTAGE_USED_WARN)?;
    let severity = if used >= PERCENTAGE_USED_CRITICAL {
        Severity::Critical
    } else {
        Severity::Warning
    };
    let written = h
        .bytes_written
        .map(|b| format!(" after {} written", super::format_bytes(b)))
        .unwrap_or_default();
    Some(
        Finding::new(
            Code::Worn,
            severity,
            "The drive is worn",
            format!(
                "{name}: {used}% of the rated write endurance is used{written}; an Ethereum node writes heavily, so wear grows fast."
            ),
        )
        .with_fix("Plan to replace the drive with a higher-endurance (TBW) model before it reaches its limit")
        .about(name),
    )
}

/// NC205: unrecovered media or data-integrity errors.
fn media_errors(name: &str, h: &Health) -> Option<Finding> {
    let errors = h.media_errors.filter(|e| *e > 0)?;
    Some(
        Finding::new(
            Code::MediaErrors,
            Severity::Warning,
            "The drive logged media errors",
            format!(
                "{name}: {errors} unrecovered media or data-integrity errors in the health log."
            ),
        )
        .with_fix(smart_fix(name))
        .about(name),
    )
}

/// NC206, and NC208 first when the drive's family is known to raise one of the bad-sector
/// attributes alone for another reason: that attribute then does not count.
fn bad_sectors(name: &str, h: &Health, entry: Option<&DriveEntry>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut pending = h.pending_sectors.unwrap_or(0);
    let mut uncorrectable = h.uncorrectable_sectors.unwrap_or(0);
    let mut reallocated = h.reallocated_sectors.unwrap_or(0);
    if let Some((entry, quirk, value)) = benign_alone(entry, [reallocated, pending, uncorrectable])
    {
        match quirk.attribute {
            5 => reallocated = 0,
            197 => pending = 0,
            _ => uncorrectable = 0,
        }
        out.push(benign_attribute(name, entry, quirk, value));
    }
    if pending > 0 || uncorrectable > 0 || reallocated > 0 {
        let severity = if pending > 0 || uncorrectable > 0 {
            Severity::Critical
        } else {
            Severity::Warning
        };
        out.push(
            Finding::new(
                Code::BadSectors,
                severity,
                "Bad sectors",
                format!(
                    "{name}: {reallocated} reallocated, {pending} pending and {uncorrectable} offline-uncorrectable sectors."
                ),
            )
            .with_fix(smart_fix(name))
            .about(name),
        );
    }
    out
}

/// NC208: a bad-sector attribute that this family raises alone for another reason.
fn benign_attribute(
    name: &str,
    entry: &DriveEntry,
    quirk: &SmartAttributeQuirk,
    value: u64,
) -> Finding {
    let (family, id) = (entry.display_name(), entry.id.as_str());
    Finding::new(
        Code::AttributeNotBadSectors,
        Severity::Info,
        format!("{family}: SMART attribute {} is not a bad-sector count alone", quirk.attribute),
        format!(
            "{name}: attribute {} ({}) reads {value}, with no other bad-sector attribute raised. {} [{id}/{}]",
            quirk.attribute,
            quirk.name,
            quirk.text.trim(),
            quirk.id
        ),
    )
    .with_fix(format!(
        "Nothing to do for this alone; if reallocated (5) or offline-uncorrectable (198) sectors start to count, or attribute {} climbs past {}, check `sudo smartctl -x /dev/{name}`",
        quirk.attribute, quirk.benign_raw_max
    ))
    .about(name)
}

/// NC207: smartctl's exit status flags attributes at or past their threshold, or logged
/// errors; a warning only while an attribute is at its threshold now.
fn smartctl_flags(name: &str, h: &Health) -> Option<Finding> {
    let threshold_bits: Vec<&String> = h
        .smartctl_status
        .iter()
        .filter(|s| {
            let s = s.to_ascii_lowercase();
            // Self-test failures are NC209's.
            !s.contains("failing") && (s.contains("threshold") || s.contains("error log"))
        })
        .collect();
    if threshold_bits.is_empty() {
        return None;
    }
    let now = threshold_bits.iter().any(|s| {
        let s = s.to_ascii_lowercase();
        s.contains("threshold") && !s.contains("past")
    });
    Some(
        Finding::new(
            Code::SmartctlFlags,
            if now {
                Severity::Warning
            } else {
                Severity::Info
            },
            "smartctl flags attributes or logged errors",
            format!(
                "{name}: smartctl's exit status reports: {}.",
                threshold_bits
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .with_fix(format!(
            "Read the flagged attributes and logs with `sudo smartctl -x /dev/{name}`"
        ))
        .about(name),
    )
}

/// The status line smartctl's exit status bit 7 decodes to.
const SELF_TEST_LOG_BIT: &str = "self-test log has errors";

/// NC209: the drive failed a self-test of its own media (smartctl's exit status bit 7, or a
/// failed entry in the self-test log): it found sectors it cannot read, whatever its overall
/// assessment still says, and a node on it will hit them.
fn self_test_failed(name: &str, h: &Health) -> Option<Finding> {
    let failed: Vec<&str> = h
        .smartctl_status
        .iter()
        .filter(|s| {
            s.starts_with(probe::smartctl::FAILED_SELF_TEST) || s.as_str() == SELF_TEST_LOG_BIT
        })
        .map(String::as_str)
        .collect();
    if failed.is_empty() {
        return None;
    }
    Some(
        Finding::new(
            Code::SelfTestFailed,
            Severity::Critical,
            "the drive failed a SMART self-test",
            format!("{name}: {}.", failed.join("; ")),
        )
        .with_fix(format!(
            "Copy off what you need and replace the drive; `sudo smartctl -l selftest /dev/{name}` lists the failed tests and the first unreadable LBA"
        ))
        .about(name),
    )
}

/// A temperature under `limit`, in whole degrees unless rounding would reach the limit: an
/// NVMe drive's 323 K is 49.85 C, which "50 C, below 50 C" would contradict.
fn celsius_below(temp: f64, limit: f64) -> String {
    if temp.round() >= limit {
        format!("{:.1}", (temp * 10.0).floor() / 10.0)
    } else {
        format!("{temp:.0}")
    }
}

/// The family's quirk that explains the only raised bad-sector attribute, with its value:
/// `counts` are attributes 5, 197 and 198 in that order. `None` when no quirk applies, the
/// value is above what the quirk calls benign, or another attribute is raised too (then every
/// count is evidence).
fn benign_alone(
    entry: Option<&DriveEntry>,
    counts: [u64; 3],
) -> Option<(&DriveEntry, &SmartAttributeQuirk, u64)> {
    let entry = entry?;
    let mut raised = BAD_SECTOR_ATTRIBUTES
        .iter()
        .zip(counts)
        .filter(|(_, value)| *value > 0);
    let (&attribute, value) = raised.next()?;
    if raised.next().is_some() {
        return None;
    }
    entry
        .smart_attribute(attribute)
        .filter(|q| value <= q.benign_raw_max)
        .map(|q| (entry, q, value))
}

fn check_temperature(drive: &Drive, out: &mut Vec<Finding>) {
    let name = &drive.name;
    let critical_c = drive
        .nvme
        .as_ref()
        .and_then(|n| n.identify.as_ref())
        .filter(|id| id.wctemp_k > 273)
        .map(|id| f64::from(id.wctemp_k) - 273.15);
    if let Some(temp) = drive.temperature_c.filter(|t| t.is_finite()) {
        let source = drive
            .temperature_source
            .as_deref()
            .map(|s| format!(" (from {s})"))
            .unwrap_or_default();
        if let Some(limit) = critical_c.filter(|limit| temp >= *limit) {
            out.push(
                Finding::new(
                    Code::Temperature,
                    Severity::Critical,
                    "The drive is above its warning temperature",
                    format!(
                        "{name}: {temp:.0} °C{source}, at or above the drive's own warning threshold of {limit:.0} °C; it throttles and may lose data."
                    ),
                )
                .with_fix(cooling_fix(name))
                .about(name),
            );
        } else if temp >= TEMPERATURE_WARN_C {
            out.push(
                Finding::new(
                    Code::Temperature,
                    Severity::Warning,
                    "The drive runs hot",
                    format!(
                        "{name}: {temp:.0} °C{source}; keep it below {TEMPERATURE_WARN_C:.0} °C so it does not throttle during a sync."
                    ),
                )
                .with_fix(cooling_fix(name))
                .about(name),
            );
        } else {
            out.push(
                Finding::new(
                    Code::Temperature,
                    Severity::Ok,
                    "Drive temperature is fine",
                    format!(
                        "{name}: {} °C{source}, below {TEMPERATURE_WARN_C:.0} °C.",
                        celsius_below(temp, TEMPERATURE_WARN_C)
                    ),
                )
                .about(name),
            );
        }
    }

    if let Some(h) = &drive.health {
        let t1 = h.thermal_throttle_t1_transitions.unwrap_or(0);
        let t2 = h.thermal_throttle_t2_transitions.unwrap_or(0);
        let warn_min = h.warning_temp_minutes.unwrap_or(0);
        let crit_min = h.critical_temp_minutes.unwrap_or(0);
        if t1 > 0 || t2 > 0 || warn_min > 0 || crit_min > 0 {
            let mut seen = Vec::new();
            if t1 > 0 || t2 > 0 {
                seen.push(format!(
                    "{t1} light and {t2} heavy thermal-throttling transitions"
                ));
            }
            if warn_min > 0 {
                seen.push(format!("{warn_min} minutes above the warning temperature"));
            }
            if crit_min > 0 {
                seen.push(format!("{crit_min} minutes above the critical temperature"));
            }
            out.push(
                Finding::new(
                    Code::Throttled,
                    Severity::Warning,
                    "The drive has throttled for heat",
                    format!(
                        "{name}: the health log counts {} over the drive's life; a throttling drive slows the sync to a crawl.",
                        seen.join(", ")
                    ),
                )
                .with_fix(cooling_fix(name))
                .about(name),
            );
        }
    }
}
