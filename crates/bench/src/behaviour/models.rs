//! Simulated drives for the mock engine, with models of the three kinds of drive the behaviour
//! tests must tell apart: a TLC drive with DRAM, a QLC drive with a small SLC cache, and a
//! DRAM-less drive whose mapping cache covers only part of the LBA space. A model is a
//! per-I/O [`LatencyModel`] of the mock engine ([`DriveLatency`]), so the behaviour tests run on
//! it as jobs on the one I/O path, as they do on the real test file.
//!
//! The model is deliberately small but follows the mechanisms the community blames
//! (docs/sources/hall-of-blame-ssds-for-ethereum-nodes.txt): writes land in a fast cache until it
//! is full and then go at the NAND's native speed; after a burst the drive has background work
//! (folding SLC into QLC, flushing mapping updates) that slows reads until it is done; a
//! DRAM-less drive pays an extra NAND read whenever the mapping entry for an LBA is not in its
//! small cache. Jitter and tail spikes come from a seeded generator, so a run is reproducible
//! to the bit.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::BehaviourDevice;
use crate::engine::mock::{DeviceState, LatencyModel, MockEngine};
use crate::engine::{Engine, Target};
use crate::workload::{Direction, Io, ALIGN};

const GB: u64 = 1_000_000_000;
const GIB: u64 = 1 << 30;

/// Parameters of a simulated drive.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveModel {
    pub name: &'static str,
    /// Idle QD1 4 KiB read latency when the mapping entry is cached.
    pub read_us: f64,
    /// Uniform jitter added to every read.
    pub read_jitter_us: f64,
    /// LBA bytes whose mapping entries fit in the drive's mapping cache; `None` when the whole
    /// table is in DRAM.
    pub mapping_cache_span: Option<u64>,
    /// Granularity of the mapping cache (a direct-mapped cache of segments of this size).
    pub mapping_segment: u64,
    /// Extra latency of a read whose mapping entry must first be read from NAND.
    pub mapping_miss_us: f64,
    /// Sequential write speed while the write cache has room.
    pub cache_write_mb_s: f64,
    /// Sequential write speed once the cache is full.
    pub native_write_mb_s: f64,
    /// Random writes relative to sequential ones.
    pub random_write_factor: f64,
    pub write_cache_bytes: u64,
    /// How fast an idle drive empties its write cache.
    pub fold_mb_s: f64,
    /// Background work left per byte written (folding, mapping flushes) and its idle rate.
    pub background_per_byte: f64,
    pub background_mb_s: f64,
    /// Read latency multipliers: while writes land in the cache, while they go to native NAND,
    /// and while background work remains after a burst.
    pub read_factor_cache_write: f64,
    pub read_factor_native_write: f64,
    pub read_factor_background: f64,
    /// Occasional read stalls while writes are in flight.
    pub write_spike_probability: f64,
    pub write_spike_us: f64,
    pub fdatasync_ms: f64,
}

impl DriveModel {
    /// A mainstream TLC NVMe drive with DRAM (970 EVO Plus class): flat read latency over any
    /// span, a large SLC cache, and TLC speed well above a client's needs after it.
    pub fn tlc_dram() -> Self {
        Self {
            name: "TLC with DRAM",
            read_us: 70.0,
            read_jitter_us: 15.0,
            mapping_cache_span: None,
            mapping_segment: GIB,
            mapping_miss_us: 0.0,
            cache_write_mb_s: 2_000.0,
            native_write_mb_s: 900.0,
            random_write_factor: 0.8,
            write_cache_bytes: 42 * GB,
            fold_mb_s: 1_500.0,
            background_per_byte: 0.02,
            background_mb_s: 1_000.0,
            read_factor_cache_write: 1.8,
            read_factor_native_write: 2.2,
            read_factor_background: 1.3,
            write_spike_probability: 0.002,
            write_spike_us: 400.0,
            fdatasync_ms: 2.0,
        }
    }

