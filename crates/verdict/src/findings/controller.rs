//! NC4xx: SATA controller mode, PCIe and SATA link, USB attachment.

use probe::{ControllerMode, Drive, Facts, Interface, PcieLink};

use crate::code::Code;
use crate::model::{Finding, Severity};

pub const AHCI_FIX: &str =
    "Set the SATA mode to AHCI in the UEFI/BIOS setup (on Windows dual-boot systems switch the OS to AHCI first)";

pub fn check(facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    for drive in &facts.drives {
        controller_mode(drive, &mut out);
        let pi5 = super::board::is_raspberry_pi_5(facts);
        pcie_link(drive, pi5, &mut out);
        sata_link(drive, &mut out);
        usb(drive, pi5, &mut out);
    }
    out
}

fn controller_mode(drive: &Drive, out: &mut Vec<Finding>) {
    let name = &drive.name;
    let driver = drive
        .controller_driver
        .as_deref()
        .map(|d| format!(", driver {d}"))
        .unwrap_or_default();
    let class = drive
        .controller_pci_class
        .as_deref()
        .map(|c| format!(", PCI class {c}"))
        .unwrap_or_default();
    match drive.controller_mode {
        Some(ControllerMode::Ide) => out.push(
            Finding::new(
                Code::SataControllerMode,
                Severity::Warning,
                "SATA controller in IDE mode",
                format!(
                    "{name} hangs off a controller in legacy IDE mode{driver}{class}: no NCQ, so random I/O is much slower than in AHCI mode."
                ),
            )
            .with_fix(AHCI_FIX)
            .about(name),
        ),
        Some(ControllerMode::Raid)
            if drive.interface != Some(Interface::Nvme) && hardware_raid(drive).is_some() =>
        {
            let (driver_name, smartctl_type) = hardware_raid(drive).unwrap_or_default();
            let health = match smartctl_type {
                Some(kind) => format!(
                    "; until then read each drive's health through the controller: `sudo smartctl -x -d {kind} /dev/{name}` (N = the drive's number on the controller)"
                ),
                None => String::new(),
            };
            out.push(
                Finding::new(
                    Code::SataControllerMode,
                    Severity::Warning,
                    "Drive behind a hardware RAID controller",
                    format!(
                        "{name} sits behind a hardware RAID controller (driver {driver_name}{class}): unless the controller passes the drive through, Linux sees its virtual disk, and the physical drive's model, firmware, SMART health and TRIM support cannot be read here; RAID firmware often drops TRIM and adds latency."
                    ),
                )
                .with_fix(format!(
                    "Set the controller to HBA/JBOD (IT) mode or pass the drives through, so Linux sees each drive itself{health}"
                ))
                .about(name),
            );
        }
        Some(ControllerMode::Raid) if drive.interface != Some(Interface::Nvme) => out.push(
            Finding::new(
                Code::SataControllerMode,
                Severity::Warning,
                "SATA controller in RAID mode",
                format!(
                    "{name} hangs off a controller in RAID mode{driver}{class}: RAID firmware often hides TRIM and adds latency."
                ),
            )
            .with_fix(format!(
                "{AHCI_FIX}; on a hardware RAID card use HBA/JBOD (IT) mode"
            ))
            .about(name),
        ),
        Some(ControllerMode::Ahci) if drive.interface == Some(Interface::Sata) => out.push(
            Finding::new(
                Code::SataControllerMode,
                Severity::Ok,
                "SATA controller in AHCI mode",
                format!("{name}: AHCI{driver}{class}."),
            )
            .about(name),
        ),
        _ => {}
    }
}

/// RAID HBA drivers (their controllers present volumes, not drives), with smartctl's device
/// type for reaching a drive behind them when it has one. Chipset "RAID mode" binds `ahci`
/// (Intel RST) and is not among them: its fix is the UEFI's SATA mode.
const HARDWARE_RAID_DRIVERS: &[(&str, Option<&str>)] = &[
    ("megaraid_sas", Some("megaraid,N")),
    ("hpsa", Some("cciss,N")),
    ("smartpqi", Some("cciss,N")),
    ("aacraid", Some("aacraid,0,0,N")),
    ("arcmsr", Some("areca,N")),
    ("mpt3sas", None),
    ("mpt2sas", None),
    ("mptsas", None),
    ("3w-9xxx", Some("3ware,N")),
    ("3w-sas", Some("3ware,N")),
];

fn hardware_raid(drive: &Drive) -> Option<(&'static str, Option<&'static str>)> {
    let driver = drive.controller_driver.as_deref()?;
    HARDWARE_RAID_DRIVERS
        .iter()
        .find(|(name, _)| *name == driver)
        .copied()
}

fn describe_pcie(gts: Option<f64>, width: Option<u32>) -> String {
    match (gts, width) {
        (Some(g), Some(w)) => format!("{g:.1} GT/s x{w}"),
        (Some(g), None) => format!("{g:.1} GT/s"),
        (None, Some(w)) => format!("x{w}"),
        (None, None) => "unknown".to_owned(),
    }
}

