//! Writes kernel-accurate sysfs/procfs/etc trees into a directory, for tests and the binary's
//! end-to-end tests (feature `fixtures`).
//!
//! The layout follows what the kernel creates: devices live under `/sys/devices/pci.../`,
//! `/sys/block`, `/sys/class/*` and `/sys/dev/block` hold RELATIVE symlinks into it, every
//! attribute ends with a newline, NVMe strings are space padded to their Identify widths, and
//! ATA IDENTIFY dumps are 32 lines of eight `%04x` words built from structured values.
//!
//! Every scenario mounts something at `/var/lib/ethereum` (or a parent) unless its
//! [`Scenario::probe_path`] says otherwise.

use std::fs;
use std::io;
use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};

use crate::ata::{encode_identify_text, IdentifyBuilder};
use crate::vpd::encode_block_characteristics;

/// The path every regular scenario is probed at.
pub const DATADIR: &str = "/var/lib/ethereum";

/// A named scenario: how to build it and which path to probe in it.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    pub name: &'static str,
    pub probe_path: &'static str,
    pub build: fn(&Path) -> io::Result<()>,
}

/// Every scenario, regular ones first, then the hostile trees.
pub const SCENARIOS: &[Scenario] = &[
    scenario("nvme_degraded_pcie_link", nvme_degraded_pcie_link),
    scenario("nvme_with_hmb", nvme_with_hmb),
    scenario("sata_ahci", sata_ahci),
    scenario("sata_raid_mode_trim_blocked", sata_raid_mode_trim_blocked),
    scenario("sata_ide_mode", sata_ide_mode),
    scenario("usb_uas", usb_uas),
    scenario("usb_sata_bridge_cut_model", usb_sata_bridge_cut_model),
    scenario("hdd", hdd),
    scenario("lvm_on_partition", lvm_on_partition),
    scenario("md_raid1", md_raid1),
    scenario("dm_crypt", dm_crypt),
    scenario("virtio_vps", virtio_vps),
    scenario("netcup_rs", netcup_rs),
    scenario("aws_ebs", aws_ebs),
    scenario("btrfs_two_devices", btrfs_two_devices),
    scenario("zfs_dataset", zfs_dataset),
    scenario("datadir_symlink", datadir_symlink),
    scenario("nvme_behind_vmd", nvme_behind_vmd),
    scenario("sas_multipath", sas_multipath),
    scenario("docker_overlay", docker_overlay),
    scenario(
        "qemu_sata_ssd_rotation_unreported",
        qemu_sata_ssd_rotation_unreported,
    ),
    scenario("nfs4_nas", nfs4_nas),
    scenario("cifs_nas", cifs_nas),
    scenario("cephfs", cephfs),
    scenario("glusterfs", glusterfs),
    scenario("vm_9p_host_share", vm_9p_host_share),
    scenario("vm_virtiofs_host_share", vm_virtiofs_host_share),
    scenario("hostile_missing_attributes", hostile_missing_attributes),
    scenario("hostile_empty_attributes", hostile_empty_attributes),
    scenario("hostile_non_utf8", hostile_non_utf8),
    scenario("hostile_huge_model", hostile_huge_model),
    scenario("hostile_symlink_loops", hostile_symlink_loops),
    scenario("hostile_symlink_outside_root", hostile_symlink_outside_root),
    Scenario {
        name: "hostile_mountinfo_escapes",
        probe_path: "/var/lib/eth node/chaindata",
        build: hostile_mountinfo_escapes,
    },
    scenario("hostile_garbage_identify", hostile_garbage_identify),
];

const fn scenario(name: &'static str, build: fn(&Path) -> io::Result<()>) -> Scenario {
    Scenario {
        name,
        probe_path: DATADIR,
        build,
    }
}

/// Looks a scenario up by name.
pub fn scenario_named(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|scenario| scenario.name == name)
}

/// A tree under construction. Paths given to it are absolute paths inside the tree.
#[derive(Debug, Clone)]
pub struct FixtureTree {
    base: PathBuf,
}

impl FixtureTree {
    pub fn new(dir: &Path) -> io::Result<FixtureTree> {
        fs::create_dir_all(dir)?;
        Ok(FixtureTree {
            base: dir.to_path_buf(),
        })
    }

    pub fn base(&self) -> &Path {
        &self.base
    }

    fn host(&self, path: &str) -> PathBuf {
        self.base.join(path.trim_start_matches('/'))
    }

    pub fn mkdir(&self, path: &str) -> io::Result<()> {
        fs::create_dir_all(self.host(path))
    }

