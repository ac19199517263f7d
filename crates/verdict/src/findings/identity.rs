//! NC1xx: who the drive is: its database entry and grade, firmware and capacity advisories,
//! what is known about a drive the database does not list, hard disks, DRAM-less drives,
//! and the facts that could not be read without root.

use probe::{Drive, Facts, Interface};

use crate::code::Code;
use crate::database::{
    controller_maker, full_model_command, may_be_truncated, Class, ClassQuery, Classification,
    Database, Dram, DriveEntry, DriveQuery, EntryInterface, Nand, PrefixCandidates, Traits,
    SCSI_PRODUCT_LEN,
};
use crate::model::{Finding, Grade, Severity};
use crate::output::ClassSummary;

use super::media::{self, Evidence, Medium, MediumJudgement};
use super::reader_words::{for_readers, rule_subject};
use super::{clip, format_bytes, format_iops};

/// What the identity checks learned about one drive, for the per-drive verdict.
#[derive(Debug, Clone)]
pub struct DriveIdentity<'a> {
    pub name: String,
    pub entry: Option<&'a DriveEntry>,
    /// NAND and DRAM as the database says for this capacity (AData S40G 4 TB is QLC).
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    /// The database's grade for this drive (entry, firmware and capacity rules, or a generic
    /// rule); `Unknown` when nothing says anything.
    pub grade: Grade,
    /// For a drive without an entry: its class and the evidence for it.
    pub class: Option<ClassSummary>,
}

pub fn grade_severity(grade: Grade) -> Severity {
    match grade {
        Grade::Good => Severity::Ok,
        Grade::Unknown => Severity::Info,
        Grade::Ugly => Severity::Warning,
        Grade::Bad => Severity::Critical,
    }
}

/// ATA and NVMe model fields are 40 characters; anything longer is not a real model.
const MODEL_CHARS: usize = 64;

const REPLACE_FIX: &str = "Replace it with a drive from the Good list: TLC NAND with DRAM, 2 TB or more (see docs/drives.md or `nodecheck db list --grade good`)";

pub fn check<'a>(facts: &Facts, db: &'a Database) -> (Vec<Finding>, Vec<DriveIdentity<'a>>) {
    let mut out = Vec::new();
    let mut identities = Vec::new();
    for drive in &facts.drives {
        let medium = media::judge_medium(drive, db);
        identities.push(identify(drive, db, &medium, &mut out));
        hard_disk(drive, &medium, &mut out);
        out.extend(media::check(drive, &medium));
    }
    (out, identities)
}

/// Who each drive is, without the findings: what the judge's context hands every other check.
/// The identity check itself runs [`check`], which learns the same on the way to its findings.
pub fn identities<'a>(facts: &Facts, db: &'a Database) -> Vec<DriveIdentity<'a>> {
    facts
        .drives
        .iter()
        .map(|drive| identify(drive, db, &media::judge_medium(drive, db), &mut Vec::new()))
        .collect()
}

