//! NC6xx: cloud and virtual volumes, VPS platforms, io_uring availability.

use probe::{Facts, Interface};

use crate::code::Code;
use crate::database::{Advisory, Database, DriveQuery};
use crate::model::{Finding, Severity};

/// How much of a volume's speed was measured: a finding's severity and fix follow from it
/// (nothing asks to measure what was measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Measured {
    Nothing,
    /// QD1 latency (the quick check): not the throughput a provider provisions.
    Latency,
    /// The randrw IOPS test (`--bench full`), which shows the provisioned IOPS.
    Iops,
}

impl Measured {
    pub fn of(bench: Option<&bench::BenchReport>) -> Measured {
        match bench {
            Some(report) if report.randrw.is_some() => Measured::Iops,
            Some(report) if report.qd1.is_some() => Measured::Latency,
            _ => Measured::Nothing,
        }
    }
}

const MEASURE_IOPS: &str = "`nodecheck check --bench full`";
const CLOUD_FIX: &str =
    "on AWS provision gp3 with >= 10000 IOPS or use instance-store NVMe (i3en, i4i)";

pub fn check(facts: &Facts, db: &Database, measured: Measured) -> Vec<Finding> {
    let mut out = Vec::new();
    virtual_storage(facts, db, measured, &mut out);
    io_uring(facts, &mut out);
    out
}

fn virtual_storage(facts: &Facts, db: &Database, measured: Measured, out: &mut Vec<Finding>) {
    let models: Vec<&str> = facts
        .drives
        .iter()
        .filter_map(|d| d.model.as_deref())
        .collect();
    let platform_entry = db.lookup_platform(&facts.platform, &models);
    let virtual_platform = facts.platform.virtualized == Some(true);
    let virtual_drives: Vec<&str> = facts
        .drives
        .iter()
        .filter(|d| {
            virtual_platform || matches!(d.interface, Some(Interface::Virtio | Interface::Xen))
        })
        // A drive passed through, a recognised cloud volume or a hypervisor's disk is said
        // better by NC610-NC612.
        .filter(|d| !super::virtual_disks::said_here(facts, d))
        // A listed volume type (EBS, instance storage) is judged by its entry (NC101/NC102).
        .filter(|d| match d.model.as_deref() {
            Some(model) => db.lookup(&DriveQuery::new(model)).entry.is_none(),
            None => true,
        })
        .map(|d| d.name.as_str())
        .collect();
    let where_ = match (&facts.platform.cloud, &facts.platform.product_name) {
        (Some(cloud), Some(product)) => format!("{cloud} ({product})"),
        (Some(cloud), None) => cloud.clone(),
        (None, Some(product)) => product.clone(),
        (None, None) => "a virtual machine".to_owned(),
    };

    // A volume type matched by its drive model (EBS, instance storage) is the drive's own
    // entry; identity has said all of it already.
    let drive_entry = |id: &str| {
        models.iter().any(|m| {
            db.lookup(&DriveQuery::new(m))
                .entry
                .is_some_and(|e| e.id == id)
        })
    };
    if let Some(entry) = platform_entry.filter(|e| !drive_entry(&e.id)) {
        let severity = super::identity::grade_severity(entry.grade);
        let mut f = Finding::new(
            Code::CloudPlatform,
            severity,
            format!(
                "{} {}: {} in the database",
                entry.vendor, entry.family, entry.grade
            ),
            format!(
                "This machine matches the database entry `{}` for {where_}: {}",
                entry.id,
                entry.notes.trim()
            ),
        );
        if entry.grade > crate::model::Grade::Unknown {
            f = f.with_fix(if measured == Measured::Iops {
                "Move the node to a dedicated server or local NVMe instance storage; the measurement findings show what this one delivers".to_owned()
            } else {
                format!("Move the node to a dedicated server or local NVMe instance storage; if you stay, measure its IOPS with {MEASURE_IOPS}")
            });
        }
        out.push(f);
        for rule in &entry.advisories {
            let advisory =
                Advisory::of_rule(&entry.id, &rule.id, rule.severity, &rule.text, &rule.fix);
            out.push(super::database_advisory(entry, &advisory, None));
        }
        return;
    }

    if virtual_drives.is_empty() {
        return;
    }
    let disks = virtual_drives.join(", ");
    // The provider's own advice where the platform names one (DMI); AWS's otherwise, the
    // cloud most nodes on network storage run on.
    let setups = crate::setups::Setups::embedded();
    let provider = facts
        .platform
        .cloud
        .as_deref()
        .and_then(|cloud| setups.cloud_platform(cloud));
    let fix_after = |lead: String| match provider {
        Some(p) => format!("{lead}. {}", p.fix),
        None => format!("{lead}; {CLOUD_FIX}"),
    };
    let sources = provider
        .map(|p| format!(" Sources: {}.", setups.cite(&p.sources)))
        .unwrap_or_default();
    let where_ = match (provider, &facts.platform.product_name) {
        (Some(p), Some(product)) => format!("{} ({product})", p.label),
        (Some(p), None) => p.label.clone(),
        (None, _) => where_,
    };
    // Without a measurement nothing is known about a virtual disk: its speed is whatever the
    // provider provisions. QD1 latency says little about provisioned IOPS; the randrw test
    // measures them, and then its findings carry the verdict.
    const PROVISIONED: &str = "its speed is whatever the provider provisions (network block storage needs at least 10,000 provisioned IOPS, e.g. gp3 EBS) and cannot be read from the guest";
    let (severity, title, detail, fix) = match measured {
        Measured::Nothing => (
            Severity::Warning,
            "Virtual or cloud volume with unknown provisioned IOPS",
            format!("{disks} on {where_} is virtual storage; {PROVISIONED}, and nothing was measured.{sources}"),
            fix_after(format!("Measure it: {MEASURE_IOPS}")),
        ),
        Measured::Latency => (
            Severity::Info,
            "Virtual or cloud volume with unknown provisioned IOPS",
            format!("{disks} on {where_} is virtual storage; {PROVISIONED}. The quick check measured its read latency, not its IOPS.{sources}"),
            fix_after(format!("Measure its IOPS: {MEASURE_IOPS}")),
        ),
        Measured::Iops => (
            Severity::Info,
            "Virtual or cloud volume",
            format!("{disks} on {where_} is virtual storage; the randrw measurement shows the IOPS provisioned for it.{sources}"),
            fix_after("If the measured IOPS fall short".to_owned()),
        ),
    };
    out.push(Finding::new(Code::UnknownProvisionedIops, severity, title, detail).with_fix(fix));
}

