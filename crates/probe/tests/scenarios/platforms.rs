//! Virtual and cloud machines: the platform facts and their virtual disks.

use super::*;

#[test]
fn virtio_vps() {
    let facts = run("virtio_vps");
    assert_eq!(facts.stack, vec!["vda1", "vda"]);
    let drive = only_drive(&facts);
    assert_eq!(drive.interface, Some(Interface::Virtio));
    assert_eq!(drive.model, None, "virtio has no model; never a guess");
    assert_eq!(drive.serial, None, "empty serial is unknown");
    assert_eq!(drive.controller_driver.as_deref(), Some("virtio_blk"));
    assert_eq!(drive.capacity_bytes, Some(343_597_383_680));
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

#[test]
fn aws_ebs() {
    let facts = run("aws_ebs");
    assert_eq!(facts.stack, vec!["nvme1n1"]);
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.fs_type, "xfs");
    let drive = only_drive(&facts);
    assert_eq!(drive.name, "nvme1n1");
    assert_eq!(drive.model.as_deref(), Some("Amazon Elastic Block Store"));
    assert_eq!(drive.serial.as_deref(), Some("vol0fedcba9876543210"));
    assert_eq!(
        drive.pcie_link, None,
        "unknown speed and width 0 are not a link"
    );
    assert_eq!(drive.trim_supported, Some(false));
    assert_eq!(facts.platform.cloud.as_deref(), Some("aws"));
    assert_eq!(facts.platform.virtualized, Some(true));
    snapshot("aws_ebs", &facts);
}