fn identify<'a>(
    drive: &Drive,
    db: &'a Database,
    medium: &MediumJudgement,
    out: &mut Vec<Finding>,
) -> DriveIdentity<'a> {
    let name = &drive.name;
    let Some(model) = drive
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    else {
        let (grade, rule_matched, class) = generic(drive, None, db, medium, out);
        out.push(
            Finding::new(
                Code::UnknownDrive,
                Severity::Info,
                "Drive model unknown",
                format!(
                    "{name}: the drive reports no model string, so the database cannot be consulted{}.{}",
                    describe_known(drive, medium),
                    describe_class(class.as_ref()),
                ),
            )
            .about(name),
        );
        dram_less(drive, None, rule_matched, out);
        return unlisted_identity(name, grade, class);
    };

    let lookup = db.lookup(&DriveQuery {
        model,
        firmware: drive.firmware.as_deref().map(str::trim),
        capacity_bytes: drive.capacity_bytes,
        interface: drive.interface,
    });

    let shown = clip(model, MODEL_CHARS);
    let Some(entry) = lookup.entry else {
        if may_be_truncated(model, drive.model_source, drive.interface) {
            let candidates = db.prefix_candidates(model);
            if !candidates.entries.is_empty() {
                return cut_short(drive, &candidates, out);
            }
        }
        let (grade, rule_matched, class) = generic(drive, Some(&shown), db, medium, out);
        out.push(
            Finding::new(
                Code::UnknownDrive,
                Severity::Info,
                "Drive not in the database",
                format!(
                    "{name}: \"{shown}\"{} is not in nodecheck's database{}.{}",
                    drive
                        .firmware
                        .as_deref()
                        .map(|f| format!(" (firmware {})", clip(f.trim(), MODEL_CHARS)))
                        .unwrap_or_default(),
                    describe_known(drive, medium),
                    describe_class(class.as_ref()),
                ),
            )
            .with_fix(if raid_volume(model) {
                RAID_VOLUME_FIX
            } else {
                "Measure it with `nodecheck check --bench full`, and add the result to the database with `nodecheck submit`"
            })
            .about(name),
        );
        dram_less(drive, None, rule_matched, out);
        return unlisted_identity(name, grade, class);
    };

    let mut traits = vec![entry.interface.label().to_owned()];
    if let Some(nand) = lookup.nand {
        traits.push(nand.label().to_owned());
    }
    if let Some(dram) = lookup.dram {
        traits.push(dram.label().to_owned());
    }
    traits.push(format!("{} class", entry.class.label().to_lowercase()));
    let mut detail = format!(
        "{name}: \"{shown}\" is the {} {} ({}), graded {} in the database.",
        entry.vendor,
        entry.family,
        traits.join(", "),
        entry.grade
    );
    let notes = for_readers(&entry.notes);
    if !notes.is_empty() {
        detail.push(' ');
        detail.push_str(&notes);
    }
    let rules = db.generic_matches(&Traits {
        nand: lookup.nand,
        dram: lookup.dram,
        class: Some(entry.class),
        interface: Some(entry.interface),
        rotational: Some(entry.class == Class::Hdd),
        virtualized: None,
        components: None,
    });
    // Only the rules that agree with the entry: the entry's own grade is the verdict, and a
    // rule that says otherwise (a QLC drive the list found merely ugly) would confuse.
    let rules: Vec<_> = rules
        .into_iter()
        .filter(|r| r.grade == entry.grade)
        .collect();
    if !rules.is_empty() {
        let said: Vec<String> = rules
            .iter()
            .map(|r| format!("{} ({})", r.notes.trim(), r.grade))
            .collect();
        detail.push_str(&format!(
            " The list's general rules say: {}",
            said.join(" ")
        ));
    }
    if let Some(result) = entry.results.first() {
        detail.push_str(&format!(
            " Community fio result: {}/{} r/w IOPS",
            format_iops(f64::from(result.read_iops)),
            format_iops(f64::from(result.write_iops)),
        ));
        if let Some(cap) = result.capacity_bytes {
            detail.push_str(&format!(" ({})", format_bytes(cap)));
        }
        detail.push('.');
    }
    // The family's own grade; firmware and capacity rules that change it for this drive come
    // as NC102 with their own severity and fix (update the firmware, not replace the drive).
    // A family graded better than this drive's own firmware or capacity is not a passed
    // check: the advisory carries the problem, and this says which grade is whose.
    let severity = if lookup.grade > entry.grade {
        grade_severity(entry.grade).max(Severity::Info)
    } else {
        grade_severity(entry.grade)
    };
    let title = if lookup.grade == entry.grade {
        format!(
            "{} {}: {} in the database",
            entry.vendor, entry.family, entry.grade
        )
    } else {
        detail.push_str(&format!(
            " The database's firmware or capacity rules grade this particular drive {} (see the advisory).",
            lookup.grade
        ));
        format!(
            "{} {}: {} family, {} for this firmware or capacity",
            entry.vendor, entry.family, entry.grade, lookup.grade
        )
    };
    let mut f = Finding::new(Code::DatabaseGrade, severity, title, detail).about(name);
    if entry.grade >= Grade::Ugly {
        f = f.with_fix(REPLACE_FIX);
    }
    out.push(f);

    for advisory in &lookup.advisories {
        out.push(super::database_advisory(entry, advisory, Some(name)));
    }

    dram_less(drive, Some((entry, lookup.dram)), true, out);
    DriveIdentity {
        name: name.clone(),
        entry: Some(entry),
        nand: lookup.nand,
        dram: lookup.dram,
        grade: lookup.grade,
        class: None,
    }
}

