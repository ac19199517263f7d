//! What a run measures and how: the target, the tests, their parameters and the safety
//! settings (reserve, live-node check, stale files).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::behaviour::BehaviourTests;
use crate::cancel::CancelToken;
use crate::engine::EnginePreference;
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
    pub randrw: bool,
    /// Behaviour tests on the same test file (crate::behaviour).
    pub behaviour: BehaviourTests,
    /// Per test.
    pub runtime: Duration,
    /// Test file size (the randrw span); default 150 GiB, shrunk to keep the reserve.
    pub size: Option<u64>,
    /// Free space to keep; default max(10 % of the file system, 50 GiB).
    pub reserve: Option<u64>,
    pub engine: EnginePreference,
    pub sqpoll: bool,
    pub iopoll: bool,
    /// io_uring: the most requests submitted per `io_uring_enter` (see
    /// [`EngineConfig::submit_batch`]).
    pub submit_batch: u32,
    /// Run even though an Ethereum client is running.
    pub force: bool,
    /// Continue with the next test when one fails (the failure becomes a warning).
    pub keep_going: bool,
    /// Remove test files left by killed runs before starting.
    pub clean_stale: bool,
    /// Run the qd1 and randrw workers on the CPUs that take the device's completion
    /// interrupts, when they are not all CPUs (crate::affinity); off: wherever the scheduler
    /// puts them.
    pub pin: bool,
    pub seed: u64,
    pub queue_depth: u32,
    pub read_percent: u32,
    pub block_size: u32,
    pub cancel: CancelToken,
    /// The clients whose running processes stop the run (see `force`), as the client
    /// catalogue describes them; empty looks for none.
    pub live_node_clients: Vec<probe::processes::ClientProcess>,
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
            randrw: true,
            behaviour: BehaviourTests::default(),
            runtime: Duration::from_secs(60),
            size: None,
            reserve: None,
            engine: EnginePreference::Auto,
            sqpoll: false,
            iopoll: false,
            submit_batch: 1,
            force: false,
            keep_going: false,
            clean_stale: false,
            pin: true,
            seed: DEFAULT_SEED,
            queue_depth: 64,
            read_percent: 75,
            block_size: 4096,
            cancel: CancelToken::new(),
            live_node_clients: Vec::new(),
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
            reserve: on_file.then_some(QUICK_RESERVE_BYTES),
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
        if self.block_size == 0 || !u64::from(self.block_size).is_multiple_of(ALIGN) {
            return Err(BenchError::InvalidPlan(format!(
                "block size {} is not a multiple of {ALIGN}",
                self.block_size
            )));
        }
        if self.queue_depth == 0 || self.queue_depth > 4096 {
            return Err(BenchError::InvalidPlan(format!(
                "queue depth {} is outside 1..=4096",
                self.queue_depth
            )));
        }
        if self.read_percent > 100 {
            return Err(BenchError::InvalidPlan(format!(
                "read share {} % is over 100 %",
                self.read_percent
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
            (plan.queue_depth, plan.read_percent, plan.block_size),
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
        assert_eq!(plan.reserve, Some(QUICK_RESERVE_BYTES));
        let device = Plan::quick(BenchTarget::Device("/dev/nvme0n1".into()));
        assert_eq!(
            (device.size, device.reserve),
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
