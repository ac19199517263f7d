//! A process's own I/O from `/proc/PID/io` (`read_bytes`/`write_bytes` are the bytes that
//! reached the block layer). Another user's file needs root (ptrace access).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessIo {
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub cancelled_write_bytes: u64,
}

/// The file's text, or `None` when `read_bytes` or `write_bytes` is missing.
pub fn parse(text: &str) -> Option<ProcessIo> {
    let (mut read, mut write, mut cancelled) = (None, None, 0);
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().parse::<u64>().ok();
        match key.trim() {
            "read_bytes" => read = value,
            "write_bytes" => write = value,
            "cancelled_write_bytes" => cancelled = value.unwrap_or(0),
            _ => {}
        }
    }
    Some(ProcessIo {
        read_bytes: read?,
        write_bytes: write?,
        cancelled_write_bytes: cancelled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_file_parses() {
        let text = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n";
        assert_eq!(
            parse(text),
            Some(ProcessIo {
                read_bytes: 4096,
                write_bytes: 8192,
                cancelled_write_bytes: 0
            })
        );
        assert_eq!(parse("rchar: 1\n"), None);
        assert_eq!(parse("read_bytes: x\nwrite_bytes: 1\n"), None);
    }
}
