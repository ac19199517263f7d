//! Command-line types (clap derive). [`Cli::into_config`] turns them into the plain
//! [`Config`](crate::config::Config) the commands run on, so nothing below this module depends
//! on clap. `--format` is checked here against what each command prints.

mod bench;
mod clients;
mod db;
mod help;
mod output;
mod watch;

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use probe::Facts;

pub use self::bench::BenchArgs;
pub use self::clients::{ClientArgs, ConsensusModeArg};
pub use self::db::DbCommand;
use self::help::{
    CHECK_EXAMPLES, DB_EXAMPLES, MAIN_EXAMPLES, PROBE_EXAMPLES, SNAPSHOT_EXAMPLES, SUBMIT_EXAMPLES,
    TRIAGE_EXAMPLES, WATCH_EXAMPLES,
};
pub use self::output::{FormatArgs, OutputArgs};
pub use self::watch::WatchArgs;
use crate::config::{
    BenchDepth, BenchTuning, CheckConfig, CommandConfig, Config, GlobalOptions, Output,
    ProbeConfig, SnapshotConfig, SourceChoice, SubmitConfig, TriageConfig,
};
use crate::report::Report;

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
    /// Print less: no progress or notes on stderr, and check and triage print only problems
    /// and the verdict line. -qq: only the verdict line (check, triage, watch: the commands
    /// with a verdict).
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
    Bench(BenchArgs),
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
    /// Sample a running node's I/O (iostat -x figures, PSI, the client's bytes) and say
    /// whether it is storage-bound; writes nothing.
    #[command(after_help = WATCH_EXAMPLES)]
    Watch(WatchArgs),
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
    #[command(flatten)]
    pub clients: ClientArgs,
    /// How much to measure (ignored under --root/--snapshot: nothing is measured there).
    #[arg(long, value_enum, default_value = "quick")]
    pub bench: BenchArg,
    #[command(flatten)]
    pub smartctl: SmartctlArgs,
    /// Draw what --bench full measured (read latency through the sync test's write bursts,
    /// latency over the span test's spans) to this SVG file and a PNG beside it (FILE.png,
    /// for chats and forums without SVG); the markdown report links the SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Test file size, e.g. 256M for a quick trial run [default: 1G for quick, 150G for full,
    /// shrunk to keep the reserve]. Smaller than 150G, randrw is not comparable with the list.
    #[arg(long, value_name = "SIZE", value_parser = self::bench::parse_test_file_size)]
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

/// Where the probe's smartctl data comes from, on the commands that probe.
#[derive(Debug, Args)]
pub struct SmartctlArgs {
    /// Use this saved `smartctl -j -x` output instead of running smartctl on the drive it
    /// describes; repeat once per drive.
    #[arg(long, value_name = "FILE")]
    pub smartctl_json: Vec<PathBuf>,
    /// Do not run `smartctl` (it can take seconds per drive and spins up sleeping hard
    /// disks); saved outputs given with --smartctl-json are still used.
    #[arg(long)]
    pub no_smartctl: bool,
}

