//! The thresholds behaviour findings are judged by (data/behaviour.toml, embedded at build
//! time). Each section carries its source and reasoning so that the verdict can cite them.

use serde::{Deserialize, Serialize};

use crate::watch::WatchThresholds;

/// The thresholds shipped with nodecheck.
pub const EMBEDDED_BEHAVIOUR: &str = include_str!("../../../data/behaviour.toml");

#[derive(Debug, thiserror::Error)]
pub enum ThresholdsError {
    #[error("behaviour thresholds: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("behaviour thresholds: [{section}] {why}")]
    Invalid { section: &'static str, why: String },
}

/// A metric where lower is better (latency, time, ratio): warn above one, critical above the
/// other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadLimits {
    pub warn_p99_us: f64,
    pub critical_p99_us: f64,
    pub source: String,
    pub reasoning: String,
}

/// The QD1 rule of one situation: warn when the p99 or the max is above its warning figure,
/// critical above its critical one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qd1Rule {
    pub warn_p99_us: f64,
    pub critical_p99_us: f64,
    pub warn_max_us: f64,
    pub critical_max_us: f64,
    pub source: String,
    pub reasoning: String,
}

/// The fastest QD1 p50 a drive can answer with (below it, a cache answered).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheLimits {
    pub any_drive_min_p50_us: f64,
    pub flash_min_p50_us: f64,
    pub source: String,
    pub reasoning: String,
}

/// The QD1 rule at rest and beside a running client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qd1Rules {
    pub at_rest: Qd1Rule,
    pub beside_client: Qd1Rule,
}

