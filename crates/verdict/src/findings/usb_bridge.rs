//! NC405: the USB bridge in front of a drive, named by its USB ids, judged by the quirks the
//! kernel's own tables give it (`unusual_uas.h`, `unusual_devs.h`, `uas-detect.h`), by what
//! the kernel did with it here (UAS offered but not used; UNMAP sent or not) and by the
//! `usb-storage.quirks=` the owner set. The bridges and their sources are `[[usb_bridges]]`
//! in `data/setups.toml`; what each kernel flag does is [`KERNEL_FLAGS`]. NC404 judges the
//! USB attachment itself, NC301/NC302 whether TRIM reaches the drive.

use probe::{Drive, Facts, Interface, UsbDetails};

use crate::code::Code;
use crate::model::{Finding, Severity};
use crate::setups::{Setups, UsbBridge};

/// A `US_FL_*` flag of the kernel's quirk tables and what it means for a node's drive.
pub struct KernelFlag {
    pub name: &'static str,
    pub severity: Severity,
    pub meaning: &'static str,
}

/// The flags the tables give storage bridges (include/linux/usb_usual.h), with what the
/// kernel does about each (drivers/usb/storage/scsiglue.c, uas.c).
pub const KERNEL_FLAGS: &[KernelFlag] = &[
    KernelFlag {
        name: "IGNORE_UAS",
        severity: Severity::Warning,
        meaning: "the kernel turns UAS off for it because it fails under UAS, so it runs on usb-storage's Bulk-Only transport, one command at a time",
    },
    KernelFlag {
        name: "BROKEN_FUA",
        severity: Severity::Info,
        meaning: "it claims FUA (force unit access) writes it does not carry out, so the kernel flushes its whole cache instead where a database forces a write out",
    },
    KernelFlag {
        name: "NO_ATA_1X",
        severity: Severity::Info,
        meaning: "ATA pass-through (SAT ATA_12/ATA_16) fails through it, so SMART health and the drive's full model cannot be read through it (`smartctl -d sat` fails)",
    },
    KernelFlag {
        name: "ALWAYS_SYNC",
        severity: Severity::Info,
        meaning: "it hides its write cache, so the kernel assumes one and always sends cache flushes",
    },
    KernelFlag {
        name: "MAX_SECTORS_240",
        severity: Severity::Info,
        meaning: "the kernel limits its transfers to 240 sectors (120 KiB)",
    },
    KernelFlag {
        name: "NEEDS_CAP16",
        severity: Severity::Info,
        meaning: "it needs READ CAPACITY(16) to report its size",
    },
    KernelFlag {
        name: "NO_REPORT_OPCODES",
        severity: Severity::Info,
        meaning: "it mishandles REPORT SUPPORTED OPERATION CODES, which the kernel then does not send",
    },
    KernelFlag {
        name: "NO_SAME",
        severity: Severity::Info,
        meaning: "it mishandles WRITE SAME, which the kernel then does not send",
    },
    KernelFlag {
        name: "NO_REPORT_LUNS",
        severity: Severity::Info,
        meaning: "it mishandles REPORT LUNS, which the kernel then does not send",
    },
    KernelFlag {
        name: "IGNORE_RESIDUE",
        severity: Severity::Info,
        meaning: "it reports wrong residues, which the kernel ignores",
    },
];

/// The ids `uas-detect.h` applies its ASMedia rule to: the chips share them, so the kernel
/// guesses the chip and turns UAS off for what it takes to be an ASM1051.
const ASMEDIA_GUESSED: [&str; 2] = ["174c:55aa", "174c:5106"];

const KERNEL_TABLE_URL: &str =
    "https://github.com/torvalds/linux/blob/master/drivers/usb/storage/unusual_uas.h";

const MOVE_OFF_THE_BRIDGE: &str = "Move the drive to an internal M.2 or SATA port, or to an enclosure on another bridge: `lsusb` shows each bridge's ids, to be looked up in the kernel's unusual_uas.h before buying";

/// Why UAS is not used although the bridge offers it.
enum UasOff<'a> {
    /// The owner's `usb-storage.quirks=` names this bridge with `u`.
    Parameter(&'a str),
    /// The kernel's table gives it `IGNORE_UAS`.
    KernelTable,
    /// `uas-detect.h`'s ASMedia rule.
    AsmediaRule,
    /// Something else the kernel decided (a controller without streams or scatter-gather).
    Kernel,
}

