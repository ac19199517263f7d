//! Byte counts in both directions: `2TB`, `1.5TiB`, `150G`, `4096` ⇄ bytes.
//!
//! Parsing has two conventions, chosen by what the size describes:
//! - [`Convention::Vendor`] for drive capacities: vendors sell decimal units (a "2TB" drive
//!   holds 2·10¹² bytes), so a bare `T`/`G` is decimal and binary units need the `i` (`TiB`).
//! - [`Convention::Fio`] for test-file sizes: fio reads `150G` as 150 GiB, and the community's
//!   fio command and nodecheck's must describe the same file.
//!
//! Printing has one function per audience: [`ByteSize`] for messages (one decimal, binary),
//! [`binary`] for figures in reports (free space, spans), [`binary_exact`] for limits that are
//! powers of two, [`decimal`] for capacities as labels print them and [`decimal_compact`] for
//! the drive database's narrow columns.

use std::fmt;

/// How bare unit letters (`K`, `M`, `G`, `T`, `P`) are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convention {
    /// Powers of 1000, as drives are sold; `Ki`, `Mi`… are powers of 1024.
    Vendor,
    /// Powers of 1024 whatever the spelling, as fio reads its `size=`.
    Fio,
}

impl Convention {
    fn examples(self) -> &'static str {
        match self {
            Convention::Vendor => "2TB, 1.5TiB, 500G or a byte count",
            Convention::Fio => "256M, 150G, 1.5T or a byte count",
        }
    }

    /// The bytes one `unit` stands for, exactly (every power here fits in a u64).
    fn multiplier(self, unit: &str) -> Option<u64> {
        let power = match unit {
            "" | "b" => return Some(1),
            "k" | "kb" | "ki" | "kib" => 1,
            "m" | "mb" | "mi" | "mib" => 2,
            "g" | "gb" | "gi" | "gib" => 3,
            "t" | "tb" | "ti" | "tib" => 4,
            "p" | "pb" | "pi" | "pib" => 5,
            _ => return None,
        };
        match self {
            Convention::Fio => Some(1024u64.pow(power)),
            Convention::Vendor if unit.contains('i') => Some(1024u64.pow(power)),
            Convention::Vendor => Some(1000u64.pow(power)),
        }
    }
}

/// Why a size did not parse. The messages quote the text and give examples, for a command
/// line's error output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("`{text}` is not a size; try {examples}")]
    NotASize {
        text: String,
        examples: &'static str,
    },
    #[error(
        "unknown unit `{unit}` in `{text}`; use B, K, M, G, T, P (with `i` or `iB` for binary)"
    )]
    UnknownUnit { text: String, unit: String },
    #[error("`{text}` is out of range")]
    OutOfRange { text: String },
}

/// Parses `text` as `convention` reads it. Fractions are allowed (`1.5T`) and rounded to the
/// nearest byte.
pub fn parse(text: &str, convention: Convention) -> Result<u64, SizeError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let not_a_size = || SizeError::NotASize {
        text: text.to_owned(),
        examples: convention.examples(),
    };
    let out_of_range = || SizeError::OutOfRange {
        text: text.to_owned(),
    };
    if number.is_empty() || number.matches('.').count() > 1 || number == "." {
        return Err(not_a_size());
    }
    let unit = unit.trim().to_ascii_lowercase();
    let multiplier = convention
        .multiplier(&unit)
        .ok_or_else(|| SizeError::UnknownUnit {
            text: text.to_owned(),
            unit,
        })?;
    // A whole number is computed exactly, so a count one past u64::MAX is out of range, not
    // rounded down to it by a float.
    if !number.contains('.') {
        let whole: u64 = number.parse().map_err(|_| out_of_range())?;
        return whole.checked_mul(multiplier).ok_or_else(out_of_range);
    }
    let value: f64 = number.parse().map_err(|_| not_a_size())?;
    let bytes = (value * multiplier as f64).round();
    // 2^64 itself is representable as an f64 and is already out of range.
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
        return Err(out_of_range());
    }
    Ok(bytes as u64)
}

/// A drive capacity ([`Convention::Vendor`]); a command line's `value_parser`.
pub fn parse_capacity(text: &str) -> Result<u64, SizeError> {
    parse(text, Convention::Vendor)
}

/// A test-file size ([`Convention::Fio`]); a command line's `value_parser`.
pub fn parse_file_size(text: &str) -> Result<u64, SizeError> {
    parse(text, Convention::Fio)
}

/// A byte count that prints in binary units with one decimal (`149.9 GiB`, `16.0 MiB`): the
/// precision a message about free space and reserves needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match scaled(self.0, 1024.0, &BINARY_UNITS) {
            None => write!(f, "{} B", self.0),
            Some((value, unit)) => write!(f, "{value:.1} {unit}"),
        }
    }
}

const BINARY_UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
const DECIMAL_UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];

/// `bytes` in the largest unit of `base` it reaches, or `None` below the first unit.
fn scaled(bytes: u64, base: f64, units: &[&'static str; 6]) -> Option<(f64, &'static str)> {
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= base && unit + 1 < units.len() {
        value /= base;
        unit += 1;
    }
    (unit > 0).then(|| (value, units[unit]))
}

/// Binary units for free space and spans in reports: `1.8 TiB`, `150 GiB` (whole from 100 up,
/// where a decimal adds nothing a reader uses).
pub fn binary(bytes: u64) -> String {
    match scaled(bytes, 1024.0, &BINARY_UNITS) {
        None => format!("{bytes} B"),
        Some((value, unit)) if value >= 100.0 => format!("{value:.0} {unit}"),
        Some((value, unit)) => format!("{value:.1} {unit}"),
    }
}

/// Limits that are powers of two, in the largest unit that divides them: `16 MiB`, `64 KiB`,
/// `100 B`.
pub fn binary_exact(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{} {unit}", bytes / size);
        }
    }
    format!("{bytes} B")
}

/// Decimal units as drive labels and client docs state sizes: `2 TB`, `250 GB`, `1.9 TB`.
pub fn decimal(bytes: u64) -> String {
    match scaled(bytes, 1000.0, &DECIMAL_UNITS) {
        None => format!("{bytes} B"),
        Some((value, unit)) if value >= 100.0 || (value - value.round()).abs() < 0.05 => {
            format!("{value:.0} {unit}")
        }
        Some((value, unit)) => format!("{value:.1} {unit}"),
    }
}

/// Decimal units without a space, for narrow table columns: `2TB`, `3.8TB`. Drives sold as
/// "250GB" hold 250.06 GB; within 1 % the round figure is the name.
pub fn decimal_compact(bytes: u64) -> String {
    match scaled(bytes, 1000.0, &DECIMAL_UNITS) {
        None => format!("{bytes}B"),
        Some((value, unit)) if (value - value.round()).abs() / value < 0.01 => {
            format!("{}{unit}", value.round())
        }
        Some((value, unit)) => format!("{value:.1}{unit}"),
    }
}
