//! The man pages: one per command, as git has (`nodecheck-check.1`), from the clap definition.
//!
//! clap_mangen puts a command's `after_help` (our examples, notes and exit codes) into a
//! section it calls EXTRA, as filled text: groff then reflows the examples into one paragraph
//! and hyphenates long paths with U+2010, so a command copied from the page no longer runs.
//! Its other sections are kept; the `after_help` becomes EXAMPLES (verbatim, no filling),
//! EXIT STATUS, NOTES and SEE ALSO, and hyphenation is off for the whole page.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_mangen::Man;

/// Writes `nodecheck.1` and one page per subcommand into `dir`; returns the pages written.
pub fn generate_to(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut command = nodecheck::Cli::command().disable_help_subcommand(true);
    // Building names each subcommand `nodecheck-check`, the page's title and file name.
    command.build();
    let mut written = Vec::new();
    write_tree(&command, dir, &mut written)?;
    written.sort();
    Ok(written)
}

fn write_tree(command: &clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> Result<()> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_tree(sub, dir, written)?;
    }
    let man = Man::new(command.clone());
    let path = dir.join(man.get_filename());
    fs::write(&path, page(command)?).with_context(|| format!("cannot write {}", path.display()))?;
    written.push(path);
    Ok(())
}

/// The page of one command.
pub fn page(command: &clap::Command) -> Result<Vec<u8>> {
    let man = Man::new(command.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    // No hyphenation anywhere: a hyphen groff adds inside a path or option (U+2010) looks like
    // part of it and breaks it when copied.
    out.extend_from_slice(b".nh\n");
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if command.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }
    if let Some(after) = command.get_after_long_help().or(command.get_after_help()) {
        out.extend_from_slice(after_help_sections(&after.to_string()).as_bytes());
    }
    if command
        .get_version()
        .or(command.get_long_version())
        .is_some()
    {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}

/// The `after_help` text as man sections. Its blocks are separated by blank lines: the one
/// headed `Examples:` is kept line for line, `Exit codes:` is the exit status, `Docs:` lines
/// are where to read more, and any other block is a note.
fn after_help_sections(text: &str) -> String {
    let mut examples = Vec::new();
    let mut exit_status = Vec::new();
    let mut notes = Vec::new();
    let mut see_also = Vec::new();
    for block in text
        .split("\n\n")
        .map(str::trim_end)
        .filter(|b| !b.trim().is_empty())
    {
        if let Some(lines) = block.strip_prefix("Examples:") {
            examples.extend(lines.lines().filter(|l| !l.trim().is_empty()));
            continue;
        }
        let mut paragraph = Vec::new();
        for line in block.lines() {
            if let Some(docs) = line.strip_prefix("Docs:") {
                see_also.push(docs.trim());
            } else {
                paragraph.push(line.trim());
            }
        }
        let paragraph = paragraph.join(" ");
        match paragraph.strip_prefix("Exit codes:") {
            Some(codes) => exit_status.push(codes.trim().to_string()),
            None if !paragraph.is_empty() => notes.push(paragraph),
            None => {}
        }
    }
    let mut out = String::new();
    if !examples.is_empty() {
        out.push_str(".SH EXAMPLES\n.nf\n");
        for line in examples {
            out.push_str(&escape_line(line));
            out.push('\n');
        }
        out.push_str(".fi\n");
    }
    for (title, paragraphs) in [("\"EXIT STATUS\"", &exit_status), ("NOTES", &notes)] {
        if paragraphs.is_empty() {
            continue;
        }
        out.push_str(&format!(".SH {title}\n"));
        for (i, paragraph) in paragraphs.iter().enumerate() {
            if i > 0 {
                out.push_str(".PP\n");
            }
            out.push_str(&escape_line(paragraph));
            out.push('\n');
        }
    }
    if !see_also.is_empty() {
        out.push_str(".SH \"SEE ALSO\"\n");
        out.push_str(&escape_line(&see_also.join(" ")));
        out.push('\n');
    }
    out
}

/// One line of text as roff prints it back: hyphen-minus, backslash, quotes and the other
/// characters groff would typeset as different glyphs are escaped to the ASCII glyph, and a
/// leading `.` or `'` is not read as a request.
fn escape_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    if line.starts_with(['.', '\'']) {
        out.push_str("\\&");
    }
    for c in line.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            '\'' => out.push_str("\\(aq"),
            '`' => out.push_str("\\(ga"),
            '~' => out.push_str("\\(ti"),
            '^' => out.push_str("\\(ha"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Every command's `--help` and the lines of its examples, as the binary prints them.
    fn examples_by_page() -> Vec<(String, Vec<String>)> {
        let mut command = nodecheck::Cli::command().disable_help_subcommand(true);
        command.build();
        let mut pages = Vec::new();
        fn walk(command: &clap::Command, pages: &mut Vec<(String, Vec<String>)>) {
            for sub in command.get_subcommands() {
                walk(sub, pages);
            }
            let name = Man::new(command.clone()).get_filename();
            let after = command
                .get_after_help()
                .map(|a| a.to_string())
                .unwrap_or_default();
            let examples = after
                .split("\n\n")
                .find_map(|b| b.strip_prefix("Examples:"))
                .map(|lines| {
                    lines
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            pages.push((name, examples));
        }
        walk(&command, &mut pages);
        pages
    }

    #[test]
    fn pages_have_no_extra_section_and_examples_unfilled() {
        let dir = std::env::temp_dir().join(format!("nodecheck-man-test-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("mkdir");
        let written = generate_to(&dir).expect("pages");
        let pages = examples_by_page();
        assert_eq!(written.len(), pages.len(), "{written:?}");
        let with_examples = pages.iter().filter(|(_, e)| !e.is_empty()).count();
        assert!(
            with_examples >= 9,
            "every command has examples ({with_examples})"
        );
        let groff = Command::new("groff").arg("--version").output().is_ok();
        if !groff {
            test_support::skip("no groff here: only the pages' roff source is checked");
        }
        for (name, examples) in &pages {
            let path = dir.join(name);
            let source = fs::read_to_string(&path).expect("page");
            assert!(!source.contains("EXTRA"), "{name} has an EXTRA section");
            assert!(source.contains("\n.nh\n"), "{name}: hyphenation off");
            if !examples.is_empty() {
                assert!(source.contains(".SH EXAMPLES\n.nf\n"), "{name}: {source}");
            }
            if !groff {
                continue;
            }
            let rendered = Command::new("groff")
                .args(["-man", "-Tutf8", "-P-cbou"])
                .arg(&path)
                .output()
                .expect("groff runs");
            assert!(rendered.status.success(), "{name}: {rendered:?}");
            // Plain groff types `\-` as U+2212 where Debian's man.local does not map it to
            // ASCII; either way the page source asks for the hyphen-minus.
            let text = String::from_utf8_lossy(&rendered.stdout).replace('\u{2212}', "-");
            assert!(
                !text.contains('\u{2010}'),
                "{name}: groff hyphenated a word:\n{text}"
            );
            assert!(!text.contains("EXTRA"), "{name}:\n{text}");
            let lines: Vec<&str> = text.lines().map(str::trim).collect();
            for example in examples {
                assert!(
                    lines.contains(&example.as_str()),
                    "{name}: example not printed verbatim: {example:?}\n{text}"
                );
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn roff_escapes_give_back_the_ascii_characters() {
        assert_eq!(
            escape_line(".x 'a' `b` ~/c-d \\e ^"),
            "\\&.x \\(aqa\\(aq \\(gab\\(ga \\(ti/c\\-d \\ee \\(ha"
        );
    }
}
