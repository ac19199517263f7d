//! The `nodecheck` command line as a library: the binary is a thin `main` over [`run`], and
//! `cargo xtask dist` builds completions and the man page from [`cli::Cli`].
//!
//! This crate owns the CLI ([`cli`] → [`config`]), the commands, every output ([`render`]:
//! one [`render::Document`] per thing printed, plots and the generated drive list included)
//! and exit codes; the work is done by the `probe`, `bench` and `verdict` libraries, which
//! return data only.

// Every stderr write goes through `stderr::line`, which survives a closed or full stderr.
#![deny(clippy::print_stderr)]

pub mod cli;
pub mod commands;
pub mod config;
pub mod database;
pub mod exit_codes;
pub mod output_file;
pub mod progress;
pub mod redact;
pub mod render;
pub mod report;
pub mod signals;
pub mod snapshot;
pub mod stderr;

use clap::Parser;

/// Parses the command line, runs the command, and returns the process exit code. Errors are
/// printed as one line with their cause chain, never a backtrace.
pub fn run() -> u8 {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout and usage errors to stderr.
            let _ = err.print();
            return match err.kind() {
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayVersion
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    exit_codes::GOOD
                }
                _ => exit_codes::USAGE,
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

/// The error and its causes joined with `: `, on one line. A cause whose text its parent
/// already quotes (libraries often say "cannot read X: {source}" and also return the source)
/// is not repeated.
pub fn one_line(err: &anyhow::Error) -> String {
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
