//! What each scenario's guest must report: assertions on the `probe`, `check` and replayed
//! documents. Drives are found by serial: kernel names are not stable.

use serde_json::Value;

use super::super::check::{Checks, Outcome};
use super::{NVME_SERIAL, SATA_MODEL, SATA_SERIAL};

fn nvme_drive(checks: &mut Checks, facts: &Value) -> Value {
    checks.drive_by_serial(facts, NVME_SERIAL)
}

pub(super) fn expect_nvme(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
    expect_watch(outcome, checks, &["nvme0n1"]);
    let drive = nvme_drive(checks, facts);
    checks.eq("model (Identify)", &drive["model"], "QEMU NVMe Ctrl");
    checks.prefix("firmware = QEMU version", &drive["firmware"], "7.2");
    checks.eq("interface", &drive["interface"], "nvme");
    checks.eq("capacity", &drive["capacity_bytes"], 2u64 << 30);
    checks.eq("rotational", &drive["rotational"], false);
    checks.eq("controller driver", &drive["controller_driver"], "nvme");
    checks.eq(
        "Identify model",
        &drive["nvme"]["identify"]["model"],
        "QEMU NVMe Ctrl",
    );
    checks.eq(
        "Identify serial",
        &drive["nvme"]["identify"]["serial"],
        NVME_SERIAL,
    );
    checks.eq(
        "Identify: deallocate",
        &drive["nvme"]["identify"]["dataset_management"],
        true,
    );
    checks.eq(
        "health from the SMART log ioctl",
        &drive["health"]["source"],
        "nvme-smart-log",
    );
    checks.eq("critical warning", &drive["health"]["critical_warning"], 1);
    checks.eq("percentage used", &drive["health"]["percentage_used"], 0);
    checks.number("temperature", &drive["temperature_c"], 0.0, 100.0);
    checks.eq(
        "temperature from the SMART log",
        &drive["temperature_source"],
        "nvme-smart-log",
    );
    // The replay sends no ioctls; the snapshot's smartctl output and hwmon remain.
    let replayed = checks.drive_by_serial(&outcome.replayed["facts"], NVME_SERIAL);
    checks.number(
        "replayed temperature",
        &replayed["temperature_c"],
        0.0,
        100.0,
    );
    checks.eq(
        "replayed critical warning",
        &replayed["health"]["critical_warning"],
        1,
    );
    checks.number(
        "PCIe link current",
        &drive["pcie_link"]["current_gts"],
        2.5,
        2.5,
    );
    checks.number("PCIe link max", &drive["pcie_link"]["max_gts"], 2.5, 64.0);
    checks.eq("mount atime", &facts["mount"]["atime"], "noatime");
    checks.eq(
        "stack",
        &facts["stack"],
        serde_json::json!(["nvme0n1p1", "nvme0n1"]),
    );
    checks.eq("TRIM through the stack", &facts["trim_effective"], true);
    checks.problem(&outcome.check, "NC202", true);
    checks.problem(&outcome.check, "NC501", false);
    checks.passed_check(&outcome.check, "NC402");
    checks.eq("grade", &outcome.check["grade"], "bad");
    checks.eq("bench exit status", &Value::from(outcome.rc("bench")), 0);
    let bench = outcome.json("bench");
    checks.present("QD1 latency measured on the raw device", &bench, "p50");
}

fn expect_sata_common(outcome: &Outcome, checks: &mut Checks) -> Value {
    let drive = checks.drive_by_serial(&outcome.probe, SATA_SERIAL);
    checks.eq("model (ATA IDENTIFY)", &drive["model"], SATA_MODEL);
    checks.eq("interface", &drive["interface"], "sata");
    checks.eq("rotational (rotation_rate=1)", &drive["rotational"], false);
    checks.eq("rotation rate", &drive["rotation_rate_rpm"], 0);
    checks.eq("capacity", &drive["capacity_bytes"], 1u64 << 30);
    checks.eq(
        "TRIM as the emulated disk declares it",
        &drive["trim_supported"],
        true,
    );
    let family = &outcome.check["drives"][0]["family"];
    checks.finding_mentions(&outcome.check, "NC101", "graded good in the database");
    checks.eq("database family", family, "Samsung 870 EVO");
    checks.passed_check(&outcome.check, "NC101");
    drive
}

/// The drive's verdict on this machine: the database's grade, lowered by what else was found
/// (`drives[].verdict` since report schema 2, beside `database_grade`).
fn verdict_grade(outcome: &Outcome) -> Value {
    outcome.check["drives"][0]["verdict"].clone()
}

