//! What a run measures and how: the target, the tests, their parameters and the safety
//! settings (reserve, live-node check, stale files).

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::behaviour::BehaviourTests;
use crate::cancel::CancelToken;
use crate::engine::{EngineConfig, EnginePreference};
use crate::error::BenchError;
use crate::testfile::COMMUNITY_SIZE;
use crate::workload::ALIGN;

/// [`Plan::quick`]: about ten seconds of QD1 reads, like `ioping -D -c 30` but with enough
/// samples for p99.9.
pub const QUICK_RUNTIME: Duration = Duration::from_secs(10);
/// The quick test file: big enough to leave the drive's own cache, small enough to write in
/// a second or two.
pub const QUICK_FILE_BYTES: u64 = 1 << 30;
/// Free space the quick test leaves untouched. The default reserve (10 % or 50 GiB) is sized
/// for a 150 GiB file; for 1 GiB a few GiB keep a running node safe without refusing the
/// check on small volumes.
pub const QUICK_RESERVE_BYTES: u64 = 5 << 30;

/// The tests of a [`Plan::custom`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    pub qd1: bool,
    pub randrw: bool,
    pub behaviour: BehaviourTests,
}

/// What to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchTarget {
    /// A directory: a test file is created in its file system.
    Directory(PathBuf),
    /// A block device, read-only, `qd1` only, root only.
    Device(PathBuf),
}

impl BenchTarget {
    pub fn path(&self) -> &Path {
        match self {
            BenchTarget::Directory(path) | BenchTarget::Device(path) => path,
        }
    }
}

/// Everything a run needs. Start from what the caller means ([`Plan::full`], [`Plan::quick`],
/// [`Plan::custom`]) and adjust the fields a command line or a test sets.
#[derive(Debug, Clone)]
pub struct Plan {
    pub target: BenchTarget,
    pub qd1: bool,
    /// QD1 offsets only inside these byte ranges of the target: on a device, the extents of
    /// files that hold data, so that no read is answered from the mapping table of a block
    /// that was never written. `None`: anywhere in the target.
    pub qd1_ranges: Option<Vec<Range<u64>>>,
    pub randrw: bool,
    /// Behaviour tests on the same test file (crate::behaviour).
    pub behaviour: BehaviourTests,
    /// Per test.
    pub runtime: Duration,
    /// Test file size (the randrw span); default 150 GiB, shrunk to keep the reserve.
    pub size: Option<u64>,
    pub random: RandomIo,
    pub seed: u64,
    pub engine: EngineSettings,
    pub safety: Safety,
    /// The clients whose running processes stop the run (see [`Safety::force`]), as the client
    /// catalogue describes them; empty looks for none.
    pub live_node_clients: Vec<probe::processes::ClientProcess>,
    /// Continue with the next test when one fails (the failure becomes a warning).
    pub keep_going: bool,
    pub cancel: CancelToken,
}

/// The random I/O of the qd1 and randrw tests, in fio's terms: `bs`, randrw's `iodepth` and
/// `rwmixread` (qd1 reads one block at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomIo {
    pub block_size: u32,
    pub queue_depth: u32,
    pub read_percent: u32,
}

/// How the I/O is issued: the engine asked for, io_uring's settings, and where the qd1 and
/// randrw workers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSettings {
    pub preference: EnginePreference,
    pub sqpoll: bool,
    pub iopoll: bool,
    /// io_uring: the most requests submitted per `io_uring_enter` (see
    /// [`EngineConfig::submit_batch`]).
    pub submit_batch: u32,
    /// Run the qd1 and randrw workers on the CPUs that take the device's completion
    /// interrupts, when they are not all CPUs (crate::affinity); off: wherever the scheduler
    /// puts them.
    pub pin: bool,
}

impl Default for EngineSettings {
    /// io_uring when it works, each request handed to the device at once, workers pinned.
    fn default() -> Self {
        let engine = EngineConfig::default();
        EngineSettings {
            preference: EnginePreference::Auto,
            sqpoll: engine.sqpoll,
            iopoll: engine.iopoll,
            submit_batch: engine.submit_batch,
            pin: true,
        }
    }
}

impl EngineSettings {
    /// The engine configuration for I/O of at most `max_io_bytes`.
    pub fn config(&self, max_io_bytes: u32) -> EngineConfig {
        EngineConfig {
            max_io_bytes,
            sqpoll: self.sqpoll,
            iopoll: self.iopoll,
            submit_batch: self.submit_batch,
            ..EngineConfig::default()
        }
    }
}

/// What keeps a run from harming a live node or its disk: the free-space reserve, the check
/// for running clients and the test files killed runs left behind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Safety {
    /// Free space to keep; default max(10 % of the file system, 50 GiB).
    pub reserve: Option<u64>,
    /// Run even though an Ethereum client is running.
    pub force: bool,
    /// Remove test files left by killed runs before starting.
    pub clean_stale: bool,
}

/// fio's default seed for `randrepeat=1` is fixed too; any constant works, this one is ours.
pub const DEFAULT_SEED: u64 = 0x6e6f_6465_6368_6b31;

impl Plan {
    /// The community's comparison: qd1 and randrw for 60 s each on a 150 GiB test file (shrunk
    /// to keep the reserve), with fio's parameters (4 KiB, 75/25, queue depth 64).
    pub fn full(target: BenchTarget) -> Self {
        Plan {
            target,
            qd1: true,
            qd1_ranges: None,
            randrw: true,
            behaviour: BehaviourTests::default(),
            runtime: Duration::from_secs(60),
            size: None,
            random: RandomIo {
                block_size: 4096,
                queue_depth: 64,
                read_percent: 75,
            },
            seed: DEFAULT_SEED,
            engine: EngineSettings::default(),
            safety: Safety::default(),
            live_node_clients: Vec::new(),
            keep_going: false,
            cancel: CancelToken::new(),
        }
    }

