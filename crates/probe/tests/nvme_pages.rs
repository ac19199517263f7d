//! NVMe Identify Controller and SMART / Health log parsing from raw pages, the pages built back
//! from parsed fields, and the admin ioctl's error paths.

use crate::support::ascii_field;
use std::path::Path;
use test_support::skip;

use probe::nvme::{
    admin_identify_controller, admin_smart_log, parse_identify_controller, parse_smart_log,
    IoctlError, NvmePassthruCmd, PageError, SmartLog, IDENTIFY_PAGE_LEN, SMART_LOG_LEN,
};
use probe::NvmeIdentify;
use proptest::prelude::*;

fn put(page: &mut [u8], offset: usize, bytes: &[u8]) {
    page[offset..offset + bytes.len()].copy_from_slice(bytes);
}

/// A Samsung 970 EVO Plus 250GB as its Identify Controller page lays it out, written byte by
/// byte at the specification's offsets.
fn samsung_970_evo_plus_identify() -> Vec<u8> {
    let mut page = vec![0u8; IDENTIFY_PAGE_LEN];
    put(&mut page, 0, &0x144d_u16.to_le_bytes()); // VID: Samsung
    put(&mut page, 4, b"S4EUNX0N123456Z     "); // SN, 20 bytes space padded
    put(
        &mut page,
        24,
        b"Samsung SSD 970 EVO Plus 250GB          ", // MN, 40 bytes
    );
    put(&mut page, 64, b"2B2QEXM7"); // FR
    put(&mut page, 266, &358_u16.to_le_bytes()); // WCTEMP 85 °C
    put(&mut page, 268, &358_u16.to_le_bytes()); // CCTEMP
    put(&mut page, 280, &250_059_350_016_u128.to_le_bytes()); // TNVMCAP
    put(&mut page, 520, &0x005f_u16.to_le_bytes()); // ONCS: DSM (bit 2) and Write Zeroes (bit 3)
    page[525] = 0x01; // VWC present
    page
}

/// [`samsung_970_evo_plus_identify`] as the parser should read it.
fn samsung_970_evo_plus() -> NvmeIdentify {
    NvmeIdentify {
        vendor_id: 0x144d,
        serial: "S4EUNX0N123456Z".into(),
        model: "Samsung SSD 970 EVO Plus 250GB".into(),
        firmware: "2B2QEXM7".into(),
        wctemp_k: 358,
        cctemp_k: 358,
        hmpre_4k: 0,
        hmmin_4k: 0,
        total_capacity_bytes: 250_059_350_016,
        dataset_management: true,
        write_zeroes: true,
        volatile_write_cache: true,
        power: None,
    }
}

#[test]
fn identify_controller_constructed_byte_by_byte() {
    let id = parse_identify_controller(&samsung_970_evo_plus_identify()).expect("parses");
    assert_eq!(id, samsung_970_evo_plus());
}

#[test]
fn dramless_drive_asks_for_a_host_memory_buffer() {
    let mut page = vec![0u8; IDENTIFY_PAGE_LEN];
    put(&mut page, 272, &8192_u32.to_le_bytes()); // HMPRE: 32 MiB
    put(&mut page, 276, &2048_u32.to_le_bytes()); // HMMIN: 8 MiB
    put(&mut page, 520, &0x0004_u16.to_le_bytes()); // DSM only
    let id = parse_identify_controller(&page).expect("parses");
    assert_eq!(id.hmpre_4k, 8192);
    assert_eq!(id.hmmin_4k, 2048);
    assert!(id.dataset_management);
    assert!(!id.write_zeroes);
    assert!(!id.volatile_write_cache);
    assert_eq!(id.model, "", "an all-zero string field reads as empty");
}

#[test]
fn oncs_bits_are_read_individually() {
    for (oncs, dsm, wz) in [
        (0u16, false, false),
        (1 << 2, true, false),
        (1 << 3, false, true),
    ] {
        let mut page = vec![0u8; IDENTIFY_PAGE_LEN];
        put(&mut page, 520, &oncs.to_le_bytes());
        let id = parse_identify_controller(&page).expect("parses");
        assert_eq!(
            (id.dataset_management, id.write_zeroes),
            (dsm, wz),
            "ONCS {oncs:#x}"
        );
    }
}

#[test]
fn capacity_beyond_u64_saturates() {
    let mut page = vec![0u8; IDENTIFY_PAGE_LEN];
    put(&mut page, 280, &(u128::from(u64::MAX) + 1).to_le_bytes());
    let id = parse_identify_controller(&page).expect("parses");
    assert_eq!(id.total_capacity_bytes, u64::MAX);
}

