//! `cargo xtask fuzz --seconds N`: runs every cargo-fuzz target.

use anyhow::{bail, Result};

pub fn run(args: &[String]) -> Result<()> {
    bail!("xtask fuzz {args:?}: not built yet")
}
