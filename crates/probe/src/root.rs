//! The only place that touches the file system: every read of `/sys`, `/proc`, `/etc` goes
//! through a [`Root`], so the same probe answers for this machine (`/`) or for a fixture tree or
//! unpacked snapshot of another one.
//!
//! Paths given to a `Root` are absolute paths *inside* it (`/sys/block/vda/size`). Symlinks are
//! resolved here, component by component, the way the kernel resolves them for a chrooted
//! process: absolute targets restart at the root, `..` at the root stays at the root, and a loop
//! ends with [`ProbeError::SymlinkLoop`]. So a link to `/etc/passwd` in a fixture resolves to
//! `ROOT/etc/passwd`, never to the host's file.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::error::ProbeError;

/// Linux gives up after 40 links in one lookup (`MAXSYMLINKS`); so do we.
const MAX_SYMLINKS: usize = 40;

/// sysfs attributes are at most one page; anything longer is not a real attribute.
pub const ATTR_CAP: usize = 4096;
/// Binary attributes (IDENTIFY dumps, DMI tables) are far smaller than this.
pub const BYTES_CAP: usize = 1 << 20;
/// mountinfo on a container host with thousands of mounts stays well below this.
pub const TEXT_CAP: usize = 16 << 20;

/// What the probe touched, so `nodecheck snapshot` can copy exactly that.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct AccessedPath {
    /// Absolute path inside the root (`/sys/block/vda`).
    pub path: PathBuf,
    pub kind: AccessKind,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum AccessKind {
    /// A regular file whose contents were read.
    File,
    /// Something whose existence or type was tested without reading it: the path being
    /// checked, a device node, a unit file. A snapshot stands in an empty file for it, never
    /// its contents.
    Present,
    /// A directory that was listed (or whose existence was tested).
    Dir,
    /// A symlink that was followed; `target` is its raw content, to be recreated as-is.
    Symlink { target: PathBuf },
}

/// A directory that stands for `/` while probing.
#[derive(Debug)]
pub struct Root {
    base: PathBuf,
    live: bool,
    recorded: Option<Mutex<BTreeMap<PathBuf, AccessKind>>>,
    /// smartctl's output per drive, recorded with the paths: a replay reads it instead of
    /// running smartctl.
    smartctl_outputs: Option<Mutex<BTreeMap<String, Vec<u8>>>>,
    /// Other programs' outputs the probe used (`zpool get`, `zpool status -P`), by the in-root
    /// path where a replay reads them instead of running the program.
    command_outputs: Option<Mutex<BTreeMap<PathBuf, Vec<u8>>>>,
    warnings: Mutex<Vec<String>>,
}

