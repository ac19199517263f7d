//! Every output nodecheck draws, apart from the commands that compute it. Each document a
//! command prints (the check report, a bench result, the probe's facts, a database lookup or
//! listing) implements [`Document`]: it names the [`Format`]s it can be drawn in and draws
//! itself in them. Renderers are pure: data in, text out. They never read the machine, and
//! redaction is applied to the values they are given and again to their finished text.
//!
//! The check report has one module per format ([`table`], [`markdown`], [`discord`],
//! [`prometheus`], [`json`]); the smaller documents keep their formats together
//! ([`bench`], [`facts`], [`database`]). [`plot`] draws the behaviour tests as SVG and PNG.

pub mod bench;
pub mod database;
pub mod discord;
pub mod facts;
pub mod json;
pub mod markdown;
pub mod plot;
pub mod prometheus;
pub mod report;
pub mod table;
pub mod text;
pub mod watch;

use std::fmt;
use std::io::IsTerminal;

use strum::{Display, IntoStaticStr};

use crate::redact::Redactor;

/// An output format, as `--format` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, IntoStaticStr, Display)]
#[strum(serialize_all = "lowercase")]
pub enum Format {
    /// For a terminal: tables and lines (`--format table`, or `text`).
    Table,
    /// One JSON document, for scripts (`--format json`, or `--json`).
    Json,
    /// For a GitHub issue or a forum post.
    Markdown,
    /// One Discord message.
    Discord,
    /// node_exporter's textfile-collector format.
    Prometheus,
}

impl Format {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// Something a command prints, drawn in any of the formats it lists.
pub trait Document {
    /// The formats this document can be drawn in, the default first.
    const FORMATS: &'static [Format];

    /// The document in `format`, or `None` when `format` is not one of [`Self::FORMATS`].
    fn draw(&self, format: Format, options: &RenderOptions) -> Option<String>;
}

/// A format asked of a document that cannot be drawn in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatNotApplicable {
    /// The command, as the user typed it (`db list`).
    pub command: &'static str,
    pub format: Format,
    pub valid: &'static [Format],
}

impl fmt::Display for FormatNotApplicable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let valid: Vec<&str> = self.valid.iter().map(|f| f.name()).collect();
        write!(
            f,
            "`--format {}` does not apply to `nodecheck {}`; its formats are {}",
            self.format,
            self.command,
            valid.join(", ")
        )
    }
}

impl std::error::Error for FormatNotApplicable {}

/// Whether documents of type `D` can be drawn in `format`; the error names the formats that
/// can. Checked while reading the command line, so a long run never ends in a format it
/// cannot print.
pub fn check_format<D: Document>(
    command: &'static str,
    format: Format,
) -> Result<Format, FormatNotApplicable> {
    if D::FORMATS.contains(&format) {
        Ok(format)
    } else {
        Err(FormatNotApplicable {
            command,
            format,
            valid: D::FORMATS,
        })
    }
}

/// Draws `document` in `format`.
pub fn render<D: Document>(
    document: &D,
    format: Format,
    options: &RenderOptions,
) -> anyhow::Result<String> {
    document.draw(format, options).ok_or_else(|| {
        anyhow::anyhow!(
            "a {} document has no {format} form",
            std::any::type_name::<D>()
        )
    })
}

/// How to render, decided once from the terminal and the command line.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// ANSI colors in the table.
    pub color: bool,
    /// 0 normal; negative quieter; positive shows passed checks and unavailable facts.
    pub verbosity: i8,
    /// Applied to the formats meant to be shared (markdown, discord); `None` keeps everything.
    pub redactor: Option<Redactor>,
}

impl RenderOptions {
    /// Colors only on a terminal and only when `NO_COLOR` is unset or empty
    /// (<https://no-color.org>).
    pub fn for_stdout(verbosity: i8) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        RenderOptions {
            color: !no_color && std::io::stdout().is_terminal(),
            verbosity,
            redactor: None,
        }
    }

    /// These options, redacting shared formats with `redactor`.
    pub fn redacting(self, redactor: Option<Redactor>) -> Self {
        RenderOptions { redactor, ..self }
    }

    /// `document` with what identifies the machine removed from each of its values, when
    /// redacting: renderers escape, clip and quote values, which would hide a secret from a
    /// redactor that only saw the finished text.
    pub fn redacted<'a, T>(&self, document: &'a T) -> std::borrow::Cow<'a, T>
    where
        T: Clone + serde::Serialize + serde::de::DeserializeOwned,
    {
        match self
            .redactor
            .as_ref()
            .and_then(|r| r.redact_document(document))
        {
            Some(redacted) => std::borrow::Cow::Owned(redacted),
            None => std::borrow::Cow::Borrowed(document),
        }
    }

    /// `text` with what identifies the machine removed, when redacting.
    pub fn redact(&self, text: String) -> String {
        match &self.redactor {
            Some(r) => r.redact(&text),
            None => text,
        }
    }
}

