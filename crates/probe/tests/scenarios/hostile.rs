//! Hostile sysfs trees: missing, empty, non-UTF-8 or huge attributes, loops, and links that
//! point out of the root.

use super::*;

/// Nothing names the drive or the machine: no model, no capacity, no DMI vendor.
fn assert_identity_unknown(facts: &Facts) {
    let drive = only_drive(facts);
    assert_eq!(drive.model, None);
    assert_eq!(drive.capacity_bytes, None);
    assert_eq!(facts.platform.sys_vendor, None);
}

#[test]
fn hostile_missing_attributes_are_unknown() {
    let facts = run("hostile_missing_attributes");
    assert_identity_unknown(&facts);
    let drive = only_drive(&facts);
    assert_eq!(drive.serial, None);
    assert_eq!(drive.rotational, None);
    assert_eq!(drive.temperature_c, None);
    assert_eq!(
        drive.hmb, None,
        "no osrelease and no transport: cannot tell"
    );
    let link = drive.pcie_link.expect("max width is still there");
    assert_eq!(
        (link.current_gts, link.max_gts, link.max_width),
        (None, None, Some(4))
    );
    assert_eq!(
        facts.trim_effective, None,
        "the disk's discard limit is unknown"
    );
    assert_eq!(facts.io_uring.sysctl_disabled, None);
    assert_eq!(facts.fstrim_timer, Some(true));
}

#[test]
fn hostile_empty_attributes_are_unknown() {
    let facts = run("hostile_empty_attributes");
    assert_identity_unknown(&facts);
    assert_eq!(only_drive(&facts).scheduler, None);
    assert_eq!(facts.mount.as_ref().and_then(|m| m.free_bytes), None);
    assert_warning(&facts, "statvfs.json");
}

#[test]
fn hostile_non_utf8_is_replaced_with_a_warning() {
    let facts = run("hostile_non_utf8");
    let model = only_drive(&facts).model.clone().expect("model");
    assert!(model.starts_with("Samsung SSD \u{fffd}"), "{model}");
    assert!(facts
        .platform
        .sys_vendor
        .as_deref()
        .is_some_and(|v| v.contains('\u{fffd}')));
    assert!(facts.warnings.iter().any(|w| w.contains("not valid UTF-8")));
}

#[test]
fn hostile_huge_model_is_capped() {
    let facts = run("hostile_huge_model");
    let drive = only_drive(&facts);
    // The 1 MB SCSI model is capped; IDENTIFY (also 1 MB, unparsable) is refused.
    assert!(drive.model.as_deref().is_some_and(|m| m.len() <= ATTR_CAP));
    assert_warning(&facts, "truncated");
    assert!(facts
        .platform
        .product_name
        .as_deref()
        .is_some_and(|p| p.len() <= ATTR_CAP));
}

#[test]
fn hostile_symlink_loops_end() {
    let facts = run("hostile_symlink_loops");
    assert_eq!(facts.stack, vec!["dm-0", "dm-1", "nvme0n1p3", "nvme0n1"]);
    let drive = only_drive(&facts);
    assert_eq!(drive.nvme, None, "the controller link loops");
    assert_eq!(facts.platform.sys_vendor, None);
    assert_warning(&facts, "symbolic links");
}

#[test]
fn hostile_links_never_leave_the_root() {
    let scenario = fixture::scenario_named("hostile_symlink_outside_root").expect("scenario");
    let dir = tempfile::tempdir().expect("tempdir");
    let root_dir = dir.path().join("root");
    (scenario.build)(&root_dir).expect("builds");
    // Bait right outside the root, where an escaping `..` would land.
    std::fs::create_dir_all(dir.path().join("etc")).expect("mkdir");
    std::fs::write(dir.path().join("etc/hostname"), "OUTSIDE-THE-ROOT\n").expect("write");
    std::fs::write(dir.path().join("etc/machine-id"), "OUTSIDE-THE-ROOT\n").expect("write");
    let root = Root::at(&root_dir).expect("root").recording();
    let facts = probe_path(
        &root,
        Path::new(scenario.probe_path),
        &ProbeOptions::default(),
    )
    .expect("probe");
    let json = serde_json::to_string(&facts).expect("json");
    assert!(!json.contains("OUTSIDE-THE-ROOT"));
    let drive = only_drive(&facts);
    assert_eq!(drive.model, None, "ROOT/etc/hostname does not exist");
    assert_eq!(drive.serial, None, "ROOT/etc/machine-id does not exist");
    // An absolute link to /proc/self/mountinfo lands on the fixture's mountinfo.
    assert_eq!(drive.pcie_link.and_then(|l| l.current_gts), None);
    for entry in root.accessed() {
        let host = root.host_path(&entry.path);
        assert!(
            host.starts_with(probed_base(&root_dir)),
            "{}",
            host.display()
        );
    }
}

fn probed_base(root_dir: &Path) -> PathBuf {
    std::fs::canonicalize(root_dir).expect("canonical")
}

#[test]
fn hostile_mountinfo_escapes_are_decoded() {
    let facts = run("hostile_mountinfo_escapes");
    let mount = facts.mount.as_ref().expect("mount");
    assert_eq!(mount.mount_point, "/var/lib/eth node");
    assert_eq!(mount.dev, "259:2");
    assert_eq!(facts.stack, vec!["nvme0n1p2", "nvme0n1"]);
    assert!(facts.warnings.iter().any(|w| w.contains("malformed")));
}

#[test]
fn hostile_garbage_identify_falls_back_to_scsi() {
    let facts = run_one_drive("hostile_garbage_identify", |d| Drive {
        model: Some("CT2000MX500SSD1".into()),
        // Only the SCSI rev is left.
        firmware: Some("046".into()),
        ..d
    });
    assert_warning(&facts, "IDENTIFY");
}

#[test]
fn every_scenario_probes_without_panicking() {
    for scenario in SCENARIOS {
        let probed = run(scenario.name);
        assert!(probed.root_dir.exists());
        assert_eq!(probed.schema_version, SCHEMA_VERSION);
    }
}
