//! Identify Controller parsing of arbitrary buffers, and re-encoding round trips of what parses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probe::nvme::{parse_identify_controller, IDENTIFY_PAGE_LEN};

fuzz_target!(|data: &[u8]| {
    if parse_identify_controller(data).is_err() {
        assert!(data.len() < IDENTIFY_PAGE_LEN);
    }
    // libFuzzer starts from tiny inputs and seldom grows them to a whole page, so short
    // inputs are also parsed zero-padded: every input then reaches the field decoders.
    let mut page = data.to_vec();
    if page.len() < IDENTIFY_PAGE_LEN {
        page.resize(IDENTIFY_PAGE_LEN, 0);
    }
    let Ok(identify) = parse_identify_controller(&page) else {
        panic!("a whole page must always parse");
    };
    // Re-encoding what was decoded must be stable. Non-ASCII bytes were replaced by U+FFFD,
    // which does not fit the ASCII fields, so only ASCII results are compared.
    if identify.serial.is_ascii() && identify.model.is_ascii() && identify.firmware.is_ascii() {
        let rebuilt = identify.to_page();
        assert_eq!(parse_identify_controller(&rebuilt).ok(), Some(identify));
    }
});
