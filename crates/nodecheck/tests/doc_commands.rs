//! The documentation's commands work as written: every `nodecheck ...` line in the README's and
//! docs' shell blocks and code spans parses with the real CLI, and the Prometheus textfile
//! script (docs/formats.md and docs/fleets.md, one script) is run for real on good, bad and
//! failing checks.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::text_commands::{parse_command, workspace};

fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![
        workspace().join("README.md"),
        workspace().join("DEVELOPERS.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(workspace().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The fenced blocks of a Markdown file with their info string.
fn fenced_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed.starts_with("```") => {
                current = Some((
                    trimmed.trim_start_matches('`').trim().to_string(),
                    String::new(),
                ));
            }
            Some(_) if trimmed.starts_with("```") => blocks.extend(current.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// Shell lines with `\` continuations joined.
fn shell_lines(body: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut pending = String::new();
    for line in body.lines() {
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        lines.push(std::mem::take(&mut pending));
    }
    lines
}

/// `nodecheck ...` at the start of a line or after `$ `, `sudo `, `exec ` or a `$(`.
fn nodecheck_command(line: &str) -> Option<&str> {
    let line = line.trim_start().trim_start_matches("$ ");
    (line.starts_with("nodecheck ") || line == "nodecheck" || line.starts_with("sudo nodecheck"))
        .then_some(line)
}

#[test]
fn every_documented_command_parses() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).expect("doc");
        let name = file
            .strip_prefix(workspace())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (info, body) in fenced_blocks(&text) {
            if !matches!(info.as_str(), "sh" | "bash" | "console" | "shell") {
                continue;
            }
            for line in shell_lines(&body) {
                if let Some(command) = nodecheck_command(&line) {
                    checked += 1;
                    if let Err(err) = parse_command(command) {
                        problems.push(format!("{name}: {err}"));
                    }
                }
            }
        }
        // Commands quoted in prose.
        let prose: String = text
            .split("```")
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join("\n");
        for (i, span) in prose.split('`').enumerate() {
            if i % 2 == 1 {
                // A command with options, not a synopsis (`[--test T]`, `<FILE>`, `...`) or the
                // bare name of a subcommand.
                let synopsis = ["[", "<", "...", "…"].iter().any(|s| span.contains(s));
                if synopsis || !span.contains("--") {
                    continue;
                }
                if let Some(command) = nodecheck_command(span) {
                    checked += 1;
                    if let Err(err) = parse_command(command) {
                        problems.push(format!("{name}: {err}"));
                    }
                }
            }
        }
    }
    assert!(checked > 40, "the docs' commands were found ({checked})");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The one Prometheus textfile script, as documented in `file`.
fn prometheus_script(file: &str) -> String {
    let text = std::fs::read_to_string(workspace().join(file)).expect("doc");
    fenced_blocks(&text)
        .into_iter()
        .find(|(info, body)| {
            info == "sh" && body.contains("--format prometheus") && body.contains("mktemp")
        })
        .map(|(_, body)| body)
        .unwrap_or_else(|| panic!("{file} has the textfile script"))
}

#[test]
fn the_prometheus_script_publishes_every_verdict_and_leaves_no_temp_files() {
    let script = prometheus_script("docs/formats.md");
    assert_eq!(
        script,
        prometheus_script("docs/fleets.md"),
        "the two docs show one script"
    );

    let work = tempfile::tempdir().expect("tempdir");
    let textfile = work.path().join("textfile");
    std::fs::create_dir(&textfile).expect("mkdir");
    // The documented script with the collector's directory moved here; `nodecheck` on PATH is
    // the real binary replaying a fixture machine (a replay never measures).
    let runnable = script.replace(
        "/var/lib/node_exporter/textfile",
        &textfile.display().to_string(),
    );
    let script_path = work.path().join("nodecheck-cron");
    std::fs::write(&script_path, runnable).expect("script");
    let bin = work.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let shim = bin.join("nodecheck");
    std::fs::write(
        &shim,
        "#!/bin/sh\n\
         for a do shift; set -- \"$@\" \"$a\"; [ \"$a\" = check ] && set -- \"$@\" --root \"$NODECHECK_TEST_ROOT\"; done\n\
         exec \"$NODECHECK_REAL\" \"$@\"\n",
    )
    .expect("shim");
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let real = assert_cmd::cargo::cargo_bin("nodecheck");

    let run = |root: &Path| {
        Command::new("sh")
            .arg(&script_path)
            .env("PATH", &path)
            .env("NODECHECK_REAL", &real)
            .env("NODECHECK_TEST_ROOT", root)
            .env_remove("NODECHECK_DB")
            .output()
            .expect("sh runs")
    };
    let entries = || {
        let mut names: Vec<String> = std::fs::read_dir(&textfile)
            .expect("textfile dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let published = || std::fs::read_to_string(textfile.join("nodecheck.prom")).unwrap_or_default();

    // Exit 1 (ugly) and 2 (bad): the metrics are published, nothing else is left.
    for (scenario, code, grade) in [
        ("nvme_degraded_pcie_link", 1, 2),
        ("sata_raid_mode_trim_blocked", 2, 3),
    ] {
        let fixture = crate::cli_support::Fixture::named(scenario);
        let output = run(fixture.root());
        assert_eq!(output.status.code(), Some(code), "{scenario}: {output:?}");
        assert_eq!(entries(), ["nodecheck.prom"], "{scenario}");
        let metrics = published();
        assert!(
            metrics.contains(&format!(
                "nodecheck_grade{{path=\"/var/lib/ethereum\"}} {grade}"
            )),
            "{scenario}: {metrics}"
        );
        let mode = std::fs::metadata(textfile.join("nodecheck.prom"))
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644, "readable by node_exporter's user");
    }

    // Exit 4 (could not check): the last metrics stay, the temporary file is gone.
    let before = published();
    let missing = work.path().join("no-such-root");
    let output = run(&missing);
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    assert_eq!(entries(), ["nodecheck.prom"]);
    assert_eq!(published(), before);
}

/// The exit codes in column `column` of the first table after `heading` in `file`.
fn documented_codes(file: &str, heading: &str, column: usize) -> Vec<u32> {
    let text = std::fs::read_to_string(workspace().join(file)).expect("doc");
    let after = &text[text
        .find(heading)
        .unwrap_or_else(|| panic!("{file}: {heading}"))..];
    let mut codes = Vec::new();
    let mut in_table = false;
    for line in after.lines() {
        if line.starts_with('|') {
            in_table = true;
            let cell = line
                .trim_start_matches('|')
                .split('|')
                .nth(column)
                .unwrap_or("");
            codes.extend(
                cell.split(|c: char| !c.is_ascii_digit())
                    .filter_map(|n| n.parse::<u32>().ok()),
            );
        } else if in_table {
            break;
        }
    }
    codes.sort_unstable();
    codes
}

#[test]
fn exit_codes_are_documented_alike_everywhere() {
    use nodecheck::exit_codes::*;
    let mut commands: Vec<u32> = [GOOD, UGLY, BAD, USAGE, COULD_NOT_CHECK]
        .iter()
        .map(|&c| u32::from(c))
        .collect();
    commands.sort_unstable();
    let mut signals: Vec<u32> = nodecheck::HANDLED_SIGNALS
        .iter()
        .map(|&s| 128 + s as u32)
        .collect();
    signals.sort_unstable();
    let mut all = [commands.clone(), signals.clone()].concat();
    all.sort_unstable();

    assert_eq!(documented_codes("README.md", "## Exit codes", 0), all);
    assert_eq!(
        documented_codes("docs/exit-codes.md", "# Exit codes", 0),
        commands
    );
    assert_eq!(
        documented_codes("docs/exit-codes.md", "## Signals", 1),
        signals
    );
    let help = crate::cli_support::stdout(
        &crate::cli_support::nodecheck()
            .arg("--help")
            .output()
            .expect("runs"),
    );
    for code in [129, 130, 143] {
        assert!(
            help.contains(&code.to_string()),
            "--help names exit code {code}:\n{help}"
        );
    }
}

#[test]
fn the_readme_names_the_packages_this_version_builds() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("README");
    let version = env!("CARGO_PKG_VERSION");
    for name in [
        format!("nodecheck-{version}-x86_64-linux.tar.gz"),
        format!("nodecheck_{version}_amd64.deb"),
        "cargo install --locked --path crates/nodecheck".to_string(),
        "docker build -t nodecheck .".to_string(),
    ] {
        assert!(readme.contains(&name), "README.md names {name}");
    }
}
