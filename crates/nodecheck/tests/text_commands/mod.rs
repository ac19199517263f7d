//! Finding the nodecheck command lines and options named in user-facing text (Rust string
//! literals, docs, help output), and checking each against the real CLI definition.

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use nodecheck::Cli;

/// Samples for placeholder values in documented commands (`--capacity SIZE`).
fn sample_for(placeholder: &str) -> Option<&'static str> {
    Some(match placeholder {
        "SIZE" => "2TB",
        "N" | "SECS" | "SECONDS" => "10",
        "FORMAT" => "json",
        _ => return None,
    })
}

/// Splits a command line the way a POSIX shell would for the simple cases docs use (quotes,
/// backslash escapes), stopping at a redirection, pipe, list operator or comment.
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        q => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '>' | '<' | '|' | ';' | '&' => break,
            '#' if !in_word => break,
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Parses a documented `nodecheck ...` (or `sudo nodecheck ...`) command line with the real
/// CLI definition. `Err` carries clap's message.
pub fn parse_command(line: &str) -> Result<(), String> {
    let mut words = shell_words(line);
    if words.first().is_some_and(|w| w == "sudo") {
        words.remove(0);
    }
    if words.first().map(String::as_str) != Some("nodecheck") {
        return Err(format!("not a nodecheck command: {line}"));
    }
    // `format!` placeholders in Rust sources stand for a value.
    let words: Vec<String> = words
        .into_iter()
        .map(|w| {
            if w.contains('{') {
                w.replace(['{', '}'], "")
            } else {
                w
            }
        })
        .map(|w| sample_for(&w).map_or(w, str::to_string))
        .map(|w| if w.is_empty() { "x".to_string() } else { w })
        .collect();
    match Cli::try_parse_from(&words) {
        Ok(cli) => cli
            .into_config()
            .map(|_| ())
            .map_err(|e| format!("`{line}`: {e}")),
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            Ok(())
        }
        Err(err) => Err(format!("`{line}`: {}", err.render())),
    }
}

/// The long options (`--force`) named in `text`, in order, without duplicates.
pub fn long_flags(text: &str) -> Vec<String> {
    let mut flags: Vec<String> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before_ok = start == 0
            || matches!(
                bytes[start - 1],
                b' ' | b'\t' | b'\n' | b'(' | b'`' | b'[' | b'"' | b'\''
            );
        let rest = &text[start + 2..];
        let len = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        if before_ok && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            let flag = format!("--{}", name.trim_end_matches('-'));
            if !flags.contains(&flag) {
                flags.push(flag);
            }
        }
        i = start + 2 + len.max(1).min(rest.len());
        if i >= text.len() {
            break;
        }
    }
    flags
}

/// What a piece of user-facing text names: whole nodecheck command lines (in backticks), and
/// options named on their own (outside backticks, or in a backtick span that starts with one).
#[derive(Debug, Default)]
pub struct Named {
    pub commands: Vec<String>,
    pub bare_flags: Vec<String>,
}

pub fn named_in(text: &str) -> Named {
    let mut named = Named::default();
    for (index, piece) in text.split('`').enumerate() {
        let in_code = index % 2 == 1;
        let trimmed = piece.trim();
        if in_code {
            if trimmed.starts_with("nodecheck ")
                || trimmed == "nodecheck"
                || trimmed.starts_with("sudo nodecheck")
            {
                named.commands.push(trimmed.to_string());
            } else if trimmed.starts_with("--") {
                named.bare_flags.extend(long_flags(trimmed));
            }
            // Anything else in backticks is another program's command line.
        } else if !starts_another_program(trimmed) {
            named.bare_flags.extend(long_flags(piece));
        }
    }
    named
}

/// A fix that is a whole command line of another program (`sudo systemctl enable --now ...`):
/// its options are that program's.
fn starts_another_program(text: &str) -> bool {
    text.strip_prefix("sudo ")
        .is_some_and(|rest| !rest.starts_with("nodecheck"))
}

