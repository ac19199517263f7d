//! One bench per directory at a time.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::sync::Arc;

use nix::fcntl::OFlag;

use super::dir::try_lock;
use super::{BenchDir, LOCK_NAME};
use crate::error::BenchError;

/// One bench per directory at a time: an exclusive `flock` on [`LOCK_NAME`], held for the
/// whole run, with the holder's pid written in it for the message the next one prints.
#[derive(Debug)]
pub struct BenchLock {
    dir: Arc<BenchDir>,
    file: Option<File>,
}

impl BenchLock {
    /// Takes the lock or says which bench holds it. The lock file is only ever written when
    /// this call created it (`O_CREAT|O_EXCL|O_NOFOLLOW`): a file already at the name, which
    /// may be a hard link to someone's data, is locked by descriptor and never truncated.
    pub fn acquire(dir: &Arc<BenchDir>) -> Result<BenchLock, BenchError> {
        let lock_path = dir.display(LOCK_NAME);
        let io_error =
            |err: io::Error| BenchError::io(format!("locking {}", lock_path.display()), err);
        // A holder removes the file while still holding the lock, so a lock taken on a file
        // that is no longer at the name is worthless: retry on the new one.
        for _ in 0..16 {
            let (file, created) = open_lock_file(dir).map_err(|err| {
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
            let Some(file) = file else { continue };
            let metadata = file.metadata().map_err(io_error)?;
            if !metadata.is_file() {
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
            if !created {
                // Nobody holds it: left by a killed bench, or planted. Only a file that looks
                // like one of ours (one link, our owner) is removed, and then made afresh.
                refuse_foreign_lock(&metadata, &lock_path)?;
                dir.unlink_if_at(LOCK_NAME, &file).map_err(io_error)?;
                continue;
            }
            // The pid is for the other bench's message only; the file is new and empty.
            let pid = format!("{}\n", std::process::id());
            let _ = file.write_all_at(pid.as_bytes(), 0);
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

/// Creates the lock file (`Some(file)`, true), or opens the one already there read-only
/// (`Some(file)`, false: it is locked but never written), or `None` when it vanished between
/// the two attempts.
fn open_lock_file(dir: &BenchDir) -> io::Result<(Option<File>, bool)> {
    let create = OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_RDWR;
    match dir.open_at(LOCK_NAME, create, 0o644) {
        Ok(file) => return Ok((Some(file), true)),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    // O_NONBLOCK: a FIFO planted under the name must not hang the open.
    match dir.open_at(LOCK_NAME, OFlag::O_RDONLY | OFlag::O_NONBLOCK, 0) {
        Ok(file) => Ok((Some(file), false)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok((None, false)),
        Err(err) => Err(err),
    }
}

/// A lock file nodecheck made has one link and our owner; anything else at the name (a hard
/// link to another file, another user's file) is left alone and the bench refused.
fn refuse_foreign_lock(metadata: &std::fs::Metadata, lock_path: &Path) -> Result<(), BenchError> {
    if metadata.nlink() != 1 {
        return Err(BenchError::Refused(format!(
            "{} has {} hard links, so it is not a lock file nodecheck made; remove it",
            lock_path.display(),
            metadata.nlink()
        )));
    }
    let euid = nix::unistd::geteuid().as_raw();
    if metadata.uid() != euid {
        return Err(BenchError::Refused(format!(
            "{} belongs to uid {}, not to this user (uid {euid}); remove it if no bench is running",
            lock_path.display(),
            metadata.uid()
        )));
    }
    Ok(())
}

impl Drop for BenchLock {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            // Removed while still locked (see `acquire`), and only if the name is still ours.
            let _ = self.dir.unlink_if_at(LOCK_NAME, &file);
        }
    }
}

/// The pid a lock holder wrote into the lock file (a few bytes, never more).
fn read_pid(file: &File) -> Option<u32> {
    let mut buf = [0u8; 16];
    let len = file.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..len]).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testfile::bench_dir;

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
    fn a_hard_linked_lock_file_is_refused_and_its_target_left_intact() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, b"someone's data").unwrap();
        std::fs::hard_link(&victim, dir.path().join(LOCK_NAME)).unwrap();
        let err = BenchLock::acquire(&bench_dir(dir.path())).unwrap_err();
        assert!(err.to_string().contains("hard links"), "{err}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"someone's data");
        assert!(
            dir.path().join(LOCK_NAME).exists(),
            "the planted link is left alone"
        );
    }

    #[test]
    fn a_stale_lock_file_of_ours_is_replaced_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(LOCK_NAME);
        std::fs::write(&stale, b"4242\n").unwrap();
        let stale_inode = std::fs::metadata(&stale).unwrap().ino();
        // Held open so its inode cannot be reused for the new file once it is unlinked.
        let old = File::open(&stale).unwrap();
        let lock = BenchLock::acquire(&bench_dir(dir.path())).unwrap();
        assert_eq!(read_pid(&old), Some(4242), "the old file was not rewritten");
        let fresh = std::fs::metadata(&stale).unwrap();
        assert_ne!(
            fresh.ino(),
            stale_inode,
            "a new file, not the old one truncated"
        );
        assert_eq!(
            std::fs::read_to_string(&stale).unwrap(),
            format!("{}\n", std::process::id())
        );
        drop(lock);
        assert!(!stale.exists());
    }
}
