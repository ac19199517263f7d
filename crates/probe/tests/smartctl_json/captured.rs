//! Real captured reports: what each says about its drive, and the exit-status bits.

use super::*;

#[test]
fn samsung_970_evo_plus_nvme() {
    let r = report(SAMSUNG_970);
    assert_eq!(r.json_format_version, (1, 0));
    assert_eq!(r.smartctl_version, Some((7, 3)));
    assert_eq!(r.exit_status, Some(0));
    assert!(r.status.is_empty());
    assert_eq!(r.device_name.as_deref(), Some("/dev/nvme0"));
    assert_eq!(r.device_type.as_deref(), Some("nvme"));
    assert_eq!(r.protocol.as_deref(), Some("NVMe"));
    assert_eq!(
        r.model_name.as_deref(),
        Some("Samsung SSD 970 EVO Plus 250GB")
    );
    assert_eq!(r.model_family, None);
    assert_eq!(r.serial.as_deref(), Some("REDACTED"));
    assert_eq!(r.capacity_bytes, Some(250_059_350_016));
    assert_eq!(r.logical_block_size, Some(512));
    assert_eq!(r.rotation_rate, None);
    assert_eq!(r.trim, None);
    assert_eq!(r.temperature_c, Some(35.0));
    assert_eq!(r.power_on_hours, Some(3149));
    assert_eq!(r.power_cycle_count, Some(16));
    assert_eq!(r.smart_passed, Some(true));
    assert!(r.ata_attributes.is_empty());
    let log = r.nvme_health.as_ref().expect("NVMe health log");
    assert_eq!(log.critical_warning, Some(0));
    assert_eq!(log.temperature_c, Some(35.0));
    assert_eq!(log.available_spare, Some(100));
    assert_eq!(log.available_spare_threshold, Some(10));
    assert_eq!(log.percentage_used, Some(0));
    assert_eq!(log.data_units_read, Some(2_025_034));
    assert_eq!(log.data_units_written, Some(1_969_459));
    assert_eq!(log.host_writes, Some(88_382_369));
    assert_eq!(log.unsafe_shutdowns, Some(12));
    assert_eq!(log.media_errors, Some(0));
    assert_eq!(log.num_err_log_entries, Some(22));
    assert_eq!(log.warning_temp_time, Some(0));
    assert_eq!(log.critical_comp_time, Some(0));
    assert_eq!(log.temperature_sensors, vec![Some(35.0), Some(39.0)]);
    assert_eq!(r.bytes_written(), Some(1_969_459 * 512_000));
}

#[test]
fn intel_p4510_capacity_comes_from_nvme_total_capacity() {
    let r = report(INTEL_P4510);
    assert_eq!(r.model_name.as_deref(), Some("INTEL SSDPE2KX080T8"));
    // No user_capacity (128 namespaces): the controller's total NVM capacity is used.
    assert_eq!(r.capacity_bytes, Some(8_001_563_222_016));
    assert_eq!(r.temperature_c, Some(29.0));
    assert_eq!(r.power_on_hours, Some(12_164));
    let health = r.health();
    assert_eq!(health.data_units_written, Some(184_919_244));
    assert_eq!(health.bytes_written, Some(184_919_244 * 512_000));
    assert_eq!(health.unsafe_shutdowns, Some(8));
    assert_eq!(health.passed, Some(true));
}

#[test]
fn samsung_pm883_sata_with_full_trim() {
    let r = report(SAMSUNG_PM883);
    assert_eq!(r.protocol.as_deref(), Some("ATA"));
    assert_eq!(r.device_type.as_deref(), Some("sat"));
    assert_eq!(r.model_family.as_deref(), Some("Samsung based SSDs"));
    assert_eq!(r.model_name.as_deref(), Some("SAMSUNG MZ7LH1T9HMLT-00005"));
    assert_eq!(r.capacity_bytes, Some(1_920_383_410_176));
    assert_eq!(r.logical_block_size, Some(512));
    assert_eq!(r.physical_block_size, Some(4096));
    assert_eq!(r.rotation_rate, Some(0));
    assert_eq!(r.form_factor.as_deref(), Some("2.5 inches"));
    assert_eq!(r.trim, trim(Some(true), Some(true), Some(true)));
    assert_eq!(r.interface_speed_current_gbps, Some(6.0));
    assert_eq!(r.interface_speed_max_gbps, Some(6.0));
    assert_eq!(r.temperature_c, Some(24.0));
    assert_eq!(r.power_on_hours, Some(4717));
    assert_eq!(r.nvme_health, None);
    assert_eq!(r.ata_attributes.len(), 26);
    let temperature = r.attribute(194).expect("attribute 194");
    assert_eq!(temperature.name, "Temperature_Celsius");
    assert_eq!(
        temperature.raw_string.as_deref(),
        Some("24 (Min/Max 21/40)")
    );
    assert_eq!(temperature.value, Some(76));
    assert_eq!(temperature.worst, Some(60));
    assert_eq!(temperature.thresh, Some(0));
    let health = r.health();
    assert_eq!(health.source, "smartctl");
    assert_eq!(health.reallocated_sectors, Some(0));
    assert_eq!(health.pending_sectors, Some(0));
    assert_eq!(
        health.uncorrectable_sectors, None,
        "no attribute 198 on this drive"
    );
    // Attribute 241 Total_LBAs_Written = 63,180,483,059 LBAs of 512 bytes.
    assert_eq!(health.bytes_written, Some(63_180_483_059 * 512));
    assert_eq!(health.critical_warning, None);
}

