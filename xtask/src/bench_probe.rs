//! `cargo xtask bench probe`: wall time and peak memory of a full probe.

use anyhow::{bail, Result};

pub fn run(args: &[String]) -> Result<()> {
    bail!("xtask bench probe {args:?}: not built yet")
}