pub fn check(facts: &Facts) -> Vec<Finding> {
    let setups = Setups::embedded();
    let pi5 = super::board::is_raspberry_pi_5(facts);
    facts
        .drives
        .iter()
        .filter(|d| d.interface == Some(Interface::Usb))
        .filter_map(|drive| Some(judge(drive, drive.usb.as_ref()?, setups, pi5)))
        .collect()
}

fn judge(drive: &Drive, usb: &UsbDetails, setups: &Setups, pi5: bool) -> Finding {
    let name = &drive.name;
    let id = match (usb.vendor_id.as_deref(), usb.product_id.as_deref()) {
        (Some(vendor), Some(product)) => Some((vendor.trim(), product.trim())),
        _ => None,
    };
    let entry = id.and_then(|(vendor, product)| {
        setups.usb_bridge(vendor, product, usb.bcd_device.as_deref())
    });
    let id_text = id
        .map(|(vendor, product)| format!("{vendor}:{product}").to_lowercase())
        .unwrap_or_else(|| "with unknown USB ids".to_owned());
    let strings = [usb.manufacturer.as_deref(), usb.product.as_deref()]
        .into_iter()
        .flatten()
        .map(|s| super::clip(s, 48))
        .collect::<Vec<_>>()
        .join(" ");

    let mut severity = Severity::Info;
    let mut said = Vec::new();
    let bridge_name = match entry {
        Some(bridge) => format!("{} ({id_text})", bridge.name),
        None if strings.is_empty() => id_text.clone(),
        None => format!("{id_text} ({strings})"),
    };
    let mut opening = format!("{name} is behind the USB bridge {bridge_name}");
    if let Some(release) = usb.bcd_device.as_deref().and_then(release) {
        opening.push_str(&format!(", release {release}"));
    }
    said.push(opening);
    if let Some(revision) = usb.bridge_revision.as_deref() {
        said.push(format!(
            "The revision `{}` it answers is the bridge's firmware, not the drive's",
            super::clip(revision, 16)
        ));
    } else if let Some(tail) = drive.firmware.as_deref().filter(|f| f.trim().len() <= 4) {
        // A SAT bridge (vendor `ATA`) passes on the last four characters of the drive's
        // revision; smartctl's pass-through, once run, replaces them with the whole one.
        said.push(format!(
            "The firmware `{}` it passes on is only the last four characters of the drive's revision (SAT): `sudo smartctl -d sat -i /dev/{name}` reads the whole one, which firmware advisories need",
            super::clip(tail.trim(), 8)
        ));
    }

    let flags: Vec<&KernelFlag> = entry
        .map(|bridge| {
            KERNEL_FLAGS
                .iter()
                .filter(|flag| bridge.flags.iter().any(|f| f == flag.name))
                .collect()
        })
        .unwrap_or_default();
    match (entry, flags.as_slice()) {
        (Some(_), []) => said.push("The kernel's quirk tables give it no flag".to_owned()),
        (Some(_), flags) => {
            severity = flags.iter().map(|f| f.severity).fold(severity, worse);
            let meanings: Vec<String> = flags
                .iter()
                .map(|f| format!("{} (US_FL_{})", f.meaning, f.name))
                .collect();
            said.push(format!("The kernel's quirk table: {}", meanings.join("; ")));
        }
        (None, _) => said.push(
            "It is not among the bridges the kernel's quirk tables name, so no quirk of it is known"
                .to_owned(),
        ),
    }
    if let Some(note) = entry.and_then(|b| b.note.as_deref()) {
        said.push(note.trim_end_matches('.').to_owned());
    }

    let uas_off = uas_off(usb, entry, &id_text);
    match (usb.driver.as_deref(), &uas_off) {
        (Some("uas"), _) => said.push("It runs on UAS".to_owned()),
        (Some("usb-storage"), Some(cause)) => {
            severity = worse(severity, Severity::Warning);
            said.push(format!(
                "Its descriptors offer UAS, yet it runs on usb-storage, one command at a time: {}",
                match cause {
                    UasOff::Parameter(flags) => format!("this kernel's command line turns UAS off for it (`usb-storage.quirks={id_text}:{flags}`)"),
                    UasOff::KernelTable => "the kernel's quirk table turns UAS off for it".to_owned(),
                    UasOff::AsmediaRule => "the kernel's ASMedia rule (uas-detect.h) took it for an ASM1051, whose UAS is broken, or found the link below SuperSpeed".to_owned(),
                    UasOff::Kernel => "the kernel turned UAS off (its log says why: a USB controller without streams, or a quirk)".to_owned(),
                }
            ));
        }
        (Some("usb-storage"), None) if usb.uas_offered == Some(false) => {
            said.push("It offers no UAS at all, only Bulk-Only transport".to_owned())
        }
        _ => {}
    }

    match usb.provisioning_mode.as_deref() {
        Some("full") => said.push("The kernel sends it no UNMAP (provisioning_mode `full`), so TRIM stops at the bridge".to_owned()),
        Some("disabled") => said.push("The kernel has turned UNMAP off for it (provisioning_mode `disabled`), so TRIM stops at the bridge".to_owned()),
        Some(mode @ ("unmap" | "writesame_16" | "writesame_10")) => said.push(format!("UNMAP passes it (provisioning_mode `{mode}`)")),
        _ => {}
    }

    let sources = match entry {
        Some(bridge) => setups.cite(&bridge.sources),
        None => KERNEL_TABLE_URL.to_owned(),
    };
    let title = match entry {
        Some(bridge) => format!("{name}: USB bridge {}", bridge.name),
        None => format!("{name}: USB bridge {id_text}"),
    };
    let mut finding = Finding::new(
        Code::UsbBridge,
        severity,
        title,
        format!("{}. Sources: {sources}.", said.join(". ")),
    )
    .about(name);
    if severity >= Severity::Warning {
        finding = finding.with_fix(fix(uas_off.as_ref(), &id_text, pi5));
    }
    finding
}

