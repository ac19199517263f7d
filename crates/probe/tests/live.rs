//! The probe on the machine running the tests.

use std::path::Path;
use test_support::skip;

use ::probe::probe_path;
use ::probe::{Interface, ProbeOptions, Root};

#[test]
fn probes_this_machines_virtio_disk_and_ext4_root() {
    if !Path::new("/sys/block/vda").exists() {
        skip("/sys/block/vda is absent (this test targets the project's virtio VM)");
        return;
    }
    let root = Root::live();
    let opts = ProbeOptions {
        run_smartctl: false,
        ..ProbeOptions::default()
    };
    let facts = probe_path(&root, Path::new("/"), &opts).expect("live probe");
    assert!(facts.live);
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.mount_point, "/");
    assert_eq!(mount.fs_type, "ext4", "{mount:?}");
    let total = mount.total_bytes.expect("statvfs total");
    let free = mount.free_bytes.expect("statvfs free");
    assert!(total > 0 && free <= total);
    let vda = facts
        .drives
        .iter()
        .find(|drive| drive.name == "vda")
        .unwrap_or_else(|| panic!("no vda in {:?}", facts.stack));
    assert_eq!(vda.interface, Some(Interface::Virtio));
    assert_eq!(vda.controller_driver.as_deref(), Some("virtio_blk"));
    let size: u64 = std::fs::read_to_string("/sys/block/vda/size")
        .expect("size")
        .trim()
        .parse()
        .expect("number");
    assert_eq!(vda.capacity_bytes, Some(size * 512));
    assert_eq!(facts.stack.last().map(String::as_str), Some("vda"));
    assert_eq!(facts.platform.virtualized, Some(true));
    // io_uring was really tried: either it works or we say why not.
    let io_uring = &facts.io_uring;
    assert!(
        io_uring.available == Some(true) || io_uring.reason.is_some(),
        "{io_uring:?}"
    );
}

#[test]
fn a_missing_live_path_is_an_error() {
    let err = probe_path(
        &Root::live(),
        Path::new("/nonexistent/nodecheck/path"),
        &ProbeOptions::default(),
    )
    .expect_err("must fail");
    assert!(
        err.to_string().contains("/nonexistent/nodecheck/path"),
        "{err}"
    );
}

#[test]
fn recording_a_live_probe_lists_what_was_read() {
    if !Path::new("/sys/block").exists() {
        skip("no /sys on this machine");
        return;
    }
    let root = Root::live().recording();
    let opts = ProbeOptions {
        run_smartctl: false,
        ioctls: false,
        ..ProbeOptions::default()
    };
    probe_path(&root, Path::new("/"), &opts).expect("live probe");
    let accessed = root.accessed();
    assert!(accessed
        .iter()
        .any(|entry| entry.path.starts_with("/proc") && entry.path.ends_with("mountinfo")));
    assert!(accessed
        .iter()
        .any(|entry| entry.path.starts_with("/sys/dev/block")));
}
