//! The terminal report: what was seen, the findings worst first, and one verdict line last.
//! Fits 80 columns; colored only on a terminal without `NO_COLOR`.

use comfy_table::{presets, Cell, Color, ContentArrangement, Table};
use verdict::{Grade, Severity};

use super::{clip, printable, text, RenderOptions};
use crate::report::{grade_word, Report};

const WIDTH: u16 = 80;

pub fn render(report: &Report, options: &RenderOptions) -> String {
    let mut out = String::new();
    if options.verbosity >= 0 {
        overview(report, &mut out);
        drives(report, options, &mut out);
        measurements(report, &mut out);
        unavailable(report, options, &mut out);
    }
    if options.verbosity >= -1 {
        findings(report, options, &mut out);
    }
    out.push_str(&verdict_line(report, options));
    out.push('\n');
    out
}

/// An 80-column table in the house style, colored only when the output is a colour terminal.
pub(crate) fn new_table(options: &RenderOptions) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(WIDTH);
    if options.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table
}

fn overview(report: &Report, out: &mut String) {
    let facts = &report.facts;
    if let Some(d) = &report.datadir {
        if d.detected {
            let client = d
                .client
                .as_deref()
                .map(|c| format!(" ({})", printable(&clip(c, 20))))
                .unwrap_or_default();
            out.push_str(&format!(
                "Datadir: {}{client}, detected\n",
                printable(&clip(&d.path, 60))
            ));
            if !d.others.is_empty() {
                out.push_str(&format!(
                    "  also found: {}\n",
                    printable(&clip(&d.others.join(", "), 66))
                ));
            }
        }
    }
    out.push_str(&format!(
        "Path:     {}\n",
        printable(&clip(&facts.path, 68))
    ));
    out.push_str(&format!("Mount:    {}\n", text::mount(facts)));
    out.push_str(&format!("Stack:    {}\n", text::stack(facts)));
    if let Some(platform) = text::platform(facts) {
        out.push_str(&format!("Platform: {platform}\n"));
    }
    match &report.source {
        Some(source) => wrap_hanging("Source:   ", &printable(&clip(source, 300)), out),
        None if !facts.live => wrap_hanging(
            "Source:   ",
            &format!("replayed from {}", printable(&clip(&facts.root, 300))),
            out,
        ),
        None => {}
    }
    // Notes are wrapped, never cut: the end of one is often what to do.
    for unresolved in &facts.unresolved {
        wrap_hanging("Note:     ", &printable(&clip(unresolved, 2000)), out);
    }
    for note in &report.notes {
        wrap_hanging("Note:     ", &printable(&clip(note, 2000)), out);
    }
}

fn drives(report: &Report, options: &RenderOptions, out: &mut String) {
    if report.facts.drives.is_empty() {
        out.push_str("Drives:   none found under this path\n");
        return;
    }
    let mut table = new_table(options);
    // Two grades, as in every format: the database's of the model, and the drive's verdict
    // here (a good model with failing SMART is bad here).
    table.set_header([
        "Drive", "Model", "Firmware", "Size", "Bus", "Temp", "DB grade", "Verdict",
    ]);
    for drive in &report.facts.drives {
        let graded = report.drives.iter().find(|g| g.drive == drive.name);
        let cell = |grade: Option<Grade>| match grade {
            Some(g) => grade_cell(g, options),
            None => Cell::new("-"),
        };
        table.add_row(vec![
            Cell::new(printable(&clip(&drive.name, 12))),
            Cell::new(text::model(drive, 40)),
            Cell::new(text::firmware(drive)),
            Cell::new(text::capacity(drive)),
            Cell::new(text::interface(drive.interface)),
            Cell::new(text::temperature(drive)),
            cell(graded.map(|g| g.database_grade)),
            cell(graded.map(|g| g.verdict)),
        ]);
    }
    out.push_str(&table.to_string());
    out.push('\n');
    wrap_hanging(
        "Grades:   ",
        &format!("DB grade is the database's for the model, Verdict the drive's on this machine; these and the other words are explained at {GLOSSARY}"),
        out,
    );
}

/// Where the report's words (QD1, percentiles, IOPS, TRIM, DRAM-less, QLC, HMB, the grades)
/// are explained.
pub const GLOSSARY: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/glossary.md");

fn measurements(report: &Report, out: &mut String) {
    let Some(bench) = &report.bench else {
        return;
    };
    for line in text::measurements(bench) {
        wrap_into(&printable(&clip(&line, 400)), "", out);
    }
    for warning in &bench.warnings {
        let warning = format!("bench: {}", printable(&clip(warning, 2000)));
        wrap_into(&warning, "  ", out);
    }
}

/// Word-wraps `line` to [`WIDTH`] columns, `indent` before the first line and two more spaces
/// before the following ones, so that a long measurement keeps the report within 80 columns.
fn wrap_into(line: &str, indent: &str, out: &mut String) {
    wrap_lines(line, indent, &format!("{indent}  "), out);
}

