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
//! The files and their extents come from `probe::extents` (the walk and the FIEMAP reader
//! `check` uses to read data blocks on the raw device), so both agree on which extents hold
//! data.

use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use probe::extents::Extent;

/// One block to time: the read size and its alignment for O_DIRECT.
const BLOCK: usize = 4096;
/// "A few per second": light enough never to be the load being judged.
const READS_PER_SECOND: u64 = 10;

/// A run of bytes of a file that holds data on the device (file offsets, 4 KiB-aligned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataRun {
    /// Index into [`Target::files`].
    pub file: usize,
    pub offset: u64,
    pub length: u64,
}

/// The 4 KiB-aligned file ranges of the extents that hold data, for file `index`.
fn data_runs(extents: &[Extent], index: usize) -> Vec<DataRun> {
    extents
        .iter()
        .filter(|extent| extent.holds_data())
        .filter_map(|extent| {
            let offset = extent.logical.checked_next_multiple_of(BLOCK as u64)?;
            let end = extent.logical.saturating_add(extent.length) / BLOCK as u64 * BLOCK as u64;
            (end > offset).then_some(DataRun {
                file: index,
                offset,
                length: end - offset,
            })
        })
        .collect()
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
    std::fs::metadata(dir).map_err(|e| format!("cannot stat {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    let mut runs = Vec::new();
    for (path, _) in probe::extents::largest_files(dir, probe::extents::LARGEST_FILES) {
        // O_NOFOLLOW: the walk saw a regular file; a symlink swapped in since is not followed.
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT | libc::O_NOATIME | libc::O_NOFOLLOW)
            .open(&path)
        else {
            continue;
        };
        let Ok(extents) = probe::extents::file_extents(&file, &path) else {
            continue;
        };
        let located = data_runs(&extents, files.len());
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

    /// Only data extents become runs, cut to whole 4 KiB blocks inside them.
    #[test]
    fn runs_are_the_aligned_blocks_of_data_extents() {
        let extent = |logical, length, flags| Extent {
            logical,
            physical: 1 << 30,
            length,
            flags,
        };
        let runs = data_runs(
            &[
                extent(0, 8192, 0),
                extent(8192, 4096, probe::extents::EXTENT_UNWRITTEN),
                extent(12_288 + 100, 10_000, probe::extents::EXTENT_LAST),
                extent(40_960, 100, 0),
                extent(u64::MAX - 10, 4096, 0),
            ],
            3,
        );
        assert_eq!(
            runs,
            vec![
                DataRun {
                    file: 3,
                    offset: 0,
                    length: 8192
                },
                DataRun {
                    file: 3,
                    offset: 16_384,
                    length: 4096
                },
            ]
        );
    }

    /// A real file on this machine's file system maps to runs inside it, when the file system
    /// supports FIEMAP (tmpfs does not: then the test says so and passes nothing off).
    #[test]
    fn a_written_file_has_located_runs() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("tempdir");
        let path = dir.path().join("data");
        std::fs::write(&path, vec![7u8; 1 << 20]).expect("write");
        File::open(&path).and_then(|f| f.sync_all()).expect("sync");
        match probe::extents::file_extents(&File::open(&path).expect("open"), &path) {
            Ok(extents) => {
                let runs = data_runs(&extents, 0);
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
