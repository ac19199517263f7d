//! A simulated device on virtual time (fio's null engine, with latencies): every I/O takes the
//! latency a [`LatencyModel`] says, completions are reaped in time order, and the jobs see the
//! virtual clock. It is just another engine behind the one loop (`worker`): the target check,
//! the free-space watch and the timing are the real engines', so statistics and stopping logic
//! are exact and deterministic to test.
//!
//! Models are open: anything implementing [`LatencyModel`] plugs in. The drives the behaviour
//! tests tell apart (a write cache that fills and falls off a cliff, a mapping cache that misses
//! beyond a span, background work after a burst, the cost of `fdatasync`) are such models
//! (`behaviour::models`), so those tests run as jobs on this engine like every other test.
//!
//! The device keeps its state and its clock from one run to the next: a drive whose cache a
//! run filled is still full at the start of the next, as on a real drive.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::EngineKind;
use super::{Completion, Engine, IoQueue, Target};
use crate::error::BenchError;
use crate::workload::{Direction, Io};

/// What the simulated device knows when it is asked for an I/O's service time.
#[derive(Debug, Clone, Copy)]
pub struct DeviceState {
    /// The device's virtual time at submission: since the first run on it began (each run's
    /// jobs see their own clock from zero).
    pub now: Duration,
    /// I/O in flight on the device, this one excluded.
    pub inflight: u32,
    /// Bytes written since the run started, this I/O excluded.
    pub written_bytes: u64,
}

/// How long the simulated device takes for one I/O, from its submission to its completion
/// (a model that queues I/O behind others includes the wait).
pub trait LatencyModel: Send {
    fn latency(&mut self, io: &Io, state: &DeviceState) -> Duration;
}

/// Every read takes `read`, every write (and sync) takes `write`.
#[derive(Debug, Clone, Copy)]
pub struct ConstantLatency {
    pub read: Duration,
    pub write: Duration,
}

impl LatencyModel for ConstantLatency {
    fn latency(&mut self, io: &Io, _state: &DeviceState) -> Duration {
        match io.direction {
            Direction::Read => self.read,
            Direction::Write | Direction::Sync => self.write,
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
    slot: u32,
    len: u32,
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

/// The simulated device as an engine. All jobs of a run share one device (one queue on one
/// virtual clock), so what the model sees in flight is every job's I/O, in a reproducible order.
/// Clones are the same device.
#[derive(Clone)]
pub struct MockEngine {
    device: Arc<Mutex<Device>>,
}

/// The model and the device's clock, which goes on from one run to the next.
struct Device {
    model: Box<dyn LatencyModel>,
    clock: Duration,
}

impl MockEngine {
    pub fn new(model: impl LatencyModel + 'static) -> Self {
        MockEngine {
            device: Arc::new(Mutex::new(Device {
                model: Box::new(model),
                clock: Duration::ZERO,
            })),
        }
    }
}

impl Engine for MockEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Mock
    }

    fn simulated(&self) -> bool {
        true
    }

    fn open<'e>(
        &'e self,
        _target: &Target,
        slots: u32,
        _seed: u64,
    ) -> Result<Box<dyn IoQueue + 'e>, BenchError> {
        let device = self
            .device
            .lock()
            .map_err(|_| BenchError::Engine("the mock device's model panicked earlier".into()))?;
        let epoch = device.clock;
        Ok(Box::new(MockQueue {
            device,
            epoch,
            pending: BinaryHeap::with_capacity(slots as usize),
            now: Duration::ZERO,
            written_bytes: 0,
            sequence: 0,
        }))
    }
}

/// The device of one run: I/O in flight by completion time, and the run's virtual clock, which
/// moves to each completion as it is reaped (`epoch` is the device's time when the run began).
struct MockQueue<'e> {
    device: MutexGuard<'e, Device>,
    epoch: Duration,
    pending: BinaryHeap<Reverse<Pending>>,
    now: Duration,
    written_bytes: u64,
    sequence: u64,
}

impl Drop for MockQueue<'_> {
    fn drop(&mut self) {
        self.device.clock = self.epoch + self.now;
    }
}

impl IoQueue for MockQueue<'_> {
    fn virtual_now(&self) -> Duration {
        self.now
    }

    /// The simulated device moves no data.
    fn buffer(&mut self, _slot: u32, _len: u32) -> Option<&mut [u8]> {
        None
    }

    fn data(&self, _slot: u32, _len: u32) -> &[u8] {
        &[]
    }

    fn queue(&mut self, slot: u32, io: &Io) -> Result<(), BenchError> {
        let state = DeviceState {
            now: self.epoch + self.now,
            inflight: u32::try_from(self.pending.len()).unwrap_or(u32::MAX),
            written_bytes: self.written_bytes,
        };
        let latency = self.device.model.latency(io, &state);
        if io.direction == Direction::Write {
            self.written_bytes += u64::from(io.len);
        }
        self.pending.push(Reverse(Pending {
            done_at: self.now + latency,
            sequence: self.sequence,
            slot,
            len: io.len,
        }));
        self.sequence += 1;
        Ok(())
    }

    fn commit(&mut self) -> Result<u32, BenchError> {
        Ok(0)
    }

    /// Completes the earliest I/O only, so that the jobs refill its slot at its own instant:
    /// the device sees the queue depth the workload keeps.
    fn reap(&mut self, _min: u32, completions: &mut Vec<Completion>) -> Result<(), BenchError> {
        if let Some(Reverse(done)) = self.pending.pop() {
            self.now = done.done_at;
            completions.push(Completion {
                slot: done.slot,
                result: i64::from(done.len),
            });
        }
        Ok(())
    }
}
