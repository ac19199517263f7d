//! "A fix that pastes": no fix text carries a placeholder word in capitals (`VVVV`, `VMID`,
//! `PCI_ADDRESS`) for the reader to replace. Where a value is in the facts the fix names it;
//! where it cannot be known here, the fix gives the command that finds it (into a shell
//! variable). Every fixture tree and every hand-built machine of these tests is judged, and
//! the fallbacks (no USB ids, no PCI address) are judged on purpose.

use std::collections::BTreeSet;

use crate::support::*;
use probe::{Interface, ProbeOptions, Root, UsbDetails};
use regex::Regex;
use verdict::Verdict;

/// Capitalised words that are real names, not placeholders: acronyms, udev match keys and
/// properties, kernel and config variable names, as they appear in fixes.
const REAL_WORDS: &[&str] = &[
    // Acronyms and product names.
    "AHCI",
    "APST",
    "ARC",
    "ASPM",
    "ATA",
    "AWS",
    "BIOS",
    "CPU",
    "DRAM",
    "EBS",
    "FUA",
    "GCP",
    "HDD",
    "IDE",
    "IOPS",
    "LUKS",
    "LVM",
    "NAND",
    "NAS",
    "NVME",
    "OS",
    "PCI",
    "QLC",
    "RAID",
    "RAM",
    "SAS",
    "SATA",
    "SLC",
    "SMART",
    "SSD",
    "TLC",
    "TRIM",
    "UAS",
    "UEFI",
    "UNMAP",
    "USB",
    "VM",
    "VPS",
    "ZFS",
    "ID",
    "IO",
    "OK",
    "GB",
    "TB",
    "MB",
    "KB",
    "DMI",
    "CLI",
    "API",
    "UI",
    "LBA",
    "SCSI",
    "ZIL",
    "SLOG",
    "MLC",
    "UUID",
    "HBA",
    "JBOD",
    "IT",
    "III",
    "SAT",
    "CCX",
    "QEMU",
    "LUN",
    "SKU",
    "GT",
    "FFC",
    "HAT",
    // udev rule keys and properties.
    "ACTION",
    "ATTR",
    "ATTRS",
    "KERNEL",
    "KERNELS",
    "SUBSYSTEM",
    "SUBSYSTEMS",
    "DRIVER",
    "DRIVERS",
    "ENV",
    "RUN",
    "ID_VENDOR_ID",
    "ID_MODEL_ID",
    "DEVTYPE",
    "ID_SERIAL_SHORT",
    // Configuration variables and flags.
    "GRUB_CMDLINE_LINUX_DEFAULT",
    "GRUB_CMDLINE_LINUX",
    "O_DIRECT",
];

fn placeholders(text: &str) -> Vec<String> {
    let word = Regex::new(r"\b[A-Z][A-Z_]*[A-Z]\b").expect("regex");
    word.find_iter(text)
        .map(|m| m.as_str())
        .filter(|w| !REAL_WORDS.contains(w))
        .map(str::to_owned)
        .collect()
}

fn offending(case: &str, verdict: &Verdict, out: &mut Vec<String>) {
    for finding in &verdict.findings {
        let Some(fix) = &finding.fix else { continue };
        let words = placeholders(fix);
        if !words.is_empty() {
            out.push(format!("{case} {}: {words:?} in {fix}", finding.code));
        }
    }
}

#[test]
fn the_placeholder_scan_catches_the_old_fallbacks() {
    assert_eq!(
        placeholders("ATTRS{idVendor}==\"VVVV\", ATTRS{idProduct}==\"PPPP\""),
        ["VVVV", "PPPP"]
    );
    assert_eq!(
        placeholders("`qm set VMID --hostpci0 PCI_ADDRESS,pcie=1` STORAGE:DISK"),
        ["VMID", "PCI_ADDRESS", "STORAGE", "DISK"]
    );
    assert!(placeholders("CT1000MX500SSD1 on SATA, GRUB_CMDLINE_LINUX_DEFAULT").is_empty());
}

#[test]
fn no_fix_of_any_fixture_holds_a_placeholder_word() {
    let mut bad = Vec::new();
    let mut judged = BTreeSet::new();
    for (name, facts) in probed_fixtures() {
        offending(name, &run(&facts), &mut bad);
        judged.insert(name);
    }
    offending("nvme_machine", &run(&nvme_machine()), &mut bad);
    offending(
        "sata_machine",
        &run(&sata_machine("Samsung SSD 870 QVO 1TB", 1 << 40)),
        &mut bad,
    );
    assert!(judged.len() > 40, "only {} fixtures judged", judged.len());
    assert!(bad.is_empty(), "placeholders in fixes:\n{}", bad.join("\n"));
}

