//! The hosting platform from DMI (`/sys/class/dmi/id`, world-readable) and drive models:
//! which cloud or hypervisor, and whether the disks are virtual.

use crate::facts::{Drive, Interface, Platform};
use crate::root::Root;

const DMI: &str = "/sys/class/dmi/id";

/// Vendors recognised by a substring of any DMI identity field (lowercased), most specific
/// first: clouds that run on KVM/Xen must win over the hypervisor's own name.
const CLOUD_MARKERS: &[(&str, &str)] = &[
    ("amazon ec2", "aws"),
    // Xen-based EC2 generations: sys_vendor "Xen", bios_version "4.11.amazon".
    ("amazon", "aws"),
    ("google compute engine", "gcp"),
    ("google", "gcp"),
    ("hetzner", "hetzner"),
    // No `contabo` marker: Contabo's VPS show plain QEMU (hostnamectl on
    // `vmi2306187.contaboserver.net`: `Hardware Vendor: QEMU`, `Hardware Model: Standard PC
    // _i440FX + PIIX, 1996_`), so they are `kvm`. OVHcloud is recognised by `ovh_host`.
    ("netcup", "netcup"),
    ("digitalocean", "digitalocean"),
    ("vultr", "vultr"),
    ("linode", "linode"),
    ("akamai", "linode"),
    ("scaleway", "scaleway"),
    ("alibaba cloud", "alibaba"),
    ("oraclecloud", "oracle"),
    ("openstack", "openstack"),
];

