//! The scenarios: emulated hardware, how the guest builds its storage stack on it, and what
//! nodecheck must report about it.
//!
//! Adding one: append a [`Scenario`] to [`SCENARIOS`] with its disk images, the QEMU devices
//! that carry them (`drive=ID` names a disk image), the modules and tools the guest needs, a
//! shell `setup` that mounts something at [`DATADIR`], and an `expect` function. Every
//! scenario runs `probe`, `check` and `snapshot` in the guest and replays the snapshot on the
//! host; `expect` asserts on those documents.

use serde_json::Value;

use super::check::{Checks, Outcome};

/// Where every scenario mounts the file system nodecheck looks at.
pub const DATADIR: &str = "/var/lib/ethereum";

/// One disk image: its id (`drive=ID` in `devices`) and size.
#[derive(Debug, Clone, Copy)]
pub struct Disk {
    pub id: &'static str,
    pub mib: u64,
}

#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    pub name: &'static str,
    pub about: &'static str,
    pub disks: &'static [Disk],
    /// Host directories exported to the guest over 9p (virtio), by mount tag; each starts empty.
    pub shares: &'static [&'static str],
    /// QEMU arguments that attach the disks (each `-device` and its value as separate items).
    pub devices: &'static [&'static str],
    /// Kernel modules to load, by modprobe name; their dependencies come along.
    pub modules: &'static [&'static str],
    /// Host programs copied into the guest (with their libraries) under `/usr/bin`.
    pub tools: &'static [&'static str],
    /// Guest shell (busybox sh, `set -e`) that builds the stack and mounts it at DATADIR.
    pub setup: &'static str,
    /// More guest commands: `(name, shell command)`, their stdout brought back under `name`.
    pub runs: &'static [(&'static str, &'static str)],
    /// The hand-written fixture (`probe::fixture`) that models the same layout.
    pub fixture: Option<&'static str>,
    pub expect: fn(&Outcome, &mut Checks),
}

impl Scenario {
    /// The scenario's part of the guest script (the init script sources it).
    pub fn guest_script(&self) -> String {
        let mut script = String::new();
        script.push_str(&format!("modules {}\n", self.modules.join(" ")));
        // A script of its own: `set -e` is void inside an `if` condition, even in a subshell.
        script.push_str(&format!(
            "if ! sh /scenarios/{}-setup.sh; then\n    echo \"{}\" >&3\n    poweroff -f\nfi\n",
            self.name,
            super::guest::SETUP_FAILED
        ));
        script.push_str(&format!(
            "run probe nodecheck probe --json {DATADIR}\n\
             run check nodecheck check --json --bench none {DATADIR}\n\
             run snapshot sh -c 'nodecheck snapshot --no-redact -o /tmp/snapshot.tar.gz {DATADIR} >&2 && base64 /tmp/snapshot.tar.gz'\n"
        ));
        for (name, command) in self.runs {
            script.push_str(&format!("run {name} sh -c '{command}'\n"));
        }
        script
    }
}

const TOOLS_EXT4: &[&str] = &["mke2fs", "smartctl", "sfdisk"];

macro_rules! modules {
    ($($module:literal),* $(,)?) => {
        &[$($module,)* "ext4", "crc32c_generic"]
    };
}

// `/usr/bin/mke2fs` is e2fsprogs', which makes a real ext4: busybox's (its shell prefers its own
// applets to PATH) makes ext2 whatever `-t` says;
// `nodiscard` because discarding a sparse image under TCG only costs time.

/// Plain dm-crypt (LUKS would spend a minute of TCG in its key derivation) with LVM on top,
/// without udev: libdevmapper makes the `/dev/mapper` nodes (DM_DISABLE_UDEV in the init).
macro_rules! lvm_on_crypt_setup {
    ($open_options:literal) => {
        concat!(
            "wait_for /dev/nvme0n1\n",
            "head -c 64 /dev/urandom > /tmp/key\n",
            "cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 --key-file /tmp/key ",
            $open_options,
            " /dev/nvme0n1 cryptdata\n",
            "config='devices { obtain_device_list_from_udev = 0 } activation { udev_sync = 0 udev_rules = 0 }'\n",
            "lvm pvcreate -q --config \"$config\" /dev/mapper/cryptdata\n",
            "lvm vgcreate -q --config \"$config\" vgeth /dev/mapper/cryptdata\n",
            "lvm lvcreate -q --config \"$config\" -Zn -Wn -l 100%FREE -n chain vgeth\n",
            "wait_for /dev/mapper/vgeth-chain\n",
            "/usr/bin/mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=1 /dev/mapper/vgeth-chain\n",
            "mount -t ext4 -o noatime /dev/mapper/vgeth-chain /var/lib/ethereum\n",
        )
    };
}