    /// A QLC drive with a small SLC cache (870 QVO / Intel 660p class): fast until the cache is
    /// full, then writes at QLC speed and reads stall behind QLC programs; folding the cache
    /// back into QLC after a burst keeps reads slow for seconds.
    pub fn qlc_small_slc() -> Self {
        Self {
            name: "QLC with a small SLC cache",
            read_us: 90.0,
            read_jitter_us: 20.0,
            mapping_cache_span: None,
            mapping_segment: GIB,
            mapping_miss_us: 0.0,
            cache_write_mb_s: 1_800.0,
            native_write_mb_s: 80.0,
            random_write_factor: 0.7,
            write_cache_bytes: 24 * GB,
            fold_mb_s: 120.0,
            background_per_byte: 1.0,
            background_mb_s: 150.0,
            read_factor_cache_write: 2.5,
            read_factor_native_write: 8.0,
            read_factor_background: 2.5,
            write_spike_probability: 0.015,
            write_spike_us: 2_500.0,
            fdatasync_ms: 15.0,
        }
    }

    /// A DRAM-less TLC drive using a host-memory-buffer mapping cache (SN770 class): fast on
    /// small spans, an extra NAND read per mapping miss once random reads span more than its
    /// cache covers, and mapping flushes after bursts.
    pub fn dramless_tlc() -> Self {
        Self {
            name: "DRAM-less TLC",
            read_us: 75.0,
            read_jitter_us: 15.0,
            mapping_cache_span: Some(32 * GIB),
            mapping_segment: GIB,
            mapping_miss_us: 90.0,
            cache_write_mb_s: 2_500.0,
            native_write_mb_s: 700.0,
            random_write_factor: 0.6,
            write_cache_bytes: 30 * GB,
            fold_mb_s: 800.0,
            background_per_byte: 0.3,
            background_mb_s: 200.0,
            read_factor_cache_write: 3.0,
            read_factor_native_write: 4.0,
            read_factor_background: 1.8,
            write_spike_probability: 0.005,
            write_spike_us: 1_500.0,
            fdatasync_ms: 5.0,
        }
    }
}

/// A [`DriveModel`] as the mock engine's [`LatencyModel`]: the service time of each I/O, on the
/// engine's virtual clock, from the drive's state.
///
/// Writes and syncs go through one write channel in order (a FIFO): a write's latency is its
/// wait behind the writes queued before it plus its own bytes at the speed of the moment
/// (cache or native, sequential or random, a write that fills the cache paying both), so a
/// queue of writes gets exactly the model's throughput whatever its depth, and an `fdatasync`
/// completes `fdatasync_ms` after the last write before it. Reads do not queue behind writes,
/// but while the write channel is busy they are slowed by the cache or native factor and may
/// stall; while background work is left (it grows with every byte written and drains while
/// the channel is idle, as the cache does) they are slowed by the background factor. A
/// DRAM-less drive adds a mapping miss when the read's segment is not in its mapping cache.
/// Jitter and stalls come from a seeded generator, so a run is reproducible to the bit.
#[derive(Debug, Clone)]
pub struct DriveLatency {
    model: DriveModel,
    rng: SmallRng,
    /// Device time (seconds) up to which the cache and background work were drained.
    clock: f64,
    /// When the writes and syncs queued so far are done: the write channel is busy until then.
    writes_done_at: f64,
    cache_used: f64,
    background: f64,
    /// Where the last write ended: a write starting there continues a sequential stream.
    last_write_end: Option<u64>,
    /// Direct-mapped mapping cache: slot -> segment held, `u64::MAX` when empty.
    mapping_slots: Vec<u64>,
}

impl DriveLatency {
    pub fn new(model: DriveModel, seed: u64) -> Self {
        let slots = model
            .mapping_cache_span
            .map(|span| (span / model.mapping_segment.max(1)).max(1))
            .unwrap_or(0);
        let slots = usize::try_from(slots).unwrap_or(usize::MAX).min(1 << 20);
        DriveLatency {
            model,
            rng: SmallRng::seed_from_u64(seed),
            clock: 0.0,
            writes_done_at: 0.0,
            cache_used: 0.0,
            background: 0.0,
            last_write_end: None,
            mapping_slots: vec![u64::MAX; slots],
        }
    }

    fn cache_capacity(&self) -> f64 {
        self.model.write_cache_bytes as f64
    }

