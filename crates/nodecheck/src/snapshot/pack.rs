//! Writing an archive: the files the probe read, stand-ins for what it only tested, the
//! smartctl outputs and free-space figures it used, redacted when asked.

use super::redaction::{only_fstab_line, redact_file, redact_smartctl, EntryNames};
use super::*;

/// What to put into an archive besides the accessed files.
pub struct Contents<'a> {
    pub manifest: Manifest,
    pub accessed: &'a [AccessedPath],
    /// `(drive name, smartctl -j output)`.
    pub smartctl: Vec<(String, Vec<u8>)>,
    /// statvfs of the mount holding the path, keyed by its mount point as mountinfo shows it.
    pub statvfs: Option<(String, probe::space::StatvfsRecord)>,
    /// Applied to every text file and entry name; `None` keeps them verbatim.
    pub redactor: Option<&'a Redactor>,
    /// The line of `/etc/fstab` the probe used (1-based), the only one the archive keeps.
    pub fstab_line: Option<usize>,
    /// `(dm device name, table text without keys)` of every device-mapper layer whose table the
    /// probe read (as root, through the ioctl): the replay reads them where a fixture keeps them.
    pub dm_tables: Vec<(String, String)>,
    /// `(in-root path, output)` of the other programs the probe ran (`zpool`, `zfs`): the
    /// replay reads each at its path instead of running the program.
    pub command_outputs: Vec<(PathBuf, Vec<u8>)>,
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
    crate::output_file::write_with(out, |file| {
        write_archive(file.try_clone()?, contents)
            .map_err(|err| io::Error::other(format!("{err:#}")))
    })
    .with_context(|| format!("cannot write {}", out.display()))
}

fn write_archive(file: fs::File, contents: &Contents<'_>) -> Result<usize> {
    let mut builder = tar::Builder::new(GzEncoder::new(file, Compression::default()));
    builder.follow_symlinks(false);
    let mut written = 0usize;
    let mut dirs_done: BTreeSet<PathBuf> = BTreeSet::new();
    let mut names = EntryNames::new(contents.redactor);

    let manifest = serde_json::to_vec_pretty(&contents.manifest)?;
    append_file(&mut builder, Path::new(MANIFEST), &manifest)?;
    written += 1;
    bench::pause_point(super::PAUSE_WRITING, None);

    for accessed in contents.accessed {
        let Some(relative) = in_archive(&accessed.path) else {
            continue;
        };
        // Names carry secrets too (`home/<user>`, `sys/fs/btrfs/<uuid>`, by-id links).
        let relative = names.name(&relative);
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
                let mut header = header(tar::EntryType::Symlink, 0o777, 0);
                let target = match contents.redactor {
                    Some(r) => PathBuf::from(r.redact(&target.to_string_lossy())),
                    None => target.clone(),
                };
                builder
                    .append_link(&mut header, &relative, &target)
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
                let Ok(mut bytes) = read_capped(&accessed.path) else {
                    continue;
                };
                if accessed.path == Path::new(probe::fstab::FSTAB_PATH) {
                    bytes = only_fstab_line(&bytes, contents.fstab_line);
                }
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
            in_archive(Path::new(probe::space::SNAPSHOT_STATVFS)).context("statvfs file name")?;
        append_parent_dirs(&mut builder, &mut dirs_done, &relative)?;
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

    for (device, table) in &contents.dm_tables {
        let name = format!("{}/{}.table", probe::dm::SAVED_TABLES, safe_name(device));
        let relative = in_archive(Path::new(&name)).context("dm table file name")?;
        append_parent_dirs(&mut builder, &mut dirs_done, &relative)?;
        let bytes = match contents.redactor {
            Some(r) => r.redact(table).into_bytes(),
            None => table.clone().into_bytes(),
        };
        append_file(&mut builder, &relative, &bytes)?;
        written += 1;
    }

    for (path, output) in &contents.command_outputs {
        let relative = in_archive(path).context("command output file name")?;
        append_parent_dirs(&mut builder, &mut dirs_done, &relative)?;
        let bytes = match contents.redactor {
            Some(r) => r.redact(&String::from_utf8_lossy(output)).into_bytes(),
            None => output.clone(),
        };
        append_file(&mut builder, &relative, &bytes)?;
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

pub(super) fn append_file<W: Write>(
    builder: &mut tar::Builder<W>,
    path: &Path,
    bytes: &[u8],
) -> Result<()> {
    let mut header = header(tar::EntryType::Regular, 0o644, bytes.len() as u64);
    builder
        .append_data(&mut header, path, bytes)
        .with_context(|| format!("cannot add {}", path.display()))
}

/// Adds each directory above `relative` that the archive does not hold yet, outermost first,
/// so that an extractor that does not create parents itself still finds them.
fn append_parent_dirs<W: Write>(
    builder: &mut tar::Builder<W>,
    dirs_done: &mut BTreeSet<PathBuf>,
    relative: &Path,
) -> Result<()> {
    let Some(parent) = relative.parent() else {
        return Ok(());
    };
    let mut dir = PathBuf::new();
    for part in parent.components() {
        dir.push(part);
        if dirs_done.insert(dir.clone()) {
            append_dir(builder, &dir)?;
        }
    }
    Ok(())
}

fn append_dir<W: Write>(builder: &mut tar::Builder<W>, path: &Path) -> Result<()> {
    let mut header = header(tar::EntryType::Directory, 0o755, 0);
    builder
        .append_data(&mut header, path, io::empty())
        .with_context(|| format!("cannot add {}", path.display()))
}

/// A GNU header with mtime 0: a snapshot carries no time of the machine it was taken on.
fn header(entry_type: tar::EntryType, mode: u32, size: u64) -> tar::Header {
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(entry_type);
    header.set_mode(mode);
    header.set_size(size);
    header.set_mtime(0);
    header
}
