//! SMART / Health log parsing of arbitrary buffers, the derived health record, and
//! re-encoding round trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probe::nvme::{parse_smart_log, SMART_LOG_LEN};

fuzz_target!(|data: &[u8]| {
    let Ok(log) = parse_smart_log(data) else {
        assert!(data.len() < SMART_LOG_LEN);
        return;
    };
    let health = log.health();
    assert!(health.bytes_written.is_some());
    let _ = log.temperature_c();
    let _ = log.sensor_temperatures_c();
    let rebuilt = log.to_page();
    assert_eq!(parse_smart_log(&rebuilt).ok(), Some(log));
});