    /// Writes raw bytes, creating parent directories.
    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) -> io::Result<()> {
        let host = self.host(path);
        if let Some(parent) = host.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(host, content)
    }

    /// Writes a sysfs attribute: the value plus the kernel's trailing newline.
    pub fn attr(&self, path: &str, value: impl std::fmt::Display) -> io::Result<()> {
        self.write(path, format!("{value}\n"))
    }

    pub fn remove(&self, path: &str) -> io::Result<()> {
        let host = self.host(path);
        match fs::symlink_metadata(&host) {
            Ok(metadata) if metadata.is_dir() => fs::remove_dir_all(host),
            Ok(_) => fs::remove_file(host),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(err),
        }
    }

    /// A symlink at `link` pointing to in-tree `target`, written relative the way sysfs does
    /// (`../../devices/pci0000:00/...`).
    pub fn link(&self, link: &str, target: &str) -> io::Result<()> {
        let link_dir = Path::new(link).parent().unwrap_or(Path::new("/"));
        let relative = relative_path(link_dir, Path::new(target));
        self.raw_link(link, &relative.to_string_lossy())
    }

    /// A symlink with exactly this target text (absolute, escaping, looping...).
    pub fn raw_link(&self, link: &str, target: &str) -> io::Result<()> {
        let host = self.host(link);
        if let Some(parent) = host.parent() {
            fs::create_dir_all(parent)?;
        }
        if fs::symlink_metadata(&host).is_ok() {
            fs::remove_file(&host)?;
        }
        symlink(target, host)
    }

    /// Registers block device `name` at sysfs directory `dir`: `dev`, `/sys/class/block`,
    /// `/sys/dev/block/MAJ:MIN` and, for whole disks, `/sys/block`.
    pub fn block_device(
        &self,
        dir: &str,
        name: &str,
        major: u32,
        minor: u32,
        whole_disk: bool,
    ) -> io::Result<()> {
        self.attr(&format!("{dir}/dev"), format!("{major}:{minor}"))?;
        self.attr(
            &format!("{dir}/uevent"),
            format!(
                "MAJOR={major}\nMINOR={minor}\nDEVNAME={name}\nDEVTYPE={}",
                if whole_disk { "disk" } else { "partition" }
            ),
        )?;
        self.mkdir(&format!("{dir}/holders"))?;
        self.link(&format!("/sys/class/block/{name}"), dir)?;
        self.link(&format!("/sys/dev/block/{major}:{minor}"), dir)?;
        if whole_disk {
            self.mkdir(&format!("{dir}/slaves"))?;
            self.link(&format!("/sys/block/{name}"), dir)?;
        }
        Ok(())
    }

    /// A whole disk with its request queue.
    pub fn disk(&self, dir: &str, disk: &DiskSpec) -> io::Result<()> {
        self.block_device(dir, &disk.name, disk.major, disk.minor, true)?;
        self.attr(&format!("{dir}/size"), disk.sectors)?;
        self.attr(&format!("{dir}/removable"), 0)?;
        self.attr(&format!("{dir}/ro"), 0)?;
        let queue = &disk.queue;
        let q = |attr: &str| format!("{dir}/queue/{attr}");
        self.attr(&q("rotational"), u8::from(queue.rotational))?;
        self.attr(&q("logical_block_size"), queue.logical_block_size)?;
        self.attr(&q("physical_block_size"), queue.physical_block_size)?;
        self.attr(&q("hw_sector_size"), queue.logical_block_size)?;
        self.attr(&q("scheduler"), queue.scheduler)?;
        self.attr(&q("write_cache"), queue.write_cache)?;
        self.attr(&q("discard_max_bytes"), queue.discard_max_bytes)?;
        self.attr(&q("discard_max_hw_bytes"), queue.discard_max_hw_bytes)?;
        self.attr(
            &q("discard_granularity"),
            if queue.discard_max_hw_bytes > 0 {
                queue.physical_block_size
            } else {
                0
            },
        )?;
        Ok(())
    }

    /// Partition `number` of the disk at `disk_dir`; returns its directory.
    // One argument per attribute the kernel writes; a spec struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub fn partition(
        &self,
        disk_dir: &str,
        disk_name: &str,
        number: u32,
        major: u32,
        minor: u32,
        start: u64,
        sectors: u64,
    ) -> io::Result<String> {
        let separator = if disk_name.ends_with(|c: char| c.is_ascii_digit()) {
            "p"
        } else {
            ""
        };
        let name = format!("{disk_name}{separator}{number}");
        let dir = format!("{disk_dir}/{name}");
        self.block_device(&dir, &name, major, minor, false)?;
        self.attr(&format!("{dir}/partition"), number)?;
        self.attr(&format!("{dir}/start"), start)?;
        self.attr(&format!("{dir}/size"), sectors)?;
        Ok(dir)
    }

    /// A device-mapper device `dm-N` over `lower` (directories of the lower devices).
    pub fn dm(
        &self,
        number: u32,
        name: &str,
        uuid: &str,
        lower: &[&str],
        sectors: u64,
        discard_max_bytes: u64,
    ) -> io::Result<String> {
        let kernel_name = format!("dm-{number}");
        let dir = format!("/sys/devices/virtual/block/{kernel_name}");
        self.stacked(
            &dir,
            &kernel_name,
            253,
            number,
            lower,
            sectors,
            discard_max_bytes,
        )?;
        self.attr(&format!("{dir}/dm/name"), name)?;
        self.attr(&format!("{dir}/dm/uuid"), uuid)?;
        self.attr(&format!("{dir}/dm/suspended"), 0)?;
        self.link(
            &format!("/dev/mapper/{name}"),
            &format!("/dev/{kernel_name}"),
        )?;
        self.write(&format!("/dev/{kernel_name}"), "")?;
        Ok(dir)
    }

    /// An md array `mdN` over `lower`.
    pub fn md(
        &self,
        number: u32,
        level: &str,
        lower: &[&str],
        sectors: u64,
        discard_max_bytes: u64,
    ) -> io::Result<String> {
        let kernel_name = format!("md{number}");
        let dir = format!("/sys/devices/virtual/block/{kernel_name}");
        self.stacked(
            &dir,
            &kernel_name,
            9,
            number,
            lower,
            sectors,
            discard_max_bytes,
        )?;
        self.attr(&format!("{dir}/md/level"), level)?;
        self.attr(&format!("{dir}/md/raid_disks"), lower.len())?;
        self.attr(&format!("{dir}/md/array_state"), "clean")?;
        for (index, lower_dir) in lower.iter().enumerate() {
            let lower_name = leaf(lower_dir);
            self.link(&format!("{dir}/md/dev-{lower_name}/block"), lower_dir)?;
            self.attr(&format!("{dir}/md/dev-{lower_name}/slot"), index)?;
        }
        Ok(dir)
    }

    #[allow(clippy::too_many_arguments)]
    fn stacked(
        &self,
        dir: &str,
        name: &str,
        major: u32,
        minor: u32,
        lower: &[&str],
        sectors: u64,
        discard_max_bytes: u64,
    ) -> io::Result<()> {
        self.disk(
            dir,
            &DiskSpec {
                name: name.to_string(),
                major,
                minor,
                sectors,
                queue: QueueSpec {
                    rotational: false,
                    scheduler: "none",
                    discard_max_bytes,
                    discard_max_hw_bytes: discard_max_bytes,
                    ..QueueSpec::ssd()
                },
            },
        )?;
        for lower_dir in lower {
            let lower_name = leaf(lower_dir);
            self.link(&format!("{dir}/slaves/{lower_name}"), lower_dir)?;
            self.link(&format!("{lower_dir}/holders/{name}"), dir)?;
        }
        Ok(())
    }

    /// A PCI function with class, ids, bound driver and (for PCIe) link attributes.
    pub fn pci_function(&self, dir: &str, function: &PciSpec) -> io::Result<()> {
        self.attr(&format!("{dir}/class"), format!("0x{:06x}", function.class))?;
        self.attr(
            &format!("{dir}/vendor"),
            format!("0x{:04x}", function.vendor),
        )?;
        self.attr(
            &format!("{dir}/device"),
            format!("0x{:04x}", function.device),
        )?;
        let driver_dir = format!("/sys/bus/pci/drivers/{}", function.driver);
        self.mkdir(&driver_dir)?;
        self.link(&format!("{dir}/driver"), &driver_dir)?;
        self.link(&format!("{driver_dir}/{}", leaf(dir)), dir)?;
        if let Some(link) = &function.link {
            self.attr(&format!("{dir}/current_link_speed"), link.current_speed)?;
            self.attr(&format!("{dir}/current_link_width"), link.current_width)?;
            self.attr(&format!("{dir}/max_link_speed"), link.max_speed)?;
            self.attr(&format!("{dir}/max_link_width"), link.max_width)?;
        }
        Ok(())
    }

    /// An NVMe controller with one namespace (`nvmeXn1`) at `pci_dir`; returns the
    /// namespace directory.
    pub fn nvme(&self, pci_dir: &str, pci: &PciSpec, nvme: &NvmeSpec) -> io::Result<String> {
        self.pci_function(pci_dir, pci)?;
        let controller = format!("nvme{}", nvme.controller);
        let controller_dir = format!("{pci_dir}/nvme/{controller}");
        // Identify strings are fixed-width and space padded; older kernels print the padding.
        self.attr(
            &format!("{controller_dir}/model"),
            format!("{:<40}", nvme.model),
        )?;
        self.attr(
            &format!("{controller_dir}/serial"),
            format!("{:<20}", nvme.serial),
        )?;
        self.attr(
            &format!("{controller_dir}/firmware_rev"),
            format!("{:<8}", nvme.firmware),
        )?;
        self.attr(&format!("{controller_dir}/transport"), "pcie")?;
        self.attr(&format!("{controller_dir}/state"), "live")?;
        self.attr(&format!("{controller_dir}/address"), leaf(pci_dir))?;
        self.attr(&format!("{controller_dir}/cntlid"), 1)?;
        self.attr(
            &format!("{controller_dir}/dev"),
            format!("240:{}", nvme.controller),
        )?;
        if let Some(enabled) = nvme.hmb {
            self.attr(&format!("{controller_dir}/hmb"), u8::from(enabled))?;
        }
        self.link(&format!("{controller_dir}/device"), pci_dir)?;
        self.link(&format!("/sys/class/nvme/{controller}"), &controller_dir)?;
        if let Some(millidegrees) = nvme.temperature_millidegrees {
            // Since 5.12 the hwmon device hangs off the controller.
            let hwmon = format!("hwmon{}", nvme.controller + 1);
            let hwmon_dir = format!("{controller_dir}/{hwmon}");
            self.attr(&format!("{hwmon_dir}/name"), "nvme")?;
            self.attr(&format!("{hwmon_dir}/temp1_input"), millidegrees)?;
            self.attr(&format!("{hwmon_dir}/temp1_label"), "Composite")?;
            self.attr(&format!("{hwmon_dir}/temp1_crit"), 84850)?;
            self.attr(&format!("{hwmon_dir}/temp1_max"), 81850)?;
            self.link(&format!("{hwmon_dir}/device"), &controller_dir)?;
            self.link(&format!("/sys/class/hwmon/{hwmon}"), &hwmon_dir)?;
        }
        let namespace = format!("{controller}n1");
        let namespace_dir = format!("{controller_dir}/{namespace}");
        self.disk(
            &namespace_dir,
            &DiskSpec {
                name: namespace,
                major: 259,
                minor: nvme.namespace_minor,
                sectors: nvme.sectors,
                queue: nvme.queue.clone(),
            },
        )?;
        self.link(&format!("{namespace_dir}/device"), &controller_dir)?;
        self.attr(&format!("{namespace_dir}/nsid"), 1)?;
        Ok(namespace_dir)
    }

    /// A SATA disk on libata port `ataN` under the controller at `pci_dir`; returns the disk
    /// directory (`.../ataN/hostM/targetM:0:0/M:0:0:0/block/sdX`).
    pub fn sata(&self, pci_dir: &str, pci: &PciSpec, sata: &SataSpec) -> io::Result<String> {
        self.pci_function(pci_dir, pci)?;
        let port = sata.port;
        let host = port - 1;
        let port_dir = format!("{pci_dir}/ata{port}");
        let link_dir = format!("{port_dir}/link{port}");
        let device_dir = format!("{link_dir}/dev{port}.0");
        self.attr(&format!("{port_dir}/ata_port/ata{port}/port_no"), port)?;
        self.link(
            &format!("/sys/class/ata_port/ata{port}"),
            &format!("{port_dir}/ata_port/ata{port}"),
        )?;

        let link_class = format!("{link_dir}/ata_link/link{port}");
        self.attr(&format!("{link_class}/sata_spd"), sata.link_speed)?;
        self.attr(&format!("{link_class}/hw_sata_spd_limit"), "6.0 Gbps")?;
        self.attr(&format!("{link_class}/sata_spd_limit"), "<unknown>")?;
        self.link(&format!("/sys/class/ata_link/link{port}"), &link_class)?;

        let device_class = format!("{device_dir}/ata_device/dev{port}.0");
        let words = sata.identify.build();
        self.write(&format!("{device_class}/id"), encode_identify_text(&words))?;
        self.attr(&format!("{device_class}/trim"), sata.trim_mode)?;
        self.attr(&format!("{device_class}/class"), "ata")?;
        self.link(&format!("/sys/class/ata_device/dev{port}.0"), &device_class)?;

        let scsi_dir = format!("{port_dir}/host{host}/target{host}:0:0/{host}:0:0:0");
        self.scsi_device(&scsi_dir, "ATA", &sata.scsi_model, &sata.scsi_rev)?;
        // libata answers the block characteristics VPD page from IDENTIFY word 217.
        self.write(
            &format!("{scsi_dir}/vpd_pgb1"),
            encode_block_characteristics(words[217], true),
        )?;
        if let Some(millidegrees) = sata.drivetemp_millidegrees {
            let hwmon = format!("hwmon{}", 10 + port);
            let hwmon_dir = format!("{scsi_dir}/hwmon/{hwmon}");
            self.attr(&format!("{hwmon_dir}/name"), "drivetemp")?;
            self.attr(&format!("{hwmon_dir}/temp1_input"), millidegrees)?;
            self.link(&format!("{hwmon_dir}/device"), &scsi_dir)?;
            self.link(&format!("/sys/class/hwmon/{hwmon}"), &hwmon_dir)?;
        }
        let disk_dir = format!("{scsi_dir}/block/{}", sata.disk.name);
        self.disk(&disk_dir, &sata.disk)?;
        self.link(&format!("{disk_dir}/device"), &scsi_dir)?;
        Ok(disk_dir)
    }

    /// The SCSI view libata, uas and usb-storage create (`vendor` 8, `model` 16, `rev` 4
    /// characters, space padded).
    pub fn scsi_device(&self, dir: &str, vendor: &str, model: &str, rev: &str) -> io::Result<()> {
        self.attr(&format!("{dir}/vendor"), format!("{vendor:<8}"))?;
        self.attr(&format!("{dir}/model"), format!("{model:<16}"))?;
        self.attr(&format!("{dir}/rev"), format!("{rev:<4}"))?;
        self.attr(&format!("{dir}/type"), 0)?;
        self.attr(&format!("{dir}/state"), "running")
    }

    /// `/proc/self` → `/proc/<pid>` with this mountinfo.
    pub fn mountinfo(&self, lines: &[&str]) -> io::Result<()> {
        let mut text = lines.join("\n");
        text.push('\n');
        self.write("/proc/4242/mountinfo", text)?;
        self.raw_link("/proc/self", "4242")
    }

    /// `/etc/fstab` as the installer or the user wrote it.
    pub fn fstab(&self, text: &str) -> io::Result<()> {
        self.write("/etc/fstab", text)
    }

    /// Kernel release and io_uring sysctl.
    pub fn kernel(&self, release: &str, io_uring_disabled: Option<u8>) -> io::Result<()> {
        self.attr("/proc/sys/kernel/osrelease", release)?;
        if let Some(value) = io_uring_disabled {
            self.attr("/proc/sys/kernel/io_uring_disabled", value)?;
        }
        Ok(())
    }

    /// `/sys/class/dmi/id/*` (a link to `/sys/devices/virtual/dmi/id` on real machines).
    pub fn dmi(
        &self,
        sys_vendor: &str,
        product_name: &str,
        board_vendor: &str,
        board_name: &str,
        bios_vendor: &str,
    ) -> io::Result<()> {
        let dir = "/sys/devices/virtual/dmi/id";
        self.attr(&format!("{dir}/sys_vendor"), sys_vendor)?;
        self.attr(&format!("{dir}/product_name"), product_name)?;
        self.attr(&format!("{dir}/board_vendor"), board_vendor)?;
        self.attr(&format!("{dir}/board_name"), board_name)?;
        self.attr(&format!("{dir}/bios_vendor"), bios_vendor)?;
        self.link("/sys/class/dmi/id", dir)
    }

    /// systemd config with `fstrim.timer` enabled or not.
    pub fn systemd(&self, fstrim_timer_enabled: bool) -> io::Result<()> {
        self.attr(
            "/usr/lib/systemd/system/fstrim.timer",
            "[Timer]\nOnCalendar=weekly",
        )?;
        self.mkdir("/etc/systemd/system/multi-user.target.wants")?;
        if fstrim_timer_enabled {
            // systemctl enable writes an absolute link.
            self.raw_link(
                "/etc/systemd/system/timers.target.wants/fstrim.timer",
                "/usr/lib/systemd/system/fstrim.timer",
            )?;
        }
        Ok(())
    }

    /// The file a snapshot writes with statvfs figures (see docs/json.md).
    pub fn statvfs(&self, mount_point: &str, free_bytes: u64, total_bytes: u64) -> io::Result<()> {
        self.write(
            "/.nodecheck/statvfs.json",
            format!(
                "{{\"{mount_point}\": {{\"free_bytes\": {free_bytes}, \"total_bytes\": {total_bytes}}}}}\n"
            ),
        )
    }
}

