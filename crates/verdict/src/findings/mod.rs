//! The checks the judge runs, one module per family of findings, and [`CHECKS`], the table
//! of them: each entry names a check, says what it looks at, lists the codes it emits and
//! runs it over the one [`Context`] the judge builds. The judge runs the table in order and
//! folds what comes back; adding a check is adding an entry.
//!
//! Codes are stable and grouped by hundreds: NC1xx identity, NC2xx health and temperature,
//! NC3xx TRIM, NC4xx controller, link and interface, NC5xx mount, file system and capacity,
//! NC6xx platform, cloud and io_uring, NC7xx benchmark, NC8xx behaviour (sync, cliff, span).
//! Every code has a section in `docs/findings.md`; a test keeps the two in step.

pub mod behaviour;
pub mod bench;
pub mod board;
pub mod caches;
pub mod capacity;
mod client_names;
pub(crate) mod context;
pub mod controller;
pub mod crypt;
pub mod during_run;
pub mod health;
pub mod identity;
pub mod media;
pub mod mount;
pub mod needs_root;
pub mod network;
pub mod platform;
pub mod power;
mod reader_words;
pub mod trim;
pub mod usb_bridge;
pub mod virtual_disks;
pub mod zfs;

use crate::clients::{ClientNeeds, ConsensusMode, ConsensusNeeds, HistoryMode, Sizing};
use crate::code::Code;
use crate::database::{Advisory, DriveEntry};
use crate::model::{Finding, Severity};

use context::Context;

/// One check of the judge: what it looks at (its docs), the codes it can emit and how it
/// runs over the context. Every check has this one shape; [`CHECKS`] lists them in the order
/// they run, which is the order of their findings within a severity.
pub(crate) struct Check {
    pub name: &'static str,
    /// For the reader of the table; its test keeps every entry documented.
    #[cfg_attr(not(test), allow(dead_code))]
    pub docs: &'static str,
    /// Every code the check can emit (a test keeps the list in step with the modules).
    pub codes: &'static [Code],
    pub run: fn(&Context<'_>) -> CheckOutput,
}

/// What a check hands the judge: its findings, the clients whose needs a measured value
/// fails, and what a measurement says about the drive's fitness.
#[derive(Debug, Default)]
pub(crate) struct CheckOutput {
    pub findings: Vec<Finding>,
    pub failures: Vec<ClientFailure>,
    pub fit: Fit,
}

/// Whether a measurement vouches for the drive. The verdict is good for a drive no list
/// grades good only when some check shows it fit and none voids the measurement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Fit {
    #[default]
    Silent,
    /// The measurement shows the drive fast enough for every applied need.
    Shown,
    /// The measured figures are not the drive's (a cache answered): they vouch for nothing.
    Void,
}

impl From<Vec<Finding>> for CheckOutput {
    fn from(findings: Vec<Finding>) -> CheckOutput {
        CheckOutput {
            findings,
            ..CheckOutput::default()
        }
    }
}

impl From<Option<Finding>> for CheckOutput {
    fn from(finding: Option<Finding>) -> CheckOutput {
        CheckOutput::from(Vec::from_iter(finding))
    }
}

