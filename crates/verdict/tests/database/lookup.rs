//! Lookups by model string and platform, including hostile strings that must not panic.

use super::*;

#[test]
fn platform_lookup_recognises_netcup_lines_and_contabo() {
    let db = db();
    let netcup = |bios: &'static str| PlatformQuery {
        sys_vendor: Some("netcup"),
        product_name: Some("KVM Server"),
        bios_version: Some(bios),
        cloud: Some("netcup"),
    };
    let rs = db
        .lookup_platform_query(&netcup("RS 2000 G9"), &[])
        .expect("RS");
    assert_eq!((rs.id.as_str(), rs.grade), ("netcup-rs", Grade::Ugly));
    let vps = db
        .lookup_platform_query(&netcup("VPS 500 G7 SE"), &[])
        .expect("VPS");
    assert_eq!((vps.id.as_str(), vps.grade), ("netcup-vps", Grade::Bad));
    // Without the BIOS version the product line is unknown: no guess.
    let unknown = PlatformQuery {
        bios_version: None,
        ..netcup("")
    };
    assert!(db.lookup_platform_query(&unknown, &[]).is_none());

    let contabo = PlatformQuery {
        cloud: Some("contabo"),
        ..PlatformQuery::default()
    };
    assert_eq!(db.platform_matches(&contabo).len(), 2);
    let worst = db.lookup_platform_query(&contabo, &[]).expect("contabo");
    assert_eq!(
        (worst.id.as_str(), worst.grade),
        ("contabo-vps-ssd", Grade::Bad)
    );

    // The probe's facts: the DMI identity as the machine reports it.
    let facts = |sys_vendor: &str, product_name: &str, bios_version: Option<&str>, cloud: &str| {
        probe::Platform {
            sys_vendor: Some(sys_vendor.into()),
            product_name: Some(product_name.into()),
            bios_version: bios_version.map(Into::into),
            cloud: Some(cloud.into()),
            ..probe::Platform::default()
        }
    };
    let netcup_rs = facts("netcup", "KVM Server", Some("RS 2000 G9"), "netcup");
    let found = db
        .lookup_platform(&netcup_rs, &["QEMU HARDDISK"])
        .map(|e| e.id.as_str());
    assert_eq!(found, Some("netcup-rs"));

    let platform = facts("Amazon EC2", "m6i.xlarge", None, "aws");
    let ebs = db
        .lookup_platform(&platform, &["Amazon Elastic Block Store"])
        .expect("EBS by model");
    assert_eq!(ebs.id, "aws-ebs");
    assert!(db
        .lookup_platform(&platform, &["Samsung SSD 980 PRO 2TB"])
        .is_none());
}

#[test]
fn lookup_of_unknown_or_empty_model_is_unknown() {
    let db = db();
    for model in [
        "",
        "   ",
        "QEMU HARDDISK",
        "Samsung SSD 980 PRO 2TB but longer",
    ] {
        let l = db.lookup(&DriveQuery::new(model));
        assert!(l.entry.is_none(), "{model}");
        assert_eq!(l.grade, Grade::Unknown);
        assert!(l.advisories.is_empty());
    }
}

#[test]
fn lookup_ignores_padding_and_case() {
    let db = db();
    let padded = db.lookup(&DriveQuery::new("  samsung ssd 980 pro 2tb    \0"));
    assert_eq!(padded.entry.map(|e| e.id.as_str()), Some("samsung-980-pro"));
    let fw = db.lookup(&DriveQuery::new("Samsung SSD 980 PRO 2TB").firmware("3B2QGXA7  "));
    assert_eq!(fw.grade, Grade::Bad);
    assert_eq!(fw.advisories[0].severity, Severity::Critical);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn lookup_never_panics(model in any::<String>(), firmware in proptest::option::of(any::<String>()), capacity in proptest::option::of(any::<u64>())) {
        let db = db();
        let q = DriveQuery { model: &model, firmware: firmware.as_deref(), capacity_bytes: capacity, interface: None };
        let l = db.lookup(&q);
        prop_assert!(l.entry.is_some() || l.grade == Grade::Unknown);
    }

    #[test]
    fn lookup_never_panics_on_near_misses(prefix in "[A-Za-z _-]{0,4}", idx in 0usize..4096, suffix in "[A-Za-z0-9 _.-]{0,4}") {
        let db = db();
        let examples: Vec<&String> = db.drives.iter().flat_map(|e| e.examples.iter()).collect();
        let example = examples[idx % examples.len()];
        let model = format!("{prefix}{example}{suffix}");
        let l = db.lookup(&DriveQuery::new(&model).firmware(&suffix));
        // A near miss matches at most one entry, like the examples themselves.
        prop_assert!(db.entries_matching(&model).len() <= 1);
        prop_assert!(l.entry.is_some() || l.grade == Grade::Unknown);
    }

    #[test]
    fn names_people_type_never_panic_and_stay_bounded(text in any::<String>()) {
        let db = db();
        let by_family = db.entries_by_family_name(&text);
        prop_assert!(by_family.len() <= db.drives.len());
        prop_assert!(db.nearest_families(&text, 5).len() <= 5);
        let cut = db.prefix_candidates(&text);
        prop_assert!(cut.entries.iter().all(|e| e.interface != EntryInterface::Nvme));
        for entry in by_family {
            let l = db.lookup_entry(entry, &DriveQuery::new(&text));
            prop_assert!(l.entry.is_some() && l.grade != Grade::Unknown);
        }
    }

    #[test]
    fn parse_never_panics(text in any::<String>()) {
        let _ = Database::parse(&text, "fuzz.toml");
    }
}