#[test]
fn non_ascii_model_bytes_are_replaced_not_fatal() {
    let mut page = samsung_970_evo_plus_identify();
    page[24] = 0xFF;
    page[25] = 0x00;
    let id = parse_identify_controller(&page).expect("parses");
    assert!(id.model.starts_with('\u{FFFD}'));
    assert!(id.model.ends_with("970 EVO Plus 250GB"));
}

#[test]
fn truncated_identify_is_rejected() {
    let page = samsung_970_evo_plus_identify();
    for len in [0, 1, 525, 4095] {
        assert_eq!(
            parse_identify_controller(&page[..len]),
            Err(PageError::Truncated {
                what: "NVMe Identify Controller",
                expected: 4096,
                actual: len
            })
        );
    }
    let err = parse_identify_controller(&page[..100]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "NVMe Identify Controller needs 4096 bytes, got 100"
    );
}

#[test]
fn identify_to_page_matches_the_byte_by_byte_page() {
    let mut page = samsung_970_evo_plus_identify();
    // The drive sets ONCS bits the parser does not read; a page built from the parsed fields
    // carries only Dataset Management and Write Zeroes.
    put(&mut page, 520, &0x000c_u16.to_le_bytes());
    assert_eq!(samsung_970_evo_plus().to_page(), page);
}

/// The SMART log of a hot, worn drive, written byte by byte.
fn worn_drive_smart_log() -> Vec<u8> {
    let mut page = vec![0u8; SMART_LOG_LEN];
    page[0] = 0b0000_0110; // temperature + reliability warnings
    put(&mut page, 1, &351_u16.to_le_bytes()); // 77.85 °C
    page[3] = 8; // available spare %
    page[4] = 10; // threshold %
    page[5] = 112; // percentage used: past rated endurance
    put(&mut page, 32, &20_126_802_u128.to_le_bytes());
    put(&mut page, 48, &184_919_244_u128.to_le_bytes());
    put(&mut page, 112, &22_u128.to_le_bytes()); // power cycles
    put(&mut page, 128, &12_164_u128.to_le_bytes()); // power-on hours
    put(&mut page, 144, &8_u128.to_le_bytes()); // unsafe shutdowns
    put(&mut page, 160, &3_u128.to_le_bytes()); // media errors
    put(&mut page, 176, &41_u128.to_le_bytes()); // error log entries
    put(&mut page, 192, &1_440_u32.to_le_bytes()); // warning temp minutes
    put(&mut page, 196, &7_u32.to_le_bytes()); // critical temp minutes
    put(&mut page, 200, &308_u16.to_le_bytes()); // sensor 1
    put(&mut page, 202, &312_u16.to_le_bytes()); // sensor 2
    put(&mut page, 216, &1_523_u32.to_le_bytes()); // T1 transitions
    put(&mut page, 220, &17_u32.to_le_bytes()); // T2 transitions
    put(&mut page, 224, &86_400_u32.to_le_bytes()); // T1 seconds
    put(&mut page, 228, &600_u32.to_le_bytes()); // T2 seconds
    page
}

/// [`worn_drive_smart_log`] as the parser should read it: every field not written is zero.
fn worn_drive_log() -> SmartLog {
    SmartLog {
        critical_warning: 0b110,
        composite_temperature_k: 351,
        available_spare_pct: 8,
        available_spare_threshold_pct: 10,
        percentage_used: 112,
        data_units_read: 20_126_802,
        data_units_written: 184_919_244,
        power_cycles: 22,
        power_on_hours: 12_164,
        unsafe_shutdowns: 8,
        media_errors: 3,
        error_log_entries: 41,
        warning_temp_minutes: 1_440,
        critical_temp_minutes: 7,
        temperature_sensors_k: [308, 312, 0, 0, 0, 0, 0, 0],
        thermal_t1_transitions: 1_523,
        thermal_t2_transitions: 17,
        thermal_t1_seconds: 86_400,
        thermal_t2_seconds: 600,
        ..SmartLog::default()
    }
}

#[test]
fn smart_log_constructed_byte_by_byte() {
    let log = parse_smart_log(&worn_drive_smart_log()).expect("parses");
    assert_eq!(log, worn_drive_log());
    assert_eq!(log.temperature_c(), Some(77.85));
    assert_eq!(log.sensor_temperatures_c(), vec![(1, 34.85), (2, 38.85)]);
}

