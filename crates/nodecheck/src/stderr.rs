//! The one way nodecheck writes to standard error: errors, warnings, notes and progress lines.
//!
//! Rust ignores SIGPIPE, so a write to a closed stderr (`nodecheck check 2>&1 >/dev/null | true`)
//! or a full one (`2>/dev/full`) returns an error, and `eprintln!` turns that error into a panic
//! (exit 101). A message that cannot be shown is not worth failing the run for, and the exit
//! code must stay the documented one, so the error is dropped here.

use std::io::{self, Write};

/// Writes `text` and a newline to stderr in one write; a closed or full stderr is ignored.
pub fn line(text: &str) {
    let mut buffer = Vec::with_capacity(text.len() + 1);
    buffer.extend_from_slice(text.as_bytes());
    buffer.push(b'\n');
    let _ = io::stderr().lock().write_all(&buffer);
}
