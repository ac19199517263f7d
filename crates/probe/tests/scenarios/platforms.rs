//! Virtual and cloud machines: the platform facts and their virtual disks.

use super::*;

#[test]
fn virtio_vps() {
    let facts = run("virtio_vps");
    assert_eq!(facts.stack, vec!["vda1", "vda"]);
    assert_drive(only_drive(&facts), |d| Drive {
        interface: Some(Interface::Virtio),
        // Virtio has no model; never a guess.
        model: None,
        // An empty serial is unknown.
        serial: None,
        controller_driver: Some("virtio_blk".into()),
        capacity_bytes: Some(343_597_383_680),
        ..d
    });
    assert_eq!(facts.platform.cloud.as_deref(), Some("hetzner"));
    assert_eq!(facts.platform.virtualized, Some(true));
    assert_eq!(
        facts.mount.as_ref().and_then(|m| m.total_bytes),
        Some(337_000_000_000)
    );
    snapshot("virtio_vps", &facts);
}

#[test]
fn netcup_rs() {
    let facts = run("netcup_rs");
    assert_eq!(facts.platform.sys_vendor.as_deref(), Some("netcup"));
    assert_eq!(facts.platform.product_name.as_deref(), Some("KVM Server"));
    assert_eq!(
        facts.platform.bios_version.as_deref(),
        Some("RS 2000 G9"),
        "Netcup names the product line only in the BIOS version"
    );
    assert_eq!(facts.platform.cloud.as_deref(), Some("netcup"));
    assert_eq!(only_drive(&facts).interface, Some(Interface::Virtio));
    snapshot("netcup_rs", &facts);
}

/// An OVH VPS (OpenStack Nova on OVH's SeaBIOS build) is `ovh`; an OVH dedicated server on
/// the ASRock Rack board built for OVH is `ovh` too, and bare metal.
#[test]
fn ovh_vps_and_dedicated() {
    let vps = run("ovh_vps");
    assert_eq!(vps.platform.product_name.as_deref(), Some("OpenStack Nova"));
    assert_eq!(
        vps.platform.bios_version.as_deref(),
        Some("Ubuntu-1.8.2-1ubuntu1~cloud0+ovh1")
    );
    assert_eq!(vps.platform.cloud.as_deref(), Some("ovh"));
    assert_eq!(vps.platform.virtualized, Some(true));

    let dedicated = run("ovh_dedicated");
    assert_eq!(
        dedicated.platform.board_name.as_deref(),
        Some("E3C252D4U-2T/OVH")
    );
    assert_eq!(dedicated.platform.cloud.as_deref(), Some("ovh"));
    assert_eq!(dedicated.platform.virtualized, Some(false));
    assert_eq!(only_drive(&dedicated).interface, Some(Interface::Nvme));
}

/// A Contabo VPS reports plain QEMU: it is a KVM guest whose provider cannot be told.
#[test]
fn contabo_vps_is_plain_kvm() {
    let facts = run("contabo_vps");
    assert_eq!(facts.platform.sys_vendor.as_deref(), Some("QEMU"));
    assert_eq!(
        facts.platform.product_name.as_deref(),
        Some("Standard PC (i440FX + PIIX, 1996)")
    );
    assert_eq!(facts.platform.board_vendor, None, "i440FX has no baseboard");
    assert_eq!(facts.platform.cloud.as_deref(), Some("kvm"));
    assert_eq!(facts.platform.virtualized, Some(true));
}

#[test]
fn aws_ebs() {
    let facts = run("aws_ebs");
    assert_eq!(facts.stack, vec!["nvme1n1"]);
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.fs_type, "xfs");
    assert_drive(only_drive(&facts), |d| Drive {
        name: "nvme1n1".into(),
        model: Some("Amazon Elastic Block Store".into()),
        serial: Some("vol0fedcba9876543210".into()),
        // Unknown speed and width 0 are not a link.
        pcie_link: None,
        trim_supported: Some(false),
        ..d
    });
    assert_eq!(facts.platform.cloud.as_deref(), Some("aws"));
    assert_eq!(facts.platform.virtualized, Some(true));
    snapshot("aws_ebs", &facts);
}
