//! What the user asked for, as plain data: the commands never see clap.

use std::path::PathBuf;

use bench::{EngineSettings, Safety};
use verdict::{ClientCatalog, Grade};

pub use crate::render::Format;

/// Options every subcommand honours.
#[derive(Debug, Clone, Default)]
pub struct GlobalOptions {
    /// 0 normal; negative quieter (`-q`), positive more detailed (`-v`).
    pub verbosity: i8,
    /// A drive database to use instead of the embedded one.
    pub db: Option<PathBuf>,
}

#[derive(Debug)]
pub struct Config {
    pub global: GlobalOptions,
    pub command: CommandConfig,
}

#[derive(Debug)]
pub enum CommandConfig {
    Check(CheckConfig),
    Probe(ProbeConfig),
    Bench(BenchConfig),
    DbLookup(DbLookupConfig),
    DbList(DbListConfig),
    Triage(TriageConfig),
    Snapshot(SnapshotConfig),
    Submit(SubmitConfig),
    Watch(WatchConfig),
}

/// How much `check` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchDepth {
    None,
    Quick,
    Full,
}

/// Where the machine's files are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceChoice {
    /// This machine.
    Live,
    /// An unpacked tree (`--root`).
    Root(PathBuf),
    /// A `nodecheck snapshot` archive (`--snapshot`).
    Snapshot(PathBuf),
}

/// The name among the embedded catalog's `names` that is `id`.
fn catalog_name(mut names: impl Iterator<Item = &'static str>, id: &str) -> Option<&'static str> {
    names.find(|name| *name == id)
}

/// An execution client `--client` names: one of `data/clients.toml`'s `[[clients]]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientName(&'static str);

impl ClientName {
    /// The client of this name in the embedded catalog, if there is one.
    pub fn named(id: &str) -> Option<ClientName> {
        catalog_name(ClientCatalog::embedded().execution_names(), id).map(ClientName)
    }

    /// Every execution client, in the catalog's order.
    pub fn all() -> impl Iterator<Item = ClientName> {
        ClientCatalog::embedded().execution_names().map(ClientName)
    }

    /// The lowercase id the database and the command line use.
    pub fn id(self) -> &'static str {
        self.0
    }

    /// How every execution client's running processes look, for the bench's live-node check,
    /// from the catalog's `process` tables: program names and name beginnings match the
    /// process's own name; launcher arguments are text anywhere in a `java`/`dotnet` argument.
    pub fn processes() -> Vec<probe::processes::ClientProcess> {
        ClientCatalog::embedded()
            .process_names()
            .map(|(client, process)| probe::processes::ClientProcess {
                client: client.to_owned(),
                programs: process
                    .names
                    .iter()
                    .cloned()
                    .chain(
                        process
                            .name_prefixes
                            .iter()
                            .map(|prefix| format!("{prefix}*")),
                    )
                    .collect(),
                interpreted: process
                    .launcher_arguments
                    .iter()
                    .map(|text| format!("*{text}*"))
                    .collect(),
            })
            .collect()
    }
}

/// The consensus client `--cl` names: one of `data/clients.toml`'s `[[consensus]]`. Its
/// database shares the execution client's disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConsensusName(&'static str);

impl ConsensusName {
    /// The client of this name in the embedded catalog, if there is one.
    pub fn named(id: &str) -> Option<ConsensusName> {
        catalog_name(ClientCatalog::embedded().consensus_names(), id).map(ConsensusName)
    }

    /// The lowercase id the database and the command line use.
    pub fn id(self) -> &'static str {
        self.0
    }
}

#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// `None`: auto-detect a client datadir, else the current directory.
    pub path: Option<PathBuf>,
    pub source: SourceChoice,
    pub clients: Clients,
    pub bench: BenchDepth,
    /// Saved smartctl outputs, and whether to run `smartctl` on a live machine as root
    /// (`--no-smartctl` turns it off).
    pub probe: probe::ProbeOptions,
    /// Overrides of the measurement's size, runtime and reserve (quick runs, tests).
    pub tuning: BenchTuning,
    /// The document's form; the plot draws the behaviour tests of `--bench full`.
    pub output: Output,
}

/// Where the results go: the document on stdout and, for the behaviour tests, a plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub format: Format,
    /// Hide /home paths and the host name (markdown).
    pub redact: bool,
    /// Where to draw the behaviour tests (an `.svg` file, with a PNG beside it).
    pub plot: Option<PathBuf>,
}

/// The clients whose needs the verdict applies: `--client` (`None`: a detected client, else
/// all of them), the consensus client on the same disk (`--cl`), the history mode
/// (`--history`; `None`: each client's own default) and the consensus mode (`--cl-mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clients {
    pub execution: Option<ClientName>,
    pub consensus: Option<ConsensusName>,
    pub history: Option<verdict::HistoryMode>,
    pub consensus_mode: verdict::ConsensusMode,
}

