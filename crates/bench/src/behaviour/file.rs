//! The behaviour workloads on the real test file, as jobs on the bench's engine (io_uring where
//! the kernel allows it, else the portable psync engine): the same I/O path as the qd1 and
//! randrw tests, so a latency of one test compares with another's, and every read, write and
//! `fdatasync` passes the target's checks (no write to a read-only target, the free-space
//! reserve held while writing).
//!
//! The QD1 reader is one long-running job on its own engine run, fed offsets by the workload
//! on the calling thread; a write burst is a second engine run in the background at its full
//! queue depth while the reader keeps sampling; a cliff interval is an engine run that ends at
//! its deadline. This module does no I/O of its own and never creates, extends or deletes files.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{
    BehaviourDevice, BehaviourError, BurstOutcome, IntervalWrite, WriteBurst, WritePattern,
};
use crate::cancel::CancelToken;
use crate::engine::{self, EngineChoice, EngineKind, Target, Work};
use crate::error::BenchError;
use crate::workload::{Direction, Io, Job, ALIGN};

/// The size of every QD1 read.
const READ_LEN: u32 = ALIGN as u32;

type BurstMessage = Result<BurstOutcome, BehaviourError>;

/// The bench's filled test file as a [`BehaviourDevice`], driven through the engine `choice`
/// made for the run.
pub struct FileDevice {
    /// The test file's target, as the run set it up (pinning, free-space watch); every engine
    /// run of the behaviour tests gets a duplicate of it.
    target: Target,
    choice: EngineChoice,
    size: u64,
    opened: Instant,
    reader: QueuedReader,
    /// Set on drop so that a background burst stops; `cancel` is the caller's Ctrl-C.
    stop: Arc<AtomicBool>,
    cancel: CancelToken,
    burst: Option<(JoinHandle<()>, Receiver<BurstMessage>)>,
}

impl FileDevice {
    /// Works on `target`, the writable test file (opened with O_DIRECT, never reopened by name,
    /// so nothing planted under the name can receive the writes), with the engine of `choice`.
    /// `cancel` stops every job promptly (Ctrl-C).
    pub fn new(
        target: Target,
        choice: &EngineChoice,
        cancel: CancelToken,
    ) -> Result<Self, BehaviourError> {
        let size = target.len() - target.len() % ALIGN;
        if size < 1 << 20 {
            return Err(BehaviourError::FileTooSmall {
                size: target.len(),
                needed: 1 << 20,
            });
        }
        let reader = QueuedReader::start(target.try_clone()?, choice)?;
        Ok(Self {
            target,
            choice: choice.clone(),
            size,
            opened: Instant::now(),
            reader,
            stop: Arc::new(AtomicBool::new(false)),
            cancel,
            burst: None,
        })
    }

