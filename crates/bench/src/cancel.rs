//! Cancellation: one token shared by the signal handlers, the workloads and the prefill.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Set by SIGINT, SIGTERM or SIGHUP (to the signal number) or by [`CancelToken::cancel`].
/// Everything that loops checks it and winds down, so the test file is removed by its guard.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicUsize>);

/// Marker for a cancellation without a signal.
const CANCELLED_WITHOUT_SIGNAL: usize = usize::MAX;

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// A token that SIGINT, SIGTERM and SIGHUP set instead of killing the process. The caller
    /// re-raises the signal (see [`reraise`]) once cleanup is done.
    pub fn with_signal_handlers() -> std::io::Result<Self> {
        let token = Self::new();
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            signal_hook::flag::register_usize(signal, Arc::clone(&token.0), signal as usize)?;
        }
        Ok(token)
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

    /// The signal that cancelled, `Some(0)` for a programmatic cancel, `None` if not cancelled.
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            CANCELLED_WITHOUT_SIGNAL => Some(0),
            signal => Some(i32::try_from(signal).unwrap_or(0)),
        }
    }
}

/// Restores the default action for `signal` and raises it, so that the parent (a shell, systemd)
/// sees the process die of the signal it sent. Call after cleanup; returns if the signal does not
/// terminate (0 or an ignored signal).
pub fn reraise(signal: i32) {
    if signal <= 0 {
        return;
    }
    // SAFETY: resetting a disposition to SIG_DFL and raising a signal have no memory-safety
    // preconditions.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
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
    }
}
