//! Command-line types (clap derive). [`Cli::into_config`] turns them into the plain
//! [`Config`](crate::config::Config) the commands run on, so nothing below this module depends
//! on clap (except `bench`, whose arguments its owner keeps beside its command).

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

use crate::commands;
use crate::config::{
    BenchDepth, BenchTuning, CheckConfig, ClientName, CommandConfig, Config, ConsensusName,
    DbListConfig, DbLookupConfig, Format, GlobalOptions, ProbeConfig, SnapshotConfig, SourceChoice,
    SubmitConfig, TriageConfig,
};

const MAIN_EXAMPLES: &str = "\
Examples:
  sudo nodecheck /var/lib/ethereum          check the storage under a datadir
  nodecheck                                 auto-detect a client datadir and check it
  nodecheck check --client nethermind .     apply Nethermind's size and speed needs
  nodecheck check --format markdown > r.md  a report to paste into a GitHub issue
  nodecheck db lookup 'Samsung SSD 980 PRO 2TB' --firmware 3B2QGXA7
  nodecheck triage smartctl.json            judge a saved `smartctl -j -x` output

Exit codes: 0 good, 1 ugly (warnings), 2 bad, 3 usage error, 4 could not check;
128 + N when stopped by signal N after cleanup (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
Docs: https://github.com/nodecheck/nodecheck/tree/main/docs";

const CHECK_EXAMPLES: &str = "\
Examples:
  sudo nodecheck check /var/lib/ethereum
  nodecheck check --bench none --json /var/lib/geth
  nodecheck check --bench full --client reth /var/lib/reth
  nodecheck check --client geth --cl lighthouse /var/lib/ethereum
  nodecheck check --bench full --plot sync.svg --format markdown > r.md
  nodecheck check --format prometheus > /var/lib/node_exporter/textfile/nodecheck.prom
  nodecheck check --snapshot operator.tar.gz          replay another machine's snapshot
  nodecheck check --root ./fixture /var/lib/ethereum  replay an unpacked tree

Exit codes: 0 good, 1 ugly, 2 bad, 3 usage error, 4 could not check;
128 + N when stopped by signal N after cleanup (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).";

const PROBE_EXAMPLES: &str = "\
Examples:
  nodecheck probe /var/lib/ethereum
  sudo nodecheck probe --json . > facts.json
  nodecheck probe --root ./fixture /var/lib/ethereum --json
  nodecheck probe --smartctl-json sda.json --smartctl-json sdb.json /   one saved output per drive";

const DB_LOOKUP_EXAMPLES: &str = "\
Examples:
  nodecheck db lookup 'Samsung SSD 980 PRO 2TB' --firmware 3B2QGXA7
  nodecheck db lookup WDS200T3X0C-00SJG0
  nodecheck db lookup 'ADATA SX8200PNP' --capacity 4TB --json";

const DB_LIST_EXAMPLES: &str = "\
Examples:
  nodecheck db list
  nodecheck db list --grade bad
  nodecheck db list --json";

const TRIAGE_EXAMPLES: &str = "\
Examples:
  nodecheck triage smartctl.json                  a saved `smartctl -j -x /dev/nvme0` output
  nodecheck triage report.json --format markdown  a saved `nodecheck --json` report
  nodecheck triage smartctl.json --client erigon --cl teku --json";

const SNAPSHOT_EXAMPLES: &str = "\
Examples:
  sudo nodecheck snapshot -o node.tar.gz /var/lib/ethereum
  nodecheck check --snapshot node.tar.gz       replay it anywhere

The archive holds exactly the sysfs, procfs and /etc files the probe read, plus one smartctl
JSON per drive (as root), with serial numbers, hostnames, UUIDs and /home paths redacted unless --no-redact.";

const SUBMIT_EXAMPLES: &str = "\
Examples:
  sudo nodecheck submit /var/lib/ethereum > my-drive.toml
  nodecheck submit --from report.json            reuse a saved `check --bench full --json`

Runs the full benchmark (about 150 GiB of test file; takes a while) unless --from is given,
then prints a TOML result block for data/ and the pull-request steps.";

const DB_EXAMPLES: &str = "\
Examples:
  nodecheck db lookup 'Samsung SSD 990 PRO 2TB' --firmware 0B2QJXD7
  nodecheck db list --grade ugly";

fn version_text() -> &'static str {
    // clap wants a &'static str; built once per process.
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        format!(
            "{} (drive database {})",
            env!("CARGO_PKG_VERSION"),
            crate::database::embedded_version()
        )
    })
}

