//! Merging a report into the drive sysfs and the ioctls already described, and the facts
//! triage builds from a report alone.

use super::*;

/// Behind a SAT bridge sysfs holds only the last four characters of the drive's revision
/// (`2B6Q`); smartctl's whole revision that ends with them replaces it, so firmware rules
/// (the 870 EVO's `SVT01B6Q`) can match. A revision that is not its tail is kept.
#[test]
fn a_sat_inquiry_revision_gives_way_to_the_whole_one() {
    let mut r = report(SAMSUNG_PM883);
    // The captured report's revision is redacted; the revision of a Samsung 870 EVO.
    r.firmware = Some("SVT02B6Q".into());
    let behind_bridge = |firmware: &str| Drive {
        name: "sdb".into(),
        firmware: Some(firmware.into()),
        interface: Some(Interface::Usb),
        ..Drive::default()
    };
    let mut drive = behind_bridge("2B6Q");
    r.merge_into(&mut drive);
    assert_eq!(drive.firmware.as_deref(), Some("SVT02B6Q"));
    let mut drive = behind_bridge("0");
    r.merge_into(&mut drive);
    assert_eq!(
        drive.firmware.as_deref(),
        Some("0"),
        "not a tail of it: kept"
    );
    let mut drive = behind_bridge("SVT02B6Q");
    r.merge_into(&mut drive);
    assert_eq!(drive.firmware.as_deref(), Some("SVT02B6Q"));
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

/// `sda` as the probe described it before smartctl: only a model, read from `source`.
fn sda_with_model(model: &str, source: ModelSource) -> Drive {
    Drive {
        name: "sda".into(),
        model: Some(model.into()),
        model_source: Some(source),
        ..Drive::default()
    }
}

#[test]
fn smartctl_model_replaces_the_inquiry_product_it_extends() {
    let r = report(SAMSUNG_PM883);
    // What /sys/block/sda/device/model holds for this drive: the first 16 characters.
    let mut drive = sda_with_model("SAMSUNG MZ7LH1T9", ModelSource::ScsiInquiry);
    r.merge_into(&mut drive);
    assert_eq!(drive.model.as_deref(), Some("SAMSUNG MZ7LH1T9HMLT-00005"));
    assert_eq!(drive.model_source, Some(ModelSource::Smartctl));

    // A whole model from IDENTIFY stays, and so does an INQUIRY product smartctl's name does
    // not extend (smartctl answered for another drive or through a lying bridge).
    for (model, source) in [
        ("SAMSUNG MZ7LH1T9", ModelSource::AtaIdentify),
        ("Portable SSD T5", ModelSource::ScsiInquiry),
    ] {
        let mut drive = sda_with_model(model, source);
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
