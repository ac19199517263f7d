//! Where the data of the files under a directory lies on the device: the FIEMAP extents
//! (`FS_IOC_FIEMAP`) of the largest files, as byte ranges of the file system's block device,
//! so that a QD1 measurement on a raw device reads blocks that hold data. A drive answers a
//! read of a never-written or discarded block from its mapping table without touching flash;
//! those reads would time the controller, not the drive.
//!
//! FIEMAP is an ioctl: it runs only on the live root. Under a fixture or replayed root the
//! answer is `None` with an [`Unavailable`] entry.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::facts::{Unavailable, UnavailableReason};
use crate::root::Root;

/// `FIEMAP_EXTENT_*` flags from `linux/fiemap.h` (docs/sources/live-io-and-extents.md).
pub const EXTENT_LAST: u32 = 0x1;
pub const EXTENT_UNKNOWN: u32 = 0x2;
pub const EXTENT_DELALLOC: u32 = 0x4;
pub const EXTENT_ENCODED: u32 = 0x8;
pub const EXTENT_NOT_ALIGNED: u32 = 0x100;
pub const EXTENT_DATA_INLINE: u32 = 0x200;
pub const EXTENT_UNWRITTEN: u32 = 0x800;

/// Extents with one of these flags have no readable location of the file's own bytes: not
/// placed yet (delayed allocation), unknown, compressed, inside metadata, or allocated but
/// never written (reads return zeros without device I/O).
const NOT_DATA: u32 = EXTENT_UNKNOWN
    | EXTENT_DELALLOC
    | EXTENT_ENCODED
    | EXTENT_DATA_INLINE
    | EXTENT_NOT_ALIGNED
    | EXTENT_UNWRITTEN;

/// File systems whose FIEMAP `fe_physical` is a byte offset on the one block device they are
/// mounted from. btrfs reports addresses in its own chunk space and ZFS has no FIEMAP.
pub const FILE_SYSTEMS_WITH_DEVICE_OFFSETS: &[&str] = &["ext4", "ext3", "ext2", "xfs"];

/// Files looked at, largest first: a chain database keeps most of its bytes in its largest
/// files, and a few thousand extents are plenty to draw random reads from.
pub const LARGEST_FILES: usize = 64;
/// Entries a walk visits at most, and the time it may take, so a huge tree (a whole root
/// file system) ends the walk instead of stalling the check; the largest files found by then
/// are used.
const MAX_ENTRIES: usize = 200_000;
const WALK_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);
const MAX_DEPTH: usize = 32;

/// One extent as FIEMAP reports it (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub logical: u64,
    pub physical: u64,
    pub length: u64,
    pub flags: u32,
}

impl Extent {
    /// The extent holds the file's bytes at `physical` (written, placed, not encoded).
    pub fn holds_data(&self) -> bool {
        self.flags & NOT_DATA == 0 && self.length > 0
    }
}

/// The data extents of the largest files under a directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataExtents {
    /// Files whose extents were read.
    pub files: u32,
    /// Byte ranges of the file system's block device (not the whole disk: see
    /// [`DataExtents::shifted`]), disjoint and sorted.
    pub ranges: Vec<Range<u64>>,
    /// Bytes in `ranges`.
    pub bytes: u64,
    /// Bytes of extents left out (unwritten, delayed, encoded, inline).
    pub skipped_bytes: u64,
}