    fn finish_burst_thread(&mut self) {
        if let Some((handle, _)) = self.burst.take() {
            // The burst's jobs check `stop` and `cancel` before every write; joining here
            // guarantees no write is still in flight when the caller removes the file.
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

/// The QD1 reader: a job on its own engine run (one ring, one registered buffer, pinned as the
/// target says) that issues a read for each offset it is sent and sends back its latency, the
/// engine's completion latency, measured as for the qd1 test.
struct QueuedReader {
    offsets: Option<Sender<u64>>,
    latencies: Receiver<Result<Duration, BenchError>>,
    thread: Option<JoinHandle<()>>,
}

impl QueuedReader {
    fn start(target: Target, choice: &EngineChoice) -> Result<Self, BehaviourError> {
        let (offsets, requests) = mpsc::channel::<u64>();
        let (replies, latencies) = mpsc::channel();
        let engine = choice.engine(READ_LEN);
        let thread = std::thread::Builder::new()
            .name("nodecheck-qd1".into())
            .spawn(move || {
                let mut job = ReadOnRequest {
                    requests,
                    replies: replies.clone(),
                };
                let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
                let outcome = engine::run(&*engine, Work::new(&target, 1, &mut jobs, &mut || {}));
                if let Err(err) = outcome {
                    // The workload may have stopped asking; nobody is left to tell then.
                    let _ = replies.send(Err(err));
                }
            })
            .map_err(|err| BenchError::io("spawning the QD1 reader", err))?;
        Ok(QueuedReader {
            offsets: Some(offsets),
            latencies,
            thread: Some(thread),
        })
    }

    fn read(&mut self, offset: u64) -> Result<Duration, BehaviourError> {
        let sent = self.offsets.as_ref().map(|offsets| offsets.send(offset));
        if !matches!(sent, Some(Ok(()))) {
            return Err(self.failure());
        }
        match self.latencies.recv() {
            Ok(Ok(latency)) => Ok(latency),
            Ok(Err(err)) => Err(err.into()),
            Err(_) => Err(BehaviourError::WriterPanicked),
        }
    }

    /// Why the reader stopped: the engine's error if it sent one.
    fn failure(&mut self) -> BehaviourError {
        match self.latencies.try_recv() {
            Ok(Err(err)) => err.into(),
            _ => BehaviourError::WriterPanicked,
        }
    }
}

impl Drop for QueuedReader {
    fn drop(&mut self) {
        // Closing the channel ends the job, and with it the engine run.
        self.offsets = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One 4 KiB read per offset received, until the sender is gone.
struct ReadOnRequest {
    requests: Receiver<u64>,
    replies: Sender<Result<Duration, BenchError>>,
}

impl Job for ReadOnRequest {
    fn next_io(&mut self, _now: Duration) -> Option<Io> {
        let offset = self.requests.recv().ok()?;
        Some(Io {
            offset,
            len: READ_LEN,
            direction: Direction::Read,
        })
    }

    fn complete(&mut self, _io: &Io, latency: Duration, _now: Duration, _data: &[u8]) {
        let _ = self.replies.send(Ok(latency));
    }
}

fn block_sizes(min: u32, max: u32) -> (u64, u64) {
    let min = u64::from(min.max(READ_LEN)) / ALIGN;
    let max = (u64::from(max) / ALIGN).max(min);
    (min, max)
}

/// Random writes of 4 KiB multiples for one share of a burst.
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
        let len = blocks * ALIGN;
        self.remaining = self.remaining.saturating_sub(len);
        let offset = self.rng.gen_range(0..=self.slots.saturating_sub(blocks)) * ALIGN;
        Some(Io {
            offset,
            len: u32::try_from(len).unwrap_or(u32::MAX),
            direction: Direction::Write,
        })
    }

    fn complete(&mut self, _io: &Io, _latency: Duration, _now: Duration, _data: &[u8]) {}
}

/// A write burst on the engine of `choice` at its full queue depth, closed by `fdatasync`.
fn run_burst(
    choice: &EngineChoice,
    target: &Target,
    size: u64,
    burst: WriteBurst,
    stopped: Arc<dyn Fn() -> bool + Send + Sync>,
) -> Result<BurstOutcome, BehaviourError> {
    let start = Instant::now();
    let (min_blocks, max_blocks) = block_sizes(burst.min_block, burst.max_block);
    let engine = choice.engine(u32::try_from(max_blocks * ALIGN).unwrap_or(u32::MAX));
    let (job_count, depth) = engine.layout(burst.queue_depth.max(1));
    let job_count = u64::from(job_count.max(1));
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
            slots: size / ALIGN,
            stopped: Arc::clone(&stopped),
        })
        .collect();
    let mut refs: Vec<&mut dyn Job> = jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
    engine::run(&*engine, Work::new(target, depth, &mut refs, &mut || {}))?;
    if stopped() {
        return Err(BehaviourError::Interrupted);
    }
    let synced = Instant::now();
    target.sync_data()?;
    Ok(BurstOutcome {
        bytes: burst.total_bytes,
        duration: start.elapsed(),
        fdatasync: synced.elapsed(),
    })
}

/// Sustained writes of one block size for one interval of the cliff test: sequential from a
/// cursor shared by the jobs, or random; stops at the interval's end or at the byte limit.
struct IntervalJob<'a> {
    request: &'a IntervalWrite,
    block: u64,
    span: u64,
    rng: SmallRng,
    /// Bytes issued by every job of the interval together.
    written: &'a AtomicU64,
    next: &'a AtomicU64,
    cancel: &'a CancelToken,
}

