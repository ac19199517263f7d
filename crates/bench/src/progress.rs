//! What a run tells its caller while it measures: the phase, the position in it and a rate.

/// The stages of a run, for progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Writing the test file; positions in bytes.
    Prefill,
    /// Positions in milliseconds of the runtime.
    Qd1,
    RandRw,
    /// The behaviour tests (crate::behaviour); positions in milliseconds.
    Sync,
    Cliff,
    Span,
}

/// Progress of a run. The binary draws indicatif bars on a TTY; tests record the calls.
pub trait Progress {
    /// A phase starts with `total` units (bytes for the prefill, milliseconds for the tests).
    fn start(&mut self, phase: Phase, total: u64);
    /// Position within the phase and a rate (`512 MB/s`, `10450 IOPS`).
    fn update(&mut self, position: u64, rate: &str);
    fn finish(&mut self, phase: Phase);
    /// Something the operator should know now (also recorded in the report's warnings).
    fn warn(&mut self, message: &str);
}

/// Progress that shows nothing (`--json`, pipes, `nodecheck check`).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&mut self, _phase: Phase, _total: u64) {}
    fn update(&mut self, _position: u64, _rate: &str) {}
    fn finish(&mut self, _phase: Phase) {}
    fn warn(&mut self, _message: &str) {}
}