    /// Drains the cache and the background work over the time up to `now` that the write
    /// channel was idle.
    fn settle(&mut self, now: f64) {
        let idle_from = self.clock.max(self.writes_done_at);
        if now > idle_from {
            let idle = now - idle_from;
            self.cache_used = (self.cache_used - self.model.fold_mb_s * 1e6 * idle).max(0.0);
            self.background = (self.background - self.model.background_mb_s * 1e6 * idle).max(0.0);
        }
        self.clock = self.clock.max(now);
    }

    /// Seconds the write channel takes for `bytes` written at `factor` of its speed, filling
    /// the cache as it goes.
    fn write_time(&mut self, bytes: f64, factor: f64) -> f64 {
        let cap = self.cache_capacity();
        let speed = |mb_s: f64| (mb_s * factor * 1e6).max(1.0);
        let in_cache = (cap - self.cache_used).clamp(0.0, bytes);
        self.cache_used = (self.cache_used + in_cache).min(cap);
        self.background += bytes * self.model.background_per_byte;
        in_cache / speed(self.model.cache_write_mb_s)
            + (bytes - in_cache) / speed(self.model.native_write_mb_s)
    }

    fn mapping_miss(&mut self, offset: u64) -> bool {
        if self.mapping_slots.is_empty() {
            return false;
        }
        let segment = offset / self.model.mapping_segment.max(1);
        let slot = (segment % self.mapping_slots.len() as u64) as usize;
        let hit = self.mapping_slots[slot] == segment;
        self.mapping_slots[slot] = segment;
        !hit
    }

    fn read_latency_us(&mut self, offset: u64, now: f64) -> f64 {
        let jitter = self.rng.gen::<f64>() * self.model.read_jitter_us;
        let mut lat = self.model.read_us + jitter;
        if self.writes_done_at > now {
            let factor = if self.cache_used < self.cache_capacity() {
                self.model.read_factor_cache_write
            } else {
                self.model.read_factor_native_write
            };
            lat *= factor;
            if self.rng.gen::<f64>() < self.model.write_spike_probability {
                lat += self.model.write_spike_us;
            }
        } else if self.background > 0.0 {
            lat *= self.model.read_factor_background;
        }
        if self.mapping_miss(offset) {
            lat += self.model.mapping_miss_us;
        }
        lat
    }
}

impl LatencyModel for DriveLatency {
    fn latency(&mut self, io: &Io, state: &DeviceState) -> Duration {
        let now = state.now.as_secs_f64();
        self.settle(now);
        match io.direction {
            Direction::Read => Duration::from_secs_f64(self.read_latency_us(io.offset, now) / 1e6),
            Direction::Write => {
                let sequential = self.last_write_end == Some(io.offset);
                self.last_write_end = Some(io.offset + u64::from(io.len));
                let factor = if sequential {
                    1.0
                } else {
                    self.model.random_write_factor
                };
                let start = now.max(self.writes_done_at);
                self.writes_done_at = start + self.write_time(f64::from(io.len), factor);
                Duration::from_secs_f64(self.writes_done_at - now)
            }
            Direction::Sync => {
                let start = now.max(self.writes_done_at);
                self.writes_done_at = start + self.model.fdatasync_ms / 1e3;
                Duration::from_secs_f64(self.writes_done_at - now)
            }
        }
    }
}

/// A simulated drive behind a test file of `size` bytes: the mock engine with a
/// [`DriveLatency`] of `model`, and a simulated target. The behaviour tests run on it as they
/// run on the real test file, as jobs on the engine, on its virtual clock.
#[derive(Clone)]
pub struct MockDrive {
    engine: MockEngine,
    target: Arc<Target>,
}

impl MockDrive {
    pub fn new(model: DriveModel, size: u64, seed: u64) -> Self {
        MockDrive {
            engine: MockEngine::new(DriveLatency::new(model, seed)),
            target: Arc::new(Target::simulated(size - size % ALIGN)),
        }
    }
}

impl BehaviourDevice for MockDrive {
    fn size(&self) -> u64 {
        self.target.len()
    }

    /// The same simulated device whatever the I/O size: its state carries from one test to
    /// the next.
    fn engine(&self, _max_io_bytes: u32) -> Box<dyn Engine> {
        Box::new(self.engine.clone())
    }

    fn target(&self) -> &Target {
        &self.target
    }
}
