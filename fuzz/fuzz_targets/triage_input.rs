//! `nodecheck triage FILE` of arbitrary bytes: telling a report, a facts document and a
//! smartctl output apart, and refusing a smartctl run with no device data.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = nodecheck::classify_triage_input(data, "fuzz");
});
