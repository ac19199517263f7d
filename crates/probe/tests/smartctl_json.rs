//! smartctl JSON: the real captured outputs, merging into drives, hostile documents, and
//! running smartctl (a stand-in script, and the real one when it is installed).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use probe::smartctl::{
    decode_exit_status, parse, run_smartctl, run_smartctl_with, SmartctlError, SmartctlReport,
    SmartctlRun, TrimSupport,
};
use probe::{AtaDetails, Drive, Health, Interface, ModelSource};
use proptest::prelude::*;
use serde_json::{json, Value};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/smartctl")
        .join(name)
}

fn fixture(name: &str) -> Vec<u8> {
    let path = fixture_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
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
    assert_eq!(
        r.trim,
        Some(TrimSupport {
            supported: Some(true),
            deterministic: Some(true),
            zeroed: Some(true)
        })
    );
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
    assert_eq!(
        r.trim,
        Some(TrimSupport {
            supported: Some(true),
            deterministic: Some(false),
            zeroed: Some(false)
        })
    );
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
    assert_eq!(
        r.trim,
        Some(TrimSupport {
            supported: Some(false),
            deterministic: None,
            zeroed: None
        })
    );
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
fn merge_keeps_sysfs_values_and_fills_the_rest() {
    let r = report(SAMSUNG_PM883);
    let mut drive = Drive {
        name: "sda".into(),
        // The SCSI view: what sysfs knew before smartctl.
        model: Some("SAMSUNG MZ7LH1T9".into()),
        capacity_bytes: Some(1_920_383_410_176),
        interface: Some(Interface::Sata),
        rotational: Some(false),
        temperature_c: Some(25.0),
        temperature_source: Some("hwmon".into()),
        ata: Some(AtaDetails {
            port: Some("ata3".into()),
            ..AtaDetails::default()
        }),
        ..Drive::default()
    };
    r.merge_into(&mut drive);
    assert_eq!(
        drive.model.as_deref(),
        Some("SAMSUNG MZ7LH1T9"),
        "sysfs value kept"
    );
    assert_eq!(drive.temperature_c, Some(25.0));
    assert_eq!(drive.temperature_source.as_deref(), Some("hwmon"));
    assert_eq!(drive.model_family.as_deref(), Some("Samsung based SSDs"));
    assert_eq!(drive.firmware.as_deref(), Some("REDACTED"));
    assert_eq!(drive.rotation_rate_rpm, Some(0));
    assert_eq!(drive.trim_supported, Some(true));
    assert_eq!(drive.sata_link_gbps, Some(6.0));
    assert_eq!(drive.sata_link_max_gbps, Some(6.0));
    assert_eq!(drive.physical_block_size, Some(4096));
    let ata = drive.ata.as_ref().expect("ATA details");
    assert_eq!(ata.port.as_deref(), Some("ata3"));
    assert_eq!(ata.deterministic_read_after_trim, Some(true));
    let health = drive.health.as_ref().expect("health");
    assert_eq!(health.source, "smartctl");
    assert_eq!(health.pending_sectors, Some(0));
}

#[test]
fn smartctl_model_replaces_the_inquiry_product_it_extends() {
    let r = report(SAMSUNG_PM883);
    // What /sys/block/sda/device/model holds for this drive: the first 16 characters.
    let mut drive = Drive {
        name: "sda".into(),
        model: Some("SAMSUNG MZ7LH1T9".into()),
        model_source: Some(ModelSource::ScsiInquiry),
        ..Drive::default()
    };
    r.merge_into(&mut drive);
    assert_eq!(drive.model.as_deref(), Some("SAMSUNG MZ7LH1T9HMLT-00005"));
    assert_eq!(drive.model_source, Some(ModelSource::Smartctl));

    // A whole model from IDENTIFY stays, and so does an INQUIRY product smartctl's name does
    // not extend (smartctl answered for another drive or through a lying bridge).
    for (model, source) in [
        ("SAMSUNG MZ7LH1T9", ModelSource::AtaIdentify),
        ("Portable SSD T5", ModelSource::ScsiInquiry),
    ] {
        let mut drive = Drive {
            name: "sda".into(),
            model: Some(model.into()),
            model_source: Some(source),
            ..Drive::default()
        };
        r.merge_into(&mut drive);
        assert_eq!(drive.model.as_deref(), Some(model));
        assert_eq!(drive.model_source, Some(source));
    }

    assert_eq!(r.to_drive().model_source, Some(ModelSource::Smartctl));
}

#[test]
fn merge_into_existing_nvme_log_health_keeps_the_ioctl_values() {
    let r = report(KINGSTON_A400);
    let mut drive = Drive {
        name: "sda".into(),
        health: Some(Health {
            source: "nvme-smart-log".into(),
            power_on_hours: Some(1),
            ..Health::default()
        }),
        ..Drive::default()
    };
    r.merge_into(&mut drive);
    let health = drive.health.as_ref().expect("health");
    assert_eq!(health.source, "nvme-smart-log");
    assert_eq!(health.power_on_hours, Some(1));
    assert_eq!(health.passed, Some(true));
    assert_eq!(health.bytes_written, Some(398 << 30));
    assert_eq!(health.smartctl_status.len(), 1);
    // Merging twice does not duplicate the status lines.
    r.merge_into(&mut drive);
    assert_eq!(
        drive.health.as_ref().map(|h| h.smartctl_status.len()),
        Some(1)
    );
}

#[test]
fn to_drive_and_to_facts_for_triage() {
    let r = report(SAMSUNG_970);
    let drive = r.to_drive();
    assert_eq!(drive.name, "nvme0");
    assert_eq!(drive.interface, Some(Interface::Nvme));
    assert_eq!(
        drive.model.as_deref(),
        Some("Samsung SSD 970 EVO Plus 250GB")
    );
    assert_eq!(drive.capacity_bytes, Some(250_059_350_016));
    assert_eq!(drive.temperature_c, Some(35.0));
    assert_eq!(drive.temperature_source.as_deref(), Some("smartctl"));
    assert_eq!(
        drive.rotational, None,
        "NVMe reports no rotation rate: not guessed"
    );
    let health = drive.health.as_ref().expect("health");
    assert_eq!(health.available_spare_pct, Some(100));
    assert_eq!(health.percentage_used, Some(0));
    assert_eq!(health.media_errors, Some(0));
    assert_eq!(health.unsafe_shutdowns, Some(12));

    let facts = r.to_facts("report.json");
    assert_eq!(facts.schema_version, probe::SCHEMA_VERSION);
    assert!(!facts.live);
    assert!(!facts.privileged);
    assert_eq!(facts.path, "report.json");
    assert_eq!(facts.drives, vec![drive]);
    assert!(facts.mount.is_none());
    assert!(facts.stack.is_empty());
    assert_eq!(facts.trim_effective, None);
    // The document serializes like any probe output.
    let text = serde_json::to_string(&facts).expect("serializes");
    let back: probe::Facts = serde_json::from_str(&text).expect("deserializes");
    assert_eq!(back, facts);

    let hdd = report(WD_RED).to_drive();
    assert_eq!(hdd.name, "sdb");
    assert_eq!(hdd.interface, Some(Interface::Sata));
    assert_eq!(hdd.rotational, Some(true));
    assert_eq!(hdd.rotation_rate_rpm, Some(5400));
    assert_eq!(hdd.trim_supported, Some(false));
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

#[test]
fn empty_input_is_a_clear_error() {
    assert!(matches!(parse(b""), Err(SmartctlError::Empty)));
    assert!(matches!(parse(b" \n\t"), Err(SmartctlError::Empty)));
    assert_eq!(
        parse(b"").unwrap_err().to_string(),
        "smartctl output is empty"
    );
}

#[test]
fn truncated_json_is_reported_as_truncated() {
    let whole = fixture(SAMSUNG_PM883);
    for cut in [1, 100, whole.len() / 2, whole.len() - 2] {
        let err = parse(&whole[..cut]).unwrap_err();
        assert!(
            matches!(err, SmartctlError::Truncated { .. }),
            "cut at {cut}: {err:?}"
        );
        assert!(err.to_string().contains("truncated"));
    }
}

#[test]
fn non_object_json_is_rejected() {
    let err = parse(b"[]").unwrap_err();
    assert!(matches!(
        err,
        SmartctlError::NotAnObject { found: "an array" }
    ));
    assert_eq!(
        err.to_string(),
        "not smartctl output: the JSON document is an array, expected an object"
    );
    assert!(matches!(
        parse(b"42"),
        Err(SmartctlError::NotAnObject { found: "a number" })
    ));
    assert!(matches!(
        parse(b"null"),
        Err(SmartctlError::NotAnObject { found: "null" })
    ));
}

#[test]
fn foreign_json_is_rejected() {
    assert!(matches!(
        parse(b"{}"),
        Err(SmartctlError::Foreign {
            missing: "json_format_version"
        })
    ));
    // `nvme smart-log -o json` (nvme-cli): a health log, but not smartctl's document.
    let nvme_cli = br#"{"critical_warning":0,"temperature":308,"avail_spare":100,
        "spare_thresh":10,"percent_used":0,"data_units_read":2025034,
        "data_units_written":1969459,"media_errors":0}"#;
    assert!(matches!(
        parse(nvme_cli),
        Err(SmartctlError::Foreign {
            missing: "json_format_version"
        })
    ));
    // `lsblk --json`.
    let lsblk = br#"{"blockdevices":[{"name":"vda","maj:min":"254:0","rm":false,"size":"20G"}]}"#;
    assert!(matches!(parse(lsblk), Err(SmartctlError::Foreign { .. })));
    // The version marker alone is not enough.
    let err = parse(br#"{"json_format_version":[1,0]}"#).unwrap_err();
    assert!(matches!(
        err,
        SmartctlError::Foreign {
            missing: "smartctl"
        }
    ));
    assert_eq!(
        err.to_string(),
        "not smartctl output: the JSON object has no `smartctl` key"
    );
    // Right keys, wrong types.
    assert!(matches!(
        parse(br#"{"json_format_version":"1.0","smartctl":{}}"#),
        Err(SmartctlError::Foreign {
            missing: "json_format_version"
        })
    ));
    assert!(matches!(
        parse(br#"{"json_format_version":[1,0],"smartctl":[]}"#),
        Err(SmartctlError::Foreign {
            missing: "smartctl"
        })
    ));
}

#[test]
fn unknown_format_and_old_smartctl_are_refused() {
    assert!(matches!(
        parse(br#"{"json_format_version":[2,0],"smartctl":{"version":[8,0]}}"#),
        Err(SmartctlError::UnsupportedFormat { major: 2, minor: 0 })
    ));
    let err = parse(br#"{"json_format_version":[1,0],"smartctl":{"version":[6,6]}}"#).unwrap_err();
    assert!(matches!(err, SmartctlError::TooOld { ref version } if version == "6.6"));
}

#[test]
fn text_output_is_recognised() {
    // What smartctl 6.x prints when given -j (banner as smartctl 6.6 writes it).
    let old = b"smartctl 6.6 2017-11-05 r4594 [x86_64-linux-4.14.74] (local build)\n\
        Copyright (C) 2002-17, Bruce Allen, Christian Franke, www.smartmontools.org\n\n\
        =======> UNRECOGNIZED OPTION: j\n";
    let err = parse(old).unwrap_err();
    assert!(matches!(err, SmartctlError::TooOld { ref version } if version == "6.6"));
    assert!(err.to_string().contains("7.0"));
    // smartctl 7.3 without -j, captured on the development VM.
    let text = fixture("virtio-vda-text-output.txt");
    assert!(matches!(parse(&text), Err(SmartctlError::TextOutput)));
}

#[test]
fn garbage_and_non_utf8_are_invalid_json() {
    assert!(matches!(
        parse(b"\xff\xfe\x00garbage"),
        Err(SmartctlError::InvalidJson { .. })
    ));
    let mut doc = fixture(SAMSUNG_PM883);
    let at = doc
        .windows(7)
        .position(|w| w == b"SAMSUNG")
        .expect("model string present");
    doc[at] = 0xFF;
    let err = parse(&doc).unwrap_err();
    assert!(matches!(err, SmartctlError::InvalidJson { .. }), "{err:?}");
    assert!(err.to_string().starts_with("not valid JSON"));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "[".repeat(100_000);
    assert!(matches!(
        parse(deep.as_bytes()),
        Err(SmartctlError::InvalidJson { .. })
    ));
    let mut nested = String::from(r#"{"json_format_version":[1,0],"smartctl":{},"x":"#);
    nested.push_str(&"{\"a\":".repeat(10_000));
    assert!(parse(nested.as_bytes()).is_err());
}

#[test]
fn huge_numbers_saturate_or_fail_clearly() {
    let r = parse(&envelope(json!({}))).expect("envelope");
    assert_eq!(r.capacity_bytes, None);

    // An integer beyond u64 (serde_json reads it as a double): saturated.
    let doc = br#"{"json_format_version":[1,0],"smartctl":{"version":[7,3]},
        "user_capacity":{"bytes":123456789012345678901234567890}}"#;
    assert_eq!(parse(doc).expect("parses").capacity_bytes, Some(u64::MAX));

    // Beyond f64: a clear JSON error.
    let doc = br#"{"json_format_version":[1,0],"smartctl":{"version":[7,3]},
        "user_capacity":{"bytes":1e400}}"#;
    assert!(matches!(parse(doc), Err(SmartctlError::InvalidJson { .. })));

    // smartctl's exact `_s` strings win over the lossy number, and 128-bit values saturate.
    let r = parse(&envelope(json!({
        "nvme_smart_health_information_log": {
            "data_units_written": 3.6893488147419103e19,
            "data_units_written_s": "36893488147419103232",
            "power_on_hours": 9.007199254740992e15,
            "power_on_hours_s": "9007199254740993",
            "percentage_used": 300,
            "temperature": -5,
        },
        "smartctl": {"version": [7, 3], "exit_status": 1000},
    })))
    .expect("parses");
    let log = r.nvme_health.as_ref().expect("log");
    assert_eq!(log.data_units_written, Some(u64::MAX));
    assert_eq!(log.power_on_hours, Some(9_007_199_254_740_993));
    assert_eq!(log.percentage_used, None, "300 does not fit the NVMe byte");
    assert_eq!(log.temperature_c, Some(-5.0));
    assert_eq!(
        r.exit_status, None,
        "an exit status beyond 255 is not a real one"
    );
    assert_eq!(r.health().bytes_written, Some(u64::MAX));
}

#[test]
fn wrong_types_are_ignored_field_by_field() {
    let r = parse(&envelope(json!({
        "model_name": 42,
        "serial_number": "  S3Z9NB0K  ",
        "firmware_version": "",
        "rotation_rate": -1,
        "trim": {"supported": "yes", "deterministic": true},
        "temperature": {"current": "hot"},
        "interface_speed": {"current": {"string": "3.0 Gb/s"}, "max": {"string": "<unknown>"}},
        "ata_smart_attributes": {"table": [
            {"id": 999, "name": "Out_Of_Range"},
            {"name": "No_Id"},
            {"id": 5, "name": "Reallocated_Sector_Ct", "raw": {"value": "many"}},
            {"id": 197, "raw": {"value": 12}},
            "not an object",
        ]},
    })))
    .expect("parses");
    assert_eq!(r.model_name, None);
    assert_eq!(r.serial.as_deref(), Some("S3Z9NB0K"));
    assert_eq!(r.firmware, None);
    assert_eq!(r.rotation_rate, None);
    assert_eq!(
        r.trim,
        Some(TrimSupport {
            supported: None,
            deterministic: Some(true),
            zeroed: None
        })
    );
    assert_eq!(r.temperature_c, None);
    assert_eq!(r.interface_speed_current_gbps, Some(3.0));
    assert_eq!(r.interface_speed_max_gbps, None);
    assert_eq!(r.ata_attributes.len(), 2);
    assert_eq!(r.health().reallocated_sectors, None);
    assert_eq!(r.health().pending_sectors, Some(12));
}

#[test]
fn stand_in_smartctl_nonzero_exit_with_json_is_normal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = fixture_path(KINGSTON_A400);
    // The script checks it was called as `smartctl -j -x DEV` before answering.
    let script = write_script(
        dir.path(),
        "smartctl",
        &format!(
            "[ \"$1\" = -j ] && [ \"$2\" = -x ] && [ \"$3\" = /dev/sdz ] || exit 64\n\
             cat '{}'\nexit 4\n",
            fixture.display()
        ),
    );
    let r = run_smartctl_with(&script, Path::new("/dev/sdz"), Duration::from_secs(10))
        .expect("non-zero exit with JSON is a report")
        .report;
    assert_eq!(r.model_name.as_deref(), Some("KINGSTON SA400M8120G"));
    assert_eq!(r.exit_status, Some(4));

    let err =
        run_smartctl_with(&script, Path::new("/dev/other"), Duration::from_secs(10)).unwrap_err();
    assert!(
        matches!(
            err,
            SmartctlError::NoOutput {
                status: Some(64),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn stand_in_smartctl_6_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = write_script(
        dir.path(),
        "smartctl",
        "echo 'smartctl 6.6 2017-11-05 r4594 [x86_64-linux-4.14.74] (local build)'\n\
         echo '=======> UNRECOGNIZED OPTION: j'\nexit 1\n",
    );
    let err =
        run_smartctl_with(&script, Path::new("/dev/sda"), Duration::from_secs(10)).unwrap_err();
    assert!(matches!(err, SmartctlError::TooOld { ref version } if version == "6.6"));
}

#[test]
fn stand_in_smartctl_that_prints_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = write_script(
        dir.path(),
        "smartctl",
        "echo 'Permission denied' >&2\nexit 2\n",
    );
    let err =
        run_smartctl_with(&script, Path::new("/dev/sda"), Duration::from_secs(10)).unwrap_err();
    match err {
        SmartctlError::NoOutput { status, stderr, .. } => {
            assert_eq!(status, Some(2));
            assert_eq!(stderr, "Permission denied");
        }
        other => panic!("expected NoOutput, got {other:?}"),
    }
}

#[test]
fn hung_smartctl_times_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = write_script(dir.path(), "smartctl", "exec sleep 30\n");
    let started = Instant::now();
    let err =
        run_smartctl_with(&script, Path::new("/dev/sda"), Duration::from_millis(300)).unwrap_err();
    assert!(matches!(err, SmartctlError::Timeout { .. }), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the child was killed promptly"
    );
}

#[test]
fn missing_smartctl_says_what_to_install() {
    let err = run_smartctl_with(
        Path::new("/nonexistent/bin/smartctl"),
        Path::new("/dev/sda"),
        Duration::from_secs(1),
    )
    .unwrap_err();
    assert!(matches!(err, SmartctlError::NotInstalled { .. }));
    assert!(err.to_string().contains("smartmontools >= 7.0"));
}

#[test]
fn real_smartctl_on_this_machine() {
    let Some(device) = ["/dev/nvme0", "/dev/sda", "/dev/vda"]
        .into_iter()
        .map(Path::new)
        .find(|path| path.exists())
    else {
        println!("skipped: no /dev/nvme0, /dev/sda or /dev/vda on this machine");
        return;
    };
    match run_smartctl(device) {
        Ok(SmartctlRun { report, .. }) => {
            // Whatever the device, the decoded bits must agree with the exit status.
            let status = report
                .exit_status
                .expect("smartctl always reports exit_status");
            assert_eq!(report.status, decode_exit_status(status));
            assert!(report.smartctl_version.is_some_and(|(major, _)| major >= 7));
        }
        Err(SmartctlError::NotInstalled { .. }) => {
            println!("skipped: smartctl is not installed");
        }
        Err(SmartctlError::TooOld { version }) => {
            println!("skipped: installed smartctl {version} predates JSON output");
        }
        Err(other) => panic!("smartctl on {}: {other}", device.display()),
    }
}

fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("model_name".to_owned()),
                    Just("user_capacity".to_owned()),
                    Just("bytes".to_owned()),
                    Just("trim".to_owned()),
                    Just("table".to_owned()),
                    Just("id".to_owned()),
                    Just("raw".to_owned()),
                    Just("value".to_owned()),
                    Just("temperature".to_owned()),
                    Just("current".to_owned()),
                    Just("nvme_smart_health_information_log".to_owned()),
                    Just("ata_smart_attributes".to_owned()),
                    Just("data_units_written_s".to_owned()),
                    "[a-z_]{1,10}",
                ],
                inner,
                0..8
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn mutated_real_reports_never_panic(
        index in 0usize..5,
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let names = [SAMSUNG_970, INTEL_P4510, SAMSUNG_PM883, KINGSTON_A400, WD_RED];
        let mut doc = fixture(names[index]);
        let at = flip.index(doc.len());
        doc[at] = byte;
        let end = cut.index(doc.len() + 1);
        let _ = parse(&doc[..end]);
    }

    #[test]
    fn arbitrary_json_in_a_valid_envelope_never_panics(extra in arbitrary_json()) {
        let mut doc = extra.clone();
        if let Some(object) = doc.as_object_mut() {
            object.insert("json_format_version".into(), json!([1, 0]));
            object.insert("smartctl".into(), json!({"version": [7, 3], "exit_status": 0}));
        }
        let bytes = serde_json::to_vec(&doc).expect("serializes");
        let result = parse(&bytes);
        prop_assert_eq!(result.is_ok(), doc.is_object());
        if let Ok(report) = result {
            let drive = report.to_drive();
            let facts = report.to_facts("x");
            // Health only from health data: an envelope without any is unknown, not fine.
            prop_assert_eq!(drive.health.is_some(), report.has_health_data());
            prop_assert!(!facts.drives[0].name.is_empty());
        }
    }

    #[test]
    fn generated_reports_round_trip(
        model in "[A-Za-z0-9][A-Za-z0-9 -]{0,38}[A-Za-z0-9]",
        capacity in any::<u64>(),
        rotation in prop_oneof![Just(0u32), 5400u32..15000],
        temperature in -40i64..120,
        hours in any::<u64>(),
        exit_status in any::<u8>(),
        trim in any::<[bool; 3]>(),
        attributes in proptest::collection::btree_map(1u8..=255, any::<u32>(), 0..20),
    ) {
        let table: Vec<Value> = attributes
            .iter()
            .map(|(id, raw)| json!({"id": id, "name": format!("Attr_{id}"),
                "value": 100, "worst": 100, "thresh": 0,
                "raw": {"value": raw, "string": raw.to_string()}}))
            .collect();
        let doc = json!({
            "json_format_version": [1, 0],
            "smartctl": {"version": [7, 4], "exit_status": exit_status},
            "device": {"name": "/dev/sdq", "type": "sat", "protocol": "ATA"},
            "model_name": model,
            "user_capacity": {"bytes": capacity},
            "rotation_rate": rotation,
            "temperature": {"current": temperature},
            "power_on_time": {"hours": hours},
            "trim": {"supported": trim[0], "deterministic": trim[1], "zeroed": trim[2]},
            "ata_smart_attributes": {"table": table},
        });
        let r = parse(&serde_json::to_vec(&doc).expect("serializes")).expect("parses");
        prop_assert_eq!(r.model_name.as_deref(), Some(model.as_str()));
        prop_assert_eq!(r.capacity_bytes, Some(capacity));
        prop_assert_eq!(r.rotation_rate, Some(rotation));
        prop_assert_eq!(r.temperature_c, Some(temperature as f64));
        prop_assert_eq!(r.power_on_hours, Some(hours));
        prop_assert_eq!(r.exit_status, Some(exit_status));
        prop_assert_eq!(r.status.clone(), decode_exit_status(exit_status));
        prop_assert_eq!(r.trim, Some(TrimSupport {
            supported: Some(trim[0]), deterministic: Some(trim[1]), zeroed: Some(trim[2]) }));
        prop_assert_eq!(r.ata_attributes.len(), attributes.len());
        for (id, raw) in &attributes {
            prop_assert_eq!(r.attribute(*id).and_then(|a| a.raw_value), Some(u64::from(*raw)));
        }
        let drive = r.to_drive();
        prop_assert_eq!(drive.name.as_str(), "sdq");
        prop_assert_eq!(drive.rotational, Some(rotation != 0));
        prop_assert_eq!(drive.interface, Some(Interface::Sata));
    }
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