#[test]
fn smart_log_health_record() {
    let health = parse_smart_log(&worn_drive_smart_log())
        .expect("parses")
        .health();
    assert_eq!(health.source, "nvme-smart-log");
    assert_eq!(health.passed, None);
    assert_eq!(health.critical_warning, Some(0b110));
    assert_eq!(health.available_spare_pct, Some(8));
    assert_eq!(health.available_spare_threshold_pct, Some(10));
    assert_eq!(health.percentage_used, Some(112));
    assert_eq!(health.media_errors, Some(3));
    assert_eq!(health.data_units_written, Some(184_919_244));
    // 184,919,244 units x 512,000 bytes = 94.68 TB written.
    assert_eq!(health.bytes_written, Some(94_678_652_928_000));
    assert_eq!(health.power_on_hours, Some(12_164));
    assert_eq!(health.unsafe_shutdowns, Some(8));
    assert_eq!(health.warning_temp_minutes, Some(1_440));
    assert_eq!(health.critical_temp_minutes, Some(7));
    assert_eq!(health.thermal_throttle_t1_transitions, Some(1_523));
    assert_eq!(health.thermal_throttle_t2_transitions, Some(17));
    assert_eq!(health.reallocated_sectors, None);
    assert!(health.smartctl_status.is_empty());
}

#[test]
fn zero_kelvin_means_no_temperature() {
    let log = parse_smart_log(&[0u8; SMART_LOG_LEN]).expect("parses");
    assert_eq!(log.temperature_c(), None);
    assert!(log.sensor_temperatures_c().is_empty());
}

#[test]
fn huge_counters_saturate_in_health() {
    let page = SmartLog {
        data_units_written: u128::MAX,
        media_errors: u128::from(u64::MAX) + 5,
        ..SmartLog::default()
    }
    .to_page();
    let health = parse_smart_log(&page).expect("parses").health();
    assert_eq!(health.data_units_written, Some(u64::MAX));
    assert_eq!(health.bytes_written, Some(u64::MAX));
    assert_eq!(health.media_errors, Some(u64::MAX));
    // Just past the point where units x 512,000 overflows u64.
    let units = u128::from(u64::MAX / 512_000 + 1);
    let page = SmartLog {
        data_units_written: units,
        ..SmartLog::default()
    }
    .to_page();
    assert_eq!(
        parse_smart_log(&page).expect("parses").bytes_written(),
        u64::MAX
    );
}

#[test]
fn truncated_smart_log_is_rejected() {
    let page = worn_drive_smart_log();
    assert_eq!(
        parse_smart_log(&page[..511]),
        Err(PageError::Truncated {
            what: "NVMe SMART / Health log",
            expected: 512,
            actual: 511
        })
    );
    assert!(parse_smart_log(&[]).is_err());
}

#[test]
fn longer_buffers_are_accepted() {
    let mut page = worn_drive_smart_log();
    page.resize(4096, 0xAA);
    assert_eq!(
        parse_smart_log(&page),
        parse_smart_log(&worn_drive_smart_log())
    );
}

#[test]
fn smart_log_to_page_matches_the_byte_by_byte_page() {
    assert_eq!(worn_drive_log().to_page(), worn_drive_smart_log());
}

#[test]
fn passthru_struct_is_the_kernel_layout() {
    assert_eq!(std::mem::size_of::<NvmePassthruCmd>(), 72);
    assert_eq!(probe::nvme::ioctl::NVME_IOCTL_ADMIN_CMD, 0xC048_4E41);
}

#[test]
fn admin_command_on_a_missing_device_is_an_open_error() {
    let err = admin_identify_controller(Path::new("/nonexistent/nvme0")).unwrap_err();
    assert!(matches!(err, IoctlError::Open { .. }), "{err:?}");
    assert!(!err.needs_root());
}

#[test]
fn admin_command_on_a_non_nvme_device_is_an_ioctl_error() {
    // /dev/null accepts open() but not the NVMe ioctl (ENOTTY): this exercises the real
    // ioctl call path without NVMe hardware.
    if !Path::new("/dev/null").exists() {
        skip("/dev/null is missing in this environment");
        return;
    }
    let err = admin_smart_log(Path::new("/dev/null")).unwrap_err();
    match &err {
        IoctlError::Ioctl { errno, .. } => assert_eq!(*errno, nix::errno::Errno::ENOTTY),
        other => panic!("expected an ioctl error, got {other:?}"),
    }
    assert!(!err.needs_root());
    assert!(err.to_string().contains("/dev/null"));
}