/// A USB drive whose bridge ids were not read: the udev rule reads them with udevadm.
#[test]
fn the_usb_unmap_rule_without_ids_reads_them_from_udev() {
    let mut facts = sata_machine("Samsung SSD 870 EVO 1TB", 1 << 40);
    let drive = &mut facts.drives[0];
    drive.interface = Some(Interface::Usb);
    drive.trim_supported = Some(false);
    drive.usb = Some(UsbDetails {
        driver: Some("usb-storage".into()),
        ..UsbDetails::default()
    });
    let name = drive.name.clone();
    let v = run(&facts);
    let fixes: Vec<&str> = v.findings.iter().filter_map(|f| f.fix.as_deref()).collect();
    let rule = fixes
        .iter()
        .find(|fix| fix.contains("provisioning_mode"))
        .unwrap_or_else(|| panic!("no UNMAP rule among {fixes:#?}"));
    assert!(placeholders(rule).is_empty(), "{rule}");
    assert!(
        rule.contains(&format!("udevadm info -q property -n /dev/{name}")),
        "{rule}"
    );
    assert!(
        rule.contains("ID_VENDOR_ID") && rule.contains("ID_MODEL_ID"),
        "{rule}"
    );
}

/// An NVMe drive of a drop-out family whose PCI address was not read: the d3cold rule finds it
/// from the controller's sysfs link, and still matches by the address when it is known.
#[test]
fn the_d3cold_rule_without_a_pci_address_reads_it_from_sysfs() {
    let mut facts = nvme_machine();
    facts.drives[0].model = Some("Samsung SSD 990 PRO 4TB".into());
    facts.drives[0].nvme.as_mut().expect("nvme").pci_address = None;
    let fix = fix_of(&run(&facts), "NC420");
    assert!(placeholders(&fix).is_empty(), "{fix}");
    assert!(
        fix.contains("address=$(basename \"$(readlink -f /sys/class/nvme/nvme0/device)\")"),
        "{fix}"
    );
    assert!(fix.contains("KERNEL==\\\"$address\\\""), "{fix}");
}

/// An EBS volume whose serial was not read: the volume id comes from the controller's serial.
#[test]
fn the_ebs_fix_without_a_serial_reads_the_volume_id_from_sysfs() {
    let mut facts = nvme_machine();
    facts.drives[0].model = Some("Amazon Elastic Block Store".into());
    facts.drives[0].serial = None;
    let name = facts.drives[0].name.clone();
    let fix = fix_of(&run(&facts), "NC612");
    assert!(placeholders(&fix).is_empty(), "{fix}");
    assert!(
        fix.contains(&format!("/sys/block/{name}/device/serial")),
        "{fix}"
    );
}

/// Inside a Proxmox guest the VMID, the volume and the host's PCI address are not visible:
/// each is found by a command, not left as a word to replace.
#[test]
fn proxmox_fixes_find_the_vmid_and_the_volume_by_command() {
    let mut facts = nvme_machine();
    facts.platform.cloud = Some("kvm".into());
    facts.platform.virtualized = Some(true);
    let passed = fix_of(&run(&facts), "NC610");
    assert!(
        passed.contains("/sys/class/dmi/id/product_uuid"),
        "{passed}"
    );
    assert!(passed.contains("/etc/pve/qemu-server/*.conf"), "{passed}");
    assert!(placeholders(&passed).is_empty(), "{passed}");
    let root = tempfile::tempdir().expect("tempdir");
    let scenario = probe::fixture::scenario_named("vm_qemu_harddisk").expect("fixture");
    (scenario.build)(root.path()).expect("tree");
    let facts = probe::probe_path(
        &Root::at(root.path()).expect("root"),
        std::path::Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .expect("probe");
    let emulated = fix_of(&run(&facts), "NC611");
    assert!(placeholders(&emulated).is_empty(), "{emulated}");
    assert!(emulated.contains("vol=$(qm config \"$vmid\""), "{emulated}");
    assert!(
        emulated.contains("lspci -D -nn | grep -i 'non-volatile'"),
        "{emulated}"
    );
}
