//! A short report for one Discord message. Discord rejects messages over 2,000 characters, so
//! lines are added in order of importance while they fit, and what is left out is counted.

use verdict::Severity;

use super::{clip, printable, text};
use crate::redact::Redactor;
use crate::report::{grade_word, Report};

/// Discord's limit for one message.
pub const LIMIT: usize = 2000;
/// Room kept, once the message must be shortened, for the line that says what was left out.
const LEFT_OUT_ROOM: usize = 80;
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
    // Every line in order of importance; cut or left out only when the whole message would
    // pass the limit.
    let mut lines: Vec<(Part, String)> = Vec::new();

    let word = grade_word(report.grade);
    let summary = report
        .summary
        .strip_prefix(word)
        .map(|rest| rest.trim_start_matches(':').trim_start())
        .unwrap_or(&report.summary);
    lines.push((
        Part::Header,
        redact(format!("**nodecheck: {word}** {}", one_line(summary, 250))),
    ));
    lines.push((
        Part::Header,
        redact(format!(
            "`{}` · mount {} · stack `{}`",
            one_line(&facts.path, 80).replace('`', "'"),
            one_line(&text::mount(facts), 120),
            one_line(&text::stack(facts), 120).replace('`', "'"),
        )),
    ));
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
        lines.push((
            Part::Header,
            redact(format!(
                "💾 {}: model {} · firmware {} · {} · {} · temperature {}{}",
                one_line(&drive.name, 16),
                text::model(drive, 48),
                text::firmware(drive),
                text::capacity(drive),
                text::interface(drive.interface),
                text::temperature(drive),
                grades,
            )),
        ));
    }
    if let Some(bench) = &report.bench {
        for line in [text::qd1(bench), text::randrw(bench)]
            .into_iter()
            .flatten()
        {
            // Room for the figures and the QD1 judgement after them.
            lines.push((Part::Header, redact(format!("⏱ {}", one_line(&line, 320)))));
        }
    }
    // What the reader must know to read the rest (a replay, drive facts only, not root).
    for note in &report.notes {
        lines.push((Part::Note, redact(format!("ℹ️ {}", one_line(note, LIMIT)))));
    }

    let problems: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Info)
        .collect();
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
        lines.push((
            Part::Finding,
            redact(format!(
                "{mark} {} {}{}",
                one_line(f.code.as_str(), 8),
                one_line(&f.title, 120),
                fix
            )),
        ));
    }

    let footer = redact(format!(
        "_nodecheck {} · db {}_",
        one_line(&report.nodecheck_version, 16),
        one_line(&report.database_version, 24)
    ));
    let length = |text: &str| text.chars().count() + 1;
    let whole: usize = lines.iter().map(|(_, l)| length(l)).sum::<usize>() + length(&footer);
    let mut message = String::new();
    if whole < LIMIT {
        for (_, line) in &lines {
            message.push_str(line);
            message.push('\n');
        }
    } else {
        let mut out = Message::new(LIMIT - 1 - length(&footer) - LEFT_OUT_ROOM);
        let mut left_out = 0usize;
        for (part, line) in lines {
            let kept = match part {
                Part::Header => out.push(line),
                Part::Note | Part::Finding => out.push_cut(line),
            };
            if !kept && part == Part::Finding {
                left_out += 1;
            }
        }
        message = out.finish();
        if left_out > 0 {
            message.push_str(&format!(
                "_…{left_out} more finding{} left out: paste `--format markdown` for all_\n",
                if left_out == 1 { "" } else { "s" }
            ));
        }
    }
    message.push_str(&footer);
    message.push('\n');
    // The budget above already keeps it short; this makes the limit a guarantee.
    cut_outside_code(&message, LIMIT - 1)
}

/// Which part of the message a line is: the header lines are kept whole or left out, notes
/// and findings may be cut to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Header,
    Note,
    Finding,
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

    /// A report like a real one: one drive, `n` findings whose fixes end in a command.
    fn ordinary(n: usize, fix_chars: usize) -> Report {
        let mut report = monster();
        report.summary = "BAD: Too small for any client".into();
        report.facts = probe::Facts {
            path: "/var/lib/ethereum".into(),
            drives: vec![probe::Drive {
                name: "sd0".into(),
                model: Some("Samsung SSD 990 PRO 2TB".into()),
                ..probe::Drive::default()
            }],
            ..probe::Facts::default()
        };
        report.notes = vec![
            "Judged from a saved smartctl output (x.json): drive facts only, no mount, stack or measurements."
                .into(),
        ];
        report.findings = (0..n)
            .map(|i| Finding {
                code: verdict::Code::ALL[i % verdict::Code::ALL.len()],
                severity: Severity::Warning,
                title: format!("Problem {i}"),
                detail: String::new(),
                fix: Some(format!(
                    "{} then run `sudo systemctl cat -- -.mount && echo {i}`",
                    "w".repeat(fix_chars)
                )),
                subject: None,
            })
            .collect();
        report
    }

    fn open_code_span(line: &str) -> bool {
        line.matches('`').count() % 2 == 1
    }

    #[test]
    fn below_the_limit_nothing_is_cut_and_the_caveats_stay() {
        // Three findings with 400-character fixes: about 1,800 characters in all, so the
        // old 160-character cut of each fix would show here.
        let report = ordinary(3, 400);
        let text = render(&report, None);
        assert!(text.chars().count() < LIMIT, "{}", text.chars().count());
        for i in 0..3 {
            assert!(
                text.contains(&format!("`sudo systemctl cat -- -.mount && echo {i}`")),
                "finding {i} whole: {text}"
            );
        }
        assert!(text.contains("drive facts only, no mount, stack or measurements"));
        assert!(!text.contains("left out"), "{text}");
        assert!(!text.contains('…'), "nothing cut: {text}");
        assert!(
            text.contains("💾 sd0: model"),
            "drive line labelled: {text}"
        );
    }

    #[test]
    fn at_the_limit_lines_are_cut_outside_code_spans() {
        // Each count of findings around the limit: the message fits, no line ends inside a
        // code span, and what was dropped is counted.
        for n in 1..12 {
            let report = ordinary(n, 380);
            let text = render(&report, None);
            let chars = text.chars().count();
            assert!(chars < LIMIT, "{n}: {chars}");
            for line in text.lines() {
                assert!(!open_code_span(line), "{n}: open code span in {line:?}");
            }
            let shown = (0..n)
                .filter(|i| text.contains(&format!("Problem {i} →")))
                .count();
            if shown < n {
                assert!(
                    text.contains(&format!("{} more finding", n - shown)),
                    "{n}: {text}"
                );
            }
            assert!(text.contains("drive facts only"), "{n}: caveat kept");
        }
    }

    #[test]
    fn a_cut_never_falls_inside_a_code_span() {
        let text = "run `sudo mount -o remount,noatime /` now";
        for max in 1..text.chars().count() {
            let cut = cut_outside_code(text, max);
            assert!(cut.chars().count() <= max, "{max}: {cut}");
            assert!(!open_code_span(&cut), "{max}: {cut}");
        }
        assert_eq!(cut_outside_code(text, 100), text);
    }

    #[test]
    fn the_worst_report_table_fits_80_columns() {
        let text = crate::render::table::render(&monster(), &Default::default());
        for line in text.lines().filter(|l| l.contains('│')) {
            assert!(line.chars().count() <= 80, "{line}");
        }
    }
}
