//! A report to paste into a GitHub issue or a forum post: the verdict, the machine's storage
//! facts, measurements, every finding with its fix, and the full JSON folded away for the
//! volunteer who wants to re-run `nodecheck triage` on it.

use std::path::Path;

use bench::BenchReport;
use verdict::Severity;

use super::{clip, printable, text};
use crate::report::{grade_word, Report};

pub fn render(report: &Report) -> String {
    let facts = &report.facts;
    let mut out = String::new();
    out.push_str(&format!(
        "## nodecheck: **{}**\n\n{}\n\n",
        grade_word(report.grade),
        item(&clip(&report.summary, 300))
    ));
    out.push_str("| | |\n|---|---|\n");
    out.push_str(&format!("| Path | `{}` |\n", code(&facts.path, 120)));
    out.push_str(&format!("| Mount | {} |\n", cell(&text::mount(facts), 200)));
    out.push_str(&format!(
        "| Stack | `{}` |\n",
        code(&text::stack(facts), 200)
    ));
    if let Some(platform) = text::platform(facts) {
        out.push_str(&format!("| Platform | {} |\n", cell(&platform, 100)));
    }
    out.push_str(&format!(
        "| Judged for | {} |\n",
        cell(&report.client.story, 200)
    ));
    out.push_str(&format!(
        "| nodecheck | {} (database {}){} |\n\n",
        cell(&report.nodecheck_version, 20),
        cell(&report.database_version, 30),
        if facts.live { "" } else { ", replayed" }
    ));

    if !facts.drives.is_empty() {
        out.push_str(
            "### Drives\n\n| Drive | Model | Firmware | Serial | Size | Bus | Temp | DB grade | Verdict |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for drive in &facts.drives {
            let graded = report.drives.iter().find(|g| g.drive == drive.name);
            let database_grade = graded.map_or("-", |g| g.database_grade.as_str());
            let verdict = graded.map_or("-", |g| g.verdict.as_str());
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                cell(&drive.name, 16),
                cell(&text::model(drive, 60), 60),
                cell(&text::firmware(drive), 16),
                cell(drive.serial.as_deref().unwrap_or("unknown"), 40),
                text::capacity(drive),
                text::interface(drive.interface),
                text::temperature(drive),
                database_grade,
                verdict,
            ));
        }
        out.push('\n');
    }

    if let Some(bench) = &report.bench {
        out.push_str("### Measurements\n\n");
        measurements(bench, &mut out);
    }

    if let (Some(plot), Some(bench)) = (&report.plot, &report.bench) {
        out.push_str(&plot_section(plot, bench));
    }

    out.push_str("### Findings\n\n");
    let mut any = false;
    for f in report.findings.iter().filter(|f| f.severity > Severity::Ok) {
        any = true;
        let subject = f
            .subject
            .as_deref()
            .map(|s| format!(" ({})", item(&clip(s, 20))))
            .unwrap_or_default();
        out.push_str(&format!(
            "- {} **{}** {}{}: {}\n",
            marker(f.severity),
            item(&clip(f.code.as_str(), 8)),
            item(&clip(&f.title, 200)),
            subject,
            item(&clip(&f.detail, 600))
        ));
        if let Some(fix) = &f.fix {
            out.push_str(&format!("  - Fix: {}\n", item(fix)));
        }
    }
    if !any {
        out.push_str("No problems found.\n");
    }
    let passed: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Ok)
        .map(|f| {
            format!(
                "{} {}",
                item(&clip(f.code.as_str(), 8)),
                item(&clip(&f.title, 80))
            )
        })
        .collect();
    if !passed.is_empty() {
        out.push_str(&format!("\nPassed: {}\n", passed.join("; ")));
    }
    for note in &report.notes {
        out.push_str(&format!("\n> {}\n", item(note)));
    }

    // The full document lets a volunteer run `nodecheck triage` on the paste.
    let json = super::json::render(&without_plot_samples(report));
    out.push_str(
        "\n<details><summary>Full report (JSON, for <code>nodecheck triage</code>)</summary>\n\n```json\n",
    );
    out.push_str(&json.replace("```", "'''"));
    out.push_str("```\n\n</details>\n");
    out
}