pub use units::text::clip;

/// Replaces control characters (from hostile sysfs strings) so they cannot move the cursor
/// or break a line-oriented format, and invisible or reordering characters so text cannot
/// look other than it is. The one sanitiser for hostile text on its way to a reader: every
/// renderer calls it, and the TOML quoting of `submit` escapes the same characters.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if is_hidden_or_control(c) { '?' } else { c })
        .collect()
}

/// Control characters (Unicode Cc: C0, DEL, C1, so ESC and the start of every terminal
/// escape), line and paragraph separators (Zl, Zp: a line break to a renderer) and format
/// characters (Cf): zero-width spaces and joiners, the byte-order mark, soft hyphen, and the
/// bidirectional embeddings, overrides and isolates that make text display in another order
/// than it reads (Unicode 15.1 `DerivedGeneralCategory.txt`, category Cf, listed below).
pub fn is_hidden_or_control(c: char) -> bool {
    const FORMAT: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
    ];
    let code = u32::from(c);
    c.is_control()
        || c == '\u{2028}'
        || c == '\u{2029}'
        || FORMAT
            .iter()
            .any(|&(first, last)| (first..=last).contains(&code))
}

/// Where a mention would notify someone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MentionRules {
    /// GitHub: `@user` and `@org/team` at the start of a word.
    GitHub,
    /// Discord: `@everyone`, `@here`, `@name`, `<@user>`, `<@!user>`, `<@&role>`, `<#channel>`.
    Discord,
}

/// `text` with every mention made inert by swapping its `@` (or the `#` of a channel) for the
/// full-width `＠` (`＃`): it reads the same, survives [`printable`] and notifies no one. For
/// text outside code spans; inside one neither GitHub nor Discord resolves mentions.
pub fn without_mentions(text: &str, rules: MentionRules) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let starts_name = next.is_some_and(|n| n.is_alphanumeric());
        let mention = match (c, rules) {
            ('@', MentionRules::GitHub) => {
                starts_name && !previous.is_some_and(|p| p.is_alphanumeric() || p == '_')
            }
            ('@', MentionRules::Discord) => starts_name || matches!(next, Some('!' | '&')),
            ('#', MentionRules::Discord) => {
                previous == Some('<') && next.is_some_and(|n| n.is_ascii_digit())
            }
            _ => false,
        };
        out.push(match (mention, c) {
            (true, '@') => '＠',
            (true, _) => '＃',
            (false, c) => c,
        });
        previous = Some(c);
    }
    out
}

