//! Spinning or solid state: the evidence about a drive's medium, weighed in a fixed order of
//! trust, and NC120 when the kernel's `queue/rotational` flag disagrees with better evidence.
//!
//! Order of trust, most trusted first:
//! 1. the drive's own rotation rate: ATA IDENTIFY word 217 (read by the probe or smartctl);
//! 2. the SCSI Block Device Characteristics VPD page (0xB1), which a bridge, HBA or SAS drive
//!    answers (libata builds it from word 217, so for plain SATA it repeats 1);
//! 3. NVMe: there are no NVMe hard disks in the field;
//! 4. the database class of the drive's model (a hard-disk entry or an SSD entry);
//! 5. the kernel's `queue/rotational`, last: the SCSI disk driver sets it for every disk
//!    whose VPD page does not say "non-rotating", so an SSD that leaves word 217 at 0 (QEMU's
//!    default, some bridges and RAID HBAs) is marked rotational. It is ignored for virtio, Xen
//!    and USB disks, where it says nothing about the storage behind them.

use probe::{Drive, Interface};

use crate::code::Code;
use crate::database::{may_be_truncated, Class, Database, DriveEntry, DriveQuery};
use crate::model::{Finding, Severity};

use super::clip;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Medium {
    SolidState,
    Spinning,
}

impl Medium {
    fn of_rpm(rpm: u32) -> Medium {
        if rpm == 0 {
            Medium::SolidState
        } else {
            Medium::Spinning
        }
    }
}

/// One piece of evidence about the medium, in the order of trust above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// ATA IDENTIFY word 217 (or smartctl's `rotation_rate`): 0 = non-rotating, else rpm.
    RotationRate(u32),
    /// The Block Device Characteristics VPD page's MEDIUM ROTATION RATE, same convention.
    VpdPage(u32),
    Nvme,
    /// The database entry the model matched, by family name.
    Database {
        family: String,
        class: Class,
    },
    /// `queue/rotational` on an interface where it counts.
    KernelFlag(bool),
}

impl Evidence {
    fn medium(&self) -> Medium {
        match self {
            Evidence::RotationRate(rpm) | Evidence::VpdPage(rpm) => Medium::of_rpm(*rpm),
            Evidence::Nvme => Medium::SolidState,
            Evidence::Database { class, .. } => {
                if *class == Class::Hdd {
                    Medium::Spinning
                } else {
                    Medium::SolidState
                }
            }
            Evidence::KernelFlag(true) => Medium::Spinning,
            Evidence::KernelFlag(false) => Medium::SolidState,
        }
    }

    /// Why a drive counts as spinning, for a parenthesis: "5400 rpm, ATA IDENTIFY word 217".
    pub fn short(&self) -> String {
        match self {
            Evidence::RotationRate(rpm) if *rpm > 0 => {
                format!("{rpm} rpm, ATA IDENTIFY word 217")
            }
            Evidence::VpdPage(rpm) if *rpm > 0 => format!("{rpm} rpm, SCSI VPD page 0xB1"),
            Evidence::Database { family, .. } => format!("the database lists {family}"),
            other => other.describe(),
        }
    }

    /// What this evidence says, for a sentence about the drive.
    pub fn describe(&self) -> String {
        match self {
            Evidence::RotationRate(0) => {
                "it reports a non-rotating medium (ATA IDENTIFY word 217)".to_owned()
            }
            Evidence::RotationRate(rpm) => {
                format!("it reports {rpm} rpm (ATA IDENTIFY word 217)")
            }
            Evidence::VpdPage(0) => {
                "its SCSI block characteristics page (VPD 0xB1) reports a non-rotating medium"
                    .to_owned()
            }
            Evidence::VpdPage(rpm) => {
                format!("its SCSI block characteristics page (VPD 0xB1) reports {rpm} rpm")
            }
            Evidence::Nvme => "it is an NVMe drive".to_owned(),
            Evidence::Database { family, class } if *class == Class::Hdd => {
                format!("its model is a known hard disk ({family})")
            }
            Evidence::Database { family, .. } => format!("its model is a known SSD ({family})"),
            Evidence::KernelFlag(true) => "the kernel marks it rotational".to_owned(),
            Evidence::KernelFlag(false) => "the kernel marks it non-rotational".to_owned(),
        }
    }
}

