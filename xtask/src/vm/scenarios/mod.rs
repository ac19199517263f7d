//! The scenarios: emulated hardware, how the guest builds its storage stack on it, and what
//! nodecheck must report about it.
//!
//! Adding one: append a [`Scenario`] to [`SCENARIOS`] with its disk images, the QEMU devices
//! that carry them (`drive=ID` names a disk image), the modules and tools the guest needs, a
//! shell `setup` that mounts something at [`DATADIR`], and an `expect` function. Every
//! scenario runs `probe`, `check` and `snapshot` in the guest and replays the snapshot on the
//! host; `expect` asserts on those documents.

mod expect;
mod measure;
mod zfs;

use super::check::{Checks, Outcome};
use expect::{
    expect_btrfs, expect_btrfs_on_md, expect_host_share_9p, expect_lvm_on_crypt_blocked,
    expect_md_raid1, expect_megasas, expect_nvme, expect_sata_ahci, expect_sata_ide,
    expect_sata_ssd_rotation_unreported, expect_uas, expect_usb, expect_virtio_scsi_passthrough,
    expect_virtio_scsi_qemu_disk,
};

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
    /// Record QEMU's own trace of every NVMe read and write command
    /// ([`Outcome::nvme_trace`](super::check::Outcome)).
    pub nvme_trace: bool,
    /// The guest needs OpenZFS: its modules (built for the guest kernel) and `zpool`/`zfs`.
    pub openzfs: bool,
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
            super::check::SETUP_FAILED
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

/// LVM over plain dm-crypt on the NVMe disk, the crypt layer opened with `$open_options`.
/// Plain dm-crypt because LUKS would spend a minute of TCG in its key derivation; no udev:
/// libdevmapper makes the `/dev/mapper` nodes (DM_DISABLE_UDEV in the init). `$runs` and
/// `$trace` as in [`Scenario`].
macro_rules! lvm_on_crypt {
    ($name:literal, $about:literal, $mib:expr, $open_options:literal, $runs:expr, $trace:expr, $fixture:expr, $expect:expr) => {
        Scenario {
            name: $name,
            about: $about,
            disks: &[Disk { id: "nvme", mib: $mib }],
            shares: &[],
            devices: &["-device", "nvme,drive=nvme,serial=NCQEMUNVME01"],
            modules: modules!["nvme", "dm_crypt", "dm_mod", "xts", "ecb"],
            tools: &["mke2fs", "smartctl", "cryptsetup", "lvm"],
            setup: concat!(
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
            ),
            runs: $runs,
            fixture: $fixture,
            nvme_trace: $trace,
            openzfs: false,
            expect: $expect,
        }
    };
}

