//! A short report for one Discord message. Discord rejects messages over 2,000 characters, so
//! lines are added in order of importance while they fit, and what is left out is counted.

use verdict::Severity;

use super::{clip, printable, text};
use crate::redact::Redactor;
use crate::report::{grade_word, Report};

/// Discord's limit for one message.
pub const LIMIT: usize = 2000;
/// Room kept for the footer that says what was left out.
const FOOTER_ROOM: usize = 120;
/// A finding cut shorter than this says too little to be worth its room.
const MIN_CUT_LINE: usize = 60;

pub fn render(report: &Report, redactor: Option<&Redactor>) -> String {
    let redact = |line: String| {
        let line = match redactor {
            Some(r) => r.redact(&line),
            None => line,
        };
        without_mentions_outside_code(&line)
    };
    let facts = &report.facts;
    let mut out = Message::new(LIMIT - FOOTER_ROOM);

    let word = grade_word(report.grade);
    let summary = report
        .summary
        .strip_prefix(word)
        .map(|rest| rest.trim_start_matches(':').trim_start())
        .unwrap_or(&report.summary);
    out.push(redact(format!(
        "**nodecheck: {word}** {}",
        one_line(summary, 250)
    )));
    out.push(redact(format!(
        "`{}` on {} · `{}`",
        one_line(&facts.path, 80).replace('`', "'"),
        one_line(&text::mount(facts), 120),
        one_line(&text::stack(facts), 120).replace('`', "'"),
    )));
    for drive in &facts.drives {
        let grades = report
            .drives
            .iter()
            .find(|g| g.drive == drive.name)
            .map(|g| {
                format!(
                    " · database grade {} · verdict {}",
                    g.database_grade, g.verdict
                )
            })
            .unwrap_or_default();
        out.push(redact(format!(
            "💾 {}: model {} · firmware {} · {} · {} · temperature {}{}",
            one_line(&drive.name, 16),
            text::model(drive, 48),
            text::firmware(drive),
            text::capacity(drive),
            text::interface(drive.interface),
            text::temperature(drive),
            grades,
        )));
    }
    if let Some(bench) = &report.bench {
        for line in [text::qd1(bench), text::randrw(bench)]
            .into_iter()
            .flatten()
        {
            out.push(redact(format!("⏱ {}", one_line(&line, 200))));
        }
    }
    // What the reader must know to read the rest (a replay, drive facts only, not root).
    for note in &report.notes {
        out.push_cut(redact(format!("ℹ️ {}", one_line(note, LIMIT))));
    }

    let problems: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Info)
        .collect();
    let mut left_out = 0usize;
    for f in &problems {
        let mark = match f.severity {
            Severity::Critical => "🔴",
            Severity::Warning => "🟡",
            _ => "🔵",
        };
        let fix = f
            .fix
            .as_deref()
            .map(|fix| format!(" → {}", one_line(fix, LIMIT)))
            .unwrap_or_default();
        let line = redact(format!(
            "{mark} {} {}{}",
            one_line(f.code.as_str(), 8),
            one_line(&f.title, 120),
            fix
        ));
        if !out.push_cut(line) {
            left_out += 1;
        }
    }

    let mut footer = format!(
        "_nodecheck {} · db {}_",
        one_line(&report.nodecheck_version, 16),
        one_line(&report.database_version, 24)
    );
    if left_out > 0 {
        footer = format!(
            "_…{left_out} more finding{} left out: paste `--format markdown` for all_\n{footer}",
            if left_out == 1 { "" } else { "s" }
        );
    }
    let mut message = out.finish();
    message.push_str(&redact(footer));
    message.push('\n');
    // The budget above already keeps it short; this makes the limit a guarantee.
    cut_outside_code(&message, LIMIT - 1)
}

/// `text` cut to at most `max` characters (an ellipsis included), never inside a code span:
/// a command cut in the middle pastes as a different command, and an open backtick turns the
/// rest of the message into code. The cut falls before the span that does not fit.
pub fn cut_outside_code(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut in_code = false;
    // The last character index (exclusive) where a cut leaves every span closed.
    let mut safe = 0;
    for (n, c) in text.chars().enumerate() {
        if n + 1 > max.saturating_sub(1) {
            break;
        }
        if c == '`' {
            in_code = !in_code;
            if !in_code {
                safe = n + 1;
            }
        } else if !in_code {
            safe = n + 1;
        }
    }
    let kept: String = text.chars().take(safe).collect();
    format!("{}…", kept.trim_end())
}

