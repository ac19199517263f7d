//! Progress bars for measurements: drawn on stderr when it is a terminal, absent when piped,
//! cleared when done so only the report stays on screen.

use std::io::IsTerminal;
use std::time::Duration;

use bench::{Phase, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// indicatif bars for [`bench::run`].
pub struct Bars {
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Bars {
    /// Bars only when stderr is a terminal and the user did not ask for quiet.
    pub fn for_stderr(verbosity: i8) -> Self {
        Bars {
            bar: None,
            enabled: verbosity >= 0 && std::io::stderr().is_terminal(),
        }
    }

    fn style(phase: Phase) -> ProgressStyle {
        let template = match phase {
            Phase::Prefill => "{msg:<22} [{bar:30}] {bytes}/{total_bytes} {prefix}",
            Phase::Qd1 | Phase::RandRw | Phase::Sync | Phase::Cliff | Phase::Span => {
                "{msg:<22} [{bar:30}] {elapsed}/{len_s} {prefix}"
            }
        };
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ")
            .with_key(
                "len_s",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}s", state.len().unwrap_or(0) / 1000);
                },
            )
    }
}

impl Progress for Bars {
    fn start(&mut self, phase: Phase, total: u64) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(Self::style(phase));
        bar.set_message(match phase {
            Phase::Prefill => "writing test file",
            Phase::Qd1 => "QD1 4 KiB random read",
            Phase::RandRw => "randrw 75/25 QD64",
            Phase::Sync => "sync: reads + bursts",
            Phase::Cliff => "cliff: sustained writes",
            Phase::Span => "span: growing spans",
        });
        bar.enable_steady_tick(Duration::from_millis(200));
        self.bar = Some(bar);
    }

    fn update(&mut self, position: u64, rate: &str) {
        if let Some(bar) = &self.bar {
            bar.set_position(position);
            bar.set_prefix(rate.to_string());
        }
    }

    fn finish(&mut self, _phase: Phase) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn warn(&mut self, message: &str) {
        if !self.enabled {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(format!("warning: {message}")),
            None => crate::stderr::line(&format!("warning: {message}")),
        }
    }
}

impl Drop for Bars {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
