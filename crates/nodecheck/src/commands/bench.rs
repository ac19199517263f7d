//! `nodecheck bench`.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Directory on the file system to measure.
    #[arg(default_value = ".")]
    pub path: PathBuf,
}

pub fn run(args: &BenchArgs) -> anyhow::Result<u8> {
    anyhow::bail!("bench of {} is not built yet", args.path.display())
}
