//! Single-board computers whose storage levers are not a PC's: the Raspberry Pi 5 (named by
//! EIP-7870 as a full-node machine) has one PCIe lane on its FFC connector, Gen 2 unless the
//! firmware is told otherwise, and no UEFI.
//! Sources: Raspberry Pi documentation, "PCIe Gen 3.0" (config.txt `dtparam=pciex1_gen=3`,
//! not certified) and "NVMe SSD boot" (https://www.raspberrypi.com/documentation/computers/raspberry-pi.html#pcie-gen-3-0).

use probe::Facts;

use crate::model::Severity;

/// `/proc/device-tree/model` names a Raspberry Pi 5 (or its Compute Module 5).
pub fn is_raspberry_pi_5(facts: &Facts) -> bool {
    facts.platform.board_model.as_deref().is_some_and(|m| {
        m.starts_with("Raspberry Pi 5") || m.starts_with("Raspberry Pi Compute Module 5")
    })
}

/// The Pi 5's one lane is its limit; below Gen 3 the firmware setting is missing.
pub fn pi5_pcie_severity(current_gts: Option<f64>) -> Severity {
    match current_gts {
        Some(gts) if gts + 0.05 >= 8.0 => Severity::Info,
        _ => Severity::Warning,
    }
}

pub const PI5_PCIE_FIX: &str = "On a Raspberry Pi 5 the PCIe connector has one lane at Gen 2 by default: add `dtparam=pciex1_gen=3` to /boot/firmware/config.txt and reboot for Gen 3 (8 GT/s; not certified, use a good FFC cable and HAT). One lane is the board's limit";

pub const PI5_USB_FIX: &str = "On a Raspberry Pi 5 put the drive on an M.2 NVMe HAT on the PCIe connector (with `dtparam=pciex1_gen=3` in /boot/firmware/config.txt) instead of USB; if USB stays, use a blue USB 3 port and a UAS bridge without known quirks";
