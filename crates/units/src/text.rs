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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn clip_cuts_on_a_char_boundary() {
        assert_eq!(
            clip("Samsung SSD 980 PRO 2TB", 64),
            "Samsung SSD 980 PRO 2TB"
        );
        assert_eq!(clip("µµµµ", 3), "µµ…");
        assert_eq!(clip("ääääää", 4), "äää…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("", 3), "");
        assert_eq!(clip("abc", 0), "…");
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("/var/lib/geth"), "/var/lib/geth");
        assert_eq!(shell_quote("/mnt/my disk"), "'/mnt/my disk'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("/data/100%,a=b"), "/data/100%,a=b");
    }

    proptest! {
        #[test]
        fn clipped_text_fits(text in "\\PC{0,80}", max in 1usize..40) {
            let clipped = clip(&text, max);
            prop_assert!(clipped.chars().count() <= max);
            if text.chars().count() <= max {
                prop_assert_eq!(clipped, text);
            }
        }
    }
}
