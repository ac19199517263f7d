//! A simulated drive on a virtual clock, with models of the three kinds of drive the behaviour
//! tests must tell apart: a TLC drive with DRAM, a QLC drive with a small SLC cache, and a
//! DRAM-less drive whose mapping cache covers only part of the LBA space.
//!
//! The model is deliberately small but follows the mechanisms the community blames
//! (docs/sources/hall-of-blame-ssds-for-ethereum-nodes.txt): writes land in a fast cache until it
//! is full and then go at the NAND's native speed; after a burst the drive has background work
//! (folding SLC into QLC, flushing mapping updates) that slows reads until it is done; a
//! DRAM-less drive pays an extra NAND read whenever the mapping entry for an LBA is not in its
//! small cache. Jitter and tail spikes come from a seeded generator, so a run is reproducible
//! to the bit.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{
    BehaviourDevice, BehaviourError, BurstOutcome, IntervalWrite, WriteBurst, WritePattern,
};
use crate::engine::EngineKind;

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

#[derive(Debug, Clone, Copy)]
struct ActiveBurst {
    started: f64,
    remaining: f64,
    total: u64,
    /// When the final `fdatasync` returns, once all writes are done.
    sync_done_at: Option<f64>,
}

/// A simulated drive behind a test file of `size` bytes, on a virtual clock that advances by
/// each I/O's modelled duration.
#[derive(Debug, Clone)]
pub struct MockDrive {
    model: DriveModel,
    size: u64,
    now: f64,
    rng: SmallRng,
    cache_used: f64,
    background: f64,
    burst: Option<ActiveBurst>,
    finished: Option<BurstOutcome>,
    /// Direct-mapped mapping cache: slot -> segment held, `u64::MAX` when empty.
    mapping_slots: Vec<u64>,
}

impl MockDrive {
    pub fn new(model: DriveModel, size: u64, seed: u64) -> Self {
        let slots = model
            .mapping_cache_span
            .map(|span| (span / model.mapping_segment.max(1)).max(1))
            .unwrap_or(0);
        let slots = usize::try_from(slots).unwrap_or(usize::MAX).min(1 << 20);
        Self {
            model,
            size: size - size % 4096,
            now: 0.0,
            rng: SmallRng::seed_from_u64(seed),
            cache_used: 0.0,
            background: 0.0,
            burst: None,
            finished: None,
            mapping_slots: vec![u64::MAX; slots],
        }
    }

    pub fn model(&self) -> &DriveModel {
        &self.model
    }

    fn cache_capacity(&self) -> f64 {
        self.model.write_cache_bytes as f64
    }

    fn write_speed(&self, pattern: WritePattern) -> f64 {
        let base = if self.cache_used < self.cache_capacity() {
            self.model.cache_write_mb_s
        } else {
            self.model.native_write_mb_s
        };
        let factor = match pattern {
            WritePattern::Sequential => 1.0,
            WritePattern::Random => self.model.random_write_factor,
        };
        (base * factor * 1e6).max(1.0)
    }

    /// Writes for at most `dt` seconds or `limit` bytes; returns bytes written and time used.
    fn write(&mut self, dt: f64, limit: f64, pattern: WritePattern) -> (f64, f64) {
        let cap = self.cache_capacity();
        let (mut t, mut bytes) = (0.0, 0.0);
        // At most two regimes (cache, native) per call; the bound only guards rounding.
        for _ in 0..4 {
            if t >= dt || bytes >= limit {
                break;
            }
            let in_cache = self.cache_used < cap;
            let speed = self.write_speed(pattern);
            let mut step = (speed * (dt - t)).min(limit - bytes);
            if in_cache {
                step = step.min(cap - self.cache_used);
            }
            t += step / speed;
            bytes += step;
            self.cache_used = if in_cache && cap - (self.cache_used + step) < 1.0 {
                cap
            } else {
                (self.cache_used + step).min(cap)
            };
            self.background += step * self.model.background_per_byte;
        }
        self.now += t;
        (bytes, t)
    }

