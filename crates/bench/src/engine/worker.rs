//! The one loop every engine runs behind (fio's `td_io_queue`, `td_io_commit` and
//! `td_io_getevents`): it asks the jobs for I/O, checks each one against the target (see
//! `guard`), hands it to the engine's [`IoQueue`], commits, reaps, times every I/O on one clock
//! and tells the job of its completion. Engines only submit and complete; nothing here is
//! written per engine, so a latency of one engine compares with another's, and the mock
//! device's figures come out of the same accounting as the drive's.
//!
//! Nothing is allocated per I/O: the slots, free lists and the completion list are sized once,
//! before the first I/O.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::guard::Guard;
use super::{Completion, Engine, IoQueue, Target, Work};
use crate::error::BenchError;
use crate::workload::{Direction, Io, Job, Next};

/// Runs `work` on `engine` through the one loop of every I/O path (below): each I/O is
/// checked against the target (no write to a read-only target, aligned, inside it), free space
/// is watched while jobs write, each worker is pinned as the target asks, and every I/O is
/// timed from its commit to its reaping; the first refusal or failure stops every job and is
/// returned.
pub fn run(engine: &dyn Engine, work: Work<'_, '_>) -> Result<(), BenchError> {
    let target = work.target;
    let guard = Guard::new(target, engine.max_io_bytes());
    let outcome = if engine.simulated() {
        let Work {
            jobs, depths, tick, ..
        } = work;
        let slots = depths
            .iter()
            .fold(0u32, |sum, &depth| sum.saturating_add(depth.max(1)));
        let outcome = engine.open(target, slots, 0).and_then(|mut queue| {
            let never = AtomicBool::new(false);
            drive(&mut *queue, jobs, &depths, &guard, &never, Clock::Virtual)
        });
        tick();
        outcome
    } else {
        run_workers(work, |job, depth, abort, epoch| {
            let seed = u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
            let mut queue = engine.open(target, depth, seed)?;
            drive(
                &mut *queue,
                &mut [job],
                &[depth],
                &guard,
                abort,
                Clock::Real(epoch),
            )
        })
    };
    match (guard.into_error(), outcome) {
        (Some(refused), _) => Err(refused),
        (None, outcome) => outcome,
    }
}

/// How long a real worker whose job is idle, with nothing in flight, lets the job wait
/// ([`Job::wait`]) before asking it again; also how soon such a worker sees an abort.
const IDLE_WAIT: Duration = Duration::from_millis(50);

/// Where the loop reads the time: the monotonic clock since the start of the run, or the mock
/// device's virtual clock.
#[derive(Clone, Copy)]
enum Clock {
    Real(Instant),
    Virtual,
}

impl Clock {
    #[inline]
    fn now(self, queue: &dyn IoQueue) -> Duration {
        match self {
            Clock::Real(epoch) => epoch.elapsed(),
            Clock::Virtual => queue.virtual_now(),
        }
    }
}

/// An I/O the queue holds: which job asked for it, what it is, and when its latency starts.
#[derive(Clone, Copy)]
struct Slot {
    job: u32,
    io: Io,
    submitted: Duration,
    /// It completed inside the call that submitted it, so `submitted` is the moment before
    /// that call (fio's `lat`), not after it (fio's `clat`).
    through_submit: bool,
}

const NO_IO: Io = Io {
    offset: 0,
    len: 0,
    direction: Direction::Read,
};

/// What one job of a worker keeps: its free slots and whether it still issues.
struct JobState {
    free: Vec<u32>,
    issuing: bool,
}

