//! Latencies, measured in microseconds everywhere in nodecheck (reports carry `lat_us`).

/// The symbol of the unit latencies are measured in, for column headers and labels.
pub const MICROSECONDS: &str = "µs";

/// Microseconds as a reader wants them: `85 µs`, `1.2 ms`, `2.5 s`; `n/a` for a figure that
/// was not measured (NaN).
pub fn format_us(us: f64) -> String {
    if !us.is_finite() {
        "n/a".to_owned()
    } else if us < 1000.0 {
        format!("{us:.0} {MICROSECONDS}")
    } else if us < 1_000_000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{:.1} s", us / 1e6)
    }
}
