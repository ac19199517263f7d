//! The behaviour workloads on a real test file: O_DIRECT `pread`/`pwrite` from plain threads,
//! one thread per outstanding write so that a burst really is at the requested queue depth while
//! the QD1 reader on the calling thread keeps sampling.
//!
//! The file must already exist and be filled with incompressible data (the bench's test-file
//! code creates, fills and removes it); this module never creates, extends or deletes files.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

use super::{
    BehaviourDevice, BehaviourError, BurstOutcome, IntervalWrite, WriteBurst, WritePattern,
};
use crate::engine::{AlignedBuffer, Engine, Target, Work};
use crate::report::EngineKind;
use crate::workload::{Direction, Io, Job};

const ALIGN: usize = 4096;
/// More writer threads than this would measure the scheduler of a 2-core VM, not the drive.
const MAX_WRITERS: u32 = 64;

type BurstMessage = Result<BurstOutcome, BehaviourError>;

/// Asked between writes whether to stop (a signal arrived); shared with writer threads.
pub type Cancel = Arc<dyn Fn() -> bool + Send + Sync>;

/// The bench's filled test file, on the descriptor that created it (O_DIRECT).
pub struct FileDevice {
    file: Arc<File>,
    size: u64,
    opened: Instant,
    read_buf: AlignedBuffer,
    /// Set on drop so that background writers stop; `cancel` is the caller's Ctrl-C.
    stop: Arc<AtomicBool>,
    cancel: Cancel,
    burst: Option<(JoinHandle<()>, Receiver<BurstMessage>)>,
    /// The bench engine that issues write bursts; `None`: a thread per outstanding write.
    burst_engine: Option<Arc<dyn Engine>>,
}

impl FileDevice {
    /// Works on `file`, which must be open read-write with O_DIRECT: the test file's own
    /// descriptor (or a duplicate), never a reopening by name, so nothing planted under the
    /// name can receive the writes. `cancel` stops background writers promptly (Ctrl-C).
    pub fn new(file: File, cancel: Cancel) -> Result<Self, BehaviourError> {
        let len = file
            .metadata()
            .map_err(|source| BehaviourError::Io {
                op: "stat",
                offset: 0,
                source,
            })?
            .len();
        let size = len - len % ALIGN as u64;
        if size < 1 << 20 {
            return Err(BehaviourError::FileTooSmall {
                size: len,
                needed: 1 << 20,
            });
        }
        Ok(Self {
            file: Arc::new(file),
            size,
            opened: Instant::now(),
            read_buf: AlignedBuffer::new(ALIGN, 0)?,
            stop: Arc::new(AtomicBool::new(false)),
            cancel,
            burst: None,
            burst_engine: None,
        })
    }

    /// Issues write bursts on `engine` (io_uring keeps the whole queue depth in one ring, so
    /// the burst costs the QD1 reader less CPU than a thread per outstanding write).
    pub fn with_burst_engine(mut self, engine: Box<dyn Engine>) -> Self {
        self.burst_engine = Some(Arc::from(engine));
        self
    }

    fn finish_burst_thread(&mut self) {
        if let Some((handle, _)) = self.burst.take() {
            // The writers check `cancel` between writes; joining here guarantees no write is
            // still in flight when the caller goes on to remove the file.
            let _ = handle.join();
        }
    }
}

impl Drop for FileDevice {
    fn drop(&mut self) {
        if self.burst.is_some() {
            self.stop.store(true, Ordering::SeqCst);
            self.finish_burst_thread();
        }
    }
}

fn block_sizes(min: u32, max: u32) -> (u64, u64) {
    let min = u64::from(min.max(ALIGN as u32)) / ALIGN as u64;
    let max = (u64::from(max) / ALIGN as u64).max(min);
    (min, max)
}

