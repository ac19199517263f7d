//! Snapshot archives: exactly the files the probe read on one machine, packed so that
//! `nodecheck check --snapshot FILE` (or `--root DIR` on the unpacked tree) gives the same
//! findings on another.
//!
//! Layout of the `.tar.gz`: the machine's tree at the top (`sys/...`, `proc/...`, `etc/...`),
//! symlinks kept as symlinks, `.nodecheck/statvfs.json` with the file system's free and total
//! bytes (the probe reads it under a replay root), one saved `smartctl -j -x` output per drive in
//! [`SMARTCTL_DIR`], and [`MANIFEST`] saying which path was asked about and which drives have a
//! smartctl output. docs/json.md documents the layout.

mod pack;
mod redaction;
mod unpack;

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use probe::{AccessKind, AccessedPath};
use serde::{Deserialize, Serialize};

use crate::redact::Redactor;

pub(crate) use pack::{write, Contents};

/// Test-only pause stages of the snapshot commands (see [`bench::pause_point`] and the list
/// in docs/bench.md): `snapshot -o` after the first entries went into the temporary archive…
pub(crate) const PAUSE_WRITING: &str = "snapshot-writing";
/// …and `check --snapshot` after the archive is unpacked into its temporary directory.
pub(crate) const PAUSE_UNPACKED: &str = "snapshot-unpacked";
pub use unpack::{unpack, unpack_stream, Unpacked};

/// The manifest's name at the top of the tree.
pub const MANIFEST: &str = "nodecheck-snapshot.json";
/// Where saved smartctl outputs go inside the tree.
pub const SMARTCTL_DIR: &str = "nodecheck/smartctl";

/// Files the probe reads are sysfs attributes, mountinfo and small /etc files; anything larger
/// in an archive is not a snapshot.
const MAX_FILE_BYTES: u64 = 16 << 20;
const MAX_TOTAL_BYTES: u64 = 256 << 20;
const MAX_ENTRIES: usize = 200_000;
/// Where the probe reads contents: kernel attributes, procfs, configuration and systemd unit
/// files. A snapshot copies contents from nowhere else, whatever the recording lists, so the
/// checked path and anything under it never enter an archive.
const CONTENT_AREAS: &[&str] = &["/sys", "/proc", "/etc", "/usr/lib/systemd", "/lib/systemd"];
/// Where an object the probe only tested for gets an empty stand-in: the content areas and
/// `/dev` (device nodes the stack resolves through).
const STAND_IN_AREAS: &[&str] = &[
    "/sys",
    "/proc",
    "/etc",
    "/usr/lib/systemd",
    "/lib/systemd",
    "/dev",
];
/// A manifest is a few hundred bytes.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;
/// Linux's PATH_MAX: no name in a snapshot is longer.
const MAX_NAME_BYTES: u64 = 4096;
/// A PAX header naming one entry is a few records.
const MAX_PAX_BYTES: u64 = 64 << 10;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub nodecheck_version: String,
    /// The path the probe was asked about on the original machine.
    pub path: String,
    /// Drive names with a saved smartctl output in [`SMARTCTL_DIR`]; the replay merges all
    /// of them.
    #[serde(default)]
    pub smartctl: Vec<String>,
    pub redacted: bool,
    /// What the path was when it is not a directory (a file, a device node, a FIFO, a
    /// socket): described from `stat`, never opened or read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_kind: Option<PathKind>,
}

/// A non-directory path as `stat` sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathKind {
    /// `regular file`, `block device`, `character device`, `FIFO`, `socket`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `major:minor`: the device node's own number for a device, else the file system's.
    pub device: String,
}

/// `stat` of `path` (following links, as the probe does), `None` for a directory or a path
/// that cannot be examined. `stat` opens nothing, so a FIFO cannot block it.
pub(crate) fn describe_path(path: &Path) -> Option<PathKind> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let metadata = fs::metadata(path).ok()?;
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return None;
    }
    let device = if file_type.is_block_device() || file_type.is_char_device() {
        metadata.rdev()
    } else {
        metadata.dev()
    };
    Some(PathKind {
        kind: probe::input::kind_name(file_type).to_string(),
        device: format!(
            "{}:{}",
            nix::sys::stat::major(device),
            nix::sys::stat::minor(device)
        ),
    })
}

/// The saved smartctl outputs of a snapshot, one per drive its manifest lists, as paths inside
/// the replayed tree (the probe reads them through its root). Snapshots with a single
/// smartctl file (or none) replay the same way.
pub(crate) fn smartctl_files(manifest: &Manifest) -> Vec<PathBuf> {
    manifest
        .smartctl
        .iter()
        .map(|drive| {
            Path::new("/")
                .join(SMARTCTL_DIR)
                .join(format!("{}.json", safe_name(drive)))
        })
        .collect()
}

