//! What a recording Root lists is enough to replay the probe: copy exactly those files,
//! directories and symlinks into a fresh tree, probe the copy, get the same facts.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use crate::support::build_scenario;
use ::probe::fixture::SCENARIOS;
use ::probe::probe_path;
use ::probe::space::SNAPSHOT_STATVFS;
use ::probe::{AccessKind, AccessedPath};
use ::probe::{Facts, ProbeOptions, Root};

/// What `nodecheck snapshot` does with the list, minus the archive.
fn copy_accessed(root: &Root, accessed: &[AccessedPath], dest: &Path) {
    for entry in accessed {
        let relative = entry.path.strip_prefix("/").expect("absolute in-root path");
        let target = dest.join(relative);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).expect("parent directories");
        }
        match &entry.kind {
            AccessKind::Dir => fs::create_dir_all(&target).expect("directory"),
            AccessKind::File => {
                // Some sysfs/proc files vanish or refuse a second read; the probe tolerates
                // missing files, so the copy may too.
                if let Ok(bytes) = fs::read(root.host_path(&entry.path)) {
                    fs::write(&target, bytes).expect("file");
                }
            }
            // Tested for, never read: an empty stand-in, as the snapshot writes it.
            AccessKind::Present => fs::write(&target, b"").expect("stand-in"),
            AccessKind::Symlink { target: link } => {
                if fs::symlink_metadata(&target).is_err() {
                    symlink(link, &target).expect("symlink");
                }
            }
        }
    }
}

fn without_root(facts: &Facts) -> Facts {
    let mut facts = facts.clone();
    facts.root = String::new();
    facts
}

#[test]
fn every_scenario_replays_from_what_was_recorded() {
    for scenario in SCENARIOS {
        let original = build_scenario(scenario);
        let root = Root::at(original.path()).expect("root").recording();
        let path = Path::new(scenario.probe_path);
        let first = probe_path(&root, path, &ProbeOptions::default()).expect("probe");

        let copy = tempfile::tempdir().expect("tempdir");
        copy_accessed(&root, &root.accessed(), copy.path());
        let replayed = probe_path(
            &Root::at(copy.path()).expect("root"),
            path,
            &ProbeOptions::default(),
        )
        .expect("replay");
        assert_eq!(
            without_root(&first),
            without_root(&replayed),
            "{} does not replay",
            scenario.name
        );
    }
}

#[test]
fn this_machine_replays_from_what_was_recorded() {
    if !Path::new("/sys/block").is_dir() {
        println!("skipped: no /sys on this machine");
        return;
    }
    let opts = ProbeOptions {
        run_smartctl: false,
        ioctls: false,
        ..ProbeOptions::default()
    };
    let root = Root::live().recording();
    let live = probe_path(&root, Path::new("/"), &opts).expect("live probe");
    let copy = tempfile::tempdir().expect("tempdir");
    copy_accessed(&root, &root.accessed(), copy.path());
    let mount = live.mount.as_ref().expect("mount");
    if let (Some(free), Some(total)) = (mount.free_bytes, mount.total_bytes) {
        let statvfs = copy.path().join(SNAPSHOT_STATVFS.trim_start_matches('/'));
        fs::create_dir_all(statvfs.parent().expect("parent")).expect("mkdir");
        let json = serde_json::json!({ mount.mount_point.clone(): { "free_bytes": free, "total_bytes": total } });
        fs::write(statvfs, json.to_string()).expect("write");
    }
    let replayed =
        probe_path(&Root::at(copy.path()).expect("root"), Path::new("/"), &opts).expect("replay");
    assert!(!replayed.live);
    assert_eq!(live.mount, replayed.mount);
    assert_eq!(live.stack, replayed.stack);
    assert_eq!(live.layers, replayed.layers);
    assert_eq!(live.trim_effective, replayed.trim_effective);
    assert_eq!(live.drives, replayed.drives);
    assert_eq!(live.platform, replayed.platform);
    assert_eq!(live.fstrim_timer, replayed.fstrim_timer);
    assert_eq!(live.unresolved, replayed.unresolved);
    assert_eq!(
        live.io_uring.sysctl_disabled,
        replayed.io_uring.sysctl_disabled
    );
}