fn uas_off<'a>(usb: &'a UsbDetails, entry: Option<&UsbBridge>, id: &str) -> Option<UasOff<'a>> {
    if usb.driver.as_deref() != Some("usb-storage") || usb.uas_offered != Some(true) {
        return None;
    }
    Some(match usb.quirks_parameter.as_deref() {
        Some(flags) if flags.contains('u') => UasOff::Parameter(flags),
        _ if entry.is_some_and(|b| b.flags.iter().any(|f| f == "IGNORE_UAS")) => {
            UasOff::KernelTable
        }
        _ if ASMEDIA_GUESSED.contains(&id) => UasOff::AsmediaRule,
        _ => UasOff::Kernel,
    })
}

fn fix(uas_off: Option<&UasOff>, id: &str, pi5: bool) -> String {
    match uas_off {
        Some(UasOff::Parameter(flags)) => format!(
            "This kernel's command line sets `usb-storage.quirks={id}:{flags}` (see `cat /proc/cmdline`). If it was set because the enclosure failed under UAS, keep it and move the drive off the bridge; otherwise remove it from GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub (then `sudo update-grub`), or from /boot/firmware/cmdline.txt on a Raspberry Pi, and reboot"
        ),
        Some(UasOff::Kernel) => format!(
            "See why with `sudo journalctl -k --grep 'UAS'`; do not force UAS on a bridge the kernel turned it off for. {}",
            if pi5 { super::board::PI5_USB_FIX } else { MOVE_OFF_THE_BRIDGE }
        ),
        _ if pi5 => super::board::PI5_USB_FIX.to_owned(),
        _ => format!("Do not force UAS back on. {MOVE_OFF_THE_BRIDGE}"),
    }
}

/// bcdDevice `0114` as the release `1.14` the descriptors mean.
fn release(bcd: &str) -> Option<String> {
    let bcd = bcd.trim();
    (bcd.len() == 4 && bcd.chars().all(|c| c.is_ascii_hexdigit())).then(|| {
        format!(
            "{}.{}",
            bcd[..2].trim_start_matches('0').max("0"),
            &bcd[2..]
        )
    })
}

fn worse(a: Severity, b: Severity) -> Severity {
    a.max(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_read_as_the_descriptors_mean_them() {
        assert_eq!(release("0114").as_deref(), Some("1.14"));
        assert_eq!(release("0100").as_deref(), Some("1.00"));
        assert_eq!(release("0004").as_deref(), Some("0.04"));
        assert_eq!(release("1234").as_deref(), Some("12.34"));
        assert_eq!(release("12"), None);
        assert_eq!(release("zz14"), None);
    }
}
