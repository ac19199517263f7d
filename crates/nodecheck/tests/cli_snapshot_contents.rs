//! A snapshot holds what the probe read from sysfs, procfs, /etc and smartctl, never the
//! contents of the checked path or anything under it. A path that is not a directory (a key
//! file, a device node, a FIFO, a socket) is described in the manifest, not read, and a FIFO
//! does not hang the snapshot.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::cli_support::{assert_contains, fifo, run_limited, written, Limited};
use flate2::read::GzDecoder;
use nodecheck::snapshot::{Manifest, MANIFEST};

const SECRET: &str = "NODEKEY-0123456789abcdef-DO-NOT-LEAK";

/// `snapshot -o ARCHIVE PATH`, which must succeed: how it ended and what the archive holds.
fn snapshot(archive: &Path, path: &Path) -> (Limited, Vec<(PathBuf, tar::EntryType, Vec<u8>)>) {
    let out = run_limited(&[
        "snapshot".as_ref(),
        "-o".as_ref(),
        archive.as_os_str(),
        path.as_os_str(),
    ]);
    assert_eq!(out.code, Some(0), "{}: {}", path.display(), out.stderr);
    let entries = entries(archive);
    (out, entries)
}

/// Every entry of the archive: (path, kind, bytes).
fn entries(archive: &Path) -> Vec<(PathBuf, tar::EntryType, Vec<u8>)> {
    let file = std::fs::File::open(archive).expect("archive");
    let mut tar = tar::Archive::new(GzDecoder::new(file));
    tar.entries()
        .expect("entries")
        .map(|entry| {
            let mut entry = entry.expect("entry");
            let path = entry.path().expect("path").into_owned();
            let kind = entry.header().entry_type();
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).expect("read");
            (path, kind, bytes)
        })
        .collect()
}

fn manifest(entries: &[(PathBuf, tar::EntryType, Vec<u8>)]) -> Manifest {
    let (_, _, bytes) = entries
        .iter()
        .find(|(path, _, _)| path == Path::new(MANIFEST))
        .expect("manifest");
    serde_json::from_slice(bytes).expect("manifest parses")
}

fn assert_no_secret(entries: &[(PathBuf, tar::EntryType, Vec<u8>)]) {
    for (path, _, bytes) in entries {
        assert!(
            !String::from_utf8_lossy(bytes).contains(SECRET),
            "{} carries the key file's contents",
            path.display()
        );
    }
}

#[test]
fn a_key_file_as_path_is_described_not_copied() {
    let (dir, key) = written("nodekey", SECRET);
    let archive = dir.path().join("x.tar.gz");
    let (out, entries) = snapshot(&archive, &key);
    assert_no_secret(&entries);
    let kind = manifest(&entries).path_kind.expect("described");
    assert_eq!(kind.kind, "regular file");
    assert!(kind.device.contains(':'), "{}", kind.device);
    assert_contains(&out.stderr, "never its contents");
}

#[test]
fn files_under_a_directory_path_never_enter_the_archive() {
    let dir = tempfile::tempdir().expect("tempdir");
    let datadir = dir.path().join("datadir");
    std::fs::create_dir_all(datadir.join("geth")).expect("mkdir");
    std::fs::write(datadir.join("geth/nodekey"), SECRET).expect("write");
    std::fs::write(datadir.join("jwt.hex"), SECRET).expect("write");
    let archive = dir.path().join("x.tar.gz");
    let (_, entries) = snapshot(&archive, &datadir);
    assert_no_secret(&entries);
    assert_eq!(
        manifest(&entries).path_kind,
        None,
        "a directory needs no description"
    );
    for (path, kind, bytes) in &entries {
        let top = path.components().next().expect("component");
        let area = top.as_os_str().to_string_lossy();
        if !bytes.is_empty() {
            assert!(
                [
                    "sys",
                    "proc",
                    "etc",
                    "usr",
                    "lib",
                    "nodecheck",
                    ".nodecheck",
                    MANIFEST
                ]
                .contains(&area.as_ref()),
                "contents from outside the probe's areas: {} ({kind:?})",
                path.display()
            );
        }
    }
}

#[test]
fn a_fifo_or_socket_as_path_neither_hangs_nor_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = fifo(dir.path());
    let socket = dir.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    for (path, kind) in [(&fifo, "FIFO"), (&socket, "socket")] {
        let archive = dir.path().join(format!("{kind}.tar.gz"));
        let (_, entries) = snapshot(&archive, path);
        assert_eq!(
            manifest(&entries).path_kind.map(|k| k.kind).as_deref(),
            Some(kind)
        );
    }
}

/// A device node as PATH: described by its own device number, and no byte of the device in
/// the archive (every entry under `dev/` is an empty stand-in).
#[test]
fn a_device_as_path_is_described_by_its_number_not_read() {
    let Some(device) = first_block_device() else {
        println!("skipped: no block device node under /dev to snapshot");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let archive = dir.path().join("x.tar.gz");
    let (_, entries) = snapshot(&archive, &device);
    let kind = manifest(&entries).path_kind.expect("described");
    assert_eq!(kind.kind, "block device");
    let rdev = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(&device).expect("stat").rdev()
    };
    assert_eq!(
        kind.device,
        format!(
            "{}:{}",
            nix::sys::stat::major(rdev),
            nix::sys::stat::minor(rdev)
        )
    );
    for (path, _, bytes) in &entries {
        if path.starts_with("dev") {
            assert!(bytes.is_empty(), "{} holds device data", path.display());
        }
    }
    let total: usize = entries.iter().map(|(_, _, b)| b.len()).sum();
    assert!(
        total < 8 << 20,
        "{total} bytes: device data in the archive?"
    );
}

fn first_block_device() -> Option<PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir("/sys/block")
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| Path::new("/dev").join(name))
        .find(|path| {
            use std::os::unix::fs::FileTypeExt;
            std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
        })
}
