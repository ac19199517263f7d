//! Snapshot archives: exactly the files the probe read on one machine, packed so that
//! `nodecheck check --snapshot FILE` (or `--root DIR` on the unpacked tree) gives the same
//! findings on another.
//!
//! Layout of the `.tar.gz`: the machine's tree at the top (`sys/...`, `proc/...`, `etc/...`),
//! symlinks kept as symlinks, `.nodecheck/statvfs.json` with the file system's free and total
//! bytes (the probe reads it under a replay root), one saved `smartctl -j -x` output per drive in
//! [`SMARTCTL_DIR`], and [`MANIFEST`] saying which path was asked about and which drives have a
//! smartctl output. docs/json.md documents the layout.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use probe::root::{AccessKind, AccessedPath};
use serde::{Deserialize, Serialize};

use crate::redact::Redactor;

/// The manifest's name at the top of the tree.
pub const MANIFEST: &str = "nodecheck-snapshot.json";
/// Where saved smartctl outputs go inside the tree.
pub const SMARTCTL_DIR: &str = "nodecheck/smartctl";

/// Files the probe reads are sysfs attributes, mountinfo and small /etc files; anything larger
/// in an archive is not a snapshot.
const MAX_FILE_BYTES: u64 = 16 << 20;
const MAX_TOTAL_BYTES: u64 = 256 << 20;
const MAX_ENTRIES: usize = 200_000;

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
}

/// What to put into an archive besides the accessed files.
pub struct Contents<'a> {
    pub manifest: Manifest,
    pub accessed: &'a [AccessedPath],
    /// `(drive name, smartctl -j output)`.
    pub smartctl: Vec<(String, Vec<u8>)>,
    /// statvfs of the mount holding the path, keyed by its mount point as mountinfo shows it.
    pub statvfs: Option<(String, probe::probe::StatvfsRecord)>,
    /// Applied to every text file; `None` keeps them verbatim.
    pub redactor: Option<&'a Redactor>,
}

/// Writes the archive. Files are read from the live `/`; directory and file modes and times are
/// fixed so the same machine gives the same archive.
///
/// The archive is written to a temporary file beside `out` and renamed over it only once
/// complete and synced: an interruption (a signal, a full disk, an error) leaves an existing
/// `out` as it was and no partial file behind. An `out` that exists but is not a regular file
/// (a symlink, `/dev/null`, a FIFO) is refused: renaming over it would replace the link or the
/// device node itself.
pub fn write(out: &Path, contents: &Contents<'_>) -> Result<usize> {
    match fs::symlink_metadata(out) {
        Ok(meta) if meta.is_file() => {}
        Ok(meta) => {
            let kind = if meta.file_type().is_symlink() {
                "a symlink"
            } else if meta.is_dir() {
                "a directory"
            } else {
                "a device, FIFO or socket"
            };
            bail!(
                "{} is {kind}: snapshot -o writes a new regular file and renames it into place, \
                 never through a link or into a device; give the path of a file",
                out.display()
            );
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(err).with_context(|| format!("cannot inspect {}", out.display())),
    }
    let name = out
        .file_name()
        .with_context(|| format!("{} names no file", out.display()))?;
    let dir = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let temp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".partial")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let _on_signal = crate::signals::temporary(temp.path())
        .context("cannot install the signal handlers that remove a partial archive")?;
    let (file, temp_path) = temp.into_parts();
    let written =
        write_archive(file, contents).with_context(|| format!("cannot write {}", out.display()))?;
    temp_path
        .persist(out)
        .map_err(|err| err.error)
        .with_context(|| format!("cannot rename the finished archive to {}", out.display()))?;
    // The rename is durable once the directory is; a failure here loses nothing written.
    if let Ok(dir) = fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(written)
}

