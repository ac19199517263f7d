//! Any document as one pretty-printed JSON value, for scripts and for `nodecheck triage`.

use serde::Serialize;

pub fn render<T: Serialize + ?Sized>(document: &T) -> String {
    match serde_json::to_string_pretty(document) {
        Ok(text) => {
            let mut text = escape_hidden(&text);
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

/// `json` with the characters [`super::printable`] hides written as `\u` escapes: serde_json
/// escapes control characters but writes bidirectional overrides, line separators and
/// zero-width characters as they are, and a terminal or a browser would obey them. The value
/// a parser reads back is unchanged, and such characters only occur inside strings.
fn escape_hidden(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if super::is_hidden_or_control(c) && !matches!(c, '\n' | '\t' | '\r') {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn hidden_characters_are_escaped_and_read_back_unchanged() {
        let value = "a\u{202e}b\u{2028}c\u{e0041}d\u{1b}e";
        let text = super::render(&value);
        assert_eq!(text, "\"a\\u202eb\\u2028c\\udb40\\udc41d\\u001be\"\n");
        let back: String = serde_json::from_str(&text).expect("JSON");
        assert_eq!(back, value);
    }
}