/// A hardware RAID controller's volume is not a drive model: a measurement of it is of the
/// controller and its disks together, and is no database result.
const RAID_VOLUME_FIX: &str = "This is a volume of a RAID controller, not a drive: judge the disks behind it. List them with `sudo smartctl --scan`, read each with `sudo smartctl -j -x -d megaraid,N /dev/sdX` (N from the scan) and run `nodecheck triage FILE.json` on each saved output";

/// Model strings of hardware RAID volumes (Dell PERC, HPE Smart Array, LSI/Broadcom MegaRAID,
/// IBM/Lenovo ServeRAID).
fn raid_volume(model: &str) -> bool {
    let model = model.to_ascii_uppercase();
    ["PERC", "LOGICAL VOLUME", "MEGARAID", "SERVERAID", "MR9"]
        .iter()
        .any(|marker| model.contains(marker))
}

/// A model cut to its SCSI INQUIRY product that more than one family's names start with (or
/// one family's, when nothing else confirms it): each is named with its grade, and the
/// command that reads the whole name.
fn cut_short<'a>(
    drive: &Drive,
    candidates: &PrefixCandidates<'a>,
    out: &mut Vec<Finding>,
) -> DriveIdentity<'a> {
    let name = &drive.name;
    let grade = candidates.common_grade();
    let count = candidates.entries.len();
    let families = if count == 1 {
        "one family in the database has a name that starts so".to_owned()
    } else {
        format!("{count} families in the database have names that start so")
    };
    let decides = if grade == Grade::Unknown {
        " Which one it is decides the grade."
    } else {
        ""
    };
    let source = drive
        .model_source
        .map(|s| format!(" (from {})", s.label()))
        .unwrap_or_default();
    let detail = format!(
        "{name}: Linux shows only \"{}\"{source}, the first {SCSI_PRODUCT_LEN} characters of the model: behind a USB bridge or an HBA the kernel sees the drive as a SCSI disk and keeps no more of its name. {families}: {}.{decides}",
        clip(&candidates.prefix, MODEL_CHARS),
        candidates.describe(),
    );
    out.push(
        Finding::new(
            Code::ModelNameCut,
            grade_severity(grade).min(Severity::Warning),
            format!("Model name cut short: {}", candidates.describe()),
            detail,
        )
        .with_fix(format!(
            "{}; then save `sudo smartctl -d sat -j -x /dev/{name} > {name}.json` and give that file to nodecheck to judge the drive by its full name",
            full_model_command(name, drive.interface)
        ))
        .about(name),
    );
    DriveIdentity {
        name: name.clone(),
        entry: None,
        nand: None,
        dram: None,
        grade,
        class: None,
    }
}

fn unlisted_identity<'a>(
    name: &str,
    grade: Grade,
    class: Option<Classification<'_>>,
) -> DriveIdentity<'a> {
    DriveIdentity {
        name: name.to_owned(),
        entry: None,
        nand: class.as_ref().and_then(|c| c.nand),
        dram: class.as_ref().and_then(|c| c.dram),
        grade,
        class: class.as_ref().map(ClassSummary::of),
    }
}

/// The class of an unlisted drive and the evidence for it, as a sentence for NC103.
fn describe_class(class: Option<&Classification<'_>>) -> String {
    let Some(c) = class else {
        return String::new();
    };
    let mut traits = Vec::new();
    if let Some(nand) = c.nand {
        traits.push(nand.label().to_owned());
    }
    if let Some(dram) = c.dram {
        traits.push(dram.label().to_owned());
    }
    if let Some(class) = c.class {
        traits.push(format!("{} class", class.label().to_lowercase()));
    }
    format!(
        " Classed as {} ({}): {}.",
        c.label(),
        traits.join(", "),
        evidence_text(c)
    )
}

