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
use std::os::unix::ffi::OsStrExt;
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
pub fn describe_path(path: &Path) -> Option<PathKind> {
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
            AccessKind::Present => {
                // Tested for, never read (the checked path itself, a device node, a unit
                // file): an empty stand-in keeps the test's answer and carries no byte of it.
                if !in_areas(&accessed.path, STAND_IN_AREAS) {
                    continue;
                }
                append_file(&mut builder, &relative, &[])?;
                written += 1;
            }
            AccessKind::File => {
                if !in_areas(&accessed.path, CONTENT_AREAS) {
                    continue;
                }
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

/// Only regular files, opened without following a link and without blocking, so nothing the
/// probe recorded can make the snapshot read a device or wait on a FIFO.
fn read_capped(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    probe::input::open_regular_no_follow(path)?
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether `path` is one of `areas` or inside one.
fn in_areas(path: &Path, areas: &[&str]) -> bool {
    areas.iter().any(|area| path.starts_with(area))
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

/// The saved smartctl outputs of a snapshot, one per drive its manifest lists, as paths inside
/// the replayed tree (the probe reads them through its root). Snapshots with a single
/// smartctl file (or none) replay the same way.
pub fn smartctl_files(manifest: &Manifest) -> Vec<PathBuf> {
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
/// symlink, so a hostile archive cannot write outside the directory. Every entry is bounded
/// before a byte of it is read: GNU long names and PAX headers (which the `tar` crate would
/// otherwise read whole into memory), file sizes, the total and the number of entries; hard
/// links, devices, FIFOs and sparse files are refused.
pub fn unpack(archive: &Path) -> Result<Unpacked> {
    let file = probe::input::open_user_file(archive)
        .with_context(|| format!("cannot open snapshot {}", archive.display()))?;
    unpack_stream(file, &archive.display().to_string())
}

/// [`unpack`] of a `.tar.gz` stream; `shown` names it in errors.
pub fn unpack_stream<R: Read>(gzipped: R, shown: &str) -> Result<Unpacked> {
    let dir = tempfile::Builder::new()
        .prefix("nodecheck-snapshot-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let on_signal = crate::signals::temporary(dir.path())
        .context("cannot install the signal handlers that remove the unpacked snapshot")?;
    let mut tar = tar::Archive::new(GzDecoder::new(gzipped));
    let mut total = 0u64;
    let mut long_name: Option<Vec<u8>> = None;
    let mut long_link: Option<Vec<u8>> = None;
    let mut pax: Option<PaxNames> = None;
    let entries = tar
        .entries()
        .with_context(|| format!("{shown} is not a tar.gz archive"))?
        .raw(true);
    for (index, entry) in entries.enumerate() {
        let mut entry =
            entry.with_context(|| format!("{shown} is not a readable tar.gz archive"))?;
        if index >= MAX_ENTRIES {
            bail!("{shown} has more than {MAX_ENTRIES} entries: not a nodecheck snapshot");
        }
        let kind = entry.header().entry_type();
        let size = entry
            .header()
            .entry_size()
            .with_context(|| format!("{shown}: entry {} has a malformed size", index + 1))?;
        let header_name = entry.header().path_bytes().into_owned();
        let label = format!("{} ({})", index + 1, printable(&header_name));
        // Each kind's own bound is checked first (it says more), then the archive's total.
        let mut add_to_total = |size: u64| -> Result<()> {
            total = total.saturating_add(size);
            if total > MAX_TOTAL_BYTES {
                bail!(
                    "{shown}: entry {label} takes the archive past {}, more than any snapshot nodecheck writes",
                    units::size::binary_exact(MAX_TOTAL_BYTES)
                );
            }
            Ok(())
        };
        match kind {
            tar::EntryType::GNULongName | tar::EntryType::GNULongLink => {
                let bytes = read_bounded_entry(&mut entry, size, MAX_NAME_BYTES)
                    .with_context(|| format!("{shown}: entry {label}: GNU long-name header"))?;
                add_to_total(size)?;
                let name = trim_nuls(bytes);
                if kind == tar::EntryType::GNULongName {
                    long_name = Some(name);
                } else {
                    long_link = Some(name);
                }
                continue;
            }
            tar::EntryType::XHeader => {
                let bytes = read_bounded_entry(&mut entry, size, MAX_PAX_BYTES)
                    .with_context(|| format!("{shown}: entry {label}: PAX header"))?;
                add_to_total(size)?;
                pax = Some(
                    PaxNames::parse(&bytes)
                        .with_context(|| format!("{shown}: entry {label}: PAX header"))?,
                );
                continue;
            }
            tar::EntryType::XGlobalHeader => {
                read_bounded_entry(&mut entry, size, MAX_PAX_BYTES)
                    .with_context(|| format!("{shown}: entry {label}: PAX global header"))?;
                add_to_total(size)?;
                continue;
            }
            tar::EntryType::Directory
            | tar::EntryType::Regular
            | tar::EntryType::Continuous
            | tar::EntryType::Symlink => {}
            other => bail!(
                "{shown}: entry {label} is a {}; a snapshot holds only files, directories and symlinks",
                entry_kind_name(other)
            ),
        }
        let pax_names = pax.take().unwrap_or_default();
        let name_bytes = pax_names
            .path
            .or_else(|| long_name.take())
            .unwrap_or(header_name);
        long_name = None;
        let link_bytes = pax_names.linkpath.or_else(|| long_link.take()).or_else(|| {
            entry
                .header()
                .link_name_bytes()
                .map(|link| link.into_owned())
        });
        long_link = None;
        let name = PathBuf::from(std::ffi::OsStr::from_bytes(&name_bytes));
        let label = format!("{} ({})", index + 1, printable(&name_bytes));
        let Some(relative) = checked_relative(&name) else {
            bail!("{shown}: entry {label} has an unsafe path: not a nodecheck snapshot");
        };
        let target = dir.path().join(&relative);
        ensure_no_symlink_between(dir.path(), &relative)
            .with_context(|| format!("{shown}: entry {label}"))?;
        if kind != tar::EntryType::Regular && kind != tar::EntryType::Continuous && size > 0 {
            bail!("{shown}: entry {label} is a {} with {size} bytes of data: not a nodecheck snapshot", entry_kind_name(kind));
        }
        match kind {
            tar::EntryType::Directory => {
                fs::create_dir_all(&target).with_context(|| {
                    format!("{shown}: entry {label}: cannot create the directory")
                })?;
            }
            tar::EntryType::Symlink => {
                let Some(link) = link_bytes else {
                    bail!("{shown}: entry {label} is a symlink without a target");
                };
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).with_context(|| {
                        format!("{shown}: entry {label}: cannot create its directory")
                    })?;
                }
                // The probe resolves links inside the root, so any target is safe to recreate;
                // nothing below writes through it.
                std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(&link), &target)
                    .with_context(|| format!("{shown}: entry {label}: cannot create the link"))?;
            }
            _ => {
                if size > MAX_FILE_BYTES {
                    bail!(
                        "{shown}: entry {label} is {size} bytes, larger than any file a snapshot holds ({})",
                        units::size::binary_exact(MAX_FILE_BYTES)
                    );
                }
                add_to_total(size)?;
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).with_context(|| {
                        format!("{shown}: entry {label}: cannot create its directory")
                    })?;
                }
                let mut out = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .with_context(|| format!("{shown}: entry {label}: cannot write the file"))?;
                io::copy(&mut (&mut entry).take(size), &mut out)
                    .with_context(|| format!("{shown}: entry {label}: cannot unpack the file"))?;
            }
        }
    }
    let root = probe::Root::at(dir.path()).context("cannot read the unpacked snapshot")?;
    let manifest_bytes = root
        .read_document(
            Path::new("/").join(MANIFEST),
            MAX_MANIFEST_BYTES,
            "a snapshot manifest",
        )
        .with_context(|| format!("{shown} has no readable {MANIFEST}: not a nodecheck snapshot"))?;
    let manifest: Manifest = serde_json::from_slice(&manifest_bytes)
        .with_context(|| format!("{MANIFEST} in {shown} is malformed"))?;
    Ok(Unpacked {
        dir,
        manifest,
        _on_signal: on_signal,
    })
}

/// The manifest of a replayed tree (`check --root DIR`), when it has one; read through the
/// root, so a manifest that is a symlink resolves inside the tree.
pub fn read_manifest(root: &probe::Root) -> Option<Manifest> {
    let bytes = root
        .read_document(
            Path::new("/").join(MANIFEST),
            MAX_MANIFEST_BYTES,
            "a snapshot manifest",
        )
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// `path` and `linkpath` of a PAX extended header, the only keys that change what an entry
/// names; a header that changes its size or makes it sparse is refused, since raw iteration
/// would read the data with the wrong length.
#[derive(Default)]
struct PaxNames {
    path: Option<Vec<u8>>,
    linkpath: Option<Vec<u8>>,
}

impl PaxNames {
    fn parse(bytes: &[u8]) -> Result<PaxNames> {
        let mut names = PaxNames::default();
        for extension in tar::PaxExtensions::new(bytes) {
            let extension = extension.context("malformed record")?;
            let key = extension.key().context("a key that is not UTF-8")?;
            match key {
                "path" => names.path = Some(extension.value_bytes().to_vec()),
                "linkpath" => names.linkpath = Some(extension.value_bytes().to_vec()),
                "size" => bail!("a PAX size override: not a nodecheck snapshot"),
                key if key.starts_with("GNU.sparse") => {
                    bail!("a sparse file: not a nodecheck snapshot")
                }
                _ => {}
            }
        }
        Ok(names)
    }
}

/// The data of a name or PAX entry, refused before reading when it is longer than `cap`.
fn read_bounded_entry<R: Read>(
    entry: &mut tar::Entry<'_, R>,
    size: u64,
    cap: u64,
) -> Result<Vec<u8>> {
    if size > cap {
        bail!(
            "{size} bytes, longer than any a snapshot holds ({}): not a nodecheck snapshot",
            units::size::binary_exact(cap)
        );
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    entry.take(size).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn trim_nuls(mut bytes: Vec<u8>) -> Vec<u8> {
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    bytes
}

/// An entry name for an error message: lossy, control characters escaped, clipped.
fn printable(name: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(name)
        .chars()
        .flat_map(char::escape_default)
        .take(120)
        .collect();
    text
}

fn entry_kind_name(kind: tar::EntryType) -> &'static str {
    match kind {
        tar::EntryType::Link => "hard link",
        tar::EntryType::Char => "character device",
        tar::EntryType::Block => "block device",
        tar::EntryType::Fifo => "FIFO",
        tar::EntryType::GNUSparse => "sparse file",
        tar::EntryType::Directory => "directory",
        tar::EntryType::Symlink => "symlink",
        _ => "entry of an unknown kind",
    }
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
