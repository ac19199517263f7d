//! The drive database the verdict uses: the embedded one, or `--db FILE`.

use anyhow::{Context, Result};
use verdict::database::{Database, EMBEDDED_DRIVES};

use crate::config::GlobalOptions;

pub fn load(global: &GlobalOptions) -> Result<Database> {
    match &global.db {
        Some(path) => Database::load(path)
            .with_context(|| format!("cannot use the drive database {}", path.display())),
        None => Database::embedded().context("the embedded drive database is invalid"),
    }
}

/// The embedded database's version, read from its top-level `version = "..."` line without
/// parsing the whole database (this runs for every `--version` and `--help`).
pub fn embedded_version() -> &'static str {
    version_of(EMBEDDED_DRIVES).unwrap_or("unknown")
}

fn version_of(toml_text: &str) -> Option<&str> {
    for line in toml_text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            return None;
        }
        let Some(rest) = line.strip_prefix("version") else {
            continue;
        };
        let value = rest.trim_start().strip_prefix('=')?.trim();
        return value.strip_prefix('"')?.split('"').next();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_line_is_found_before_the_first_table() {
        assert_eq!(
            version_of("schema_version = 1\nversion = \"2026.11.30\"\n[[drives]]\n"),
            Some("2026.11.30")
        );
        assert_eq!(version_of("[[drives]]\nversion = \"x\"\n"), None);
    }

    #[test]
    fn embedded_version_agrees_with_the_parser() {
        let db = Database::embedded().expect("embedded database parses");
        assert_eq!(embedded_version(), db.version);
    }
}
