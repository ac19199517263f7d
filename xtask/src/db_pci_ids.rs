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
/// Every other vendor: a device line that names an NVMe drive or SSD is kept, with its vendor
/// line, so that makers pci.ids adds later (Lite-On's SSDs, Techwinsemi, Starblaze, Apacer, ...)
/// are named without a list to maintain. "Flash" alone is too loose outside storage vendors.
const OTHER_VENDOR_WORDS: &[&str] = &["NVMe", "NVME", "SSD", "NVM Express"];

/// What is kept of the vendor being read.
enum Keep {
    Nothing,
    AllDevices,
    /// Devices whose name has one of these words; the vendor line waits until one does.
    DevicesNaming {
        words: &'static [&'static str],
        pending_vendor_line: Option<String>,
    },
}

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
    let mut keep = Keep::Nothing;
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
            match &mut keep {
                Keep::AllDevices => out.push_str(&format!("{line}\n")),
                Keep::DevicesNaming {
                    words,
                    pending_vendor_line,
                } if words.iter().any(|w| device.contains(w)) => {
                    if let Some(vendor_line) = pending_vendor_line.take() {
                        out.push_str(&vendor_line);
                    }
                    out.push_str(&format!("{line}\n"));
                }
                _ => {}
            }
            continue;
        }
        let id = line.get(..4).unwrap_or("");
        if !id.chars().all(|c| c.is_ascii_hexdigit()) || id.len() != 4 {
            keep = Keep::Nothing;
            continue;
        }
        keep = if STORAGE_VENDORS.contains(&id) {
            out.push_str(&format!("{line}\n"));
            Keep::AllDevices
        } else {
            let words = if MIXED_VENDORS.contains(&id) {
                STORAGE_WORDS
            } else {
                OTHER_VENDOR_WORDS
            };
            Keep::DevicesNaming {
                words,
                pending_vendor_line: Some(format!("{line}\n")),
            }
        };
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

    #[test]
    fn keeps_ssd_lines_of_unlisted_vendors_and_drops_their_other_devices() {
        let full = "#\tVersion: 2026.10.24\n14a4  Lite-On Technology Corporation\n\t4318  Broadcom BCM4318 WLAN\n\t9100  CL1-3D256 NVMe SSD (DRAM-less)\n14a5  XIONICS\n\t0001  Flash printer board\n";
        let got = super::subset(full);
        assert!(got.contains(
            "14a4  Lite-On Technology Corporation\n\t9100  CL1-3D256 NVMe SSD (DRAM-less)\n"
        ));
        assert!(!got.contains("BCM4318"), "{got}");
        assert!(
            !got.contains("XIONICS"),
            "a vendor with no SSD line is left out: {got}"
        );
    }
}