pub(super) fn expect_sata_ahci(outcome: &Outcome, checks: &mut Checks) {
    let drive = expect_sata_common(outcome, checks);
    checks.eq(
        "drive's grade in the verdict",
        &verdict_grade(outcome),
        "good",
    );
    checks.eq("controller mode", &drive["controller_mode"], "ahci");
    checks.eq("controller driver", &drive["controller_driver"], "ahci");
    checks.eq(
        "controller PCI class",
        &drive["controller_pci_class"],
        "0x010601",
    );
    checks.eq(
        "mount atime",
        &outcome.probe["mount"]["atime"],
        "strictatime",
    );
    checks.problem(&outcome.check, "NC401", false);
    checks.problem(&outcome.check, "NC501", true);
}

/// The kernel's rotational flag against better evidence: QEMU leaves word 217 at 0, so the
/// kernel calls the disk rotational; the model is a known SSD, so no hard-disk finding.
pub(super) fn expect_sata_ssd_rotation_unreported(outcome: &Outcome, checks: &mut Checks) {
    let drive = checks.drive_by_serial(&outcome.probe, "S5VSNG0NA12345B");
    checks.eq(
        "model (ATA IDENTIFY)",
        &drive["model"],
        "Samsung SSD 870 QVO 1TB",
    );
    checks.eq(
        "the kernel's queue/rotational as read",
        &drive["queue_rotational"],
        true,
    );
    checks.eq(
        "database family",
        &outcome.check["drives"][0]["family"],
        "Samsung 870 QVO",
    );
    checks.absent(&outcome.check, "NC105");
    checks.finding_mentions(&outcome.check, "NC120", "rotational");
    checks.finding_mentions(&outcome.check, "NC120", "ATTR{queue/rotational}=\"0\"");
    checks.eq(
        "drive's grade in the verdict",
        &verdict_grade(outcome),
        "ugly",
    );
}

/// A host directory over 9p: the VM's host drive decides, so a warning naming the tag.
pub(super) fn expect_host_share_9p(outcome: &Outcome, checks: &mut Checks) {
    let mount = &outcome.probe["mount"];
    checks.eq("file system", &mount["fs_type"], "9p");
    checks.eq("share kind", &mount["network"]["kind"], "9p");
    checks.eq("mount tag", &mount["network"]["export"], "ethdata");
    checks.eq("transport", &mount["network"]["transport"], "virtio");
    checks.problem(&outcome.check, "NC520", true);
    checks.finding_mentions(&outcome.check, "NC520", "ethdata");
    checks.finding_has_fix(&outcome.check, "NC520");
    checks.severity(&outcome.check, "NC520", "warning");
}

pub(super) fn expect_sata_ide(outcome: &Outcome, checks: &mut Checks) {
    let drive = expect_sata_common(outcome, checks);
    checks.eq(
        "drive's grade in the verdict (IDE mode)",
        &verdict_grade(outcome),
        "ugly",
    );
    checks.eq("controller mode", &drive["controller_mode"], "ide");
    checks.eq("controller driver", &drive["controller_driver"], "ata_piix");
    checks.problem(&outcome.check, "NC401", true);
    checks.finding_has_fix(&outcome.check, "NC401");
    checks.problem(&outcome.check, "NC501", false);
}

pub(super) fn expect_md_raid1(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
    checks.eq("md layer", &facts["layers"][0]["kind"], "md");
    checks.eq("md level", &facts["layers"][0]["detail"], "raid1");
    checks.count("drives under md", &facts["drives"], 2);
    for serial in ["2235E6A1B2C3", "2235E6A1B2C4"] {
        let drive = checks.drive_by_serial(facts, serial);
        checks.eq("member model", &drive["model"], "CT1000MX500SSD1");
        checks.eq("member controller mode", &drive["controller_mode"], "ahci");
    }
    checks.passed_check(&outcome.check, "NC101");
    checks.problem(&outcome.check, "NC504", false);
    expect_watch(outcome, checks, &["md0", "sda", "sdb"]);
}

fn expect_lvm_on_crypt(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
    let kinds: Vec<Value> = facts["layers"]
        .as_array()
        .map(|layers| layers.iter().map(|l| l["kind"].clone()).collect())
        .unwrap_or_default();
    checks.eq(
        "layers",
        &Value::from(kinds),
        serde_json::json!(["lvm", "crypt", "disk"]),
    );
    checks.eq("LV name", &facts["layers"][0]["detail"], "vgeth-chain");
    checks.eq("crypt name", &facts["layers"][1]["detail"], "cryptdata");
    nvme_drive(checks, facts);
}