/// Word-wraps `text` after a label (`Note:     `), continuation lines indented under the text.
fn wrap_hanging(label: &str, text: &str, out: &mut String) {
    wrap_lines(text, label, &" ".repeat(label.chars().count()), out);
}

fn wrap_lines(line: &str, first: &str, rest: &str, out: &mut String) {
    let width = usize::from(WIDTH);
    let mut current = first.to_string();
    let mut empty = true;
    for word in line.split_whitespace() {
        let fits = current.chars().count() + 1 + word.chars().count() <= width;
        if !empty && !fits {
            out.push_str(&current);
            out.push('\n');
            current = rest.to_string();
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    out.push_str(&current);
    out.push('\n');
}

fn unavailable(report: &Report, options: &RenderOptions, out: &mut String) {
    if options.verbosity < 1 {
        return;
    }
    for u in &report.facts.unavailable {
        out.push_str(&format!(
            "Unavailable: {} ({})\n",
            printable(&clip(&u.fact, 60)),
            printable(&clip(&u.reason, 60))
        ));
    }
    for w in &report.facts.warnings {
        out.push_str(&format!("Probe warning: {}\n", printable(&clip(w, 150))));
    }
}

fn findings(report: &Report, options: &RenderOptions, out: &mut String) {
    // Passed checks are noise unless asked for; -q keeps only what needs action.
    let floor = match options.verbosity {
        v if v >= 1 => Severity::Ok,
        0 => Severity::Info,
        _ => Severity::Warning,
    };
    let shown: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity >= floor)
        .collect();
    if shown.is_empty() {
        return;
    }
    let mut table = new_table(options);
    table.set_header(["", "Code", "Finding and fix"]);
    for f in shown {
        let mut body = printable(&clip(&f.title, 200));
        if let Some(subject) = &f.subject {
            body = format!("{} [{}]", body, printable(&clip(subject, 20)));
        }
        if !f.detail.is_empty() {
            body.push('\n');
            body.push_str(&printable(&clip(&f.detail, 600).replace(['\r', '\t'], " ")));
        }
        if let Some(fix) = &f.fix {
            body.push_str("\nFix: ");
            // Never cut: the end of a fix is the command to run.
            body.push_str(&printable(&clip(fix, 4000).replace(['\r', '\t'], " ")));
        }
        table.add_row(vec![
            severity_cell(f.severity, options),
            Cell::new(printable(&clip(f.code.as_str(), 8))),
            Cell::new(body),
        ]);
    }
    out.push_str(&table.to_string());
    out.push('\n');
}

fn severity_cell(severity: Severity, options: &RenderOptions) -> Cell {
    let (label, color) = match severity {
        Severity::Critical => ("BAD", Color::Red),
        Severity::Warning => ("WARN", Color::Yellow),
        Severity::Info => ("info", Color::Cyan),
        Severity::Ok => ("ok", Color::Green),
    };
    let cell = Cell::new(label);
    if options.color {
        cell.fg(color)
    } else {
        cell
    }
}

fn grade_cell(grade: Grade, options: &RenderOptions) -> Cell {
    let cell = Cell::new(grade.as_str());
    if options.color {
        cell.fg(grade_color(grade))
    } else {
        cell
    }
}

fn grade_color(grade: Grade) -> Color {
    match grade {
        Grade::Good => Color::Green,
        Grade::Unknown => Color::Cyan,
        Grade::Ugly => Color::Yellow,
        Grade::Bad => Color::Red,
    }
}

/// The last line, the one people read: `BAD: ...`.
fn verdict_line(report: &Report, options: &RenderOptions) -> String {
    // The summary ends with whose needs applied ("[needs of every client; Reth fails first]"),
    // the same words every format shows.
    let summary = printable(&clip(&report.summary, 400));
    let line = summary.clone();
    if !options.color {
        return line;
    }
    let code = match report.grade {
        Grade::Good => "32",
        Grade::Unknown => "36",
        Grade::Ugly => "33",
        Grade::Bad => "31",
    };
    let word = grade_word(report.grade);
    match line.strip_prefix(word) {
        Some(rest) => format!("\x1b[1;{code}m{word}\x1b[0m{rest}"),
        None => line,
    }
}

#[cfg(test)]
mod wrap_tests {
    use super::wrap_into;

    #[test]
    fn measurements_wrap_within_80_columns() {
        let line = "sync cycle (1 GiB write bursts at QD32): QD1 read p99 82 µs alone, p99 508 µs \
                    / max 528 µs during bursts, recovery 12 ms (median), bursts 874 MB/s";
        let mut out = String::new();
        wrap_into(line, "", &mut out);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() > 1, "{out}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{out}");
        assert!(
            lines[1].starts_with("  "),
            "continuations are indented: {out}"
        );
        assert_eq!(out.split_whitespace().collect::<Vec<_>>().join(" "), line);
        let mut short = String::new();
        wrap_into("bench: ok", "  ", &mut short);
        assert_eq!(short, "  bench: ok\n");
    }
}