fn evidence_text(c: &Classification<'_>) -> String {
    c.evidence
        .iter()
        .map(|e| e.text.trim())
        .collect::<Vec<_>>()
        .join("; ")
}

/// What the probe knows about a drive without a database entry, for the reader.
fn describe_known(drive: &Drive, medium: &MediumJudgement) -> String {
    let mut known = Vec::new();
    if let Some(interface) = drive.interface.and_then(EntryInterface::from_probe) {
        known.push(interface.label().to_owned());
    }
    if let Some(cap) = drive.capacity_bytes {
        known.push(format_bytes(cap));
    }
    if let Some(family) = drive.model_family.as_deref() {
        known.push(format!("smartctl family \"{}\"", clip(family, MODEL_CHARS)));
    }
    match medium.decided_by() {
        Some(Evidence::RotationRate(rpm) | Evidence::VpdPage(rpm)) if *rpm > 0 => {
            known.push(format!("{rpm} rpm hard disk"))
        }
        Some(Evidence::KernelFlag(true)) => known.push("reports rotational".to_owned()),
        Some(_) if medium.medium() == Some(Medium::SolidState) => {
            known.push("solid state".to_owned())
        }
        // The block layer's flag is only a hint where it is no evidence (virtio reports
        // rotational on SSD storage), but "non-rotational" is still worth saying.
        _ if medium.kernel_flag == Some(false) => known.push("solid state".to_owned()),
        _ => {}
    }
    match drive.hmb {
        Some(true) => known.push("asks for a host memory buffer (likely DRAM-less)".to_owned()),
        Some(false) if drive.interface == Some(Interface::Nvme) => {
            known.push("no host memory buffer (likely has DRAM)".to_owned())
        }
        _ => {}
    }
    if known.is_empty() {
        String::new()
    } else {
        format!("; known: {}", known.join(", "))
    }
}

/// Generic rules of the list ("hard disks are bad", "QLC and DRAM-less", "data-center SSDs
/// work well") judged from the class of a drive the database does not list: its part-number
/// scheme, refined by what the probe saw (rotating media, a host memory buffer request).
fn generic<'a>(
    drive: &Drive,
    model: Option<&str>,
    db: &'a Database,
    medium: &MediumJudgement,
    out: &mut Vec<Finding>,
) -> (Grade, bool, Option<Classification<'a>>) {
    let interface = drive.interface.and_then(EntryInterface::from_probe);
    let hard_disk = medium.spins();
    let controller = drive.nvme.as_ref().and_then(|n| {
        n.pci_vendor_id
            .as_deref()
            .and_then(controller_maker)
            .or_else(|| {
                n.identify
                    .as_ref()
                    .and_then(|i| controller_maker(&format!("{:04x}", i.vendor_id)))
            })
    });
    let class = db.classify(&ClassQuery {
        model: model.unwrap_or(""),
        interface,
        rotational: hard_disk.then_some(true),
        hmb: drive.hmb,
        controller,
        pci_id: drive
            .nvme
            .as_ref()
            .and_then(|n| verdict_pci_id(n.pci_vendor_id.as_deref(), n.pci_device_id.as_deref())),
        model_family: drive.model_family.as_deref(),
        firmware: drive.firmware.as_deref().map(str::trim),
    });
    let traits = match &class {
        Some(c) => c.traits(interface),
        None => Traits {
            nand: None,
            dram: (drive.hmb == Some(true)).then_some(Dram::Hmb),
            class: hard_disk.then_some(Class::Hdd),
            interface,
            rotational: Some(hard_disk),
            virtualized: None,
            components: None,
        },
    };
    let evidence = class
        .as_ref()
        .map(|c| format!(" Evidence: {}.", evidence_text(c)))
        .unwrap_or_default();
    let mut grade = Grade::Unknown;
    let mut matched = false;
    let mut shown: Vec<Grade> = Vec::new();
    for rule in db.generic_matches(&traits) {
        matched = true;
        grade = if grade == Grade::Unknown {
            rule.grade
        } else {
            grade.max(rule.grade)
        };
        // NC105 already says all there is about a hard disk; a later rule that agrees with
        // one already shown (tlc-and-dram after data-center) adds nothing.
        if hard_disk || shown.contains(&rule.grade) {
            continue;
        }
        shown.push(rule.grade);
        let mut f = Finding::new(
            Code::GenericRule,
            grade_severity(rule.grade),
            format!(
                "Graded {} by the list's rule for {} drives",
                rule.grade,
                rule_subject(&rule.id)
            ),
            format!(
                "{}{}: {}{evidence}",
                drive.name,
                model.map(|m| format!(" (\"{m}\")")).unwrap_or_default(),
                rule.notes.trim()
            ),
        )
        .about(&drive.name);
        if rule.grade >= Grade::Ugly {
            f = f.with_fix(REPLACE_FIX);
        }
        out.push(f);
    }
    (grade, matched, class)
}

