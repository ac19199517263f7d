//! One module per subcommand.

pub mod bench;

use crate::cli::{Cli, Command};

/// Runs the chosen command and returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Some(Command::Bench(args)) => bench::run(&args),
        None => anyhow::bail!("no command given; see `nodecheck --help`"),
    }
}