    fn idle(&mut self, dt: f64) {
        self.cache_used = (self.cache_used - self.model.fold_mb_s * 1e6 * dt).max(0.0);
        self.background = (self.background - self.model.background_mb_s * 1e6 * dt).max(0.0);
        self.now += dt;
    }

    /// Moves the clock forward by `dt` seconds with whatever the drive is doing.
    fn advance(&mut self, dt: f64) {
        let mut left = dt;
        for _ in 0..8 {
            if left <= 0.0 {
                break;
            }
            let Some(mut burst) = self.burst.take() else {
                self.idle(left);
                return;
            };
            match burst.sync_done_at {
                None => {
                    let (bytes, used) = self.write(left, burst.remaining, WritePattern::Random);
                    burst.remaining -= bytes;
                    left -= used;
                    if burst.remaining < 1.0 {
                        burst.remaining = 0.0;
                        burst.sync_done_at = Some(self.now + self.model.fdatasync_ms / 1e3);
                    }
                    self.burst = Some(burst);
                }
                Some(done_at) if self.now < done_at => {
                    let step = left.min(done_at - self.now);
                    self.now += step;
                    left -= step;
                    self.burst = Some(burst);
                }
                Some(done_at) => {
                    self.finished = Some(BurstOutcome {
                        bytes: burst.total,
                        duration: Duration::from_secs_f64((done_at - burst.started).max(0.0)),
                        fdatasync: Duration::from_secs_f64(self.model.fdatasync_ms / 1e3),
                    });
                }
            }
        }
        if left > 0.0 {
            self.idle(left);
        }
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

    fn read_latency_us(&mut self, offset: u64) -> f64 {
        let jitter = self.rng.gen::<f64>() * self.model.read_jitter_us;
        let mut lat = self.model.read_us + jitter;
        if self.burst.is_some() {
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

impl BehaviourDevice for MockDrive {
    fn engine(&self) -> EngineKind {
        EngineKind::Mock
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn elapsed(&self) -> Duration {
        Duration::from_secs_f64(self.now.max(0.0))
    }

    fn read_qd1(&mut self, offset: u64) -> Result<Duration, BehaviourError> {
        if !offset.is_multiple_of(4096) || offset.saturating_add(4096) > self.size {
            return Err(BehaviourError::InvalidPlan(format!(
                "read at {offset} is unaligned or outside the {} byte file",
                self.size
            )));
        }
        let lat_us = self.read_latency_us(offset);
        self.advance(lat_us / 1e6);
        Ok(Duration::from_secs_f64(lat_us / 1e6))
    }

    fn start_burst(&mut self, burst: &WriteBurst) -> Result<(), BehaviourError> {
        if self.burst.is_some() {
            return Err(BehaviourError::InvalidPlan(
                "a write burst is already running".into(),
            ));
        }
        self.finished = None;
        self.burst = Some(ActiveBurst {
            started: self.now,
            remaining: burst.total_bytes as f64,
            total: burst.total_bytes,
            sync_done_at: None,
        });
        Ok(())
    }

    fn poll_burst(&mut self) -> Result<Option<BurstOutcome>, BehaviourError> {
        let done = self.finished.take();
        if done.is_some() {
            self.burst = None;
        }
        Ok(done)
    }

    fn write_for(
        &mut self,
        request: &IntervalWrite,
        cursor: &mut u64,
    ) -> Result<u64, BehaviourError> {
        let interval = request.interval.as_secs_f64();
        let (bytes, used) = self.write(interval, request.limit_bytes as f64, request.pattern);
        // A writer that hit its byte limit early sits idle for the rest of the interval.
        let rest = interval - used;
        if rest > 0.0 {
            self.idle(rest);
        }
        let written = bytes as u64;
        let block = u64::from(request.block.max(4096));
        let span = (self.size / block).max(1) * block;
        *cursor = (*cursor + written - written % block) % span;
        Ok(written)
    }
}
