//! `nodecheck probe [PATH]`: every storage fact, without judging.

use std::path::Path;

use anyhow::{Context, Result};
use probe::Root;
use probe::{Facts, ProbeOptions};

use super::emit;
use crate::config::{GlobalOptions, ProbeConfig};
use crate::render::{self, RenderOptions};

pub fn run(config: &ProbeConfig, global: &GlobalOptions) -> Result<u8> {
    let root = match &config.root {
        Some(dir) => {
            Root::at(dir).with_context(|| format!("cannot read the tree at {}", dir.display()))?
        }
        None => Root::live(),
    };
    let facts = probe_facts(&root, &config.path, &config.probe)?;
    emit(&render::render(
        &facts,
        config.format,
        &RenderOptions::for_stdout(global.verbosity),
    )?)?;
    Ok(crate::exit_codes::GOOD)
}

/// The facts about the storage under `path`, read through `root` as `options` say; what
/// `probe`, `snapshot` and `submit` start from.
pub(crate) fn probe_facts(root: &Root, path: &Path, options: &ProbeOptions) -> Result<Facts> {
    probe::probe_path(root, path, options)
        .with_context(|| format!("cannot probe the storage under {}", path.display()))
}
