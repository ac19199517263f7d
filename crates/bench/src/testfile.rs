//! The test file: created by nodecheck with `O_CREAT|O_EXCL|O_NOFOLLOW` inside the measured file
//! system, locked with `flock` for the run, sized to keep a free-space reserve, prefilled once
//! with incompressible data, and removed by a guard on success, error and cancellation (only
//! if its name still refers to it). A file left by a killed run is found by its name and the
//! absence of a lock on it.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nix::fcntl::{AtFlags, OFlag};
use nix::sys::stat::Mode;

use crate::error::{BenchError, ByteSize};
use crate::workload::ALIGN;

/// The community's fio file size.
pub const COMMUNITY_SIZE: u64 = 150 << 30;
/// The absolute floor of the reserve: a live node must keep this much free.
pub const MIN_RESERVE: u64 = 50 << 30;
/// The smallest test file worth measuring; below it the device cache dominates.
pub const MIN_FILE_SIZE: u64 = 16 << 20;
/// File sizes are rounded down to this, so the prefill writes whole chunks.
pub const SIZE_GRANULE: u64 = 1 << 20;

const NAME_PREFIX: &str = ".nodecheck-bench-";
const NAME_SUFFIX: &str = ".tmp";
/// The lock file that keeps a second bench out of the directory while one runs.
pub const LOCK_NAME: &str = ".nodecheck-bench.lock";

/// Free space of a file system, from `statvfs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    pub total: u64,
    /// Available to unprivileged users (`f_bavail`): what a node can still use.
    pub available: u64,
}

impl Space {
    pub fn of(path: &Path) -> Result<Space, BenchError> {
        let record = probe::space::statvfs(path).map_err(|errno| {
            BenchError::io(
                format!("statvfs {}", path.display()),
                io::Error::from(errno),
            )
        })?;
        Ok(Space::from_record(record))
    }

    /// The file system of the directory the bench opened, by its descriptor: the path may
    /// have been swapped since.
    pub fn of_dir(dir: &BenchDir) -> Result<Space, BenchError> {
        let record = probe::space::fstatvfs(&dir.fd).map_err(|errno| {
            BenchError::io(
                format!("statvfs {}", dir.path().display()),
                io::Error::from(errno),
            )
        })?;
        Ok(Space::from_record(record))
    }

    fn from_record(record: probe::space::StatvfsRecord) -> Space {
        Space {
            total: record.total_bytes,
            available: record.free_bytes,
        }
    }
}

/// How much the file system must keep free: `override_bytes` if given (for tests and small
/// disks, documented), else max(10 % of the file system, 50 GiB).
pub fn reserve(space: Space, override_bytes: Option<u64>) -> u64 {
    override_bytes.unwrap_or_else(|| (space.total / 10).max(MIN_RESERVE))
}

/// The size decided for the test file and whether it had to be shrunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sizing {
    pub size: u64,
    pub warning: Option<String>,
}

/// Decides the test file's size: the requested size (default 150 GiB) if the reserve allows,
/// else the largest that keeps the reserve, with a warning; refuses with the numbers when not
/// even [`MIN_FILE_SIZE`] fits.
pub fn size_file(
    fs: &Path,
    space: Space,
    requested: Option<u64>,
    reserve_override: Option<u64>,
) -> Result<Sizing, BenchError> {
    let reserve = reserve(space, reserve_override);
    let spare = space.available.saturating_sub(reserve);
    let wanted = round_down(requested.unwrap_or(COMMUNITY_SIZE)).max(MIN_FILE_SIZE);
    let spare_rounded = round_down(spare);
    if spare_rounded < MIN_FILE_SIZE.min(wanted) {
        let reserve_origin = match reserve_override {
            Some(_) => "set for this run".to_string(),
            None => format!("max(10 % of {}, 50 GiB)", ByteSize(space.total)),
        };
        return Err(BenchError::NoRoom {
            fs: fs.display().to_string(),
            avail: ByteSize(space.available),
            total: ByteSize(space.total),
            reserve: ByteSize(reserve),
            reserve_origin,
            spare: ByteSize(spare),
            needed: ByteSize(MIN_FILE_SIZE.min(wanted)),
        });
    }
    if wanted <= spare_rounded {
        return Ok(Sizing {
            size: wanted,
            warning: None,
        });
    }
    Ok(Sizing {
        size: spare_rounded,
        warning: Some(format!(
            "test file shrunk to {} (asked {}) to keep {} free on {} ({} available)",
            ByteSize(spare_rounded),
            ByteSize(wanted),
            ByteSize(reserve),
            fs.display(),
            ByteSize(space.available)
        )),
    })
}

