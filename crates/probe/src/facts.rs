//! The serializable facts the probe returns.
//!
//! This is the contract between `probe`, `verdict` and the renderers in the binary, and the
//! JSON schema documented in `docs/json.md`. Every field that the probe could not establish is
//! `None` (serialized as `null`), never a guess. Adding a field is a compatible change; renaming
//! or re-typing one bumps [`SCHEMA_VERSION`].

use serde::{Deserialize, Serialize};

pub use crate::network::{NetworkShare, ShareKind};

/// An enum whose values serialize as the fixed strings docs/json.md lists, so the JSON stays
/// text. `Other` keeps any other string as it came (facts from a newer probe, a hand-edited
/// triage file). It reads as its text (`Deref<Target = str>`, `Display`) wherever it is shown.
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident => $text:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$variant_meta])* $variant,)*
            /// Any other text, kept as it came.
            Other(String),
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)*
                    $name::Other(text) => text,
                }
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                match text {
                    $($text => $name::$variant,)*
                    other => $name::Other(other.to_string()),
                }
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                match $name::from(text.as_str()) {
                    $name::Other(_) => $name::Other(text),
                    known => known,
                }
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                self.as_str()
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                String::deserialize(deserializer).map($name::from)
            }
        }
    };
}

text_enum! {
    /// Why a fact that exists could not be read in this run.
    pub enum UnavailableReason {
        /// NVMe admin commands need root.
        NeedsRoot => "needs root",
        /// smartctl needs root to open the device.
        NeedsRootForSmartctl => "needs root (smartctl)",
        /// A replayed root (fixture, snapshot) runs no ioctls and no programs.
        Replayed => "replayed root: no ioctls or external programs",
        /// The caller turned smartctl off.
        SmartctlOff => "smartctl turned off for this run",
        /// The caller turned NVMe admin commands off.
        NvmeIoctlsOff => "NVMe ioctls disabled",
        SmartctlNotInstalled => "smartctl not installed (smartmontools >= 7.0)",
    }
}

impl UnavailableReason {
    /// Rerunning as root would read the fact.
    pub fn needs_root(&self) -> bool {
        matches!(
            self,
            UnavailableReason::NeedsRoot | UnavailableReason::NeedsRootForSmartctl
        )
    }
}

text_enum! {
    /// Where a temperature or health reading came from.
    pub enum HealthSource {
        /// The kernel's hwmon sensor (`nvme` or `drivetemp`): no root needed.
        Hwmon => "hwmon",
        /// The NVMe SMART / Health log page, read with an admin command (root).
        NvmeSmartLog => "nvme-smart-log",
        Smartctl => "smartctl",
    }
}

/// Health records built field by field start without a source.
impl Default for HealthSource {
    fn default() -> Self {
        HealthSource::Other(String::new())
    }
}

/// Version of the JSON document produced by `nodecheck probe --json`.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything the probe learned about the storage under one path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Facts {
    pub schema_version: u32,
    /// Version of the probe that produced these facts (`CARGO_PKG_VERSION`).
    pub probe_version: String,
    /// The root every system file was read through: `/` on a live machine, else a fixture or
    /// an unpacked snapshot.
    pub root: String,
    /// True when the facts come from the running machine (root is `/` and no replay), so
    /// ioctls, statvfs and external programs were allowed.
    pub live: bool,
    /// True when the probe ran with root privileges (effective uid 0) on a live machine.
    pub privileged: bool,
    /// The path that was asked about, as given.
    pub path: String,
    pub mount: Option<MountFacts>,
    /// Device names from the mounted device down to the disks, depth-first, slaves in name
    /// order, e.g. `["dm-0", "nvme0n1p2", "nvme0n1"]`.
    pub stack: Vec<String>,
    /// The same layers with what each one is and whether it passes discard.
    pub layers: Vec<Layer>,
    /// Every layer of the stack passes discard (`discard_max_bytes > 0` at each level).
    /// `None` when the stack could not be resolved.
    pub trim_effective: Option<bool>,
    /// The physical drives at the bottom of the stack, in name order.
    pub drives: Vec<Drive>,
    pub platform: Platform,
    pub io_uring: IoUringStatus,
    /// `fstrim.timer` is enabled in systemd (periodic TRIM). `None` when it cannot be told
    /// (no systemd configuration under the root).
    pub fstrim_timer: Option<bool>,
    /// Parts of the stack the probe could not resolve, said plainly (ZFS pools, btrfs
    /// multi-device without sysfs entries, overlay, network file systems).
    pub unresolved: Vec<String>,
    /// Facts that exist but could not be read here, with the reason ("needs root").
    pub unavailable: Vec<Unavailable>,
    /// Problems met while probing that did not stop it (malformed files, smartctl garbage).
    pub warnings: Vec<String>,
    /// NVMe APST and PCIe ASPM settings of the kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<crate::power::PowerSettings>,
    /// The ZFS dataset under the path, its pool and module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs: Option<crate::zfs::ZfsFacts>,
}