/// Whether `subcommand` (`["bench"]`, `["db", "lookup"]`, `[]` for the top level) takes `flag`:
/// the command line is parsed with the option and, when it takes a value, each sample value
/// in turn, plus placeholders for required arguments.
pub fn accepts(subcommand: &[&str], flag: &str) -> Result<(), String> {
    let mut command = Cli::command();
    for name in subcommand {
        command = command
            .find_subcommand(name)
            .unwrap_or_else(|| panic!("no subcommand {name}"))
            .clone();
    }
    let name = flag.trim_start_matches("--");
    let Some(arg) = command
        .get_arguments()
        .find(|a| a.get_long() == Some(name))
        .cloned()
    else {
        return Err(format!(
            "`nodecheck {}` has no {flag}",
            subcommand.join(" ")
        ));
    };
    let mut required: Vec<String> = Vec::new();
    for other in command.get_arguments().filter(|a| a.is_required_set()) {
        if other.get_id() == arg.get_id() {
            continue;
        }
        match other.get_long() {
            Some(long) => required.extend([format!("--{long}"), "out.tar.gz".to_string()]),
            None if other.get_short().is_some() => required.extend([
                format!("-{}", other.get_short().unwrap()),
                "out.tar.gz".into(),
            ]),
            None => required.push("placeholder".to_string()),
        }
    }
    let takes_value = arg.get_action().takes_values();
    let values: Vec<String> = if !takes_value {
        vec![String::new()]
    } else if !arg.get_possible_values().is_empty() {
        vec![arg.get_possible_values()[0].get_name().to_string()]
    } else {
        ["1G", "10", "x.svg", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let mut last_error = String::new();
    for value in values {
        let mut argv = vec!["nodecheck".to_string()];
        argv.extend(subcommand.iter().map(|s| s.to_string()));
        argv.push(flag.to_string());
        if !value.is_empty() {
            argv.push(value);
        }
        argv.extend(required.iter().cloned());
        match Cli::try_parse_from(&argv) {
            Ok(_) => return Ok(()),
            Err(err) if err.kind() == ErrorKind::DisplayHelp => return Ok(()),
            Err(err) => last_error = format!("{argv:?}: {}", err.render()),
        }
    }
    Err(last_error)
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("workspace root")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("readable source dir")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The string literals of a Rust source file outside its `#[cfg(test)]` module: the text a
/// user can see. Comments, char literals and lifetimes are skipped.
pub fn string_literals(source: &str) -> Vec<String> {
    let source = match source.find("#[cfg(test)]\nmod tests") {
        Some(at) => &source[..at],
        None => source,
    };
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&chars, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                i += 1;
                continue;
            }
            j += 1;
            let start = j;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    break;
                }
                j += 1;
            }
            out.push(chars[start..j.min(chars.len())].iter().collect());
            i = j + 1 + hashes;
        } else if c == '"' {
            let mut j = i + 1;
            let mut text = String::new();
            while j < chars.len() && chars[j] != '"' {
                if chars[j] == '\\' {
                    match chars.get(j + 1) {
                        Some('n') => text.push('\n'),
                        Some('\n') => {
                            // A line continuation swallows the next line's indentation.
                            j += 2;
                            while j < chars.len() && chars[j].is_whitespace() {
                                j += 1;
                            }
                            continue;
                        }
                        Some(other) => text.push(*other),
                        None => {}
                    }
                    j += 2;
                    continue;
                }
                text.push(chars[j]);
                j += 1;
            }
            out.push(text);
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\'') or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// The code spans (`...`) of a piece of text, in order.
pub fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// The simple commands of a shell line: its words split as [`shell_words`] does, cut at `|`,
/// `&&`, `||` and `;`. A redirection ends the command's words (its target is not an argument).
pub fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut rest = line;
    loop {
        let words = shell_words(rest);
        commands.push(words);
        // The next operator outside quotes, if any.
        let mut quote = None;
        let mut next = None;
        for (at, c) in rest.char_indices() {
            match (quote, c) {
                (None, '\'' | '"') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '|' | ';' | '&') => {
                    next = Some(at);
                    break;
                }
                _ => {}
            }
        }
        match next {
            Some(at) => rest = rest[at..].trim_start_matches(['|', ';', '&']),
            None => break,
        }
    }
    commands.retain(|c| !c.is_empty());
    commands
}

/// Whether a word placed before any `--` reads as an option to the program that gets it:
/// `-x`, `-xvf`, `--name`, `--name=value`. `-.mount` is not one, and programs reject it.
fn option_shaped(word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or("");
        return name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    }
    // `-x`, `-xvf`, and a short option with its value attached (`-o+discards`).
    word[1..].starts_with(|c: char| c.is_ascii_alphanumeric())
}

/// A printed code span that is meant to be pasted into a shell runs as printed: bash parses
/// it, it holds no `<placeholder>` (which a shell reads as a redirection from a file), every
/// word that starts with `-` before a `--` is an option, and a `nodecheck` command parses with
/// the real CLI.
pub fn check_pasteable(span: &str) -> Result<(), String> {
    let span = span.trim();
    if span.is_empty() {
        return Ok(());
    }
    // On standard input: a span that starts with `-` would be an option of bash's own.
    let bash = {
        use std::io::Write;
        let mut child = std::process::Command::new("bash")
            .arg("-n")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("bash: {e}"))?;
        let mut stdin = child.stdin.take().expect("piped");
        stdin
            .write_all(span.as_bytes())
            .map_err(|e| format!("bash: {e}"))?;
        drop(stdin);
        child.wait_with_output().map_err(|e| format!("bash: {e}"))?
    };
    if !bash.status.success() {
        return Err(format!(
            "`{span}`: bash cannot parse it: {}",
            String::from_utf8_lossy(&bash.stderr).trim()
        ));
    }
    let placeholder = span.char_indices().any(|(at, c)| {
        c == '<'
            && span[at + 1..]
                .chars()
                .next()
                .is_some_and(|n| n.is_ascii_alphabetic())
            && span[at..].contains('>')
    });
    if placeholder {
        return Err(format!(
            "`{span}`: an angle-bracket placeholder is a shell redirection when pasted; write it as an upper-case word (DRIVE, VMID)"
        ));
    }
    for words in simple_commands(span) {
        let mut words: &[String] = &words;
        if words.first().is_some_and(|w| w == "sudo") {
            words = &words[1..];
        }
        for word in words.iter().skip(1).take_while(|w| *w != "--") {
            if word.starts_with('-') && word.len() > 1 && !option_shaped(word) {
                return Err(format!(
                    "`{span}`: {word:?} reads as options to {}; put `--` before it",
                    words[0]
                ));
            }
        }
        if words.first().is_some_and(|w| w == "nodecheck") {
            parse_command(&shell_join(words))?;
        }
    }
    Ok(())
}

fn shell_join(words: &[String]) -> String {
    words
        .iter()
        .map(|w| units::text::shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}