#[test]
fn kingston_a400_exit_status_4_and_gib_counter() {
    let r = report(KINGSTON_A400);
    assert_eq!(r.exit_status, Some(4));
    assert_eq!(
        r.status,
        vec!["a device command failed or SMART data had a checksum error".to_owned()]
    );
    assert_eq!(r.model_family.as_deref(), Some("Phison Driven SSDs"));
    assert_eq!(r.model_name.as_deref(), Some("KINGSTON SA400M8120G"));
    assert_eq!(r.capacity_bytes, Some(120_034_123_776));
    assert_eq!(r.trim, trim(Some(true), Some(false), Some(false)));
    assert_eq!(r.temperature_c, Some(38.0));
    assert_eq!(r.power_on_hours, Some(4994));
    // Attribute 194's raw value packs min/max; the report's temperature comes from
    // `temperature.current`, not from the packed raw value.
    assert_eq!(
        r.attribute(194).and_then(|a| a.raw_value),
        Some(120_261_640_230)
    );
    let health = r.health();
    // 241 Lifetime_Writes_GiB = 398 GiB.
    assert_eq!(health.bytes_written, Some(398 << 30));
    assert_eq!(health.unsafe_shutdowns, Some(3));
    assert_eq!(health.crc_errors, Some(0), "199 SATA_CRC_Error_Count");
    assert_eq!(
        health.reported_uncorrectable,
        Some(0),
        "187 Reported_Uncorrect"
    );
    assert_eq!(health.reallocated_sectors, None);
    assert_eq!(health.smartctl_status, r.status);
}

#[test]
fn wd_red_hard_disk() {
    let r = report(WD_RED);
    assert_eq!(r.model_family.as_deref(), Some("Western Digital Red"));
    assert_eq!(r.model_name.as_deref(), Some("WDC WD20EFRX-68EUZN0"));
    assert_eq!(r.capacity_bytes, Some(2_000_398_934_016));
    assert_eq!(r.rotation_rate, Some(5400));
    assert_eq!(r.trim, trim(Some(false), None, None));
    assert_eq!(r.temperature_c, Some(34.0));
    assert_eq!(r.power_on_hours, Some(47_657));
    let health = r.health();
    assert_eq!(health.reallocated_sectors, Some(0));
    assert_eq!(health.pending_sectors, Some(0));
    assert_eq!(health.uncorrectable_sectors, Some(0));
    assert_eq!(health.bytes_written, None, "no attribute 241 on this disk");
    assert_eq!(health.crc_errors, Some(0), "199 UDMA_CRC_Error_Count");
    assert_eq!(
        health.reported_uncorrectable, None,
        "no attribute 187 on this disk"
    );
    assert_eq!(health.passed, Some(true));
}

#[test]
fn virtio_disk_smartctl_cannot_identify() {
    let r = report(VIRTIO_UNABLE);
    assert_eq!(r.exit_status, Some(1));
    assert_eq!(r.status, vec!["command line did not parse".to_owned()]);
    assert_eq!(
        r.messages,
        vec!["error: /dev/vda: Unable to detect device type".to_owned()]
    );
    assert_eq!(r.model_name, None);
    assert_eq!(r.protocol, None);
    assert_eq!(r.interface(), None);
    let facts = r.to_facts("smartctl-vda.json");
    assert_eq!(
        facts.warnings,
        vec!["smartctl: error: /dev/vda: Unable to detect device type".to_owned()]
    );
}

#[test]
fn every_exit_status_bit_decodes() {
    assert!(decode_exit_status(0).is_empty());
    let all = decode_exit_status(0xFF);
    assert_eq!(all.len(), 8);
    assert_eq!(all[3], "SMART status says the disk is failing");
    assert_eq!(
        decode_exit_status(0b1100_0000),
        vec![
            "device error log has errors".to_owned(),
            "self-test log has errors".to_owned()
        ]
    );
}

#[test]
fn usb_bridge_device_types_mean_usb() {
    for (device_type, protocol) in [
        ("sntjmicron", "NVMe"),
        ("sntasmedia", "NVMe"),
        ("sntrealtek", "NVMe"),
        ("usbjmicron", "ATA"),
        ("usbcypress", "ATA"),
    ] {
        let r = parse(&envelope(json!({
            "device": {"name": "/dev/sdb", "type": device_type, "protocol": protocol},
        })))
        .expect("parses");
        assert_eq!(r.interface(), Some(Interface::Usb), "{device_type}");
        assert_eq!(r.to_drive().interface, Some(Interface::Usb));
    }
    // A sysfs interface is never overridden.
    let r = report(SAMSUNG_970);
    let mut drive = Drive {
        interface: Some(Interface::Usb),
        ..Drive::default()
    };
    r.merge_into(&mut drive);
    assert_eq!(drive.interface, Some(Interface::Usb));
}