/// `line` with its mentions made inert outside code spans, which Discord shows verbatim and
/// where a pasted command must stay byte for byte.
fn without_mentions_outside_code(line: &str) -> String {
    let pieces: Vec<&str> = line.split('`').collect();
    // With an odd number of backticks the last one opens no span.
    let paired = if pieces.len() % 2 == 1 {
        pieces.len()
    } else {
        pieces.len() - 1
    };
    let mut out = String::with_capacity(line.len());
    for (index, piece) in pieces.iter().enumerate() {
        if index > 0 {
            out.push('`');
        }
        if index % 2 == 1 && index < paired {
            out.push_str(piece);
        } else {
            out.push_str(&super::without_mentions(
                piece,
                super::MentionRules::Discord,
            ));
        }
    }
    out
}

fn one_line(value: &str, max: usize) -> String {
    // Cut first: hostile facts can be megabytes long.
    printable(&clip(value, max).replace(['\n', '\r'], " "))
}

/// Lines under a character budget: a line that does not fit is skipped, so later shorter
/// lines (a short finding after a long one) can still get in.
struct Message {
    budget: usize,
    text: String,
    used: usize,
}

impl Message {
    fn new(budget: usize) -> Self {
        Message {
            budget,
            text: String::new(),
            used: 0,
        }
    }

    fn push(&mut self, line: String) -> bool {
        let len = line.chars().count() + 1;
        if self.used + len > self.budget {
            return false;
        }
        self.text.push_str(&line);
        self.text.push('\n');
        self.used += len;
        true
    }

    /// The whole line when it fits; otherwise the part of it that fits, cut outside code
    /// spans, when that keeps more than its first words.
    fn push_cut(&mut self, line: String) -> bool {
        if self.push(line.clone()) {
            return true;
        }
        let room = self.budget.saturating_sub(self.used + 1);
        if room < MIN_CUT_LINE {
            return false;
        }
        self.push(cut_outside_code(&line, room))
    }

    fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{DriveGrade, Report};
    use verdict::{Finding, Grade};

    /// Worse than any machine: eight drives with megabyte model strings and sixty findings
    /// with long details and fixes.
    fn monster() -> Report {
        let huge = "X".repeat(1 << 20);
        let mut facts = probe::Facts {
            path: format!("/home/alice/{huge}"),
            ..probe::Facts::default()
        };
        for i in 0..8 {
            facts.drives.push(probe::Drive {
                name: format!("sd{i}"),
                model: Some(huge.clone()),
                serial: Some(format!("SERIAL{i:08}")),
                ..probe::Drive::default()
            });
        }
        let findings = (0..60)
            .map(|i| Finding {
                code: verdict::Code::ALL[i % verdict::Code::ALL.len()],
                severity: if i % 2 == 0 {
                    Severity::Critical
                } else {
                    Severity::Warning
                },
                title: format!("Problem {i} {}", "é".repeat(300)),
                detail: huge.clone(),
                fix: Some(format!("run `fix {i}` {}", "y".repeat(500))),
                subject: Some(format!("sd{}", i % 8)),
            })
            .collect();
        Report {
            schema_version: crate::report::SCHEMA_VERSION,
            nodecheck_version: "0.0.0".into(),
            database_version: "test".into(),
            grade: Grade::Bad,
            summary: format!("BAD: {huge}"),
            client: Default::default(),
            findings,
            drives: vec![DriveGrade {
                drive: "sd0".into(),
                model: None,
                database_grade: Grade::Good,
                verdict: Grade::Bad,
                family: None,
                class: None,
            }],
            datadir: None,
            source: None,
            notes: vec![huge],
            facts,
            bench: None,
            plot: None,
        }
    }

    #[test]
    fn the_worst_report_still_fits_one_message() {
        let report = monster();
        let mut redactor = Redactor::new();
        redactor.add_literal("SERIAL00000000");
        for r in [None, Some(&redactor)] {
            let text = render(&report, r);
            assert!(
                text.chars().count() < LIMIT,
                "{} characters",
                text.chars().count()
            );
            assert!(text.contains("left out"), "says what it dropped");
            assert!(text.starts_with("**nodecheck: BAD**"));
        }
    }

    #[test]
    fn the_worst_report_table_fits_80_columns() {
        let text = crate::render::table::render(&monster(), &Default::default());
        for line in text.lines().filter(|l| l.contains('│')) {
            assert!(line.chars().count() <= 80, "{line}");
        }
    }
}
