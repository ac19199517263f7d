//! `smartctl -j` files given to the probe: merged into the drive they describe, or a warning.

use super::*;

#[test]
fn smartctl_json_is_merged_into_the_matching_drive() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::hdd(dir.path()).expect("builds");
    let root = Root::at(dir.path()).expect("root");
    let saved = smartctl_data("WDC_WD20EFRX-68EUZN0_17.json");
    let opts = ProbeOptions {
        smartctl_json: vec![saved],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    let drive = only_drive(&facts);
    let health = drive.health.as_ref().expect("health from smartctl");
    assert_eq!(health.source, "smartctl");
    assert!(drive.model_family.is_some(), "{drive:?}");
    assert!(facts.warnings.is_empty(), "{:?}", facts.warnings);
}

#[test]
fn smartctl_garbage_is_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::hdd(&dir.path().join("root")).expect("builds");
    let garbage = dir.path().join("garbage.json");
    std::fs::write(
        &garbage,
        "{\"json_format_version\": [1, 0], \"smartctl\": {",
    )
    .expect("write");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        smartctl_json: vec![garbage],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    assert_warning(&facts, "smartctl JSON");
    assert_eq!(only_drive(&facts).health, None);
}

fn smartctl_data(name: &str) -> PathBuf {
    data_path("smartctl", name)
}

/// A real saved report with its device name and serial replaced, as a report taken on a
/// machine that enumerated the drives differently would look.
fn retargeted_smartctl(dir: &Path, source: &str, device: &str, serial: &str) -> PathBuf {
    let bytes = std::fs::read(smartctl_data(source)).expect("saved report");
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).expect("valid JSON");
    value["device"]["name"] = device.into();
    value["device"]["info_name"] = format!("{device} [SAT]").into();
    value["serial_number"] = serial.into();
    let out = dir.join(format!("{}-{source}", device.trim_start_matches("/dev/")));
    std::fs::write(&out, serde_json::to_vec_pretty(&value).expect("serialize")).expect("write");
    out
}

const PM883_SDA: &str = "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json";

const A400_SDA: &str = "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json";

/// Two drives, two saved reports: one names its drive (`/dev/sda`), the other was taken where
/// the drive was `/dev/sdc` and finds `sdb` by serial. Both drives get their own report.
#[test]
fn several_smartctl_files_each_merge_into_their_own_drive() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::md_raid1(&dir.path().join("root")).expect("builds");
    let by_serial = retargeted_smartctl(dir.path(), A400_SDA, "/dev/sdc", "2235E6A1B2C4");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        // Order does not matter: the serial match must not take sda's report's place.
        smartctl_json: vec![by_serial, smartctl_data(PM883_SDA)],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    assert_eq!(facts.drives.len(), 2);
    let drive = |name: &str| {
        facts
            .drives
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert_eq!(
        drive("sda").model_family.as_deref(),
        Some("Samsung based SSDs")
    );
    assert_eq!(
        drive("sdb").model_family.as_deref(),
        Some("Phison Driven SSDs")
    );
    for name in ["sda", "sdb"] {
        let health = drive(name).health.as_ref().expect("health from smartctl");
        assert_eq!(health.source, "smartctl", "{name}");
    }
    assert!(
        !facts
            .unavailable
            .iter()
            .any(|u| u.fact.starts_with("SMART health")),
        "{:?}",
        facts.unavailable
    );
    assert!(facts.warnings.is_empty(), "{:?}", facts.warnings);
}

/// A report for a drive that is not there is a warning naming the file; the others merge.
#[test]
fn an_unmatched_smartctl_file_is_a_warning_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::md_raid1(&dir.path().join("root")).expect("builds");
    let stranger = retargeted_smartctl(dir.path(), A400_SDA, "/dev/sdq", "NOT-ON-THIS-MACHINE");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        smartctl_json: vec![smartctl_data(PM883_SDA), stranger.clone()],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    let stranger_name = stranger.display().to_string();
    assert!(
        facts
            .warnings
            .iter()
            .any(|w| w.contains(&stranger_name) && w.contains("matches none")),
        "{:?}",
        facts.warnings
    );
    assert_eq!(facts.warnings.len(), 1, "{:?}", facts.warnings);
    let sda = facts.drives.iter().find(|d| d.name == "sda").expect("sda");
    let sdb = facts.drives.iter().find(|d| d.name == "sdb").expect("sdb");
    assert_eq!(sda.model_family.as_deref(), Some("Samsung based SSDs"));
    assert_eq!(sdb.model_family, None, "{sdb:?}");
    assert!(
        facts
            .unavailable
            .iter()
            .any(|u| u.fact == "SMART health (sdb)"),
        "the drive without a report still says so: {:?}",
        facts.unavailable
    );
}

/// Two reports naming the same drive: the first is merged, the second is not guessed onto
/// the other drive.
#[test]
fn two_smartctl_files_for_one_drive_do_not_spill_onto_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::md_raid1(&dir.path().join("root")).expect("builds");
    let root = Root::at(dir.path().join("root")).expect("root");
    let opts = ProbeOptions {
        smartctl_json: vec![smartctl_data(PM883_SDA), smartctl_data(A400_SDA)],
        ..ProbeOptions::default()
    };
    let facts = run_probe(&root, Path::new(fixture::DATADIR), &opts).expect("probe");
    let sdb = facts.drives.iter().find(|d| d.name == "sdb").expect("sdb");
    assert_eq!(sdb.model_family, None, "{sdb:?}");
    assert!(
        facts
            .warnings
            .iter()
            .any(|w| w.contains(A400_SDA) && w.contains("matches none")),
        "{:?}",
        facts.warnings
    );
}
