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

    fn multiplier(self, unit: &str) -> Option<f64> {
        const KI: f64 = 1024.0;
        let binary = |power: i32| Some(KI.powi(power));
        let power = match unit {
            "" | "b" => return Some(1.0),
            "k" | "kb" | "ki" | "kib" => 1,
            "m" | "mb" | "mi" | "mib" => 2,
            "g" | "gb" | "gi" | "gib" => 3,
            "t" | "tb" | "ti" | "tib" => 4,
            "p" | "pb" | "pi" | "pib" => 5,
            _ => return None,
        };
        match self {
            Convention::Fio => binary(power),
            Convention::Vendor if unit.contains('i') => binary(power),
            Convention::Vendor => Some(1000f64.powi(power)),
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
    let value: f64 = number.parse().map_err(|_| SizeError::NotASize {
        text: text.to_owned(),
        examples: convention.examples(),
    })?;
    let unit = unit.trim().to_ascii_lowercase();
    let multiplier = convention
        .multiplier(&unit)
        .ok_or_else(|| SizeError::UnknownUnit {
            text: text.to_owned(),
            unit,
        })?;
    let bytes = (value * multiplier).round();
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(SizeError::OutOfRange {
            text: text.to_owned(),
        });
    }
    // Exact for every size a drive or a test file can have (< 2^53 bytes).
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vendor(text: &str) -> Result<u64, SizeError> {
        parse(text, Convention::Vendor)
    }

    fn fio(text: &str) -> Result<u64, SizeError> {
        parse(text, Convention::Fio)
    }

    #[test]
    fn vendor_sizes_are_decimal_unless_binary_is_spelled_out() {
        assert_eq!(vendor("2TB"), Ok(2_000_000_000_000));
        assert_eq!(vendor("1.5TiB"), Ok(1_649_267_441_664));
        assert_eq!(vendor("500G"), Ok(500_000_000_000));
        assert_eq!(vendor("250 gb"), Ok(250_000_000_000));
        assert_eq!(vendor("4096"), Ok(4096));
        assert_eq!(vendor("960GB"), Ok(960_000_000_000));
    }

    #[test]
    fn fio_sizes_are_binary_whatever_the_spelling() {
        assert_eq!(fio("256M"), Ok(256 << 20));
        assert_eq!(fio("150G"), Ok(150 << 30));
        assert_eq!(fio("150GB"), Ok(150 << 30));
        assert_eq!(fio("1.5GiB"), Ok(3 << 29));
        assert_eq!(fio("4096"), Ok(4096));
    }

    #[test]
    fn nonsense_is_rejected_with_a_reason() {
        for bad in [
            "",
            "TB",
            "G",
            "2XB",
            "12Q",
            "1.2.3G",
            "-1G",
            "1e999",
            "99999999999999999999999T",
        ] {
            for convention in [Convention::Vendor, Convention::Fio] {
                let err = parse(bad, convention).expect_err(bad);
                assert!(err.to_string().contains('`'), "{bad:?}: {err}");
            }
        }
        assert!(matches!(fio("12Q"), Err(SizeError::UnknownUnit { .. })));
        assert!(fio("").unwrap_err().to_string().contains("150G"));
    }

    #[test]
    fn messages_print_one_binary_decimal() {
        assert_eq!(ByteSize(512).to_string(), "512 B");
        assert_eq!(ByteSize(150 << 30).to_string(), "150.0 GiB");
        assert_eq!(ByteSize(3 << 29).to_string(), "1.5 GiB");
        assert_eq!(ByteSize(16 << 20).to_string(), "16.0 MiB");
    }

    #[test]
    fn reports_print_binary_whole_from_a_hundred() {
        assert_eq!(binary(150 << 30), "150 GiB");
        assert_eq!(binary(3 << 29), "1.5 GiB");
        assert_eq!(binary(1000), "1000 B");
    }

    #[test]
    fn caps_print_in_the_unit_that_divides_them() {
        assert_eq!(binary_exact(16 << 20), "16 MiB");
        assert_eq!(binary_exact(64 << 10), "64 KiB");
        assert_eq!(binary_exact(4096), "4 KiB");
        assert_eq!(binary_exact(100), "100 B");
        assert_eq!(binary_exact((1 << 20) + 1), "1048577 B");
    }

    #[test]
    fn capacities_print_like_the_label() {
        assert_eq!(decimal(2_000_398_934_016), "2 TB");
        assert_eq!(decimal(250_059_350_016), "250 GB");
        assert_eq!(decimal(1_920_383_410_176), "1.9 TB");
        assert_eq!(decimal(1_200_000_000_000), "1.2 TB");
        assert_eq!(decimal(120_034_123_776), "120 GB");
        assert_eq!(decimal(512), "512 B");
        assert_eq!(decimal(2_000_000_000_000_000), "2 PB");
        assert_eq!(decimal_compact(2_000_398_934_016), "2TB");
        assert_eq!(decimal_compact(3_840_000_000_000), "3.8TB");
        assert_eq!(decimal_compact(250_059_350_016), "250GB");
        assert_eq!(decimal_compact(512), "512B");
    }

    proptest! {
        #[test]
        fn parsing_never_panics(text in "\\PC{0,40}") {
            let _ = vendor(&text);
            let _ = fio(&text);
        }

        #[test]
        fn whole_fio_sizes_round_trip(value in 0u64..1_000_000, unit in 0usize..5) {
            let suffix = ["", "K", "M", "G", "T"][unit];
            prop_assert_eq!(fio(&format!("{value}{suffix}")), Ok(value << (10 * unit as u32)));
        }

        #[test]
        fn decimal_capacities_round_trip(gb in 1u64..100_000) {
            prop_assert_eq!(vendor(&format!("{gb}GB")), Ok(gb * 1_000_000_000));
            let bytes = gb * 1_000_000_000;
            let printed = decimal(bytes);
            let parsed = vendor(&printed).expect("a printed capacity parses");
            // One decimal below 100 of a unit, whole above: at most 5 % off.
            prop_assert!(parsed.abs_diff(bytes) * 20 <= bytes, "{bytes} → {printed} → {parsed}");
        }

        #[test]
        fn printed_messages_parse_back_within_their_precision(bytes in 0u64..(1 << 50)) {
            let printed = ByteSize(bytes).to_string();
            let parsed = fio(&printed.replace(' ', "")).expect("a printed size parses");
            let unit = [1u64 << 10, 1 << 20, 1 << 30, 1 << 40, 1 << 50]
                .into_iter()
                .rev()
                .find(|u| bytes >= *u)
                .unwrap_or(1);
            prop_assert!(parsed.abs_diff(bytes) <= unit / 20 + 1, "{bytes} → {printed} → {parsed}");
        }
    }
}