#[derive(Debug, Parser)]
#[command(
    name = "nodecheck",
    version = version_text(),
    about = "Is the storage under your Ethereum node's data directory fit for a sync? Why not, and what to do.",
    after_help = MAIN_EXAMPLES,
    override_usage = "nodecheck [OPTIONS] [PATH]\n       nodecheck [-q|-v] [--db FILE] <COMMAND> [ARGS]",
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Option<Command>,

    /// Without a subcommand, `nodecheck [PATH] [OPTIONS]` is `nodecheck check`.
    #[command(flatten)]
    pub check: CheckArgs,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Print less: only problems and the verdict line (-qq: the verdict line only).
    #[arg(short, long, action = ArgAction::Count, global = true, conflicts_with = "verbose")]
    pub quiet: u8,
    /// Print more: passed checks, facts that could not be read and why, probe warnings.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Use this drives file (data/drives.toml format) instead of the embedded database; empty
    /// (`NODECHECK_DB=`) means the embedded one.
    #[arg(
        long,
        value_name = "FILE",
        global = true,
        env = "NODECHECK_DB",
        value_parser = clap::builder::ValueParser::os_string()
    )]
    pub db: Option<std::ffi::OsString>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Probe, measure and judge the storage under PATH (the default command).
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Print every storage fact under PATH, without judging.
    #[command(after_help = PROBE_EXAMPLES)]
    Probe(ProbeArgs),
    /// Benchmark the drive under PATH: QD1 read latency and the community randrw test.
    Bench(commands::bench::BenchArgs),
    /// Query the Good/Bad/Ugly drive database.
    #[command(subcommand, after_help = DB_EXAMPLES)]
    Db(DbCommand),
    /// Judge a saved `smartctl -j` output or `nodecheck --json` report, without this machine.
    #[command(after_help = TRIAGE_EXAMPLES)]
    Triage(TriageArgs),
    /// Save what the probe reads into a .tar.gz that `check --snapshot` replays elsewhere.
    #[command(after_help = SNAPSHOT_EXAMPLES)]
    Snapshot(SnapshotArgs),
    /// Run the full benchmark and print a TOML result block to contribute to data/.
    #[command(after_help = SUBMIT_EXAMPLES)]
    Submit(SubmitArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Table,
    Json,
    Markdown,
    Discord,
    Prometheus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchArg {
    /// Measure nothing.
    None,
    /// About 10 s of QD1 4 KiB random reads.
    Quick,
    /// QD1 latency, the community's randrw 75/25 QD64 test, and the behaviour tests `sync`
    /// and `span` (a 150 GiB test file; several minutes).
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClientArg {
    Geth,
    Nethermind,
    Besu,
    Erigon,
    Reth,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConsensusArg {
    Lighthouse,
    Prysm,
    Teku,
    Nimbus,
    Lodestar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GradeArg {
    Good,
    Ugly,
    Bad,
}

#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,
    /// Shorthand for `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Keep serial numbers, hostnames, UUIDs and /home paths in markdown and discord output.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The node's data directory (default: auto-detect a client datadir, else `.`).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Read /sys, /proc and /etc under DIR instead of `/` (an unpacked snapshot or fixture).
    #[arg(long, value_name = "DIR", conflicts_with = "snapshot")]
    pub root: Option<PathBuf>,
    /// Replay a `nodecheck snapshot` archive.
    #[arg(long, value_name = "FILE.tar.gz")]
    pub snapshot: Option<PathBuf>,
    /// Judge against this client's size and speed needs (default: the strictest of all five).
    #[arg(long, value_enum)]
    pub client: Option<ClientArg>,
    /// The consensus client on the same disk: its database counts toward the size and free
    /// space the node needs (default: not counted; the size finding says how much it adds).
    #[arg(long, value_enum, value_name = "CLIENT")]
    pub cl: Option<ConsensusArg>,
    /// How much to measure (ignored under --root/--snapshot: nothing is measured there).
    #[arg(long, value_enum, default_value = "quick")]
    pub bench: BenchArg,
    /// Use this saved `smartctl -j -x` output for the drive it describes; repeat once per
    /// drive.
    #[arg(long, value_name = "FILE")]
    pub smartctl_json: Vec<PathBuf>,
    /// Do not run `smartctl` (it can take seconds per drive and spins up sleeping hard
    /// disks); saved outputs given with --smartctl-json are still used.
    #[arg(long)]
    pub no_smartctl: bool,
    /// Draw what --bench full measured (read latency through the sync test's write bursts,
    /// latency over the span test's spans) to this SVG file and a PNG beside it (FILE.png,
    /// for chats and forums without SVG); the markdown report links the SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Test file size, e.g. 256M for a quick trial run [default: 1G for quick, 150G for full,
    /// shrunk to keep the reserve]. Smaller than 150G, randrw is not comparable with the list.
    #[arg(long, value_name = "SIZE", value_parser = bench::error::parse_file_size)]
    pub bench_size: Option<u64>,
    /// Seconds per test, e.g. 2 for a quick trial run [default: 10 for quick, 60 for full].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub bench_runtime: Option<u64>,
    /// Free space the test file must leave, e.g. 2G [default: 5G for quick, max(10 % of the
    /// file system, 50 GiB) for full]; lower it only on a disk no node uses.
    #[arg(long, value_name = "SIZE", value_parser = units::size::parse_file_size)]
    pub bench_reserve: Option<u64>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The path whose storage to probe.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,
    /// Read /sys, /proc and /etc under DIR instead of `/`.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Use this saved `smartctl -j -x` output instead of running smartctl on the drive it
    /// describes; repeat once per drive.
    #[arg(long, value_name = "FILE")]
    pub smartctl_json: Vec<PathBuf>,
    /// Do not run `smartctl` (it can take seconds per drive and spins up sleeping hard
    /// disks); saved outputs given with --smartctl-json are still used.
    #[arg(long)]
    pub no_smartctl: bool,
    /// Print the facts as one JSON document.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Show the entry matching a model string, its grade and firmware advisories.
    #[command(after_help = DB_LOOKUP_EXAMPLES)]
    Lookup(DbLookupArgs),
    /// List the database's entries.
    #[command(after_help = DB_LIST_EXAMPLES)]
    List(DbListArgs),
}

#[derive(Debug, Args)]
pub struct DbLookupArgs {
    /// The model string as the drive reports it (`Samsung SSD 980 PRO 2TB`).
    pub model: String,
    /// Firmware revision (`5B2QGXA7`).
    #[arg(long)]
    pub firmware: Option<String>,
    /// Capacity: `2TB`, `1.5TiB`, `500G` or bytes.
    #[arg(long, value_parser = units::size::parse_capacity)]
    pub capacity: Option<u64>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DbListArgs {
    /// Only entries with this grade.
    #[arg(long, value_enum)]
    pub grade: Option<GradeArg>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TriageArgs {
    /// A saved `smartctl -j -x` output or `nodecheck --json` report.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Judge against this client's needs (default: the strictest of all five).
    #[arg(long, value_enum)]
    pub client: Option<ClientArg>,
    /// The consensus client on the same disk (its database counts toward size and free space).
    #[arg(long, value_enum, value_name = "CLIENT")]
    pub cl: Option<ConsensusArg>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// Where to write the archive.
    #[arg(short, long, value_name = "FILE.tar.gz")]
    pub output: PathBuf,
    /// The node's data directory (default: auto-detect, else `.`).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Keep serial numbers, hostnames, UUIDs and /home paths.
    #[arg(long)]
    pub no_redact: bool,
}

#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The directory on the drive to benchmark (default: auto-detect, else `.`).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Build the block from a saved `nodecheck check --bench full --json` report instead of
    /// measuring now.
    #[arg(long, value_name = "REPORT.json")]
    pub from: Option<PathBuf>,
}

impl Cli {
    /// The plain configuration the commands run on. Fails when `check`'s options were given
    /// before another subcommand (`nodecheck --json db list`), which clap alone would accept
    /// and silently ignore.
    pub fn into_config(self) -> Result<Config, String> {
        if self.command.is_some() && self.check.was_given() {
            return Err(
                "check options (PATH, --root, --json, ...) go with `check` or with no subcommand, \
                 not before another subcommand"
                    .to_string(),
            );
        }
        let global = GlobalOptions {
            verbosity: i8::try_from(self.global.verbose).unwrap_or(i8::MAX)
                - i8::try_from(self.global.quiet).unwrap_or(i8::MAX),
            // An empty value is how shells and service files unset a variable.
            db: self
                .global
                .db
                .filter(|value| !value.is_empty())
                .map(PathBuf::from),
        };
        let command = match self.command {
            None => CommandConfig::Check(self.check.into()),
            Some(Command::Check(args)) => CommandConfig::Check(args.into()),
            Some(Command::Probe(args)) => CommandConfig::Probe(ProbeConfig {
                path: args.path,
                root: args.root,
                smartctl_json: args.smartctl_json,
                run_smartctl: !args.no_smartctl,
                json: args.json,
            }),
            Some(Command::Bench(args)) => CommandConfig::Bench(args),
            Some(Command::Db(DbCommand::Lookup(args))) => CommandConfig::DbLookup(DbLookupConfig {
                model: args.model,
                firmware: args.firmware,
                capacity_bytes: args.capacity,
                json: args.json,
            }),
            Some(Command::Db(DbCommand::List(args))) => CommandConfig::DbList(DbListConfig {
                grade: args.grade.map(|g| match g {
                    GradeArg::Good => verdict::Grade::Good,
                    GradeArg::Ugly => verdict::Grade::Ugly,
                    GradeArg::Bad => verdict::Grade::Bad,
                }),
                json: args.json,
            }),
            Some(Command::Triage(args)) => CommandConfig::Triage(TriageConfig {
                file: args.file,
                client: args.client.map(ClientName::from),
                consensus: args.cl.map(ConsensusName::from),
                format: args.output.format(),
                redact: !args.output.no_redact,
            }),
            Some(Command::Snapshot(args)) => CommandConfig::Snapshot(SnapshotConfig {
                output: args.output,
                path: args.path,
                redact: !args.no_redact,
            }),
            Some(Command::Submit(args)) => CommandConfig::Submit(SubmitConfig {
                path: args.path,
                from: args.from,
            }),
        };
        Ok(Config { global, command })
    }
}

impl CheckArgs {
    fn was_given(&self) -> bool {
        self.path.is_some()
            || self.root.is_some()
            || self.snapshot.is_some()
            || self.client.is_some()
            || self.cl.is_some()
            || self.bench != BenchArg::Quick
            || !self.smartctl_json.is_empty()
            || self.no_smartctl
            || self.plot.is_some()
            || self.bench_size.is_some()
            || self.bench_runtime.is_some()
            || self.bench_reserve.is_some()
            || self.output.format.is_some()
            || self.output.json
            || self.output.no_redact
    }
}

impl OutputArgs {
    fn format(&self) -> Format {
        if self.json {
            return Format::Json;
        }
        match self.format {
            None | Some(FormatArg::Table) => Format::Table,
            Some(FormatArg::Json) => Format::Json,
            Some(FormatArg::Markdown) => Format::Markdown,
            Some(FormatArg::Discord) => Format::Discord,
            Some(FormatArg::Prometheus) => Format::Prometheus,
        }
    }
}

impl From<ClientArg> for ClientName {
    fn from(arg: ClientArg) -> Self {
        match arg {
            ClientArg::Geth => ClientName::Geth,
            ClientArg::Nethermind => ClientName::Nethermind,
            ClientArg::Besu => ClientName::Besu,
            ClientArg::Erigon => ClientName::Erigon,
            ClientArg::Reth => ClientName::Reth,
        }
    }
}

impl From<ConsensusArg> for ConsensusName {
    fn from(arg: ConsensusArg) -> Self {
        match arg {
            ConsensusArg::Lighthouse => ConsensusName::Lighthouse,
            ConsensusArg::Prysm => ConsensusName::Prysm,
            ConsensusArg::Teku => ConsensusName::Teku,
            ConsensusArg::Nimbus => ConsensusName::Nimbus,
            ConsensusArg::Lodestar => ConsensusName::Lodestar,
        }
    }
}

impl From<CheckArgs> for CheckConfig {
    fn from(args: CheckArgs) -> Self {
        let source = match (args.root, args.snapshot) {
            (Some(dir), _) => SourceChoice::Root(dir),
            (None, Some(file)) => SourceChoice::Snapshot(file),
            (None, None) => SourceChoice::Live,
        };
        let replay = !matches!(source, SourceChoice::Live);
        CheckConfig {
            format: args.output.format(),
            redact: !args.output.no_redact,
            path: args.path,
            source,
            client: args.client.map(ClientName::from),
            consensus: args.cl.map(ConsensusName::from),
            // A replayed machine cannot be measured from here.
            bench: if replay {
                BenchDepth::None
            } else {
                match args.bench {
                    BenchArg::None => BenchDepth::None,
                    BenchArg::Quick => BenchDepth::Quick,
                    BenchArg::Full => BenchDepth::Full,
                }
            },
            smartctl_json: args.smartctl_json,
            run_smartctl: !args.no_smartctl,
            tuning: BenchTuning {
                size: args.bench_size,
                runtime: args.bench_runtime.map(std::time::Duration::from_secs),
                reserve: args.bench_reserve,
            },
            plot: args.plot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn bare_path_means_check() {
        let cli = Cli::try_parse_from(["nodecheck", "/var/lib/geth", "--json"]).expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Check(check) => {
                assert_eq!(check.path, Some(PathBuf::from("/var/lib/geth")));
                assert_eq!(check.format, Format::Json);
                assert_eq!(check.bench, BenchDepth::Quick);
            }
            other => panic!("expected check, got {other:?}"),
        }
    }

    #[test]
    fn replay_never_measures() {
        let cli =
            Cli::try_parse_from(["nodecheck", "check", "--root", "/tmp/x", "--bench", "full"])
                .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Check(check) => assert_eq!(check.bench, BenchDepth::None),
            other => panic!("expected check, got {other:?}"),
        }
    }

    #[test]
    fn bench_tuning_and_plot_reach_the_check() {
        let cli = Cli::try_parse_from([
            "nodecheck",
            "check",
            "--bench",
            "full",
            "--bench-size",
            "64M",
            "--bench-runtime",
            "2",
            "--bench-reserve",
            "1G",
            "--plot",
            "out.svg",
        ])
        .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Check(check) => {
                assert_eq!(check.bench, BenchDepth::Full);
                assert_eq!(check.tuning.size, Some(64 << 20));
                assert_eq!(
                    check.tuning.runtime,
                    Some(std::time::Duration::from_secs(2))
                );
                assert_eq!(check.tuning.reserve, Some(1 << 30));
                assert_eq!(check.plot, Some(PathBuf::from("out.svg")));
            }
            other => panic!("expected check, got {other:?}"),
        }
        let cli =
            Cli::try_parse_from(["nodecheck", "--plot", "x.svg", "db", "list"]).expect("parses");
        assert!(cli.into_config().is_err(), "check options before db");
    }

    #[test]
    fn root_and_snapshot_conflict() {
        let err = Cli::try_parse_from(["nodecheck", "check", "--root", "a", "--snapshot", "b"])
            .expect_err("must conflict");
        assert_eq!(err.kind(), clap::error::ErrorKind::ArgumentConflict);
    }

    #[test]
    fn check_options_before_another_subcommand_are_refused() {
        let cli = Cli::try_parse_from(["nodecheck", "--json", "db", "list"]).expect("parses");
        assert!(cli.into_config().is_err());
    }

    #[test]
    fn quiet_and_verbose_fold_into_one_level() {
        let cli = Cli::try_parse_from(["nodecheck", "db", "list", "-vv"]).expect("parses");
        assert_eq!(cli.into_config().expect("valid").global.verbosity, 2);
        let cli = Cli::try_parse_from(["nodecheck", "-q", "db", "list"]).expect("parses");
        assert_eq!(cli.into_config().expect("valid").global.verbosity, -1);
    }

    #[test]
    fn cl_names_the_consensus_client_for_check_and_triage() {
        let cli = Cli::try_parse_from(["nodecheck", "--client", "geth", "--cl", "lighthouse"])
            .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Check(check) => {
                assert_eq!(check.client, Some(ClientName::Geth));
                assert_eq!(check.consensus, Some(ConsensusName::Lighthouse));
            }
            other => panic!("expected check, got {other:?}"),
        }
        let cli = Cli::try_parse_from(["nodecheck", "triage", "x.json", "--cl", "nimbus"])
            .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Triage(t) => assert_eq!(t.consensus, Some(ConsensusName::Nimbus)),
            other => panic!("expected triage, got {other:?}"),
        }
        let cli = Cli::try_parse_from(["nodecheck", "--cl", "teku", "db", "list"]).expect("parses");
        assert!(cli.into_config().is_err(), "check options before db");
        let err = Cli::try_parse_from(["nodecheck", "--cl", "geth"]).expect_err("not a CL");
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue);
    }

    #[test]
    fn lookup_takes_human_sizes() {
        let cli = Cli::try_parse_from(["nodecheck", "db", "lookup", "X", "--capacity", "2TB"])
            .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::DbLookup(l) => assert_eq!(l.capacity_bytes, Some(2_000_000_000_000)),
            other => panic!("expected lookup, got {other:?}"),
        }
    }
}
