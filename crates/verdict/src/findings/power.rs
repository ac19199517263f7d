//! NC420: NVMe power management that makes some drive families drop off the bus mid-sync.
//! The families, their reports and sources are `[[power_advisories]]` in `data/setups.toml`;
//! the kernel's settings come from `nvme_core.default_ps_max_latency_us` and `pcie_aspm.policy`,
//! the drive's power states from Identify Controller.

use probe::{Drive, Facts};

use crate::code::Code;
use crate::model::{Finding, Severity};
use crate::setups::Setups;

/// The kernel command line that turns APST and ASPM off, for GRUB, and the udev rule that keeps
/// the drive out of D3cold.
const KERNEL_FIX: &str = "sudo sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT=\"/&nvme_core.default_ps_max_latency_us=0 pcie_aspm=off /' /etc/default/grub && sudo update-grub";

pub fn check(facts: &Facts) -> Vec<Finding> {
    let setups = Setups::embedded();
    let settings = facts.power.as_ref();
    let apst_off = settings.and_then(|s| s.apst_max_latency_us) == Some(0);
    let aspm = settings.and_then(|s| s.aspm_policy.as_deref());
    let mut out = Vec::new();
    for drive in facts.drives.iter().filter(|d| d.nvme.is_some()) {
        let Some(advisory) = setups
            .power_advisories
            .iter()
            .find(|a| a.matches(drive.model.as_deref(), pci_id(drive).as_deref()))
        else {
            continue;
        };
        let sources = setups.cite(&advisory.sources);
        let states = describe_states(drive);
        let kernel = match (settings.and_then(|s| s.apst_max_latency_us), aspm) {
            (Some(0), Some(policy)) => format!("APST is off (nvme_core.default_ps_max_latency_us=0); the ASPM policy is `{policy}`"),
            (Some(0), None) => "APST is off (nvme_core.default_ps_max_latency_us=0)".to_owned(),
            (Some(limit), Some(policy)) => format!("APST is on (nvme_core.default_ps_max_latency_us={limit}); the ASPM policy is `{policy}`"),
            (Some(limit), None) => format!("APST is on (nvme_core.default_ps_max_latency_us={limit})"),
            (None, _) => "the kernel's APST setting could not be read".to_owned(),
        };
        let aspm_off = aspm == Some("performance");
        let severity = if apst_off && aspm_off {
            Severity::Info
        } else {
            Severity::Warning
        };
        let udev = match drive.nvme.as_ref().and_then(|n| n.pci_address.as_deref()) {
            Some(address) => format!(
                "echo 'ACTION==\"add\", SUBSYSTEM==\"pci\", KERNEL==\"{address}\", ATTR{{d3cold_allowed}}=\"0\"' | sudo tee /etc/udev/rules.d/99-nvme-no-d3cold.rules"
            ),
            // Not read here: the controller's `device` link names its PCI function, whose
            // directory name is the address the rule matches (also under native multipath,
            // where the namespace hangs off the subsystem instead).
            None => format!(
                "address=$(basename \"$(readlink -f /sys/class/nvme/{}/device)\") && echo \"ACTION==\\\"add\\\", SUBSYSTEM==\\\"pci\\\", KERNEL==\\\"$address\\\", ATTR{{d3cold_allowed}}=\\\"0\\\"\" | sudo tee /etc/udev/rules.d/99-nvme-no-d3cold.rules",
                nvme_controller(&drive.name)
            ),
        };
        out.push(
            Finding::new(
                Code::NvmePowerManagement,
                severity,
                format!(
                    "{}: known to drop off the bus under power management",
                    drive.name
                ),
                format!(
                    "{}: {} [{}]. Here {kernel}{states}. Sources: {sources}.",
                    drive.name, advisory.text, advisory.id
                ),
            )
            .about(&drive.name)
            .with_fix(format!("{KERNEL_FIX} && {udev}   (then reboot)")),
        );
    }
    out
}

/// `nvme0n1` → `nvme0`: the controller a namespace's kernel name is numbered after.
fn nvme_controller(namespace: &str) -> &str {
    match namespace.rfind('n') {
        Some(at) if at > 4 && namespace[at + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            &namespace[..at]
        }
        _ => namespace,
    }
}

fn pci_id(drive: &Drive) -> Option<String> {
    let nvme = drive.nvme.as_ref()?;
    Some(format!(
        "{}:{}",
        nvme.pci_vendor_id.as_deref()?,
        nvme.pci_device_id.as_deref()?
    ))
}

/// What the drive's own Identify says about its power states (as root).
fn describe_states(drive: &Drive) -> String {
    let Some(power) = drive
        .nvme
        .as_ref()
        .and_then(|n| n.identify.as_ref())
        .and_then(|i| i.power.as_ref())
    else {
        return String::new();
    };
    let sleeping = power
        .power_states
        .iter()
        .filter(|s| s.non_operational)
        .count();
    match power.deepest_exit_latency_us() {
        Some(exit) => format!(
            "; the drive {} APST and has {sleeping} non-operational power state(s), the deepest waking in {exit} µs",
            if power.apst_supported { "supports" } else { "does not support" }
        ),
        None => String::new(),
    }
}