/// OVHcloud, from the identities real machines report (docs/sources/setups.md):
/// - a VPS (joedicastro/vps-comparison, `logs/ovh-vpsssd1-ubuntu/hard_dmidecode.log`):
///   OpenStack Nova whose SeaBIOS is OVH's build, BIOS version
///   `Ubuntu-1.8.2-1ubuntu1~cloud0+ovh1`; other OpenStack guests stay `openstack`;
/// - a dedicated server (linuxhw/DMI): system manufacturer `OVH` (product `SP`), or an
///   ASRock Rack board built for OVH, `E3C252D4U-2T/OVH` or `ROMED8-2T/OVH`.
///
/// Returns whether the machine is a dedicated server (bare metal) or a VPS.
fn ovh_host(platform: &Platform) -> Option<OvhHost> {
    let is = |field: &Option<String>, value: &str| field.as_deref() == Some(value);
    if is(&platform.product_name, "OpenStack Nova")
        && platform
            .bios_version
            .as_deref()
            .is_some_and(|v| v.contains("+ovh"))
    {
        return Some(OvhHost::Vps);
    }
    let ovh_board = platform
        .board_name
        .as_deref()
        .is_some_and(|name| name.ends_with("/OVH"));
    (is(&platform.sys_vendor, "OVH") || ovh_board).then_some(OvhHost::Dedicated)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OvhHost {
    Vps,
    Dedicated,
}

/// Hypervisors recognised when no cloud is.
const HYPERVISOR_MARKERS: &[(&str, &str)] = &[
    ("vmware", "vmware"),
    ("qemu", "kvm"),
    ("kvm", "kvm"),
    ("xen", "xen"),
    ("virtualbox", "virtualbox"),
    ("innotek", "virtualbox"),
    ("bochs", "kvm"),
    ("parallels", "parallels"),
];

/// Azure publishes this chassis asset tag on every VM; plain Hyper-V does not.
const AZURE_ASSET_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

pub fn read(root: &Root, drives: &[Drive]) -> Platform {
    let attr = |name: &str| root.read_attr(format!("{DMI}/{name}"));
    let mut platform = Platform {
        sys_vendor: attr("sys_vendor"),
        product_name: attr("product_name"),
        board_vendor: attr("board_vendor"),
        board_name: attr("board_name"),
        bios_vendor: attr("bios_vendor"),
        bios_version: attr("bios_version"),
        cloud: None,
        virtualized: None,
        // The device tree writes the model NUL-terminated.
        board_model: root
            .read_attr("/proc/device-tree/model")
            .map(|m| m.trim_end_matches('\0').to_string())
            .filter(|m| !m.is_empty()),
    };
    let asset_tag = attr("chassis_asset_tag");
    let hypervisor_type = root.read_attr("/sys/hypervisor/type");

    let identity: Vec<String> = [
        &platform.sys_vendor,
        &platform.product_name,
        &platform.board_vendor,
        &platform.bios_vendor,
        &platform.bios_version,
    ]
    .into_iter()
    .flatten()
    .map(|field| field.to_lowercase())
    .collect();
    let find = |markers: &[(&str, &'static str)]| {
        markers.iter().find_map(|(marker, name)| {
            identity
                .iter()
                .any(|field| field.contains(marker))
                .then_some(*name)
        })
    };

    let microsoft_vm = platform.sys_vendor.as_deref() == Some("Microsoft Corporation")
        && platform.product_name.as_deref() == Some("Virtual Machine");
    let ovh = ovh_host(&platform);
    let cloud = ovh
        .map(|_| "ovh")
        .or_else(|| find(CLOUD_MARKERS))
        .or_else(|| aws_from_drives(drives))
        .or_else(|| microsoft_vm.then(|| azure_or_hyperv(asset_tag.as_deref(), drives)))
        .or_else(|| find(HYPERVISOR_MARKERS))
        .or_else(|| {
            hypervisor_type
                .as_deref()
                .filter(|t| *t == "xen")
                .map(|_| "xen")
        });
    platform.cloud = cloud.map(str::to_string);

    let virtual_drives = drives.iter().any(is_virtual_drive);
    // A dedicated server names its host too, and is no virtual machine.
    let hosted_vm = cloud.is_some() && ovh != Some(OvhHost::Dedicated);
    platform.virtualized = if hosted_vm || virtual_drives {
        Some(true)
    } else if platform.sys_vendor.is_some() && drives.iter().all(|d| d.interface.is_some()) {
        // DMI is there and names no hypervisor, and every drive is a known physical kind.
        Some(false)
    } else {
        None
    };
    platform
}

fn azure_or_hyperv(asset_tag: Option<&str>, drives: &[Drive]) -> &'static str {
    let azure_disk = drives.iter().any(|d| {
        d.model
            .as_deref()
            // Local NVMe (`Microsoft NVMe Direct Disk`, `... v2`) or the controller that
            // carries the managed disks on newer sizes (`MSFT NVMe Accelerator v1.0`), as
            // azure-vm-utils' udev rules name them.
            .is_some_and(|m| {
                m.starts_with("Microsoft NVMe") || m.starts_with("MSFT NVMe Accelerator")
            })
    });
    if asset_tag == Some(AZURE_ASSET_TAG) || azure_disk {
        "azure"
    } else {
        "hyperv"
    }
}

/// Nitro instances expose EBS volumes and instance store as NVMe with these model strings,
/// even where DMI is hidden (containers).
fn aws_from_drives(drives: &[Drive]) -> Option<&'static str> {
    drives
        .iter()
        .any(|drive| {
            matches!(
                drive.model.as_deref(),
                Some("Amazon Elastic Block Store") | Some("Amazon EC2 NVMe Instance Storage")
            )
        })
        .then_some("aws")
}

