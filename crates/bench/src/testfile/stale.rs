//! Test files left by killed runs: found by their name and the absence of a lock on them.

use std::fs::File;
use std::io;
use std::path::PathBuf;

use nix::fcntl::OFlag;

use super::dir::try_lock;
use super::{BenchDir, Removal, NAME_PREFIX, NAME_SUFFIX};
use crate::error::BenchError;

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
        dir.unlink_if_at(&self.name, &self.file)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testfile::bench_dir;

    #[test]
    fn stale_names_parse_and_others_do_not() {
        for (name, pid) in [
            (".nodecheck-bench-1234-00ff00ff00ff00ff.tmp", Some(1234)),
            (".nodecheck-bench-1234-.tmp", None),
            (".nodecheck-bench-x-00ff.tmp", None),
            ("nodecheck-bench-1-ab.tmp", None),
            (".nodecheck-bench-1-zz.tmp", None),
        ] {
            assert_eq!(parse_pid(name), pid, "{name}");
        }
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
}
