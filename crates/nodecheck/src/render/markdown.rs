//! A report to paste into a GitHub issue or a forum post: the verdict, the machine's storage
//! facts, measurements, every finding with its fix, and the full JSON folded away for the
//! volunteer who wants to re-run `nodecheck triage` on it.

use verdict::Severity;

use super::{clip, printable, text};
use crate::report::{grade_word, Report};

pub fn render(report: &Report) -> String {
    let facts = &report.facts;
    let mut out = String::new();
    out.push_str(&format!(
        "## nodecheck: **{}**\n\n{}\n\n",
        grade_word(report.grade),
        cell(&report.summary, 300)
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
    let client = match (&report.client.requested, &report.client.fails_first) {
        (Some(c), _) => cell(c, 20),
        (None, Some(first)) => format!("strictest of all five (fails {} first)", cell(first, 20)),
        (None, None) => "strictest of all five".to_string(),
    };
    out.push_str(&format!("| Client needs | {client} |\n"));
    out.push_str(&format!(
        "| nodecheck | {} (database {}){} |\n\n",
        cell(&report.nodecheck_version, 20),
        cell(&report.database_version, 30),
        if facts.live { "" } else { ", replayed" }
    ));

    if !facts.drives.is_empty() {
        out.push_str(
            "### Drives\n\n| Drive | Model | Firmware | Serial | Size | Bus | Temp | Grade |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for drive in &facts.drives {
            let grade = report
                .drives
                .iter()
                .find(|g| g.drive == drive.name)
                .map(|g| g.grade.as_str())
                .unwrap_or("-");
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                cell(&drive.name, 16),
                cell(&text::model(drive, 60), 60),
                cell(&text::firmware(drive), 16),
                cell(drive.serial.as_deref().unwrap_or("unknown"), 40),
                text::capacity(drive),
                text::interface(drive.interface),
                text::temperature(drive),
                grade,
            ));
        }
        out.push('\n');
    }

    if let Some(bench) = &report.bench {
        out.push_str("### Measurements\n\n");
        for line in [text::qd1(bench), text::randrw(bench)]
            .into_iter()
            .flatten()
        {
            out.push_str(&format!("- {}\n", cell(&line, 300)));
        }
        for warning in &bench.warnings {
            out.push_str(&format!("- note: {}\n", cell(warning, 200)));
        }
        out.push('\n');
    }

    out.push_str("### Findings\n\n");
    let mut any = false;
    for f in report.findings.iter().filter(|f| f.severity > Severity::Ok) {
        any = true;
        let subject = f
            .subject
            .as_deref()
            .map(|s| format!(" ({})", cell(s, 20)))
            .unwrap_or_default();
        out.push_str(&format!(
            "- {} **{}** {}{}: {}\n",
            marker(f.severity),
            cell(&f.code, 8),
            cell(&f.title, 200),
            subject,
            cell(&f.detail, 600)
        ));
        if let Some(fix) = &f.fix {
            out.push_str(&format!("  - Fix: {}\n", cell(fix, 400)));
        }
    }
    if !any {
        out.push_str("No problems found.\n");
    }
    let passed: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Ok)
        .map(|f| format!("{} {}", cell(&f.code, 8), cell(&f.title, 80)))
        .collect();
    if !passed.is_empty() {
        out.push_str(&format!("\nPassed: {}\n", passed.join("; ")));
    }
    for note in &report.notes {
        out.push_str(&format!("\n> {}\n", cell(note, 300)));
    }

    // The full document lets a volunteer run `nodecheck triage` on the paste.
    let json = super::json::render(report);
    out.push_str(
        "\n<details><summary>Full report (JSON, for <code>nodecheck triage</code>)</summary>\n\n```json\n",
    );
    out.push_str(&json.replace("```", "'''"));
    out.push_str("```\n\n</details>\n");
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

/// Text safe inside a table cell or list item: one line, no pipes breaking the table.
fn cell(value: &str, max: usize) -> String {
    // Cut first: hostile facts can be megabytes long.
    printable(&clip(value, max).replace(['\n', '\r'], " ")).replace('|', "\\|")
}

/// Text inside backticks: no backticks or pipes of its own.
fn code(value: &str, max: usize) -> String {
    cell(&value.replace('`', "'"), max)
}
