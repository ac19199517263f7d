//! `nodecheck db lookup` and `nodecheck db list`: the drive database on its own.

use clap::{Args, Subcommand, ValueEnum};

use super::help::{DB_LIST_EXAMPLES, DB_LOOKUP_EXAMPLES};
use super::output::FormatArgs;
use crate::config::{CommandConfig, DbListConfig, DbLookupConfig};
use crate::render::database::{Listing, LookupAnswer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GradeArg {
    Good,
    Ugly,
    Bad,
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
    #[command(flatten)]
    pub output: FormatArgs,
}

#[derive(Debug, Args)]
pub struct DbListArgs {
    /// Only entries with this grade.
    #[arg(long, value_enum)]
    pub grade: Option<GradeArg>,
    #[command(flatten)]
    pub output: FormatArgs,
}

impl DbCommand {
    pub(super) fn into_config(self) -> Result<CommandConfig, String> {
        Ok(match self {
            DbCommand::Lookup(args) => CommandConfig::DbLookup(DbLookupConfig {
                model: args.model,
                firmware: args.firmware,
                capacity_bytes: args.capacity,
                format: args.output.resolve::<LookupAnswer<'static>>("db lookup")?,
            }),
            DbCommand::List(args) => CommandConfig::DbList(DbListConfig {
                grade: args.grade.map(|g| match g {
                    GradeArg::Good => verdict::Grade::Good,
                    GradeArg::Ugly => verdict::Grade::Ugly,
                    GradeArg::Bad => verdict::Grade::Bad,
                }),
                format: args.output.resolve::<Listing<'static>>("db list")?,
            }),
        })
    }
}
