//! Snapshot archives that are small but would unpack into unbounded trees, or whose gzip
//! stream is damaged past the tar's end, and archives made by plain `tar czf -C dir .`. Every
//! replay runs under [`crate::cli_support::run_limited`]: 256 MiB of address space, a time limit and a
//! bounded `$TMPDIR` that must be empty afterwards.

use std::path::Path;

use crate::cli_support::raw_tar::RawTar;
use crate::cli_support::{nodecheck, run_limited, Limited};

fn replay_limited(archive: &Path) -> Limited {
    run_limited(&["check".as_ref(), "--snapshot".as_ref(), archive.as_os_str()])
}

/// Exit 4, naming the archive and saying `why`.
fn assert_refused(out: &Limited, archive: &Path, why: &str) {
    assert_eq!(out.code, Some(4), "exit 4, not a crash: {}", out.stderr);
    assert!(
        out.stderr.contains(&archive.display().to_string()),
        "names {}: {}",
        archive.display(),
        out.stderr
    );
    assert!(out.stderr.contains(why), "says {why:?}: {}", out.stderr);
}

/// A real snapshot of a small directory, made by this build.
fn good_snapshot(dir: &Path) -> std::path::PathBuf {
    let archive = dir.join("good.tar.gz");
    nodecheck()
        .args(["-q", "snapshot", "-o"])
        .arg(&archive)
        .arg(dir)
        .assert()
        .success();
    archive
}

#[test]
fn a_few_kilobytes_of_nested_directories_are_refused_by_depth() {
    // The repro: 200 entries of `d{i}/` followed by `a/` 2000 times, 4.9 KB gzipped.
    let dir = tempfile::tempdir().expect("tempdir");
    let archive = dir.path().join("deep.tar.gz");
    let mut tar = RawTar::create(&archive);
    for i in 0..200 {
        let name = format!("d{i}/{}", "a/".repeat(2000));
        tar.entry(&name, tar::EntryType::Directory, &[]);
    }
    tar.finish();
    assert!(std::fs::metadata(&archive).unwrap().len() < 64 << 10);
    let out = replay_limited(&archive);
    assert_refused(
        &out,
        &archive,
        "directories deep, deeper than any path a snapshot holds",
    );
    assert!(out.stderr.contains("entry 2 (d0/a/a/"), "{}", out.stderr);
}

#[test]
fn an_archive_making_more_directories_than_a_snapshot_has_is_refused() {
    // Each entry is a modest 40 directories deep, but 300 of them make 12,000 directories.
    let dir = tempfile::tempdir().expect("tempdir");
    let archive = dir.path().join("wide.tar.gz");
    let mut tar = RawTar::create(&archive);
    for i in 0..300 {
        let name = format!("d{i}/{}", "a/".repeat(39));
        tar.entry(&name, tar::EntryType::Directory, &[]);
    }
    tar.finish();
    let out = replay_limited(&archive);
    assert_refused(&out, &archive, "creates more than 10000 directories");
}

#[test]
fn an_archive_of_empty_files_past_the_inode_cap_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let archive = dir.path().join("inodes.tar.gz");
    let mut tar = RawTar::create(&archive);
    for i in 0..60_000 {
        tar.entry(&format!("f/{i}"), tar::EntryType::Regular, &[]);
    }
    tar.finish();
    let out = replay_limited(&archive);
    assert_refused(
        &out,
        &archive,
        "creates more than 50000 files and directories",
    );
}

#[test]
fn a_snapshot_with_a_stale_crc_or_a_cut_trailer_is_damaged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = std::fs::read(good_snapshot(dir.path())).expect("archive");
    let stale_crc = dir.path().join("stale-crc.tar.gz");
    let mut bytes = good.clone();
    // The gzip trailer is CRC-32 then ISIZE, 4 bytes each, little-endian (RFC 1952).
    let crc_at = bytes.len() - 8;
    bytes[crc_at] ^= 0x5a;
    std::fs::write(&stale_crc, &bytes).expect("write");
    let cut = dir.path().join("cut.tar.gz");
    std::fs::write(&cut, &good[..good.len() - 10]).expect("write");
    for archive in [&stale_crc, &cut] {
        let out = replay_limited(archive);
        assert_refused(&out, archive, "is damaged");
    }
    let out = replay_limited(&dir.path().join("good.tar.gz"));
    assert!(
        matches!(out.code, Some(0..=2)),
        "the intact one replays: {}",
        out.stderr
    );
}

#[test]
fn a_snapshot_repacked_with_tar_c_dot_replays() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = good_snapshot(dir.path());
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    let untar = std::process::Command::new("tar")
        .arg("xzf")
        .arg(&good)
        .arg("-C")
        .arg(&tree)
        .status();
    let Ok(status) = untar else {
        println!("SKIPPED: no tar(1) on this machine to repack the snapshot with");
        return;
    };
    assert!(status.success());
    let repacked = dir.path().join("repacked.tar.gz");
    let status = std::process::Command::new("tar")
        .arg("czf")
        .arg(&repacked)
        .args(["-C"])
        .arg(&tree)
        .arg(".")
        .status()
        .expect("tar");
    assert!(status.success());
    let listing = std::process::Command::new("tar")
        .arg("tzf")
        .arg(&repacked)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&listing.stdout).starts_with("./\n"),
        "entries start with ./"
    );
    let out = replay_limited(&repacked);
    assert!(matches!(out.code, Some(0..=2)), "replays: {}", out.stderr);
    let original = replay_limited(&good);
    assert_eq!(
        out.stdout.replace("repacked.tar.gz", "good.tar.gz"),
        original.stdout,
        "the same report as the original archive"
    );
}