/// Every check, in the order the judge runs them.
pub(crate) const CHECKS: &[Check] = &[
    Check {
        name: "client-names",
        docs: "Client names the database does not know, and what was judged instead.",
        codes: &[Code::UnknownClient],
        run: |ctx| client_names::check(ctx.unknown_names, ctx.db).into(),
    },
    Check {
        name: "identity",
        docs: "Each drive's database entry, grade and advisories, or the class of a drive the database does not list; hard disks, DRAM-less drives, cut-short model names and a rotational flag that disagrees with better evidence.",
        codes: &[
            Code::DatabaseGrade,
            Code::DatabaseAdvisory,
            Code::UnknownDrive,
            Code::GenericRule,
            Code::HardDisk,
            Code::DramLess,
            Code::ModelNameCut,
            Code::RotationalFlagDisagrees,
        ],
        run: |ctx| identity::check(ctx.facts, ctx.db).0.into(),
    },
    Check {
        name: "health",
        docs: "SMART and NVMe health, wear, spare, media errors, bad sectors and temperature, read with the database's attribute quirks of each drive's family.",
        codes: &[
            Code::HealthFine,
            Code::SmartFailing,
            Code::NvmeCriticalWarning,
            Code::SpareBelowThreshold,
            Code::Worn,
            Code::MediaErrors,
            Code::BadSectors,
            Code::AttributeNotBadSectors,
            Code::SelfTestFailed,
            Code::SmartctlFlags,
            Code::Temperature,
            Code::Throttled,
        ],
        run: |ctx| health::check(ctx.facts, &ctx.identities).into(),
    },
    Check {
        name: "during-run",
        docs: "What the drive's counters say changed while the bench ran: errors, interface CRC errors, throttling.",
        codes: &[
            Code::ErrorsDuringRun,
            Code::InterfaceCrcErrors,
            Code::ThrottledDuringRun,
        ],
        run: |ctx| during_run::check(ctx.facts, ctx.bench).into(),
    },
    Check {
        name: "trim",
        docs: "Whether TRIM reaches the drive through every layer of the stack, and whether something trims periodically.",
        codes: &[
            Code::TrimUnsupported,
            Code::TrimBlocked,
            Code::TrimReachesDrive,
            Code::NoPeriodicTrim,
        ],
        run: |ctx| trim::check(ctx.facts, ctx.db).into(),
    },
    Check {
        name: "crypt",
        docs: "dm-crypt's work-queue and discard flags as the kernel's table holds them (needs root to read).",
        codes: &[Code::CryptOptions],
        run: |ctx| crypt::check(ctx.facts).into(),
    },
    Check {
        name: "controller",
        docs: "The SATA controller mode, the PCIe and SATA link against what the drive supports, and drives behind USB.",
        codes: &[
            Code::SataControllerMode,
            Code::PcieLinkBelowMax,
            Code::SataLinkBelowMax,
            Code::UsbAttached,
        ],
        run: |ctx| controller::check(ctx.facts).into(),
    },
    Check {
        name: "usb-bridge",
        docs: "The USB bridge in front of a drive, named by its USB ids, with the quirks the kernel's own tables give it, whether UAS was turned off and whether TRIM passes it.",
        codes: &[Code::UsbBridge],
        run: |ctx| usb_bridge::check(ctx.facts).into(),
    },
    Check {
        name: "power",
        docs: "NVMe power management that adds wake-up latency to the reads of a node.",
        codes: &[Code::NvmePowerManagement],
        run: |ctx| power::check(ctx.facts).into(),
    },
    Check {
        name: "mount",
        docs: "The mount and file system: atime, read-only, copy-on-write, parity RAID, network storage and a stack the probe could not resolve.",
        codes: &[
            Code::AccessTime,
            Code::ReadOnly,
            Code::BtrfsCopyOnWrite,
            Code::ZfsCopyOnWrite,
            Code::ParityRaid,
            Code::StackUnresolved,
            Code::NetworkStorage,
        ],
        run: |ctx| mount::check(ctx.facts).into(),
    },
    Check {
        name: "capacity",
        docs: "The drive size and free space against the applied clients' needs.",
        codes: &[Code::Size, Code::FreeSpace],
        run: |ctx| {
            let mut failures = Vec::new();
            let findings = capacity::check(ctx.facts, &ctx.clients, &mut failures);
            CheckOutput {
                findings,
                failures,
                fit: Fit::Silent,
            }
        },
    },
    Check {
        name: "platform",
        docs: "Cloud and virtual volumes, VPS platforms and whether io_uring is available.",
        codes: &[
            Code::CloudPlatform,
            Code::UnknownProvisionedIops,
            Code::IoUringBlocked,
            Code::DatabaseAdvisory,
        ],
        run: |ctx| platform::check(ctx.facts, ctx.db, platform::Measured::of(ctx.bench)).into(),
    },
    Check {
        name: "virtual-disks",
        docs: "Cloud volumes and passed-through or virtual disks, with the settings that make them fit.",
        codes: &[
            Code::CloudVolume,
            Code::PassedThrough,
            Code::VirtualDiskSettings,
        ],
        run: |ctx| virtual_disks::check(ctx.facts, ctx.bench).into(),
    },
    Check {
        name: "zfs",
        docs: "ZFS pool layout, dataset properties, the ARC limit and direct I/O.",
        codes: &[
            Code::ZfsPoolLayout,
            Code::ZfsDatasetProperties,
            Code::ZfsArcLimit,
            Code::ZfsDirectIo,
        ],
        run: |ctx| zfs::check(ctx.facts, ctx.bench.is_some()).into(),
    },
    Check {
        name: "bench",
        docs: "The QD1 latency and randrw IOPS the bench measured against the applied clients' needs and the QD1 rule, with the engine's and the run's caveats.",
        codes: &[
            Code::Qd1Latency,
            Code::RandomIo,
            Code::BenchResultUnusable,
            Code::NoIoUring,
            Code::BenchCaveats,
        ],
        run: |ctx| {
            let Some(report) = ctx.bench else {
                return CheckOutput::default();
            };
            let share = ctx.facts.mount.as_ref().and_then(|m| m.network.as_ref());
            let mut failures = Vec::new();
            let outcome = bench::check(
                report,
                &ctx.clients,
                &ctx.thresholds.qd1,
                share,
                &mut failures,
            );
            CheckOutput {
                findings: outcome.findings,
                failures,
                fit: if outcome.fast { Fit::Shown } else { Fit::Silent },
            }
        },
    },
    Check {
        name: "caches",
        docs: "Whether the QD1 figures are the drive's at all, or a cache's or an unwritten block's.",
        codes: &[Code::CacheSpeedReads, Code::UnwrittenBlocksRead],
        run: |ctx| {
            let Some(report) = ctx.bench else {
                return CheckOutput::default();
            };
            let limits = &ctx.thresholds.cache;
            CheckOutput {
                findings: caches::check(ctx.facts, report, limits),
                failures: Vec::new(),
                fit: if caches::answered_by_cache(ctx.facts, report, limits) {
                    Fit::Void
                } else {
                    Fit::Silent
                },
            }
        },
    },
    Check {
        name: "behaviour",
        docs: "How the drive behaves under a sync-like load (sync, cliff and span tests), and a drive listed good that measured worse.",
        codes: &[
            Code::BaselineReadLatency,
            Code::BurstRecovery,
            Code::ReadLatencyDuringBursts,
            Code::WriteCliff,
            Code::SpanLatency,
            Code::QlcAndDramLess,
            Code::WorseThanEntry,
        ],
        run: |ctx| {
            let Some(report) = ctx.bench else {
                return CheckOutput::default();
            };
            // The bench measured the path, so an entry is comparable only when one drive is
            // under it.
            let listed = match (ctx.facts.drives.as_slice(), ctx.identities.as_slice()) {
                ([drive], [identity]) => identity.entry.and(drive.model.as_deref()).map(|model| {
                    behaviour::ListedAs {
                        model,
                        grade: identity.grade,
                    }
                }),
                _ => None,
            };
            let findings = behaviour::check(report, ctx.thresholds, listed);
            // Passing behaviour tests (sync with its write bursts, span) vouch for a drive no
            // list knows; the behaviour module owns what "passing" means.
            let fit = if behaviour::proves_fit(report, &findings) {
                Fit::Shown
            } else {
                Fit::Silent
            };
            CheckOutput {
                findings,
                failures: Vec::new(),
                fit,
            }
        },
    },
    Check {
        name: "needs-root",
        docs: "The facts that could not be read without root, in one finding.",
        codes: &[Code::NeedsRoot],
        run: |ctx| needs_root::needs_root(ctx.facts).1.into(),
    },
];