    /// A first look in seconds: the QD1 test alone for [`QUICK_RUNTIME`], on a test file of
    /// [`QUICK_FILE_BYTES`] that keeps [`QUICK_RESERVE_BYTES`] free.
    pub fn quick(target: BenchTarget) -> Self {
        let on_file = matches!(target, BenchTarget::Directory(_));
        Plan {
            randrw: false,
            runtime: QUICK_RUNTIME,
            size: on_file.then_some(QUICK_FILE_BYTES),
            safety: Safety {
                reserve: on_file.then_some(QUICK_RESERVE_BYTES),
                ..Safety::default()
            },
            ..Plan::full(target)
        }
    }

    /// Exactly the tests in `tests`, with the community's parameters otherwise.
    pub fn custom(target: BenchTarget, tests: Selection) -> Self {
        Plan {
            qd1: tests.qd1,
            randrw: tests.randrw,
            behaviour: tests.behaviour,
            ..Plan::full(target)
        }
    }

    /// Adds the sync and span tests, scaled to this plan's runtime and test file
    /// ([`BehaviourTests::scaled`]); a device target stays read-only and gets none.
    pub fn with_scaled_behaviour(mut self) -> Self {
        if matches!(self.target, BenchTarget::Directory(_)) {
            let file = self.size.unwrap_or(COMMUNITY_SIZE);
            self.behaviour = BehaviourTests::scaled(self.runtime, file, self.seed);
        }
        self
    }

    pub(crate) fn validate(&self) -> Result<(), BenchError> {
        if !self.qd1 && !self.randrw && !self.behaviour.any() {
            return Err(BenchError::InvalidPlan("no test selected".into()));
        }
        if self.runtime.is_zero() {
            return Err(BenchError::InvalidPlan(
                "the runtime must be positive".into(),
            ));
        }
        let random = &self.random;
        if random.block_size == 0 || !u64::from(random.block_size).is_multiple_of(ALIGN) {
            return Err(BenchError::InvalidPlan(format!(
                "block size {} is not a multiple of {ALIGN}",
                random.block_size
            )));
        }
        if random.queue_depth == 0 || random.queue_depth > 4096 {
            return Err(BenchError::InvalidPlan(format!(
                "queue depth {} is outside 1..=4096",
                random.queue_depth
            )));
        }
        if random.read_percent > 100 {
            return Err(BenchError::InvalidPlan(format!(
                "read share {} % is over 100 %",
                random.read_percent
            )));
        }
        if let BenchTarget::Device(device) = &self.target {
            if self.randrw || self.behaviour.any() {
                return Err(BenchError::Refused(format!(
                    "{} is opened read-only: only the qd1 test may run on a block device \
                     (randrw writes); run randrw on a directory of its file system instead",
                    device.display()
                )));
            }
            if !nix::unistd::geteuid().is_root() {
                return Err(BenchError::Refused(format!(
                    "reading {} directly needs root; run as root or bench a directory instead",
                    device.display()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> BenchTarget {
        BenchTarget::Directory("/data".into())
    }

    #[test]
    fn full_is_the_community_comparison() {
        let plan = Plan::full(dir());
        assert!(plan.qd1 && plan.randrw && !plan.behaviour.any());
        assert_eq!(plan.runtime, Duration::from_secs(60));
        assert_eq!(
            (
                plan.random.queue_depth,
                plan.random.read_percent,
                plan.random.block_size
            ),
            (64, 75, 4096)
        );
        assert_eq!(plan.size, None, "150 GiB unless the reserve shrinks it");
        assert!(plan.validate().is_ok());
    }

    #[test]
    fn quick_runs_qd1_alone_on_a_small_file() {
        let plan = Plan::quick(dir());
        assert!(plan.qd1 && !plan.randrw && !plan.behaviour.any());
        assert_eq!(plan.runtime, QUICK_RUNTIME);
        assert_eq!(plan.size, Some(QUICK_FILE_BYTES));
        assert_eq!(plan.safety.reserve, Some(QUICK_RESERVE_BYTES));
        let device = Plan::quick(BenchTarget::Device("/dev/nvme0n1".into()));
        assert_eq!(
            (device.size, device.safety.reserve),
            (None, None),
            "a device has no test file"
        );
    }

    #[test]
    fn custom_runs_exactly_the_selection() {
        let plan = Plan::custom(
            dir(),
            Selection {
                randrw: true,
                ..Selection::default()
            },
        );
        assert!(!plan.qd1 && plan.randrw && !plan.behaviour.any());
        let nothing = Plan::custom(dir(), Selection::default());
        assert!(matches!(
            nothing.validate(),
            Err(BenchError::InvalidPlan(_))
        ));
    }

    #[test]
    fn scaled_behaviour_needs_a_test_file() {
        let on_file = Plan::full(dir()).with_scaled_behaviour();
        assert!(on_file.behaviour.sync.is_some() && on_file.behaviour.span.is_some());
        assert!(on_file.behaviour.cliff.is_none());
        let on_device = Plan::full(BenchTarget::Device("/dev/sda".into())).with_scaled_behaviour();
        assert!(!on_device.behaviour.any());
    }
}