fn round_down(bytes: u64) -> u64 {
    bytes / SIZE_GRANULE * SIZE_GRANULE
}

/// The directory a run works in, opened once. Every name the bench creates, locks, checks or
/// removes is resolved relative to this descriptor with `O_NOFOLLOW`/`AT_SYMLINK_NOFOLLOW`, so
/// neither a symlink planted under one of those names nor a directory swapped for another
/// after the start redirects a write or a removal.
#[derive(Debug)]
pub struct BenchDir {
    fd: OwnedFd,
    path: PathBuf,
}

/// What happened to a name when the bench went to remove the file it created there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    Removed,
    /// The name no longer refers to the bench's file (renamed away, replaced, a symlink planted):
    /// nothing at that name was touched; the bench's own file was emptied through its
    /// descriptor so that its space comes back wherever it now is.
    NotOurs,
}

impl BenchDir {
    /// Opens `path` as a directory. The user's own path may be a symlink (a datadir linked to
    /// another disk); only the names the bench makes inside it are never followed.
    pub fn open(path: &Path) -> Result<BenchDir, BenchError> {
        let fd = nix::fcntl::open(
            path,
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| {
            BenchError::io(
                format!("opening {}", path.display()),
                io::Error::from(errno),
            )
        })?;
        // SAFETY: `open` returned a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(BenchDir {
            fd,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The `f_type` magic number of its file system (`statfs(2)`), as a 32-bit value whatever
    /// the width of the field on this target.
    pub fn fs_magic(&self) -> Result<u32, BenchError> {
        let stat = nix::sys::statfs::fstatfs(&self.fd).map_err(|errno| {
            BenchError::io(
                format!("statfs {}", self.path.display()),
                io::Error::from(errno),
            )
        })?;
        Ok(stat.filesystem_type().0 as u32)
    }

    /// `name` in this directory, for messages.
    pub fn display(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Opens `name` relative to the directory, never through a symlink.
    fn open_at(&self, name: &str, flags: OFlag, mode: u32) -> io::Result<File> {
        let fd = nix::fcntl::openat(
            Some(self.fd.as_raw_fd()),
            name,
            flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(mode),
        )?;
        // SAFETY: `openat` returned a fresh descriptor that nothing else owns.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// True when `name` (not followed if a symlink) is the very file open as `file`.
    fn is_at(&self, name: &str, file: &File) -> io::Result<bool> {
        let open = nix::sys::stat::fstat(file.as_raw_fd())?;
        match nix::sys::stat::fstatat(
            Some(self.fd.as_raw_fd()),
            name,
            AtFlags::AT_SYMLINK_NOFOLLOW,
        ) {
            Ok(named) => Ok(named.st_dev == open.st_dev && named.st_ino == open.st_ino),
            Err(nix::errno::Errno::ENOENT) => Ok(false),
            Err(errno) => Err(errno.into()),
        }
    }

    /// Removes `name` only if it still refers to `file`; otherwise leaves whatever is there
    /// and empties `file` through its descriptor (it is the bench's own).
    fn remove_if_ours(&self, name: &str, file: &File) -> io::Result<Removal> {
        if self.is_at(name, file)? {
            nix::unistd::unlinkat(
                Some(self.fd.as_raw_fd()),
                name,
                nix::unistd::UnlinkatFlags::NoRemoveDir,
            )?;
            return Ok(Removal::Removed);
        }
        file.set_len(0)?;
        Ok(Removal::NotOurs)
    }
}

/// One bench per directory at a time: an exclusive `flock` on [`LOCK_NAME`], held for the
/// whole run, with the holder's pid written in it for the message the next one prints.
#[derive(Debug)]
pub struct BenchLock {
    dir: Arc<BenchDir>,
    file: Option<File>,
}

impl BenchLock {
    /// Takes the lock or says which bench holds it.
    pub fn acquire(dir: &Arc<BenchDir>) -> Result<BenchLock, BenchError> {
        let lock_path = dir.display(LOCK_NAME);
        let io_error =
            |err: io::Error| BenchError::io(format!("locking {}", lock_path.display()), err);
        // A holder removes the file while still holding the lock, so a lock taken on a file
        // that is no longer at the name is worthless: retry on the new one.
        for _ in 0..16 {
            // O_NONBLOCK: a FIFO planted under the name must not hang the open.
            let flags = OFlag::O_CREAT | OFlag::O_NONBLOCK;
            let file = match dir.open_at(LOCK_NAME, flags | OFlag::O_RDWR, 0o644) {
                // Another user's lock file: it can still be locked, just not written.
                Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
                    dir.open_at(LOCK_NAME, flags | OFlag::O_RDONLY, 0o644)
                }
                other => other,
            }
            .map_err(|err| {
                if err.raw_os_error() == Some(libc::ELOOP) {
                    BenchError::Refused(format!(
                        "{} is a symlink; the bench never follows one in its own paths: \
                         remove it",
                        lock_path.display()
                    ))
                } else {
                    io_error(err)
                }
            })?;
            if !file.metadata().map_err(io_error)?.is_file() {
                return Err(BenchError::Refused(format!(
                    "{} is not a regular file; remove it",
                    lock_path.display()
                )));
            }
            if !try_lock(&file).map_err(io_error)? {
                return Err(BenchError::Busy {
                    pid: read_pid(&file),
                    lock: lock_path,
                });
            }
            if !dir.is_at(LOCK_NAME, &file).map_err(io_error)? {
                continue;
            }
            // The pid is for the other bench's message only; an unwritable file still locks.
            let pid = format!("{}\n", std::process::id());
            if file.set_len(0).is_ok() {
                let _ = file.write_all_at(pid.as_bytes(), 0);
            }
            return Ok(BenchLock {
                dir: Arc::clone(dir),
                file: Some(file),
            });
        }
        Err(BenchError::Refused(format!(
            "{} keeps being replaced; is another program removing it?",
            lock_path.display()
        )))
    }
}

impl Drop for BenchLock {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            // Removed while still locked (see `acquire`), and only if the name is still ours.
            if let Ok(true) = self.dir.is_at(LOCK_NAME, &file) {
                let _ = nix::unistd::unlinkat(
                    Some(self.dir.fd.as_raw_fd()),
                    LOCK_NAME,
                    nix::unistd::UnlinkatFlags::NoRemoveDir,
                );
            }
        }
    }
}