pub(super) fn expect_lvm_on_crypt_blocked(outcome: &Outcome, checks: &mut Checks) {
    expect_lvm_on_crypt(outcome, checks);
    checks.eq(
        "crypt layer drops discard",
        &outcome.probe["layers"][1]["discard_max_bytes"],
        0,
    );
    checks.eq(
        "TRIM through the stack",
        &outcome.probe["trim_effective"],
        false,
    );
    checks.problem(&outcome.check, "NC302", true);
    checks.finding_mentions(&outcome.check, "NC302", "cryptdata");
    // The real kernel's table, read as root: opened without any of the optional flags.
    checks.severity(&outcome.check, "NC507", "info");
    checks.finding_mentions(
        &outcome.check,
        "NC507",
        "without no_read_workqueue, no_write_workqueue, allow_discards",
    );
}

pub(super) fn expect_lvm_on_crypt_passes(outcome: &Outcome, checks: &mut Checks) {
    expect_lvm_on_crypt(outcome, checks);
    checks.eq(
        "TRIM through the stack",
        &outcome.probe["trim_effective"],
        true,
    );
    checks.passed_check(&outcome.check, "NC300");
    checks.problem(&outcome.check, "NC302", false);
}

/// QEMU's SCSI disks (behind USB and the RAID HBA) answer INQUIRY as `QEMU HARDDISK`.
const QEMU_SCSI_MODEL: &str = "QEMU HARDDISK";

pub(super) fn expect_usb(outcome: &Outcome, checks: &mut Checks) {
    let drive = checks.drive_by_model(&outcome.probe, QEMU_SCSI_MODEL);
    checks.eq("interface", &drive["interface"], "usb");
    checks.eq("USB driver", &drive["usb"]["driver"], "usb-storage");
    checks.eq("bridge vendor id", &drive["usb"]["vendor_id"], "46f4");
    checks.eq(
        "bridge product",
        &drive["usb"]["product"],
        "QEMU USB HARDDRIVE",
    );
    checks.eq(
        "USB speed (xHCI SuperSpeed)",
        &drive["usb"]["speed_mbps"],
        5000,
    );
    checks.eq(
        "no UNMAP through the bridge",
        &drive["trim_supported"],
        false,
    );
    checks.problem(&outcome.check, "NC404", true);
    checks.finding_mentions(&outcome.check, "NC404", "usb-storage");
    checks.problem(&outcome.check, "NC301", true);
    // smartctl does not know QEMU's bridge (46f4:0001) and reads nothing: health unknown,
    // never "fine".
    checks.eq("health unknown", &drive["health"], Value::Null);
    checks.absent(&outcome.check, "NC200");
}

pub(super) fn expect_uas(outcome: &Outcome, checks: &mut Checks) {
    let drive = checks.drive_by_model(&outcome.probe, QEMU_SCSI_MODEL);
    checks.eq("interface", &drive["interface"], "usb");
    checks.eq("USB driver", &drive["usb"]["driver"], "uas");
    checks.eq("rotational (rotation_rate=1)", &drive["rotational"], false);
    checks.problem(&outcome.check, "NC404", true);
    checks.finding_mentions(&outcome.check, "NC404", "uas");
}

pub(super) fn expect_megasas(outcome: &Outcome, checks: &mut Checks) {
    let drive = checks.drive_by_model(&outcome.probe, QEMU_SCSI_MODEL);
    checks.eq(
        "controller driver",
        &drive["controller_driver"],
        "megaraid_sas",
    );
    checks.eq("controller mode", &drive["controller_mode"], "raid");
    checks.eq(
        "controller PCI class (RAID)",
        &drive["controller_pci_class"],
        "0x010400",
    );
    checks.eq("rotational (rotation_rate=1)", &drive["rotational"], false);
    // Behind the HBA only the SCSI view is there: no ATA IDENTIFY, no NVMe.
    checks.eq("no ATA IDENTIFY behind the HBA", &drive["ata"], Value::Null);
    checks.problem(&outcome.check, "NC401", true);
    checks.finding_mentions(&outcome.check, "NC401", "megaraid_sas");
    checks.finding_mentions(&outcome.check, "NC401", "SMART health");
    checks.finding_mentions(&outcome.check, "NC401", "-d megaraid,N /dev/sda");
    checks.problem(&outcome.check, "NC105", false);
}

pub(super) fn expect_btrfs(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
    checks.eq("file system", &facts["mount"]["fs_type"], "btrfs");
    checks.count("drives under btrfs", &facts["drives"], 2);
    checks.drive_by_serial(facts, "NCQEMUBTRFS1");
    checks.drive_by_serial(facts, "NCQEMUBTRFS2");
    checks.problem(&outcome.check, "NC502", true);
}

