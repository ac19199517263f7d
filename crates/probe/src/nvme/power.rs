//! The power-management fields of NVMe Identify Controller: APSTA (byte 265 bit 0, the drive
//! can switch power states on its own), NPSS (byte 263, the number of power states minus one)
//! and the power state descriptors from byte 2048, 32 bytes each (NVMe base specification,
//! Identify Controller data structure; see docs/sources/live-io-and-extents.md).

use serde::{Deserialize, Serialize};

const ID_NPSS: usize = 263;
const ID_APSTA: usize = 265;
const ID_PSD0: usize = 2048;
const PSD_LEN: usize = 32;

/// The drive's power states and whether it transitions between them autonomously.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct NvmePower {
    pub apst_supported: bool,
    pub power_states: Vec<PowerState>,
}

/// One power state descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PowerState {
    /// Maximum power in microwatts (MP, scaled by MXPS).
    pub max_power_uw: u64,
    /// NOPS: the drive processes no I/O in this state.
    pub non_operational: bool,
    /// ENLAT / EXLAT in microseconds.
    pub entry_latency_us: u32,
    pub exit_latency_us: u32,
}

impl NvmePower {
    /// The longest exit latency of a non-operational state: what a read may wait for when the
    /// drive sleeps under APST.
    pub fn deepest_exit_latency_us(&self) -> Option<u32> {
        self.power_states
            .iter()
            .filter(|s| s.non_operational)
            .map(|s| s.exit_latency_us)
            .max()
    }
}

/// The power fields of a 4096-byte Identify Controller page; `None` when the page leaves
/// them all zero (no power state 0 described).
pub fn parse(page: &[u8]) -> Option<NvmePower> {
    let npss = usize::from(*page.get(ID_NPSS)?);
    let apst_supported = page.get(ID_APSTA)? & 1 != 0;
    let mut power_states = Vec::new();
    for index in 0..=npss.min(31) {
        let start = ID_PSD0 + index * PSD_LEN;
        let Some(psd) = page.get(start..start + PSD_LEN) else {
            break;
        };
        let mp = u64::from(u16::from_le_bytes([psd[0], psd[1]]));
        let scale = if psd[3] & 1 != 0 { 100 } else { 10_000 };
        let latency =
            |at: usize| u32::from_le_bytes([psd[at], psd[at + 1], psd[at + 2], psd[at + 3]]);
        power_states.push(PowerState {
            max_power_uw: mp * scale,
            non_operational: psd[3] & 2 != 0,
            entry_latency_us: latency(4),
            exit_latency_us: latency(8),
        });
    }
    let described = power_states.first().is_some_and(|ps| ps.max_power_uw > 0);
    (described || apst_supported).then_some(NvmePower {
        apst_supported,
        power_states,
    })
}

/// Writes `power` into an Identify Controller page (for tests and fixtures).
pub fn encode(page: &mut [u8], power: &NvmePower) {
    if page.len() < ID_PSD0 + PSD_LEN * power.power_states.len() || power.power_states.is_empty() {
        return;
    }
    page[ID_NPSS] = (power.power_states.len() - 1) as u8;
    page[ID_APSTA] = u8::from(power.apst_supported);
    for (index, state) in power.power_states.iter().enumerate() {
        let psd = &mut page[ID_PSD0 + index * PSD_LEN..][..PSD_LEN];
        psd[0..2].copy_from_slice(&((state.max_power_uw / 10_000) as u16).to_le_bytes());
        psd[3] = if state.non_operational { 2 } else { 0 };
        psd[4..8].copy_from_slice(&state.entry_latency_us.to_le_bytes());
        psd[8..12].copy_from_slice(&state.exit_latency_us.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Samsung 990 PRO's table as `nvme id-ctrl` prints it: ps 0-2 operational at 9.39,
    /// 9.39 and 9.39 W... here with the five states of a 970 PRO (6.20 W, 4.30 W, 2.10 W, then
    /// non-operational 0.0400 W 210/1200 us and 0.0050 W 2000/8000 us).
    fn samsung() -> NvmePower {
        let state = |mw: u64, non_operational, entry_latency_us, exit_latency_us| PowerState {
            max_power_uw: mw * 1000,
            non_operational,
            entry_latency_us,
            exit_latency_us,
        };
        NvmePower {
            apst_supported: true,
            power_states: vec![
                state(6200, false, 0, 0),
                state(4300, false, 0, 0),
                state(2100, false, 0, 0),
                state(40, true, 210, 1200),
                state(10, true, 2000, 8000),
            ],
        }
    }

    #[test]
    fn power_states_round_trip_and_truncation() {
        let mut page = vec![0u8; 4096];
        encode(&mut page, &samsung());
        let parsed = parse(&page).expect("power states");
        assert_eq!(parsed, samsung());
        assert_eq!(parsed.deepest_exit_latency_us(), Some(8000));
        assert_eq!(parse(&vec![0u8; 4096]), None, "nothing described");
        // A short page stops at the last whole descriptor and never panics.
        for len in [0, 100, 264, 2048, 2100, 2200] {
            let _ = parse(&page[..len]);
        }
    }
}
