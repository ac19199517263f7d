//! `data/setups.toml`: the ZFS thresholds, the identities of hypervisors' virtual disks and the
//! cloud volumes told apart by what the guest sees, each with its fix and sources.

use std::sync::OnceLock;

use probe::VmbusDisk;
use serde::Deserialize;

pub const EMBEDDED_SETUPS: &str = include_str!("../../../data/setups.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Setups {
    pub sources: Vec<Source>,
    /// QD1 read latency above which network block storage holds a node back.
    pub network_latency_us: f64,
    // Required by the data file so every figure keeps its citation and every volume its
    // provider, for the reader of data/setups.toml; no check reads it.
    #[allow(dead_code)]
    pub network_latency_sources: Vec<String>,
    pub zfs: ZfsThresholds,
    pub virtual_disks: Vec<VirtualDisk>,
    pub cloud_volumes: Vec<CloudVolume>,
    pub power_advisories: Vec<PowerAdvisory>,
    pub usb_bridges: Vec<UsbBridge>,
    pub cloud_platforms: Vec<CloudPlatform>,
}

/// A provider told by the platform (DMI) whose disks carry no identity of their own.
#[derive(Debug, Clone, Deserialize)]
pub struct CloudPlatform {
    /// `platform.cloud` as the probe names it (`vultr`, `openstack`).
    pub provider: String,
    pub label: String,
    pub fix: String,
    pub sources: Vec<String>,
}

/// A USB storage bridge by its ids, with the kernel's quirk flags for it.
#[derive(Debug, Clone, Deserialize)]
pub struct UsbBridge {
    /// `VVVV:PPPP`, lower-case hex as sysfs writes `idVendor`/`idProduct`.
    pub id: String,
    /// The bcdDevice range the kernel's entry covers (`["0128", "0128"]`); every release
    /// when absent.
    pub bcd: Option<[String; 2]>,
    pub name: String,
    /// The kernel's `US_FL_*` flags for it, without the prefix.
    pub flags: Vec<String>,
    pub note: Option<String>,
    pub sources: Vec<String>,
}

impl UsbBridge {
    /// Whether this entry covers `vendor:product` at release `bcd_device` (hex, as sysfs
    /// writes it). A ranged entry needs the release: without it nothing says it applies.
    pub fn covers(&self, vendor: &str, product: &str, bcd_device: Option<&str>) -> bool {
        let Some((v, p)) = self.id.split_once(':') else {
            return false;
        };
        if !(v.eq_ignore_ascii_case(vendor.trim()) && p.eq_ignore_ascii_case(product.trim())) {
            return false;
        }
        let Some([low, high]) = &self.bcd else {
            return true;
        };
        let hex = |s: &str| u16::from_str_radix(s.trim(), 16).ok();
        match (bcd_device.and_then(hex), hex(low), hex(high)) {
            (Some(release), Some(low), Some(high)) => (low..=high).contains(&release),
            _ => false,
        }
    }
}

/// An NVMe family known to drop off the bus under power management.
#[derive(Debug, Clone, Deserialize)]
pub struct PowerAdvisory {
    pub id: String,
    /// Regexes on the whole model string.
    pub models: Vec<String>,
    /// `0xVVVV:0xDDDD` of the controller's PCI function.
    pub pci_ids: Vec<String>,
    pub text: String,
    pub sources: Vec<String>,
}

