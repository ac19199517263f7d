//! `watch --probe-latency`: a few QD1 4 KiB `O_DIRECT` reads per second of blocks that hold
//! the chain's data, read-only, which is what eth-docker's `ioping -D` check measures.
//!
//! Which blocks hold data comes from FIEMAP on the largest files under the datadir
//! (`docs/sources/live-io-and-extents.md`). The reads go through the files themselves
//! (`O_RDONLY | O_DIRECT | O_NOATIME`, at offsets inside their located extents) rather than
//! the block device: they pass through the same stack the client's reads do, work where a
//! container may not open block devices, and never touch a hole or an unwritten extent that
//! would answer without device I/O. `O_NOATIME` keeps even the access time from being
//! written. Extents without a trustworthy location (unwritten, delayed, compressed,
//! encrypted, inline) are never read.
//!
//! A small FIEMAP reader of its own: the measure lane's `probe::extents` is meant to replace
//! it once both are merged.

use std::fs::File;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One block to time: the read size and its alignment for O_DIRECT.
const BLOCK: usize = 4096;
/// Files looked at and extents kept: enough to spread reads over the database.
const MAX_FILES: usize = 64;
const MAX_ENTRIES_WALKED: usize = 50_000;
const EXTENTS_PER_CALL: usize = 128;
/// "A few per second": light enough never to be the load being judged.
const READS_PER_SECOND: u64 = 10;

const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// UNKNOWN, DELALLOC, ENCODED, DATA_ENCRYPTED, NOT_ALIGNED, DATA_INLINE, UNWRITTEN.
const FIEMAP_UNREADABLE: u32 = 0x2 | 0x4 | 0x8 | 0x80 | 0x100 | 0x200 | 0x800;

#[repr(C)]
#[derive(Default, Clone, Copy)]
struct FiemapExtent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

#[repr(C)]
struct FiemapRequest {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
    extents: [FiemapExtent; EXTENTS_PER_CALL],
}

#[repr(C)]
struct FiemapHeader {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
}

// _IOWR('f', 11, struct fiemap), the header alone being `struct fiemap`.
nix::ioctl_readwrite!(fs_ioc_fiemap, b'f', 11, FiemapHeader);

/// A run of bytes of a file that holds data on the device (file offsets, 4 KiB-aligned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataRun {
    /// Index into [`Target::files`].
    pub file: usize,
    pub offset: u64,
    pub length: u64,
}

/// The located data extents of `file`, 4 KiB-aligned, at most `EXTENTS_PER_CALL` per call
/// and a few calls per file.
fn file_runs(file: &File, index: usize) -> std::io::Result<Vec<DataRun>> {
    let mut runs = Vec::new();
    let mut start = 0u64;
    for _ in 0..8 {
        let mut request = FiemapRequest {
            start,
            length: u64::MAX - start,
            flags: 0,
            mapped_extents: 0,
            extent_count: EXTENTS_PER_CALL as u32,
            reserved: 0,
            extents: [FiemapExtent::default(); EXTENTS_PER_CALL],
        };
        // SAFETY: the request is a `struct fiemap` followed by `extent_count` extents, as the
        // kernel expects; it writes at most that many.
        unsafe {
            fs_ioc_fiemap(
                file.as_raw_fd(),
                (&mut request as *mut FiemapRequest).cast::<FiemapHeader>(),
            )
        }
        .map_err(std::io::Error::from)?;
        let mapped = (request.mapped_extents as usize).min(EXTENTS_PER_CALL);
        if mapped == 0 {
            break;
        }
        let mut last = false;
        for extent in &request.extents[..mapped] {
            last |= extent.flags & FIEMAP_EXTENT_LAST != 0;
            start = extent.logical.saturating_add(extent.length);
            if extent.flags & FIEMAP_UNREADABLE != 0 {
                continue;
            }
            let offset = extent.logical.next_multiple_of(BLOCK as u64);
            let end = extent.logical.saturating_add(extent.length) / BLOCK as u64 * BLOCK as u64;
            if end > offset {
                runs.push(DataRun {
                    file: index,
                    offset,
                    length: end - offset,
                });
            }
        }
        if last {
            break;
        }
    }
    Ok(runs)
}

/// The largest regular files under `dir` on the same file system, largest first.
fn largest_files(dir: &Path, dev: u64) -> Vec<PathBuf> {
    let mut found: Vec<(u64, PathBuf)> = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    let mut walked = 0usize;
    while let Some(current) = pending.pop() {
        // Listed through an O_NOATIME descriptor: a plain read_dir makes the kernel write the
        // directory's access time on a relatime mount.
        let Ok(names) = probe::input::read_dir_without_atime(&current) else {
            continue;
        };
        for name in names {
            walked += 1;
            if walked > MAX_ENTRIES_WALKED {
                break;
            }
            let path = current.join(name);
            // symlink_metadata: links are not followed out of the datadir.
            let Ok(meta) = path.symlink_metadata() else {
                continue;
            };
            if meta.dev() != dev {
                continue;
            }
            if meta.is_dir() {
                pending.push(path);
            } else if meta.is_file() && meta.len() >= BLOCK as u64 {
                found.push((meta.len(), path));
            }
        }
    }
    found.sort_by_key(|(len, _)| std::cmp::Reverse(*len));
    found.into_iter().take(MAX_FILES).map(|(_, p)| p).collect()
}