/// Request-queue attributes of a disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSpec {
    pub rotational: bool,
    pub logical_block_size: u32,
    pub physical_block_size: u32,
    /// As sysfs writes it: `[none] mq-deadline`.
    pub scheduler: &'static str,
    pub write_cache: &'static str,
    pub discard_max_bytes: u64,
    pub discard_max_hw_bytes: u64,
}

impl QueueSpec {
    pub fn nvme() -> QueueSpec {
        QueueSpec {
            rotational: false,
            logical_block_size: 512,
            physical_block_size: 512,
            scheduler: "[none] mq-deadline",
            write_cache: "write back",
            discard_max_bytes: 2_199_023_255_040,
            discard_max_hw_bytes: 2_199_023_255_040,
        }
    }

    pub fn ssd() -> QueueSpec {
        QueueSpec {
            rotational: false,
            logical_block_size: 512,
            physical_block_size: 512,
            scheduler: "[mq-deadline] none",
            write_cache: "write back",
            discard_max_bytes: 2_147_450_880,
            discard_max_hw_bytes: 2_147_450_880,
        }
    }

    pub fn hdd() -> QueueSpec {
        QueueSpec {
            rotational: true,
            logical_block_size: 512,
            physical_block_size: 4096,
            scheduler: "[mq-deadline] none",
            write_cache: "write back",
            discard_max_bytes: 0,
            discard_max_hw_bytes: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskSpec {
    pub name: String,
    pub major: u32,
    pub minor: u32,
    /// `size`: 512-byte sectors.
    pub sectors: u64,
    pub queue: QueueSpec,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcieLinkSpec {
    pub current_speed: &'static str,
    pub current_width: u32,
    pub max_speed: &'static str,
    pub max_width: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciSpec {
    pub class: u32,
    pub vendor: u16,
    pub device: u16,
    pub driver: &'static str,
    pub link: Option<PcieLinkSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvmeSpec {
    pub controller: u32,
    pub namespace_minor: u32,
    pub model: &'static str,
    pub serial: &'static str,
    pub firmware: &'static str,
    pub sectors: u64,
    /// `Some` when the controller asks for a Host Memory Buffer (attribute present).
    pub hmb: Option<bool>,
    pub temperature_millidegrees: Option<i64>,
    pub queue: QueueSpec,
}

#[derive(Debug, Clone)]
pub struct SataSpec {
    /// libata port number N of `ataN` (host N-1).
    pub port: u32,
    pub disk: DiskSpec,
    pub identify: IdentifyBuilder,
    /// `trim` attribute: `unsupported`, `unqueued`, `queued`, `forced_unqueued`.
    pub trim_mode: &'static str,
    /// `sata_spd`: `6.0 Gbps`.
    pub link_speed: &'static str,
    /// SCSI `model` (first 16 characters of the ATA model) and `rev`.
    pub scsi_model: String,
    pub scsi_rev: String,
    pub drivetemp_millidegrees: Option<i64>,
}

/// Sector count of a drive of `bytes` (rounded down to whole sectors).
const fn sectors(bytes: u64) -> u64 {
    bytes / 512
}

fn leaf(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `to` relative to directory `from`, both absolute and free of `..`.
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to_components: Vec<Component> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_components)
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for component in &to_components[common..] {
        relative.push(component.as_os_str());
    }
    relative
}

/// What Debian's installer writes: the root by UUID, spaces for alignment, no datadir line.
const DEBIAN_INSTALLER_FSTAB: &str = "\
# /etc/fstab: static file system information.
#
# <file system> <mount point>   <type>  <options>       <dump>  <pass>
# / was on /dev/sda1 during installation
UUID=5b3c9d8e-2f41-4a7b-9c1d-0e6f7a8b9c0d /               ext4    errors=remount-ro 0       1
/swapfile                                 none            swap    sw              0       0
";

const PCH_ROOT_PORT: &str = "/sys/devices/pci0000:00/0000:00:1d.0";
const AHCI_DIR: &str = "/sys/devices/pci0000:00/0000:00:17.0";

fn standard_mounts(
    root_dev: &str,
    root_source: &str,
    data: Option<(&str, &str, &str, &str, &str)>,
) -> Vec<String> {
    let mut lines = vec![
        format!("26 1 {root_dev} / / rw,relatime shared:1 - ext4 {root_source} rw,errors=remount-ro"),
        "22 26 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw".to_string(),
        "23 26 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw".to_string(),
        "24 26 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=32806344k,nr_inodes=8201586,mode=755,inode64".to_string(),
        "25 26 0:23 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=6568640k,mode=755,inode64".to_string(),
    ];
    if let Some((dev, fs_type, source, mount_options, super_options)) = data {
        lines.push(format!(
            "40 26 {dev} / {DATADIR} {mount_options} shared:20 - {fs_type} {source} {super_options}"
        ));
    }
    lines
}

fn write_mounts(tree: &FixtureTree, lines: &[String]) -> io::Result<()> {
    let borrowed: Vec<&str> = lines.iter().map(String::as_str).collect();
    tree.mountinfo(&borrowed)
}

fn desktop(tree: &FixtureTree) -> io::Result<()> {
    tree.kernel("6.8.0-45-generic", Some(0))?;
    tree.dmi(
        "ASUS",
        "System Product Name",
        "ASUSTeK COMPUTER INC.",
        "PRIME B550M-A",
        "American Megatrends Inc.",
    )
}

fn samsung_980_pro(controller: u32, namespace_minor: u32) -> NvmeSpec {
    NvmeSpec {
        controller,
        namespace_minor,
        model: "Samsung SSD 980 PRO 2TB",
        serial: "S6B0NL0T412345K",
        firmware: "5B2QGXA7",
        sectors: 3_907_029_168,
        hmb: None,
        temperature_millidegrees: Some(41_850),
        queue: QueueSpec::nvme(),
    }
}

fn samsung_pci(link: PcieLinkSpec) -> PciSpec {
    PciSpec {
        class: 0x010802,
        vendor: 0x144d,
        device: 0xa80a,
        driver: "nvme",
        link: Some(link),
    }
}

/// Samsung 980 PRO (PCIe 4.0 x4) in a chipset slot running at 8 GT/s x2.
pub fn nvme_degraded_pcie_link(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let pci_dir = format!("{PCH_ROOT_PORT}/0000:03:00.0");
    let namespace = tree.nvme(
        &pci_dir,
        &samsung_pci(PcieLinkSpec {
            current_speed: "8.0 GT/s PCIe",
            current_width: 2,
            max_speed: "16.0 GT/s PCIe",
            max_width: 4,
        }),
        &samsung_980_pro(0, 0),
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 1_048_576)?;
    tree.partition(&namespace, "nvme0n1", 2, 259, 2, 1_050_624, 3_905_976_320)?;
    write_mounts(&tree, &standard_mounts("259:2", "/dev/nvme0n1p2", None))?;
    tree.statvfs("/", 1_100_000_000_000, 1_967_317_549_056)
}

/// Kingston NV2: DRAM-less, asks for a Host Memory Buffer (`hmb` attribute present).
pub fn nvme_with_hmb(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let pci_dir = "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0";
    let namespace = tree.nvme(
        pci_dir,
        &PciSpec {
            class: 0x010802,
            vendor: 0x2646,
            device: 0x5019,
            driver: "nvme",
            link: Some(PcieLinkSpec {
                current_speed: "16.0 GT/s PCIe",
                current_width: 4,
                max_speed: "16.0 GT/s PCIe",
                max_width: 4,
            }),
        },
        &NvmeSpec {
            controller: 0,
            namespace_minor: 0,
            model: "KINGSTON SNV2S2000G",
            serial: "50026B7686B1A2C3",
            firmware: "SBK00104",
            sectors: 3_907_029_168,
            hmb: Some(true),
            temperature_millidegrees: Some(52_850),
            queue: QueueSpec::nvme(),
        },
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 3_907_026_944)?;
    write_mounts(&tree, &standard_mounts("259:1", "/dev/nvme0n1p1", None))
}

fn ahci_pci(class: u32, driver: &'static str) -> PciSpec {
    PciSpec {
        class,
        vendor: 0x8086,
        device: 0xa352,
        driver,
        link: None,
    }
}

fn crucial_mx500(port: u32, name: &str, minor: u32, serial: &str) -> SataSpec {
    SataSpec {
        port,
        disk: DiskSpec {
            name: name.to_string(),
            major: 8,
            minor,
            sectors: 3_907_029_168,
            queue: QueueSpec::ssd(),
        },
        identify: IdentifyBuilder::new()
            .model("CT2000MX500SSD1")
            .firmware("M3CR046")
            .serial(serial)
            .trim(true, true)
            .non_rotating()
            .sata_speeds(Some(6.0), Some(6.0))
            .capacity_sectors(3_907_029_168),
        trim_mode: "queued",
        link_speed: "6.0 Gbps",
        scsi_model: "CT2000MX500SSD1".to_string(),
        scsi_rev: "046".to_string(),
        drivetemp_millidegrees: Some(34_000),
    }
}

/// Crucial MX500 on an AHCI controller, TRIM through, drivetemp loaded.
pub fn sata_ahci(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(false)?;
    let disk = tree.sata(
        AHCI_DIR,
        &ahci_pci(0x010601, "ahci"),
        &crucial_mx500(3, "sda", 0, "2235E6A1B2C3"),
    )?;
    tree.partition(&disk, "sda", 1, 8, 1, 2048, 3_907_026_944)?;
    tree.fstab(DEBIAN_INSTALLER_FSTAB)?;
    write_mounts(&tree, &standard_mounts("8:1", "/dev/sda1", None))
}

/// Samsung 870 QVO behind an Intel controller in RAID mode (class 0x0104): the drive
/// supports TRIM, the controller passes no discard.
pub fn sata_raid_mode_trim_blocked(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let spec = SataSpec {
        port: 1,
        disk: DiskSpec {
            name: "sda".to_string(),
            major: 8,
            minor: 0,
            sectors: 1_953_525_168,
            queue: QueueSpec {
                discard_max_bytes: 0,
                discard_max_hw_bytes: 0,
                ..QueueSpec::ssd()
            },
        },
        identify: IdentifyBuilder::new()
            .model("Samsung SSD 870 QVO 1TB")
            .firmware("SVQ02B6Q")
            .serial("S5VSNG0NA12345B")
            .trim(true, true)
            .non_rotating()
            .sata_speeds(Some(6.0), Some(6.0))
            .capacity_sectors(1_953_525_168),
        trim_mode: "unsupported",
        link_speed: "6.0 Gbps",
        scsi_model: "Samsung SSD 870".to_string(),
        scsi_rev: "2B6Q".to_string(),
        drivetemp_millidegrees: None,
    };
    let disk = tree.sata(AHCI_DIR, &ahci_pci(0x010400, "ahci"), &spec)?;
    tree.partition(&disk, "sda", 1, 8, 1, 2048, 1_953_523_120)?;
    write_mounts(
        &tree,
        &standard_mounts(
            "8:1",
            "/dev/sda1",
            Some(("8:1", "ext4", "/dev/sda1", "rw,relatime", "rw")),
        ),
    )
}

/// Samsung 860 EVO on a controller left in legacy IDE mode (`ata_piix`, class 0x0101).
pub fn sata_ide_mode(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let spec = SataSpec {
        port: 1,
        disk: DiskSpec {
            name: "sda".to_string(),
            major: 8,
            minor: 0,
            sectors: 976_773_168,
            queue: QueueSpec::ssd(),
        },
        identify: IdentifyBuilder::new()
            .model("Samsung SSD 860 EVO 500GB")
            .firmware("RVT04B6Q")
            .serial("S3Z2NB0K123456A")
            .trim(true, true)
            .non_rotating()
            .sata_speeds(Some(6.0), Some(3.0))
            .capacity_sectors(976_773_168),
        trim_mode: "unqueued",
        link_speed: "3.0 Gbps",
        scsi_model: "Samsung SSD 860".to_string(),
        scsi_rev: "4B6Q".to_string(),
        drivetemp_millidegrees: None,
    };
    let disk = tree.sata(
        "/sys/devices/pci0000:00/0000:00:1f.2",
        &PciSpec {
            class: 0x01018f,
            vendor: 0x8086,
            device: 0x3a20,
            driver: "ata_piix",
            link: None,
        },
        &spec,
    )?;
    tree.partition(&disk, "sda", 1, 8, 1, 2048, 976_771_120)?;
    write_mounts(
        &tree,
        &standard_mounts(
            "8:1",
            "/dev/sda1",
            Some(("8:1", "ext4", "/dev/sda1", "rw,relatime", "rw,discard")),
        ),
    )
}

/// Samsung Portable SSD T5 on USB 3 through the `uas` driver.
pub fn usb_uas(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    // The USB drive is mounted by hand or by a mount unit: fstab only has the root.
    tree.fstab(DEBIAN_INSTALLER_FSTAB)?;
    // The system disk, so the USB drive is the second SCSI disk.
    let root_disk = tree.sata(
        AHCI_DIR,
        &ahci_pci(0x010601, "ahci"),
        &crucial_mx500(1, "sda", 0, "2235E6A1B2C3"),
    )?;
    tree.partition(&root_disk, "sda", 1, 8, 1, 2048, 3_907_026_944)?;

    let xhci = "/sys/devices/pci0000:00/0000:00:14.0";
    tree.pci_function(
        xhci,
        &PciSpec {
            class: 0x0c0330,
            vendor: 0x8086,
            device: 0xa36d,
            driver: "xhci_hcd",
            link: None,
        },
    )?;
    let usb_device = format!("{xhci}/usb2/2-1");
    tree.attr(&format!("{usb_device}/idVendor"), "04e8")?;
    tree.attr(&format!("{usb_device}/idProduct"), "61f5")?;
    tree.attr(&format!("{usb_device}/manufacturer"), "Samsung")?;
    tree.attr(&format!("{usb_device}/product"), "Portable SSD T5")?;
    tree.attr(&format!("{usb_device}/speed"), 5000)?;
    let interface = format!("{usb_device}/2-1:1.0");
    tree.attr(&format!("{interface}/bInterfaceClass"), "08")?;
    tree.attr(&format!("{interface}/bInterfaceProtocol"), "62")?;
    tree.mkdir("/sys/bus/usb/drivers/uas")?;
    tree.link(&format!("{interface}/driver"), "/sys/bus/usb/drivers/uas")?;
    let scsi_dir = format!("{interface}/host6/target6:0:0/6:0:0:0");
    tree.scsi_device(&scsi_dir, "Samsung", "Portable SSD T5", "0")?;
    let disk_dir = format!("{scsi_dir}/block/sdb");
    tree.disk(
        &disk_dir,
        &DiskSpec {
            name: "sdb".to_string(),
            major: 8,
            minor: 16,
            sectors: 1_953_525_168,
            queue: QueueSpec {
                discard_max_bytes: 0,
                discard_max_hw_bytes: 0,
                write_cache: "write through",
                ..QueueSpec::ssd()
            },
        },
    )?;
    tree.link(&format!("{disk_dir}/device"), &scsi_dir)?;
    tree.partition(&disk_dir, "sdb", 1, 8, 17, 2048, 1_953_523_120)?;
    write_mounts(
        &tree,
        &standard_mounts(
            "8:1",
            "/dev/sda1",
            Some(("8:17", "ext4", "/dev/sdb1", "rw,relatime", "rw")),
        ),
    )
}

/// A Samsung 870 EVO 2 TB in a USB 3 enclosure whose bridge (ASMedia ASM1153E, `uas`)
/// answers INQUIRY the way SAT says: vendor `ATA`, product the first 16 characters of the
/// ATA model. Linux sees `Samsung SSD 870 `, which the 870 QVO reports too; no `ata_device`
/// exists behind a bridge, so only smartctl's SAT pass-through reads the whole name.
pub fn usb_sata_bridge_cut_model(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let root_disk = tree.sata(
        AHCI_DIR,
        &ahci_pci(0x010601, "ahci"),
        &crucial_mx500(1, "sda", 0, "2235E6A1B2C3"),
    )?;
    tree.partition(&root_disk, "sda", 1, 8, 1, 2048, 3_907_026_944)?;

    let xhci = "/sys/devices/pci0000:00/0000:00:14.0";
    tree.pci_function(
        xhci,
        &PciSpec {
            class: 0x0c0330,
            vendor: 0x8086,
            device: 0xa36d,
            driver: "xhci_hcd",
            link: None,
        },
    )?;
    let usb_device = format!("{xhci}/usb2/2-2");
    tree.attr(&format!("{usb_device}/idVendor"), "174c")?;
    tree.attr(&format!("{usb_device}/idProduct"), "55aa")?;
    tree.attr(&format!("{usb_device}/manufacturer"), "ASMedia")?;
    tree.attr(&format!("{usb_device}/product"), "ASM1153E")?;
    tree.attr(&format!("{usb_device}/speed"), 5000)?;
    let interface = format!("{usb_device}/2-2:1.0");
    tree.attr(&format!("{interface}/bInterfaceClass"), "08")?;
    tree.attr(&format!("{interface}/bInterfaceProtocol"), "62")?;
    tree.mkdir("/sys/bus/usb/drivers/uas")?;
    tree.link(&format!("{interface}/driver"), "/sys/bus/usb/drivers/uas")?;
    let scsi_dir = format!("{interface}/host6/target6:0:0/6:0:0:0");
    tree.scsi_device(&scsi_dir, "ATA", "Samsung SSD 870 ", "2B6Q")?;
    let disk_dir = format!("{scsi_dir}/block/sdb");
    tree.disk(
        &disk_dir,
        &DiskSpec {
            name: "sdb".to_string(),
            major: 8,
            minor: 16,
            sectors: 3_907_029_168,
            queue: QueueSpec {
                write_cache: "write through",
                ..QueueSpec::ssd()
            },
        },
    )?;
    tree.link(&format!("{disk_dir}/device"), &scsi_dir)?;
    tree.partition(&disk_dir, "sdb", 1, 8, 17, 2048, 3_907_027_120)?;
    write_mounts(
        &tree,
        &standard_mounts(
            "8:1",
            "/dev/sda1",
            Some(("8:17", "ext4", "/dev/sdb1", "rw,noatime", "rw")),
        ),
    )
}

/// WD Red 2 TB (5400 rpm) on AHCI.
pub fn hdd(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let spec = SataSpec {
        port: 2,
        disk: DiskSpec {
            name: "sda".to_string(),
            major: 8,
            minor: 0,
            sectors: 3_907_029_168,
            queue: QueueSpec::hdd(),
        },
        identify: IdentifyBuilder::new()
            .model("WDC WD20EFRX-68EUZN0")
            .firmware("82.00A82")
            .serial("WD-WCC4M1KXY123")
            .trim(false, false)
            .rpm(5400)
            .sata_speeds(Some(6.0), Some(6.0))
            .capacity_sectors(3_907_029_168),
        trim_mode: "unsupported",
        link_speed: "6.0 Gbps",
        scsi_model: "WDC WD20EFRX-68E".to_string(),
        scsi_rev: "0A82".to_string(),
        drivetemp_millidegrees: Some(38_000),
    };
    let disk = tree.sata(AHCI_DIR, &ahci_pci(0x010601, "ahci"), &spec)?;
    tree.partition(&disk, "sda", 1, 8, 1, 2048, 3_907_026_944)?;
    write_mounts(
        &tree,
        &standard_mounts(
            "8:1",
            "/dev/sda1",
            Some(("8:1", "ext4", "/dev/sda1", "rw,relatime", "rw")),
        ),
    )
}

/// WD Black SN750 → partition 3 → LVM logical volume `vg0-ethereum`.
pub fn lvm_on_partition(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let pci_dir = format!("{PCH_ROOT_PORT}/0000:04:00.0");
    let namespace = tree.nvme(
        &pci_dir,
        &PciSpec {
            class: 0x010802,
            vendor: 0x15b7,
            device: 0x5006,
            driver: "nvme",
            link: Some(PcieLinkSpec {
                current_speed: "8.0 GT/s PCIe",
                current_width: 4,
                max_speed: "8.0 GT/s PCIe",
                max_width: 4,
            }),
        },
        &NvmeSpec {
            controller: 0,
            namespace_minor: 0,
            model: "WDS200T3X0C-00SJG0",
            serial: "20512E801234",
            firmware: "111110WD",
            sectors: 3_907_029_168,
            hmb: None,
            temperature_millidegrees: Some(39_850),
            queue: QueueSpec::nvme(),
        },
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 1_048_576)?;
    tree.partition(&namespace, "nvme0n1", 2, 259, 2, 1_050_624, 209_715_200)?;
    let p3 = tree.partition(&namespace, "nvme0n1", 3, 259, 3, 210_765_824, 3_696_261_120)?;
    tree.dm(
        0,
        "vg0-ethereum",
        "LVM-Qx7m3H1nB2cD4eF5gH6iJ7kL8mN9oP0qRaB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV",
        &[&p3],
        3_696_000_000,
        2_199_023_255_040,
    )?;
    write_mounts(
        &tree,
        &standard_mounts(
            "259:2",
            "/dev/nvme0n1p2",
            Some((
                "253:0",
                "ext4",
                "/dev/mapper/vg0-ethereum",
                "rw,noatime",
                "rw",
            )),
        ),
    )
}

/// Two Crucial MX500 → one partition each → md0 RAID1.
pub fn md_raid1(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let pci = ahci_pci(0x010601, "ahci");
    let sda = tree.sata(AHCI_DIR, &pci, &crucial_mx500(1, "sda", 0, "2235E6A1B2C3"))?;
    let sdb = tree.sata(AHCI_DIR, &pci, &crucial_mx500(2, "sdb", 16, "2235E6A1B2C4"))?;
    let sda1 = tree.partition(&sda, "sda", 1, 8, 1, 2048, 3_907_026_944)?;
    let sdb1 = tree.partition(&sdb, "sdb", 1, 8, 17, 2048, 3_907_026_944)?;
    tree.md(0, "raid1", &[&sdb1, &sda1], 3_906_762_752, 2_147_450_880)?;
    write_mounts(
        &tree,
        &standard_mounts(
            "9:0",
            "/dev/md0",
            Some(("9:0", "ext4", "/dev/md0", "rw,noatime", "rw,stripe=256")),
        ),
    )
}

/// Samsung 980 PRO → partition 2 → dm-crypt (LUKS2) opened without `allow-discards`.
pub fn dm_crypt(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let pci_dir = format!("{PCH_ROOT_PORT}/0000:03:00.0");
    let namespace = tree.nvme(
        &pci_dir,
        &samsung_pci(PcieLinkSpec {
            current_speed: "16.0 GT/s PCIe",
            current_width: 4,
            max_speed: "16.0 GT/s PCIe",
            max_width: 4,
        }),
        &samsung_980_pro(0, 0),
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 1_048_576)?;
    let p2 = tree.partition(&namespace, "nvme0n1", 2, 259, 2, 1_050_624, 3_905_976_320)?;
    tree.dm(
        0,
        "cryptdata",
        "CRYPT-LUKS2-4f1c2b9d8e7a4c3b9a1d2e3f4a5b6c7d-cryptdata",
        &[&p2],
        3_905_943_552,
        0,
    )?;
    write_mounts(
        &tree,
        &standard_mounts("253:0", "/dev/mapper/cryptdata", None),
    )
}

/// A Hetzner Cloud VPS: virtio-blk `vda`, DMI says Hetzner.
pub fn virtio_vps(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    tree.dmi("Hetzner", "vServer", "", "", "Hetzner")?;
    virtio_guest(&tree)
}

/// A Netcup root server: a KVM guest that names its product line only in the DMI BIOS version.
pub fn netcup_rs(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    tree.dmi("netcup", "KVM Server", "", "", "netcup")?;
    tree.attr("/sys/devices/virtual/dmi/id/bios_version", "RS 2000 G9")?;
    virtio_guest(&tree)
}

/// The storage of a typical KVM guest: one virtio disk, ext4 root on its first partition.
fn virtio_guest(tree: &FixtureTree) -> io::Result<()> {
    tree.kernel("6.1.0-26-amd64", Some(0))?;
    tree.systemd(true)?;
    let pci_dir = "/sys/devices/pci0000:00/0000:00:04.0";
    tree.pci_function(
        pci_dir,
        &PciSpec {
            class: 0x010000,
            vendor: 0x1af4,
            device: 0x1001,
            driver: "virtio-pci",
            link: None,
        },
    )?;
    let virtio = format!("{pci_dir}/virtio2");
    tree.attr(&format!("{virtio}/vendor"), "0x1af4")?;
    tree.attr(&format!("{virtio}/device"), "0x0002")?;
    tree.mkdir("/sys/bus/virtio/drivers/virtio_blk")?;
    tree.link(
        &format!("{virtio}/driver"),
        "/sys/bus/virtio/drivers/virtio_blk",
    )?;
    let disk_dir = format!("{virtio}/block/vda");
    tree.disk(
        &disk_dir,
        &DiskSpec {
            name: "vda".to_string(),
            major: 252,
            minor: 0,
            sectors: sectors(343_597_383_680),
            queue: QueueSpec {
                rotational: true,
                scheduler: "[none] mq-deadline",
                discard_max_bytes: 2_147_483_136,
                discard_max_hw_bytes: 2_147_483_136,
                ..QueueSpec::ssd()
            },
        },
    )?;
    tree.link(&format!("{disk_dir}/device"), &virtio)?;
    tree.attr(&format!("{disk_dir}/serial"), "")?;
    tree.partition(&disk_dir, "vda", 1, 252, 1, 2048, 671_086_592)?;
    write_mounts(tree, &standard_mounts("252:1", "/dev/vda1", None))?;
    tree.statvfs("/", 250_000_000_000, 337_000_000_000)
}

/// An EC2 instance: EBS root on nvme0n1, EBS gp3 data volume (xfs) on nvme1n1.
pub fn aws_ebs(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    tree.kernel("6.1.109-118.189.amzn2023.x86_64", Some(0))?;
    tree.dmi("Amazon EC2", "m6i.2xlarge", "Amazon EC2", "", "Amazon EC2")?;
    tree.systemd(false)?;
    let ebs_pci = |link_speed: &'static str| PciSpec {
        class: 0x010802,
        vendor: 0x1d0f,
        device: 0x8061,
        driver: "nvme",
        link: Some(PcieLinkSpec {
            current_speed: link_speed,
            current_width: 0,
            max_speed: link_speed,
            max_width: 0,
        }),
    };
    let ebs = |controller: u32, minor: u32, serial: &'static str, bytes: u64| NvmeSpec {
        controller,
        namespace_minor: minor,
        model: "Amazon Elastic Block Store",
        serial,
        firmware: "1.0",
        sectors: sectors(bytes),
        hmb: None,
        temperature_millidegrees: None,
        queue: QueueSpec {
            discard_max_bytes: 0,
            discard_max_hw_bytes: 0,
            ..QueueSpec::nvme()
        },
    };
    let root_ns = tree.nvme(
        "/sys/devices/pci0000:00/0000:00:04.0",
        &ebs_pci("Unknown speed"),
        &ebs(0, 0, "vol0123456789abcdef0", 21_474_836_480),
    )?;
    tree.partition(&root_ns, "nvme0n1", 1, 259, 1, 24_576, 41_918_431)?;
    tree.nvme(
        "/sys/devices/pci0000:00/0000:00:1f.0",
        &ebs_pci("Unknown speed"),
        &ebs(1, 2, "vol0fedcba9876543210", 2_199_023_255_552),
    )?;
    write_mounts(
        &tree,
        &standard_mounts(
            "259:1",
            "/dev/nvme0n1p1",
            Some((
                "259:2",
                "xfs",
                "/dev/nvme1n1",
                "rw,noatime",
                "rw,attr2,inode64,logbufs=8,logbsize=32k,noquota",
            )),
        ),
    )
}

/// btrfs RAID1 over two NVMe drives: mountinfo shows an anonymous device (0:33), the members
/// are listed under `/sys/fs/btrfs/<fsid>/devices`.
pub fn btrfs_two_devices(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let link = || PcieLinkSpec {
        current_speed: "16.0 GT/s PCIe",
        current_width: 4,
        max_speed: "16.0 GT/s PCIe",
        max_width: 4,
    };
    let first = tree.nvme(
        "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0",
        &samsung_pci(link()),
        &samsung_980_pro(0, 0),
    )?;
    let second = tree.nvme(
        "/sys/devices/pci0000:00/0000:00:01.2/0000:02:00.0",
        &samsung_pci(link()),
        &NvmeSpec {
            serial: "S6B0NL0T412399M",
            ..samsung_980_pro(1, 2)
        },
    )?;
    let p1 = tree.partition(&first, "nvme0n1", 1, 259, 1, 2048, 3_907_026_944)?;
    let p2 = tree.partition(&second, "nvme1n1", 1, 259, 3, 2048, 3_907_026_944)?;
    let fsid = "/sys/fs/btrfs/5e3f1a2b-8c4d-4e6f-9a0b-1c2d3e4f5a6b";
    tree.attr(&format!("{fsid}/label"), "ethereum")?;
    tree.link(&format!("{fsid}/devices/nvme0n1p1"), &p1)?;
    tree.link(&format!("{fsid}/devices/nvme1n1p1"), &p2)?;
    tree.attr("/sys/fs/btrfs/features/free_space_tree", 0)?;
    let mut lines = standard_mounts("259:1", "/dev/nvme0n1p1", None);
    lines[0] = "26 1 0:33 /@ / rw,noatime shared:1 - btrfs /dev/nvme0n1p1 rw,ssd,discard=async,space_cache=v2,subvolid=256,subvol=/@".to_string();
    write_mounts(&tree, &lines)
}

/// `/var/lib/ethereum` is a symlink to a directory on a second drive mounted at `/mnt/fast`:
/// the probe must follow it to the NVMe drive, not stop at the SATA root file system.
pub fn datadir_symlink(dir: &Path) -> io::Result<()> {
    sata_ahci(dir)?;
    let tree = FixtureTree::new(dir)?;
    let namespace = tree.nvme(
        "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0",
        &samsung_pci(PcieLinkSpec {
            current_speed: "16.0 GT/s PCIe",
            current_width: 4,
            max_speed: "16.0 GT/s PCIe",
            max_width: 4,
        }),
        &samsung_980_pro(0, 0),
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 3_907_026_944)?;
    tree.mkdir("/mnt/fast/ethereum")?;
    tree.raw_link(DATADIR, "/mnt/fast/ethereum")?;
    let mut lines = standard_mounts("8:1", "/dev/sda1", None);
    lines.push("41 26 259:1 / /mnt/fast rw,noatime shared:21 - ext4 /dev/nvme0n1p1 rw".to_string());
    write_mounts(&tree, &lines)
}

/// An NVMe drive behind Intel VMD (Volume Management Device): the drive sits in the
/// synthetic PCI domain 10000 under the VMD function, which binds the `vmd` driver.
pub fn nvme_behind_vmd(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let vmd = "/sys/devices/pci0000:00/0000:00:0e.0";
    tree.pci_function(
        vmd,
        &PciSpec {
            class: 0x010400,
            vendor: 0x8086,
            device: 0x467f,
            driver: "vmd",
            link: None,
        },
    )?;
    let namespace = tree.nvme(
        &format!("{vmd}/pci10000:e0/10000:e0:06.0/10000:e1:00.0"),
        &samsung_pci(PcieLinkSpec {
            current_speed: "16.0 GT/s PCIe",
            current_width: 4,
            max_speed: "16.0 GT/s PCIe",
            max_width: 4,
        }),
        &samsung_980_pro(0, 0),
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 3_907_026_944)?;
    write_mounts(&tree, &standard_mounts("259:1", "/dev/nvme0n1p1", None))
}

/// Two paths to one SAS disk through an mpt3sas HBA, joined by dm-multipath.
pub fn sas_multipath(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    tree.kernel("5.15.0-105-generic", None)?;
    tree.dmi(
        "Dell Inc.",
        "PowerEdge R750",
        "Dell Inc.",
        "0PJ7YJ",
        "Dell Inc.",
    )?;
    tree.systemd(false)?;
    let hba = "/sys/devices/pci0000:3a/0000:3a:02.0/0000:3b:00.0";
    tree.pci_function(
        hba,
        &PciSpec {
            class: 0x010700,
            vendor: 0x1000,
            device: 0x00af,
            driver: "mpt3sas",
            link: Some(PcieLinkSpec {
                current_speed: "8.0 GT/s PCIe",
                current_width: 8,
                max_speed: "8.0 GT/s PCIe",
                max_width: 8,
            }),
        },
    )?;
    let mut paths = Vec::new();
    for (index, name) in ["sda", "sdb"].iter().enumerate() {
        let scsi_dir = format!(
            "{hba}/host0/port-0:{index}/end_device-0:{index}/target0:0:{index}/0:0:{index}:0"
        );
        tree.scsi_device(&scsi_dir, "SEAGATE", "ST4000NM0295", "DT31")?;
        let disk_dir = format!("{scsi_dir}/block/{name}");
        tree.disk(
            &disk_dir,
            &DiskSpec {
                name: (*name).to_string(),
                major: 8,
                minor: u32::try_from(index * 16).unwrap_or(0),
                sectors: 7_814_037_168,
                queue: QueueSpec::hdd(),
            },
        )?;
        tree.link(&format!("{disk_dir}/device"), &scsi_dir)?;
        paths.push(disk_dir);
    }
    let lower: Vec<&str> = paths.iter().map(String::as_str).collect();
    tree.dm(
        0,
        "mpatha",
        "mpath-35000c500a1b2c3d4",
        &lower,
        7_814_037_168,
        0,
    )?;
    let mut lines = standard_mounts("253:0", "/dev/mapper/mpatha", None);
    lines[0] =
        "26 1 253:0 / / rw,relatime shared:1 - xfs /dev/mapper/mpatha rw,attr2,inode64".to_string();
    write_mounts(&tree, &lines)
}

/// The datadir on a ZFS dataset: sysfs cannot name the pool's drives.
pub fn zfs_dataset(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(false)?;
    let namespace = tree.nvme(
        &format!("{PCH_ROOT_PORT}/0000:03:00.0"),
        &samsung_pci(PcieLinkSpec {
            current_speed: "16.0 GT/s PCIe",
            current_width: 4,
            max_speed: "16.0 GT/s PCIe",
            max_width: 4,
        }),
        &samsung_980_pro(0, 0),
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 3_907_026_944)?;
    let mut lines = standard_mounts("0:45", "rpool/ROOT/ubuntu", None);
    lines[0] = "26 1 0:45 / / rw,relatime shared:1 - zfs rpool/ROOT/ubuntu rw,xattr,posixacl,casesensitive".to_string();
    lines.push(format!(
        "41 26 0:46 / {DATADIR} rw,noatime shared:21 - zfs tank/ethereum rw,xattr,noacl,casesensitive"
    ));
    write_mounts(&tree, &lines)
}

/// Inside a Docker container: `/` is overlay; the datadir is not a volume.
pub fn docker_overlay(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    tree.kernel("6.8.0-45-generic", Some(0))?;
    let lines = [
        "612 480 0:50 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/ABC:/var/lib/docker/overlay2/l/DEF,upperdir=/var/lib/docker/overlay2/0f1e/diff,workdir=/var/lib/docker/overlay2/0f1e/work".to_string(),
        "613 612 0:53 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw".to_string(),
        "614 612 0:54 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64".to_string(),
        "620 612 259:2 /var/lib/docker/containers/0f1e/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/nvme0n1p2 rw".to_string(),
    ];
    write_mounts(&tree, &lines)
}

// Hostile trees: each starts from a regular scenario and breaks it in one way.

const DEGRADED_CONTROLLER: &str = "/sys/devices/pci0000:00/0000:00:1d.0/0000:03:00.0/nvme/nvme0";
const DEGRADED_PCI: &str = "/sys/devices/pci0000:00/0000:00:1d.0/0000:03:00.0";

const BREAKABLE: &[&str] = &[
    "/model",
    "/serial",
    "/firmware_rev",
    "/transport",
    "/hwmon1/temp1_input",
    "/nvme0n1/size",
    "/nvme0n1/queue/rotational",
    "/nvme0n1/queue/scheduler",
    "/nvme0n1/queue/discard_max_bytes",
    "/nvme0n1/queue/logical_block_size",
];

/// Model, serial, size, queue, link and DMI attributes all absent.
pub fn hostile_missing_attributes(dir: &Path) -> io::Result<()> {
    nvme_degraded_pcie_link(dir)?;
    let tree = FixtureTree::new(dir)?;
    for attr in BREAKABLE {
        tree.remove(&format!("{DEGRADED_CONTROLLER}{attr}"))?;
    }
    for attr in [
        "current_link_speed",
        "current_link_width",
        "max_link_speed",
        "class",
    ] {
        tree.remove(&format!("{DEGRADED_PCI}/{attr}"))?;
    }
    tree.remove("/sys/devices/virtual/dmi")?;
    tree.remove("/proc/sys")?;
    tree.remove("/.nodecheck")
}

/// The same attributes present but empty.
pub fn hostile_empty_attributes(dir: &Path) -> io::Result<()> {
    nvme_degraded_pcie_link(dir)?;
    let tree = FixtureTree::new(dir)?;
    for attr in BREAKABLE {
        tree.write(&format!("{DEGRADED_CONTROLLER}{attr}"), "")?;
    }
    for attr in [
        "current_link_speed",
        "current_link_width",
        "max_link_speed",
        "class",
    ] {
        tree.write(&format!("{DEGRADED_PCI}/{attr}"), "")?;
    }
    tree.write("/sys/devices/virtual/dmi/id/sys_vendor", "\n")?;
    tree.write("/proc/sys/kernel/io_uring_disabled", "")?;
    tree.write("/.nodecheck/statvfs.json", "")
}

/// Invalid UTF-8 in the model, the DMI vendor and a mount point.
pub fn hostile_non_utf8(dir: &Path) -> io::Result<()> {
    nvme_degraded_pcie_link(dir)?;
    let tree = FixtureTree::new(dir)?;
    tree.write(
        &format!("{DEGRADED_CONTROLLER}/model"),
        b"Samsung SSD \xff\xfe 980 PRO\n",
    )?;
    tree.write("/sys/devices/virtual/dmi/id/sys_vendor", b"\xc3\x28ASUS\n")?;
    let mut mountinfo = fs::read(dir.join("proc/4242/mountinfo"))?;
    mountinfo.extend_from_slice(b"50 26 0:40 / /mnt/\xff\xfe rw,relatime - tmpfs tmpfs rw\n");
    tree.write("/proc/4242/mountinfo", mountinfo)
}

/// A 1 MB model string and a 1 MB `id` dump.
pub fn hostile_huge_model(dir: &Path) -> io::Result<()> {
    sata_ahci(dir)?;
    let tree = FixtureTree::new(dir)?;
    let huge = "X".repeat(1 << 20);
    let scsi = format!("{AHCI_DIR}/ata3/host2/target2:0:0/2:0:0:0");
    tree.attr(&format!("{scsi}/model"), &huge)?;
    tree.write(
        &format!("{AHCI_DIR}/ata3/link3/dev3.0/ata_device/dev3.0/id"),
        "0040 ".repeat(1 << 18),
    )?;
    tree.attr("/sys/devices/virtual/dmi/id/product_name", &huge)
}

/// Loops: a namespace whose `device` link loops, dm devices that are each other's slaves,
/// a hwmon `device` pointing at itself.
pub fn hostile_symlink_loops(dir: &Path) -> io::Result<()> {
    lvm_on_partition(dir)?;
    let tree = FixtureTree::new(dir)?;
    let namespace = "/sys/devices/pci0000:00/0000:00:1d.0/0000:04:00.0/nvme/nvme0/nvme0n1";
    tree.raw_link(&format!("{namespace}/device"), "device_b")?;
    tree.raw_link(&format!("{namespace}/device_b"), "device")?;
    // dm-0 → dm-1 → dm-0.
    let dm1 = tree.dm(
        1,
        "loopy",
        "LVM-loopyloopyloopyloopyloopyloopyloopy",
        &["/sys/devices/virtual/block/dm-0"],
        1000,
        4096,
    )?;
    tree.link("/sys/devices/virtual/block/dm-0/slaves/dm-1", &dm1)?;
    tree.raw_link("/sys/class/hwmon/hwmon9", "hwmon9")?;
    tree.raw_link("/sys/class/dmi/id", "/sys/class/dmi/id")
}

/// Links that try to leave the root, absolute and with `..` beyond the top.
pub fn hostile_symlink_outside_root(dir: &Path) -> io::Result<()> {
    nvme_degraded_pcie_link(dir)?;
    let tree = FixtureTree::new(dir)?;
    let depth = DEGRADED_CONTROLLER.matches('/').count() + 8;
    let escape = "../".repeat(depth);
    tree.raw_link(
        &format!("{DEGRADED_CONTROLLER}/model"),
        &format!("{escape}etc/hostname"),
    )?;
    tree.raw_link(&format!("{DEGRADED_CONTROLLER}/serial"), "/etc/machine-id")?;
    tree.raw_link(
        &format!("{DEGRADED_PCI}/current_link_speed"),
        "/proc/self/mountinfo",
    )?;
    tree.raw_link("/sys/class/dmi/id", &format!("{escape}sys/class/dmi/id"))?;
    tree.raw_link("/sys/class/hwmon/hwmon7", "/")
}

/// Mount points with spaces and tabs (`\040`, `\011`) and a backslash (`\134`).
pub fn hostile_mountinfo_escapes(dir: &Path) -> io::Result<()> {
    nvme_degraded_pcie_link(dir)?;
    let tree = FixtureTree::new(dir)?;
    let mut lines = standard_mounts("259:1", "/dev/nvme0n1p1", None);
    lines.push(
        "41 26 259:2 / /var/lib/eth\\040node rw,noatime shared:21 - ext4 /dev/nvme0n1p2 rw"
            .to_string(),
    );
    lines.push("42 26 0:50 / /mnt/tab\\011dir\\134x rw,relatime - tmpfs tmpfs rw".to_string());
    lines.push("this line is not mountinfo".to_string());
    write_mounts(&tree, &lines)
}

/// A truncated, non-hex IDENTIFY dump.
pub fn hostile_garbage_identify(dir: &Path) -> io::Result<()> {
    sata_ahci(dir)?;
    let tree = FixtureTree::new(dir)?;
    tree.write(
        &format!("{AHCI_DIR}/ata3/link3/dev3.0/ata_device/dev3.0/id"),
        "0040 3fff c837 0010 zzzz\n0000 0000",
    )
}

/// [`sata_ahci`] with an IDENTIFY dump that parses but fails its word 255 checksum: the signed
/// response of a real drive with one bit of the serial flipped after signing, as a flaky link,
/// a firmware bug or a hand-edited dump leaves it. Not in [`SCENARIOS`]: it differs from
/// `sata_ahci` only by a warning.
pub fn sata_ahci_identify_checksum_mismatch(dir: &Path) -> io::Result<()> {
    sata_ahci(dir)?;
    let tree = FixtureTree::new(dir)?;
    let spec = crucial_mx500(3, "sda", 0, "2235E6A1B2C3");
    let mut words = spec.identify.build();
    // Word 10 is the first serial word (ATA8-ACS 7.16.7).
    words[10] ^= 0x0100;
    tree.write(
        &format!("{AHCI_DIR}/ata3/link3/dev3.0/ata_device/dev3.0/id"),
        encode_identify_text(&words),
    )
}

/// A QEMU q35 guest whose AHCI disk carries the model `Samsung SSD 870 QVO 1TB` but, as QEMU's
/// `ide-hd` does by default, leaves IDENTIFY word 217 at 0 ("not reported"): libata's VPD page
/// 0xB1 repeats the 0, so the kernel marks the SSD rotational.
pub fn qemu_sata_ssd_rotation_unreported(dir: &Path) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    tree.kernel("6.1.0-26-amd64", Some(0))?;
    tree.dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)", "", "", "SeaBIOS")?;
    tree.systemd(true)?;
    let spec = SataSpec {
        port: 1,
        disk: DiskSpec {
            name: "sda".to_string(),
            major: 8,
            minor: 0,
            sectors: 1_953_525_168,
            queue: QueueSpec {
                rotational: true,
                ..QueueSpec::ssd()
            },
        },
        identify: IdentifyBuilder::new()
            .model("Samsung SSD 870 QVO 1TB")
            .firmware("2.5+")
            .serial("S5VSNG0NA12345B")
            .trim(true, false)
            .sata_speeds(Some(1.5), Some(1.5))
            .capacity_sectors(1_953_525_168),
        trim_mode: "unqueued",
        link_speed: "1.5 Gbps",
        scsi_model: "Samsung SSD 870".to_string(),
        scsi_rev: "2.5+".to_string(),
        drivetemp_millidegrees: None,
    };
    let disk = tree.sata(
        "/sys/devices/pci0000:00/0000:00:1f.2",
        &PciSpec {
            class: 0x010601,
            vendor: 0x8086,
            device: 0x2922,
            driver: "ahci",
            link: None,
        },
        &spec,
    )?;
    tree.partition(&disk, "sda", 1, 8, 1, 2048, 1_953_523_120)?;
    let mut lines = standard_mounts(
        "8:1",
        "/dev/sda1",
        Some(("8:1", "ext4", "/dev/sda1", "rw,noatime", "rw")),
    );
    lines[0] =
        "26 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro".to_string();
    write_mounts(&tree, &lines)?;
    tree.statvfs(DATADIR, 900_000_000_000, 984_000_000_000)
}

/// A desktop with its system on a local NVMe drive and the datadir mounted from the network
/// with this mountinfo line (mount id 50, under `/`).
fn network_datadir(dir: &Path, datadir_line: &str) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    desktop(&tree)?;
    tree.systemd(true)?;
    let namespace = tree.nvme(
        &format!("{PCH_ROOT_PORT}/0000:03:00.0"),
        &samsung_pci(PcieLinkSpec {
            current_speed: "16.0 GT/s PCIe",
            current_width: 4,
            max_speed: "16.0 GT/s PCIe",
            max_width: 4,
        }),
        &samsung_980_pro(0, 0),
    )?;
    tree.partition(&namespace, "nvme0n1", 1, 259, 1, 2048, 1_048_576)?;
    tree.partition(&namespace, "nvme0n1", 2, 259, 2, 1_050_624, 3_905_976_320)?;
    let mut lines = standard_mounts("259:2", "/dev/nvme0n1p2", None);
    lines.push(datadir_line.to_string());
    write_mounts(&tree, &lines)?;
    tree.statvfs(DATADIR, 7_000_000_000_000, 11_900_000_000_000)
}

