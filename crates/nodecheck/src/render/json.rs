//! Any document as one pretty-printed JSON value, for scripts and for `nodecheck triage`.

use serde::Serialize;

pub fn render<T: Serialize + ?Sized>(document: &T) -> String {
    match serde_json::to_string_pretty(document) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        // Only maps with non-string keys or failing Serialize impls can fail; the documents
        // have neither, but an error object is still better than a panic.
        Err(err) => format!(
            "{{\"error\":{}}}\n",
            serde_json::Value::from(err.to_string())
        ),
    }
}
