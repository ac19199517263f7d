//! The behaviour tests on the real test file: its target (the descriptor the run set up,
//! pinned like the qd1 test, free space watched while writing) and the run's engine (io_uring
//! where the kernel allows it, else the portable psync engine). Their I/O takes the path of
//! the qd1 and randrw tests, so a latency of one test compares with another's, and every read,
//! write and `fdatasync` passes the target's checks (no write to a read-only target, the
//! free-space reserve held while writing). This module does no I/O of its own and never
//! creates, extends or deletes files.

use super::{BehaviourDevice, BehaviourError};
use crate::engine::{Engine, EngineChoice, Target};
use crate::workload::ALIGN;

/// The smallest test file the behaviour tests run on.
const MIN_SIZE: u64 = 1 << 20;

/// The bench's filled test file as a [`BehaviourDevice`], driven through the engine `choice`
/// made for the run.
pub struct FileDevice {
    target: Target,
    choice: EngineChoice,
    size: u64,
}

impl FileDevice {
    /// Works on `target`, the writable test file (opened with O_DIRECT, never reopened by name,
    /// so nothing planted under the name can receive the writes), with the engine of `choice`.
    pub fn new(target: Target, choice: &EngineChoice) -> Result<Self, BehaviourError> {
        let size = target.len() - target.len() % ALIGN;
        if size < MIN_SIZE {
            return Err(BehaviourError::FileTooSmall {
                size: target.len(),
                needed: MIN_SIZE,
            });
        }
        Ok(FileDevice {
            target,
            choice: choice.clone(),
            size,
        })
    }
}

impl BehaviourDevice for FileDevice {
    fn size(&self) -> u64 {
        self.size
    }

    fn engine(&self, max_io_bytes: u32) -> Box<dyn Engine> {
        self.choice.engine(max_io_bytes)
    }

    fn target(&self) -> &Target {
        &self.target
    }
}