/// The mount that holds the path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MountFacts {
    pub mount_point: String,
    pub fs_type: String,
    /// Mount source (`/dev/mapper/vg-eth`, `tank/eth`, `overlay`).
    pub source: String,
    /// `major:minor` of the mounted device as mountinfo reports it.
    pub dev: String,
    pub atime: AtimeMode,
    /// `lazytime` in the super options (atime updates kept in memory).
    pub lazytime: bool,
    /// Online discard (`discard`, `discard=async`) is on for this mount.
    pub discard: bool,
    pub read_only: bool,
    /// Per-mount options as mountinfo lists them.
    pub mount_options: Vec<String>,
    /// Super-block options as mountinfo lists them.
    pub super_options: Vec<String>,
    pub free_bytes: Option<u64>,
    pub total_bytes: Option<u64>,
    /// The `/etc/fstab` line that mounts it, as written. Facts saved before fstab was read
    /// deserialize as [`FstabEntry::Unreadable`].
    #[serde(default)]
    pub fstab: FstabEntry,
    /// The server and export of a network or host-shared file system (NFS, SMB, CephFS,
    /// GlusterFS, 9p, virtiofs); `None` for local file systems.
    #[serde(default)]
    pub network: Option<NetworkShare>,
}

/// What `/etc/fstab` under the probe's root says about a mount.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FstabEntry {
    /// No readable `/etc/fstab` (a minimal container, a replay without it).
    #[default]
    Unreadable,
    /// fstab has no line for the mount point: a systemd mount unit, a cloud image's generator
    /// or a manual `mount` put it there.
    NoLine,
    /// The line (1-based `number`) exactly as written.
    Line { number: usize, text: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AtimeMode {
    Noatime,
    Relatime,
    Strictatime,
}

/// One level of the block stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    /// Kernel name (`dm-0`, `md0`, `nvme0n1p2`, `sda`).
    pub name: String,
    pub kind: LayerKind,
    /// What sysfs says about it: the dm name (`vg-eth`), md level (`raid1`), partition number.
    pub detail: Option<String>,
    /// 0 for the mounted device, +1 for each level down.
    pub depth: u32,
    /// Names of the lower devices (`slaves/`, or the parent disk of a partition), in name order.
    pub lower: Vec<String>,
    /// `queue/discard_max_bytes`; 0 means this layer drops discard.
    pub discard_max_bytes: Option<u64>,
    /// A device-mapper layer's table (read as root), which says where its data lies below
    /// and, for dm-crypt, its optional parameters. Empty when not read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dm_table: Vec<crate::dm::DmTarget>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerKind {
    /// A whole physical (or virtual) disk: the bottom of the stack.
    Disk,
    Partition,
    /// device-mapper with an `LVM-` uuid.
    Lvm,
    /// device-mapper with a `CRYPT-` uuid (dm-crypt / LUKS).
    Crypt,
    /// device-mapper with an `mpath-` uuid.
    Multipath,
    /// Any other device-mapper target.
    Dm,
    /// Linux software RAID.
    Md,
    Loop,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    Nvme,
    Sata,
    Sas,
    Usb,
    Virtio,
    Xen,
    Mmc,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControllerMode {
    Ahci,
    Ide,
    Raid,
    Sas,
    /// Intel VMD remapping NVMe/SATA behind a RAID-capable controller.
    Vmd,
    Unknown,
}

/// Where a drive's model string came from; each source has its own length and fidelity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelSource {
    /// ATA IDENTIFY DEVICE words 27-46: the full 40-character model.
    AtaIdentify,
    /// NVMe Identify Controller MN (also what the kernel copies to sysfs `model`): 40 characters.
    NvmeIdentify,
    /// The SCSI INQUIRY product field (`/sys/block/sdX/device/model`): 16 characters, so an
    /// ATA drive's longer name behind libata, a USB bridge or an HBA is cut.
    ScsiInquiry,
    /// `smartctl -j` `model_name`, read through whatever pass-through smartctl used.
    Smartctl,
    /// The MMC/SD card's CID product name.
    MmcCid,
    /// The T10 vendor ID designator a SAT layer (libata, a bridge, an HBA, a hypervisor passing
    /// the disk through) puts in VPD page 0x83: the drive's whole 40-character IDENTIFY model.
    SatDeviceIdentification,
}

