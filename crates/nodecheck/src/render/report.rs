//! The check report (`check` and `triage`) in every format; one module per format draws it.

use super::{discord, json, markdown, prometheus, table, Document, Format, RenderOptions};
use crate::report::Report;

impl Document for Report {
    const FORMATS: &'static [Format] = &[
        Format::Table,
        Format::Json,
        Format::Markdown,
        Format::Discord,
        Format::Prometheus,
    ];

    fn draw(&self, format: Format, options: &RenderOptions) -> Option<String> {
        Some(match format {
            Format::Table => table::render(self, options),
            Format::Json => json::render(self),
            Format::Prometheus => prometheus::render(self),
            Format::Markdown => options.redact(markdown::render(&options.redacted(self))),
            // Redaction can lengthen text, so discord trims after redacting.
            Format::Discord => discord::render(&options.redacted(self), options.redactor.as_ref()),
        })
    }
}
