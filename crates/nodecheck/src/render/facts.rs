//! The probe's facts (`nodecheck probe`): a table of the path and its mount, one per drive,
//! or the facts document as JSON.

use comfy_table::Table;
use probe::{Drive, Facts};

use super::table::new_table;
use super::{clip, json, printable, text, Document, Format, RenderOptions};
use units::size::decimal as format_decimal;

impl Document for Facts {
    const FORMATS: &'static [Format] = &[Format::Table, Format::Json];

    fn draw(&self, format: Format, options: &RenderOptions) -> Option<String> {
        match format {
            Format::Table => Some(render_facts(self, options)),
            Format::Json => Some(json::render(self)),
            Format::Markdown | Format::Discord | Format::Prometheus => None,
        }
    }
}

/// A layer's `discard_max_bytes` in words: whether TRIM passes it, and how much per request.
fn discard_text(max_bytes: Option<u64>) -> String {
    match max_bytes {
        Some(0) => "drops TRIM (discard stops here)".to_string(),
        Some(bytes) => format!(
            "passes TRIM, up to {} per request",
            units::size::binary(bytes)
        ),
        None => "discard not known".to_string(),
    }
}

/// The facts as tables: the path and its mount, then one table per drive.
fn render_facts(facts: &Facts, options: &RenderOptions) -> String {
    let mut out = String::new();
    let mut overview = new_table(options);
    overview.set_header(["Fact", "Value"]);
    overview.add_row(["path".to_string(), printable(&clip(&facts.path, 120))]);
    overview.add_row(["mount".to_string(), text::mount(facts)]);
    if let Some(m) = &facts.mount {
        overview.add_row(["source".to_string(), printable(&clip(&m.source, 120))]);
    }
    overview.add_row(["stack".to_string(), text::stack(facts)]);
    overview.add_row([
        "TRIM through the stack".to_string(),
        yes_no(facts.trim_effective),
    ]);
    overview.add_row(["fstrim.timer".to_string(), yes_no(facts.fstrim_timer)]);
    overview.add_row([
        "platform".to_string(),
        text::platform(facts).unwrap_or_else(|| match facts.platform.virtualized {
            // What `check` calls it; "unknown" read as though nothing were known.
            Some(true) => "a virtual machine (DMI names no vendor or product)".into(),
            _ => "unknown".into(),
        }),
    ]);
    let uring = match (facts.io_uring.available, &facts.io_uring.reason) {
        (Some(true), _) => "available".to_string(),
        (Some(false), Some(reason)) => format!("blocked: {}", printable(&clip(reason, 100))),
        (Some(false), None) => "blocked".to_string(),
        (None, _) => "unknown".to_string(),
    };
    overview.add_row(["io_uring".to_string(), uring]);
    for layer in &facts.layers {
        overview.add_row([
            format!("layer {}", layer.depth),
            format!(
                "{} ({}{}), {}",
                printable(&clip(&layer.name, 24)),
                json_name(&layer.kind),
                layer
                    .detail
                    .as_deref()
                    .map(|d| format!(", {}", printable(&clip(d, 40))))
                    .unwrap_or_default(),
                discard_text(layer.discard_max_bytes)
            ),
        ]);
    }
    for u in &facts.unresolved {
        overview.add_row(["unresolved".to_string(), printable(&clip(u, 120))]);
    }
    for u in &facts.unavailable {
        overview.add_row([
            "unavailable".to_string(),
            format!(
                "{} ({})",
                printable(&clip(&u.fact, 60)),
                printable(&clip(&u.reason, 60))
            ),
        ]);
    }
    for w in &facts.warnings {
        overview.add_row(["warning".to_string(), printable(&clip(w, 200))]);
    }
    out.push_str(&overview.to_string());
    out.push('\n');
    for drive in &facts.drives {
        out.push_str(&drive_table(drive, options).to_string());
        out.push('\n');
    }
    out
}

