//! `--format` (and its shorthand `--json`), which every command that prints a document takes.

use clap::{Args, ValueEnum};

use crate::render::{check_format, Document, Format};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// For a terminal: tables and lines (also `text`).
    #[value(alias = "text")]
    Table,
    /// One JSON document, for scripts.
    Json,
    /// For a GitHub issue or a forum post.
    Markdown,
    /// One Discord message (check, triage).
    Discord,
    /// node_exporter's textfile collector (check, triage).
    Prometheus,
}

impl From<FormatArg> for Format {
    fn from(arg: FormatArg) -> Self {
        match arg {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Discord => Format::Discord,
            FormatArg::Prometheus => Format::Prometheus,
        }
    }
}

#[derive(Debug, Args)]
pub struct FormatArgs {
    /// Output format [default: table]; each command names the formats it can print.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,
    /// Shorthand for `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl FormatArgs {
    pub(super) fn was_given(&self) -> bool {
        self.format.is_some() || self.json
    }

    /// The format asked for, which must be one `D` (what `command` prints) can be drawn in;
    /// the document's own default when none was asked for.
    pub(super) fn resolve<D: Document>(&self, command: &'static str) -> Result<Format, String> {
        let asked = match (self.json, self.format) {
            (true, _) => Format::Json,
            (false, Some(format)) => format.into(),
            (false, None) => return Ok(D::FORMATS[0]),
        };
        check_format::<D>(command, asked).map_err(|err| err.to_string())
    }
}

#[derive(Debug, Args)]
pub struct OutputArgs {
    #[command(flatten)]
    pub format: FormatArgs,
    /// Keep serial numbers, hostnames, UUIDs and /home paths in markdown and discord output.
    #[arg(long)]
    pub no_redact: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The format names the renderers print in their errors ("valid formats: ...") are the
    /// words `--format` accepts.
    #[test]
    fn every_format_value_names_the_format_it_selects() {
        for arg in FormatArg::value_variants() {
            let value = arg.to_possible_value().expect("no format value is hidden");
            assert_eq!(value.get_name(), Format::from(*arg).name());
        }
    }
}