/// The controller's PCI id from the probe's sysfs attributes (`0x1987`, `0x5012`).
fn verdict_pci_id(vendor: Option<&str>, device: Option<&str>) -> Option<crate::database::PciId> {
    crate::database::PciId::from_parts(vendor?, device?)
}

/// NC105. Critical on the drive's own word or the database; when only the kernel's flag says
/// so (a SATA SSD that leaves its rotation rate unreported looks the same), a warning that
/// says how to tell.
fn hard_disk(drive: &Drive, medium: &MediumJudgement, out: &mut Vec<Finding>) {
    if !medium.spins() {
        return;
    }
    let name = &drive.name;
    let because = medium.decided_by().map(Evidence::short).unwrap_or_default();
    let fix = "Put the node's data on an NVMe SSD with TLC NAND and DRAM; keep the hard disk for backups or ancient history";
    if medium.kernel_flag_only() {
        out.push(
            Finding::new(
                Code::HardDisk,
                Severity::Warning,
                "Probably a hard disk: only the kernel's rotational flag says so",
                format!(
                    "The kernel marks {name} rotational, and nothing better is known: the drive reports no rotation rate and its model is not a known drive. If it spins, it does a few hundred random IOPS at best while a sync needs thousands; if it is an SSD that leaves its rotation rate unreported, the flag is wrong."
                ),
            )
            .with_fix(format!(
                "Check with `sudo smartctl -i /dev/{name}` (\"Rotation Rate\"). If it is a hard disk: {fix}"
            ))
            .about(name),
        );
        return;
    }
    out.push(
        Finding::new(
            Code::HardDisk,
            Severity::Critical,
            "Hard disk: rotational media",
            format!(
                "{name} is a spinning hard disk ({because}): a few hundred random IOPS at best, while a sync needs thousands; no client can sync mainnet on it in a reasonable time."
            ),
        )
        .with_fix(fix)
        .about(name),
    );
}

fn dram_less(
    drive: &Drive,
    entry: Option<(&DriveEntry, Option<Dram>)>,
    graded_elsewhere: bool,
    out: &mut Vec<Finding>,
) {
    let entry_says = entry
        .and_then(|(_, dram)| dram)
        .is_some_and(Dram::is_dramless);
    let probe_says = drive.hmb == Some(true);
    if !entry_says && !probe_says {
        return;
    }
    let evidence = match (entry_says, probe_says) {
        (true, true) => {
            "the database lists it without DRAM and it asks the host for a memory buffer (HMB)"
        }
        (true, false) => "the database lists it without DRAM",
        _ => "it asks the host for a memory buffer (HMB), which drives without their own DRAM do",
    };
    // A listed drive's grade (or a generic rule's) already accounts for its DRAM; for an
    // unknown one this is the best warning there is.
    let severity = if graded_elsewhere {
        Severity::Info
    } else {
        Severity::Warning
    };
    out.push(
        Finding::new(
            Code::DramLess,
            severity,
            "DRAM-less drive",
            format!(
                "{}: {evidence}. DRAM-less drives keep only part of their mapping table cached and slow down under the random reads and heavy rewrites of a sync, worst when combined with QLC NAND.",
                drive.name
            ),
        )
        .with_fix("Prefer a TLC drive with DRAM for the node's database; `nodecheck bench --test span` shows how much this drive slows down")
        .about(&drive.name),
    );
}
