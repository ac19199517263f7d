//! Command-line types (clap derive). Each subcommand's arguments live beside its command in
//! `commands/`.

use clap::{Parser, Subcommand};

use crate::commands;

#[derive(Debug, Parser)]
#[command(name = "nodecheck", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Benchmark the drive under PATH: QD1 read latency and the community randrw test.
    Bench(commands::bench::BenchArgs),
}
