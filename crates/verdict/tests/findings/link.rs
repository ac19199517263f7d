//! NC4xx: the controller mode and the PCIe, SATA or USB link the drive sits behind.

use super::*;

/// A PCIe link at `current` (GT/s, lanes) of the slot's and drive's `max`.
fn pcie_link(current: (f64, u32), max: (f64, u32)) -> PcieLink {
    PcieLink {
        current_gts: Some(current.0),
        current_width: Some(current.1),
        max_gts: Some(max.0),
        max_width: Some(max.1),
    }
}

/// The SATA controller's mode: AHCI is right; IDE and RAID mode are set in the UEFI/BIOS.
#[test]
fn nc401_ide_and_raid_mode_and_ahci() {
    let in_legacy_mode = |mode| {
        let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
        let d = drive0(&mut facts);
        d.controller_mode = Some(mode);
        d.controller_driver = Some("ata_piix".into());
        d.controller_pci_class = Some("0x01018a".into());
        facts
    };
    let cases = [
        FindingCase {
            name: "AHCI",
            facts: sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016),
            code: "NC401",
            severity: Severity::Ok,
            needles: &["AHCI"],
        },
        FindingCase {
            name: "IDE mode",
            facts: in_legacy_mode(ControllerMode::Ide),
            code: "NC401",
            severity: Severity::Warning,
            needles: &["IDE", "ata_piix", "AHCI in the UEFI/BIOS"],
        },
        FindingCase {
            name: "RAID mode",
            facts: in_legacy_mode(ControllerMode::Raid),
            code: "NC401",
            severity: Severity::Warning,
            needles: &["RAID mode", "AHCI"],
        },
    ];
    FindingCase::check_all(&cases, "geth");
}

#[test]
fn nc401_a_drive_behind_a_hardware_raid_card_is_not_told_to_change_the_sata_mode() {
    let mut facts = sata_machine("QEMU HARDDISK", 1 << 30);
    let drive = drive0(&mut facts);
    drive.interface = Some(Interface::Unknown);
    behind_megaraid(drive);
    drive.ata = None;
    let v = assert_judged(
        &facts,
        "geth",
        "NC401",
        Severity::Warning,
        &[
            "hardware RAID controller",
            "megaraid_sas",
            "SMART health",
            "HBA/JBOD (IT) mode",
            "-d megaraid,N /dev/sda",
        ],
    );
    let finding = v
        .findings
        .iter()
        .find(|f| f.code == "NC401")
        .expect("NC401");
    assert!(
        !finding.fix.as_deref().unwrap_or_default().contains("UEFI"),
        "a RAID card has no SATA mode in the UEFI: {:?}",
        finding.fix
    );
}

#[test]
fn nc403_sata_link_below_maximum() {
    let mut facts = sata_machine("Samsung SSD 870 EVO 2TB", 2_000_398_934_016);
    drive0(&mut facts).sata_link_gbps = Some(3.0);
    assert_judged(
        &facts,
        "geth",
        "NC403",
        Severity::Warning,
        &["3.0 Gb/s of 6.0 Gb/s", "cable"],
    );
}

#[test]
fn nc404_usb_attachment() {
    let mut facts = nvme_machine();
    samsung_over_usb(&mut facts, "sda", "PSSD T7", "4001", 10000);
    assert_judged(
        &facts,
        "geth",
        "NC404",
        Severity::Warning,
        &["USB via PSSD T7 at 10000 Mb/s", "uas"],
    );
    drive0(&mut facts).usb.as_mut().expect("usb").speed_mbps = Some(480);
    drive0(&mut facts).usb.as_mut().expect("usb").driver = Some("usb-storage".into());
    assert_judged(
        &facts,
        "geth",
        "NC404",
        Severity::Critical,
        &["480 Mb/s", "USB 2"],
    );
}

/// The PCIe link against the slot's and the drive's best: full speed is fine, an older
/// generation at full width costs little, lost lanes or a link far below its generation cost more.
#[test]
fn nc402_pcie_link_against_its_maximum() {
    let with_link = |current, max| nvme_with_drive(|d| d.pcie_link = Some(pcie_link(current, max)));
    let cases = [
        FindingCase {
            name: "full link",
            facts: nvme_machine(),
            code: "NC402",
            severity: Severity::Ok,
            needles: &["8.0 GT/s x4"],
        },
        FindingCase {
            name: "half the lanes of an older generation",
            facts: with_link((8.0, 2), (16.0, 4)),
            code: "NC402",
            severity: Severity::Warning,
            needles: &["8.0 GT/s x2 of 16.0 GT/s x4", "lanes"],
        },
        FindingCase {
            name: "one generation down at full width",
            facts: with_link((8.0, 4), (16.0, 4)),
            code: "NC402",
            severity: Severity::Info,
            needles: &["8.0 GT/s x4 of 16.0 GT/s x4"],
        },
        FindingCase {
            name: "two generations down at full width",
            facts: with_link((2.5, 4), (8.0, 4)),
            code: "NC402",
            severity: Severity::Warning,
            needles: &["2.5 GT/s x4 of 8.0 GT/s x4"],
        },
    ];
    FindingCase::check_all(&cases, "geth");
}