/// What `--bench-size`, `--bench-runtime` and `--bench-reserve` change; `None` keeps the
/// depth's own value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BenchTuning {
    /// Test file size.
    pub size: Option<u64>,
    /// Per test.
    pub runtime: Option<std::time::Duration>,
    /// Free space to keep.
    pub reserve: Option<u64>,
}

/// Which of the bench's tests to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchTest {
    Qd1,
    Randrw,
    /// qd1, then randrw.
    Both,
    Sync,
    Cliff,
    Span,
}

/// `nodecheck bench`: the tests, their sizes and the engine, as the user asked for them; the
/// command turns them into a [`bench::Plan`].
#[derive(Debug, Clone, PartialEq)]
pub struct BenchConfig {
    /// The directory whose file system to measure.
    pub path: PathBuf,
    /// A block device to read directly instead (qd1 only).
    pub device: Option<PathBuf>,
    pub test: BenchTest,
    /// Per test; `None` keeps the bench's own (the cliff test's cap included).
    pub runtime: Option<std::time::Duration>,
    /// Test file size.
    pub size: Option<u64>,
    /// The engine, its io_uring settings and the pinning, as the plan takes them.
    pub engine: EngineSettings,
    /// The reserve, running beside a client (`--force`) and stale files, as the plan takes them.
    pub safety: Safety,
    pub keep_going: bool,
    pub seed: u64,
    /// Write burst size of the sync test.
    pub burst_bytes: u64,
    /// Most bytes the cliff test may write.
    pub cliff_budget: Option<u64>,
    pub output: Output,
}

#[derive(Debug, Clone)]
pub struct ProbeConfig {
    pub path: PathBuf,
    pub root: Option<PathBuf>,
    /// Saved smartctl outputs, and whether to run `smartctl`.
    pub probe: probe::ProbeOptions,
    pub format: Format,
}

#[derive(Debug, Clone)]
pub struct DbLookupConfig {
    pub model: String,
    pub firmware: Option<String>,
    pub capacity_bytes: Option<u64>,
    /// `--pci-id`: vendor and, if given, device.
    pub pci_id: Option<(u16, Option<u16>)>,
    pub interface: Option<String>,
    pub model_family: Option<String>,
    pub format: Format,
}

#[derive(Debug, Clone)]
pub struct DbListConfig {
    pub grade: Option<Grade>,
    pub format: Format,
}

#[derive(Debug, Clone)]
pub struct TriageConfig {
    pub file: PathBuf,
    pub clients: Clients,
    pub format: Format,
    pub redact: bool,
}

#[derive(Debug, Clone)]
pub struct SnapshotConfig {
    pub output: PathBuf,
    pub path: Option<PathBuf>,
    pub redact: bool,
}

#[derive(Debug, Clone)]
pub struct SubmitConfig {
    pub path: Option<PathBuf>,
    pub from: Option<PathBuf>,
}

/// `nodecheck watch`: what to sample, for how long, and where the results go.
#[derive(Debug, Clone)]
pub struct WatchConfig {
    /// `None`: auto-detect a client datadir, else the current directory.
    pub path: Option<PathBuf>,
    pub duration: std::time::Duration,
    pub interval: std::time::Duration,
    /// Where to keep the raw readings.
    pub save: Option<PathBuf>,
    /// `None`: on as root, off otherwise.
    pub probe_latency: Option<bool>,
    /// Write the document here atomically instead of to stdout.
    pub output: Option<PathBuf>,
    pub format: Format,
    pub redact: bool,
}

#[cfg(test)]
mod tests {
    use super::ClientName;
    use probe::processes::identify;

    /// The catalog's `process` tables recognise each client the way it really runs, and
    /// nothing that merely mentions one.
    #[test]
    fn the_catalog_recognises_every_client_as_it_runs() {
        let clients = ClientName::processes();
        let cases: [(&str, &[u8], Option<&str>); 7] = [
            ("geth", b"/usr/bin/geth\0--datadir\0/data\0", Some("geth")),
            (
                "Nethermind.Runn",
                b"/nethermind/Nethermind.Runner\0",
                Some("nethermind"),
            ),
            (
                "dotnet",
                b"dotnet\0/opt/nethermind/Nethermind.Runner.dll\0",
                Some("nethermind"),
            ),
            (
                "java",
                b"java\0-cp\0/opt/besu/lib/*\0org.hyperledger.besu.Besu\0",
                Some("besu"),
            ),
            ("erigon", b"erigon\0", Some("erigon")),
            ("reth", b"/usr/local/bin/reth\0node\0", Some("reth")),
            ("tail", b"tail\0-f\0/var/log/geth.log\0", None),
        ];
        for (comm, cmdline, expected) in cases {
            assert_eq!(identify(&clients, comm, cmdline), expected, "{comm}");
        }
    }
}