/// `watch` beside a write load: a 16 MiB chain file for the latency probe to read, then dd
/// writes 400 MiB with fsync while watch samples for 4 s and keeps its raw readings with `--save`. The readings come back as [`WATCH_SAVED_RUN`], which
/// `--update-test-data` keeps as a replay fixture of the nodecheck tests (a real kernel's
/// diskstats, PSI and inflight counts under load, not numbers written by hand).
const WATCH_BESIDE_WRITES: (&str, &str) = (
    "watch",
    "mkdir -p /var/lib/ethereum/chaindata && head -c 16777216 /dev/urandom > /var/lib/ethereum/chaindata/000001.ldb && sync; (dd if=/dev/zero of=/var/lib/ethereum/load bs=1048576 count=400 conv=fsync 2>/dev/null; sync) & nodecheck watch --json --for 4s --save /tmp/watch.json /var/lib/ethereum; status=$?; wait; rm -f /var/lib/ethereum/load; exit $status",
);
/// The run that brings `watch --save`'s file back.
pub const WATCH_SAVED_RUN: &str = "watch_saved";
const WATCH_SAVED: (&str, &str) = (WATCH_SAVED_RUN, "cat /tmp/watch.json");

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
        runs: &[
            (
                "bench",
                "nodecheck bench --json --device /dev/nvme0n1 --test qd1 --runtime 2",
            ),
            WATCH_BESIDE_WRITES,
            WATCH_SAVED,
        ],
        fixture: Some("nvme_degraded_pcie_link"),
        nvme_trace: false,
        openzfs: false,
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
        nvme_trace: false,
        openzfs: false,
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
        nvme_trace: false,
        openzfs: false,
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
        nvme_trace: false,
        openzfs: false,
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
        nvme_trace: false,
        openzfs: false,
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
        runs: &[WATCH_BESIDE_WRITES, WATCH_SAVED],
        fixture: Some("md_raid1"),
        nvme_trace: false,
        openzfs: false,
        expect: expect_md_raid1,
    },
    lvm_on_crypt!(
        "lvm_on_crypt",
        "LVM on dm-crypt (plain, no allow-discards) on NVMe: TRIM blocked at the crypt layer, the work queues named",
        1024,
        "",
        &[],
        false,
        Some("dm_crypt"),
        expect_lvm_on_crypt_blocked
    ),
    lvm_on_crypt!(
        "lvm_on_crypt_discards",
        "LVM on dm-crypt opened with --allow-discards and without work queues on NVMe: TRIM reaches the drive; 1.1 GiB of data, and QEMU's NVMe trace proves check's QD1 reads, mapped through LVM and dm-crypt, hit written blocks",
        10 << 10,
        "--allow-discards --perf-no_read_workqueue --perf-no_write_workqueue",
        measure::LVM_ON_CRYPT_DATA_RUNS,
        true,
        None,
        measure::expect_lvm_on_crypt_data
    ),
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
        nvme_trace: false,
        openzfs: false,
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
        nvme_trace: false,
        openzfs: false,
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
        nvme_trace: false,
        openzfs: false,
        expect: expect_megasas,
    },
    Scenario {
        name: "virtio_scsi_passthrough",
        about: "a SATA SSD passed through to a KVM guest on virtio-scsi, answering INQUIRY as libata does (vendor ATA, the model's first 16 characters)",
        disks: &[Disk { id: "pass", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "virtio-scsi-pci,id=scsi0",
            "-device",
            "scsi-hd,drive=pass,bus=scsi0.0,vendor=ATA,product=Samsung SSD 870 ,ver=2B6Q,serial=S6PNNS0T412345A,rotation_rate=1",
        ],
        modules: modules!["virtio_pci", "virtio_scsi", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: EXT4_NOATIME_ON_SDA,
        runs: &[],
        fixture: Some("vm_scsi_passthrough"),
        nvme_trace: false,
        openzfs: false,
        expect: expect_virtio_scsi_passthrough,
    },
    Scenario {
        name: "virtio_scsi_qemu_disk",
        about: "QEMU's own disk (QEMU HARDDISK) on a virtio-scsi controller with one queue, as Proxmox's default disk",
        disks: &[Disk { id: "vol", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "virtio-scsi-pci,id=scsi0,num_queues=1",
            "-device",
            "scsi-hd,drive=vol,bus=scsi0.0,serial=NCQEMUVOL01",
        ],
        modules: modules!["virtio_pci", "virtio_scsi", "sd_mod"],
        tools: TOOLS_EXT4,
        setup: EXT4_NOATIME_ON_SDA,
        runs: &[],
        fixture: Some("vm_qemu_harddisk"),
        nvme_trace: false,
        openzfs: false,
        expect: expect_virtio_scsi_qemu_disk,
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
        nvme_trace: false,
        openzfs: false,
        expect: expect_btrfs,
    },
    Scenario {
        name: "btrfs_on_md",
        about: "btrfs on an md RAID1 of two SATA SSDs on AHCI: the file system resolves to md0, md0 to both members",
        disks: &[Disk { id: "left", mib: 1024 }, Disk { id: "right", mib: 1024 }],
        shares: &[],
        devices: &[
            "-device",
            "ahci,id=ahci",
            "-device",
            "ide-hd,drive=left,bus=ahci.0,model=CT1000MX500SSD1,serial=2301E6B1D001,rotation_rate=1",
            "-device",
            "ide-hd,drive=right,bus=ahci.1,model=CT1000MX500SSD1,serial=2301E6B1D002,rotation_rate=1",
        ],
        modules: &["ahci", "sd_mod", "raid1", "btrfs", "crc32c_generic"],
        tools: &["mkfs.btrfs", "smartctl", "mdadm"],
        // Single-device btrfs (`-d single -m dup`, as on one disk): the redundancy is md's.
        setup: r#"
wait_for /dev/sda
wait_for /dev/sdb
mdadm --create /dev/md0 --level=1 --raid-devices=2 --metadata=1.2 --run --assume-clean /dev/sda /dev/sdb
wait_for /dev/md0
mkfs.btrfs -q -f -K -d single -m dup /dev/md0
mount -t btrfs -o noatime /dev/md0 /var/lib/ethereum
"#,
        runs: &[],
        fixture: Some("btrfs_on_md"),
        nvme_trace: false,
        openzfs: false,
        expect: expect_btrfs_on_md,
    },
    measure::NVME_FRESH_DATA,
    zfs::ZFS_MIRROR,
];