impl ModelSource {
    pub fn label(self) -> &'static str {
        match self {
            ModelSource::AtaIdentify => "ATA IDENTIFY",
            ModelSource::NvmeIdentify => "NVMe Identify",
            ModelSource::ScsiInquiry => "SCSI INQUIRY",
            ModelSource::Smartctl => "smartctl",
            ModelSource::MmcCid => "MMC CID",
            ModelSource::SatDeviceIdentification => "SCSI VPD 0x83 (SAT)",
        }
    }
}

/// A physical drive at the bottom of the stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Drive {
    /// Kernel block device name (`nvme0n1`, `sda`, `vda`).
    pub name: String,
    pub model: Option<String>,
    /// Where `model` was read: a SCSI INQUIRY product is cut at 16 characters, so a judge must
    /// know whether it saw the whole name.
    #[serde(default)]
    pub model_source: Option<ModelSource>,
    pub firmware: Option<String>,
    pub serial: Option<String>,
    /// SCSI/ATA vendor string or USB vendor, when the interface has one.
    pub vendor: Option<String>,
    /// smartctl's drivedb family (`Samsung based SSDs`), when smartctl ran or was supplied.
    pub model_family: Option<String>,
    pub capacity_bytes: Option<u64>,
    pub interface: Option<Interface>,
    /// The probe's best answer: the drive's own rotation rate when it reports one, else the
    /// kernel's flag.
    pub rotational: Option<bool>,
    /// ATA word 217 / smartctl `rotation_rate`: `Some(0)` = SSD, else rpm.
    pub rotation_rate_rpm: Option<u32>,
    /// `queue/rotational` exactly as the kernel has it. The kernel sets it for every SCSI disk
    /// unless the device says "non-rotating", so on its own it is a weak hint.
    #[serde(default)]
    pub queue_rotational: Option<bool>,
    /// MEDIUM ROTATION RATE of the SCSI Block Device Characteristics VPD page (sysfs
    /// `device/vpd_pgb1`), same convention as `rotation_rate_rpm`; `None` when the page is
    /// absent or does not report a rate.
    #[serde(default)]
    pub vpd_rotation_rate_rpm: Option<u32>,
    pub logical_block_size: Option<u32>,
    pub physical_block_size: Option<u32>,
    /// The active I/O scheduler (`none`, `mq-deadline`).
    pub scheduler: Option<String>,
    /// `queue/write_cache`: `write back` or `write through`.
    pub write_cache: Option<String>,
    pub temperature_c: Option<f64>,
    /// Where the temperature came from: `hwmon`, `nvme-smart-log`, `smartctl`.
    pub temperature_source: Option<HealthSource>,
    /// The drive itself supports TRIM / deallocate (ATA word 169, NVMe ONCS bit 2, smartctl,
    /// or `discard_max_hw_bytes > 0` when nothing better is known).
    pub trim_supported: Option<bool>,
    /// SATA/SAS: mode of the host controller the drive hangs off.
    pub controller_mode: Option<ControllerMode>,
    /// Kernel driver of that controller (`ahci`, `ata_piix`, `megaraid_sas`, `nvme`, `uas`).
    pub controller_driver: Option<String>,
    /// PCI class code of the controller (`0x010601`).
    pub controller_pci_class: Option<String>,
    pub sata_link_gbps: Option<f64>,
    pub sata_link_max_gbps: Option<f64>,
    /// NVMe: the controller asks for a Host Memory Buffer (sysfs `hmb` present or Identify
    /// HMPRE > 0): a strong hint that the drive has no DRAM.
    pub hmb: Option<bool>,
    pub pcie_link: Option<PcieLink>,
    pub nvme: Option<NvmeDetails>,
    pub ata: Option<AtaDetails>,
    pub usb: Option<UsbDetails>,
    pub health: Option<Health>,
    /// Hardware queues of the block device (`mq/` entries): a virtual disk with one queue
    /// serialises all I/O through one host thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_count: Option<u32>,
    /// Hyper-V/Azure: the storvsc channel and LUN (Azure's temporary disk is told by them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vmbus: Option<crate::vmbus::VmbusDisk>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PcieLink {
    pub current_gts: Option<f64>,
    pub current_width: Option<u32>,
    pub max_gts: Option<f64>,
    pub max_width: Option<u32>,
}

