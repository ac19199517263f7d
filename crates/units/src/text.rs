//! Short text for output: bounding strings that come from hostile or broken sources, and
//! quoting arguments in commands a user pastes into a shell.

/// Cuts `text` to at most `max` characters, the last being `…` when anything was cut. Drive
/// strings end up in output verbatim and a broken drive can report kilobytes; counting stops at
/// `max`, so a megabyte string costs no more than a short one.
pub fn clip(text: &str, max: usize) -> String {
    if text.char_indices().nth(max).is_none() {
        return text.to_owned();
    }
    let cut = text
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(0, |(index, _)| index);
    format!("{}…", &text[..cut])
}

/// `arg` as one shell word: unchanged when every character is plainly safe, else in single
/// quotes (with embedded single quotes closed, escaped and reopened).
pub fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@=,%".contains(c));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// `text` with its first letter upper-case, for a reason that starts a sentence.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
