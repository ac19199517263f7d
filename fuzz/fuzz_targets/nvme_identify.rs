//! Identify Controller parsing of arbitrary buffers, and builder round trips of what parses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probe::nvme::{parse_identify_controller, IdentifyControllerBuilder, IDENTIFY_PAGE_LEN};

fuzz_target!(|data: &[u8]| {
    let Ok(identify) = parse_identify_controller(data) else {
        assert!(data.len() < IDENTIFY_PAGE_LEN);
        return;
    };
    // Decoded strings are trimmed printable text; re-encoding and parsing again must be
    // stable (the first parse may have replaced bytes, the second must not change anything).
    let rebuilt = IdentifyControllerBuilder::from_identify(&identify).build();
    if identify.serial.is_ascii() && identify.model.is_ascii() && identify.firmware.is_ascii() {
        assert_eq!(parse_identify_controller(&rebuilt).ok(), Some(identify));
    }
});
