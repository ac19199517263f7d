//! `nodecheck snapshot -o FILE.tar.gz [PATH]`: records what the probe reads on this machine so
//! a support volunteer can replay it with `nodecheck check --snapshot FILE.tar.gz`.

use std::path::PathBuf;

use anyhow::Result;
use probe::Root;

use super::{is_root, say};
use crate::config::{GlobalOptions, SnapshotConfig};
use crate::redact::Redactor;
use crate::snapshot::{self, Contents, Manifest};

pub fn run(config: &SnapshotConfig, global: &GlobalOptions) -> Result<u8> {
    let path = match &config.path {
        Some(p) => p.clone(),
        None => match super::detect_datadir() {
            Some(found) => {
                say(
                    global,
                    &format!("Snapshotting the storage under {}", found.path.display()),
                );
                found.path
            }
            None => PathBuf::from("."),
        },
    };
    let path_kind = snapshot::describe_path(&path);
    if let Some(kind) = &path_kind {
        say(
            global,
            &format!(
                "{} is a {} (device {}): the snapshot describes it and the storage under it, never its contents",
                path.display(),
                kind.kind,
                kind.device
            ),
        );
    }
    let root = Root::live().recording();
    let facts = super::probe::probe_facts(&root, &path, &probe::ProbeOptions::default())?;
    let accessed = root.accessed();

    // Exactly the smartctl outputs the live probe used, as it read them: the replay finds
    // them where a replay looks and sees what the live probe saw.
    let smartctl = root.smartctl_outputs();
    if !is_root() {
        say(
            global,
            "Not running as root: the snapshot has no smartctl output; rerun with sudo to include it.",
        );
    }

    let redactor = config
        .redact
        .then(|| Redactor::new().with_facts(&facts).with_local_hostname());
    let redact = |text: &str| match &redactor {
        Some(r) => r.redact(text),
        None => text.to_string(),
    };
    // Keyed the way the probe will see the mount point: through the redacted mountinfo.
    let statvfs = facts.mount.as_ref().and_then(|m| {
        Some((
            redact(&m.mount_point),
            probe::space::StatvfsRecord {
                free_bytes: m.free_bytes?,
                total_bytes: m.total_bytes?,
            },
        ))
    });
    let shown_path = path.display().to_string();
    let manifest = Manifest {
        format: 1,
        nodecheck_version: env!("CARGO_PKG_VERSION").to_string(),
        path: redact(&shown_path),
        smartctl: smartctl.iter().map(|(name, _)| name.clone()).collect(),
        redacted: config.redact,
        path_kind,
    };
    let written = snapshot::write(
        &config.output,
        &Contents {
            manifest,
            accessed: &accessed,
            smartctl,
            statvfs,
            redactor: redactor.as_ref(),
            fstab_line: match facts.mount.as_ref().map(|m| &m.fstab) {
                Some(probe::FstabEntry::Line { number, .. }) => Some(*number),
                _ => None,
            },
            dm_tables: facts
                .layers
                .iter()
                .filter(|layer| !layer.dm_table.is_empty())
                .map(|layer| {
                    let lines: Vec<String> = layer
                        .dm_table
                        .iter()
                        .map(probe::dm::line_without_key)
                        .collect();
                    (layer.name.clone(), lines.join("\n") + "\n")
                })
                .collect(),
            command_outputs: root.command_outputs(),
        },
    )?;
    say(
        global,
        &format!(
            "Wrote {} ({written} entries{}). Replay it with `nodecheck check --snapshot {}`",
            config.output.display(),
            if config.redact { ", redacted" } else { "" },
            config.output.display()
        ),
    );
    Ok(crate::exit_codes::GOOD)
}
