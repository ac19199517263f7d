//! Human sizes in both directions: `2TB`, `1.5TiB`, `500G`, `4096` ⇄ bytes.
//!
//! Drive vendors sell decimal units (a "2TB" drive holds 2·10¹² bytes), so a bare `T`/`G`
//! is decimal too; binary units need the `i` (`TiB`, `Gi`). Test-file sizes (`--size`,
//! `--bench-size`) follow fio instead, where `150G` means GiB, so the community's fio command
//! and ours agree: those go through `bench::error::parse_size`.

/// Parses a size for the command line. Used as a clap `value_parser`, hence the `String` error.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    if number.is_empty() {
        return Err(format!(
            "`{text}` is not a size; try 2TB, 1.5TiB, 500G or a byte count"
        ));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{number}` in `{text}` is not a number"))?;
    let multiplier: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "p" | "pb" => 1e15,
        "ki" | "kib" => 1024.0,
        "mi" | "mib" => 1024f64.powi(2),
        "gi" | "gib" => 1024f64.powi(3),
        "ti" | "tib" => 1024f64.powi(4),
        "pi" | "pib" => 1024f64.powi(5),
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{text}`; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB"
            ))
        }
    };
    let bytes = (value * multiplier).round();
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("`{text}` is out of range"));
    }
    // Exact for every size a drive can have (< 2^53 bytes).
    Ok(bytes as u64)
}

/// Decimal size as vendors label drives: `2 TB`, `500 GB`, `960 GB`.
pub fn format_decimal(bytes: u64) -> String {
    let (value, unit) = scaled(bytes, 1000.0, ["B", "KB", "MB", "GB", "TB", "PB"]);
    if unit == "B" {
        format!("{bytes} B")
    } else if value >= 100.0 || (value - value.round()).abs() < 0.05 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// Binary size for free space and spans: `1.8 TiB`, `150 GiB`.
pub fn format_binary(bytes: u64) -> String {
    let (value, unit) = scaled(bytes, 1024.0, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]);
    if unit == "B" {
        format!("{bytes} B")
    } else if value >= 100.0 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// `bytes` in the largest unit (steps of `step`) that leaves a value of at least one.
fn scaled(bytes: u64, step: f64, units: [&'static str; 6]) -> (f64, &'static str) {
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= step && unit + 1 < units.len() {
        value /= step;
        unit += 1;
    }
    (value, units[unit])
}

/// Microseconds as a reader wants them: `85 µs`, `1.2 ms`.
pub fn format_latency_us(us: f64) -> String {
    if !us.is_finite() {
        "n/a".to_string()
    } else if us < 1000.0 {
        format!("{us:.0} µs")
    } else if us < 1_000_000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{:.1} s", us / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn vendor_and_binary_units() {
        assert_eq!(parse_size("2TB"), Ok(2_000_000_000_000));
        assert_eq!(parse_size("1.5TiB"), Ok(1_649_267_441_664));
        assert_eq!(parse_size("500G"), Ok(500_000_000_000));
        assert_eq!(parse_size("250 gb"), Ok(250_000_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("960GB"), Ok(960_000_000_000));
    }

    #[test]
    fn nonsense_is_rejected_with_a_reason() {
        for bad in ["", "TB", "2XB", "1.2.3G", "-1G", "1e999"] {
            assert!(parse_size(bad).is_err(), "{bad:?} must be rejected");
        }
    }

    #[test]
    fn formats_like_the_label() {
        assert_eq!(format_decimal(2_000_398_934_016), "2 TB");
        assert_eq!(format_decimal(250_059_350_016), "250 GB");
        assert_eq!(format_decimal(1_920_383_410_176), "1.9 TB");
        assert_eq!(format_binary(150 * 1024 * 1024 * 1024), "150 GiB");
        assert_eq!(format_latency_us(85.4), "85 µs");
        assert_eq!(format_latency_us(1234.0), "1.2 ms");
    }

    proptest! {
        #[test]
        fn never_panics(text in ".{0,40}") {
            let _ = parse_size(&text);
        }

        #[test]
        fn decimal_round_trip(gb in 1u64..100_000) {
            prop_assert_eq!(parse_size(&format!("{gb}GB")), Ok(gb * 1_000_000_000));
        }
    }
}
