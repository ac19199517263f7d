//! `nodecheck bench`'s arguments, and the [`BenchConfig`] they mean.

use std::path::PathBuf;
use std::time::Duration;

use bench::{ByteSize, EnginePreference, EngineSettings, Safety};
use clap::{Args, ValueEnum};

use super::output::FormatArgs;
use crate::config::{BenchConfig, BenchTest, Output};
use crate::render::bench::BenchDocument;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TestArg {
    /// 4 KiB random reads at queue depth 1: the latency that predicts sync speed.
    Qd1,
    /// 4 KiB random 75 % reads / 25 % writes at queue depth 64: the community's fio test.
    Randrw,
    /// qd1, then randrw.
    All,
    /// A client's batch cycle: QD1 reads, a burst of random writes at QD32 with fdatasync while
    /// a QD1 reader keeps sampling, then the time until read latency is back to baseline.
    Sync,
    /// Opt-in, long: sustained writes until throughput falls off the write-cache cliff (QLC).
    Cliff,
    /// QD1 read latency over spans growing from 1 GiB to the whole file (DRAM-less drives).
    Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// io_uring when the kernel and sandbox allow it, else psync.
    Auto,
    IoUring,
    /// Threads doing pread/pwrite: works everywhere.
    Psync,
}

#[derive(Debug, Args)]
#[command(after_help = super::help::BENCH_EXAMPLES)]
pub struct BenchArgs {
    /// Directory on the file system to measure.
    #[arg(default_value = ".")]
    pub path: PathBuf,

    /// Which test to run.
    #[arg(long = "test", value_enum, default_value_t = TestArg::All)]
    pub test: TestArg,

    /// Seconds per test [default: 60]. The cliff test stops by itself once the cliff is
    /// established, else after 30 minutes; --runtime shortens or raises that cap.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub runtime: Option<u64>,

    /// Test file size (the randrw span), e.g. 20G. Default 150G, the community's figure; shrunk
    /// with a warning to keep the reserve free.
    #[arg(long, value_parser = parse_test_file_size)]
    pub size: Option<u64>,

    /// Free space to keep on the file system, e.g. 5G. Default max(10 % of the file system,
    /// 50 GiB); lower it only on a disk that no node uses.
    #[arg(long, value_parser = units::size::parse_file_size)]
    pub reserve: Option<u64>,

    /// Run even though an Ethereum client is running (its I/O skews the figures, and the
    /// benchmark slows it down).
    #[arg(long)]
    pub force: bool,

    /// Read a block device directly instead (read-only, qd1 only, root only), like `ioping -D`.
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<PathBuf>,

    /// I/O engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,

    /// io_uring: a kernel thread polls the submission queue (saves syscalls, burns a core).
    #[arg(long)]
    pub sqpoll: bool,

    /// io_uring: poll the device for completions (needs a driver with poll queues).
    #[arg(long)]
    pub iopoll: bool,

    /// io_uring: the most new requests per io_uring_enter. 1 hands each to the device at once,
    /// like fio's default; larger saves system calls where the device does not mind bursts.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub submit_batch: u32,

    /// Run qd1 and randrw wherever the scheduler puts them, instead of on the CPU that takes
    /// the drive's completion interrupts (single-queue devices: virtio, AHCI, USB).
    #[arg(long)]
    pub no_pin: bool,

    /// When a test fails, report it and go on with the next.
    #[arg(long)]
    pub keep_going: bool,

    /// Remove test files left behind by killed runs before starting.
    #[arg(long)]
    pub clean_stale: bool,

    /// Seed of the random offsets (the same seed gives the same sequence, like fio's
    /// randrepeat=1).
    #[arg(long, default_value_t = bench::DEFAULT_SEED)]
    pub seed: u64,

    /// Write burst size of `--test sync`, e.g. 1G, at least 1M (see docs/behaviour.md for the
    /// default).
    #[arg(long, value_parser = parse_burst_arg, default_value = "1G")]
    pub burst: u64,

    /// Most bytes `--test cliff` may write, e.g. 200G [default: 1T]. It overwrites the test
    /// file in place, so this bounds wear and time, not space.
    #[arg(long, value_name = "SIZE", value_parser = units::size::parse_file_size)]
    pub cliff_budget: Option<u64>,

    /// Draw the sync, cliff or span result to this SVG file and a PNG beside it (latency over
    /// time, throughput over GB written, latency over span).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    #[command(flatten)]
    pub output: FormatArgs,

    /// Keep /home paths and the host name in markdown output.
    #[arg(long)]
    pub no_redact: bool,
}

/// A test-file size from the command line ([`units::size::parse_file_size`]), refusing sizes
/// below [`bench::MIN_FILE_SIZE`] instead of silently running on a bigger file.
pub(crate) fn parse_test_file_size(text: &str) -> Result<u64, String> {
    let bytes = units::size::parse_file_size(text).map_err(|err| err.to_string())?;
    let min = bench::MIN_FILE_SIZE;
    if bytes < min {
        return Err(format!(
            "`{text}` is smaller than the smallest test file, {} (below that the drive's cache \
             answers instead of the drive)",
            ByteSize(min)
        ));
    }
    Ok(bytes)
}

fn parse_burst_arg(text: &str) -> Result<u64, String> {
    let bytes = units::size::parse_file_size(text).map_err(|err| err.to_string())?;
    let min = bench::behaviour::sync::MIN_BURST_BYTES;
    if bytes < min {
        return Err(format!(
            "{} is too small a burst: below {} the writes end inside one QD1 read and the \
             burst's MB/s and recovery mean nothing",
            ByteSize(bytes),
            ByteSize(min)
        ));
    }
    Ok(bytes)
}

