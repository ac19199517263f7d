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
    #[arg(value_parser = non_blank_model)]
    pub model: String,
    /// Firmware revision (`5B2QGXA7`).
    #[arg(long)]
    pub firmware: Option<String>,
    /// Capacity: `2TB`, `1.5TiB`, `500G` or bytes.
    #[arg(long, value_parser = units::size::parse_capacity)]
    pub capacity: Option<u64>,
    /// The NVMe controller's PCI id as `lspci -nn` shows it (`1987:5012`), or only its vendor
    /// (`1987`): named through the vendored pci.ids, it is evidence like in `check`.
    #[arg(long, value_name = "VENDOR:DEVICE", value_parser = parse_pci_id)]
    pub pci_id: Option<(u16, Option<u16>)>,
    /// How the drive is attached (`nvme`, `sata`, `sas`, `usb`): classes are per interface.
    /// Implied `nvme` by `--pci-id`.
    #[arg(long, value_parser = ["nvme", "sata", "sas", "usb"])]
    pub interface: Option<String>,
    /// smartctl's `Model Family:` line (ATA), which some classes read.
    #[arg(long)]
    pub model_family: Option<String>,
    #[command(flatten)]
    pub output: FormatArgs,
}

/// An empty model matches nothing and would print ": unknown": refuse it as a usage error.
fn non_blank_model(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("give the model string the drive reports (`nodecheck probe` shows it)".into())
    } else {
        Ok(text.to_string())
    }
}

fn parse_pci_id(text: &str) -> Result<(u16, Option<u16>), String> {
    let bad =
        || format!("`{text}` is not a PCI id: give VENDOR:DEVICE in hex (1987:5012) or VENDOR");
    match text.split_once(':') {
        Some((v, d)) => Ok((
            verdict::parse_hex_u16(v).ok_or_else(bad)?,
            Some(verdict::parse_hex_u16(d).ok_or_else(bad)?),
        )),
        None => Ok((verdict::parse_hex_u16(text).ok_or_else(bad)?, None)),
    }
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
                pci_id: args.pci_id,
                interface: args
                    .interface
                    .or_else(|| args.pci_id.map(|_| "nvme".to_owned())),
                model_family: args.model_family,
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