/// Where the probe reads: the chain's files, open read-only for direct I/O, and the runs of
/// them that hold data.
pub struct Target {
    pub files: Vec<File>,
    pub runs: Vec<DataRun>,
}

/// The probe's target for the datadir `dir`, or why there is none.
pub fn locate(dir: &Path, fs_type: Option<&str>) -> Result<Target, String> {
    if let Some(fs) = fs_type.filter(|fs| matches!(*fs, "zfs" | "tmpfs" | "ramfs")) {
        return Err(format!(
            "{fs} serves O_DIRECT reads from memory (or not at all), so their latency says nothing about the drive"
        ));
    }
    let meta = std::fs::metadata(dir).map_err(|e| format!("cannot stat {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    let mut runs = Vec::new();
    for path in largest_files(dir, meta.dev()) {
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT | libc::O_NOATIME)
            .open(&path)
        else {
            continue;
        };
        let located = file_runs(&file, files.len()).unwrap_or_default();
        if !located.is_empty() {
            runs.extend(located);
            files.push(file);
        }
    }
    if runs.is_empty() {
        return Err(format!(
            "no file under {} has data blocks FIEMAP can locate and O_DIRECT can read (empty datadir, or a file system without FIEMAP or O_DIRECT)",
            dir.display()
        ));
    }
    Ok(Target { files, runs })
}

/// A 4 KiB buffer aligned for O_DIRECT.
struct AlignedBlock {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl AlignedBlock {
    fn new() -> Option<Self> {
        let layout = std::alloc::Layout::from_size_align(BLOCK, BLOCK).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        (!ptr.is_null()).then_some(AlignedBlock { ptr, layout })
    }
}

impl Drop for AlignedBlock {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Times reads of `target` until `stop`, returning each read's latency in microseconds.
/// A read error ends the probe with what it has.
pub fn run(target: Target, stop: Arc<AtomicBool>, seed: u64) -> Result<Vec<f64>, String> {
    let block = AlignedBlock::new().ok_or("cannot allocate an aligned buffer")?;
    let total: u64 = target.runs.iter().map(|r| r.length / BLOCK as u64).sum();
    let mut state = seed | 1;
    let mut latencies = Vec::new();
    let pause = Duration::from_millis(1000 / READS_PER_SECOND);
    while !stop.load(Ordering::Relaxed) {
        // xorshift64: a spread of blocks, not a secure choice.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut pick = state % total.max(1);
        let (file, offset) = target
            .runs
            .iter()
            .find_map(|run| {
                let blocks = run.length / BLOCK as u64;
                if pick < blocks {
                    Some((run.file, run.offset + pick * BLOCK as u64))
                } else {
                    pick -= blocks;
                    None
                }
            })
            .unwrap_or((target.runs[0].file, target.runs[0].offset));
        let started = Instant::now();
        // SAFETY: the buffer holds BLOCK bytes and stays alive for the call.
        let read = unsafe {
            libc::pread(
                target.files[file].as_raw_fd(),
                block.ptr.cast(),
                BLOCK,
                offset as libc::off_t,
            )
        };
        let took = started.elapsed();
        if read != BLOCK as isize {
            if latencies.is_empty() {
                return Err(format!(
                    "an O_DIRECT read of a chain file failed: {}",
                    std::io::Error::last_os_error()
                ));
            }
            break;
        }
        latencies.push(took.as_secs_f64() * 1e6);
        std::thread::sleep(pause.saturating_sub(took));
    }
    Ok(latencies)
}

/// Nearest-rank percentiles of `latencies_us`.
pub fn percentiles(latencies_us: &[f64]) -> Option<verdict::watch::ProbeLatency> {
    let mut sorted: Vec<f64> = latencies_us
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let at =
        |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
    Some(verdict::watch::ProbeLatency {
        reads: sorted.len() as u64,
        p50_us: at(0.5),
        p90_us: at(0.9),
        p99_us: at(0.99),
        max_us: at(1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        let p = percentiles(&values).expect("some");
        assert_eq!(
            (p.p50_us, p.p90_us, p.p99_us, p.max_us),
            (50.0, 90.0, 99.0, 100.0)
        );
        assert!(percentiles(&[]).is_none());
    }

    /// A real file on this machine's file system maps to runs inside it, when the file system
    /// supports FIEMAP (tmpfs does not: then the test says so and passes nothing off).
    #[test]
    fn a_written_file_has_located_runs() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("tempdir");
        let path = dir.path().join("data");
        std::fs::write(&path, vec![7u8; 1 << 20]).expect("write");
        File::open(&path).and_then(|f| f.sync_all()).expect("sync");
        match file_runs(&File::open(&path).expect("open"), 0) {
            Ok(runs) => {
                let bytes: u64 = runs.iter().map(|r| r.length).sum();
                assert!(
                    bytes >= (1 << 20) - 2 * BLOCK as u64 && bytes <= 1 << 20,
                    "{runs:?}"
                );
            }
            Err(err) => crate::stderr::line(&format!(
                "SKIPPED a_written_file_has_located_runs: FIEMAP unsupported here: {err}"
            )),
        }
    }
}