fn write_archive(file: fs::File, contents: &Contents<'_>) -> Result<usize> {
    let mut builder = tar::Builder::new(GzEncoder::new(file, Compression::default()));
    builder.follow_symlinks(false);
    let mut written = 0usize;
    let mut dirs_done: BTreeSet<PathBuf> = BTreeSet::new();

    let manifest = serde_json::to_vec_pretty(&contents.manifest)?;
    append_file(&mut builder, Path::new(MANIFEST), &manifest)?;
    written += 1;
    bench::hook::pause_point(bench::hook::SNAPSHOT_WRITING, None);

    for accessed in contents.accessed {
        let Some(relative) = in_archive(&accessed.path) else {
            continue;
        };
        // Parents first, top down, as tar itself writes them.
        let parents: Vec<&Path> = relative.ancestors().skip(1).collect();
        for parent in parents.into_iter().rev() {
            if parent.as_os_str().is_empty() || !dirs_done.insert(parent.to_path_buf()) {
                continue;
            }
            append_dir(&mut builder, parent)?;
        }
        match &accessed.kind {
            AccessKind::Dir => {
                if dirs_done.insert(relative.clone()) {
                    append_dir(&mut builder, &relative)?;
                    written += 1;
                }
            }
            AccessKind::Symlink { target } => {
                let mut header = tar::Header::new_gnu();
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_mode(0o777);
                header.set_size(0);
                header.set_mtime(0);
                builder
                    .append_link(&mut header, &relative, target)
                    .with_context(|| format!("cannot add {}", relative.display()))?;
                written += 1;
            }
            AccessKind::File => {
                // The probe read it a moment ago; a file gone now (a process exited) or one the
                // kernel refuses to read twice is left out, as the probe would find it missing.
                let Ok(bytes) = read_capped(&accessed.path) else {
                    continue;
                };
                let bytes = match contents.redactor {
                    Some(r) => redact_file(r, &accessed.path, bytes),
                    None => bytes,
                };
                append_file(&mut builder, &relative, &bytes)?;
                written += 1;
            }
        }
    }

    if let Some((mount_point, record)) = &contents.statvfs {
        let records = std::collections::BTreeMap::from([(mount_point.clone(), *record)]);
        let json = serde_json::to_vec_pretty(&records)?;
        let relative =
            in_archive(Path::new(probe::probe::SNAPSHOT_STATVFS)).context("statvfs file name")?;
        if let Some(parent) = relative.parent() {
            if dirs_done.insert(parent.to_path_buf()) {
                append_dir(&mut builder, parent)?;
            }
        }
        append_file(&mut builder, &relative, &json)?;
        written += 1;
    }

    if !contents.smartctl.is_empty() {
        let mut dir = PathBuf::new();
        for part in Path::new(SMARTCTL_DIR).components() {
            dir.push(part);
            if dirs_done.insert(dir.clone()) {
                append_dir(&mut builder, &dir)?;
            }
        }
    }
    for (drive, json) in &contents.smartctl {
        let name = format!("{SMARTCTL_DIR}/{}.json", safe_name(drive));
        let bytes = match contents.redactor {
            Some(r) => redact_smartctl(r, json),
            None => json.clone(),
        };
        append_file(&mut builder, Path::new(&name), &bytes)?;
        written += 1;
    }

    let encoder = builder.into_inner().context("cannot finish the archive")?;
    let mut file = encoder.finish().context("cannot finish the archive")?;
    file.flush()?;
    file.sync_all()?;
    Ok(written)
}

/// `/sys/block/vda` → `sys/block/vda`; `None` for `/` itself or anything odd.
fn in_archive(path: &Path) -> Option<PathBuf> {
    let relative: PathBuf = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part),
            _ => None,
        })
        .collect();
    (!relative.as_os_str().is_empty()).then_some(relative)
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

fn read_capped(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    fs::File::open(path)?
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn append_file<W: Write>(builder: &mut tar::Builder<W>, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Regular);
    header.set_mode(0o644);
    header.set_size(bytes.len() as u64);
    header.set_mtime(0);
    builder
        .append_data(&mut header, path, bytes)
        .with_context(|| format!("cannot add {}", path.display()))
}

fn append_dir<W: Write>(builder: &mut tar::Builder<W>, path: &Path) -> Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Directory);
    header.set_mode(0o755);
    header.set_size(0);
    header.set_mtime(0);
    builder
        .append_data(&mut header, path, io::empty())
        .with_context(|| format!("cannot add {}", path.display()))
}