impl SmartctlArgs {
    /// The probe's options these arguments mean.
    fn into_options(self) -> probe::ProbeOptions {
        probe::ProbeOptions {
            smartctl_json: self.smartctl_json,
            run_smartctl: !self.no_smartctl,
            ..probe::ProbeOptions::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The path whose storage to probe.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,
    /// Read /sys, /proc and /etc under DIR instead of `/`.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    #[command(flatten)]
    pub smartctl: SmartctlArgs,
    #[command(flatten)]
    pub output: FormatArgs,
}

#[derive(Debug, Args)]
pub struct TriageArgs {
    /// A saved `smartctl -j -x` output or `nodecheck --json` report.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub clients: ClientArgs,
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
        if self.global.quiet >= 2 {
            if let Some(command) = self.command.as_ref().and_then(Command::without_verdict) {
                return Err(format!(
                    "-qq keeps only the verdict line, and `nodecheck {command}` prints no \
                     verdict (check, triage and watch do); use -q"
                ));
            }
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
            None => CommandConfig::Check(self.check.try_into()?),
            Some(Command::Check(args)) => CommandConfig::Check(args.try_into()?),
            Some(Command::Probe(args)) => CommandConfig::Probe(ProbeConfig {
                path: args.path,
                root: args.root,
                probe: args.smartctl.into_options(),
                format: args.output.resolve::<Facts>("probe")?,
            }),
            Some(Command::Bench(args)) => CommandConfig::Bench(args.into_config()?),
            Some(Command::Db(db)) => db.into_config()?,
            Some(Command::Triage(args)) => CommandConfig::Triage(TriageConfig {
                format: args.output.format.resolve::<Report>("triage")?,
                file: args.file,
                clients: args.clients.into_clients(),
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
            Some(Command::Watch(args)) => CommandConfig::Watch(args.into_config()?),
        };
        Ok(Config { global, command })
    }
}

impl Command {
    /// The command's name when it prints no verdict line for -qq to keep.
    fn without_verdict(&self) -> Option<&'static str> {
        match self {
            Command::Check(_) | Command::Triage(_) | Command::Watch(_) => None,
            Command::Probe(_) => Some("probe"),
            Command::Bench(_) => Some("bench"),
            Command::Db(DbCommand::Lookup(_)) => Some("db lookup"),
            Command::Db(DbCommand::List(_)) => Some("db list"),
            Command::Snapshot(_) => Some("snapshot"),
            Command::Submit(_) => Some("submit"),
        }
    }
}

impl CheckArgs {
    fn was_given(&self) -> bool {
        self.path.is_some()
            || self.root.is_some()
            || self.snapshot.is_some()
            || self.clients.client.is_some()
            || self.clients.cl.is_some()
            || self.clients.history.is_some()
            || self.clients.cl_mode != ConsensusModeArg::Default
            || self.bench != BenchArg::Quick
            || !self.smartctl.smartctl_json.is_empty()
            || self.smartctl.no_smartctl
            || self.plot.is_some()
            || self.bench_size.is_some()
            || self.bench_runtime.is_some()
            || self.bench_reserve.is_some()
            || self.output.format.was_given()
            || self.output.no_redact
    }
}

impl TryFrom<CheckArgs> for CheckConfig {
    type Error = String;

    fn try_from(args: CheckArgs) -> Result<Self, String> {
        let source = match (args.root, args.snapshot) {
            (Some(dir), _) => SourceChoice::Root(dir),
            (None, Some(file)) => SourceChoice::Snapshot(file),
            (None, None) => SourceChoice::Live,
        };
        let replay = !matches!(source, SourceChoice::Live);
        Ok(CheckConfig {
            output: Output {
                format: args.output.format.resolve::<Report>("check")?,
                redact: !args.output.no_redact,
                plot: args.plot,
            },
            path: args.path,
            source,
            clients: args.clients.into_clients(),
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
            probe: args.smartctl.into_options(),
            tuning: BenchTuning {
                size: args.bench_size,
                runtime: args.bench_runtime.map(std::time::Duration::from_secs),
                reserve: args.bench_reserve,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ClientName, ConsensusName, Format};
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
                assert_eq!(check.output.format, Format::Json);
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
                assert_eq!(check.output.plot, Some(PathBuf::from("out.svg")));
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
    fn qq_is_accepted_only_where_there_is_a_verdict_line() {
        for argv in [
            &["nodecheck", "-qq"][..],
            &["nodecheck", "check", "-qq", "/var/lib/geth"],
            &["nodecheck", "triage", "-qq", "x.json"],
            &["nodecheck", "watch", "-qq"],
            &["nodecheck", "probe", "-q"],
        ] {
            let cli = Cli::try_parse_from(argv).expect("parses");
            assert!(cli.into_config().is_ok(), "{argv:?}");
        }
        for (argv, command) in [
            (&["nodecheck", "probe", "-qq"][..], "probe"),
            (&["nodecheck", "-qq", "db", "list"], "db list"),
            (&["nodecheck", "db", "lookup", "X", "-qq"], "db lookup"),
            (&["nodecheck", "bench", "-qq"], "bench"),
            (
                &["nodecheck", "snapshot", "-qq", "-o", "x.tar.gz"],
                "snapshot",
            ),
            (&["nodecheck", "submit", "-qqq"], "submit"),
        ] {
            let cli = Cli::try_parse_from(argv).expect("parses");
            let err = cli.into_config().expect_err("refused");
            assert!(
                err.contains(&format!("`nodecheck {command}` prints no verdict")),
                "{err}"
            );
        }
    }

    #[test]
    fn cl_names_the_consensus_client_for_check_and_triage() {
        let cli = Cli::try_parse_from(["nodecheck", "--client", "geth", "--cl", "lighthouse"])
            .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Check(check) => {
                assert_eq!(check.clients.execution, ClientName::named("geth"));
                assert_eq!(check.clients.consensus, ConsensusName::named("lighthouse"));
            }
            other => panic!("expected check, got {other:?}"),
        }
        let cli = Cli::try_parse_from(["nodecheck", "triage", "x.json", "--cl", "nimbus"])
            .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Triage(t) => {
                assert_eq!(t.clients.consensus, ConsensusName::named("nimbus"))
            }
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

    fn format_of(argv: &[&str]) -> Result<Format, String> {
        let cli = Cli::try_parse_from(argv).expect("parses");
        Ok(match cli.into_config()?.command {
            CommandConfig::Check(c) => c.output.format,
            CommandConfig::Probe(c) => c.format,
            CommandConfig::Bench(c) => c.output.format,
            CommandConfig::DbLookup(c) => c.format,
            CommandConfig::DbList(c) => c.format,
            CommandConfig::Triage(c) => c.format,
            other => panic!("{other:?} prints no document"),
        })
    }

    #[test]
    fn format_reaches_every_command_that_prints_a_document() {
        assert_eq!(
            format_of(&["nodecheck", "--format", "prometheus"]),
            Ok(Format::Prometheus)
        );
        assert_eq!(
            format_of(&["nodecheck", "probe", "--format", "json"]),
            Ok(Format::Json)
        );
        assert_eq!(format_of(&["nodecheck", "probe"]), Ok(Format::Table));
        assert_eq!(
            format_of(&["nodecheck", "db", "lookup", "X", "--json"]),
            Ok(Format::Json)
        );
        assert_eq!(
            format_of(&["nodecheck", "db", "list", "--format", "text"]),
            Ok(Format::Table)
        );
        assert_eq!(
            format_of(&["nodecheck", "triage", "x.json", "--format", "discord"]),
            Ok(Format::Discord)
        );
        assert_eq!(
            format_of(&["nodecheck", "bench", "--format", "markdown"]),
            Ok(Format::Markdown)
        );
    }

    #[test]
    fn a_format_the_command_does_not_print_is_refused() {
        for (argv, command) in [
            (&["nodecheck", "probe", "--format", "markdown"][..], "probe"),
            (
                &["nodecheck", "db", "lookup", "X", "--format", "discord"][..],
                "db lookup",
            ),
            (
                &["nodecheck", "db", "list", "--format", "prometheus"][..],
                "db list",
            ),
            (&["nodecheck", "bench", "--format", "discord"][..], "bench"),
        ] {
            let err = format_of(argv).expect_err("refused");
            assert!(err.contains(&format!("`nodecheck {command}`")), "{err}");
            assert!(err.contains("its formats are table, json"), "{err}");
        }
    }
}