fn run_burst(
    file: &File,
    size: u64,
    burst: WriteBurst,
    stopped: &(dyn Fn() -> bool + Sync),
) -> Result<BurstOutcome, BehaviourError> {
    let start = Instant::now();
    let claimed = AtomicU64::new(0);
    let (min_blocks, max_blocks) = block_sizes(burst.min_block, burst.max_block);
    let max_len = (max_blocks * ALIGN as u64) as usize;
    let slots = size / ALIGN as u64;
    let writers = burst.queue_depth.clamp(1, MAX_WRITERS);
    run_writers(writers, max_len, burst.seed, |buf, rng| loop {
        if stopped() {
            return Err(BehaviourError::Interrupted);
        }
        let blocks = rng.gen_range(min_blocks..=max_blocks);
        let len = blocks * ALIGN as u64;
        if claimed.fetch_add(len, Ordering::Relaxed) >= burst.total_bytes {
            return Ok(());
        }
        let last_slot = slots.saturating_sub(blocks);
        let offset = rng.gen_range(0..=last_slot) * ALIGN as u64;
        file.write_all_at(&buf.as_slice()[..len as usize], offset)
            .map_err(|source| BehaviourError::Io {
                op: "burst write",
                offset,
                source,
            })?;
    })?;
    let fdatasync = timed_fdatasync(file)?;
    Ok(BurstOutcome {
        bytes: burst.total_bytes,
        duration: start.elapsed(),
        fdatasync,
    })
}

/// Random writes of 4 KiB multiples for one share of a burst, for the bench engines.
struct BurstJob {
    rng: SmallRng,
    remaining: u64,
    min_blocks: u64,
    max_blocks: u64,
    slots: u64,
    stopped: Arc<dyn Fn() -> bool + Send + Sync>,
}

impl Job for BurstJob {
    fn next_io(&mut self, _now: Duration) -> Option<Io> {
        if self.remaining == 0 || (self.stopped)() {
            return None;
        }
        let blocks = self.rng.gen_range(self.min_blocks..=self.max_blocks);
        let len = blocks * ALIGN as u64;
        self.remaining = self.remaining.saturating_sub(len);
        let offset = self.rng.gen_range(0..=self.slots.saturating_sub(blocks)) * ALIGN as u64;
        Some(Io {
            offset,
            len: u32::try_from(len).unwrap_or(u32::MAX),
            direction: Direction::Write,
        })
    }

    fn complete(&mut self, _io: &Io, _latency: Duration, _now: Duration, _data: &[u8]) {}
}

fn run_burst_on_engine(
    engine: &dyn Engine,
    file: &File,
    size: u64,
    burst: WriteBurst,
    stopped: Arc<dyn Fn() -> bool + Send + Sync>,
) -> Result<BurstOutcome, BehaviourError> {
    let start = Instant::now();
    let (min_blocks, max_blocks) = block_sizes(burst.min_block, burst.max_block);
    let (job_count, depth) = engine.layout(burst.queue_depth.max(1));
    let job_count = u64::from(job_count.max(1));
    let clone = file.try_clone().map_err(|source| BehaviourError::Io {
        op: "duplicating the test file descriptor",
        offset: 0,
        source,
    })?;
    let target = Target::new(clone, size, true);
    let mut jobs: Vec<BurstJob> = (0..job_count)
        .map(|index| BurstJob {
            rng: SmallRng::seed_from_u64(burst.seed ^ (index << 32)),
            // The first job takes the remainder so that the shares add up to the burst.
            remaining: burst.total_bytes / job_count
                + if index == 0 {
                    burst.total_bytes % job_count
                } else {
                    0
                },
            min_blocks,
            max_blocks,
            slots: size / ALIGN as u64,
            stopped: Arc::clone(&stopped),
        })
        .collect();
    let mut refs: Vec<&mut dyn Job> = jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
    engine.run(Work::new(&target, depth, &mut refs, &mut || {}))?;
    if stopped() {
        return Err(BehaviourError::Interrupted);
    }
    let fdatasync = timed_fdatasync(file)?;
    Ok(BurstOutcome {
        bytes: burst.total_bytes,
        duration: start.elapsed(),
        fdatasync,
    })
}

impl BehaviourDevice for FileDevice {
    fn engine(&self) -> EngineKind {
        EngineKind::Psync
    }