/// Text files are redacted as text. The ATA IDENTIFY dump carries the serial number as hex
/// words, which text redaction cannot see, so its serial words are blanked.
fn redact_file(redactor: &Redactor, path: &Path, bytes: Vec<u8>) -> Vec<u8> {
    let is_identify = path.file_name().is_some_and(|n| n == "id")
        && path.components().any(|c| c.as_os_str() == "ata_device");
    let Ok(text) = String::from_utf8(bytes.clone()) else {
        return bytes;
    };
    let text = if is_identify {
        blank_identify_serial(&text)
    } else {
        text
    };
    redactor.redact(&text).into_bytes()
}

/// IDENTIFY DEVICE words 10–19 hold the serial number (ATA8-ACS 7.16.7). The dump is 256
/// four-digit hex words; words are replaced in place (`2020` = two spaces) so the layout stays.
///
/// A dump the drive signed with a valid word 255 checksum is re-signed over the blanked words,
/// so the replay does not report as corruption what redaction did; a dump whose checksum was
/// already wrong stays wrong, so the replay warns as the live probe did.
pub fn blank_identify_serial(text: &str) -> String {
    let resigned = resigned_integrity_word(text);
    let mut out = String::with_capacity(text.len());
    let mut word_index = 0usize;
    let mut rest = text;
    while !rest.is_empty() {
        let token_start = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..token_start]);
        rest = &rest[token_start..];
        if rest.is_empty() {
            break;
        }
        let token_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..token_end];
        let is_word = token.len() == 4 && token.chars().all(|c| c.is_ascii_hexdigit());
        if is_word && (10..20).contains(&word_index) {
            out.push_str("2020");
        } else if let (true, 255, Some(integrity)) = (is_word, word_index, resigned) {
            out.push_str(&format!("{integrity:04x}"));
        } else {
            out.push_str(token);
        }
        if is_word {
            word_index += 1;
        }
        rest = &rest[token_end..];
    }
    out
}

/// Word 255 for the dump with its serial blanked, when the original carried a valid
/// signature (low byte 0xA5) and checksum (high byte making all 512 bytes sum to zero).
fn resigned_integrity_word(text: &str) -> Option<u16> {
    const INTEGRITY_SIGNATURE: u16 = 0x00A5;
    let mut words = probe::ata::parse_identify_words_text(text.as_bytes()).ok()?;
    if probe::ata::parse_identify_words(&words).checksum_ok != Some(true) {
        return None;
    }
    for word in &mut words[10..20] {
        *word = 0x2020;
    }
    let [_, signature] = INTEGRITY_SIGNATURE.to_be_bytes();
    let sum = words[..255]
        .iter()
        .flat_map(|word| word.to_be_bytes())
        .fold(signature, u8::wrapping_add);
    let checksum = 0u8.wrapping_sub(sum);
    Some((u16::from(checksum) << 8) | INTEGRITY_SIGNATURE)
}

/// The saved smartctl outputs of an unpacked snapshot, one per drive its manifest lists, for
/// the replay to merge into every drive. Snapshots with a single smartctl file (or none)
/// replay the same way.
pub fn smartctl_files(root: &Path, manifest: &Manifest) -> Vec<PathBuf> {
    manifest
        .smartctl
        .iter()
        .map(|drive| {
            root.join(SMARTCTL_DIR)
                .join(format!("{}.json", safe_name(drive)))
        })
        .collect()
}

