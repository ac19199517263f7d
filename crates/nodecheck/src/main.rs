//! The `nodecheck` command line: probe, bench and judge the storage under an Ethereum node's
//! data directory. This crate owns the CLI, rendering and exit codes; the work is done by the
//! `probe`, `bench` and `verdict` libraries.

mod cli;
mod commands;
mod exit_codes;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout and usage errors to stderr.
            let _ = err.print();
            return match err.kind() {
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayVersion
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(exit_codes::USAGE),
            };
        }
    };
    match commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // One sentence with the cause chain, never a backtrace.
            eprintln!("nodecheck: error: {err:#}");
            ExitCode::from(exit_codes::COULD_NOT_CHECK)
        }
    }
}
