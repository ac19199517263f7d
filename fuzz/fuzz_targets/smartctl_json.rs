//! smartctl JSON parsing of arbitrary bytes, and everything derived from a parsed report.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probe::smartctl::parse;

fuzz_target!(|data: &[u8]| {
    if let Ok(report) = parse(data) {
        let _ = report.health();
        let _ = report.bytes_written();
        let facts = report.to_facts("fuzz");
        assert_eq!(facts.drives.len(), 1);
    }
});