/// Everything known about one drive's medium and what it adds up to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediumJudgement {
    /// Every piece of evidence, most trusted first.
    pub evidence: Vec<Evidence>,
    /// The kernel's `queue/rotational`, whether or not it counts as evidence here.
    pub kernel_flag: Option<bool>,
}

impl MediumJudgement {
    /// What the most trusted piece of evidence says; `None` when nothing says anything.
    pub fn medium(&self) -> Option<Medium> {
        self.evidence.first().map(Evidence::medium)
    }

    pub fn decided_by(&self) -> Option<&Evidence> {
        self.evidence.first()
    }

    pub fn spins(&self) -> bool {
        self.medium() == Some(Medium::Spinning)
    }

    /// Only the kernel's flag says the drive spins: nothing the drive or the database said.
    pub fn kernel_flag_only(&self) -> bool {
        matches!(self.evidence.as_slice(), [Evidence::KernelFlag(true)])
    }
}

/// The kernel's flag: `queue_rotational` as read, or for facts that predate that field, the
/// combined `rotational` when no rotation rate could have overridden it.
fn kernel_flag(drive: &Drive) -> Option<bool> {
    drive.queue_rotational.or_else(|| {
        drive
            .rotational
            .filter(|_| drive.rotation_rate_rpm.is_none() && drive.vpd_rotation_rate_rpm.is_none())
    })
}

/// Collects the evidence about `drive` in the order of trust.
pub fn judge_medium(drive: &Drive, db: &Database) -> MediumJudgement {
    let mut evidence = Vec::new();
    if let Some(rpm) = drive.rotation_rate_rpm {
        evidence.push(Evidence::RotationRate(rpm));
    }
    if let Some(rpm) = drive.vpd_rotation_rate_rpm {
        evidence.push(Evidence::VpdPage(rpm));
    }
    if drive.interface == Some(Interface::Nvme) {
        evidence.push(Evidence::Nvme);
    }
    if let Some(model) = drive
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        let lookup = db.lookup(&DriveQuery {
            model,
            firmware: drive.firmware.as_deref().map(str::trim),
            capacity_bytes: drive.capacity_bytes,
            interface: drive.interface,
        });
        // A cloud volume type says nothing about the media behind it.
        if let Some(entry) = lookup.entry.filter(|e| e.class != Class::Cloud) {
            evidence.push(Evidence::Database {
                family: format!("{} {}", entry.vendor, entry.family),
                class: entry.class,
            });
        } else if lookup.entry.is_none()
            && may_be_truncated(model, drive.model_source, drive.interface)
        {
            // A model cut to 16 characters names several families; they still settle the
            // medium when all of them are SSDs (or all hard disks).
            let candidates = db.prefix_candidates(model);
            let hdd = |e: &&DriveEntry| e.class == Class::Hdd;
            let agree = !candidates.entries.is_empty()
                && candidates.entries.iter().all(|e| e.class != Class::Cloud)
                && (candidates.entries.iter().all(hdd) || !candidates.entries.iter().any(hdd));
            if agree {
                let names: Vec<String> = candidates
                    .entries
                    .iter()
                    .map(|e| format!("{} {}", e.vendor, e.family))
                    .collect();
                evidence.push(Evidence::Database {
                    family: names.join(" or "),
                    class: candidates.entries[0].class,
                });
            }
        }
    }
    let flag = kernel_flag(drive);
    if let Some(flag) = flag {
        let counts = !matches!(
            drive.interface,
            Some(Interface::Virtio | Interface::Xen | Interface::Usb | Interface::Nvme)
        );
        if counts {
            evidence.push(Evidence::KernelFlag(flag));
        }
    }
    MediumJudgement {
        evidence,
        kernel_flag: flag,
    }
}