/// Every check's output over one context, in table order.
pub(crate) fn run_all(ctx: &Context<'_>) -> Vec<CheckOutput> {
    CHECKS
        .iter()
        .map(|check| {
            let output = (check.run)(ctx);
            // Every test that judges anything keeps the table's code lists honest.
            debug_assert!(
                output
                    .findings
                    .iter()
                    .all(|f| check.codes.contains(&f.code)),
                "the {} check emitted a code its entry does not list",
                check.name
            );
            output
        })
        .collect()
}

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
    /// The history mode the user named (`--history`); each client's own default otherwise.
    pub history: Option<HistoryMode>,
    /// The consensus client's mode (`--cl-mode`).
    pub consensus_mode: ConsensusMode,
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

// Findings print sizes as drive labels do, latencies in µs/ms and IOPS as the community list;
// the formats are shared with every other output (the units crate).
pub use units::latency::format_us as format_latency_us;
pub use units::rate::iops as format_iops;
pub use units::size::decimal as format_bytes;

/// `text` with at most `kept` of its characters, then `…` if anything was cut: findings state
/// their limits as the characters of a drive string they show.
pub fn clip(text: &str, kept: usize) -> String {
    units::text::clip(text, kept.saturating_add(1))
}

/// The finding of one of `entry`'s database advisories; `drive` names the drive it is about
/// when the machine may have several.
/// What an advisory is about in a few words, for its title and so the verdict line: the
/// text's first sentence or clause when short, and the update when the fix is one.
fn advisory_headline(text: &str, fix: Option<&str>) -> String {
    let end = [". ", ": "]
        .iter()
        .filter_map(|stop| text.find(stop))
        .min()
        .unwrap_or(text.len());
    let head = text[..end].trim_end_matches('.');
    let mut headline = if head.chars().count() <= 100 {
        head.to_string()
    } else {
        "database advisory".to_string()
    };
    let update = fix.is_some_and(|f| f.to_ascii_lowercase().contains("update"));
    if head.starts_with("Firmware ") && update {
        headline.push_str("; update the firmware");
    }
    headline
}

pub(crate) fn database_advisory(
    entry: &DriveEntry,
    advisory: &Advisory,
    drive: Option<&str>,
) -> Finding {
    // The rule's id (`samsung-990-pro/before-1b2qjxd7`) is the curators' name for it, not
    // the reader's: the text says what the rule is about.
    let text = advisory.text.trim();
    let detail = match drive {
        Some(name) => format!("{name}: {text}"),
        None => text.to_string(),
    };
    let mut f = Finding::new(
        Code::DatabaseAdvisory,
        advisory.severity,
        format!(
            "{} {}: {}",
            entry.vendor,
            entry.family,
            advisory_headline(text, advisory.fix.as_deref())
        ),
        detail,
    );
    if let Some(name) = drive {
        f = f.about(name);
    }
    if let Some(fix) = &advisory.fix {
        f = f.with_fix(fix.trim());
    }
    f
}

#[cfg(test)]
mod tests;
