//! The whole report as one JSON document, for scripts and for `nodecheck triage`.

use crate::report::Report;

pub fn render(report: &Report) -> String {
    match serde_json::to_string_pretty(report) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        // Only maps with non-string keys or failing Serialize impls can fail; the report has
        // neither, but an error object is still better than a panic.
        Err(err) => format!(
            "{{\"error\":{}}}\n",
            serde_json::Value::from(err.to_string())
        ),
    }
}
