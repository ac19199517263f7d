//! Cancellation: one token shared by the signal handling, the workloads and the prefill.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::BenchError;

/// Set to the signal number by the binary's signal handling (`nodecheck::signals`) or by
/// [`CancelToken::cancel`]. Everything that loops checks it and winds down, so the test file is
/// removed by its guard.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicUsize>);

/// Marker for a cancellation without a signal.
const CANCELLED_WITHOUT_SIGNAL: usize = usize::MAX;

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }

    pub fn cancel(&self) {
        let _ = self.0.compare_exchange(
            0,
            CANCELLED_WITHOUT_SIGNAL,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// Cancels on behalf of `signal`; the first cause is kept.
    pub fn cancel_by(&self, signal: i32) {
        let value = usize::try_from(signal)
            .ok()
            .filter(|v| *v != 0)
            .unwrap_or(CANCELLED_WITHOUT_SIGNAL);
        let _ = self
            .0
            .compare_exchange(0, value, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The signal that cancelled, `Some(0)` for a programmatic cancel, `None` if not cancelled.
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            CANCELLED_WITHOUT_SIGNAL => Some(0),
            signal => Some(i32::try_from(signal).unwrap_or(0)),
        }
    }

    /// `Err(Interrupted)` once cancelled: the check between the stages of a run.
    pub fn check(&self) -> Result<(), BenchError> {
        match self.signal() {
            Some(signal) => Err(BenchError::Interrupted(signal)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_is_sticky_and_keeps_the_first_cause() {
        let token = CancelToken::new();
        assert!(!token.is_cancelled());
        assert_eq!(token.signal(), None);
        token.clone().cancel();
        assert!(token.is_cancelled());
        assert_eq!(token.signal(), Some(0));
        token.cancel_by(libc::SIGTERM);
        assert_eq!(token.signal(), Some(0), "the first cause stays");
        let by_signal = CancelToken::new();
        by_signal.cancel_by(libc::SIGUSR1);
        by_signal.cancel_by(libc::SIGINT);
        assert_eq!(by_signal.signal(), Some(libc::SIGUSR1));
    }
}