impl Job for IntervalJob<'_> {
    fn next_io(&mut self, now: Duration) -> Option<Io> {
        if now >= self.request.interval || self.cancel.is_cancelled() {
            return None;
        }
        if self.written.fetch_add(self.block, Ordering::Relaxed) >= self.request.limit_bytes {
            self.written.fetch_sub(self.block, Ordering::Relaxed);
            return None;
        }
        let offset = match self.request.pattern {
            WritePattern::Sequential => {
                self.next.fetch_add(self.block, Ordering::Relaxed) % self.span
            }
            WritePattern::Random => self.rng.gen_range(0..self.span / self.block) * self.block,
        };
        Some(Io {
            offset,
            len: u32::try_from(self.block).unwrap_or(u32::MAX),
            direction: Direction::Write,
        })
    }

    fn complete(&mut self, _io: &Io, _latency: Duration, _now: Duration, _data: &[u8]) {}
}

impl BehaviourDevice for FileDevice {
    fn engine(&self) -> EngineKind {
        self.choice.kind
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn elapsed(&self) -> Duration {
        self.opened.elapsed()
    }

    fn read_qd1(&mut self, offset: u64) -> Result<Duration, BehaviourError> {
        self.reader.read(offset)
    }

    fn start_burst(&mut self, burst: &WriteBurst) -> Result<(), BehaviourError> {
        if self.burst.is_some() {
            return Err(BehaviourError::InvalidPlan(
                "a write burst is already running".into(),
            ));
        }
        let (tx, rx) = mpsc::channel();
        let target = self.target.try_clone()?;
        let choice = self.choice.clone();
        let cancel = self.cancel.clone();
        let stop = Arc::clone(&self.stop);
        let size = self.size;
        let burst = *burst;
        let handle = std::thread::Builder::new()
            .name("nodecheck-burst".into())
            .spawn(move || {
                let stopped: Arc<dyn Fn() -> bool + Send + Sync> =
                    Arc::new(move || stop.load(Ordering::Relaxed) || cancel.is_cancelled());
                let outcome = run_burst(&choice, &target, size, burst, stopped);
                // The receiver may be gone if the run was abandoned; nothing is left to tell.
                let _ = tx.send(outcome);
            })
            .map_err(|err| BenchError::io("spawning the write burst", err))?;
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
        let block = u64::from(request.block.max(READ_LEN)) / ALIGN * ALIGN;
        if block > self.size {
            return Err(BehaviourError::FileTooSmall {
                size: self.size,
                needed: block,
            });
        }
        let span = self.size / block * block;
        let written = AtomicU64::new(0);
        let next = AtomicU64::new(*cursor % span);
        let engine = self.choice.engine(u32::try_from(block).unwrap_or(u32::MAX));
        let (job_count, depth) = engine.layout(request.queue_depth.max(1));
        let mut jobs: Vec<IntervalJob<'_>> = (0..u64::from(job_count.max(1)))
            .map(|index| IntervalJob {
                request,
                block,
                span,
                rng: SmallRng::seed_from_u64(request.seed ^ (index << 32)),
                written: &written,
                next: &next,
                cancel: &self.cancel,
            })
            .collect();
        let mut refs: Vec<&mut dyn Job> = jobs.iter_mut().map(|j| j as &mut dyn Job).collect();
        engine::run(
            &*engine,
            Work::new(&self.target, depth, &mut refs, &mut || {}),
        )?;
        drop(refs);
        drop(jobs);
        if self.cancel.is_cancelled() {
            return Err(BehaviourError::Interrupted);
        }
        *cursor = next.load(Ordering::Relaxed) % span;
        Ok(written.load(Ordering::Relaxed))
    }
}
