//! `cargo xtask dist`: shell completions and the man page.

use anyhow::{bail, Result};

pub fn run(args: &[String]) -> Result<()> {
    bail!("xtask dist {args:?}: not built yet")
}
