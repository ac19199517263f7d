//! `nodecheck snapshot -o FILE.tar.gz [PATH]`: records what the probe reads on this machine so
//! a support volunteer can replay it with `nodecheck check --snapshot FILE.tar.gz`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use probe::root::Root;

use super::{is_root, say};
use crate::config::{GlobalOptions, SnapshotConfig};
use crate::datadir;
use crate::redact::Redactor;
use crate::snapshot::{self, Contents, Manifest};

/// A hung USB bridge must not hang the snapshot.
const SMARTCTL_TIMEOUT: Duration = Duration::from_secs(30);
const SMARTCTL_MAX_BYTES: u64 = 16 << 20;

pub fn run(config: &SnapshotConfig, global: &GlobalOptions) -> Result<u8> {
    let path = match &config.path {
        Some(p) => p.clone(),
        None => match datadir::detect(Path::new("/"), &datadir::home_dirs()) {
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
    let facts = super::probe::probe_facts(&root, &path, Vec::new(), true)?;
    let accessed = root.accessed();

    let mut smartctl = Vec::new();
    if is_root() {
        // Only what the live probe itself used: a smartctl answer it ignored ("unable to
        // detect device type" on a virtio disk) would change the facts in the replay.
        for drive in facts.drives.iter().filter(|d| used_smartctl(d)) {
            match run_smartctl(&Path::new("/dev").join(&drive.name)) {
                Ok(json) => smartctl.push((drive.name.clone(), json)),
                Err(err) => say(
                    global,
                    &format!("smartctl on {} not saved: {err:#}", drive.name),
                ),
            }
        }
    } else {
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
            probe::probe::StatvfsRecord {
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

/// Health read through the NVMe SMART log ioctl counts too: a replay sends no ioctls, and
/// smartctl's output carries the same log, so without it the replay would lose the drive's
/// health (a critical warning would vanish from `check --snapshot`).
fn used_smartctl(drive: &probe::Drive) -> bool {
    drive.model_family.is_some()
        || drive.temperature_source.as_deref() == Some("smartctl")
        || drive.health.is_some()
}

/// `smartctl -j -x DEV`, raw. Its exit status is a bit mask of findings, so any output that
/// parses is kept whatever the status.
fn run_smartctl(device: &Path) -> Result<Vec<u8>> {
    let mut child = Command::new("smartctl")
        .arg("-j")
        .arg("-x")
        .arg(device)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot run smartctl (install smartmontools >= 7.0)")?;
    let mut stdout = child.stdout.take().context("smartctl has no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(SMARTCTL_MAX_BYTES).read_to_end(&mut out);
        out
    });
    let started = Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if started.elapsed() > SMARTCTL_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!(
                "smartctl did not finish within {} s",
                SMARTCTL_TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = reader
        .join()
        .map_err(|_| anyhow::anyhow!("reading smartctl's output failed"))?;
    probe::smartctl::parse(&out).context("smartctl printed no usable JSON")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvme_health_from_the_ioctl_keeps_the_smartctl_output() {
        let mut drive = probe::Drive {
            name: "nvme0n1".to_string(),
            temperature_source: Some("nvme-smart-log".to_string()),
            ..probe::Drive::default()
        };
        assert!(!used_smartctl(&drive), "nothing to replay without health");
        drive.health = Some(probe::facts::Health {
            source: "nvme-smart-log".to_string(),
            critical_warning: Some(1),
            ..probe::facts::Health::default()
        });
        assert!(used_smartctl(&drive));
    }
}