/// Runs `jobs` on `queue`, job `i` with up to `depths[i]` I/O in flight (its own range of
/// slots), until every job stopped issuing and every I/O in flight completed. A job that is
/// idle is asked again after the next completion; when every job still issuing is idle and
/// nothing is in flight, a real worker lets them wait, and the simulated device, where nothing
/// could change any more, fails. The first failure stops the jobs from issuing; what is in
/// flight is still reaped unless the queue itself failed.
fn drive(
    queue: &mut dyn IoQueue,
    jobs: &mut [&mut dyn Job],
    depths: &[u32],
    guard: &Guard<'_>,
    abort: &AtomicBool,
    clock: Clock,
) -> Result<(), BenchError> {
    let mut states: Vec<JobState> = Vec::with_capacity(jobs.len());
    let mut first = 0u32;
    for index in 0..jobs.len() {
        let depth = depths.get(index).copied().unwrap_or(1).max(1);
        // Popped from the end: the job's first slot goes first.
        states.push(JobState {
            free: (first..first + depth).rev().collect(),
            issuing: true,
        });
        first += depth;
    }
    let slot_count = first as usize;
    let mut slots = vec![
        Slot {
            job: 0,
            io: NO_IO,
            submitted: Duration::ZERO,
            through_submit: false,
        };
        slot_count
    ];
    // Slots queued since the last commit, stamped once the engine has taken them.
    let mut uncommitted: Vec<u32> = Vec::with_capacity(slot_count);
    let mut completions: Vec<Completion> = Vec::with_capacity(slot_count);
    let synchronous = queue.synchronous();
    let commit_batch = queue.commit_batch().max(1) as usize;
    let mut inflight = 0usize;
    let mut failure: Option<BenchError> = None;
    let mut issuing = true;

    loop {
        if issuing {
            if abort.load(Ordering::Relaxed) || guard.stopped() {
                issuing = false;
            }
            let now = clock.now(queue);
            'jobs: for (index, (job, state)) in jobs.iter_mut().zip(states.iter_mut()).enumerate() {
                while issuing && state.issuing {
                    let Some(&slot) = state.free.last() else {
                        break;
                    };
                    let io = match job.next_io(now) {
                        Next::Io(io) => io,
                        Next::Idle => break,
                        Next::Done => {
                            state.issuing = false;
                            break;
                        }
                    };
                    if let Err(refused) = guard.admit(&io, now) {
                        guard.refuse(refused);
                        issuing = false;
                        break 'jobs;
                    }
                    if io.direction == Direction::Write {
                        if let Some(buf) = queue.buffer(slot, io.len) {
                            job.fill(&io, buf);
                        }
                    }
                    // A synchronous engine does the I/O inside `queue`: its latency starts here.
                    let started = if synchronous {
                        clock.now(queue)
                    } else {
                        Duration::ZERO
                    };
                    if let Err(err) = queue.queue(slot, &io) {
                        failure = Some(err);
                        issuing = false;
                        break 'jobs;
                    }
                    state.free.pop();
                    slots[slot as usize] = Slot {
                        job: index as u32,
                        io,
                        submitted: started,
                        through_submit: false,
                    };
                    inflight += 1;
                    if !synchronous {
                        uncommitted.push(slot);
                        if uncommitted.len() >= commit_batch {
                            if let Err(err) =
                                commit(queue, clock, &mut slots, &mut uncommitted, inflight)
                            {
                                failure = Some(err);
                                issuing = false;
                                break 'jobs;
                            }
                        }
                    }
                }
            }
            if failure.is_some() && !uncommitted.is_empty() {
                // The queue failed: what it holds is dropped with it.
                break;
            }
            if issuing && states.iter().all(|state| !state.issuing) {
                issuing = false;
            }
        }
        if inflight == 0 {
            if !issuing {
                break;
            }
            // Every job still issuing is idle and nothing is in flight.
            match clock {
                Clock::Virtual => {
                    failure = Some(BenchError::Engine(
                        "every job of a simulated run waits and nothing is in flight that could \
                         wake one"
                            .into(),
                    ));
                    break;
                }
                Clock::Real(_) => {
                    for (job, state) in jobs.iter_mut().zip(&states) {
                        if state.issuing {
                            job.wait(IDLE_WAIT);
                        }
                    }
                    continue;
                }
            }
        }
        if !uncommitted.is_empty() {
            if let Err(err) = commit(queue, clock, &mut slots, &mut uncommitted, inflight) {
                failure.get_or_insert(err);
                break;
            }
        }
        completions.clear();
        if let Err(err) = queue.reap(1, &mut completions) {
            failure.get_or_insert(err);
            // The queue is unusable; in-flight I/O is dropped with it.
            break;
        }
        let reaped_at = clock.now(queue);
        for completion in &completions {
            let Some(slot) = slots.get(completion.slot as usize).copied() else {
                continue;
            };
            let Some(state) = states.get_mut(slot.job as usize) else {
                continue;
            };
            inflight = inflight.saturating_sub(1);
            state.free.push(completion.slot);
            let io = slot.io;
            if completion.result < 0 {
                failure.get_or_insert(queue.failure(&io, -completion.result));
                issuing = false;
                continue;
            }
            if completion.result as u32 != io.len {
                failure.get_or_insert(BenchError::Engine(format!(
                    "short {} of {} bytes at offset {}: {} bytes",
                    io.direction, io.len, io.offset, completion.result
                )));
                issuing = false;
                continue;
            }
            let latency = reaped_at.saturating_sub(slot.submitted);
            let data: &[u8] = match io.direction {
                Direction::Read => queue.data(completion.slot, io.len),
                Direction::Write | Direction::Sync => &[],
            };
            let job = &mut jobs[slot.job as usize];
            if slot.through_submit {
                job.timed_through_submit(&io);
            }
            job.complete(&io, latency, reaped_at, data);
        }
    }
    match failure {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// Commits what was queued and marks it submitted now. Latency is measured like fio's
/// completion latency (clat): from the moment the engine has taken the request to its reaping.
/// Submission cost (on a VM, the virtqueue kick) is the engine's, not the drive's; fio leaves
/// it out too, so the figures compare.
///
/// Except when the device completed during the submitting call: then the whole device time
/// fell inside the call, and clat would be the fraction of a microsecond between the call's
/// return and the reap (fio's clat has exactly this hole: on this project's virtio VM it once
/// printed a clat p50 of 0.6 µs beside a lat p50 of 60.7 µs). Such I/O is timed from before
/// the call, as fio's total latency (`lat`) is, and the job is told. Completions posted during
/// the call can only be attributed when everything in flight was being submitted by it
/// (`inflight` counts the batch); with older I/O in flight a completion may be theirs, and
/// the batch keeps clat.
#[inline]
fn commit(
    queue: &mut dyn IoQueue,
    clock: Clock,
    slots: &mut [Slot],
    uncommitted: &mut Vec<u32>,
    inflight: usize,
) -> Result<(), BenchError> {
    let before = clock.now(queue);
    let completed_inside = queue.commit()?;
    let after = clock.now(queue);
    let through_submit = completed_inside > 0 && inflight == uncommitted.len();
    let submitted = if through_submit { before } else { after };
    for &slot in uncommitted.iter() {
        if let Some(entry) = slots.get_mut(slot as usize) {
            entry.submitted = submitted;
            entry.through_submit = through_submit;
        }
    }
    uncommitted.clear();
    Ok(())
}

/// Runs one worker per job on scoped threads (pinned as `target` asks), ticking on the calling
/// thread.
fn run_workers<F>(work: Work<'_, '_>, worker: F) -> Result<(), BenchError>
where
    F: Fn(&mut dyn Job, u32, &AtomicBool, Instant) -> Result<(), BenchError> + Sync,
{
    let Work {
        target,
        jobs,
        depths,
        tick,
    } = work;
    let _caller = CallerPinned::new(target);
    let abort = AtomicBool::new(false);
    let epoch = Instant::now();
    let (sender, receiver) = mpsc::channel::<Result<(), BenchError>>();
    std::thread::scope(|scope| {
        let mut spawn_error = None;
        let mut spawned = 0;
        for (index, job) in jobs.iter_mut().enumerate() {
            let depth = depths.get(index).copied().unwrap_or(1).max(1);
            let sender = sender.clone();
            let abort = &abort;
            let worker = &worker;
            let job: &mut dyn Job = &mut **job;
            let spawned_thread = std::thread::Builder::new()
                .name("nodecheck-io".into())
                // Workers keep only a few locals; 256 KiB keeps 64 portable threads cheap.
                .stack_size(256 * 1024)
                .spawn_scoped(scope, move || {
                    target.pin_worker();
                    let result = worker(job, depth, abort, epoch);
                    if result.is_err() {
                        abort.store(true, Ordering::Relaxed);
                    }
                    let _ = sender.send(result);
                });
            match spawned_thread {
                Ok(_) => spawned += 1,
                Err(err) => {
                    abort.store(true, Ordering::Relaxed);
                    spawn_error = Some(BenchError::io("spawning an I/O thread", err));
                    break;
                }
            }
        }
        drop(sender);
        let mut first_error = spawn_error;
        let mut finished = 0;
        let mut last_tick = Instant::now();
        while finished < spawned {
            match receiver.recv_timeout(Duration::from_millis(20)) {
                Ok(result) => {
                    finished += 1;
                    if let Err(err) = result {
                        first_error.get_or_insert(err);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if last_tick.elapsed() >= Duration::from_millis(100) {
                tick();
                last_tick = Instant::now();
            }
        }
        tick();
        match first_error {
            Some(err) => Err(err),
            None => Ok(()),
        }
    })
}

/// While pinned workers run, the calling thread, which wakes every 20 ms to collect results and
/// tick progress, runs on their CPUs too; its own affinity is restored afterwards.
///
/// This is the layout fio has when pinned (`cpus_allowed` applies to all its threads, and its
/// main thread wakes every 10 ms beside the job). It matters on a VM: on the project's KVM test
/// VM, a QD1 worker whose CPU saw nothing but its own completions measured 33-37 µs p50, the
/// same worker with the ticking thread on its CPU 31-33 µs, in ten alternating pairs (a bare C
/// loop doing fio's exact system calls showed the same 4 µs with and without a process waking
/// every 10 ms on its CPU). A node's CPUs are never idle but for one reader either, so the
/// figure with company is also the one closer to what a client sees.
struct CallerPinned {
    previous: Option<Vec<usize>>,
}

impl CallerPinned {
    fn new(target: &Target) -> Self {
        let previous = target.cpus().and_then(|cpus| {
            let previous = crate::affinity::allowed_cpus().ok()?;
            crate::affinity::pin_current_thread(cpus).ok()?;
            Some(previous)
        });
        CallerPinned { previous }
    }
}

impl Drop for CallerPinned {
    fn drop(&mut self) {
        if let Some(previous) = &self.previous {
            // Best effort: the set came from sched_getaffinity a moment ago.
            let _ = crate::affinity::pin_current_thread(previous);
        }
    }
}

#[cfg(test)]
mod tests;
