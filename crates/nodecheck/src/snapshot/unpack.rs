//! Reading an archive back, bounded and refusing anything a snapshot never holds, into a
//! temporary directory the probe replays.

use super::*;

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
    let mut tree = TreeBudget::default();
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
        // `tar czf x.tar.gz -C dir .` starts with `./`, the top directory itself.
        if kind == tar::EntryType::Directory && names_the_top(&name) {
            continue;
        }
        let Some(relative) = checked_relative(&name) else {
            bail!("{shown}: entry {label} has an unsafe path: not a nodecheck snapshot");
        };
        let target = dir.path().join(&relative);
        ensure_no_symlink_between(dir.path(), &relative)
            .with_context(|| format!("{shown}: entry {label}"))?;
        let depth = relative.components().count();
        if depth > MAX_DEPTH {
            bail!("{shown}: entry {label} is {depth} directories deep, deeper than any path a snapshot holds ({MAX_DEPTH}): not a nodecheck snapshot");
        }
        if kind != tar::EntryType::Regular && kind != tar::EntryType::Continuous && size > 0 {
            bail!("{shown}: entry {label} is a {} with {size} bytes of data: not a nodecheck snapshot", entry_kind_name(kind));
        }
        match kind {
            tar::EntryType::Directory => {
                create_directories(dir.path(), &relative, &mut tree)
                    .with_context(|| format!("{shown}: entry {label}"))?;
            }
            tar::EntryType::Symlink => {
                let Some(link) = link_bytes else {
                    bail!("{shown}: entry {label} is a symlink without a target");
                };
                create_parents(dir.path(), &relative, &mut tree)
                    .with_context(|| format!("{shown}: entry {label}"))?;
                tree.add_inode(link.len() as u64)
                    .with_context(|| format!("{shown}: entry {label}"))?;
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
                create_parents(dir.path(), &relative, &mut tree)
                    .with_context(|| format!("{shown}: entry {label}"))?;
                tree.add_inode(size)
                    .with_context(|| format!("{shown}: entry {label}"))?;
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
    verify_gzip_trailer(tar.into_inner(), shown)?;
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

/// The deepest path a snapshot holds is a sysfs attribute behind USB hubs and PCIe bridges
/// (`sys/devices/pci0000:00/…/usb2/2-1/2-1.4/…/host4/target4:0:0/4:0:0:0/block/sdb/sdb1/…`,
/// under 30 components); more is an archive built to make directories.
const MAX_DEPTH: usize = 48;
/// Directories an unpacked snapshot may create: a snapshot has tens to a few thousand.
const MAX_DIRECTORIES: usize = 10_000;
/// Files, directories and symlinks an unpacked snapshot may create.
const MAX_INODES: usize = 50_000;
/// What the unpacked tree may take on disk, counting every inode as at least one 4 KiB block
/// (what a directory or a small file takes on ext4, xfs and tmpfs).
const MAX_TREE_BYTES: u64 = 256 << 20;
const BLOCK: u64 = 4096;
/// Bytes a gzip stream may still hold after the tar's end-of-archive blocks: GNU tar pads the
/// archive to 10 KiB records; an encoder adds nothing more.
const MAX_TAIL_BYTES: u64 = 1 << 20;

/// What the unpacked tree has used so far, checked against the caps above before each inode is
/// created, so that a small archive cannot fill `$TMPDIR` with directories.
#[derive(Default)]
struct TreeBudget {
    directories: usize,
    inodes: usize,
    bytes: u64,
}

impl TreeBudget {
    fn add_inode(&mut self, size: u64) -> Result<()> {
        self.inodes += 1;
        if self.inodes > MAX_INODES {
            bail!("the archive creates more than {MAX_INODES} files and directories, more than any snapshot: not a nodecheck snapshot");
        }
        self.bytes = self
            .bytes
            .saturating_add(size.div_ceil(BLOCK).max(1).saturating_mul(BLOCK));
        if self.bytes > MAX_TREE_BYTES {
            bail!(
                "the unpacked archive would take more than {} on disk, more than any snapshot: not a nodecheck snapshot",
                units::size::binary_exact(MAX_TREE_BYTES)
            );
        }
        Ok(())
    }

    fn add_directory(&mut self) -> Result<()> {
        self.directories += 1;
        if self.directories > MAX_DIRECTORIES {
            bail!("the archive creates more than {MAX_DIRECTORIES} directories, more than any snapshot: not a nodecheck snapshot");
        }
        self.add_inode(0)
    }
}

/// True for `.`, `./` and the like: the archive's top directory, which is the unpack directory.
fn names_the_top(name: &Path) -> bool {
    name.components().next().is_some() && name.components().all(|c| c == Component::CurDir)
}

/// Creates `relative` and its missing parents under `base` one at a time, each counted.
fn create_directories(base: &Path, relative: &Path, tree: &mut TreeBudget) -> Result<()> {
    let mut current = base.to_path_buf();
    for part in relative.components() {
        current.push(part);
        match fs::create_dir(&current) {
            Ok(()) => tree.add_directory()?,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists && current.is_dir() => {}
            Err(err) => {
                return Err(err).with_context(|| {
                    format!(
                        "cannot create the directory {}",
                        part.as_os_str().to_string_lossy()
                    )
                })
            }
        }
    }
    Ok(())
}

fn create_parents(base: &Path, relative: &Path, tree: &mut TreeBudget) -> Result<()> {
    match relative.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => create_directories(base, parent, tree),
        _ => Ok(()),
    }
}

/// Reads the gzip stream past the tar's end to its trailer, so that a CRC or length that does
/// not match the data, or a trailer cut off, refuses the archive (`GzDecoder` checks both
/// only at the end of the stream, which the tar reader never reaches on its own).
fn verify_gzip_trailer<R: Read>(mut rest: GzDecoder<R>, shown: &str) -> Result<()> {
    let tail = io::copy(&mut (&mut rest).take(MAX_TAIL_BYTES + 1), &mut io::sink()).with_context(
        || format!("{shown} is damaged: its gzip data does not check out to the end"),
    )?;
    if tail > MAX_TAIL_BYTES {
        bail!(
            "{shown} has more than {} of data after the tar archive ends: not a nodecheck snapshot",
            units::size::binary_exact(MAX_TAIL_BYTES)
        );
    }
    Ok(())
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

pub(super) fn checked_relative(name: &Path) -> Option<PathBuf> {
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

pub(super) fn ensure_no_symlink_between(base: &Path, relative: &Path) -> Result<()> {
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
