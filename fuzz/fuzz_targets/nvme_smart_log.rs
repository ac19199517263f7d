//! SMART / Health log parsing of arbitrary buffers, the derived health record, and builder
//! round trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probe::nvme::{parse_smart_log, SmartLogBuilder, SMART_LOG_LEN};

fuzz_target!(|data: &[u8]| {
    let Ok(log) = parse_smart_log(data) else {
        assert!(data.len() < SMART_LOG_LEN);
        return;
    };
    let health = log.health();
    assert!(health.bytes_written.is_some());
    let _ = log.temperature_c();
    let _ = log.sensor_temperatures_c();
    let rebuilt = SmartLogBuilder::from_log(log.clone()).build();
    assert_eq!(parse_smart_log(&rebuilt).ok(), Some(log));
});