/// NVMe specifics: sysfs controller attributes and, as root, Identify Controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct NvmeDetails {
    /// Controller name (`nvme0`).
    pub controller: String,
    /// `pcie`, `tcp`, `rdma`, `fc`, `loop`.
    pub transport: Option<String>,
    pub state: Option<String>,
    pub pci_address: Option<String>,
    pub pci_vendor_id: Option<String>,
    pub pci_device_id: Option<String>,
    pub identify: Option<NvmeIdentify>,
}

/// Fields of the NVMe Identify Controller page that matter here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct NvmeIdentify {
    pub vendor_id: u16,
    pub serial: String,
    pub model: String,
    pub firmware: String,
    /// Warning composite temperature threshold, Kelvin (0 = not reported).
    pub wctemp_k: u16,
    /// Critical composite temperature threshold, Kelvin (0 = not reported).
    pub cctemp_k: u16,
    /// Host memory buffer preferred size, 4 KiB units.
    pub hmpre_4k: u32,
    /// Host memory buffer minimum size, 4 KiB units.
    pub hmmin_4k: u32,
    /// Total NVM capacity in bytes (saturated to u64).
    pub total_capacity_bytes: u64,
    /// ONCS bit 2: Dataset Management (deallocate = TRIM).
    pub dataset_management: bool,
    /// ONCS bit 3.
    pub write_zeroes: bool,
    /// VWC bit 0: a volatile write cache is present.
    pub volatile_write_cache: bool,
    /// APSTA, NPSS and the power state descriptors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<crate::nvme::power::NvmePower>,
}

/// SATA specifics from IDENTIFY DEVICE and the libata sysfs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AtaDetails {
    /// libata port / device (`ata3`, `dev3.0`).
    pub port: Option<String>,
    pub device: Option<String>,
    /// `trim` attribute: `unsupported`, `unqueued`, `queued`, `forced_unqueued`.
    pub trim_mode: Option<String>,
    /// IDENTIFY word 69 bit 14.
    pub deterministic_read_after_trim: Option<bool>,
}

/// USB attachment details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UsbDetails {
    /// `uas` or `usb-storage`.
    pub driver: Option<String>,
    /// `idVendor`/`idProduct` as sysfs writes them (`04e8`, `61f5`).
    pub vendor_id: Option<String>,
    pub product_id: Option<String>,
    pub manufacturer: Option<String>,
    pub product: Option<String>,
    /// Negotiated USB speed in Mb/s (`speed` attribute: 480, 5000, 10000).
    pub speed_mbps: Option<u32>,
    /// The SCSI INQUIRY revision, which the bridge answers: the bridge's firmware, not the
    /// drive's (a Samsung T7 shows `0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge_revision: Option<String>,
    /// `bcdDevice`: the bridge's release number (`0114`), which the kernel's quirk tables
    /// (`unusual_uas.h`, `unusual_devs.h`) match in ranges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bcd_device: Option<String>,
    /// Some alternate setting of the device's interfaces is mass storage over UAS (protocol
    /// 0x62), read from the raw `descriptors`: with driver `usb-storage` that means UAS was
    /// offered and turned off, by the kernel's quirk list or by `usb-storage.quirks=`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uas_offered: Option<bool>,
    /// The flags `usb-storage.quirks=` gives this VID:PID (`u` = ignore UAS), from
    /// `/sys/module/usb_storage/parameters/quirks`; `None` when it names no flag for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quirks_parameter: Option<String>,
    /// The disk's `scsi_disk/*/provisioning_mode`: `full` means the kernel sends no UNMAP
    /// (TRIM) through the bridge; `unmap` or `writesame_16` that it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_mode: Option<String>,
}

