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
