//! Every command nodecheck prints runs as printed: each code span of every fixture machine's
//! report (JSON, table, markdown, discord), of this machine's own report and of the drive
//! database's texts goes through bash's parser and the pasteability rules of
//! `crate::text_commands::check_pasteable` (no `<placeholder>`, no argument that reads as options),
//! and a `nodecheck ...` span through the real CLI. The bench hints are checked the same way in
//! hints_runnable.rs.

use crate::cli_support::{all_scenarios, nodecheck, stdout, Fixture};
use crate::text_commands::{check_pasteable, code_spans, workspace};

/// The user-facing strings of a JSON report: findings, notes, summary.
fn report_texts(report: &serde_json::Value) -> Vec<String> {
    let mut texts = Vec::new();
    for finding in report["findings"].as_array().into_iter().flatten() {
        for key in ["title", "detail", "fix"] {
            texts.extend(finding[key].as_str().map(str::to_string));
        }
    }
    for note in report["notes"].as_array().into_iter().flatten() {
        texts.extend(note.as_str().map(str::to_string));
    }
    texts.extend(report["summary"].as_str().map(str::to_string));
    texts
}

/// The table's finding cells with their wrapped lines joined again: the third column of each
/// row, continued on the rows below until the next code.
fn table_cells(table: &str) -> Vec<String> {
    let mut cells: Vec<String> = Vec::new();
    for line in table.lines() {
        let columns: Vec<&str> = line.split('┆').collect();
        let [_, code, text] = columns.as_slice() else {
            continue;
        };
        let text = text.trim_end_matches('│').trim();
        if !code.trim().is_empty() || cells.is_empty() {
            cells.push(text.to_string());
        } else if let Some(last) = cells.last_mut() {
            last.push(' ');
            last.push_str(text);
        }
    }
    cells
}

fn check_spans(origin: &str, text: &str, problems: &mut Vec<String>, spans: &mut usize) {
    for span in code_spans(text) {
        *spans += 1;
        if let Err(err) = check_pasteable(&span) {
            problems.push(format!("{origin}: {err}"));
        }
    }
}

#[test]
fn every_command_in_every_report_format_pastes() {
    let mut problems = Vec::new();
    let mut spans = 0;
    for scenario in all_scenarios() {
        let fixture = Fixture::build(scenario);
        let json = stdout(&fixture.check(&["--bench", "none", "--json"]));
        let Ok(report) = serde_json::from_str::<serde_json::Value>(&json) else {
            // Hostile trees that cannot be checked print no report; cli_hostile_input.rs
            // covers what they print instead.
            continue;
        };
        for text in report_texts(&report) {
            check_spans(scenario.name, &text, &mut problems, &mut spans);
        }
        for format in ["markdown", "discord"] {
            let out = stdout(&fixture.check(&["--bench", "none", "--format", format]));
            for line in out.lines() {
                check_spans(
                    &format!("{} ({format})", scenario.name),
                    line,
                    &mut problems,
                    &mut spans,
                );
            }
        }
        let table = stdout(&fixture.check(&["--bench", "none"]));
        for cell in table_cells(&table) {
            check_spans(
                &format!("{} (table)", scenario.name),
                &cell,
                &mut problems,
                &mut spans,
            );
        }
    }
    assert!(spans > 200, "the reports' commands were found ({spans})");
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_command_in_this_machines_report_pastes() {
    // This machine's own mounts: the root file system, mounted by a systemd unit `-.mount`
    // when fstab has no line for it, is the case fixtures do not build.
    let dir = tempfile::tempdir().expect("tempdir");
    let output = nodecheck()
        .args(["check", "--bench", "none", "--no-smartctl", "--json"])
        .arg(dir.path())
        .output()
        .expect("runs");
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&output)).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    let mut problems = Vec::new();
    let mut spans = 0;
    for text in report_texts(&report) {
        check_spans("this machine", &text, &mut problems, &mut spans);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_command_in_the_drive_database_pastes() {
    let mut problems = Vec::new();
    let mut spans = 0;
    let data = workspace().join("data");
    let mut files: Vec<_> = std::fs::read_dir(&data)
        .expect("data/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("toml");
        // TOML basic strings escape quotes and backslashes; the printed text has them bare.
        let text = text
            .replace("\\\\", "\u{0}")
            .replace("\\\"", "\"")
            .replace('\u{0}', "\\");
        for (n, line) in text.lines().enumerate() {
            // Spans that quote a part-number pattern (`<7 digits>:ICDPC5ED2ORA<size>T`) are
            // not commands.
            for span in code_spans(line).iter().filter(|s| reads_as_command(s)) {
                spans += 1;
                if let Err(err) = check_pasteable(span) {
                    problems.push(format!("{}:{}: {err}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(spans > 20, "the database's commands were found ({spans})");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_rules_catch_what_fails_when_pasted() {
    for bad in [
        "systemctl cat -.mount",
        "7z x <the ISO> && ls",
        "sudo smartctl -x /dev/<drive>",
        "nodecheck check --no-such-option",
        "echo 'unclosed",
    ] {
        assert!(check_pasteable(bad).is_err(), "{bad}");
        // The filter the database and source scans use keeps every one of them.
        assert!(reads_as_command(bad), "{bad}");
    }
    assert!(!reads_as_command("</details>"));
    assert!(!reads_as_command("<7 digits>:ICDPC5ED2ORA<size>T"));
    for good in [
        "systemctl cat -- -.mount",
        "sudo du -xh --max-depth=2 / | sort -h | tail",
        "qm set VMID --scsihw virtio-scsi-single --scsi0 STORAGE:DISK,iothread=1,ssd=1,cache=none",
        "nodecheck bench --force --test qd1 '/var/lib/my node'",
        "noatime",
    ] {
        check_pasteable(good).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_command_in_the_sources_text_pastes() {
    // Text no fixture prints (rare findings, lookups, errors): each code span of each string
    // literal, with `format!` arguments standing for a value.
    let mut problems = Vec::new();
    let mut spans = 0;
    for krate in ["probe", "bench", "verdict", "nodecheck"] {
        let src = workspace().join("crates").join(krate).join("src");
        for file in crate::text_commands::rust_files(&src) {
            let source = std::fs::read_to_string(&file).expect("source");
            for literal in crate::text_commands::string_literals(&source) {
                let literal = without_format_arguments(&literal);
                // Sources also quote markup and regex fragments (`</details>`, `(`): only
                // spans that read as a program and its arguments are commands.
                for span in code_spans(&literal).iter().filter(|s| reads_as_command(s)) {
                    spans += 1;
                    if let Err(err) = check_pasteable(span) {
                        problems.push(format!("{}: {err}", file.display()));
                    }
                }
            }
        }
    }
    assert!(spans > 50, "the sources' commands were found ({spans})");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `sudo smartctl -i /dev/DRIVE`, `nodecheck check`, `systemctl cat -- X`: a lower-case
/// program name followed by arguments.
fn reads_as_command(span: &str) -> bool {
    let span = span.trim().trim_start_matches("sudo ");
    let Some((program, _)) = span.split_once(' ') else {
        return false;
    };
    program.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && program
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c))
}

/// `{name}`, `{}`, `{0:?}` replaced by a plain word, `{{`/`}}` by the brace they print.
fn without_format_arguments(literal: &str) -> String {
    let mut out = String::new();
    let mut chars = literal.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                out.push_str("VALUE");
            }
            c => out.push(c),
        }
    }
    out
}