fn safe_name(drive: &str) -> String {
    drive
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The manifest of a replayed tree (`check --root DIR`), when it has one; read through the
/// root, so a manifest that is a symlink resolves inside the tree.
pub(crate) fn read_manifest(root: &probe::Root) -> Option<Manifest> {
    let bytes = root
        .read_document(
            Path::new("/").join(MANIFEST),
            MAX_MANIFEST_BYTES,
            "a snapshot manifest",
        )
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::pack::append_file;
    use super::redaction::blank_identify_serial;
    use super::unpack::{checked_relative, ensure_no_symlink_between};
    use super::*;

    #[test]
    fn identify_serial_words_are_blanked_in_place() {
        let words: Vec<String> = (0..256).map(|i| format!("{:04x}", i)).collect();
        let dump: String = words.chunks(8).map(|line| line.join(" ") + "\n").collect();
        let out = blank_identify_serial(&dump);
        assert_eq!(out.len(), dump.len());
        let tokens: Vec<&str> = out.split_whitespace().collect();
        assert_eq!(tokens[9], "0009");
        assert!(tokens[10..20].iter().all(|t| *t == "2020"));
        assert_eq!(tokens[20], "0014");
    }

    fn identify_dump(serial: &str) -> String {
        let words = probe::ata::IdentifyBuilder::new()
            .model("Samsung SSD 870 QVO 4TB")
            .firmware("SVQ02B6Q")
            .serial(serial)
            .trim(true, true)
            .build();
        probe::ata::encode_identify_text(&words)
    }

    #[test]
    fn a_signed_identify_dump_stays_valid_after_blanking() {
        let dump = identify_dump("S5VYNG0N123456A");
        let before = probe::ata::parse_identify_text(dump.as_bytes()).expect("valid dump");
        assert_eq!(before.checksum_ok, Some(true));
        assert_eq!(before.serial, "S5VYNG0N123456A");
        let out = blank_identify_serial(&dump);
        assert_eq!(out.len(), dump.len());
        let after = probe::ata::parse_identify_text(out.as_bytes()).expect("still a dump");
        assert_eq!(after.serial, "");
        assert_eq!(after.checksum_ok, Some(true), "re-signed");
        assert_eq!(after.model, before.model);
    }

    #[test]
    fn a_bad_identify_checksum_survives_blanking() {
        let dump = identify_dump("S5VYNG0N123456A");
        let mut words = probe::ata::parse_identify_words_text(dump.as_bytes()).expect("dump");
        words[30] ^= 0x0001;
        let corrupted = probe::ata::encode_identify_text(&words);
        let out = blank_identify_serial(&corrupted);
        let after = probe::ata::parse_identify_text(out.as_bytes()).expect("still a dump");
        assert_eq!(after.serial, "");
        assert_eq!(
            after.checksum_ok,
            Some(false),
            "the replay must warn as live did"
        );
    }

    #[test]
    fn every_listed_smartctl_file_is_replayed() {
        let manifest = Manifest {
            format: 1,
            nodecheck_version: "0".to_string(),
            path: "/".to_string(),
            smartctl: vec!["sda".to_string(), "nvme0n1".to_string()],
            redacted: true,
            path_kind: None,
        };
        assert_eq!(
            smartctl_files(&manifest),
            vec![
                PathBuf::from("/nodecheck/smartctl/sda.json"),
                PathBuf::from("/nodecheck/smartctl/nvme0n1.json"),
            ]
        );
    }

    #[test]
    fn hostile_names_are_refused() {
        assert_eq!(checked_relative(Path::new("../etc/passwd")), None);
        assert_eq!(checked_relative(Path::new("/etc/passwd")), None);
        assert_eq!(
            checked_relative(Path::new("./sys/block")),
            Some(PathBuf::from("sys/block"))
        );
    }

    /// A hostile archive: a symlink pointing out of the tree, then a file "inside" it.
    #[test]
    fn unpack_never_writes_outside_its_directory() {
        let outside = tempfile::tempdir().expect("tempdir");
        let work = tempfile::tempdir().expect("tempdir");
        let archive = work.path().join("evil.tar.gz");
        {
            let file = fs::File::create(&archive).expect("create");
            let mut builder = tar::Builder::new(GzEncoder::new(file, Compression::default()));
            let mut link = tar::Header::new_gnu();
            link.set_entry_type(tar::EntryType::Symlink);
            link.set_size(0);
            builder
                .append_link(&mut link, "sys", outside.path())
                .expect("link");
            append_file(&mut builder, Path::new("sys/planted"), b"owned").expect("file");
            builder.into_inner().expect("tar").finish().expect("gzip");
        }
        let err = unpack(&archive).err().expect("refused");
        assert!(format!("{err:#}").contains("symlink"), "{err:#}");
        assert!(
            !outside.path().join("planted").exists(),
            "wrote through the link"
        );
    }

    #[test]
    fn an_archive_without_a_manifest_is_not_a_snapshot() {
        let work = tempfile::tempdir().expect("tempdir");
        let archive = work.path().join("plain.tar.gz");
        {
            let file = fs::File::create(&archive).expect("create");
            let mut builder = tar::Builder::new(GzEncoder::new(file, Compression::default()));
            append_file(&mut builder, Path::new("hello.txt"), b"hi").expect("file");
            builder.into_inner().expect("tar").finish().expect("gzip");
        }
        let err = unpack(&archive).err().expect("refused");
        assert!(
            format!("{err:#}").contains("not a nodecheck snapshot"),
            "{err:#}"
        );
    }

    #[test]
    fn write_through_symlink_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink("/tmp", dir.path().join("sys")).expect("symlink");
        assert!(ensure_no_symlink_between(dir.path(), Path::new("sys/evil")).is_err());
    }
}
