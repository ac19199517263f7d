//! What the judge asks the database and what it answers: a drive's identity in, the matched
//! entry with its grade and advisories out; a machine's DMI identity for cloud and VPS entries.

use serde::Serialize;

use super::{Dram, DriveEntry, Nand};
use crate::model::{Grade, Severity};

/// What a lookup is asked about: the drive as the probe (or a smartctl report) saw it.
#[derive(Debug, Clone, Copy, Default)]
pub struct DriveQuery<'a> {
    pub model: &'a str,
    pub firmware: Option<&'a str>,
    pub capacity_bytes: Option<u64>,
    pub interface: Option<probe::Interface>,
}

impl<'a> DriveQuery<'a> {
    pub fn new(model: &'a str) -> DriveQuery<'a> {
        DriveQuery {
            model,
            ..DriveQuery::default()
        }
    }

    pub fn firmware(mut self, firmware: &'a str) -> Self {
        self.firmware = Some(firmware);
        self
    }

    pub fn capacity(mut self, capacity_bytes: u64) -> Self {
        self.capacity_bytes = Some(capacity_bytes);
        self
    }

    pub fn interface(mut self, interface: probe::Interface) -> Self {
        self.interface = Some(interface);
        self
    }
}

/// The answer to a lookup: the drive's own grade from model, capacity and firmware (not a
/// judgement of fitness for a particular client).
#[derive(Debug, Clone, Serialize)]
pub struct Lookup<'a> {
    pub entry: Option<&'a DriveEntry>,
    /// `Unknown` when no entry matches.
    pub grade: Grade,
    /// Capacity, firmware and family advisories, in that order.
    pub advisories: Vec<Advisory>,
    /// NAND of this drive (a capacity rule can differ from the family's).
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
}

/// One thing the database says about a particular drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Advisory {
    /// `<entry id>/<rule id>`, stable across data versions.
    pub code: String,
    pub severity: Severity,
    pub text: String,
    pub fix: Option<String>,
}

impl Advisory {
    /// The advisory of one of an entry's rules: its code is `entry-id/rule-id`.
    pub(crate) fn of_rule(
        entry_id: &str,
        rule_id: &str,
        severity: Severity,
        text: &str,
        fix: &Option<String>,
    ) -> Advisory {
        Advisory {
            code: format!("{entry_id}/{rule_id}"),
            severity,
            text: text.to_owned(),
            fix: fix.clone(),
        }
    }

    /// The entry has rules on a property the query did not give (`capacity`, `firmware`) and
    /// one of them would change the grade: say so, with the rule's text.
    pub(crate) fn unknown(
        entry_id: &str,
        property: &str,
        why: &str,
        rule_text: &str,
        fix: &str,
    ) -> Advisory {
        Advisory {
            code: format!("{entry_id}/{property}-unknown"),
            severity: Severity::Info,
            text: format!("{why}: {rule_text}"),
            fix: Some(fix.to_owned()),
        }
    }
}

/// The DMI identity a platform lookup uses; `From<&probe::Platform>` builds it from the facts.
/// Netcup tells its VPS and RS products apart only by `bios_version`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlatformQuery<'a> {
    pub sys_vendor: Option<&'a str>,
    pub product_name: Option<&'a str>,
    pub bios_version: Option<&'a str>,
    pub cloud: Option<&'a str>,
}

impl<'a> From<&'a probe::Platform> for PlatformQuery<'a> {
    fn from(p: &'a probe::Platform) -> Self {
        PlatformQuery {
            sys_vendor: p.sys_vendor.as_deref(),
            product_name: p.product_name.as_deref(),
            bios_version: p.bios_version.as_deref(),
            cloud: p.cloud.as_deref(),
        }
    }
}
