//! One bench per directory at a time.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
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
}
