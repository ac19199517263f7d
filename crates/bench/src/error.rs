//! Errors of the benchmark library.

use std::io;
use std::path::PathBuf;

/// Everything that can stop a benchmark. Messages are written for the operator: they name the
/// file and the numbers; the way out is added by the command that prints them, because only
/// it knows its own options (`bench --force`, `check --bench-reserve`).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
    #[error("{0}")]
    Unsupported(String),
    #[error(
        "not enough free space on {fs}: {avail} available of {total}, the reserve keeps \
         {reserve} free ({reserve_origin}), leaving {spare} for a test file but at least \
         {needed} is needed"
    )]
    NoRoom {
        fs: String,
        avail: ByteSize,
        total: ByteSize,
        reserve: ByteSize,
        /// How the reserve was decided: the default formula with its numbers, or set for the run.
        reserve_origin: String,
        spare: ByteSize,
        needed: ByteSize,
    },
    #[error(
        "after reserving the {size} test file only {avail} is free on {fs}, under the {reserve} \
         reserve: something else is filling the file system (a bench in another directory, a \
         node); the test file was removed, nothing was measured"
    )]
    ReserveBroken {
        fs: String,
        size: ByteSize,
        avail: ByteSize,
        reserve: ByteSize,
    },
    #[error(
        "another nodecheck bench{} is running in this directory (it holds {}); one bench at a \
         time keeps the free-space reserve and both figures honest: wait for it to finish",
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
        lock.display()
    )]
    Busy { pid: Option<u32>, lock: PathBuf },
    #[error(
        "an Ethereum client is running: {0}. Benchmarking now skews the results and slows the \
         node down"
    )]
    LiveNode(String),
    #[error("refused: {0}")]
    Refused(String),
    #[error("interrupted by {}", signal_name(*.0))]
    Interrupted(i32),
    #[error("invalid plan: {0}")]
    InvalidPlan(String),
    #[error("the engine failed: {0}")]
    Engine(String),
    #[error("stale test file(s) from an earlier run that was killed: {}", list_paths(.0))]
    StaleFiles(Vec<PathBuf>),
}

impl BenchError {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        BenchError::Io {
            context: context.into(),
            source,
        }
    }
}

fn list_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The conventional name of a termination signal, for messages.
pub fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT (Ctrl-C)".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        libc::SIGHUP => "SIGHUP".to_string(),
        libc::SIGQUIT => "SIGQUIT".to_string(),
        libc::SIGUSR1 => "SIGUSR1".to_string(),
        libc::SIGUSR2 => "SIGUSR2".to_string(),
        0 => "a cancellation request".to_string(),
        other => format!("signal {other}"),
    }
}

/// A byte count that prints in binary units (`149.9 GiB`), for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl std::fmt::Display for ByteSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
        let mut value = self.0 as f64;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        if unit == 0 {
            write!(f, "{} B", self.0)
        } else {
            write!(f, "{value:.1} {}", UNITS[unit])
        }
    }
}

/// Parses `256M`, `150G`, `1.5T`, `4096` (binary units, optional `i`/`iB`/`B` suffix).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (examples: 256M, 150G)"))?;
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "ki" | "kib" | "kb" => 1 << 10,
        "m" | "mi" | "mib" | "mb" => 1 << 20,
        "g" | "gi" | "gib" | "gb" => 1 << 30,
        "t" | "ti" | "tib" | "tb" => 1 << 40,
        other => return Err(format!("unknown size unit `{other}` in `{text}`")),
    };
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(bytes as u64)
}

/// A test-file size from the command line: [`parse_size`], refusing sizes below
/// [`crate::testfile::MIN_FILE_SIZE`] instead of silently running on a bigger file.
pub fn parse_file_size(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text)?;
    let min = crate::testfile::MIN_FILE_SIZE;
    if bytes < min {
        return Err(format!(
            "`{text}` is smaller than the smallest test file, {} (below that the drive's cache \
             answers instead of the drive)",
            ByteSize(min)
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_below_the_minimum_are_refused() {
        assert!(parse_file_size("1k").unwrap_err().contains("16.0 MiB"));
        assert_eq!(parse_file_size("16M"), Ok(16 << 20));
        assert!(parse_file_size("xyz").is_err());
    }

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("256M"), Ok(256 << 20));
        assert_eq!(parse_size("150G"), Ok(150 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("99999999999999999999999T").is_err());
    }

    #[test]
    fn byte_sizes_print_in_binary_units() {
        assert_eq!(ByteSize(512).to_string(), "512 B");
        assert_eq!(ByteSize(150 << 30).to_string(), "150.0 GiB");
        assert_eq!(ByteSize(3 << 29).to_string(), "1.5 GiB");
    }

    proptest::proptest! {
        #[test]
        fn parse_size_never_panics(text in "\\PC{0,40}") {
            let _ = parse_size(&text);
        }

        #[test]
        fn whole_sizes_round_trip(value in 0u64..1_000_000, unit in 0usize..5) {
            let suffix = ["", "K", "M", "G", "T"][unit];
            let parsed = parse_size(&format!("{value}{suffix}")).unwrap();
            proptest::prop_assert_eq!(parsed, value << (10 * unit as u32));
        }
    }
}