impl BenchArgs {
    pub(super) fn into_config(self) -> Result<BenchConfig, String> {
        Ok(BenchConfig {
            output: Output {
                format: self.output.resolve::<BenchDocument>("bench")?,
                redact: !self.no_redact,
                plot: self.plot,
            },
            path: self.path,
            device: self.device,
            test: match self.test {
                TestArg::Qd1 => BenchTest::Qd1,
                TestArg::Randrw => BenchTest::Randrw,
                TestArg::All => BenchTest::Both,
                TestArg::Sync => BenchTest::Sync,
                TestArg::Cliff => BenchTest::Cliff,
                TestArg::Span => BenchTest::Span,
            },
            runtime: self.runtime.map(Duration::from_secs),
            size: self.size,
            engine: EngineSettings {
                preference: match self.engine {
                    EngineArg::Auto => EnginePreference::Auto,
                    EngineArg::IoUring => EnginePreference::IoUring,
                    EngineArg::Psync => EnginePreference::Psync,
                },
                sqpoll: self.sqpoll,
                iopoll: self.iopoll,
                submit_batch: self.submit_batch,
                pin: !self.no_pin,
            },
            safety: Safety {
                reserve: self.reserve,
                force: self.force,
                clean_stale: self.clean_stale,
            },
            keep_going: self.keep_going,
            seed: self.seed,
            burst_bytes: self.burst,
            cliff_budget: self.cliff_budget,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use clap::Parser;

    use super::*;
    use crate::cli::Cli;
    use crate::config::{CommandConfig, Format};

    fn parse(argv: &[&str]) -> BenchConfig {
        let cli = Cli::try_parse_from(
            ["nodecheck", "bench"]
                .into_iter()
                .chain(argv.iter().copied()),
        )
        .expect("parses");
        match cli.into_config().expect("valid").command {
            CommandConfig::Bench(config) => config,
            other => panic!("expected bench, got {other:?}"),
        }
    }

    #[test]
    fn defaults_map_to_both_tests_on_the_current_directory() {
        let config = parse(&[]);
        assert_eq!(config.path, PathBuf::from("."));
        assert_eq!(config.test, BenchTest::Both);
        assert_eq!(config.runtime, None);
        assert_eq!(config.engine.preference, EnginePreference::Auto);
        assert!(config.engine.pin && config.output.redact);
        assert_eq!(config.engine.submit_batch, 1);
        assert_eq!(config.burst_bytes, 1 << 30);
        assert_eq!(config.output.format, Format::Table);
    }

    #[test]
    fn every_option_reaches_the_config() {
        let config = parse(&[
            "/data",
            "--test",
            "cliff",
            "--runtime",
            "90",
            "--size",
            "64M",
            "--reserve",
            "2G",
            "--force",
            "--engine",
            "io-uring",
            "--sqpoll",
            "--iopoll",
            "--submit-batch",
            "8",
            "--no-pin",
            "--keep-going",
            "--clean-stale",
            "--seed",
            "7",
            "--burst",
            "4M",
            "--cliff-budget",
            "20G",
            "--plot",
            "c.svg",
            "--format",
            "markdown",
            "--no-redact",
        ]);
        assert_eq!(
            config,
            BenchConfig {
                path: PathBuf::from("/data"),
                device: None,
                test: BenchTest::Cliff,
                runtime: Some(Duration::from_secs(90)),
                size: Some(64 << 20),
                engine: EngineSettings {
                    preference: EnginePreference::IoUring,
                    sqpoll: true,
                    iopoll: true,
                    submit_batch: 8,
                    pin: false,
                },
                safety: Safety {
                    reserve: Some(2 << 30),
                    force: true,
                    clean_stale: true,
                },
                keep_going: true,
                seed: 7,
                burst_bytes: 4 << 20,
                cliff_budget: Some(20 << 30),
                output: Output {
                    format: Format::Markdown,
                    redact: false,
                    plot: Some(PathBuf::from("c.svg")),
                },
            }
        );
    }

    #[test]
    fn json_and_text_name_formats_and_the_report_formats_are_refused() {
        assert_eq!(parse(&["--json"]).output.format, Format::Json);
        assert_eq!(parse(&["--format", "text"]).output.format, Format::Table);
        let cli =
            Cli::try_parse_from(["nodecheck", "bench", "--format", "prometheus"]).expect("parses");
        let err = cli.into_config().expect_err("bench has no prometheus form");
        assert!(err.contains("`nodecheck bench`"), "{err}");
        assert!(err.contains("table, json, markdown"), "{err}");
    }

    #[test]
    fn test_files_below_the_minimum_are_refused() {
        assert!(parse_test_file_size("1k").unwrap_err().contains("16.0 MiB"));
        assert_eq!(parse_test_file_size("16M"), Ok(16 << 20));
        assert!(parse_test_file_size("xyz").is_err());
    }

    #[test]
    fn a_burst_below_one_mib_is_refused() {
        let err = Cli::try_parse_from([
            "nodecheck",
            "bench",
            "/data",
            "--test",
            "sync",
            "--burst",
            "1",
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("too small a burst"), "{err}");
        assert!(err.contains("1.0 MiB"), "{err}");
        assert_eq!(parse(&["/data", "--burst", "1M"]).burst_bytes, 1 << 20);
    }
}