fn pcie_link(drive: &Drive, pi5: bool, out: &mut Vec<Finding>) {
    let Some(PcieLink {
        current_gts,
        current_width,
        max_gts,
        max_width,
    }) = drive.pcie_link
    else {
        return;
    };
    let name = &drive.name;
    // 0.05 GT/s slack: sysfs prints 2.5/5/8/16/32 and parsers may round differently.
    let slow = matches!((current_gts, max_gts), (Some(c), Some(m)) if c + 0.05 < m);
    let narrow = matches!((current_width, max_width), (Some(c), Some(m)) if c < m);
    let now = describe_pcie(current_gts, current_width);
    let max = describe_pcie(max_gts, max_width);
    if slow || narrow {
        let mut why = Vec::new();
        if narrow {
            why.push("fewer lanes than the drive supports: the slot is wired narrower (chipset or shared lanes) or the card is not seated fully");
        }
        if slow {
            why.push("a slower PCIe generation: an older slot or chipset, a riser, or link power management while idle");
        }
        // Lanes missing, or a first- or second-generation link, cost real throughput under a
        // sync's write bursts; a gen-3 x4 link under a gen-4 drive still moves ~3.9 GB/s,
        // far more than a node needs, and barely changes QD1 latency.
        let old_generation = current_gts.is_some_and(|g| g <= 5.0 + 0.05);
        let severity = if pi5 {
            super::board::pi5_pcie_severity(current_gts)
        } else if narrow || old_generation {
            Severity::Warning
        } else {
            Severity::Info
        };
        out.push(
            Finding::new(
                Code::PcieLinkBelowMax,
                severity,
                "PCIe link below the drive's maximum",
                format!(
                    "{name} runs at {now} of {max}: {}.",
                    why.join("; ")
                ),
            )
            .with_fix(if pi5 {
                super::board::PI5_PCIE_FIX
            } else {
                "Move the drive to a CPU-attached M.2 slot with full lanes (see the board manual), check for shared-lane settings in the UEFI, and recheck under load"
            })
            .about(name),
        );
    } else if current_gts.is_some() || current_width.is_some() {
        out.push(
            Finding::new(
                Code::PcieLinkBelowMax,
                Severity::Ok,
                "PCIe link at the drive's maximum",
                format!("{name} runs at {now} (maximum {max})."),
            )
            .about(name),
        );
    }
}

fn sata_link(drive: &Drive, out: &mut Vec<Finding>) {
    let (Some(now), Some(max)) = (drive.sata_link_gbps, drive.sata_link_max_gbps) else {
        return;
    };
    if now + 0.05 < max {
        let name = &drive.name;
        out.push(
            Finding::new(
                Code::SataLinkBelowMax,
                Severity::Warning,
                "SATA link below the drive's maximum",
                format!(
                    "{name} negotiated {now:.1} Gb/s of {max:.1} Gb/s: an older port, a poor cable, or a port limited by the controller."
                ),
            )
            .with_fix("Use a 6 Gb/s (SATA III) port on the main chipset and a short, good SATA cable")
            .about(name),
        );
    }
}

fn usb(drive: &Drive, pi5: bool, out: &mut Vec<Finding>) {
    if drive.interface != Some(Interface::Usb) {
        return;
    }
    let name = &drive.name;
    let usb = drive.usb.as_ref();
    let speed = usb.and_then(|u| u.speed_mbps);
    let driver = usb.and_then(|u| u.driver.as_deref());
    let bridge = usb
        .and_then(|u| u.product.as_deref().or(u.manufacturer.as_deref()))
        .map(|p| format!(" via {}", super::clip(p, 64)))
        .unwrap_or_default();
    let mut detail = format!("{name} is attached over USB{bridge}");
    if let Some(s) = speed {
        detail.push_str(&format!(" at {s} Mb/s"));
    }
    if let Some(d) = driver {
        detail.push_str(&format!(", driver {d}"));
    }
    detail.push_str(". USB adds latency to every I/O and bridges often drop TRIM and SMART");
    let usb2 = speed.is_some_and(|s| s <= 480);
    if usb2 {
        detail.push_str("; a USB 2 link cannot keep up with a sync at all");
    } else if driver == Some("usb-storage") {
        detail.push_str("; the bridge runs without UAS, one command at a time");
    }
    detail.push('.');
    out.push(
        Finding::new(
            Code::UsbAttached,
            if usb2 {
                Severity::Critical
            } else {
                Severity::Warning
            },
            "Drive attached over USB",
            detail,
        )
        .with_fix(if pi5 {
            super::board::PI5_USB_FIX
        } else {
            "Use an internal M.2 NVMe slot; if USB is the only option, use a USB 3 port and a UAS-capable bridge"
        })
        .about(name),
    );
}
