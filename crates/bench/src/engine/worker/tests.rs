//! The loop's timing against a scripted device: when a completion lands during the
//! submitting call, and when it does not.

use std::time::Duration;

use super::super::{Completion, Engine, EngineKind, IoQueue, Target, Work};
use crate::error::BenchError;
use crate::workload::{Direction, Io, Job, Next};

const KICK: Duration = Duration::from_micros(10);
const DEVICE: Duration = Duration::from_micros(50);

/// A simulated device whose submitting call costs [`KICK`] and whose reads take [`DEVICE`]
/// from the moment they are handed over. With `inline`, the call does not return before the
/// device finished (a VM whose host completes the request during the kick's exit).
struct Scripted {
    inline: bool,
}

struct ScriptedQueue {
    inline: bool,
    now: Duration,
    queued: Vec<u32>,
    /// (slot, done at)
    pending: Vec<(u32, Duration)>,
}

impl Engine for Scripted {
    fn kind(&self) -> EngineKind {
        EngineKind::Mock
    }

    fn simulated(&self) -> bool {
        true
    }

    fn open<'e>(
        &'e self,
        _target: &Target,
        _slots: u32,
        _seed: u64,
    ) -> Result<Box<dyn IoQueue + 'e>, BenchError> {
        Ok(Box::new(ScriptedQueue {
            inline: self.inline,
            now: Duration::ZERO,
            queued: Vec::new(),
            pending: Vec::new(),
        }))
    }
}

impl IoQueue for ScriptedQueue {
    fn virtual_now(&self) -> Duration {
        self.now
    }

    fn buffer(&mut self, _slot: u32, _len: u32) -> Option<&mut [u8]> {
        None
    }

    fn data(&self, _slot: u32, _len: u32) -> &[u8] {
        &[]
    }

    fn queue(&mut self, slot: u32, _io: &Io) -> Result<(), BenchError> {
        self.queued.push(slot);
        Ok(())
    }

    fn commit(&mut self) -> Result<u32, BenchError> {
        let handed_over = self.now;
        for slot in self.queued.drain(..) {
            self.pending.push((slot, handed_over + DEVICE));
        }
        self.now += KICK;
        if !self.inline {
            return Ok(0);
        }
        let latest = self.pending.iter().map(|&(_, at)| at).max();
        self.now = self.now.max(latest.unwrap_or(self.now));
        Ok(self.pending.len() as u32)
    }

    fn reap(&mut self, _min: u32, completions: &mut Vec<Completion>) -> Result<(), BenchError> {
        let Some(first) = self.pending.iter().map(|&(_, at)| at).min() else {
            return Ok(());
        };
        self.now = self.now.max(first);
        let now = self.now;
        self.pending.retain(|&(slot, at)| {
            if at <= now {
                completions.push(Completion { slot, result: 4096 });
                false
            } else {
                true
            }
        });
        Ok(())
    }
}

/// Reads `count` blocks and keeps each latency and whether it was timed through the submit.
struct Reads {
    left: u32,
    seen: Vec<(Duration, bool)>,
    through: bool,
}

impl Job for Reads {
    fn next_io(&mut self, _now: Duration) -> Next {
        if self.left == 0 {
            return Next::Done;
        }
        self.left -= 1;
        Next::Io(Io {
            offset: 0,
            len: 4096,
            direction: Direction::Read,
        })
    }

    fn timed_through_submit(&mut self, _io: &Io) {
        self.through = true;
    }

    fn complete(&mut self, _io: &Io, latency: Duration, _now: Duration, _data: &[u8]) {
        self.seen.push((latency, std::mem::take(&mut self.through)));
    }
}

fn latencies(inline: bool, depth: u32) -> Vec<(Duration, bool)> {
    let target = Target::simulated(1 << 20);
    let mut job = Reads {
        left: 4,
        seen: Vec::new(),
        through: false,
    };
    {
        let mut jobs: [&mut dyn Job; 1] = [&mut job];
        let mut tick = || {};
        super::run(
            &Scripted { inline },
            Work::new(&target, depth, &mut jobs, &mut tick),
        )
        .unwrap();
    }
    job.seen
}

#[test]
fn a_read_the_device_finishes_after_the_submit_returned_is_timed_from_that_return() {
    let seen = latencies(false, 1);
    assert_eq!(seen.len(), 4);
    for (latency, through) in seen {
        assert_eq!(latency, DEVICE - KICK, "clat: the kick is the engine's");
        assert!(!through);
    }
}

#[test]
fn a_read_that_completes_inside_its_submit_is_timed_from_before_the_call() {
    // Timed from the call's return this would be zero: the device time fell inside it.
    let seen = latencies(true, 1);
    assert_eq!(seen.len(), 4);
    for (latency, through) in seen {
        assert_eq!(latency, DEVICE, "lat: from before the submitting call");
        assert!(through);
    }
}

#[test]
fn with_older_reads_in_flight_a_completion_during_the_submit_is_not_attributed() {
    // At QD2 the completion that lands during a submit may be the older read's, so the
    // newly submitted one keeps its clat stamp (after the call) and is not flagged.
    let seen = latencies(true, 2);
    assert_eq!(seen.len(), 4);
    assert!(seen.iter().any(|&(_, through)| !through));
}
