//! `data/setups.toml`: the ZFS thresholds, the identities of hypervisors' virtual disks and the
//! cloud volumes told apart by what the guest sees, each with its fix and sources.

use std::sync::OnceLock;

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
    /// `network` (block storage over the network) or `local` (instance storage).
    pub kind: String,
    pub label: String,
    pub burst: Option<String>,
    /// May hold `{serial_as_volume_id}`: the drive serial as an EBS volume id (`vol-...`).
    pub fix: String,
    pub sources: Vec<String>,
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

    /// The cloud volume that reports this identity.
    pub fn cloud_volume(&self, vendor: Option<&str>, model: &str) -> Option<&CloudVolume> {
        self.cloud_volumes
            .iter()
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
            .cloud_volume(Some("HC      "), "Volume          ")
            .is_some());
        assert!(setups.cloud_volume(Some("DO"), "Volume").is_some());
        assert!(setups.cloud_volume(None, "Volume").is_none());
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
        let kind = |model: &str| setups.cloud_volume(None, model).map(|v| v.kind.as_str());
        // GCP names each local SSD controller (C3: nvme_card0 ... nvme_card15); the
        // persistent disk behind NVMe is `nvme_card-pd`.
        assert_eq!(kind("nvme_card"), Some("local"));
        assert_eq!(kind("nvme_card15"), Some("local"));
        assert_eq!(kind("nvme_card-pd"), Some("network"));
        assert_eq!(kind("MSFT NVMe Accelerator v1.0"), Some("network"));
        assert_eq!(kind("Microsoft NVMe Direct Disk v2"), Some("local"));
        assert_eq!(kind("Microsoft NVMe Direct Disk"), Some("local"));
        assert_eq!(kind("nvme_cardx"), None);
        for provider in ["vultr", "openstack", "hetzner", "netcup", "contabo"] {
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
}
