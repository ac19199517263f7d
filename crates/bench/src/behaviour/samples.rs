//! The latency samples a behaviour test keeps for its plot: bounded in memory on a long run,
//! and keeping the stalls the plot is for.

use super::LatencyPoint;

/// Collects samples and halves their density whenever there are too many, so memory stays
/// bounded on a long run while the plot still covers all of it. Of each group of neighbouring
/// reads it keeps the slowest: the stalls are what the plot is for, and keeping every n-th
/// read would drop nearly all of them (a stall in 1 % of the reads, sampled one read in 300,
/// mostly vanishes).
pub(super) struct Decimator {
    points: Vec<LatencyPoint>,
    /// Reads per kept point.
    stride: u64,
    /// The slowest read of the group being collected, and the reads in that group.
    group: Option<LatencyPoint>,
    in_group: u64,
    cap: usize,
}

/// The slower of two samples (the earlier one when they are as slow).
fn slower(a: LatencyPoint, b: LatencyPoint) -> LatencyPoint {
    if b.lat_us > a.lat_us {
        b
    } else {
        a
    }
}

impl Decimator {
    pub(super) fn new(cap: usize) -> Self {
        Self {
            points: Vec::new(),
            stride: 1,
            group: None,
            in_group: 0,
            cap: cap.max(2),
        }
    }

    pub(super) fn push(&mut self, point: LatencyPoint) {
        self.group = Some(match self.group {
            Some(group) => slower(group, point),
            None => point,
        });
        self.in_group += 1;
        if self.in_group >= self.stride {
            self.close_group();
        }
    }

    fn close_group(&mut self) {
        self.in_group = 0;
        let Some(group) = self.group.take() else {
            return;
        };
        self.points.push(group);
        if self.points.len() >= self.cap {
            // Neighbours merge pairwise, so the points stay in time order.
            let merged: usize = self.points.len().div_ceil(2);
            for index in 0..merged {
                let first = self.points[2 * index];
                self.points[index] = match self.points.get(2 * index + 1) {
                    Some(&second) => slower(first, second),
                    None => first,
                };
            }
            self.points.truncate(merged);
            self.stride *= 2;
        }
    }

    /// The kept points, the last, unfinished group included.
    pub(super) fn finish(mut self) -> Vec<LatencyPoint> {
        self.close_group();
        self.points
    }
}