/// A spinning disk by the best evidence there is.
pub fn spins(drive: &Drive, db: &Database) -> bool {
    judge_medium(drive, db).spins()
}

/// NC120: the kernel's flag disagrees with better evidence. Not for virtual disks, where the
/// flag is known to mean nothing and nothing better is known either.
pub fn check(drive: &Drive, judgement: &MediumJudgement) -> Option<Finding> {
    if matches!(
        drive.interface,
        Some(Interface::Virtio | Interface::Xen | Interface::Nvme)
    ) {
        return None;
    }
    let flag = judgement.kernel_flag?;
    let decided = judgement.decided_by()?;
    if matches!(decided, Evidence::KernelFlag(_)) {
        return None;
    }
    let medium = decided.medium();
    let flag_medium = if flag {
        Medium::Spinning
    } else {
        Medium::SolidState
    };
    if medium == flag_medium {
        return None;
    }
    let name = &drive.name;
    let model = drive
        .model
        .as_deref()
        .map(|m| format!(" (\"{}\")", clip(m.trim(), 64)))
        .unwrap_or_default();
    let agreeing: Vec<String> = judgement
        .evidence
        .iter()
        .filter(|e| e.medium() == medium && !matches!(e, Evidence::KernelFlag(_)))
        .map(Evidence::describe)
        .collect();
    let (marks, is, consequence, value) = if flag {
        (
            "rotational",
            "solid state",
            "The kernel and udev treat it as a hard disk: udev rules that choose the I/O scheduler by this flag (bfq for rotational disks is a common one) tune it for seeks, btrfs mounts it without its SSD allocation mode, and md RAID1 prefers other mirrors for reads.",
            0,
        )
    } else {
        (
            "non-rotational",
            "a spinning disk",
            "The kernel and udev treat it as an SSD: udev rules that choose the I/O scheduler by this flag leave it without one that orders seeks (`none`), and btrfs mounts it in SSD allocation mode.",
            1,
        )
    };
    let detail = format!(
        "The kernel marks {name}{model} {marks} (queue/rotational = {}), but {}. nodecheck judges it {is}: it trusts the drive's own rotation rate (ATA IDENTIFY word 217), then the SCSI block characteristics page (VPD 0xB1), NVMe, the database, and the kernel's flag last. {consequence}",
        u8::from(flag),
        agreeing.join(", and "),
    );
    Some(
        Finding::new(
            Code::RotationalFlagDisagrees,
            Severity::Info,
            format!("The kernel marks {name} {marks}, but it is {is}"),
            detail,
        )
        .with_fix(udev_fix(drive, value))
        .about(name),
    )
}

