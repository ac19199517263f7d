//! The test file: created by nodecheck with `O_CREAT|O_EXCL|O_NOFOLLOW` inside the measured file
//! system, locked with `flock` for the run, sized to keep a free-space reserve, prefilled once
//! with incompressible data, and removed by a guard on success, error and cancellation (only
//! if its name still refers to it). A file left by a killed run is found by its name and the
//! absence of a lock on it.

mod dir;
mod lock;
mod space;
mod stale;

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::Arc;

use nix::fcntl::OFlag;

pub use dir::{BenchDir, Removal};

pub use lock::BenchLock;
pub use space::{check_reserve_after_allocation, reserve, size_file, Space};
pub use stale::find_stale;

use crate::error::{BenchError, ByteSize};
use crate::workload::ALIGN;
use dir::try_lock;
use space::round_down;

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

/// `BTRFS_SUPER_MAGIC` and `ZFS_SUPER_MAGIC` (linux/magic.h, OpenZFS): the copy-on-write file
/// systems, where an overwrite takes new space unless the file is `nodatacow`.
const BTRFS_MAGIC: u32 = 0x9123_683e;
const ZFS_MAGIC: u32 = 0x2fc1_2fc1;
/// `FS_NOCOW_FL` (linux/fs.h), what `chattr +C` sets.
const FS_NOCOW_FL: libc::c_int = 0x0080_0000;

/// Whether the test file's overwrites stay in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyOnWrite {
    /// Not a copy-on-write file system.
    No,
    /// btrfs, with `nodatacow` set on the new, empty file (`chattr +C`): overwrites in place.
    Disabled,
    /// A copy-on-write file system where `nodatacow` could not be set (ZFS has none): every
    /// overwrite takes new space, so only the free-space watch holds the reserve.
    Active { fs: &'static str, why: String },
}

/// The test file, removed when dropped.
#[derive(Debug)]
pub struct TestFile {
    dir: Arc<BenchDir>,
    name: String,
    size: u64,
    file: Option<File>,
    copy_on_write: CopyOnWrite,
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
            copy_on_write: CopyOnWrite::No,
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
        // Before the first byte is allocated: btrfs takes the flag only on an empty file.
        guard.copy_on_write = match dir.fs_magic()? {
            BTRFS_MAGIC => match set_nocow(guard.file()?) {
                Ok(()) => CopyOnWrite::Disabled,
                Err(err) => CopyOnWrite::Active {
                    fs: "btrfs",
                    why: format!("chattr +C (FS_IOC_SETFLAGS FS_NOCOW_FL) failed: {err}"),
                },
            },
            ZFS_MAGIC => CopyOnWrite::Active {
                fs: "ZFS",
                why: "ZFS has no nodatacow".to_string(),
            },
            _ => CopyOnWrite::No,
        };
        guard.allocate()?;
        Ok(guard)
    }

    /// Whether overwrites of the file take new space (see [`CopyOnWrite`]).
    pub fn copy_on_write(&self) -> &CopyOnWrite {
        &self.copy_on_write
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

/// `chattr +C`: sets `FS_NOCOW_FL` on `file`, keeping its other flags.
fn set_nocow(file: &File) -> io::Result<()> {
    let mut flags: libc::c_int = 0;
    // SAFETY: FS_IOC_GETFLAGS writes one int (the kernel's ABI despite the `long` in the
    // ioctl number) to a valid pointer; the descriptor is open.
    if unsafe { libc::ioctl(file.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) } < 0 {
        return Err(io::Error::last_os_error());
    }
    flags |= FS_NOCOW_FL;
    // SAFETY: as above, FS_IOC_SETFLAGS reads one int.
    if unsafe { libc::ioctl(file.as_raw_fd(), libc::FS_IOC_SETFLAGS, &flags) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The directory of a unit test, opened as a run opens it.
#[cfg(test)]
fn bench_dir(dir: &std::path::Path) -> Arc<BenchDir> {
    Arc::new(BenchDir::open(dir).unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