impl PowerAdvisory {
    pub fn matches(&self, model: Option<&str>, pci_id: Option<&str>) -> bool {
        let by_model = model.is_some_and(|m| {
            self.models
                .iter()
                .any(|re| regex::Regex::new(re).is_ok_and(|re| re.is_match(m.trim())))
        });
        by_model || pci_id.is_some_and(|id| self.pci_ids.iter().any(|p| p.eq_ignore_ascii_case(id)))
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Source {
    pub id: String,
    // Required by the data file so every figure keeps its citation and every volume its
    // provider, for the reader of data/setups.toml; no check reads it.
    #[allow(dead_code)]
    pub title: String,
    pub url: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ZfsThresholds {
    pub min_ashift: u64,
    pub max_recordsize_bytes: u64,
    pub recommended_recordsize: String,
    pub max_arc_fraction_of_ram: f64,
    pub default_arc_fraction_before_2_3: f64,
    pub sources: Vec<String>,
}

/// A hypervisor's emulated disk, by the identity it reports.
#[derive(Debug, Clone, Deserialize)]
pub struct VirtualDisk {
    pub vendor: Option<String>,
    pub model: String,
    pub hypervisor: String,
}

/// A cloud provider's volume, by the identity it reports.
#[derive(Debug, Clone, Deserialize)]
pub struct CloudVolume {
    // Required by the data file so every figure keeps its citation and every volume its
    // provider, for the reader of data/setups.toml; no check reads it.
    #[allow(dead_code)]
    pub provider: String,
    pub vendor: Option<String>,
    /// The whole model string; or `pattern`, a regex on it, where the provider numbers its
    /// controllers (`nvme_card0`, `nvme_card1`, ...) or versions its devices.
    pub model: Option<String>,
    pub pattern: Option<String>,
    /// Only a disk in this place on Azure's VMBus ([`azure_disk_role`]): `os`, `resource`
    /// or `data`.
    pub vmbus_role: Option<String>,
    /// `network` (block storage over the network), `local` (instance storage), or
    /// `temporary` (a local disk the provider erases on its own, the datadir with it).
    pub kind: String,
    pub label: String,
    pub burst: Option<String>,
    /// May hold `{serial_as_volume_id}`: the drive serial as an EBS volume id (`vol-...`).
    pub fix: String,
    pub sources: Vec<String>,
}

/// What an Azure SCSI disk is by where it sits on VMBus, as Azure's own udev rules tell
/// (docs/sources/azure-disks.md): on generation 1 VMs the OS disk's channel id starts
/// `{00000000-0000-` and the temporary (resource) disk's `{00000000-0001-`; on generation 2,
/// both hang off the controller `{f8b3781a-1e82-4818-a1c3-63d806ec15bb}`, the OS disk at LUN 0
/// and the resource disk at LUN 1; data disks are on the controllers `{f8b3781b-…}` to
/// `{f8b3781d-…}`.
pub fn azure_disk_role(disk: &VmbusDisk) -> Option<&'static str> {
    const GEN2_CONTROLLER_TAIL: &str = "-1e82-4818-a1c3-63d806ec15bb}";
    let id = disk.device_id.trim().to_ascii_lowercase();
    let guid = id.strip_prefix('{')?;
    if guid.starts_with("00000000-0000-") {
        return Some("os");
    }
    if guid.starts_with("00000000-0001-") {
        return Some("resource");
    }
    let controller = guid.strip_suffix(GEN2_CONTROLLER_TAIL)?;
    match (controller, disk.lun) {
        ("f8b3781a", Some(0)) => Some("os"),
        ("f8b3781a", Some(1)) => Some("resource"),
        ("f8b3781b" | "f8b3781c" | "f8b3781d", _) => Some("data"),
        _ => None,
    }
}

impl Setups {
    /// The embedded file; a test keeps it parsing and every source it names defined.
    pub fn embedded() -> &'static Setups {
        static SETUPS: OnceLock<Setups> = OnceLock::new();
        SETUPS.get_or_init(|| {
            toml::from_str(EMBEDDED_SETUPS).expect("data/setups.toml is checked by its tests")
        })
    }

    fn matches(vendor: Option<&str>, model: &str, want_vendor: Option<&str>, want: &str) -> bool {
        model.trim() == want && want_vendor.is_none_or(|v| vendor.map(str::trim) == Some(v))
    }

    /// The hypervisor whose emulated disk reports this identity.
    pub fn virtual_disk(&self, vendor: Option<&str>, model: &str) -> Option<&VirtualDisk> {
        self.virtual_disks
            .iter()
            .find(|d| Self::matches(vendor, model, d.vendor.as_deref(), &d.model))
    }

    /// The cloud volume that reports this identity (in this place on VMBus, if it is there).
    pub fn cloud_volume(
        &self,
        vendor: Option<&str>,
        model: &str,
        vmbus: Option<&VmbusDisk>,
    ) -> Option<&CloudVolume> {
        let role = vmbus.and_then(azure_disk_role);
        self.cloud_volumes
            .iter()
            .filter(|d| d.vmbus_role.is_none() || d.vmbus_role.as_deref() == role)
            .find(|d| match (&d.model, &d.pattern) {
                (Some(want), _) => Self::matches(vendor, model, d.vendor.as_deref(), want),
                (None, Some(pattern)) => {
                    d.vendor
                        .as_deref()
                        .is_none_or(|v| vendor.map(str::trim) == Some(v))
                        && regex::Regex::new(pattern).is_ok_and(|re| re.is_match(model.trim()))
                }
                (None, None) => false,
            })
    }

    /// The provider entry for the platform the probe named.
    pub fn cloud_platform(&self, provider: &str) -> Option<&CloudPlatform> {
        self.cloud_platforms
            .iter()
            .find(|p| p.provider.eq_ignore_ascii_case(provider))
    }

    /// The bridge entry for these USB ids and release.
    pub fn usb_bridge(
        &self,
        vendor: &str,
        product: &str,
        bcd_device: Option<&str>,
    ) -> Option<&UsbBridge> {
        self.usb_bridges
            .iter()
            .find(|b| b.covers(vendor, product, bcd_device))
    }

    /// `title <url>` of each source id, for a finding's detail.
    pub fn cite(&self, ids: &[String]) -> String {
        ids.iter()
            .filter_map(|id| self.sources.iter().find(|s| &s.id == id))
            .map(|s| s.url.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_named_is_defined() {
        let setups = Setups::embedded();
        let named = setups
            .zfs
            .sources
            .iter()
            .chain(&setups.network_latency_sources)
            .chain(setups.cloud_volumes.iter().flat_map(|c| c.sources.iter()))
            .chain(
                setups
                    .power_advisories
                    .iter()
                    .flat_map(|c| c.sources.iter()),
            )
            .chain(setups.usb_bridges.iter().flat_map(|b| b.sources.iter()))
            .chain(setups.cloud_platforms.iter().flat_map(|p| p.sources.iter()));
        for id in named {
            assert!(setups.sources.iter().any(|s| &s.id == id), "{id}");
        }
        assert!(setups.zfs.min_ashift >= 12);
        assert!(setups
            .cloud_volume(Some("HC      "), "Volume          ", None)
            .is_some());
        assert!(setups.cloud_volume(Some("DO"), "Volume", None).is_some());
        assert!(setups.cloud_volume(None, "Volume", None).is_none());
        assert!(setups.virtual_disk(Some("QEMU"), "QEMU HARDDISK").is_some());
        for bridge in &setups.usb_bridges {
            let known = crate::findings::usb_bridge::KERNEL_FLAGS;
            for flag in &bridge.flags {
                assert!(
                    known.iter().any(|k| k.name == flag),
                    "{}: unknown flag {flag}",
                    bridge.id
                );
            }
            let hex4 = |s: &str| s.len() == 4 && s.chars().all(|c| c.is_ascii_hexdigit());
            let (vendor, product) = bridge.id.split_once(':').expect("VVVV:PPPP");
            assert!(hex4(vendor) && hex4(product), "{}", bridge.id);
            assert_eq!(
                bridge.id,
                bridge.id.to_lowercase(),
                "sysfs writes lower case"
            );
            for bound in bridge.bcd.iter().flatten() {
                assert!(hex4(bound), "{}: bcd {bound}", bridge.id);
            }
        }
        for volume in &setups.cloud_volumes {
            assert!(
                volume.model.is_some() != volume.pattern.is_some(),
                "{}: a volume has a model or a pattern",
                volume.label
            );
            if let Some(pattern) = &volume.pattern {
                assert!(
                    pattern.starts_with('^') && pattern.ends_with('$'),
                    "{pattern}"
                );
                assert!(regex::Regex::new(pattern).is_ok(), "{pattern}");
            }
        }
        let kind = |model: &str| {
            setups
                .cloud_volume(None, model, None)
                .map(|v| v.kind.as_str())
        };
        // GCP names each local SSD controller (C3: nvme_card0 ... nvme_card15); the
        // persistent disk behind NVMe is `nvme_card-pd`.
        assert_eq!(kind("nvme_card"), Some("local"));
        assert_eq!(kind("nvme_card15"), Some("local"));
        assert_eq!(kind("nvme_card-pd"), Some("network"));
        assert_eq!(kind("MSFT NVMe Accelerator v1.0"), Some("network"));
        assert_eq!(kind("Microsoft NVMe Direct Disk v2"), Some("local"));
        assert_eq!(kind("Microsoft NVMe Direct Disk"), Some("local"));
        assert_eq!(kind("nvme_cardx"), None);
        for provider in [
            "vultr",
            "openstack",
            "ovh",
            "hetzner",
            "netcup",
            "contabo",
            "kvm",
        ] {
            assert!(setups.cloud_platform(provider).is_some(), "{provider}");
        }
        let apricorn = |bcd| setups.usb_bridge("0984", "0301", bcd).is_some();
        assert!(apricorn(Some("0128")));
        assert!(!apricorn(Some("0129")));
        assert!(!apricorn(None), "a ranged entry needs the release");
        assert!(setups.usb_bridge("152D", "0578", None).is_some());
        for advisory in &setups.power_advisories {
            for re in &advisory.models {
                assert!(regex::Regex::new(re).is_ok(), "{}: {re}", advisory.id);
            }
        }
    }

    /// The GUID schemes of WALinuxAgent's 66-azure-storage.rules and azure-vm-utils'
    /// 80-azure-disk.rules (docs/sources/azure-disks.md).
    #[test]
    fn azure_disks_are_told_by_their_vmbus_channel_and_lun() {
        let disk = |id: &str, lun: u32| VmbusDisk {
            device_id: id.to_owned(),
            lun: Some(lun),
        };
        let role = |id: &str, lun: u32| azure_disk_role(&disk(id, lun));
        assert_eq!(
            role("{00000000-0000-8899-0000-000000000000}", 0),
            Some("os")
        );
        assert_eq!(
            role("{00000000-0001-8899-0000-000000000000}", 0),
            Some("resource")
        );
        let gen2 = "{f8b3781a-1e82-4818-a1c3-63d806ec15bb}";
        assert_eq!(role(gen2, 0), Some("os"));
        assert_eq!(role(gen2, 1), Some("resource"));
        assert_eq!(role(gen2, 2), None);
        assert_eq!(
            role("{F8B3781B-1E82-4818-A1C3-63D806EC15BB}", 3),
            Some("data")
        );
        assert_eq!(role("{f8b3781e-1e82-4818-a1c3-63d806ec15bb}", 0), None);
        assert_eq!(
            role("00000000-0001-8899-0000-000000000000", 0),
            None,
            "no braces"
        );
        assert_eq!(role("", 0), None);
        let setups = Setups::embedded();
        let volume = |id: &str, lun: u32| {
            setups
                .cloud_volume(Some("Msft    "), "Virtual Disk    ", Some(&disk(id, lun)))
                .map(|v| v.kind.as_str())
        };
        assert_eq!(volume(gen2, 1), Some("temporary"));
        assert_eq!(
            volume("{00000000-0001-8899-0000-000000000000}", 0),
            Some("temporary")
        );
        assert_eq!(volume(gen2, 0), Some("network"));
        assert_eq!(
            volume("{f8b3781b-1e82-4818-a1c3-63d806ec15bb}", 1),
            Some("network")
        );
        assert_eq!(
            setups
                .cloud_volume(Some("Msft"), "Virtual Disk", None)
                .map(|v| v.kind.as_str()),
            Some("network"),
            "without VMBus facts a Msft disk is still a managed disk"
        );
    }
}