/// The pid a lock holder wrote into the lock file (a few bytes, never more).
fn read_pid(file: &File) -> Option<u32> {
    let mut buf = [0u8; 16];
    let len = file.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..len]).ok()?.trim().parse().ok()
}

/// The test file, removed when dropped.
#[derive(Debug)]
pub struct TestFile {
    dir: Arc<BenchDir>,
    name: String,
    size: u64,
    file: Option<File>,
}

impl TestFile {
    /// Creates `.nodecheck-bench-<pid>-<random>.tmp` in `dir` with
    /// `O_CREAT|O_EXCL|O_NOFOLLOW` (never touching an existing file or following a link),
    /// opened read-write with O_DIRECT when `direct`, locks it (a live bench is recognised by
    /// that lock, see [`find_stale`]), and reserves `size` bytes with `fallocate` so that a
    /// full file system fails now, not mid-run. Every test then works on this one descriptor.
    pub fn create(dir: &Arc<BenchDir>, size: u64, direct: bool) -> Result<TestFile, BenchError> {
        // A name collision is astronomically unlikely, but O_EXCL turns it into an error, never
        // into overwriting someone's file; a fresh random name then gets another chance.
        let mut last_error = None;
        for _ in 0..8 {
            let name = format!(
                "{NAME_PREFIX}{}-{:016x}{NAME_SUFFIX}",
                std::process::id(),
                rand::random::<u64>()
            );
            match Self::create_named(dir, &name, size, direct) {
                Err(BenchError::Io { source, .. })
                    if source.kind() == io::ErrorKind::AlreadyExists =>
                {
                    last_error = Some(source);
                }
                other => return other,
            }
        }
        Err(BenchError::io(
            format!("creating a test file in {}", dir.path().display()),
            last_error.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists)),
        ))
    }

    /// [`TestFile::create`] with a given file name; fails with `AlreadyExists` rather than
    /// touching an existing file (or symlink).
    pub fn create_named(
        dir: &Arc<BenchDir>,
        name: &str,
        size: u64,
        direct: bool,
    ) -> Result<TestFile, BenchError> {
        let size = round_down(size).max(ALIGN);
        let path = dir.display(name);
        let mut flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL;
        if direct {
            flags |= OFlag::O_DIRECT;
        }
        let file = dir.open_at(name, flags, 0o600).map_err(|err| {
            let hint = if err.raw_os_error() == Some(libc::EINVAL) && direct {
                " (the file system does not support O_DIRECT, e.g. tmpfs)"
            } else {
                ""
            };
            BenchError::io(format!("creating {}{hint}", path.display()), err)
        })?;
        // From here on the guard owns the file: any error below removes it.
        let mut guard = TestFile {
            dir: Arc::clone(dir),
            name: name.to_string(),
            size,
            file: Some(file),
        };
        // Nobody else can hold a file created a moment ago with O_EXCL; the lock is what tells
        // a later scan that this file is live.
        if !try_lock(guard.file()?)
            .map_err(|err| BenchError::io(format!("locking {}", path.display()), err))?
        {
            return Err(BenchError::Refused(format!(
                "{} was locked by another process as it was created",
                path.display()
            )));
        }
        guard.allocate()?;
        Ok(guard)
    }

    fn allocate(&mut self) -> Result<(), BenchError> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let len = i64::try_from(self.size)
            .map_err(|_| BenchError::InvalidPlan(format!("size {} too large", self.size)))?;
        match nix::fcntl::fallocate(
            file.as_raw_fd(),
            nix::fcntl::FallocateFlags::empty(),
            0,
            len,
        ) {
            Ok(()) => Ok(()),
            // Some file systems cannot preallocate; the prefill writes every byte anyway.
            Err(nix::errno::Errno::EOPNOTSUPP) => file
                .set_len(self.size)
                .map_err(|err| BenchError::io(format!("sizing {}", self.path().display()), err)),
            Err(errno) => Err(BenchError::io(
                format!(
                    "reserving {} for {}",
                    ByteSize(self.size),
                    self.path().display()
                ),
                io::Error::from(errno),
            )),
        }
    }

    /// Where the file was created, for messages. Never opened again by this name.
    pub fn path(&self) -> PathBuf {
        self.dir.display(&self.name)
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The open file; engines and the behaviour tests get a clone of its descriptor.
    pub fn file(&self) -> Result<&File, BenchError> {
        self.file
            .as_ref()
            .ok_or_else(|| BenchError::Engine("the test file is closed".into()))
    }

    /// A duplicate of the descriptor (same open file, same flags, same lock).
    pub fn duplicate(&self) -> Result<File, BenchError> {
        self.file()?
            .try_clone()
            .map_err(|err| BenchError::io("duplicating the test file descriptor", err))
    }

    /// Flushes the prefill to stable storage so that the measurement does not pay for it.
    pub fn sync(&self) -> Result<(), BenchError> {
        self.file()?
            .sync_data()
            .map_err(|err| BenchError::io(format!("fdatasync {}", self.path().display()), err))
    }

    /// Removes the file now, reporting an error (drop would only ignore it). The name is
    /// unlinked only if it still refers to the file this guard created.
    pub fn remove(mut self) -> Result<Removal, BenchError> {
        let file = self.file.take();
        match file {
            Some(file) => self
                .dir
                .remove_if_ours(&self.name, &file)
                .map_err(|err| BenchError::io(format!("removing {}", self.path().display()), err)),
            None => Ok(Removal::Removed),
        }
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            let _ = self.dir.remove_if_ours(&self.name, &file);
        }
    }
}