/// The datadir on a Synology NAS over NFS 4.2, mounted by name (`addr=` is the address the
/// kernel resolved), the way nfs_show_options prints it.
pub fn nfs4_nas(dir: &Path) -> io::Result<()> {
    network_datadir(
        dir,
        &format!("50 26 0:52 / {DATADIR} rw,relatime shared:27 - nfs4 diskstation.lan:/volume1/ethereum rw,vers=4.2,rsize=131072,wsize=131072,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=192.168.1.20,local_lock=none,addr=192.168.1.10"),
    )
}

/// The datadir on an SMB 3.1.1 share of a NAS (cifs.ko's option list).
pub fn cifs_nas(dir: &Path) -> io::Result<()> {
    network_datadir(
        dir,
        &format!("50 26 0:55 / {DATADIR} rw,relatime shared:27 - cifs //192.168.1.10/ethereum rw,vers=3.1.1,cache=strict,username=eth,uid=1000,noforceuid,gid=1000,noforcegid,addr=192.168.1.10,file_mode=0755,dir_mode=0755,soft,nounix,serverino,mapposix,rsize=4194304,wsize=4194304,bsize=1048576,echo_interval=60,actimeo=1,closetimeo=1"),
    )
}

/// The datadir on CephFS through the kernel client, new device syntax (Linux >= 5.17), the
/// monitors in `mon_addr`.
pub fn cephfs(dir: &Path) -> io::Result<()> {
    network_datadir(
        dir,
        &format!("50 26 0:60 /volumes/eth {DATADIR} rw,noatime shared:27 - ceph admin@b3acfc0d-575f-4b93-9e7b-b4b6e8fbfc1a.cephfs=/volumes/eth rw,name=admin,secret=<hidden>,ms_mode=prefer-crc,acl,mon_addr=10.0.0.11:3300/10.0.0.12:3300/10.0.0.13:3300"),
    )
}