impl DataExtents {
    /// The ranges moved by `offset` bytes: a partition's start on its disk.
    pub fn shifted(&self, offset: u64) -> Vec<Range<u64>> {
        self.ranges
            .iter()
            .filter_map(|r| Some(r.start.checked_add(offset)?..r.end.checked_add(offset)?))
            .collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExtentsError {
    #[error("FIEMAP on {}: {errno}", path.display())]
    Ioctl {
        path: PathBuf,
        errno: nix::errno::Errno,
    },
}

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct FiemapExtent {
    fe_logical: u64,
    fe_physical: u64,
    fe_length: u64,
    fe_reserved64: [u64; 2],
    fe_flags: u32,
    fe_reserved: [u32; 3],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct FiemapHeader {
    fm_start: u64,
    fm_length: u64,
    fm_flags: u32,
    fm_mapped_extents: u32,
    fm_extent_count: u32,
    fm_reserved: u32,
}

const EXTENTS_PER_CALL: usize = 256;

/// `struct fiemap` followed by room for its extents, as the ioctl expects them in one buffer.
#[repr(C)]
struct FiemapRequest {
    header: FiemapHeader,
    extents: [FiemapExtent; EXTENTS_PER_CALL],
}

/// `_IOWR('f', 11, struct fiemap)`: the size in the number is the header's alone.
const FS_IOC_FIEMAP: nix::sys::ioctl::ioctl_num_type =
    nix::request_code_readwrite!(b'f', 11, std::mem::size_of::<FiemapHeader>());
nix::ioctl_readwrite_bad!(fiemap_ioctl, FS_IOC_FIEMAP, FiemapHeader);

/// Every extent of `file` (opened at `path`, named in errors), in file order.
pub fn file_extents(file: &File, path: &Path) -> Result<Vec<Extent>, ExtentsError> {
    let mut extents = Vec::new();
    let mut start = 0u64;
    // A file has finitely many extents; the bound only guards against a file system that
    // never sets EXTENT_LAST.
    for _ in 0..4096 {
        let mut request = FiemapRequest {
            header: FiemapHeader {
                fm_start: start,
                fm_length: u64::MAX - start,
                fm_extent_count: EXTENTS_PER_CALL as u32,
                ..FiemapHeader::default()
            },
            extents: [FiemapExtent::default(); EXTENTS_PER_CALL],
        };
        // SAFETY: the buffer is a `struct fiemap` followed by `fm_extent_count` extents, the
        // layout the kernel writes into; it lives across the call.
        unsafe { fiemap_ioctl(file.as_raw_fd(), &mut request.header) }.map_err(|errno| {
            ExtentsError::Ioctl {
                path: path.to_path_buf(),
                errno,
            }
        })?;
        let mapped = (request.header.fm_mapped_extents as usize).min(EXTENTS_PER_CALL);
        if mapped == 0 {
            break;
        }
        let mut last = false;
        for raw in &request.extents[..mapped] {
            extents.push(Extent {
                logical: raw.fe_logical,
                physical: raw.fe_physical,
                length: raw.fe_length,
                flags: raw.fe_flags,
            });
            last |= raw.fe_flags & EXTENT_LAST != 0;
            start = raw.fe_logical.saturating_add(raw.fe_length);
        }
        if last || start == u64::MAX {
            break;
        }
    }
    Ok(extents)
}

/// The `count` largest regular files under `dir` on its own file system (no symlinks
/// followed, no other mounts entered), largest first. Directories are listed through
/// `O_NOATIME` descriptors, so the walk writes no access time back (`watch` promises to
/// write nothing, and `check` beside a running node should not either).
pub fn largest_files(dir: &Path, count: usize) -> Vec<(PathBuf, u64)> {
    let Ok(top) = std::fs::symlink_metadata(dir) else {
        return Vec::new();
    };
    let device = top.dev();
    let mut heap: BinaryHeap<Reverse<(u64, PathBuf)>> = BinaryHeap::new();
    let mut pending = vec![(dir.to_path_buf(), 0usize)];
    let mut visited = 0usize;
    let started = std::time::Instant::now();
    while let Some((current, depth)) = pending.pop() {
        if started.elapsed() > WALK_BUDGET {
            break;
        }
        let Ok(names) = crate::input::read_dir_without_atime(&current) else {
            continue;
        };
        for name in names {
            visited += 1;
            if visited > MAX_ENTRIES {
                return into_sorted(heap);
            }
            let path = current.join(name);
            // symlink_metadata: links are not followed out of the directory.
            let Ok(metadata) = path.symlink_metadata() else {
                continue;
            };
            if metadata.dev() != device {
                continue;
            }
            if metadata.is_dir() && depth < MAX_DEPTH {
                pending.push((path, depth + 1));
            } else if metadata.is_file() && metadata.len() > 0 {
                heap.push(Reverse((metadata.len(), path)));
                if heap.len() > count {
                    heap.pop();
                }
            }
        }
    }
    into_sorted(heap)
}

fn into_sorted(heap: BinaryHeap<Reverse<(u64, PathBuf)>>) -> Vec<(PathBuf, u64)> {
    let mut files: Vec<(PathBuf, u64)> = heap
        .into_iter()
        .map(|Reverse((size, path))| (path, size))
        .collect();
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    files
}

/// Sorts `ranges` and merges the ones that touch or overlap (shared or reflinked extents).
pub fn merge_ranges(mut ranges: Vec<Range<u64>>) -> Vec<Range<u64>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// The data extents of `extents`, as byte ranges, and the bytes of those left out.
pub fn data_ranges(extents: &[Extent]) -> (Vec<Range<u64>>, u64) {
    let mut skipped = 0u64;
    let mut ranges = Vec::new();
    for extent in extents {
        if extent.holds_data() {
            if let Some(end) = extent.physical.checked_add(extent.length) {
                ranges.push(extent.physical..end);
            }
        } else {
            skipped = skipped.saturating_add(extent.length);
        }
    }
    (ranges, skipped)
}

/// The data extents of the [`LARGEST_FILES`] largest files under `dir`. `None` with the
/// reason under a replayed root (no ioctls there); files FIEMAP refuses are left out.
pub fn data_extents(root: &Root, dir: &Path) -> (Option<DataExtents>, Option<Unavailable>) {
    if !root.is_live() {
        return (
            None,
            Some(Unavailable {
                fact: format!("file extents under {}", dir.display()),
                reason: UnavailableReason::Replayed,
            }),
        );
    }
    let mut found = DataExtents::default();
    let mut ranges = Vec::new();
    for (path, _) in largest_files(dir, LARGEST_FILES) {
        // O_NOFOLLOW: the walk saw a regular file; a symlink swapped in since is not followed.
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
        else {
            continue;
        };
        let Ok(extents) = file_extents(&file, &path) else {
            continue;
        };
        let (data, skipped) = data_ranges(&extents);
        found.files += 1;
        found.skipped_bytes = found.skipped_bytes.saturating_add(skipped);
        ranges.extend(data);
    }
    found.ranges = merge_ranges(ranges);
    found.bytes = found
        .ranges
        .iter()
        .map(|r| r.end - r.start)
        .fold(0, u64::saturating_add);
    (Some(found), None)
}

/// Where partition `name` starts on its disk, in bytes (`start` in sysfs counts 512-byte
/// sectors whatever the logical block size).
pub fn partition_start_bytes(root: &Root, name: &str) -> Option<u64> {
    let dir = crate::devices::device_by_name(root, name)?;
    let sectors: u64 = root.read_attr(dir.join("start"))?.trim().parse().ok()?;
    sectors.checked_mul(512)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(physical: u64, length: u64, flags: u32) -> Extent {
        Extent {
            logical: 0,
            physical,
            length,
            flags,
        }
    }

    #[test]
    fn only_written_placed_extents_are_data() {
        let extents = [
            extent(4096, 8192, 0),
            extent(1 << 20, 4096, EXTENT_UNWRITTEN),
            extent(0, 4096, EXTENT_DELALLOC | EXTENT_UNKNOWN),
            extent(2 << 20, 4096, EXTENT_ENCODED),
            extent(3 << 20, 60, EXTENT_DATA_INLINE | EXTENT_NOT_ALIGNED),
            extent(4 << 20, 4096, EXTENT_LAST | 0x2000),
            extent(u64::MAX - 10, 4096, 0),
        ];
        let (ranges, skipped) = data_ranges(&extents);
        assert_eq!(ranges, vec![4096..12288, (4 << 20)..(4 << 20) + 4096]);
        assert_eq!(skipped, 4096 * 3 + 60);
    }

    #[test]
    fn overlapping_and_touching_ranges_merge() {
        let merged = merge_ranges(vec![
            100..200,
            0..50,
            150..300,
            300..400,
            500..500,
            600..700,
        ]);
        assert_eq!(merged, vec![0..50, 100..400, 600..700]);
        let data = DataExtents {
            ranges: merged,
            ..DataExtents::default()
        };
        assert_eq!(data.shifted(1000)[0], 1000..1050);
    }

    #[test]
    fn a_replayed_root_runs_no_ioctl() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::at(dir.path()).unwrap();
        let (extents, gap) = data_extents(&root, Path::new("/var/lib/ethereum"));
        assert!(extents.is_none());
        assert_eq!(gap.unwrap().reason, UnavailableReason::Replayed);
    }

    #[test]
    fn the_largest_files_come_first_and_directories_are_entered() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("chaindata")).unwrap();
        std::fs::write(dir.path().join("chaindata/000001.ldb"), vec![1u8; 3000]).unwrap();
        std::fs::write(dir.path().join("small"), vec![1u8; 10]).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link")).unwrap();
        let files = largest_files(dir.path(), 1);
        assert_eq!(files, vec![(dir.path().join("chaindata/000001.ldb"), 3000)]);
        assert_eq!(
            largest_files(dir.path(), 10).len(),
            2,
            "no empty files, no symlinks"
        );
    }

    /// FIEMAP on a file this test wrote and synced: its bytes are data somewhere. tmpfs has
    /// no FIEMAP, so a refusal skips with the reason.
    #[test]
    fn fiemap_maps_a_written_file() {
        let dir = tempfile::tempdir_in(".").unwrap();
        let path = dir.path().join("data");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let file = File::open(&path).unwrap();
        file.sync_all().unwrap();
        match file_extents(&file, &path) {
            Ok(extents) => {
                let (ranges, _) = data_ranges(&extents);
                let bytes: u64 = ranges.iter().map(|r| r.end - r.start).sum();
                assert!(bytes >= 1 << 20, "{extents:?}");
            }
            Err(err) => eprintln!("SKIPPED fiemap_maps_a_written_file: {err}"),
        }
    }
}
