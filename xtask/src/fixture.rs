//! `cargo xtask fixture NAME DIR`: writes one of the probe's kernel-accurate fixture trees, so
//! a developer or support volunteer can replay a scenario with `nodecheck check --root DIR`
//! without writing a test.

use std::path::Path;

use anyhow::{bail, Context, Result};
use probe::fixture::{scenario_named, SCENARIOS};

const USAGE: &str = "usage: cargo xtask fixture NAME DIR   (or --list)";

pub fn run(args: &[String]) -> Result<()> {
    match args {
        [flag] if flag == "--list" => {
            for scenario in SCENARIOS {
                println!("{:<32} probe path {}", scenario.name, scenario.probe_path);
            }
            Ok(())
        }
        [name, dir] => {
            let scenario = scenario_named(name).with_context(|| {
                format!("no fixture scenario `{name}`; `cargo xtask fixture --list` names them")
            })?;
            let dir = Path::new(dir);
            if dir.exists() && dir.read_dir()?.next().is_some() {
                bail!(
                    "{} is not empty; give a new or empty directory",
                    dir.display()
                );
            }
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            (scenario.build)(dir).with_context(|| format!("writing scenario `{name}`"))?;
            println!(
                "wrote `{name}` to {dir}; replay it with:\n  cargo run -p nodecheck -- check --root {dir} {path}",
                dir = dir.display(),
                path = scenario.probe_path
            );
            Ok(())
        }
        _ => bail!("{USAGE}"),
    }
}
