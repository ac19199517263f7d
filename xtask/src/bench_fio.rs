//! `cargo xtask bench vs-fio` (alias `bench-vs-fio`): nodecheck's engine against fio.

use anyhow::{bail, Result};

pub fn run(args: &[String]) -> Result<()> {
    bail!("xtask bench vs-fio {args:?}: not built yet")
}