fn io_uring(facts: &Facts, out: &mut Vec<Finding>) {
    let status = &facts.io_uring;
    if status.available != Some(false) {
        return;
    }
    let reason = status.reason.as_deref().unwrap_or("io_uring_setup failed");
    let lower = reason.to_ascii_lowercase();
    let (cause, fix) = match status.sysctl_disabled {
        Some(level @ (1 | 2)) => (
            format!("the sysctl kernel.io_uring_disabled = {level}"),
            "sudo sysctl -w kernel.io_uring_disabled=0   (persist it in /etc/sysctl.d/99-io_uring.conf)".to_owned(),
        ),
        _ if lower.contains("seccomp") || lower.contains("eperm") => (
            "a seccomp filter (Docker >= 25 blocks io_uring by default)".to_owned(),
            "Run the container with `docker run --security-opt seccomp=unconfined ...`, or with a seccomp profile that allows io_uring_setup, io_uring_enter and io_uring_register".to_owned(),
        ),
        _ if lower.contains("enomem") || lower.contains("memlock") => (
            "a low locked-memory limit (RLIMIT_MEMLOCK)".to_owned(),
            "Raise the limit: `ulimit -l unlimited` in the service, or `LimitMEMLOCK=infinity` in its systemd unit".to_owned(),
        ),
        _ => (
            "the kernel".to_owned(),
            "Use a kernel >= 5.10 with io_uring enabled".to_owned(),
        ),
    };
    out.push(
        Finding::new(
            Code::IoUringBlocked,
            Severity::Info,
            "io_uring is blocked",
            format!(
                "io_uring cannot be used here, blocked by {cause} ({reason}). The benchmark falls back to a slower portable engine, and clients or tools that use io_uring lose it too."
            ),
        )
        .with_fix(fix),
    );
}