/// `nodecheck bench --format markdown`: the measurements and the plot link for a post, with the
/// bench's JSON folded away like the check report's.
pub fn render_bench(bench: &BenchReport, plot: Option<&str>) -> String {
    let mut out = format!(
        "## nodecheck bench `{}` ({} {})\n\n",
        code(&bench.path, 120).replace("\\|", "|"),
        item(&format!("nodecheck {}", env!("CARGO_PKG_VERSION"))),
        bench.engine.name(),
    );
    measurements(bench, &mut out);
    if let Some(plot) = plot {
        out.push_str(&plot_section(plot, bench));
    }
    let mut compact = bench.clone();
    drop_plot_samples(&mut compact);
    let json = serde_json::to_string_pretty(&compact).unwrap_or_default();
    out.push_str("<details><summary>Full result (JSON)</summary>\n\n```json\n");
    out.push_str(&json.replace("```", "'''"));
    out.push_str("\n```\n\n</details>\n");
    out
}

/// One list item per test that ran, then the bench's warnings.
fn measurements(bench: &BenchReport, out: &mut String) {
    for line in text::measurements(bench) {
        out.push_str(&format!("- {}\n", item(&clip(&line, 400))));
    }
    for warning in &bench.warnings {
        out.push_str(&format!("- note: {}\n", item(warning)));
    }
    out.push('\n');
}

fn drop_plot_samples(bench: &mut BenchReport) {
    if let Some(sync) = bench.sync.as_mut() {
        sync.samples.clear();
    }
    if let Some(cliff) = bench.cliff.as_mut() {
        cliff.samples.clear();
    }
}

/// The report without the behaviour tests' plot samples: thousands of points that the plot
/// shows better, which would push the paste past a GitHub comment's 65,536 characters, and
/// which `nodecheck triage` does not need (the summaries are kept).
fn without_plot_samples(report: &Report) -> Report {
    let mut compact = report.clone();
    if let Some(bench) = compact.bench.as_mut() {
        drop_plot_samples(bench);
    }
    compact
}

/// A link to the plot by its file name, relative to the report: the report and the plot are
/// meant to travel together (attached to the same issue or saved side by side).
fn plot_section(plot: &str, bench: &BenchReport) -> String {
    let name = Path::new(plot)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| plot.to_string());
    format!(
        "### Plot\n\n[{}]({}): {}.\n\n",
        item(&clip(&name, 120).replace(['[', ']'], "")),
        link_target(&name),
        text::plot_caption(bench)
    )
}

/// A link destination: everything but unreserved URL characters percent-encoded, so spaces,
/// parentheses and brackets in a file name cannot end the link early.
fn link_target(name: &str) -> String {
    let mut out = String::new();
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn marker(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "🔴",
        Severity::Warning => "🟡",
        Severity::Info => "🔵",
        Severity::Ok => "✅",
    }
}

/// Text safe inside a table cell: one line, clipped, Markdown's punctuation escaped and pipes
/// escaped even inside code spans (GFM splits cells before it sees code spans).
fn cell(value: &str, max: usize) -> String {
    // Cut first: hostile facts can be megabytes long.
    inline_markdown(&clip(value, max), true)
}

/// Text for a list item or a quote: one line, never clipped (a fix must stay whole), with
/// code spans kept byte for byte so that a pasted command is the command.
fn item(value: &str) -> String {
    inline_markdown(value, false)
}

