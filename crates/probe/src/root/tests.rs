//! Tests of `Root`: reads under a tree, recording for snapshots, hostile files.

use super::*;
use std::os::unix::fs::symlink;

fn tree() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir_all(dir.path().join("sys/devices/a/b")).expect("mkdir");
    fs::create_dir_all(dir.path().join("sys/block")).expect("mkdir");
    fs::create_dir_all(dir.path().join("etc")).expect("mkdir");
    fs::write(dir.path().join("sys/devices/a/b/size"), "100\n").expect("write");
    fs::write(dir.path().join("etc/passwd"), "fixture\n").expect("write");
    symlink("../devices/a/b", dir.path().join("sys/block/b")).expect("symlink");
    symlink("/etc/passwd", dir.path().join("sys/block/abs")).expect("symlink");
    symlink(
        "../../../../../../../../etc/passwd",
        dir.path().join("sys/block/up"),
    )
    .expect("symlink");
    symlink("loop2", dir.path().join("sys/block/loop1")).expect("symlink");
    symlink("loop1", dir.path().join("sys/block/loop2")).expect("symlink");
    let root = Root::at(dir.path()).expect("root").recording();
    (dir, root)
}

#[test]
fn relative_absolute_and_upward_links_stay_inside_the_root() {
    let (_dir, root) = tree();
    for (attr, text) in [
        ("/sys/block/b/size", "100"),
        ("/sys/block/abs", "fixture"),
        ("/sys/block/up", "fixture"),
    ] {
        assert_eq!(root.read_attr(attr).as_deref(), Some(text), "{attr}");
    }
    for (path, canonical) in [
        ("/sys/block/b", "/sys/devices/a/b"),
        ("/../../etc/passwd", "/etc/passwd"),
    ] {
        assert_eq!(
            root.canonicalize(path).expect("resolves"),
            PathBuf::from(canonical),
            "{path}"
        );
    }
}

#[test]
fn loops_are_an_error_not_a_hang() {
    let (_dir, root) = tree();
    assert!(matches!(
        root.canonicalize("/sys/block/loop1"),
        Err(ProbeError::SymlinkLoop { .. })
    ));
    assert_eq!(root.read_attr("/sys/block/loop1/size"), None);
    assert!(root
        .take_warnings()
        .iter()
        .any(|w| w.contains("symbolic links")));
}

#[test]
fn recording_lists_files_and_links() {
    let (_dir, root) = tree();
    root.read_attr("/sys/block/b/size");
    let accessed = root.accessed();
    assert!(accessed.contains(&AccessedPath {
        path: PathBuf::from("/sys/block/b"),
        kind: AccessKind::Symlink {
            target: PathBuf::from("../devices/a/b")
        },
    }));
    assert!(accessed.contains(&AccessedPath {
        path: PathBuf::from("/sys/devices/a/b/size"),
        kind: AccessKind::File,
    }));
}

#[test]
fn smartctl_outputs_are_kept_only_while_recording() {
    let (dir, root) = tree();
    root.record_smartctl_output("nvme0n1", b"{\"json_format_version\": [1, 0]}");
    root.record_smartctl_output("sda", b"{}");
    assert_eq!(
        root.smartctl_outputs(),
        vec![
            (
                "nvme0n1".to_string(),
                b"{\"json_format_version\": [1, 0]}".to_vec()
            ),
            ("sda".to_string(), b"{}".to_vec()),
        ]
    );
    let not_recording = Root::at(dir.path()).expect("root");
    not_recording.record_smartctl_output("sda", b"{}");
    assert!(not_recording.smartctl_outputs().is_empty());
}

#[test]
fn command_outputs_are_kept_only_while_recording() {
    let (dir, root) = tree();
    root.record_command_output("/nodecheck/zfs/zpool-get.txt", b"ashift\t12\n");
    assert_eq!(
        root.command_outputs(),
        vec![(
            PathBuf::from("/nodecheck/zfs/zpool-get.txt"),
            b"ashift\t12\n".to_vec()
        )]
    );
    let not_recording = Root::at(dir.path()).expect("root");
    not_recording.record_command_output("/nodecheck/zfs/zpool-get.txt", b"ashift\t12\n");
    assert!(not_recording.command_outputs().is_empty());
}

#[test]
fn oversized_and_non_utf8_attributes_are_capped_and_replaced() {
    let (dir, root) = tree();
    fs::write(dir.path().join("big"), vec![b'x'; ATTR_CAP * 3]).expect("write");
    fs::write(dir.path().join("bad"), b"ab\xff\xfecd\n").expect("write");
    assert_eq!(root.read_attr("/big").map(|s| s.len()), Some(ATTR_CAP));
    assert_eq!(
        root.read_attr("/bad").as_deref(),
        Some("ab\u{fffd}\u{fffd}cd")
    );
    let warnings = root.take_warnings();
    assert!(warnings.iter().any(|w| w.contains("truncated")));
    assert!(warnings.iter().any(|w| w.contains("UTF-8")));
}

#[test]
fn fifos_are_not_opened() {
    let (dir, root) = tree();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    assert_eq!(root.read_attr("/fifo"), None);
}