impl Qd1Rules {
    /// The rule for a run that had (or had not) a client running beside it.
    pub fn for_run(&self, beside_client: bool) -> &Qd1Rule {
        if beside_client {
            &self.beside_client
        } else {
            &self.at_rest
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoveryLimits {
    pub warn_ms: f64,
    pub critical_ms: f64,
    pub source: String,
    pub reasoning: String,
}

/// Higher is better: warn below one, critical below the other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CliffLimits {
    pub warn_post_cliff_mb_s: f64,
    pub critical_post_cliff_mb_s: f64,
    pub source: String,
    pub reasoning: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpanLimits {
    pub warn_ratio: f64,
    pub critical_ratio: f64,
    pub source: String,
    pub reasoning: String,
}

/// Everything in data/behaviour.toml.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BehaviourThresholds {
    /// The QD1 latency rule of every path (NC701, `bench`, `triage`, `submit`).
    pub qd1: Qd1Rules,
    /// Reads faster than any drive: a cache's (NC706).
    pub cache: CacheLimits,
    /// QD1 reads alone (the baseline of `--test sync`).
    pub read: ReadLimits,
    /// QD1 reads while a write burst is in flight.
    pub burst: ReadLimits,
    pub recovery: RecoveryLimits,
    pub cliff: CliffLimits,
    pub span: SpanLimits,
    /// `nodecheck watch`'s judgement of a running node (crate::watch).
    pub watch: WatchThresholds,
}

fn check_pair(
    section: &'static str,
    warn: f64,
    critical: f64,
    higher_is_worse: bool,
) -> Result<(), ThresholdsError> {
    let invalid = |why: String| Err(ThresholdsError::Invalid { section, why });
    if !(warn.is_finite() && critical.is_finite() && warn > 0.0 && critical > 0.0) {
        return invalid(format!(
            "thresholds must be positive numbers (warn {warn}, critical {critical})"
        ));
    }
    if higher_is_worse && critical <= warn {
        return invalid(format!("critical ({critical}) must be above warn ({warn})"));
    }
    if !higher_is_worse && critical >= warn {
        return invalid(format!("critical ({critical}) must be below warn ({warn})"));
    }
    Ok(())
}

/// The watch thresholds are a section of the behaviour file, so the file's reader owns their
/// constructor and the watch judge needs nothing of this module.
impl WatchThresholds {
    /// The `[watch]` section shipped in data/behaviour.toml.
    pub fn embedded() -> WatchThresholds {
        BehaviourThresholds::embedded().watch
    }
}

impl BehaviourThresholds {
    /// The thresholds compiled into the binary. Their validity is a unit test, so failing here
    /// would be a build defect, not bad input.
    pub fn embedded() -> BehaviourThresholds {
        Self::from_toml_str(EMBEDDED_BEHAVIOUR)
            .expect("data/behaviour.toml is validated by the verdict crate's tests")
    }

    /// Parses and validates a thresholds document (`--db`-style overrides, tests).
    pub fn from_toml_str(text: &str) -> Result<BehaviourThresholds, ThresholdsError> {
        let parsed: BehaviourThresholds = toml::from_str(text)?;
        parsed.validate()?;
        Ok(parsed)
    }

    pub fn validate(&self) -> Result<(), ThresholdsError> {
        for (section, rule) in [
            ("qd1.at_rest", &self.qd1.at_rest),
            ("qd1.beside_client", &self.qd1.beside_client),
        ] {
            check_pair(section, rule.warn_p99_us, rule.critical_p99_us, true)?;
            check_pair(section, rule.warn_max_us, rule.critical_max_us, true)?;
            if rule.source.trim().is_empty() || rule.reasoning.trim().is_empty() {
                return Err(ThresholdsError::Invalid {
                    section,
                    why: "every threshold needs a source and its reasoning".into(),
                });
            }
        }
        check_pair(
            "cache",
            self.cache.flash_min_p50_us,
            self.cache.any_drive_min_p50_us,
            false,
        )?;
        if self.cache.source.trim().is_empty() || self.cache.reasoning.trim().is_empty() {
            return Err(ThresholdsError::Invalid {
                section: "cache",
                why: "every threshold needs a source and its reasoning".into(),
            });
        }
        check_pair(
            "read",
            self.read.warn_p99_us,
            self.read.critical_p99_us,
            true,
        )?;
        check_pair(
            "burst",
            self.burst.warn_p99_us,
            self.burst.critical_p99_us,
            true,
        )?;
        check_pair(
            "recovery",
            self.recovery.warn_ms,
            self.recovery.critical_ms,
            true,
        )?;
        check_pair(
            "cliff",
            self.cliff.warn_post_cliff_mb_s,
            self.cliff.critical_post_cliff_mb_s,
            false,
        )?;
        check_pair("span", self.span.warn_ratio, self.span.critical_ratio, true)?;
        self.watch
            .validate()
            .map_err(|why| ThresholdsError::Invalid {
                section: "watch",
                why,
            })?;
        if self.span.warn_ratio <= 1.0 {
            return Err(ThresholdsError::Invalid {
                section: "span",
                why: format!(
                    "a ratio of {} would flag a perfectly flat drive",
                    self.span.warn_ratio
                ),
            });
        }
        for (section, source, reasoning) in [
            ("read", &self.read.source, &self.read.reasoning),
            ("burst", &self.burst.source, &self.burst.reasoning),
            ("recovery", &self.recovery.source, &self.recovery.reasoning),
            ("cliff", &self.cliff.source, &self.cliff.reasoning),
            ("span", &self.span.source, &self.span.reasoning),
        ] {
            if source.trim().is_empty() || reasoning.trim().is_empty() {
                return Err(ThresholdsError::Invalid {
                    section,
                    why: "every threshold needs a source and its reasoning".into(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_thresholds_load_and_carry_sources() {
        let t = BehaviourThresholds::from_toml_str(EMBEDDED_BEHAVIOUR).expect("valid");
        assert_eq!(t.read.warn_p99_us, 300.0);
        assert_eq!(t.qd1.at_rest.warn_p99_us, 300.0);
        assert!(t.qd1.beside_client.source.contains("ioping -D"));
        assert!(t.read.source.contains("eth-docker"));
        assert!(t.cliff.critical_post_cliff_mb_s < t.cliff.warn_post_cliff_mb_s);
    }

    #[test]
    fn inverted_limits_are_refused_with_the_section_named() {
        let text = EMBEDDED_BEHAVIOUR.replace("critical_ratio = 3.0", "critical_ratio = 1.2");
        let err = BehaviourThresholds::from_toml_str(&text).expect_err("inverted");
        assert!(err.to_string().contains("[span]"), "{err}");
        let text = EMBEDDED_BEHAVIOUR.replace(
            "critical_post_cliff_mb_s = 100.0",
            "critical_post_cliff_mb_s = 400.0",
        );
        let err = BehaviourThresholds::from_toml_str(&text).expect_err("inverted");
        assert!(err.to_string().contains("[cliff]"), "{err}");
    }

    #[test]
    fn hostile_documents_are_errors_not_panics() {
        for text in [
            "",
            "[read]\nwarn_p99_us = \"fast\"",
            "\u{0}\u{ffff}",
            "[read]\nwarn_p99_us = nan\ncritical_p99_us = 2.0\nsource = \"x\"\nreasoning = \"y\"",
            &EMBEDDED_BEHAVIOUR.replace("warn_ms = 1000.0", "warn_ms = -1.0"),
            &EMBEDDED_BEHAVIOUR.replace("[span]", "[span]\nsurprise = 1"),
            &"[".repeat(10_000),
        ] {
            assert!(
                BehaviourThresholds::from_toml_str(text).is_err(),
                "{text:.60}"
            );
        }
    }

    #[test]
    fn a_threshold_without_reasoning_is_refused() {
        let mut t = BehaviourThresholds::from_toml_str(EMBEDDED_BEHAVIOUR).expect("valid");
        t.recovery.reasoning = "  ".into();
        assert!(t.validate().is_err());
    }
}