/// `value` on one line as inline Markdown that renders to exactly its text: punctuation that
/// Markdown would read as emphasis, links, HTML or table cells is backslash-escaped outside
/// code spans, where escapes work; inside a code span nothing is escaped, because there a
/// backslash stays literal (`du ... \| sort` would paste the backslash), except a pipe in a
/// table, which GFM requires.
pub(crate) fn inline_markdown(value: &str, in_table: bool) -> String {
    let flat = printable(&value.replace(['\n', '\r'], " "));
    let pieces: Vec<&str> = flat.split('`').collect();
    // An odd piece count means every backtick pairs up; otherwise the last one is literal.
    let paired = if pieces.len() % 2 == 1 {
        pieces.len()
    } else {
        pieces.len() - 1
    };
    let mut out = String::with_capacity(flat.len() + 16);
    for (index, piece) in pieces.iter().enumerate() {
        let is_code = index % 2 == 1 && index < paired;
        if is_code && !piece.trim().is_empty() {
            out.push('`');
            if in_table {
                out.push_str(&piece.replace('|', "\\|"));
            } else {
                out.push_str(piece);
            }
            out.push('`');
        } else {
            if index > 0 && !is_code && index % 2 == 1 {
                out.push_str("\\`");
            } else if is_code {
                // An empty pair of backticks would open a longer code span.
                out.push_str("\\`");
            }
            escape_text(
                &super::without_mentions(piece, super::MentionRules::GitHub),
                &mut out,
            );
            if is_code {
                out.push_str("\\`");
            }
        }
    }
    out
}

fn escape_text(text: &str, out: &mut String) {
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '#' | '!' | '&'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Text inside backticks in a table cell: no backticks of its own, pipes escaped for GFM, and
/// nothing else escaped (a backslash in a code span is literal).
fn code(value: &str, max: usize) -> String {
    printable(&clip(value, max).replace(['\n', '\r'], " "))
        .replace('`', "'")
        .replace('|', "\\|")
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use bench::behaviour::{SpanPoint, SpanResult};
    use bench::{EngineKind, LatencySummary};

    /// A bench report with only a span result, for the render tests.
    pub(in crate::render) fn span_only() -> BenchReport {
        BenchReport {
            span: Some(SpanResult {
                engine: EngineKind::Mock,
                runtime_s: 1.0,
                points: vec![SpanPoint {
                    span_bytes: 1 << 30,
                    ios: 100,
                    lat_us: LatencySummary::default(),
                }],
                latency_ratio: 1.0,
                p99_ratio: 1.0,
            }),
            ..BenchReport::new("/data", EngineKind::Mock, None)
        }
    }

    #[test]
    fn the_plot_is_linked_by_its_file_name_with_a_caption() {
        let section = plot_section("/home/op/reports/node 1 (sync).svg", &span_only());
        assert_eq!(
            section,
            "### Plot\n\n[node 1 (sync).svg](node%201%20%28sync%29.svg): \
             QD1 read latency over the span test's growing spans.\n\n"
        );
        assert!(!section.contains("/home"), "{section}");
    }

    #[test]
    fn a_bench_report_renders_alone_with_its_plot() {
        let text = render_bench(&span_only(), Some("span.svg"));
        assert!(text.starts_with("## nodecheck bench `/data` ("), "{text}");
        assert!(
            text.contains("\n- span: QD1 read latency over 1.0 GiB to 1.0 GiB: mean 1.00x"),
            "{text}"
        );
        assert!(
            text.contains("### Plot\n\n[span.svg](span.svg): "),
            "{text}"
        );
        let start = text.find("```json\n").expect("folded JSON") + 8;
        let end = start + text[start..].find("```").expect("closed");
        let back: BenchReport = serde_json::from_str(&text[start..end]).expect("the bench JSON");
        assert_eq!(back, span_only());
    }

    #[test]
    fn link_targets_cannot_break_out_of_the_link() {
        assert_eq!(link_target("a](x).svg"), "a%5D%28x%29.svg");
        assert_eq!(link_target("ü.svg"), "%C3%BC.svg");
    }
}