#[test]
fn privilege_errors_say_needs_root() {
    let denied = IoctlError::Open {
        path: "/dev/nvme0".into(),
        source: std::io::Error::from_raw_os_error(libc::EACCES),
    };
    assert!(denied.needs_root());
    let eperm = IoctlError::Ioctl {
        path: "/dev/nvme0".into(),
        command: "Get Log Page",
        errno: nix::errno::Errno::EPERM,
    };
    assert!(eperm.needs_root());
    let status = IoctlError::NvmeStatus {
        path: "/dev/nvme0".into(),
        command: "Get Log Page",
        status: 0x4002,
    };
    assert!(!status.needs_root());
    assert!(status.to_string().contains("0x4002"));
}

#[test]
fn live_nvme_controller_when_present() {
    let dev = Path::new("/dev/nvme0");
    if !dev.exists() {
        skip("/dev/nvme0 is absent (no NVMe controller on this machine)");
        return;
    }
    match admin_identify_controller(dev) {
        Ok(id) => {
            assert!(!id.model.is_empty(), "a real controller reports a model");
            assert_ne!(id.vendor_id, 0);
        }
        Err(err) if err.needs_root() => {
            skip(format_args!(
                "Identify Controller on /dev/nvme0 needs root: {err}"
            ));
        }
        Err(err) => panic!("Identify Controller failed on a real controller: {err}"),
    }
    match admin_smart_log(dev) {
        Ok(log) => assert!(log.temperature_c().is_some()),
        Err(err) if err.needs_root() => {
            skip(format_args!("SMART log on /dev/nvme0 needs root: {err}"));
        }
        Err(err) => panic!("SMART log failed on a real controller: {err}"),
    }
}

prop_compose! {
    fn arbitrary_identify()(
        vendor_id in any::<u16>(),
        serial in ascii_field(20),
        model in ascii_field(40),
        firmware in ascii_field(8),
        wctemp_k in any::<u16>(),
        cctemp_k in any::<u16>(),
        hmpre_4k in any::<u32>(),
        hmmin_4k in any::<u32>(),
        total_capacity_bytes in any::<u64>(),
        dataset_management in any::<bool>(),
        write_zeroes in any::<bool>(),
        volatile_write_cache in any::<bool>(),
    ) -> NvmeIdentify {
        NvmeIdentify {
            vendor_id, serial, model, firmware, wctemp_k, cctemp_k, hmpre_4k, hmmin_4k,
            total_capacity_bytes, dataset_management, write_zeroes, volatile_write_cache,
            power: None,
        }
    }
}

prop_compose! {
    fn arbitrary_smart_log()(
        small in any::<[u8; 6]>(),
        temperature in any::<u16>(),
        counters in any::<[u128; 10]>(),
        minutes in any::<[u32; 2]>(),
        sensors in any::<[u16; 8]>(),
        thermal in any::<[u32; 4]>(),
    ) -> SmartLog {
        SmartLog {
            critical_warning: small[0],
            composite_temperature_k: temperature,
            available_spare_pct: small[1],
            available_spare_threshold_pct: small[2],
            percentage_used: small[3],
            endurance_group_critical_warning: small[4],
            data_units_read: counters[0],
            data_units_written: counters[1],
            host_read_commands: counters[2],
            host_write_commands: counters[3],
            controller_busy_minutes: counters[4],
            power_cycles: counters[5],
            power_on_hours: counters[6],
            unsafe_shutdowns: counters[7],
            media_errors: counters[8],
            error_log_entries: counters[9],
            warning_temp_minutes: minutes[0],
            critical_temp_minutes: minutes[1],
            temperature_sensors_k: sensors,
            thermal_t1_transitions: thermal[0],
            thermal_t2_transitions: thermal[1],
            thermal_t1_seconds: thermal[2],
            thermal_t2_seconds: thermal[3],
        }
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..5000)) {
        let identify = parse_identify_controller(&bytes);
        prop_assert_eq!(identify.is_ok(), bytes.len() >= IDENTIFY_PAGE_LEN);
        let log = parse_smart_log(&bytes);
        prop_assert_eq!(log.is_ok(), bytes.len() >= SMART_LOG_LEN);
        if let Ok(log) = log {
            let health = log.health();
            prop_assert!(health.bytes_written.is_some());
            if let Some(celsius) = log.temperature_c() {
                prop_assert!((-273.15..=65_262.0).contains(&celsius));
            }
        }
    }

    #[test]
    fn identify_to_page_round_trips(identify in arbitrary_identify()) {
        let page = identify.to_page();
        prop_assert_eq!(page.len(), IDENTIFY_PAGE_LEN);
        prop_assert_eq!(parse_identify_controller(&page), Ok(identify));
    }

    #[test]
    fn smart_log_to_page_round_trips(log in arbitrary_smart_log()) {
        let page = log.to_page();
        prop_assert_eq!(page.len(), SMART_LOG_LEN);
        prop_assert_eq!(parse_smart_log(&page), Ok(log));
    }
}