/// btrfs on md RAID1: the mount names md0, md0 its two members; both are judged by model.
pub(super) fn expect_btrfs_on_md(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
    checks.eq("file system", &facts["mount"]["fs_type"], "btrfs");
    checks.eq("md layer under btrfs", &facts["layers"][0]["kind"], "md");
    checks.eq("md level", &facts["layers"][0]["detail"], "raid1");
    checks.count("drives under md", &facts["drives"], 2);
    checks.count("nothing left unresolved", &facts["unresolved"], 0);
    for serial in ["2301E6B1D001", "2301E6B1D002"] {
        let drive = checks.drive_by_serial(facts, serial);
        checks.eq("member model", &drive["model"], "CT1000MX500SSD1");
        checks.eq("member interface", &drive["interface"], "sata");
        checks.eq("member controller mode", &drive["controller_mode"], "ahci");
    }
    checks.passed_check(&outcome.check, "NC101");
    checks.finding_mentions(&outcome.check, "NC101", "CT1000MX500SSD1");
    checks.problem(&outcome.check, "NC502", true);
    checks.problem(&outcome.check, "NC504", false);
}

/// A disk passed through to a KVM guest on virtio-scsi: it answers INQUIRY as the drive does
/// behind libata (`ATA`, the model's first 16 characters).
pub(super) fn expect_virtio_scsi_passthrough(outcome: &Outcome, checks: &mut Checks) {
    let drive = checks.drive_by_serial(&outcome.probe, SATA_SERIAL);
    checks.eq("interface", &drive["interface"], "virtio");
    checks.eq("model (SCSI INQUIRY)", &drive["model"], "Samsung SSD 870");
    checks.eq("model source", &drive["model_source"], "scsi_inquiry");
    checks.eq("firmware (INQUIRY revision)", &drive["firmware"], "2B6Q");
    checks.eq(
        "controller driver",
        &drive["controller_driver"],
        "virtio_scsi",
    );
    checks.eq("platform", &outcome.probe["platform"]["cloud"], "kvm");
    checks.present("queue count", &drive, "queue_count");
    checks.problem(&outcome.check, "NC610", true);
    checks.finding_mentions(&outcome.check, "NC610", "passed through");
    checks.finding_mentions(&outcome.check, "NC610", "cache=none");
    checks.absent(&outcome.check, "NC602");
    checks.absent(&outcome.check, "NC611");
}

/// QEMU's own disk on virtio-scsi: the hypervisor's identity, judged with the host settings.
pub(super) fn expect_virtio_scsi_qemu_disk(outcome: &Outcome, checks: &mut Checks) {
    let drive = checks.drive_by_model(&outcome.probe, QEMU_SCSI_MODEL);
    checks.eq("interface", &drive["interface"], "virtio");
    checks.eq("queue count (num_queues=1)", &drive["queue_count"], 1);
    checks.problem(&outcome.check, "NC611", true);
    checks.finding_mentions(&outcome.check, "NC611", "one hardware queue");
    checks.finding_mentions(&outcome.check, "NC611", "iothread=1");
    checks.absent(&outcome.check, "NC610");
}

/// `watch` beside the write load on a real kernel: it found `devices` under the data directory,
/// saw the writes in the kernel's counters, timed its root-only latency probe on the data's
/// blocks, and gave a verdict; the readings it saved are a whole record.
fn expect_watch(outcome: &Outcome, checks: &mut Checks, devices: &[&str]) {
    let watch = outcome.json("watch");
    checks.number("watch schema version", &watch["schema_version"], 1.0, 100.0);
    let names: Vec<Value> = watch["devices"]
        .as_array()
        .map(|all| all.iter().map(|d| d["disk_device"].clone()).collect())
        .unwrap_or_default();
    checks.eq(
        "watched devices",
        &Value::from(names),
        serde_json::json!(devices),
    );
    let written: f64 = watch["devices"]
        .as_array()
        .map(|all| all.iter().filter_map(|d| d["wkB/s"].as_f64()).sum())
        .unwrap_or(0.0);
    checks.number("wkB/s during the dd load", &Value::from(written), 1.0, 1e9);
    checks.number(
        "latency probe reads (root)",
        &watch["latency_probe"]["reads"],
        1.0,
        1e6,
    );
    checks.present("watch verdict", &watch["verdict"], "outcome");
    let saved = outcome.json(super::WATCH_SAVED_RUN);
    checks.eq("saved record format", &saved["nodecheck_watch_samples"], 1);
    checks.number(
        "saved readings",
        &Value::from(saved["samples"].as_array().map_or(0, Vec::len)),
        2.0,
        1e6,
    );
}