/// A test file in the directory that no live bench holds: left by a killed run.
#[derive(Debug)]
pub struct StaleFile {
    pub name: String,
    pub path: PathBuf,
    pub size: u64,
    /// The pid in the name: the run that created it, for the message only.
    pub pid: u32,
    /// Open and locked, so no bench can take it over while it is being removed.
    file: File,
}

impl StaleFile {
    /// Removes it if the name still refers to the file that was found stale.
    pub fn remove(self, dir: &BenchDir) -> io::Result<Removal> {
        if dir.is_at(&self.name, &self.file)? {
            nix::unistd::unlinkat(
                Some(dir.fd.as_raw_fd()),
                self.name.as_str(),
                nix::unistd::UnlinkatFlags::NoRemoveDir,
            )?;
            Ok(Removal::Removed)
        } else {
            Ok(Removal::NotOurs)
        }
    }
}

/// Finds test files in `dir` that no running bench holds. A live bench keeps an exclusive
/// `flock` on its file for the whole run; the pid in the name is not trusted (pids are reused
/// after a reboot). Symlinks, FIFOs and other non-regular files with a test file's name are not
/// the bench's and are skipped.
pub fn find_stale(dir: &BenchDir) -> Result<Vec<StaleFile>, BenchError> {
    let entries = std::fs::read_dir(dir.path())
        .map_err(|err| BenchError::io(format!("listing {}", dir.path().display()), err))?;
    let mut stale = Vec::new();
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let Some(pid) = parse_pid(&name) else {
            continue;
        };
        let Ok(file) = dir.open_at(&name, OFlag::O_RDONLY | OFlag::O_NONBLOCK, 0) else {
            continue;
        };
        let Ok(metadata) = file.metadata() else {
            continue;
        };
        if !metadata.is_file() {
            continue;
        }
        // Held (or unlockable): a bench is running on it right now, or it is not ours to judge.
        if !try_lock(&file).unwrap_or(false) {
            continue;
        }
        stale.push(StaleFile {
            path: dir.display(&name),
            name,
            size: metadata.len(),
            pid,
            file,
        });
    }
    stale.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(stale)
}