fn is_virtual_drive(drive: &Drive) -> bool {
    matches!(
        drive.interface,
        Some(Interface::Virtio) | Some(Interface::Xen)
    ) || drive.model.as_deref() == Some("Amazon Elastic Block Store")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn platform_of(fields: &[(&str, &str)], drives: &[Drive]) -> Platform {
        let dir = tempfile::tempdir().expect("tempdir");
        let dmi = dir.path().join("sys/class/dmi/id");
        std::fs::create_dir_all(&dmi).expect("mkdir");
        for (name, value) in fields {
            std::fs::write(dmi.join(name), format!("{value}\n")).expect("write");
        }
        let root = Root::at(dir.path()).expect("root");
        read(&root, drives)
    }

    fn cloud(fields: &[(&str, &str)]) -> Option<String> {
        platform_of(fields, &[]).cloud
    }

    #[test]
    fn clouds_and_hypervisors_from_dmi() {
        type DmiFields = &'static [(&'static str, &'static str)];
        let cases: &[(DmiFields, Option<&str>)] = &[
            (
                &[
                    ("sys_vendor", "Google"),
                    ("product_name", "Google Compute Engine"),
                ],
                Some("gcp"),
            ),
            (
                &[
                    ("sys_vendor", "Amazon EC2"),
                    ("product_name", "c6id.4xlarge"),
                ],
                Some("aws"),
            ),
            (
                &[
                    ("sys_vendor", "Xen"),
                    ("product_name", "HVM domU"),
                    ("bios_version", "4.11.amazon"),
                ],
                Some("aws"),
            ),
            (
                &[("sys_vendor", "DigitalOcean"), ("product_name", "Droplet")],
                Some("digitalocean"),
            ),
            (
                &[
                    ("sys_vendor", "Microsoft Corporation"),
                    ("product_name", "Virtual Machine"),
                    ("chassis_asset_tag", AZURE_ASSET_TAG),
                ],
                Some("azure"),
            ),
            (
                &[
                    ("sys_vendor", "Microsoft Corporation"),
                    ("product_name", "Virtual Machine"),
                ],
                Some("hyperv"),
            ),
            (
                &[
                    ("sys_vendor", "QEMU"),
                    ("product_name", "Standard PC (Q35 + ICH9, 2009)"),
                ],
                Some("kvm"),
            ),
            (
                &[
                    ("sys_vendor", "VMware, Inc."),
                    ("product_name", "VMware Virtual Platform"),
                ],
                Some("vmware"),
            ),
            // A netdev oops from a Vultr instance: `Hardware name: Vultr VC2`.
            (
                &[("sys_vendor", "Vultr"), ("product_name", "VC2")],
                Some("vultr"),
            ),
            // OpenStack guests (OVHcloud Public Cloud among them) name only OpenStack.
            (
                &[
                    ("sys_vendor", "OpenStack Foundation"),
                    ("product_name", "OpenStack Nova"),
                    ("bios_vendor", "SeaBIOS"),
                ],
                Some("openstack"),
            ),
            (
                &[("sys_vendor", "netcup"), ("product_name", "KVM Server")],
                Some("netcup"),
            ),
            // An OVH VPS (vps-comparison's `ovh-vpsssd1-ubuntu` dmidecode): OpenStack Nova on
            // OVH's SeaBIOS build.
            (
                &[
                    ("sys_vendor", "OpenStack Foundation"),
                    ("product_name", "OpenStack Nova"),
                    ("bios_vendor", "SeaBIOS"),
                    ("bios_version", "Ubuntu-1.8.2-1ubuntu1~cloud0+ovh1"),
                ],
                Some("ovh"),
            ),
            // Another OpenStack cloud's SeaBIOS (a hostnamectl `Firmware Version:`) is not OVH.
            (
                &[
                    ("sys_vendor", "OpenStack Foundation"),
                    ("product_name", "OpenStack Nova"),
                    ("bios_version", "1.16.0-4.module_el8+603+e0ca2c01"),
                ],
                Some("openstack"),
            ),
            // OVH dedicated servers (linuxhw/DMI): an `SP` machine, ASRock Rack boards for OVH.
            (
                &[
                    ("sys_vendor", "OVH"),
                    ("product_name", "SP"),
                    ("board_vendor", "Intel Corporation"),
                    ("board_name", "DG31PR"),
                    ("bios_vendor", "Intel Corp."),
                    ("bios_version", "PRG3110H.86A.0071.2010.0318.1704"),
                ],
                Some("ovh"),
            ),
            (
                &[
                    ("sys_vendor", "To Be Filled By O.E.M."),
                    ("product_name", "E3C252D4U-2T"),
                    ("board_vendor", "ASRockRack"),
                    ("board_name", "E3C252D4U-2T/OVH"),
                    ("bios_vendor", "American Megatrends International, LLC."),
                    ("bios_version", "1.31.OV02"),
                ],
                Some("ovh"),
            ),
            (
                &[
                    ("sys_vendor", "To Be Filled By O.E.M."),
                    ("product_name", "To Be Filled By O.E.M."),
                    ("board_vendor", "ASRockRack"),
                    ("board_name", "ROMED8-2T/OVH"),
                    ("bios_vendor", "American Megatrends International, LLC."),
                    ("bios_version", "L3.28K"),
                ],
                Some("ovh"),
            ),
            // The same board sold to anyone else names no host.
            (
                &[
                    ("sys_vendor", "To Be Filled By O.E.M."),
                    ("board_vendor", "ASRockRack"),
                    ("board_name", "E3C252D4U-2T"),
                ],
                None,
            ),
            // A Contabo VPS (hostnamectl on `vmi2306187.contaboserver.net`) is plain QEMU.
            (
                &[
                    ("sys_vendor", "QEMU"),
                    ("product_name", "Standard PC (i440FX + PIIX, 1996)"),
                    (
                        "bios_version",
                        "rel-1.16.3-0-ga6ed6b701f0a-prebuilt.qemu.org",
                    ),
                ],
                Some("kvm"),
            ),
            (
                &[
                    ("sys_vendor", "Micro-Star International Co., Ltd."),
                    ("product_name", "MS-7C56"),
                ],
                None,
            ),
        ];
        for &(fields, expected) in cases {
            assert_eq!(cloud(fields).as_deref(), expected, "{fields:?}");
        }
    }

    /// An OVH dedicated server is named but is bare metal; an OVH VPS is a virtual machine.
    #[test]
    fn ovh_dedicated_is_not_virtual() {
        let nvme = Drive {
            name: "nvme0n1".into(),
            interface: Some(Interface::Nvme),
            ..Drive::default()
        };
        let dedicated = [
            ("sys_vendor", "To Be Filled By O.E.M."),
            ("board_vendor", "ASRockRack"),
            ("board_name", "E3C252D4U-2T/OVH"),
        ];
        let platform = platform_of(&dedicated, std::slice::from_ref(&nvme));
        assert_eq!(platform.cloud.as_deref(), Some("ovh"));
        assert_eq!(platform.virtualized, Some(false));
        let vps = [
            ("sys_vendor", "OpenStack Foundation"),
            ("product_name", "OpenStack Nova"),
            ("bios_version", "Ubuntu-1.8.2-1ubuntu1~cloud0+ovh1"),
        ];
        let platform = platform_of(&vps, &[]);
        assert_eq!(platform.cloud.as_deref(), Some("ovh"));
        assert_eq!(platform.virtualized, Some(true));
    }

    #[test]
    fn aws_from_nvme_models_when_dmi_is_hidden() {
        let drive = Drive {
            name: "nvme1n1".into(),
            model: Some("Amazon EC2 NVMe Instance Storage".into()),
            interface: Some(Interface::Nvme),
            ..Drive::default()
        };
        let platform = platform_of(&[], &[drive]);
        assert_eq!(platform.cloud.as_deref(), Some("aws"));
        assert_eq!(platform.virtualized, Some(true));
    }

    #[test]
    fn azure_from_its_nvme_models_without_the_asset_tag() {
        let hyperv = [
            ("sys_vendor", "Microsoft Corporation"),
            ("product_name", "Virtual Machine"),
        ];
        for model in [
            "MSFT NVMe Accelerator v1.0",
            "Microsoft NVMe Direct Disk v2",
        ] {
            let drive = Drive {
                name: "nvme0n1".into(),
                model: Some(model.into()),
                interface: Some(Interface::Nvme),
                ..Drive::default()
            };
            let platform = platform_of(&hyperv, &[drive]);
            assert_eq!(platform.cloud.as_deref(), Some("azure"), "{model}");
        }
        assert_eq!(cloud(&hyperv).as_deref(), Some("hyperv"));
    }

    #[test]
    fn bare_metal_needs_dmi_and_known_drives() {
        let nvme = Drive {
            name: "nvme0n1".into(),
            interface: Some(Interface::Nvme),
            ..Drive::default()
        };
        let metal = [
            ("sys_vendor", "Dell Inc."),
            ("product_name", "PowerEdge R650"),
        ];
        assert_eq!(
            platform_of(&metal, std::slice::from_ref(&nvme)).virtualized,
            Some(false)
        );
        assert_eq!(platform_of(&[], &[nvme]).virtualized, None);
    }
}