/// The datadir on a GlusterFS volume through its FUSE client.
pub fn glusterfs(dir: &Path) -> io::Result<()> {
    network_datadir(
        dir,
        &format!("50 26 0:65 / {DATADIR} rw,relatime shared:27 - fuse.glusterfs gluster1.lan:/gv0 rw,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072"),
    )
}

/// A QEMU guest on a virtio root disk whose datadir is a host directory shared over 9p.
pub fn vm_9p_host_share(dir: &Path) -> io::Result<()> {
    qemu_guest_with_share(
        dir,
        &format!("50 26 0:70 / {DATADIR} rw,relatime shared:27 - 9p ethdata rw,access=client,msize=512000,trans=virtio"),
    )
}

/// A QEMU guest on a virtio root disk whose datadir is a host directory shared by virtiofsd.
pub fn vm_virtiofs_host_share(dir: &Path) -> io::Result<()> {
    qemu_guest_with_share(
        dir,
        &format!("50 26 0:75 / {DATADIR} rw,relatime shared:27 - virtiofs ethdata rw"),
    )
}

fn qemu_guest_with_share(dir: &Path, datadir_line: &str) -> io::Result<()> {
    let tree = FixtureTree::new(dir)?;
    tree.dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)", "", "", "SeaBIOS")?;
    virtio_guest(&tree)?;
    let mut lines = standard_mounts("252:1", "/dev/vda1", None);
    lines.push(datadir_line.to_string());
    write_mounts(&tree, &lines)?;
    tree.statvfs(DATADIR, 3_000_000_000_000, 3_840_000_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_like_sysfs() {
        assert_eq!(
            relative_path(
                Path::new("/sys/block"),
                Path::new("/sys/devices/pci0000:00/x/nvme0n1")
            ),
            PathBuf::from("../devices/pci0000:00/x/nvme0n1")
        );
        assert_eq!(
            relative_path(
                Path::new("/sys/dev/block"),
                Path::new("/sys/devices/virtual/block/dm-0")
            ),
            PathBuf::from("../../devices/virtual/block/dm-0")
        );
    }

    #[test]
    fn every_scenario_builds() {
        for scenario in SCENARIOS {
            let dir = tempfile::tempdir().expect("tempdir");
            (scenario.build)(dir.path()).unwrap_or_else(|err| panic!("{}: {err}", scenario.name));
            assert!(dir.path().join("proc/self").exists(), "{}", scenario.name);
        }
    }
}