/// A fact for display: clipped, printable, `unknown` when absent.
pub fn shown(value: Option<&str>, max: usize) -> String {
    match value {
        Some(v) if !v.trim().is_empty() => printable(&clip(v.trim(), max)),
        _ => "unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY_FORMAT: [Format; 5] = [
        Format::Table,
        Format::Json,
        Format::Markdown,
        Format::Discord,
        Format::Prometheus,
    ];

    /// A document draws exactly the formats it lists, so the check made while reading the
    /// command line and the drawing agree.
    fn draws_exactly_its_formats<D: Document>(document: &D, name: &str) {
        for format in EVERY_FORMAT {
            let drawn = document.draw(format, &RenderOptions::default());
            assert_eq!(
                drawn.is_some(),
                D::FORMATS.contains(&format),
                "{name} in {format}"
            );
            if let Some(text) = drawn {
                assert!(!text.is_empty(), "{name} in {format}");
            }
        }
        assert!(check_format::<D>("x", D::FORMATS[0]).is_ok());
    }

    /// A QD1 result with these p99 and max figures, the rest a fast drive's.
    fn measured_qd1(p99: f64, max: f64) -> ::bench::BenchReport {
        ::bench::BenchReport {
            qd1: Some(::bench::Qd1Result {
                iops: 9_000.0,
                lat_us: ::bench::LatencySummary {
                    mean: 100.0,
                    p50: 90.0,
                    p90: 120.0,
                    p99,
                    p999: (p99 + max) / 2.0,
                    max,
                },
                ios: 90_000,
                runtime_s: 10.0,
                span_bytes: 1 << 30,
                target: "file".into(),
                engine: ::bench::EngineKind::IoUring,
                placement: Default::default(),
                read_span: None,
                reads_timed_through_submit: 0,
            }),
            ..::bench::BenchReport::new("/data", ::bench::EngineKind::IoUring, None)
        }
    }

    /// The QD1 line says whether the figures are good, against the rule NC701 applies
    /// (data/behaviour.toml, 300 µs p99 and 1 ms max at rest), naming those figures, in every
    /// format that shows the line: the report's table, markdown and discord, and `bench`'s
    /// table and markdown.
    #[test]
    fn the_qd1_line_judges_its_figures_against_the_named_threshold() {
        let db = verdict::Database::embedded().expect("embedded database");
        let good = "— good: p99 and max within the 300 µs p99 and 1.0 ms max that good drives stay under at rest (data/behaviour.toml)";
        let slow = "— slow: p99 450 µs is above the 300 µs at rest that good drives stay under";
        let too_slow = "— too slow: p99 3.0 ms is above the 2.0 ms at rest";
        for (p99, max, expected) in [
            (200.0, 800.0, good),
            (450.0, 900.0, slow),
            (3_000.0, 9_000.0, too_slow),
        ] {
            let measured = measured_qd1(p99, max);
            let facts = probe::Facts::default();
            let verdict = verdict::judge_node(
                &facts,
                Some(&measured),
                &db,
                &verdict::ClientChoice::Strictest,
                None,
            );
            let report = crate::report::build(
                facts,
                Some(measured.clone()),
                verdict,
                None,
                Vec::new(),
                Default::default(),
            );
            let options = RenderOptions::default();
            for format in [Format::Table, Format::Markdown, Format::Discord] {
                let text = render(&report, format, &options).expect("drawn");
                // The table wraps at 80 columns.
                let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(joined.contains(expected), "{format}: {text}");
            }
            let document = bench::BenchDocument {
                report: &measured,
                plot: None,
            };
            let markdown = render(&document, Format::Markdown, &options).expect("drawn");
            assert!(markdown.contains(expected), "{markdown}");
            let table = render(&document, Format::Table, &options).expect("drawn");
            let word = expected.trim_start_matches("— ");
            assert!(table.contains(&format!("\n  {word}")), "{table}");
        }
    }

    #[test]
    fn every_document_draws_the_formats_it_lists() {
        let db = verdict::Database::embedded().expect("embedded database");
        let facts = probe::Facts::default();
        let verdict =
            verdict::judge_node(&facts, None, &db, &verdict::ClientChoice::Strictest, None);
        let report = crate::report::build(
            facts.clone(),
            None,
            verdict,
            None,
            Vec::new(),
            Default::default(),
        );
        draws_exactly_its_formats(&report, "the check report");
        draws_exactly_its_formats(&facts, "the probe's facts");
        let measured = markdown::tests::span_only();
        draws_exactly_its_formats(
            &bench::BenchDocument {
                report: &measured,
                plot: None,
            },
            "a bench result",
        );
        let entries = db.drives.iter().collect();
        draws_exactly_its_formats(&database::Listing { db: &db, entries }, "db list");
        let query = verdict::DriveQuery::new("Samsung SSD 980 PRO 2TB");
        let lookup = database::LookupAnswer {
            database_version: &db.version,
            model: "Samsung SSD 980 PRO 2TB",
            firmware: None,
            capacity_bytes: None,
            answer: crate::database::answer_with(&db, &query, Default::default()),
            firmware_classes: Vec::new(),
        };
        draws_exactly_its_formats(&lookup, "db lookup");
    }

    #[test]
    fn a_format_a_document_lacks_is_refused_naming_the_ones_it_has() {
        let err = check_format::<probe::Facts>("probe", Format::Markdown).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`--format markdown` does not apply to `nodecheck probe`; its formats are table, json"
        );
    }

    #[test]
    fn clip_counts_characters_not_bytes() {
        assert_eq!(clip("µµµµ", 3), "µµ…");
        assert_eq!(clip("abc", 3), "abc");
    }

    #[test]
    fn control_characters_are_neutralised() {
        assert_eq!(printable("a\u{1b}[2Jb\n"), "a?[2Jb?");
    }

    #[test]
    fn bidi_and_invisible_characters_are_neutralised() {
        let hostile =
            "a\u{202E}b\u{2028}c\u{2029}d\u{200B}e\u{FEFF}f\u{2066}g\u{200D}h\u{00AD}i\u{E0041}j";
        assert_eq!(printable(hostile), "a?b?c?d?e?f?g?h?i?j");
        // Visible non-ASCII text is left alone.
        assert_eq!(printable("µs ＠ é 🔴"), "µs ＠ é 🔴");
    }
}