/// `.nodecheck-bench-<pid>-<hex>.tmp` → pid.
fn parse_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(NAME_PREFIX)?.strip_suffix(NAME_SUFFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || !random.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    pid.parse().ok()
}

/// An exclusive `flock` without waiting: `Ok(false)` when another open file holds one. The
/// lock belongs to the open file description, so duplicates of the descriptor share it and it
/// goes away with the last of them, including when the process is killed.
fn try_lock(file: &File) -> io::Result<bool> {
    // SAFETY: flock on a descriptor we own has no memory-safety preconditions.
    let result = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if result == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(err)
    }
}

/// Refuses a run whose test file left less than the reserve free: the space was checked
/// before `fallocate`, and something else (a bench in another directory of the same file
/// system, a node's own writes) may have taken some in between.
pub fn check_reserve_after_allocation(
    fs: &Path,
    after: Space,
    reserve: u64,
    size: u64,
) -> Result<(), BenchError> {
    if after.available >= reserve {
        return Ok(());
    }
    Err(BenchError::ReserveBroken {
        fs: fs.display().to_string(),
        size: ByteSize(size),
        avail: ByteSize(after.available),
        reserve: ByteSize(reserve),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn reserve_is_ten_percent_or_50_gib() {
        let small = Space {
            total: 200 * GIB,
            available: 100 * GIB,
        };
        let large = Space {
            total: 4000 * GIB,
            available: 1000 * GIB,
        };
        assert_eq!(reserve(small, None), 50 * GIB);
        assert_eq!(reserve(large, None), 400 * GIB);
        assert_eq!(reserve(large, Some(GIB)), GIB);
    }

    #[test]
    fn default_size_is_150_gib_when_it_fits() {
        let space = Space {
            total: 2000 * GIB,
            available: 1000 * GIB,
        };
        let sizing = size_file(Path::new("/data"), space, None, None).unwrap();
        assert_eq!(sizing.size, COMMUNITY_SIZE);
        assert_eq!(sizing.warning, None);
    }

    #[test]
    fn shrinks_to_keep_the_reserve_and_says_so() {
        let space = Space {
            total: 1000 * GIB,
            available: 180 * GIB,
        };
        let sizing = size_file(Path::new("/data"), space, None, None).unwrap();
        assert_eq!(sizing.size, 80 * GIB);
        let warning = sizing.warning.unwrap();
        assert!(warning.contains("80.0 GiB"), "{warning}");
        assert!(warning.contains("100.0 GiB free"), "{warning}");
    }

    #[test]
    fn refuses_with_numbers_when_the_reserve_leaves_nothing() {
        let space = Space {
            total: 500 * GIB,
            available: 40 * GIB,
        };
        let err = size_file(Path::new("/data"), space, None, None).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, BenchError::NoRoom { .. }));
        assert!(message.contains("40.0 GiB available"), "{message}");
        assert!(message.contains("keeps 50.0 GiB free"), "{message}");
        assert!(message.contains("/data"), "{message}");
        assert!(
            message.contains("max(10 % of 500.0 GiB, 50 GiB)"),
            "{message}"
        );
        let explicit = size_file(Path::new("/data"), space, None, Some(45 * GIB)).unwrap_err();
        let message = explicit.to_string();
        assert!(message.contains("set for this run"), "{message}");
        assert!(!message.contains("max(10 %"), "{message}");
    }

    #[test]
    fn stale_names_parse_and_others_do_not() {
        assert_eq!(
            parse_pid(".nodecheck-bench-1234-00ff00ff00ff00ff.tmp"),
            Some(1234)
        );
        assert_eq!(parse_pid(".nodecheck-bench-1234-.tmp"), None);
        assert_eq!(parse_pid(".nodecheck-bench-x-00ff.tmp"), None);
        assert_eq!(parse_pid("nodecheck-bench-1-ab.tmp"), None);
        assert_eq!(parse_pid(".nodecheck-bench-1-zz.tmp"), None);
    }

    fn bench_dir(dir: &Path) -> Arc<BenchDir> {
        Arc::new(BenchDir::open(dir).unwrap())
    }

    #[test]
    fn create_is_exclusive_and_the_guard_removes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(&bench_dir(dir.path()), 4 << 20, false).unwrap();
        let path = file.path();
        assert!(path.exists());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 4 << 20);
        drop(file);
        assert!(!path.exists());
    }

    #[test]
    fn an_existing_file_or_symlink_is_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let bench = bench_dir(dir.path());
        let name = ".nodecheck-bench-1-00000000000000aa.tmp";
        let existing = dir.path().join(name);
        std::fs::write(&existing, b"precious").unwrap();
        let err = TestFile::create_named(&bench, name, 1 << 20, false).unwrap_err();
        match err {
            BenchError::Io { source, .. } => {
                assert_eq!(source.kind(), io::ErrorKind::AlreadyExists)
            }
            other => panic!("unexpected {other}"),
        }
        // Neither truncated nor removed by a guard.
        assert_eq!(std::fs::read(&existing).unwrap(), b"precious");

        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        let link = ".nodecheck-bench-1-00000000000000bb.tmp";
        std::os::unix::fs::symlink(&victim, dir.path().join(link)).unwrap();
        assert!(TestFile::create_named(&bench, link, 1 << 20, false).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        assert!(dir.path().join(link).symlink_metadata().is_ok());
    }

    #[test]
    fn a_replaced_name_is_left_alone_and_the_own_file_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(&bench_dir(dir.path()), 4 << 20, false).unwrap();
        let path = file.path();
        let moved = dir.path().join("moved-away");
        std::fs::rename(&path, &moved).unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        assert_eq!(file.remove().unwrap(), Removal::NotOurs);
        assert!(path.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        assert_eq!(std::fs::metadata(&moved).unwrap().len(), 0);
    }

    #[test]
    fn files_nobody_holds_are_stale_whatever_pid_their_name_has() {
        let dir = tempfile::tempdir().unwrap();
        let bench = bench_dir(dir.path());
        // pid 1 is always alive: a reused pid must not hide a stale file.
        let reused_pid = dir.path().join(".nodecheck-bench-1-abcdef.tmp");
        let held = dir.path().join(".nodecheck-bench-4000000-abcdef.tmp");
        std::fs::write(&reused_pid, b"x").unwrap();
        std::fs::write(&held, b"y").unwrap();
        std::fs::write(dir.path().join("unrelated.tmp"), b"z").unwrap();
        std::os::unix::fs::symlink(
            "/etc/hostname",
            dir.path().join(".nodecheck-bench-2-ab.tmp"),
        )
        .unwrap();
        let holder = File::open(&held).unwrap();
        assert!(try_lock(&holder).unwrap());
        let stale = find_stale(&bench).unwrap();
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert_eq!(stale[0].path, reused_pid);
        assert_eq!((stale[0].pid, stale[0].size), (1, 1));
        let found = stale.into_iter().next().unwrap();
        assert_eq!(found.remove(&bench).unwrap(), Removal::Removed);
        assert!(!reused_pid.exists());
        assert!(held.exists());
    }

    #[test]
    fn the_directory_lock_keeps_a_second_bench_out_and_names_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let bench = bench_dir(dir.path());
        let first = BenchLock::acquire(&bench).unwrap();
        // A second open file description, as another process would have.
        let second = BenchLock::acquire(&bench_dir(dir.path())).unwrap_err();
        match &second {
            BenchError::Busy { pid, .. } => assert_eq!(*pid, Some(std::process::id())),
            other => panic!("unexpected {other}"),
        }
        assert!(second.to_string().contains(&std::process::id().to_string()));
        drop(first);
        assert!(
            !dir.path().join(LOCK_NAME).exists(),
            "the lock file is removed"
        );
        drop(BenchLock::acquire(&bench).unwrap());
    }

    #[test]
    fn a_symlinked_lock_file_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join(LOCK_NAME)).unwrap();
        let err = BenchLock::acquire(&bench_dir(dir.path())).unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
    }

    #[test]
    fn the_reserve_is_checked_again_after_allocation() {
        let fs = Path::new("/data");
        let after = Space {
            total: 10 * GIB,
            available: GIB,
        };
        assert!(check_reserve_after_allocation(fs, after, GIB, GIB).is_ok());
        let err = check_reserve_after_allocation(fs, after, 2 * GIB, GIB).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("only 1.0 GiB is free"), "{message}");
        assert!(message.contains("2.0 GiB"), "{message}");
    }
}