/// A real failed drive: Crucial P3 Plus 4TB (CT4000P3PSSD8, DRAM-less QLC) whose spare ran
/// out and which went read-only. The values are those `nvme id-ctrl -H` and `nvme smart-log`
/// printed for it (published in a 2024 blog post, "NVMeが壊れた"), written at the
/// specification's offsets.
mod crucial_p3_plus_failed {
    use super::*;

    fn identify_page() -> Vec<u8> {
        let mut page = vec![0u8; IDENTIFY_PAGE_LEN];
        put(&mut page, 0, &0xc0a9_u16.to_le_bytes());
        put(&mut page, 4, b"2242E67C541A        ");
        put(&mut page, 24, format!("{:<40}", "CT4000P3PSSD8").as_bytes());
        put(&mut page, 64, b"P9CR40A ");
        put(&mut page, 266, &358_u16.to_le_bytes());
        put(&mut page, 268, &368_u16.to_le_bytes());
        put(&mut page, 272, &8192_u32.to_le_bytes());
        put(&mut page, 276, &8192_u32.to_le_bytes());
        // tnvmcap: 0, this controller does not report it.
        put(&mut page, 520, &0x005e_u16.to_le_bytes());
        page[525] = 0x07;
        page
    }

    fn smart_log_page() -> Vec<u8> {
        let mut page = vec![0u8; SMART_LOG_LEN];
        page[0] = 0x09; // spare below threshold + read-only
        put(&mut page, 1, &312_u16.to_le_bytes());
        page[3] = 0;
        page[4] = 5;
        page[5] = 1;
        page[6] = 0x09;
        for (offset, value) in [
            (32, 46_956_775_u128),
            (48, 28_871_767),
            (64, 419_348_225),
            (80, 358_937_031),
            (96, 2_444),
            (112, 395),
            (128, 1_103),
            (144, 40),
            (160, 0),
            (176, 4_698),
        ] {
            put(&mut page, offset, &value.to_le_bytes());
        }
        put(&mut page, 200, &312_u16.to_le_bytes()); // sensor 1
        put(&mut page, 202, &332_u16.to_le_bytes()); // sensor 2
        put(&mut page, 214, &312_u16.to_le_bytes()); // sensor 8
        page
    }

    #[test]
    fn identify_shows_a_dramless_drive_with_trim() {
        let id = parse_identify_controller(&identify_page()).expect("parses");
        assert_eq!(id.vendor_id, 0xc0a9);
        assert_eq!(id.model, "CT4000P3PSSD8");
        assert_eq!(id.serial, "2242E67C541A");
        assert_eq!(id.firmware, "P9CR40A");
        assert_eq!((id.wctemp_k, id.cctemp_k), (358, 368));
        // 8192 x 4 KiB = 32 MiB of host memory requested: no DRAM on the drive.
        assert_eq!((id.hmpre_4k, id.hmmin_4k), (8192, 8192));
        assert_eq!(id.total_capacity_bytes, 0);
        assert!(id.dataset_management && id.write_zeroes && id.volatile_write_cache);
    }

    #[test]
    fn smart_log_shows_the_failure() {
        let log = parse_smart_log(&smart_log_page()).expect("parses");
        assert_eq!(log.endurance_group_critical_warning, 0x09);
        assert_eq!(log.controller_busy_minutes, 2_444);
        assert_eq!(log.host_read_commands, 419_348_225);
        assert_eq!(log.host_write_commands, 358_937_031);
        assert_eq!(log.error_log_entries, 4_698);
        // nvme-cli printed "39 C (312 Kelvin)", rounding with 273; hwmon and this parser
        // use 273.15.
        assert_eq!(log.temperature_c(), Some(38.85));
        assert_eq!(
            log.sensor_temperatures_c(),
            vec![(1, 38.85), (2, 58.85), (8, 38.85)]
        );
        let health = log.health();
        assert_eq!(health.critical_warning, Some(0x09));
        assert_eq!(health.available_spare_pct, Some(0));
        assert_eq!(health.available_spare_threshold_pct, Some(5));
        assert_eq!(health.percentage_used, Some(1));
        assert_eq!(health.data_units_written, Some(28_871_767));
        // nvme-cli/smartctl: "28,871,767 [14.7 TB]".
        assert_eq!(health.bytes_written, Some(14_782_344_704_000));
        assert_eq!(health.power_on_hours, Some(1_103));
        assert_eq!(health.unsafe_shutdowns, Some(40));
        assert_eq!(health.media_errors, Some(0));
        assert_eq!(health.thermal_throttle_t1_transitions, Some(0));
    }
}