/// Health data from the NVMe SMART/Health log or smartctl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Health {
    /// `nvme-smart-log` or `smartctl`.
    pub source: HealthSource,
    /// smartctl's overall `smart_status.passed`.
    pub passed: Option<bool>,
    /// NVMe critical warning bit field (bit0 spare, bit1 temperature, bit2 reliability,
    /// bit3 read-only, bit4 volatile backup).
    pub critical_warning: Option<u8>,
    pub available_spare_pct: Option<u8>,
    pub available_spare_threshold_pct: Option<u8>,
    /// May exceed 100.
    pub percentage_used: Option<u8>,
    pub media_errors: Option<u64>,
    pub data_units_written: Option<u64>,
    /// Host writes in bytes (NVMe data units x 512,000; ATA LBAs written x 512 when known).
    pub bytes_written: Option<u64>,
    pub power_on_hours: Option<u64>,
    pub unsafe_shutdowns: Option<u64>,
    /// Minutes above the warning composite temperature.
    pub warning_temp_minutes: Option<u32>,
    /// Minutes above the critical composite temperature.
    pub critical_temp_minutes: Option<u32>,
    /// Thermal management temperature 1 / 2 transition counts (throttling events).
    pub thermal_throttle_t1_transitions: Option<u32>,
    pub thermal_throttle_t2_transitions: Option<u32>,
    /// ATA: reallocated sectors (attribute 5), pending (197), offline uncorrectable (198).
    pub reallocated_sectors: Option<u64>,
    pub pending_sectors: Option<u64>,
    pub uncorrectable_sectors: Option<u64>,
    /// smartctl exit status bits, decoded (`disk failing`, `attributes at threshold`, ...).
    pub smartctl_status: Vec<String>,
    /// ATA attribute 199: interface CRC errors, counted on the link rather than the media; a
    /// rising count means a bad SATA cable or backplane and causes link downshifts.
    #[serde(default)]
    pub crc_errors: Option<u64>,
    /// ATA attribute 187: errors the drive could not correct and reported to the host.
    #[serde(default)]
    pub reported_uncorrectable: Option<u64>,
}

/// DMI identity and what it says about the hosting platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Platform {
    pub sys_vendor: Option<String>,
    pub product_name: Option<String>,
    pub board_vendor: Option<String>,
    pub board_name: Option<String>,
    pub bios_vendor: Option<String>,
    /// DMI `bios_version`: some hosts (Netcup) tell their products apart only here.
    #[serde(default)]
    pub bios_version: Option<String>,
    /// Hypervisor or cloud recognised from DMI and drive models: `aws`, `gcp`, `azure`,
    /// `hetzner`, `ovh` (a VPS, or a dedicated server: then `virtualized` is not forced),
    /// `netcup`, `digitalocean`, `kvm`, `vmware`, `xen`, ... Never `contabo`: a Contabo VPS
    /// reports plain QEMU, so it is `kvm`.
    pub cloud: Option<String>,
    /// True when the drives are virtual (virtio, xen, cloud block storage).
    pub virtualized: Option<bool>,
    /// `/proc/device-tree/model` of a device-tree board (`Raspberry Pi 5 Model B Rev 1.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_model: Option<String>,
}

/// Whether an io_uring benchmark (and an io_uring client) can run here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct IoUringStatus {
    /// `None` when it could not be told (replayed snapshot without the sysctl).
    pub available: Option<bool>,
    /// `kernel.io_uring_disabled`: 0 all, 1 privileged only, 2 nobody. `None` when absent.
    pub sysctl_disabled: Option<u8>,
    /// Why it is unavailable (`io_uring_setup: EPERM (Docker seccomp?)`).
    pub reason: Option<String>,
}

/// A fact that exists but could not be read in this run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unavailable {
    /// What is missing (`NVMe SMART log (nvme0)`).
    pub fact: String,
    /// Why (`needs root`, `replayed root: no ioctls or external programs`).
    pub reason: UnavailableReason,
}
