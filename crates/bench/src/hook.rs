//! Test-only pause points, so that end-to-end tests can act at an exact moment of a run (rename
//! the test file away after the prefill) instead of racing it. The bench has one stage,
//! [`AFTER_PREFILL`]; the binary names its own (the snapshot stages) and pauses at them with
//! the same [`pause_point`].
//!
//! Honoured only in debug builds (`cfg(debug_assertions)`, what `cargo test` builds); a
//! release binary ignores the variable entirely. `NODECHECK_TEST_PAUSE=STAGE=FILE` makes the
//! process create FILE (holding its pid) when it reaches STAGE, then wait until FILE is removed,
//! the run is cancelled, or two minutes pass. The stages are listed in docs/bench.md.

use crate::cancel::CancelToken;

/// The environment variable naming the stage and the marker file.
pub const PAUSE_ENV: &str = "NODECHECK_TEST_PAUSE";

/// After the test file is prefilled and synced, before the first test.
pub const AFTER_PREFILL: &str = "after-prefill";

/// Pauses at `stage` when the environment asks for it (debug builds only); returns at once
/// otherwise.
pub fn pause_point(stage: &str, cancel: Option<&CancelToken>) {
    #[cfg(debug_assertions)]
    {
        use std::time::{Duration, Instant};
        let Some(spec) = std::env::var_os(PAUSE_ENV) else {
            return;
        };
        let Some((wanted, marker)) = spec.to_str().and_then(|s| s.split_once('=')) else {
            return;
        };
        if wanted != stage {
            return;
        }
        let marker = std::path::Path::new(marker);
        if std::fs::write(marker, format!("{}\n", std::process::id())).is_err() {
            return;
        }
        let started = Instant::now();
        while marker.exists()
            && !cancel.is_some_and(CancelToken::is_cancelled)
            && started.elapsed() < Duration::from_secs(120)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    #[cfg(not(debug_assertions))]
    {
        let _ = (stage, cancel);
    }
}
