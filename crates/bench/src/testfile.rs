//! The test file: created by nodecheck with `O_CREAT|O_EXCL` inside the measured file system,
//! sized to keep a free-space reserve, prefilled once with incompressible data, and removed by a
//! guard on success, error and cancellation. A file left by a killed run is found by its name.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

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

/// Free space of a file system, from `statvfs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    pub total: u64,
    /// Available to unprivileged users (`f_bavail`): what a node can still use.
    pub available: u64,
}

impl Space {
    pub fn of(path: &Path) -> Result<Space, BenchError> {
        let stat = nix::sys::statvfs::statvfs(path).map_err(|errno| {
            BenchError::io(
                format!("statvfs {}", path.display()),
                io::Error::from(errno),
            )
        })?;
        let fragment = stat.fragment_size() as u64;
        Ok(Space {
            total: (stat.blocks() as u64).saturating_mul(fragment),
            available: (stat.blocks_available() as u64).saturating_mul(fragment),
        })
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
        return Err(BenchError::NoRoom {
            fs: fs.display().to_string(),
            avail: ByteSize(space.available),
            total: ByteSize(space.total),
            reserve: ByteSize(reserve),
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

/// The test file, removed when dropped.
#[derive(Debug)]
pub struct TestFile {
    path: PathBuf,
    size: u64,
    file: Option<File>,
}

impl TestFile {
    /// Creates `.nodecheck-bench-<pid>-<random>.tmp` in `dir` with `O_CREAT|O_EXCL` (never
    /// touching an existing file), opened read-write with O_DIRECT when `direct`, and reserves
    /// `size` bytes with `fallocate` so that a full file system fails now, not mid-run.
    pub fn create(dir: &Path, size: u64, direct: bool) -> Result<TestFile, BenchError> {
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
            format!("creating a test file in {}", dir.display()),
            last_error.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists)),
        ))
    }

    /// [`TestFile::create`] with a given file name; fails with `AlreadyExists` rather than
    /// touching an existing file.
    pub fn create_named(
        dir: &Path,
        name: &str,
        size: u64,
        direct: bool,
    ) -> Result<TestFile, BenchError> {
        let size = round_down(size).max(ALIGN);
        let path = dir.join(name);
        let mut options = OpenOptions::new();
        options.read(true).write(true).create_new(true).mode(0o600);
        if direct {
            options.custom_flags(libc::O_DIRECT);
        }
        let file = options.open(&path).map_err(|err| {
            let hint = if err.raw_os_error() == Some(libc::EINVAL) && direct {
                " (the file system does not support O_DIRECT, e.g. tmpfs)"
            } else {
                ""
            };
            BenchError::io(format!("creating {}{hint}", path.display()), err)
        })?;
        // From here on the guard owns the file: any error below removes it.
        let mut guard = TestFile {
            path,
            size,
            file: Some(file),
        };
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
                .map_err(|err| BenchError::io(format!("sizing {}", self.path.display()), err)),
            Err(errno) => Err(BenchError::io(
                format!(
                    "reserving {} for {}",
                    ByteSize(self.size),
                    self.path.display()
                ),
                io::Error::from(errno),
            )),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The open file; engines get a clone of its descriptor.
    pub fn file(&self) -> Result<&File, BenchError> {
        self.file
            .as_ref()
            .ok_or_else(|| BenchError::Engine("the test file is closed".into()))
    }

    /// Flushes the prefill to stable storage so that the measurement does not pay for it.
    pub fn sync(&self) -> Result<(), BenchError> {
        self.file()?
            .sync_data()
            .map_err(|err| BenchError::io(format!("fdatasync {}", self.path.display()), err))
    }

    /// Closes and removes the file now, reporting an error (drop would only ignore it).
    pub fn remove(mut self) -> Result<(), BenchError> {
        self.file = None;
        let result = std::fs::remove_file(&self.path);
        // Disarm the drop guard whatever happened: the error is reported to the caller.
        self.path = PathBuf::new();
        result.map_err(|err| BenchError::io("removing the test file", err))
    }
}

impl Drop for TestFile {
    fn drop(&mut self) {
        self.file = None;
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A test file in `dir` left by a run that is no longer alive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleFile {
    pub path: PathBuf,
    pub size: u64,
    pub pid: u32,
}

/// Finds test files in `dir` whose creating process is gone. Files of a live process (another
/// bench running right now) are not stale.
pub fn find_stale(dir: &Path, proc_root: &Path) -> Result<Vec<StaleFile>, BenchError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|err| BenchError::io(format!("listing {}", dir.display()), err))?;
    let mut stale = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(parse_pid) else {
            continue;
        };
        if proc_root.join(pid.to_string()).exists() {
            continue;
        }
        let Ok(metadata) = entry.path().symlink_metadata() else {
            continue;
        };
        if !metadata.is_file() {
            continue;
        }
        stale.push(StaleFile {
            path: entry.path(),
            size: metadata.len(),
            pid,
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

    #[test]
    fn create_is_exclusive_and_the_guard_removes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = TestFile::create(dir.path(), 4 << 20, false).unwrap();
        let path = file.path().to_path_buf();
        assert!(path.exists());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 4 << 20);
        drop(file);
        assert!(!path.exists());
    }

    #[test]
    fn an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let name = ".nodecheck-bench-1-00000000000000aa.tmp";
        let existing = dir.path().join(name);
        std::fs::write(&existing, b"precious").unwrap();
        let err = TestFile::create_named(dir.path(), name, 1 << 20, false).unwrap_err();
        match err {
            BenchError::Io { source, .. } => {
                assert_eq!(source.kind(), io::ErrorKind::AlreadyExists)
            }
            other => panic!("unexpected {other}"),
        }
        // Neither truncated nor removed by a guard.
        assert_eq!(std::fs::read(&existing).unwrap(), b"precious");
    }

    #[test]
    fn stale_files_of_dead_processes_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let proc_root = tempfile::tempdir().unwrap();
        std::fs::create_dir(proc_root.path().join("77")).unwrap();
        let dead = dir.path().join(".nodecheck-bench-4000000-abcdef.tmp");
        let alive = dir.path().join(".nodecheck-bench-77-abcdef.tmp");
        std::fs::write(&dead, b"x").unwrap();
        std::fs::write(&alive, b"y").unwrap();
        std::fs::write(dir.path().join("unrelated.tmp"), b"z").unwrap();
        let stale = find_stale(dir.path(), proc_root.path()).unwrap();
        assert_eq!(
            stale,
            vec![StaleFile {
                path: dead,
                size: 1,
                pid: 4_000_000
            }]
        );
    }
}
