//! The single-value sysfs attribute parsers (link speed/width, SATA speed, scheduler,
//! numbers, flags, hex ids, sizes, temperatures, dev numbers, USB speed) on arbitrary text, and
//! the binary SCSI block characteristics VPD page on the raw bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probe::sysfs;

fuzz_target!(|data: &[u8]| {
    let _ = probe::vpd::parse_block_characteristics(data);
    let text = String::from_utf8_lossy(data);
    let _ = sysfs::parse_link_speed_gts(&text);
    let _ = sysfs::parse_link_width(&text);
    let _ = sysfs::parse_sata_speed_gbps(&text);
    let _ = sysfs::parse_scheduler(&text);
    let _ = sysfs::parse_u64(&text);
    let _ = sysfs::parse_u32(&text);
    let _ = sysfs::parse_flag(&text);
    let _ = sysfs::parse_hex_u32(&text);
    let _ = sysfs::sectors_to_bytes(&text);
    let _ = sysfs::parse_millidegrees(&text);
    let _ = sysfs::parse_dev(&text);
    let _ = sysfs::parse_usb_speed_mbps(&text);
});
