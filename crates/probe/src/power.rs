//! The kernel's power-management settings that make NVMe drives drop off the bus mid-sync on
//! some controllers: NVMe APST's latency limit (`nvme_core.default_ps_max_latency_us`, 0 turns
//! APST off) and the PCIe ASPM policy (`pcie_aspm.policy`, the active choice bracketed).

use serde::{Deserialize, Serialize};

use crate::root::Root;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PowerSettings {
    /// `/sys/module/nvme_core/parameters/default_ps_max_latency_us`.
    pub apst_max_latency_us: Option<u64>,
    /// The bracketed choice of `/sys/module/pcie_aspm/parameters/policy`.
    pub aspm_policy: Option<String>,
}

pub fn read(root: &Root) -> Option<PowerSettings> {
    let settings = PowerSettings {
        apst_max_latency_us: root
            .read_attr("/sys/module/nvme_core/parameters/default_ps_max_latency_us")
            .and_then(|v| v.parse().ok()),
        aspm_policy: root
            .read_attr("/sys/module/pcie_aspm/parameters/policy")
            .as_deref()
            .and_then(active_choice),
    };
    (settings != PowerSettings::default()).then_some(settings)
}

/// `[default] performance powersave powersupersave` → `default`.
pub fn active_choice(text: &str) -> Option<String> {
    let start = text.find('[')? + 1;
    let end = start + text[start..].find(']')?;
    Some(text[start..end].to_string()).filter(|c| !c.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_policy() {
        assert_eq!(
            active_choice("[default] performance powersave powersupersave").as_deref(),
            Some("default")
        );
        assert_eq!(
            active_choice("default performance [powersupersave]").as_deref(),
            Some("powersupersave")
        );
        assert_eq!(active_choice("none"), None);
        assert_eq!(active_choice("[]"), None);
        assert_eq!(active_choice("[broken"), None);
    }
}
