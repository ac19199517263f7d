//! node_exporter textfile-collector format: write it to `*.prom` in the collector's directory
//! (atomically: to a temporary name, then `mv`) and fleets graph and alert on it.
//!
//! Grades are numbers ordered like [`verdict::Grade`]: 0 good, 1 unknown, 2 ugly, 3 bad.

use std::fmt::Write as _;

use verdict::Severity;

use crate::report::{grade_number, Report};

pub fn render(report: &Report) -> String {
    let facts = &report.facts;
    let mut out = Metrics::default();
    let path = [("path", facts.path.as_str())];

    out.family(
        "nodecheck_info",
        "gauge",
        "Versions of nodecheck and its drive database; always 1.",
    );
    out.sample(
        "nodecheck_info",
        &[
            ("version", &report.nodecheck_version),
            ("database_version", &report.database_version),
        ],
        1.0,
    );

    out.path_gauge(
        "nodecheck_grade",
        "Overall verdict for the path: 0 good, 1 unknown, 2 ugly, 3 bad.",
        &facts.path,
        Some(f64::from(grade_number(report.grade))),
    );

    out.drive_gauge(
        "nodecheck_drive_verdict",
        "The drive's verdict on this machine (the database's grade made worse by what was found about the drive here): 0 good, 1 unknown, 2 ugly, 3 bad.",
        report.drives.iter().map(|g| {
            let grade = f64::from(grade_number(g.verdict));
            (g.drive.as_str(), g.model.as_deref(), grade)
        }),
    );
    out.drive_gauge(
        "nodecheck_drive_database_grade",
        "The drive database's grade of the drive's model, firmware and capacity: 0 good, 1 unknown, 2 ugly, 3 bad.",
        report.drives.iter().map(|g| {
            let grade = f64::from(grade_number(g.database_grade));
            (g.drive.as_str(), g.model.as_deref(), grade)
        }),
    );
    out.drive_gauge(
        "nodecheck_drive_temperature_celsius",
        "Drive temperature in degrees Celsius.",
        facts.drives.iter().filter_map(|d| {
            let celsius = d.temperature_c.filter(|t| t.is_finite())?;
            Some((d.name.as_str(), d.model.as_deref(), celsius))
        }),
    );

    if let Some(m) = &facts.mount {
        out.path_gauge(
            "nodecheck_filesystem_free_bytes",
            "Free bytes on the file system holding the path.",
            &facts.path,
            m.free_bytes.map(|free| free as f64),
        );
        out.path_gauge(
            "nodecheck_filesystem_size_bytes",
            "Size in bytes of the file system holding the path.",
            &facts.path,
            m.total_bytes.map(|total| total as f64),
        );
    }

    if let Some(q) = report.bench.as_ref().and_then(|b| b.qd1.as_ref()) {
        let name = "nodecheck_qd1_read_latency_seconds";
        out.family(name, "summary", "QD1 4 KiB random-read latency.");
        for (quantile, us) in [
            ("0.5", q.lat_us.p50),
            ("0.9", q.lat_us.p90),
            ("0.99", q.lat_us.p99),
            ("0.999", q.lat_us.p999),
            ("1", q.lat_us.max),
        ] {
            out.sample(
                name,
                &[("path", &facts.path), ("quantile", quantile)],
                us / 1e6,
            );
        }
        out.sample(
            &format!("{name}_sum"),
            &path,
            q.lat_us.mean / 1e6 * q.ios as f64,
        );
        out.sample(&format!("{name}_count"), &path, q.ios as f64);
    }

    if let Some(r) = report.bench.as_ref().and_then(|b| b.randrw.as_ref()) {
        out.family(
            "nodecheck_randrw_iops",
            "gauge",
            "IOPS of the 4 KiB randrw 75/25 QD64 test.",
        );
        let comparable = if r.fio_comparable { "true" } else { "false" };
        for (op, iops) in [("read", r.read_iops), ("write", r.write_iops)] {
            out.sample(
                "nodecheck_randrw_iops",
                &[
                    ("path", &facts.path),
                    ("op", op),
                    ("fio_comparable", comparable),
                ],
                iops,
            );
        }
    }

    out.family(
        "nodecheck_findings",
        "gauge",
        "Number of findings by severity.",
    );
    for severity in [
        Severity::Critical,
        Severity::Warning,
        Severity::Info,
        Severity::Ok,
    ] {
        let count = report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .count();
        out.sample(
            "nodecheck_findings",
            &[("path", &facts.path), ("severity", severity.as_str())],
            count as f64,
        );
    }

    out.family(
        "nodecheck_finding",
        "gauge",
        "One series per finding above ok, labelled with its code; always 1.",
    );
    for f in report.findings.iter().filter(|f| f.severity > Severity::Ok) {
        out.sample(
            "nodecheck_finding",
            &[
                ("path", &facts.path),
                ("code", f.code.as_str()),
                ("severity", f.severity.as_str()),
                ("subject", f.subject.as_deref().unwrap_or("")),
            ],
            1.0,
        );
    }
    out.text
}

#[derive(Default)]
struct Metrics {
    text: String,
}

impl Metrics {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.text, "# HELP {name} {help}");
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (key, value)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{key}=\"{}\"", escape_label(value));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {}", format_value(value));
    }

    /// A gauge about the checked path; without a sample when the value is unknown.
    fn path_gauge(&mut self, name: &str, help: &str, path: &str, value: Option<f64>) {
        self.family(name, "gauge", help);
        if let Some(value) = value {
            self.sample(name, &[("path", path)], value);
        }
    }

    /// A gauge with one sample per drive, labelled with its name and model (empty when
    /// unknown), so every per-drive series joins on the same labels.
    fn drive_gauge<'a>(
        &mut self,
        name: &str,
        help: &str,
        samples: impl Iterator<Item = (&'a str, Option<&'a str>, f64)>,
    ) {
        self.family(name, "gauge", help);
        for (drive, model, value) in samples {
            self.sample(
                name,
                &[("drive", drive), ("model", model.unwrap_or(""))],
                value,
            );
        }
    }
}

/// The exposition format escapes backslash, double quote and line feed in label values.
/// Hostile strings are also cut, so one bad model string cannot bloat every series.
pub(crate) fn escape_label(value: &str) -> String {
    let clipped = super::clip(value, 128);
    let mut out = String::with_capacity(clipped.len());
    for c in clipped.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if super::is_hidden_or_control(c) => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn format_value(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn values_in_exposition_syntax() {
        assert_eq!(format_value(3.0), "3");
        assert_eq!(format_value(0.000085), "0.000085");
        assert_eq!(format_value(f64::INFINITY), "+Inf");
    }
}
