//! The measured directory, opened once: every name the bench makes is resolved relative to it.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use nix::fcntl::{AtFlags, OFlag};
use nix::sys::stat::Mode;

use crate::error::BenchError;

/// The directory a run works in, opened once. Every name the bench creates, locks, checks or
/// removes is resolved relative to this descriptor with `O_NOFOLLOW`/`AT_SYMLINK_NOFOLLOW`, so
/// neither a symlink planted under one of those names nor a directory swapped for another
/// after the start redirects a write or a removal.
#[derive(Debug)]
pub struct BenchDir {
    pub(super) fd: OwnedFd,
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
    pub(super) fn open_at(&self, name: &str, flags: OFlag, mode: u32) -> io::Result<File> {
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
    pub(super) fn is_at(&self, name: &str, file: &File) -> io::Result<bool> {
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
    pub(super) fn remove_if_ours(&self, name: &str, file: &File) -> io::Result<Removal> {
        if self.unlink_if_at(name, file)? == Removal::Removed {
            return Ok(Removal::Removed);
        }
        file.set_len(0)?;
        Ok(Removal::NotOurs)
    }

    /// Unlinks `name` only if it still refers to `file`; leaves anything else there untouched.
    pub(super) fn unlink_if_at(&self, name: &str, file: &File) -> io::Result<Removal> {
        if !self.is_at(name, file)? {
            return Ok(Removal::NotOurs);
        }
        nix::unistd::unlinkat(
            Some(self.fd.as_raw_fd()),
            name,
            nix::unistd::UnlinkatFlags::NoRemoveDir,
        )?;
        Ok(Removal::Removed)
    }
}

/// An exclusive `flock` without waiting: `Ok(false)` when another open file holds one. The
/// lock belongs to the open file description, so duplicates of the descriptor share it and it
/// goes away with the last of them, including when the process is killed.
pub(super) fn try_lock(file: &File) -> io::Result<bool> {
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
