//! The `nodecheck` command line as a library: the binary is a thin `main` over [`run`], and
//! `cargo xtask dist` builds completions and the man page from [`Cli`].
//!
//! This crate owns the CLI (`cli` → `config`), the commands, every output (`render`: one
//! `render::Document` per thing printed, plots included) and exit codes; the work is done by
//! the `probe`, `bench` and `verdict` libraries, which return data only. Its modules are
//! private: what `main`, xtask, the fuzz targets and the tests use is named below.

// Every stderr write goes through `stderr::line`, which survives a closed or full stderr.
#![deny(clippy::print_stderr)]

// The insides: the CLI (`cli` → `config`), the commands, every output (`render`), and what
// they share.
mod cli;
mod commands;
mod config;
mod database;
mod output_file;
mod progress;
mod redact;
mod render;
mod report;
mod signals;
mod stderr;

// Namespaces of one contract each: the exit codes docs/exit-codes.md documents, and the
// snapshot archive (`unpack` for xtask's VM harness and the fuzz target; the manifest and the
// names inside for the tests that build archives by hand).
pub mod exit_codes;
pub mod snapshot;

// The command line's definition: completions and the man page (`cargo xtask dist`), and the
// tests that parse every command the docs and messages print.
pub use cli::Cli;
// What `check --json` prints and `triage` reads back; the signals the binary cleans up after
// (its exit status is then 128 + the signal); the version of the embedded drive database.
pub use database::embedded_version as embedded_database_version;
pub use report::{Report, SCHEMA_VERSION as REPORT_SCHEMA_VERSION};
pub use signals::HANDLED as HANDLED_SIGNALS;
// Readers of what users paste and save, which the fuzz targets feed hostile bytes.
pub use commands::triage::classify as classify_triage_input;
pub use commands::watch::triage::{
    ioping_text as parse_ioping_text, iostat_text as parse_iostat_text, report as read_watch_input,
};
// Plots and hints, whose tests check what a reader of them sees.
pub use commands::hints::{bench_failure as bench_failure_hint, Printer as HintPrinter};
pub use render::plot::{check_plot_path, render_svg, svg_options, write_plot, PlotError};

use clap::Parser;

/// Parses the command line, runs the command, and returns the process exit code. Errors are
/// printed as one line with their cause chain, never a backtrace.
pub fn run() -> u8 {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            return match err.kind() {
                // Help and version go to stdout as clap prints them; so does the help a
                // bare `nodecheck db` asks for.
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayVersion
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = err.print();
                    exit_codes::GOOD
                }
                _ => {
                    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
                    let rendered = err.render().to_string();
                    stderr::line(&usage_error_line(&rendered, &named_command(&args)));
                    exit_codes::USAGE
                }
            };
        }
    };
    let config = match cli.into_config() {
        Ok(config) => config,
        Err(message) => {
            stderr::line(&format!(
                "nodecheck: error: {message}; see `nodecheck --help`"
            ));
            return exit_codes::USAGE;
        }
    };
    let code = match commands::run(config) {
        Ok(code) => code,
        Err(err) => {
            let code = match err.downcast_ref::<commands::UsageError>() {
                Some(_) => exit_codes::USAGE,
                None => exit_codes::COULD_NOT_CHECK,
            };
            stderr::line(&format!("nodecheck: error: {}", one_line(&err)));
            code
        }
    };
    signals::exit_status(code)
}

/// clap's usage error (an `error:` line, perhaps a list, the possible values, a `tip:`, the
/// usage block and "For more information, try '--help'.") as the one line every other error
/// is: the message, its tips, and the `--help` of the command the usage block names, else
/// of `command` (the subcommand the arguments named).
pub fn usage_error_line(rendered: &str, command: &str) -> String {
    let mut message: Vec<String> = Vec::new();
    let mut command = command.to_string();
    let mut lines = rendered.lines().map(str::trim).peekable();
    while let Some(line) = lines.next() {
        if let Some(usage) = line.strip_prefix("Usage:") {
            // `Usage: nodecheck db lookup [OPTIONS] <MODEL>`: the command is the words before
            // the first placeholder or option.
            let words: Vec<&str> = usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect();
            if !words.is_empty() {
                command = words.join(" ");
            }
            // The usage block goes on with indented alternatives until a blank line.
            while lines.peek().is_some_and(|l| !l.is_empty()) {
                lines.next();
            }
            continue;
        }
        if line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        let text = line.strip_prefix("error:").unwrap_or(line).trim();
        let text = text.trim_end_matches('.');
        match message.last_mut() {
            // The items of a list ("the following required arguments were not provided:").
            Some(last) if last.ends_with(':') || last.ends_with(',') => {
                last.push(' ');
                last.push_str(text);
            }
            // `[possible values: table, json]` after an invalid value.
            Some(last) if text.starts_with('[') && text.ends_with(']') => {
                last.push_str(&format!(" ({})", &text[1..text.len() - 1]));
            }
            _ => message.push(text.to_string()),
        }
    }
    format!(
        "nodecheck: error: {}; see `{command} --help`",
        message.join("; ")
    )
}

/// The subcommand `args` (the whole command line) name, as `nodecheck db lookup`: what a
/// usage error clap prints without its usage block refers to. Values of options are skipped,
/// so `--db check` is not taken for the `check` command.
pub fn named_command(args: &[std::ffi::OsString]) -> String {
    use clap::CommandFactory;
    let mut command = cli::Cli::command();
    command.build();
    let mut path = vec!["nodecheck".to_string()];
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let takes_value = !long.contains('=')
                && command
                    .get_arguments()
                    .find(|a| a.get_long() == Some(long))
                    .is_some_and(|a| a.get_action().takes_values());
            if takes_value {
                words.next();
            }
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        match command.find_subcommand(word.as_ref()).cloned() {
            Some(sub) => {
                path.push(sub.get_name().to_string());
                command = sub;
            }
            None => break,
        }
    }
    path.join(" ")
}

/// The error and its causes joined with `: `, on one line. A cause whose text its parent
/// already quotes (libraries often say "cannot read X: {source}" and also return the source)
/// is not repeated.
fn one_line(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string().replace('\n', " ");
        if out.contains(text.as_str()) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
