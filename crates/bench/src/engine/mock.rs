//! A simulated device on virtual time, like hyperfine's mock executor: every I/O takes the
//! latency a [`LatencyModel`] says, completions are delivered in time order, and the jobs see
//! the virtual clock. Statistics and stopping logic become exact and deterministic to test.
//!
//! Models are open: anything implementing [`LatencyModel`] (a drive with an SLC cache that fills
//! up, a mapping cache that misses beyond a span) plugs in.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;
use std::time::Duration;

use super::EngineKind;
use super::{Engine, Work};
use crate::error::BenchError;
use crate::workload::Io;

/// What the simulated device knows when it is asked for an I/O's service time.
#[derive(Debug, Clone, Copy)]
pub struct DeviceState {
    /// Virtual time at submission.
    pub now: Duration,
    /// I/O in flight on the device, this one excluded.
    pub inflight: u32,
    /// Bytes written since the run started, this I/O excluded.
    pub written_bytes: u64,
}

/// How long the simulated device takes for one I/O.
pub trait LatencyModel: Send {
    fn latency(&mut self, io: &Io, state: &DeviceState) -> Duration;
}

/// Every read takes `read`, every write takes `write`.
#[derive(Debug, Clone, Copy)]
pub struct ConstantLatency {
    pub read: Duration,
    pub write: Duration,
}

impl LatencyModel for ConstantLatency {
    fn latency(&mut self, io: &Io, _state: &DeviceState) -> Duration {
        match io.direction {
            crate::workload::Direction::Read => self.read,
            crate::workload::Direction::Write => self.write,
        }
    }
}

/// Latencies taken in turn from a list, repeating: a scripted distribution with known
/// percentiles.
#[derive(Debug, Clone)]
pub struct ScriptedLatency {
    latencies: Vec<Duration>,
    next: usize,
}

impl ScriptedLatency {
    pub fn new(latencies: Vec<Duration>) -> Self {
        ScriptedLatency { latencies, next: 0 }
    }
}

impl LatencyModel for ScriptedLatency {
    fn latency(&mut self, _io: &Io, _state: &DeviceState) -> Duration {
        let latency = self
            .latencies
            .get(self.next)
            .copied()
            .unwrap_or(Duration::from_micros(100));
        self.next = (self.next + 1) % self.latencies.len().max(1);
        latency
    }
}

/// An I/O in flight on the simulated device, ordered by completion time, then submission order.
#[derive(Debug, Clone, Copy)]
struct Pending {
    done_at: Duration,
    sequence: u64,
    job: usize,
    latency: Duration,
    io: Io,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.done_at, self.sequence) == (other.done_at, other.sequence)
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.done_at, self.sequence).cmp(&(other.done_at, other.sequence))
    }
}

/// The simulated device as an engine.
pub struct MockEngine {
    model: Mutex<Box<dyn LatencyModel>>,
}

impl MockEngine {
    pub fn new(model: impl LatencyModel + 'static) -> Self {
        MockEngine {
            model: Mutex::new(Box::new(model)),
        }
    }
}

impl Engine for MockEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Mock
    }

    fn drive(&self, work: Work<'_, '_>) -> Result<(), BenchError> {
        let Work {
            queue_depth,
            jobs,
            tick,
            ..
        } = work;
        let mut model = self
            .model
            .lock()
            .map_err(|_| BenchError::Engine("the mock device's model panicked earlier".into()))?;
        let queue_depth = queue_depth.max(1);
        let mut pending: BinaryHeap<Reverse<Pending>> =
            BinaryHeap::with_capacity(jobs.len() * queue_depth as usize);
        let mut inflight_per_job = vec![0u32; jobs.len()];
        let mut issuing = vec![true; jobs.len()];
        let mut now = Duration::ZERO;
        let mut written_bytes = 0u64;
        let mut sequence = 0u64;
        loop {
            for (index, job) in jobs.iter_mut().enumerate() {
                while issuing[index] && inflight_per_job[index] < queue_depth {
                    let Some(io) = job.next_io(now) else {
                        issuing[index] = false;
                        break;
                    };
                    let state = DeviceState {
                        now,
                        inflight: pending.len() as u32,
                        written_bytes,
                    };
                    let latency = model.latency(&io, &state);
                    if io.direction == crate::workload::Direction::Write {
                        written_bytes += u64::from(io.len);
                    }
                    pending.push(Reverse(Pending {
                        done_at: now + latency,
                        sequence,
                        job: index,
                        latency,
                        io,
                    }));
                    sequence += 1;
                    inflight_per_job[index] += 1;
                }
            }
            let Some(Reverse(done)) = pending.pop() else {
                break;
            };
            now = done.done_at;
            inflight_per_job[done.job] -= 1;
            jobs[done.job].complete(&done.io, done.latency, now, &[]);
        }
        tick();
        Ok(())
    }
}