fn drive_table(drive: &Drive, options: &RenderOptions) -> Table {
    let mut table = new_table(options);
    table.set_header([printable(&clip(&drive.name, 24)), String::new()]);
    let opt = |v: &Option<String>| {
        v.as_deref()
            .map(|s| printable(&clip(s, 100)))
            .unwrap_or_else(|| "unknown".into())
    };
    let rows: Vec<(&str, String)> = vec![
        ("model", text::model(drive, 100)),
        ("firmware", text::firmware(drive)),
        ("serial", opt(&drive.serial)),
        ("family", opt(&drive.model_family)),
        (
            "capacity",
            drive
                .capacity_bytes
                .map(|b| format!("{} ({b} bytes)", format_decimal(b)))
                .unwrap_or_else(|| "unknown".into()),
        ),
        ("interface", text::interface(drive.interface).to_string()),
        ("rotational", yes_no(drive.rotational)),
        ("temperature", text::temperature(drive)),
        ("TRIM supported", yes_no(drive.trim_supported)),
        (
            "controller",
            match (&drive.controller_mode, &drive.controller_driver) {
                (Some(mode), Some(driver)) => {
                    format!("{} ({})", json_name(mode), printable(&clip(driver, 30)))
                }
                (Some(mode), None) => json_name(mode),
                (None, Some(driver)) => printable(&clip(driver, 30)),
                (None, None) => "unknown".into(),
            },
        ),
        (
            "SATA link",
            match (drive.sata_link_gbps, drive.sata_link_max_gbps) {
                (Some(cur), Some(max)) => format!("{cur} Gb/s of {max} Gb/s"),
                (Some(cur), None) => format!("{cur} Gb/s"),
                _ => "n/a".into(),
            },
        ),
        (
            "PCIe link",
            drive
                .pcie_link
                .map(|l| {
                    format!(
                        "{} GT/s x{} of {} GT/s x{}",
                        or_unknown(l.current_gts),
                        or_unknown(l.current_width),
                        or_unknown(l.max_gts),
                        or_unknown(l.max_width),
                    )
                })
                .unwrap_or_else(|| "n/a".into()),
        ),
        ("HMB (DRAM-less hint)", yes_no(drive.hmb)),
        ("scheduler", opt(&drive.scheduler)),
        ("write cache", opt(&drive.write_cache)),
    ];
    for (key, value) in rows {
        table.add_row([key.to_string(), value]);
    }
    if let Some(h) = &drive.health {
        let parts: Vec<String> = [
            h.passed
                .map(|p| format!("SMART {}", if p { "passed" } else { "FAILED" })),
            h.percentage_used.map(|u| format!("{u}% used")),
            h.available_spare_pct.map(|s| format!("{s}% spare")),
            h.media_errors.map(|m| format!("{m} media errors")),
            h.power_on_hours.map(|hours| format!("{hours} h on")),
        ]
        .into_iter()
        .flatten()
        .collect();
        table.add_row([
            "health".to_string(),
            if parts.is_empty() {
                "no data".into()
            } else {
                parts.join(", ")
            },
        ]);
    }
    table
}

/// The name a value has in the JSON document (`lvm`, `ahci`), so the table and `--json` agree.
fn json_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "unknown".into(),
    }
}

/// A part of a link's speed or width, `?` when sysfs did not say.
fn or_unknown<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "?".to_string(), |v| v.to_string())
}

fn yes_no(value: Option<bool>) -> String {
    match value {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `probe` says what `check` says about the platform, and discard in words, not the raw
    /// sysfs number.
    #[test]
    fn platform_and_discard_read_as_words() {
        let mut facts = Facts::default();
        facts.platform.virtualized = Some(true);
        facts.layers.push(probe::Layer {
            name: "vda".into(),
            kind: probe::LayerKind::Disk,
            detail: None,
            depth: 0,
            lower: Vec::new(),
            discard_max_bytes: Some(1 << 30),
            dm_table: Vec::new(),
        });
        let text = render_facts(&facts, &RenderOptions::default());
        // Cells wrap at 80 columns.
        let text = text
            .replace(['│', '┆'], " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            text.contains("a virtual machine (DMI names no vendor or product)"),
            "{text}"
        );
        assert!(
            text.contains("passes TRIM, up to 1.0 GiB per request"),
            "{text}"
        );
        assert!(!text.contains("discard_max_bytes"), "{text}");
        assert_eq!(discard_text(Some(0)), "drops TRIM (discard stops here)");
    }
}