/// A udev rule that sets the flag at every boot, and the trigger that applies it now. The rule
/// file sorts after 60-persistent-storage.rules, which sets ID_SERIAL_SHORT.
fn udev_fix(drive: &Drive, value: u8) -> String {
    let name = &drive.name;
    let serial = drive.serial.as_deref().map(str::trim).filter(|s| {
        !s.is_empty()
            && s.len() <= 40
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    });
    let (matcher, note) = match serial {
        Some(serial) => (format!("ENV{{ID_SERIAL_SHORT}}==\"{serial}\""), ""),
        None => (
            format!("KERNEL==\"{name}\""),
            " (the drive reports no usable serial, so the rule matches the kernel name, which can change between boots)",
        ),
    };
    format!(
        "Set the flag with a udev rule{note}: `echo 'ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{{DEVTYPE}}==\"disk\", {matcher}, ATTR{{queue/rotational}}=\"{value}\"' | sudo tee /etc/udev/rules.d/61-nodecheck-rotational.rules && sudo udevadm trigger --action=change --sysname-match={name}`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Database {
        Database::embedded().expect("embedded database")
    }

    fn sata(model: &str) -> Drive {
        Drive {
            name: "sda".into(),
            model: Some(model.into()),
            serial: Some("S5VSNG0NA12345B".into()),
            interface: Some(Interface::Sata),
            queue_rotational: Some(true),
            rotational: Some(true),
            ..Drive::default()
        }
    }

    #[test]
    fn order_of_trust() {
        let db = db();
        // The kernel's flag alone decides only when nothing else says anything.
        let unknown = sata("NoSuchVendor XYZ 1TB");
        let j = judge_medium(&unknown, &db);
        assert_eq!(j.evidence, vec![Evidence::KernelFlag(true)]);
        assert!(j.spins() && j.kernel_flag_only());

        // The database outranks the kernel's flag.
        let qvo = sata("Samsung SSD 870 QVO 1TB");
        let j = judge_medium(&qvo, &db);
        assert!(
            matches!(j.decided_by(), Some(Evidence::Database { class, .. }) if *class != Class::Hdd),
            "{j:?}"
        );
        assert!(!j.spins());

        // The VPD page outranks the database, and the drive's own rate outranks the page.
        let mut page = qvo.clone();
        page.vpd_rotation_rate_rpm = Some(7200);
        assert_eq!(
            judge_medium(&page, &db).decided_by(),
            Some(&Evidence::VpdPage(7200))
        );
        page.rotation_rate_rpm = Some(0);
        assert_eq!(
            judge_medium(&page, &db).decided_by(),
            Some(&Evidence::RotationRate(0))
        );

        // A model cut to its 16-character INQUIRY product still counts when every family it
        // could be is an SSD.
        let mut cut = sata("Samsung SSD 870");
        cut.model_source = Some(probe::ModelSource::ScsiInquiry);
        let j = judge_medium(&cut, &db);
        assert!(
            matches!(j.decided_by(), Some(Evidence::Database { family, class })
                if family.contains(" or ") && *class != Class::Hdd),
            "{j:?}"
        );
        assert!(!j.spins());

        // The flag of a USB or virtio disk is no evidence at all.
        let mut usb = unknown.clone();
        usb.interface = Some(Interface::Usb);
        assert_eq!(judge_medium(&usb, &db).medium(), None);
    }

    #[test]
    fn conflicts_name_both_sides_and_give_the_rule() {
        let db = db();
        let qvo = sata("Samsung SSD 870 QVO 1TB");
        let f = check(&qvo, &judge_medium(&qvo, &db)).expect("a conflict");
        assert_eq!(f.code, "NC120");
        assert!(f.title.contains("marks sda rotational"), "{f:#?}");
        assert!(f.detail.contains("its model is a known SSD"), "{f:#?}");
        assert!(f.detail.contains("I/O scheduler"), "{f:#?}");
        let fix = f.fix.expect("fix");
        assert!(
            fix.contains("ENV{ID_SERIAL_SHORT}==\"S5VSNG0NA12345B\"")
                && fix.contains("ATTR{queue/rotational}=\"0\"")
                && fix.contains("udevadm trigger --action=change --sysname-match=sda"),
            "{fix}"
        );

        // Agreement is no finding; neither is a decision the flag made itself.
        let mut agreeing = qvo.clone();
        agreeing.queue_rotational = Some(false);
        assert_eq!(check(&agreeing, &judge_medium(&agreeing, &db)), None);
        let unknown = sata("NoSuchVendor XYZ 1TB");
        assert_eq!(check(&unknown, &judge_medium(&unknown, &db)), None);

        // The other way round: a spinning disk the kernel took for an SSD.
        let mut hdd = sata("NoSuchVendor XYZ 1TB");
        hdd.queue_rotational = Some(false);
        hdd.rotation_rate_rpm = Some(5400);
        hdd.serial = Some("weird serial; rm".into());
        let f = check(&hdd, &judge_medium(&hdd, &db)).expect("a conflict");
        assert!(f.detail.contains("5400 rpm"), "{f:#?}");
        let fix = f.fix.expect("fix");
        assert!(
            fix.contains("KERNEL==\"sda\"") && fix.contains("ATTR{queue/rotational}=\"1\""),
            "{fix}"
        );
        assert!(!fix.contains("weird"), "{fix}");
    }
}
