//! Errors of the database loader. Every error about the content of a file carries the file,
//! the 1-based line and column, and a one-line fix, because the people who see them are
//! contributors editing TOML by hand.

use std::fmt;

/// What kind of problem a database file has; decides the suggested fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not valid TOML.
    Syntax,
    /// A key the schema does not know (`deny_unknown_fields`).
    UnknownField,
    /// A required key is absent.
    MissingField,
    /// A value of the wrong type or outside the allowed set.
    BadValue,
    /// A regular expression that does not compile.
    BadRegex,
    /// Two entries (or two rules of one entry) share an id.
    DuplicateId,
    /// The file declares a schema this build does not read.
    SchemaVersion,
    /// Bytes that are not UTF-8.
    Encoding,
    /// More entries, or patterns compiling to more memory, than a database may have.
    TooLarge,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax error",
            ErrorKind::UnknownField => "unknown field",
            ErrorKind::MissingField => "missing field",
            ErrorKind::BadValue => "bad value",
            ErrorKind::BadRegex => "bad regex",
            ErrorKind::DuplicateId => "duplicate id",
            ErrorKind::SchemaVersion => "unsupported schema version",
            ErrorKind::Encoding => "not UTF-8",
            ErrorKind::TooLarge => "too large",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A position in a text file, 1-based as editors show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl Position {
    /// Line and column of a byte offset; offsets past the end clamp to the end, offsets inside
    /// a multi-byte character count that character.
    pub fn of_offset(text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Position { line, column }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A problem with the content of a database file.
    #[error("{file}:{line}:{column}: {kind}: {message}; fix: {fix}")]
    Invalid {
        kind: ErrorKind,
        file: String,
        line: usize,
        column: usize,
        message: String,
        fix: String,
    },
    #[error("{0}\n  fix: give a drives file (data/drives.toml format)")]
    Unreadable(#[from] probe::input::ReadError),
    #[error(
        "cannot read database file {path}: {source}\n  fix: check the path of the drives file"
    )]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl DbError {
    pub(crate) fn at(
        kind: ErrorKind,
        file: &str,
        text: &str,
        offset: usize,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> DbError {
        let Position { line, column } = Position::of_offset(text, offset);
        DbError::Invalid {
            kind,
            file: file.to_string(),
            line,
            column,
            message: message.into(),
            fix: fix.into(),
        }
    }

    /// Translates a `toml` deserialisation error, whose span points at the offending key or
    /// value, into a located error with a fix that fits the kind of mistake.
    pub(crate) fn from_toml(err: &toml::de::Error, file: &str, text: &str) -> DbError {
        let message = err.message().trim().to_string();
        let offset = err.span().map_or(0, |span| span.start);
        let (kind, fix) = classify_toml_message(&message);
        DbError::at(kind, file, text, offset, first_line(&message), fix)
    }

    /// The kind of a content error, `None` for I/O errors.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            DbError::Invalid { kind, .. } => Some(*kind),
            DbError::Io { .. } | DbError::Unreadable(_) => None,
        }
    }

    /// `(line, column)` of a content error.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            DbError::Invalid { line, column, .. } => Some((*line, *column)),
            DbError::Io { .. } | DbError::Unreadable(_) => None,
        }
    }
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().to_string()
}

fn classify_toml_message(message: &str) -> (ErrorKind, &'static str) {
    if message.starts_with("unknown field") {
        (
            ErrorKind::UnknownField,
            "remove the key or correct its spelling (the allowed keys are listed in the message and in docs/database-schema.md)",
        )
    } else if message.starts_with("missing field") {
        (
            ErrorKind::MissingField,
            "add the missing key to this table (see docs/database-schema.md)",
        )
    } else if message.starts_with("unknown variant")
        || message.starts_with("invalid type")
        || message.starts_with("invalid value")
    {
        (
            ErrorKind::BadValue,
            "use one of the values the message lists (see docs/database-schema.md)",
        )
    } else if message.starts_with("duplicate key") {
        (
            ErrorKind::DuplicateId,
            "a key may appear only once per table: delete or rename the second one",
        )
    } else {
        (
            ErrorKind::Syntax,
            "fix the TOML syntax here: quote strings, close brackets and strings, one key = value per line",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_counts_lines_and_characters() {
        let text = "a = 1\nbé = \"x\"\n";
        // (offset, line, column, why)
        let cases = [
            (0, 1, 1, "the first byte"),
            (6, 2, 1, "the first byte after a newline"),
            // "b" is byte 6, "é" bytes 7..9, the space byte 9.
            (9, 2, 3, "a multi-byte character counts as one column"),
            (
                8,
                2,
                2,
                "an offset inside \"é\" clamps back to its first byte",
            ),
            (10_000, 3, 1, "an offset past the end stops at the end"),
        ];
        for (offset, line, column, why) in cases {
            assert_eq!(
                Position::of_offset(text, offset),
                Position { line, column },
                "offset {offset}: {why}"
            );
        }
    }
}
