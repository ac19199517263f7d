//! smartctl JSON: the real captured outputs, merging into drives, hostile documents, and
//! running smartctl (a stand-in script, and the real one when it is installed).

mod captured;
mod hostile;
mod merge;
mod subprocess;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::{data_path, read_data};
use probe::smartctl::{
    decode_exit_status, parse, run_smartctl, run_smartctl_with, SmartctlError, SmartctlReport,
    SmartctlRun, TrimSupport,
};
use probe::{AtaDetails, Drive, Health, Interface, ModelSource};
use proptest::prelude::*;
use serde_json::{json, Value};

fn fixture_path(name: &str) -> PathBuf {
    data_path("smartctl", name)
}

fn fixture(name: &str) -> Vec<u8> {
    read_data("smartctl", name)
}

fn report(name: &str) -> SmartctlReport {
    parse(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const SAMSUNG_970: &str = "nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json";
const INTEL_P4510: &str = "INTEL_SSDPE2KX080T8_1.json";
const SAMSUNG_PM883: &str = "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json";
const KINGSTON_A400: &str = "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json";
const WD_RED: &str = "WDC_WD20EFRX-68EUZN0_17.json";
/// Captured on the development VM: smartctl 7.3 cannot identify a virtio disk.
const VIRTIO_UNABLE: &str = "virtio-vda-unable-to-detect.json";

/// The TRIM support a report should state: supported, deterministic, zeroed.
fn trim(
    supported: Option<bool>,
    deterministic: Option<bool>,
    zeroed: Option<bool>,
) -> Option<TrimSupport> {
    Some(TrimSupport {
        supported,
        deterministic,
        zeroed,
    })
}

fn envelope(extra: Value) -> Vec<u8> {
    let mut doc = json!({
        "json_format_version": [1, 0],
        "smartctl": {"version": [7, 3], "exit_status": 0},
    });
    if let (Some(doc), Some(extra)) = (doc.as_object_mut(), extra.as_object()) {
        doc.extend(extra.clone());
    }
    serde_json::to_vec(&doc).expect("serializes")
}