pub const NVME_SERIAL: &str = "NCQEMUNVME01";
/// One disk seen as sda, formatted ext4 and mounted `noatime` at the data directory.
const EXT4_NOATIME_ON_SDA: &str = r#"
wait_for /dev/sda
/usr/bin/mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=1 /dev/sda
mount -t ext4 -o noatime /dev/sda /var/lib/ethereum
"#;

pub const SATA_MODEL: &str = "Samsung SSD 870 EVO 2TB";
pub const SATA_SERIAL: &str = "S6PNNS0T412345A";

pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "nvme",
        about: "NVMe with a critical warning set, partitioned, ext4 mounted noatime; raw-device QD1",
        disks: &[Disk { id: "nvme", mib: 2048 }],
        shares: &[],
        devices: &[
            "-device",
            "nvme,drive=nvme,serial=NCQEMUNVME01,smart_critical_warning=1",
        ],
        modules: modules!["nvme"],
        tools: TOOLS_EXT4,
        setup: r#"
wait_for /dev/nvme0n1
echo ',,L' | sfdisk -q /dev/nvme0n1
wait_for /dev/nvme0n1p1
/usr/bin/mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=1 /dev/nvme0n1p1
mount -t ext4 -o noatime /dev/nvme0n1p1 /var/lib/ethereum
"#,
        runs: &[(
            "bench",
            "nodecheck bench --json --device /dev/nvme0n1 --test qd1 --runtime 2",
        )],
        fixture: Some("nvme_degraded_pcie_link"),
        expect: expect_nvme,
    },
    Scenario {
        name: "sata_ahci",
        about: "a listed SATA SSD on AHCI, ext4 mounted strictatime",
        disks: &[Disk { id: "sata", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "ahci,id=ahci",
            "-device",
            "ide-hd,drive=sata,bus=ahci.0,model=Samsung SSD 870 EVO 2TB,serial=S6PNNS0T412345A,rotation_rate=1",
        ],
        modules: modules!["ahci", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: r#"
wait_for /dev/sda
/usr/bin/mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=1 /dev/sda
mount -t ext4 -o strictatime /dev/sda /var/lib/ethereum
"#,
        runs: &[],
        fixture: Some("sata_ahci"),
        expect: expect_sata_ahci,
    },
    Scenario {
        name: "sata_ide",
        about: "the same SATA SSD on the legacy PIIX IDE controller",
        disks: &[Disk { id: "sata", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "ide-hd,drive=sata,bus=ide.0,model=Samsung SSD 870 EVO 2TB,serial=S6PNNS0T412345A,rotation_rate=1",
        ],
        modules: modules!["ata_piix", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: EXT4_NOATIME_ON_SDA,
        runs: &[],
        fixture: Some("sata_ide_mode"),
        expect: expect_sata_ide,
    },
    Scenario {
        name: "sata_ssd_rotation_unreported",
        about: "a listed QLC SATA SSD that leaves its rotation rate unreported (IDENTIFY word 217 = 0), which the kernel marks rotational",
        disks: &[Disk { id: "sata", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "ahci,id=ahci",
            "-device",
            "ide-hd,drive=sata,bus=ahci.0,model=Samsung SSD 870 QVO 1TB,serial=S5VSNG0NA12345B",
        ],
        modules: modules!["ahci", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: EXT4_NOATIME_ON_SDA,
        runs: &[],
        fixture: Some("qemu_sata_ssd_rotation_unreported"),
        expect: expect_sata_ssd_rotation_unreported,
    },
    Scenario {
        name: "host_share_9p",
        about: "the data directory on a 9p share of the VM's host (QEMU -virtfs), as WSL2 and some VPS images do",
        disks: &[],
        shares: &["ethdata"],
        devices: &[],
        modules: modules!["virtio_pci", "9pnet_virtio", "9p"],
        tools: &["smartctl"],
        setup: r#"
# The virtio channel appears once the PCI device is bound, which can trail modprobe.
tries=0
until mount -t 9p -o trans=virtio,version=9p2000.L ethdata /var/lib/ethereum; do
    tries=$((tries + 1))
    [ "$tries" -lt 50 ] || exit 1
    sleep 0.2
done
"#,
        runs: &[],
        fixture: Some("vm_9p_host_share"),
        expect: expect_host_share_9p,
    },
    Scenario {
        name: "md_raid1",
        about: "md RAID1 over two SATA SSDs on AHCI",
        disks: &[Disk { id: "left", mib: 1024 }, Disk { id: "right", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "ahci,id=ahci",
            "-device",
            "ide-hd,drive=left,bus=ahci.0,model=CT1000MX500SSD1,serial=2235E6A1B2C3,rotation_rate=1",
            "-device",
            "ide-hd,drive=right,bus=ahci.1,model=CT1000MX500SSD1,serial=2235E6A1B2C4,rotation_rate=1",
        ],
        modules: modules!["ahci", "sd_mod", "raid1"],
        tools: &["mke2fs", "smartctl", "mdadm"],
        setup: r#"
wait_for /dev/sda
wait_for /dev/sdb
mdadm --create /dev/md0 --level=1 --raid-devices=2 --metadata=1.2 --run --assume-clean /dev/sda /dev/sdb
wait_for /dev/md0
/usr/bin/mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=1 /dev/md0
mount -t ext4 -o noatime /dev/md0 /var/lib/ethereum
"#,
        runs: &[],
        fixture: Some("md_raid1"),
        expect: expect_md_raid1,
    },
    Scenario {
        name: "lvm_on_crypt",
        about: "LVM on dm-crypt (plain, no allow-discards) on NVMe: TRIM blocked at the crypt layer",
        disks: &[Disk { id: "nvme", mib: 1024 }],
        shares: &[],
        devices: &["-device", "nvme,drive=nvme,serial=NCQEMUNVME01"],
        modules: modules!["nvme", "dm_crypt", "dm_mod", "xts", "ecb"],
        tools: &["mke2fs", "smartctl", "cryptsetup", "lvm"],
        setup: lvm_on_crypt_setup!(""),
        runs: &[],
        fixture: Some("dm_crypt"),
        expect: expect_lvm_on_crypt_blocked,
    },
    Scenario {
        name: "lvm_on_crypt_discards",
        about: "LVM on dm-crypt opened with --allow-discards on NVMe: TRIM reaches the drive",
        disks: &[Disk { id: "nvme", mib: 1024 }],
        shares: &[],
        devices: &["-device", "nvme,drive=nvme,serial=NCQEMUNVME01"],
        modules: modules!["nvme", "dm_crypt", "dm_mod", "xts", "ecb"],
        tools: &["mke2fs", "smartctl", "cryptsetup", "lvm"],
        setup: lvm_on_crypt_setup!("--allow-discards"),
        runs: &[],
        fixture: None,
        expect: expect_lvm_on_crypt_passes,
    },
    Scenario {
        name: "usb_storage",
        about: "a SATA SSD in a USB mass-storage enclosure on xHCI",
        disks: &[Disk { id: "usb", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "qemu-xhci,id=xhci",
            "-device",
            "usb-storage,bus=xhci.0,drive=usb,serial=NCQEMUUSB001",
        ],
        modules: modules!["xhci_pci", "usb_storage", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: EXT4_NOATIME_ON_SDA,
        runs: &[],
        fixture: None,
        expect: expect_usb,
    },
    Scenario {
        name: "usb_uas",
        about: "an SSD in a USB Attached SCSI (UAS) enclosure on xHCI",
        disks: &[Disk { id: "uas", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "qemu-xhci,id=xhci",
            "-device",
            "usb-uas,id=uas,bus=xhci.0",
            "-device",
            "scsi-hd,bus=uas.0,scsi-id=0,lun=0,drive=uas,rotation_rate=1",
        ],
        modules: modules!["xhci_pci", "uas", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: EXT4_NOATIME_ON_SDA,
        runs: &[],
        fixture: Some("usb_uas"),
        expect: expect_uas,
    },
    Scenario {
        name: "megasas",
        about: "a disk behind an LSI MegaRAID SAS HBA (megaraid_sas)",
        disks: &[Disk { id: "raid", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "megasas,id=raid",
            "-device",
            "scsi-hd,drive=raid,bus=raid.0,serial=NCQEMURAID01,rotation_rate=1",
        ],
        modules: modules!["megaraid_sas", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: EXT4_NOATIME_ON_SDA,
        runs: &[],
        fixture: None,
        expect: expect_megasas,
    },
    Scenario {
        name: "btrfs_two_devices",
        about: "btrfs RAID1 over two NVMe drives",
        disks: &[Disk { id: "first", mib: 1024 }, Disk { id: "second", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "nvme,drive=first,serial=NCQEMUBTRFS1",
            "-device",
            "nvme,drive=second,serial=NCQEMUBTRFS2",
        ],
        modules: &["nvme", "btrfs", "crc32c_generic"],
        tools: &["mkfs.btrfs", "smartctl"],
        setup: r#"
wait_for /dev/nvme0n1
wait_for /dev/nvme1n1
mkfs.btrfs -q -f -K -d raid1 -m raid1 /dev/nvme0n1 /dev/nvme1n1
mount -t btrfs -o noatime,device=/dev/nvme0n1,device=/dev/nvme1n1 /dev/nvme0n1 /var/lib/ethereum
"#,
        runs: &[],
        fixture: Some("btrfs_two_devices"),
        expect: expect_btrfs,
    },
];

// The assertions. Drives are found by serial: kernel names are not stable.

fn nvme_drive(checks: &mut Checks, facts: &Value) -> Value {
    checks.drive_by_serial(facts, NVME_SERIAL)
}

fn expect_nvme(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
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
    let listed = outcome.check["drives"]
        .as_array()
        .and_then(|drives| drives.first())
        .cloned()
        .unwrap_or(Value::Null);
    let family = listed["family"].clone();
    checks.finding_mentions(&outcome.check, "NC101", "graded good in the database");
    checks.eq("database family", &family, "Samsung 870 EVO");
    checks.passed_check(&outcome.check, "NC101");
    drive
}

/// The drive's overall grade in the verdict: the database's, lowered by what else was found.
fn verdict_grade(outcome: &Outcome) -> Value {
    outcome.check["drives"][0]["grade"].clone()
}

fn expect_sata_ahci(outcome: &Outcome, checks: &mut Checks) {
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
fn expect_sata_ssd_rotation_unreported(outcome: &Outcome, checks: &mut Checks) {
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
fn expect_host_share_9p(outcome: &Outcome, checks: &mut Checks) {
    let mount = &outcome.probe["mount"];
    checks.eq("file system", &mount["fs_type"], "9p");
    checks.eq("share kind", &mount["network"]["kind"], "nine_p");
    checks.eq("mount tag", &mount["network"]["export"], "ethdata");
    checks.eq("transport", &mount["network"]["transport"], "virtio");
    checks.problem(&outcome.check, "NC520", true);
    checks.finding_mentions(&outcome.check, "NC520", "ethdata");
    checks.finding_has_fix(&outcome.check, "NC520");
    let severity = outcome.check["findings"]
        .as_array()
        .and_then(|all| all.iter().find(|f| f["code"] == "NC520"))
        .map(|f| f["severity"].clone())
        .unwrap_or(Value::Null);
    checks.eq("NC520 severity for a VM's host share", &severity, "warning");
}

fn expect_sata_ide(outcome: &Outcome, checks: &mut Checks) {
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

fn expect_md_raid1(outcome: &Outcome, checks: &mut Checks) {
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

fn expect_lvm_on_crypt_blocked(outcome: &Outcome, checks: &mut Checks) {
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
}

fn expect_lvm_on_crypt_passes(outcome: &Outcome, checks: &mut Checks) {
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

fn expect_usb(outcome: &Outcome, checks: &mut Checks) {
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

fn expect_uas(outcome: &Outcome, checks: &mut Checks) {
    let drive = checks.drive_by_model(&outcome.probe, QEMU_SCSI_MODEL);
    checks.eq("interface", &drive["interface"], "usb");
    checks.eq("USB driver", &drive["usb"]["driver"], "uas");
    checks.eq("rotational (rotation_rate=1)", &drive["rotational"], false);
    checks.problem(&outcome.check, "NC404", true);
    checks.finding_mentions(&outcome.check, "NC404", "uas");
}

fn expect_megasas(outcome: &Outcome, checks: &mut Checks) {
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

fn expect_btrfs(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
    checks.eq("file system", &facts["mount"]["fs_type"], "btrfs");
    checks.count("drives under btrfs", &facts["drives"], 2);
    checks.drive_by_serial(facts, "NCQEMUBTRFS1");
    checks.drive_by_serial(facts, "NCQEMUBTRFS2");
    checks.problem(&outcome.check, "NC502", true);
}
