//! How big the test file may be: the file system's free space, the reserve a live node needs,
//! and the check after allocation that nothing else took the reserve meanwhile.

use std::io;
use std::path::Path;

use super::{BenchDir, COMMUNITY_SIZE, MIN_FILE_SIZE, MIN_RESERVE, SIZE_GRANULE};
use crate::engine::FreeSpace;
use crate::error::{BenchError, ByteSize};

/// The engines watch the free space of the test file's directory, by its descriptor, while
/// anything writes (crate::engine::SpaceWatch).
impl FreeSpace for BenchDir {
    fn available(&self) -> Result<u64, BenchError> {
        Ok(Space::of_dir(self)?.available)
    }

    fn name(&self) -> String {
        self.path().display().to_string()
    }
}

/// Free space of a file system, from `statvfs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    pub total: u64,
    /// Available to unprivileged users (`f_bavail`): what a node can still use.
    pub available: u64,
}

impl Space {
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

pub(super) fn round_down(bytes: u64) -> u64 {
    bytes / SIZE_GRANULE * SIZE_GRANULE
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

    /// A file system of `total` GiB with `available` GiB free.
    fn space_in_gib(total: u64, available: u64) -> Space {
        Space {
            total: total * GIB,
            available: available * GIB,
        }
    }

    #[test]
    fn reserve_is_ten_percent_or_50_gib() {
        let small = space_in_gib(200, 100);
        let large = space_in_gib(4000, 1000);
        assert_eq!(reserve(small, None), 50 * GIB);
        assert_eq!(reserve(large, None), 400 * GIB);
        assert_eq!(reserve(large, Some(GIB)), GIB);
    }

    #[test]
    fn default_size_is_150_gib_when_it_fits() {
        let space = space_in_gib(2000, 1000);
        let sizing = size_file(Path::new("/data"), space, None, None).unwrap();
        assert_eq!(sizing.size, COMMUNITY_SIZE);
        assert_eq!(sizing.warning, None);
    }

    #[test]
    fn shrinks_to_keep_the_reserve_and_says_so() {
        let space = space_in_gib(1000, 180);
        let sizing = size_file(Path::new("/data"), space, None, None).unwrap();
        assert_eq!(sizing.size, 80 * GIB);
        let warning = sizing.warning.unwrap();
        assert!(warning.contains("80.0 GiB"), "{warning}");
        assert!(warning.contains("100.0 GiB free"), "{warning}");
    }

    #[test]
    fn refuses_with_numbers_when_the_reserve_leaves_nothing() {
        let space = space_in_gib(500, 40);
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
    fn the_reserve_is_checked_again_after_allocation() {
        let fs = Path::new("/data");
        let after = space_in_gib(10, 1);
        assert!(check_reserve_after_allocation(fs, after, GIB, GIB).is_ok());
        let err = check_reserve_after_allocation(fs, after, 2 * GIB, GIB).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("only 1.0 GiB is free"), "{message}");
        assert!(message.contains("2.0 GiB"), "{message}");
    }
}