impl Root {
    /// The running machine.
    pub fn live() -> Root {
        Root {
            base: PathBuf::from("/"),
            live: true,
            recorded: None,
            smartctl_outputs: None,
            command_outputs: None,
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// A fixture tree or unpacked snapshot at `dir`. `Root::at("/")` is the live machine.
    pub fn at(dir: impl AsRef<Path>) -> Result<Root, ProbeError> {
        let dir = dir.as_ref();
        let base = fs::canonicalize(dir).map_err(|source| ProbeError::RootUnreadable {
            path: dir.to_path_buf(),
            source,
        })?;
        if !base.is_dir() {
            return Err(ProbeError::RootNotADirectory(dir.to_path_buf()));
        }
        let live = base == Path::new("/");
        Ok(Root {
            base,
            live,
            recorded: None,
            smartctl_outputs: None,
            command_outputs: None,
            warnings: Mutex::new(Vec::new()),
        })
    }

    /// Records every path read from now on (see [`Root::accessed`]).
    pub fn recording(mut self) -> Root {
        self.recorded = Some(Mutex::new(BTreeMap::new()));
        self.smartctl_outputs = Some(Mutex::new(BTreeMap::new()));
        self.command_outputs = Some(Mutex::new(BTreeMap::new()));
        self
    }

    /// True when this root is the running machine's `/`: only then may the probe run ioctls,
    /// statvfs and external programs.
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The host directory standing for `/`.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Where an absolute in-root path lives on the host. No symlink resolution: use
    /// [`Root::canonicalize`] first when the path may contain links.
    pub fn host_path(&self, path: &Path) -> PathBuf {
        let relative: PathBuf = path
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect();
        self.base.join(relative)
    }

    /// Every file read, directory listed and symlink followed since [`Root::recording`], in
    /// path order. Empty when not recording.
    pub fn accessed(&self) -> Vec<AccessedPath> {
        let Some(recorded) = &self.recorded else {
            return Vec::new();
        };
        lock(recorded)
            .iter()
            .map(|(path, kind)| AccessedPath {
                path: path.clone(),
                kind: kind.clone(),
            })
            .collect()
    }

    /// The exact output of every smartctl run the probe used since [`Root::recording`], by
    /// drive name, in name order. Empty when not recording.
    pub fn smartctl_outputs(&self) -> Vec<(String, Vec<u8>)> {
        let Some(outputs) = &self.smartctl_outputs else {
            return Vec::new();
        };
        lock(outputs)
            .iter()
            .map(|(drive, output)| (drive.clone(), output.clone()))
            .collect()
    }

    pub(crate) fn record_smartctl_output(&self, drive: &str, output: &[u8]) {
        if let Some(outputs) = &self.smartctl_outputs {
            lock(outputs).insert(drive.to_string(), output.to_vec());
        }
    }

    /// The exact output of every other program the probe used since [`Root::recording`]
    /// (`zpool`, `zfs`), by the in-root path where a replay reads it, in path order. Empty
    /// when not recording.
    pub fn command_outputs(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let Some(outputs) = &self.command_outputs else {
            return Vec::new();
        };
        lock(outputs)
            .iter()
            .map(|(path, output)| (path.clone(), output.clone()))
            .collect()
    }

    pub(crate) fn record_command_output(&self, saved_at: &str, output: &[u8]) {
        if let Some(outputs) = &self.command_outputs {
            lock(outputs).insert(PathBuf::from(saved_at), output.to_vec());
        }
    }

    /// Problems met while reading (non-UTF-8 bytes, oversized attributes, I/O errors), drained.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.warnings))
    }

    pub(crate) fn warn(&self, message: String) {
        let mut warnings = lock(&self.warnings);
        // One warning per problem is enough, even when a path is read twice.
        if !warnings.contains(&message) {
            warnings.push(message);
        }
    }

    fn record(&self, path: &Path, kind: AccessKind) {
        if let Some(recorded) = &self.recorded {
            let mut recorded = lock(recorded);
            // A later existence test must not hide that the contents were read.
            if kind == AccessKind::Present && recorded.get(path) == Some(&AccessKind::File) {
                return;
            }
            recorded.insert(path.to_path_buf(), kind);
        }
    }

    /// Resolves every symlink in `path` inside the root and returns the in-root path of the
    /// object it names. Fails when it does not exist, on a loop, or on an I/O error.
    /// The object itself is recorded too, so a replay finds where the links led.
    pub fn canonicalize(&self, path: impl AsRef<Path>) -> Result<PathBuf, ProbeError> {
        let resolved = self.resolve(path.as_ref(), true)?;
        if self.recorded.is_some() {
            self.record_if_present(&resolved);
        }
        Ok(resolved)
    }

    fn resolve(&self, path: &Path, follow_last: bool) -> Result<PathBuf, ProbeError> {
        let mut resolved = PathBuf::from("/");
        // Components still to walk, last one first, so a link's target can be pushed in front.
        let mut pending: Vec<OsString> = components_reversed(path);
        let mut links_followed = 0usize;
        while let Some(name) = pending.pop() {
            if name == ".." {
                // `pop` on "/" keeps "/": `..` at the root stays at the root.
                resolved.pop();
                continue;
            }
            let candidate = resolved.join(&name);
            let host = self.host_path(&candidate);
            let metadata = fs::symlink_metadata(&host).map_err(|err| io_error(&candidate, err))?;
            let is_last = pending.is_empty();
            if metadata.file_type().is_symlink() && (follow_last || !is_last) {
                links_followed += 1;
                if links_followed > MAX_SYMLINKS {
                    return Err(ProbeError::SymlinkLoop {
                        path: path.to_path_buf(),
                    });
                }
                let target = fs::read_link(&host).map_err(|err| io_error(&candidate, err))?;
                self.record(
                    &candidate,
                    AccessKind::Symlink {
                        target: target.clone(),
                    },
                );
                if target.is_absolute() {
                    resolved = PathBuf::from("/");
                }
                pending.extend(components_reversed(&target));
            } else {
                if !is_last && !metadata.is_dir() {
                    return Err(ProbeError::NotFound {
                        path: path.to_path_buf(),
                    });
                }
                resolved = candidate;
            }
        }
        Ok(resolved)
    }

    /// [`Root::read_attr`] through `parse`: `None` when the attribute is missing, empty or
    /// does not parse.
    pub fn parse_attr<T>(
        &self,
        path: impl AsRef<Path>,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Option<T> {
        self.read_attr(path).as_deref().and_then(parse)
    }

    /// The attribute at `path`: trimmed, at most [`ATTR_CAP`] bytes, invalid UTF-8 replaced
    /// (with a warning). `None` when missing, unreadable or empty.
    pub fn read_attr(&self, path: impl AsRef<Path>) -> Option<String> {
        let path = path.as_ref();
        let bytes = self.read_capped(path, ATTR_CAP)?;
        let text = self.decode(path, &bytes);
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }

    /// A whole text file (mountinfo), at most [`TEXT_CAP`] bytes, invalid UTF-8 replaced.
    pub fn read_text(&self, path: impl AsRef<Path>) -> Option<String> {
        self.read_text_noting_truncation(path).map(|(text, _)| text)
    }

    /// [`Root::read_text`], and whether the file was longer than [`TEXT_CAP`] and cut there,
    /// for callers whose answer may lie in the part that was cut.
    pub fn read_text_noting_truncation(&self, path: impl AsRef<Path>) -> Option<(String, bool)> {
        let path = path.as_ref();
        let (bytes, truncated) = self.read_capped_noting_truncation(path, TEXT_CAP)?;
        Some((self.decode(path, &bytes), truncated))
    }

    /// Raw bytes of a file, at most [`BYTES_CAP`].
    pub fn read_bytes(&self, path: impl AsRef<Path>) -> Option<Vec<u8>> {
        self.read_capped(path.as_ref(), BYTES_CAP)
    }

    /// A whole document inside the tree (a snapshot's manifest, a saved smartctl output): its
    /// symlinks resolved inside the root, then read with the bounded reader, so a link to a
    /// host file, a FIFO or `/dev/zero` is an error rather than a leak, a hang or an endless
    /// read. Longer than `cap` is an error, not a truncation.
    pub fn read_document(
        &self,
        path: impl AsRef<Path>,
        cap: u64,
        what: &'static str,
    ) -> Result<Vec<u8>, ProbeError> {
        let resolved = self.resolve(path.as_ref(), true)?;
        let bytes = crate::input::read_tree_file(&self.host_path(&resolved), cap, what)?;
        self.record(&resolved, AccessKind::File);
        Ok(bytes)
    }

    /// The raw target of the symlink at `path` (its parent directories are resolved).
    pub fn read_link(&self, path: impl AsRef<Path>) -> Option<PathBuf> {
        let path = path.as_ref();
        let resolved = self.resolve(path, false).ok()?;
        let target = fs::read_link(self.host_path(&resolved)).ok()?;
        self.record(
            &resolved,
            AccessKind::Symlink {
                target: target.clone(),
            },
        );
        Some(target)
    }

    /// The last component of where the symlink at `path` points (`driver` → `ahci`).
    pub fn link_name(&self, path: impl AsRef<Path>) -> Option<String> {
        let target = self.read_link(path)?;
        target
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
    }

    /// Entry names of the directory at `path`, sorted. Empty when it is missing or unreadable.
    pub fn read_dir(&self, path: impl AsRef<Path>) -> Vec<String> {
        let path = path.as_ref();
        let Ok(resolved) = self.resolve(path, true) else {
            return Vec::new();
        };
        let Ok(entries) = crate::input::read_dir_without_atime(&self.host_path(&resolved)) else {
            return Vec::new();
        };
        self.record(&resolved, AccessKind::Dir);
        let mut names: Vec<String> = entries
            .iter()
            .map(|name| name.to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Whether `path` exists (following symlinks inside the root).
    pub fn exists(&self, path: impl AsRef<Path>) -> bool {
        self.resolve(path.as_ref(), true)
            .is_ok_and(|resolved| self.record_if_present(&resolved))
    }

    /// Whether `path` is a directory (following symlinks inside the root).
    pub fn is_dir(&self, path: impl AsRef<Path>) -> bool {
        let Ok(resolved) = self.resolve(path.as_ref(), true) else {
            return false;
        };
        let is_dir = fs::metadata(self.host_path(&resolved)).is_ok_and(|m| m.is_dir());
        if is_dir {
            self.record(&resolved, AccessKind::Dir);
        }
        is_dir
    }

    /// Whether `path` itself exists, without following a final symlink (a `.wants/` link whose
    /// target is not in the snapshot still says the unit is enabled).
    pub fn exists_no_follow(&self, path: impl AsRef<Path>) -> bool {
        let Ok(resolved) = self.resolve(path.as_ref(), false) else {
            return false;
        };
        if let Ok(target) = fs::read_link(self.host_path(&resolved)) {
            self.record(&resolved, AccessKind::Symlink { target });
            return true;
        }
        self.record_if_present(&resolved)
    }

    /// Whether the resolved in-root `path` exists; if so it is recorded as tested, not read:
    /// a directory as such, anything else as present.
    fn record_if_present(&self, path: &Path) -> bool {
        match fs::symlink_metadata(self.host_path(path)) {
            Ok(metadata) => {
                let kind = if metadata.is_dir() {
                    AccessKind::Dir
                } else {
                    AccessKind::Present
                };
                self.record(path, kind);
                true
            }
            Err(_) => false,
        }
    }

    fn read_capped(&self, path: &Path, cap: usize) -> Option<Vec<u8>> {
        self.read_capped_noting_truncation(path, cap)
            .map(|(bytes, _)| bytes)
    }

    fn read_capped_noting_truncation(&self, path: &Path, cap: usize) -> Option<(Vec<u8>, bool)> {
        let resolved = match self.resolve(path, true) {
            Ok(resolved) => resolved,
            Err(ProbeError::NotFound { .. }) => return None,
            Err(err) => {
                self.warn(err.to_string());
                return None;
            }
        };
        let host = self.host_path(&resolved);
        let bytes = match read_regular_file(&host, cap) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return None,
            Err(err) => {
                self.warn(format!("{}: {err}", resolved.display()));
                return None;
            }
        };
        self.record(&resolved, AccessKind::File);
        if bytes.len() > cap {
            self.warn(format!(
                "{}: longer than {cap} bytes, truncated",
                resolved.display()
            ));
            let mut bytes = bytes;
            bytes.truncate(cap);
            return Some((bytes, true));
        }
        Some((bytes, false))
    }

    fn decode(&self, path: &Path, bytes: &[u8]) -> String {
        match String::from_utf8_lossy(bytes) {
            std::borrow::Cow::Borrowed(text) => text.to_string(),
            std::borrow::Cow::Owned(text) => {
                self.warn(format!(
                    "{}: not valid UTF-8, invalid bytes replaced",
                    path.display()
                ));
                text
            }
        }
    }
}

/// Reads at most `cap + 1` bytes so the caller can tell "exactly cap" from "longer".
/// Only regular files: a FIFO or device node in a hostile tree would block or do I/O.
fn read_regular_file(host: &Path, cap: usize) -> io::Result<Vec<u8>> {
    let file = crate::input::open_regular_no_follow(host)?;
    let mut bytes = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn components_reversed(path: &Path) -> Vec<OsString> {
    let mut names: Vec<OsString> = path
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    names.reverse();
    names
}

fn io_error(path: &Path, err: io::Error) -> ProbeError {
    // ENOTDIR means a file stood where a directory was expected: for the caller that is
    // simply "not there".
    if err.kind() == io::ErrorKind::NotFound || err.raw_os_error() == Some(libc::ENOTDIR) {
        ProbeError::NotFound {
            path: path.to_path_buf(),
        }
    } else if err.raw_os_error() == Some(libc::ELOOP) {
        ProbeError::SymlinkLoop {
            path: path.to_path_buf(),
        }
    } else {
        ProbeError::Io {
            path: path.to_path_buf(),
            source: err,
        }
    }
}

/// A poisoned lock only means another thread panicked mid-push; the data is still usable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests;
