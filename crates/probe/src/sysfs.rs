//! Parsers for the value formats sysfs writes. Each takes the trimmed attribute text and
//! returns `None` for anything that is not a well-formed, plausible value: the caller reports
//! unknown rather than a guess.

/// PCIe link speed in GT/s: `"8.0 GT/s PCIe"` (kernel >= 5.7), `"8 GT/s"` (older), `"2.5 GT/s"`.
/// `"Unknown speed"` / `"Unknown"` → `None`.
pub fn parse_link_speed_gts(text: &str) -> Option<f64> {
    let number = text.split_whitespace().next()?;
    let rest = text.get(number.len()..)?.trim_start();
    if !rest.starts_with("GT/s") {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    (value.is_finite() && value > 0.0 && value <= 1024.0).then_some(value)
}

/// PCIe link width in lanes (`"4"`; an `x` prefix is tolerated). 0 means unknown (some
/// virtual functions report it), as does anything above the 32 lanes the spec allows.
pub fn parse_link_width(text: &str) -> Option<u32> {
    let digits = text.trim().trim_start_matches(['x', 'X']);
    let value: u32 = digits.parse().ok()?;
    (1..=32).contains(&value).then_some(value)
}

/// SATA link speed from `ata_link/*/sata_spd` or `hw_sata_spd_limit`: `"6.0 Gbps"`.
/// `"<unknown>"` → `None`.
pub fn parse_sata_speed_gbps(text: &str) -> Option<f64> {
    let (number, unit) = text.trim().split_once(' ')?;
    if unit.trim() != "Gbps" {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    (value.is_finite() && value > 0.0 && value <= 100.0).then_some(value)
}

/// The active scheduler of `queue/scheduler`: the bracketed entry of
/// `"[mq-deadline] kyber bfq none"`; a lone `"none"` (no elevator possible) is itself.
pub fn parse_scheduler(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if let Some(active) = words
        .iter()
        .find(|word| word.len() > 2 && word.starts_with('[') && word.ends_with(']'))
    {
        return Some(active[1..active.len() - 1].to_string());
    }
    match words.as_slice() {
        [only] if !only.contains(['[', ']']) => Some((*only).to_string()),
        _ => None,
    }
}

/// A decimal unsigned integer attribute.
pub fn parse_u64(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

pub fn parse_u32(text: &str) -> Option<u32> {
    text.trim().parse().ok()
}

/// `0`/`1` flags (`queue/rotational`, `removable`).
pub fn parse_flag(text: &str) -> Option<bool> {
    match text.trim() {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

/// Hexadecimal attributes written as `0x%x` (`class`, `vendor`, `device`).
pub fn parse_hex_u32(text: &str) -> Option<u32> {
    let digits = text.trim().strip_prefix("0x")?;
    u32::from_str_radix(digits, 16).ok()
}

/// Block `size` attributes count 512-byte sectors whatever the logical block size.
pub fn sectors_to_bytes(text: &str) -> Option<u64> {
    parse_u64(text)?.checked_mul(512)
}

/// hwmon `temp*_input` in millidegrees Celsius. Values outside -60..=200 °C are sensor
/// errors (0xffff, -273 placeholders), not temperatures.
pub fn parse_millidegrees(text: &str) -> Option<f64> {
    let value: i64 = text.trim().parse().ok()?;
    let celsius = value as f64 / 1000.0;
    (-60.0..=200.0).contains(&celsius).then_some(celsius)
}

/// `dev` attributes and `/sys/dev/block` names: `"259:0"`.
pub fn parse_dev(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// USB `speed` in Mb/s: `"480"`, `"5000"`, `"10000"`; the 1.5 Mb/s low speed rounds down.
pub fn parse_usb_speed_mbps(text: &str) -> Option<u32> {
    let value: f64 = text.trim().parse().ok()?;
    (value.is_finite() && value > 0.0 && value <= 1_000_000.0).then_some(value as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `(text, expected)` case through `parse`, naming the text that failed.
    fn check<T: PartialEq + std::fmt::Debug>(
        parse: impl Fn(&str) -> Option<T>,
        cases: &[(&str, Option<T>)],
    ) {
        for (text, expected) in cases {
            assert_eq!(&parse(text), expected, "{text:?}");
        }
    }

    #[test]
    fn link_speeds_of_every_kernel_era() {
        check(
            parse_link_speed_gts,
            &[
                ("8.0 GT/s PCIe", Some(8.0)),
                ("16.0 GT/s PCIe", Some(16.0)),
                ("8 GT/s", Some(8.0)),
                ("2.5 GT/s", Some(2.5)),
                ("Unknown speed", None),
                ("Unknown", None),
                ("8.0", None),
                ("NaN GT/s", None),
            ],
        );
    }

    #[test]
    fn widths_sata_speeds_and_schedulers() {
        check(
            parse_link_width,
            &[("4", Some(4)), ("x2", Some(2)), ("0", None), ("255", None)],
        );
        check(
            parse_sata_speed_gbps,
            &[
                ("6.0 Gbps", Some(6.0)),
                ("1.5 Gbps", Some(1.5)),
                ("<unknown>", None),
            ],
        );
        check(
            parse_scheduler,
            &[
                ("[mq-deadline] kyber bfq none", Some("mq-deadline".into())),
                ("mq-deadline kyber [none]", Some("none".into())),
                ("none", Some("none".into())),
                ("mq-deadline none", None),
                ("[]", None),
            ],
        );
    }

    #[test]
    fn numbers_sizes_and_temperatures() {
        check(
            sectors_to_bytes,
            &[
                ("3907029168", Some(2_000_398_934_016)),
                ("18446744073709551615", None),
            ],
        );
        check(
            parse_hex_u32,
            &[("0x010601", Some(0x010601)), ("010601", None)],
        );
        check(
            parse_millidegrees,
            &[("41850", Some(41.85)), ("65535000", None)],
        );
        check(parse_dev, &[("259:0", Some((259, 0))), ("259", None)]);
        check(parse_flag, &[("1", Some(true)), ("2", None)]);
        check(
            parse_usb_speed_mbps,
            &[("5000", Some(5000)), ("1.5", Some(1))],
        );
    }
}