/// smartctl's JSON names the serial and the WWN; drop them structurally, then redact the text.
fn redact_smartctl(redactor: &Redactor, json: &[u8]) -> Vec<u8> {
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(json) else {
        return redactor.redact(&String::from_utf8_lossy(json)).into_bytes();
    };
    if let Some(obj) = value.as_object_mut() {
        if obj.contains_key("serial_number") {
            obj.insert("serial_number".into(), crate::redact::MARK.into());
        }
        obj.remove("wwn");
        obj.remove("logical_unit_id");
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    redactor.redact(&text).into_bytes()
}

/// An unpacked snapshot; the directory is removed when this is dropped, or by the signal
/// handling (crate::signals) if a signal ends the process first.
pub struct Unpacked {
    pub dir: tempfile::TempDir,
    pub manifest: Manifest,
    _on_signal: crate::signals::Temporary,
}

impl Unpacked {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
}

/// Unpacks an archive into a fresh temporary directory. Only plain files, directories and
/// symlinks with relative, `..`-free names are accepted, and nothing is ever written through a
/// symlink, so a hostile archive cannot write outside the directory.
pub fn unpack(archive: &Path) -> Result<Unpacked> {
    let file = fs::File::open(archive)
        .with_context(|| format!("cannot open snapshot {}", archive.display()))?;
    let dir = tempfile::Builder::new()
        .prefix("nodecheck-snapshot-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let on_signal = crate::signals::temporary(dir.path())
        .context("cannot install the signal handlers that remove the unpacked snapshot")?;
    let mut tar = tar::Archive::new(GzDecoder::new(file));
    let mut total = 0u64;
    let mut count = 0usize;
    let entries = tar
        .entries()
        .with_context(|| format!("{} is not a tar.gz archive", archive.display()))?;
    for entry in entries {
        let mut entry = entry
            .with_context(|| format!("{} is not a readable tar.gz archive", archive.display()))?;
        count += 1;
        if count > MAX_ENTRIES {
            bail!(
                "{} has more than {MAX_ENTRIES} entries: not a nodecheck snapshot",
                archive.display()
            );
        }
        let name = entry.path()?.into_owned();
        let Some(relative) = checked_relative(&name) else {
            bail!(
                "{} holds an unsafe path {:?}: not a nodecheck snapshot",
                archive.display(),
                name
            );
        };
        let target = dir.path().join(&relative);
        ensure_no_symlink_between(dir.path(), &relative)?;
        match entry.header().entry_type() {
            tar::EntryType::Directory => {
                fs::create_dir_all(&target)
                    .with_context(|| format!("cannot create {}", target.display()))?;
            }
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                let size = entry.header().size()?;
                total = total.saturating_add(size);
                if size > MAX_FILE_BYTES || total > MAX_TOTAL_BYTES {
                    bail!(
                        "{} is larger than any snapshot nodecheck writes",
                        archive.display()
                    );
                }
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent)?;
                }
                let mut out = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .with_context(|| format!("cannot write {}", target.display()))?;
                io::copy(&mut (&mut entry).take(MAX_FILE_BYTES), &mut out)?;
            }
            tar::EntryType::Symlink => {
                let Some(link) = entry.link_name()? else {
                    continue;
                };
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent)?;
                }
                // The probe resolves links inside the root, so any target is safe to recreate;
                // nothing below writes through it.
                std::os::unix::fs::symlink(link.as_ref(), &target)
                    .with_context(|| format!("cannot create link {}", target.display()))?;
            }
            // Hard links, devices and fifos are never in a snapshot.
            _ => continue,
        }
    }
    let manifest_path = dir.path().join(MANIFEST);
    let manifest_bytes = fs::read(&manifest_path).with_context(|| {
        format!(
            "{} has no {MANIFEST}: not a nodecheck snapshot",
            archive.display()
        )
    })?;
    let manifest: Manifest = serde_json::from_slice(&manifest_bytes)
        .with_context(|| format!("{MANIFEST} in {} is malformed", archive.display()))?;
    Ok(Unpacked {
        dir,
        manifest,
        _on_signal: on_signal,
    })
}

/// Reads the manifest of an unpacked tree, when it is one.
pub fn read_manifest(root: &Path) -> Option<Manifest> {
    let bytes = fs::read(root.join(MANIFEST)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn checked_relative(name: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in name.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

fn ensure_no_symlink_between(base: &Path, relative: &Path) -> Result<()> {
    let mut current = base.to_path_buf();
    let parts: Vec<_> = relative.components().collect();
    for (i, part) in parts.iter().enumerate() {
        current.push(part);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                bail!(
                    "snapshot entry {} would be written through a symlink",
                    relative.display()
                );
            }
            Ok(meta) if i + 1 == parts.len() && !meta.is_dir() => {
                bail!("snapshot entry {} appears twice", relative.display());
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
        };
        assert_eq!(
            smartctl_files(Path::new("/x"), &manifest),
            vec![
                PathBuf::from("/x/nodecheck/smartctl/sda.json"),
                PathBuf::from("/x/nodecheck/smartctl/nvme0n1.json"),
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
