//! `cargo xtask db-pci-ids PCI_IDS_FILE`: cuts `data/pci-ids/nvme.ids` out of a full `pci.ids`.
//!
//! The probe names an NVMe controller by its PCI vendor and device id; the database reads the
//! names from this subset, so a regenerated file is a reviewable diff, not 1.3 MB of pci.ids.
//! Get Debian's file with `apt-get download pci.ids && dpkg-deb -x pci.ids_*.deb x`, then run
//! `cargo xtask db-pci-ids x/usr/share/misc/pci.ids` (docs/database-corpus.md, "Controllers").

use std::fmt::Write as _;
use std::fs;

use anyhow::{bail, Context, Result};

use crate::project_root;

const OUTPUT: &str = "data/pci-ids/nvme.ids";

/// Vendors that make NVMe controllers or drives: every device line is kept.
const STORAGE_VENDORS: &[&str] = &[
    "025e", "1987", "126f", "1e4b", "1dbe", "15b7", "1c5c", "1e0f", "2646", "c0a9", "1cc1", "1d97",
    "1e49", "1cc4", "1e95", "1d79", "1dee", "1b96", "1c58", "1e3b", "1c5f", "1e81", "1ee4", "1d78",
    "1f40",
];
/// Vendors with many other devices: only lines that name an SSD or NVMe device are kept.
const MIXED_VENDORS: &[&str] = &["8086", "10ec", "1b4b", "1179", "144d", "1344", "1bb1"];
const STORAGE_WORDS: &[&str] = &["NVMe", "NVME", "SSD", "NVM Express", "Optane", "Flash"];

pub fn run(args: &[String]) -> Result<()> {
    let [input] = args else {
        bail!("usage: cargo xtask db-pci-ids PATH/TO/pci.ids");
    };
    let text = fs::read(input).with_context(|| format!("reading {input}"))?;
    let text = String::from_utf8_lossy(&text);
    let subset = subset(&text);
    if !subset.contains("# Version:") {
        bail!("{input} has no `# Version:` line: is it a pci.ids file?");
    }
    let path = project_root().join(OUTPUT);
    fs::write(&path, subset).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {OUTPUT}");
    Ok(())
}

fn subset(text: &str) -> String {
    let mut out = String::from(
        "# NVMe controller and drive ids cut from pci.ids (https://pci-ids.ucw.cz, Debian package\n\
         # `pci.ids`) by `cargo xtask db-pci-ids`; do not edit by hand. Licence of pci.ids:\n\
         # GPL-2.0-or-later or BSD-3-Clause.\n",
    );
    let mut keep: Option<bool> = None; // Some(all devices?) while inside a kept vendor
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix('#') {
            if rest.trim().starts_with("Version:") {
                let _ = writeln!(
                    out,
                    "# Version: {}",
                    rest.trim().trim_start_matches("Version:").trim()
                );
            }
            continue;
        }
        if line.starts_with("C ") {
            break;
        }
        if let Some(device) = line.strip_prefix('\t') {
            if device.starts_with('\t') {
                continue;
            }
            match keep {
                Some(true) => out.push_str(&format!("{line}\n")),
                Some(false) if STORAGE_WORDS.iter().any(|w| device.contains(w)) => {
                    out.push_str(&format!("{line}\n"))
                }
                _ => {}
            }
            continue;
        }
        let id = line.get(..4).unwrap_or("");
        keep = if STORAGE_VENDORS.contains(&id) {
            Some(true)
        } else if MIXED_VENDORS.contains(&id) {
            Some(false)
        } else {
            None
        };
        if keep.is_some() {
            out.push_str(&format!("{line}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_storage_lines_and_the_version() {
        let full = "#\tVersion: 2023.04.10\n1987  Phison\n\t5012  E12 NVMe Controller\n\t\t1987 5012  sub\n8086  Intel\n\t1234  Ethernet\n\tf1a8  SSD 660P Series\n10de  NVIDIA\n\t0001  GPU\nC 01  Mass storage\n";
        let got = super::subset(full);
        assert!(got.contains("# Version: 2023.04.10\n"));
        assert!(got.contains("1987  Phison\n\t5012  E12 NVMe Controller\n"));
        assert!(got.contains("\tf1a8  SSD 660P Series\n"));
        assert!(!got.contains("Ethernet") && !got.contains("NVIDIA") && !got.contains("sub"));
    }
}