    fn burst_engine(&self) -> EngineKind {
        self.burst_engine
            .as_ref()
            .map_or(EngineKind::Psync, |engine| engine.kind())
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn elapsed(&self) -> Duration {
        self.opened.elapsed()
    }

    fn read_qd1(&mut self, offset: u64) -> Result<Duration, BehaviourError> {
        let start = Instant::now();
        self.file
            .read_exact_at(self.read_buf.as_mut_slice(), offset)
            .map_err(|source| BehaviourError::Io {
                op: "QD1 read",
                offset,
                source,
            })?;
        Ok(start.elapsed())
    }

    fn start_burst(&mut self, burst: &WriteBurst) -> Result<(), BehaviourError> {
        if self.burst.is_some() {
            return Err(BehaviourError::InvalidPlan(
                "a write burst is already running".into(),
            ));
        }
        let (tx, rx) = mpsc::channel();
        let file = Arc::clone(&self.file);
        let cancel = Arc::clone(&self.cancel);
        let stop = Arc::clone(&self.stop);
        let engine = self.burst_engine.clone();
        let size = self.size;
        let burst = *burst;
        let handle = std::thread::Builder::new()
            .name("nodecheck-burst".into())
            .spawn(move || {
                let stopped: Arc<dyn Fn() -> bool + Send + Sync> =
                    Arc::new(move || stop.load(Ordering::Relaxed) || cancel());
                let outcome = match engine {
                    Some(engine) => run_burst_on_engine(&*engine, &file, size, burst, stopped),
                    None => run_burst(&file, size, burst, &*stopped),
                };
                // The receiver may be gone if the run was abandoned; nothing is left to tell.
                let _ = tx.send(outcome);
            })
            .map_err(|source| BehaviourError::Io {
                op: "spawn burst thread",
                offset: 0,
                source,
            })?;
        self.burst = Some((handle, rx));
        Ok(())
    }

    fn poll_burst(&mut self) -> Result<Option<BurstOutcome>, BehaviourError> {
        let message = match &self.burst {
            None => return Ok(None),
            Some((_, rx)) => match rx.try_recv() {
                Ok(message) => message,
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => Err(BehaviourError::WriterPanicked),
            },
        };
        self.finish_burst_thread();
        message.map(Some)
    }

    fn write_for(
        &mut self,
        request: &IntervalWrite,
        cursor: &mut u64,
    ) -> Result<u64, BehaviourError> {
        let block = u64::from(request.block.max(ALIGN as u32)) / ALIGN as u64 * ALIGN as u64;
        if block > self.size {
            return Err(BehaviourError::FileTooSmall {
                size: self.size,
                needed: block,
            });
        }
        let span = self.size / block * block;
        let deadline = Instant::now() + request.interval;
        let written = AtomicU64::new(0);
        let next = AtomicU64::new(*cursor % span);
        let file = &*self.file;
        let cancel = &self.cancel;
        let writers = request.queue_depth.clamp(1, MAX_WRITERS);
        run_writers(writers, block as usize, request.seed, |buf, rng| {
            while Instant::now() < deadline && !cancel() {
                if written.fetch_add(block, Ordering::Relaxed) >= request.limit_bytes {
                    written.fetch_sub(block, Ordering::Relaxed);
                    break;
                }
                let offset = match request.pattern {
                    WritePattern::Sequential => next.fetch_add(block, Ordering::Relaxed) % span,
                    WritePattern::Random => rng.gen_range(0..span / block) * block,
                };
                if let Err(source) = file.write_all_at(buf.as_slice(), offset) {
                    written.fetch_sub(block, Ordering::Relaxed);
                    return Err(BehaviourError::Io {
                        op: "sustained write",
                        offset,
                        source,
                    });
                }
            }
            Ok(())
        })?;
        if (self.cancel)() {
            return Err(BehaviourError::Interrupted);
        }
        *cursor = next.load(Ordering::Relaxed) % span;
        Ok(written.load(Ordering::Relaxed))
    }
}

/// Runs `writer` on `writers` threads at once, each with its own random generator (from `seed`
/// and the thread's index) and an aligned buffer of `buffer_len` random bytes from it, and
/// returns the first error, a panicked writer counting as one.
fn run_writers<F>(
    writers: u32,
    buffer_len: usize,
    seed: u64,
    writer: F,
) -> Result<(), BehaviourError>
where
    F: Fn(&AlignedBuffer, &mut SmallRng) -> Result<(), BehaviourError> + Sync,
{
    let results: Vec<Result<(), BehaviourError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                let writer = &writer;
                scope.spawn(move || {
                    let mut rng = SmallRng::seed_from_u64(seed ^ (u64::from(w) << 32));
                    let buffer = AlignedBuffer::new(buffer_len, rng.next_u64())?;
                    writer(&buffer, &mut rng)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(BehaviourError::WriterPanicked)))
            .collect()
    });
    results.into_iter().collect()
}

/// `fdatasync` on `file` and how long it took: the commit of a burst.
fn timed_fdatasync(file: &File) -> Result<Duration, BehaviourError> {
    let started = Instant::now();
    file.sync_data().map_err(|source| BehaviourError::Io {
        op: "fdatasync",
        offset: 0,
        source,
    })?;
    Ok(started.elapsed())
}
