//! One module per subcommand, and what they share: writing to stdout, usage errors, the
//! database and the report that every output format renders.

pub mod bench;
pub mod check;
pub mod db;
pub(crate) mod drive_watch;
pub mod hints;
pub mod measure;
pub mod probe;
pub mod snapshot;
pub mod submit;
pub mod triage;
pub mod watch;

use std::io::{self, Write};

use verdict::Database;
use verdict::{ClientChoice, Verdict};

use crate::config::{ClientName, Clients, CommandConfig, Config, ConsensusName};

/// The verdict on `facts` and `bench` for the clients the user named: the `--client`'s needs
/// (every client's without one), with the `--cl` client's database on the same disk, in the
/// `--history` and `--cl-mode` modes.
fn judge(
    facts: &::probe::Facts,
    bench: Option<&::bench::BenchReport>,
    db: &Database,
    clients: Clients,
) -> Verdict {
    let client = match clients.execution {
        Some(c) => ClientChoice::Named(c.id().to_string()),
        None => ClientChoice::Strictest,
    };
    let choice = verdict::NodeChoice {
        history: clients.history,
        consensus_mode: clients.consensus_mode,
        ..verdict::NodeChoice::new(client, clients.consensus.map(ConsensusName::id))
    };
    verdict::judge_choice(facts, bench, db, &choice)
}

/// An error in what the user asked for that clap cannot see (an argument that makes no sense
/// for the others given). Exits with [`crate::exit_codes::USAGE`]; every other error means
/// the check could not be made ([`crate::exit_codes::COULD_NOT_CHECK`]).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Runs the chosen command and returns the process exit code.
pub fn run(config: Config) -> anyhow::Result<u8> {
    let global = config.global;
    match config.command {
        CommandConfig::Check(c) => check::run(&c, &global),
        CommandConfig::Probe(c) => probe::run(&c, &global),
        CommandConfig::Bench(c) => bench::run(&c, &global),
        CommandConfig::DbLookup(c) => db::lookup(&c, &global),
        CommandConfig::DbList(c) => db::list(&c, &global),
        CommandConfig::Triage(c) => triage::run(&c, &global),
        CommandConfig::Snapshot(c) => snapshot::run(&c, &global),
        CommandConfig::Submit(c) => submit::run(&c, &global),
        CommandConfig::Watch(c) => watch::run(&c, &global),
    }
}

/// Writes to stdout. A closed pipe (`nodecheck ... | head`) is the reader's choice, not an
/// error worth a message.
pub fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(anyhow::Error::new(err).context("cannot write to standard output")),
    }
}

/// A line for stderr, unless `-q`.
pub fn say(global: &crate::config::GlobalOptions, line: &str) {
    if global.verbosity >= 0 {
        crate::stderr::line(line);
    }
}

/// True when running with an effective uid of 0.
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Looks for an execution client's data directory in the default places of this machine, for
/// the commands given no PATH. The probe reads the machine; the catalog names the clients.
pub(crate) fn detect_datadir() -> Option<::probe::datadir::Detected> {
    let clients: Vec<&'static str> = ClientName::all().map(ClientName::id).collect();
    ::probe::datadir::detect(
        &::probe::Root::live(),
        &::probe::datadir::home_dirs(),
        &clients,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_datadir_location_names_a_client_of_the_catalog() {
        let locations = ::probe::datadir::HOME_CANDIDATES
            .iter()
            .chain(&::probe::datadir::SYSTEM_CANDIDATES);
        for (path, client) in locations {
            assert!(ClientName::named(client).is_some(), "{path}: {client}");
        }
    }
}
