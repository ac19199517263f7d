//! Hostile documents: empty, truncated, foreign, deeply nested or mistyped JSON never
//! panics.

use super::*;

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
    assert_eq!(r.trim, trim(None, Some(true), None));
    assert_eq!(r.temperature_c, None);
    assert_eq!(r.interface_speed_current_gbps, Some(3.0));
    assert_eq!(r.interface_speed_max_gbps, None);
    assert_eq!(r.ata_attributes.len(), 2);
    assert_eq!(r.health().reallocated_sectors, None);
    assert_eq!(r.health().pending_sectors, Some(12));
}

const REPORT_KEYS: [&str; 13] = [
    "model_name",
    "user_capacity",
    "bytes",
    "trim",
    "table",
    "id",
    "raw",
    "value",
    "temperature",
    "current",
    "nvme_smart_health_information_log",
    "ata_smart_attributes",
    "data_units_written_s",
];

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
                // Mostly keys the parser looks up, so the nesting reaches its code paths.
                prop_oneof![
                    REPORT_KEYS.len() as u32 => prop::sample::select(&REPORT_KEYS[..]).prop_map(str::to_owned),
                    1 => "[a-z_]{1,10}",
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
