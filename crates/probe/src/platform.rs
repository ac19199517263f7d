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
    ("ovh", "ovh"),
    ("contabo", "contabo"),
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
    let cloud = find(CLOUD_MARKERS)
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
    platform.virtualized = if cloud.is_some() || virtual_drives {
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
