//! `smartctl -j` files given to the probe: merged into the drive they describe, or a warning.

use super::*;

#[test]
fn smartctl_json_is_merged_into_the_matching_drive() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture::hdd(dir.path()).expect("builds");
    let saved = smartctl_data("WDC_WD20EFRX-68EUZN0_17.json");
    let facts = probe_with_smartctl(dir.path(), vec![saved]);
    let drive = only_drive(&facts);
    let health = drive.health.as_ref().expect("health from smartctl");
    assert_eq!(health.source, "smartctl");
    assert!(drive.model_family.is_some(), "{drive:?}");
    assert!(facts.warnings.is_empty(), "{:?}", facts.warnings);
}

#[test]
fn smartctl_garbage_is_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root_dir = dir.path().join("root");
    fixture::hdd(&root_dir).expect("builds");
    let garbage = dir.path().join("garbage.json");
    std::fs::write(
        &garbage,
        "{\"json_format_version\": [1, 0], \"smartctl\": {",
    )
    .expect("write");
    let facts = probe_with_smartctl(&root_dir, vec![garbage]);
    assert_warning(&facts, "smartctl JSON");
    assert_eq!(only_drive(&facts).health, None);
}

/// The probe of the tree at `root_dir`, at the datadir, given the `smartctl -j` files
/// `reports`.
fn probe_with_smartctl(root_dir: &Path, reports: Vec<PathBuf>) -> Facts {
    let root = Root::at(root_dir).expect("root");
    let opts = ProbeOptions {
        smartctl_json: reports,
        ..ProbeOptions::default()
    };
    probe_path(&root, Path::new(fixture::DATADIR), &opts).expect("probe")
}

/// The md RAID1 scenario (two SATA drives) built in `root/` of a fresh directory, so saved
/// reports can sit beside the tree.
fn md_raid1_tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root_dir = dir.path().join("root");
    fixture::md_raid1(&root_dir).expect("builds");
    (dir, root_dir)
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
    // md_raid1's drives are 2 TB; a capacity that disagrees would make it another drive.
    value["user_capacity"]["bytes"] = MD_RAID1_DRIVE_BYTES.into();
    let out = dir.join(format!("{}-{source}", device.trim_start_matches("/dev/")));
    std::fs::write(&out, serde_json::to_vec_pretty(&value).expect("serialize")).expect("write");
    out
}

/// md_raid1's Crucial MX500 2 TB: 3,907,029,168 sectors of 512 bytes.
const MD_RAID1_DRIVE_BYTES: u64 = 3_907_029_168 * 512;

const PM883_SDA: &str = "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json";

const A400_SDA: &str = "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json";

/// Two drives, two saved reports: one names its drive (`/dev/sda`), the other was taken where
/// the drive was `/dev/sdc` and finds `sdb` by serial. Both drives get their own report.
#[test]
fn several_smartctl_files_each_merge_into_their_own_drive() {
    let (dir, root_dir) = md_raid1_tree();
    let by_serial = retargeted_smartctl(dir.path(), A400_SDA, "/dev/sdc", "2235E6A1B2C4");
    // Order does not matter: the serial match must not take sda's report's place.
    let sda = retargeted_smartctl(dir.path(), PM883_SDA, "/dev/sda", "2235E6A1B2C3");
    let facts = probe_with_smartctl(&root_dir, vec![by_serial, sda]);
    assert_eq!(facts.drives.len(), 2);
    let drive = |name: &str| drive_named(&facts, name);
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
    let (dir, root_dir) = md_raid1_tree();
    let stranger = retargeted_smartctl(dir.path(), A400_SDA, "/dev/sdq", "NOT-ON-THIS-MACHINE");
    let sda = retargeted_smartctl(dir.path(), PM883_SDA, "/dev/sda", "2235E6A1B2C3");
    let facts = probe_with_smartctl(&root_dir, vec![sda, stranger.clone()]);
    let stranger_name = stranger.display().to_string();
    assert!(
        facts
            .warnings
            .iter()
            .any(|w| w.contains(&stranger_name) && w.contains("describes none")),
        "{:?}",
        facts.warnings
    );
    assert_eq!(facts.warnings.len(), 1, "{:?}", facts.warnings);
    let sda = drive_named(&facts, "sda");
    let sdb = drive_named(&facts, "sdb");
    assert_eq!(sda.model_family.as_deref(), Some("Samsung based SSDs"));
    assert_eq!(sdb.model_family, None, "{sdb:?}");
    // The drive without a report still says so.
    assert_unavailable(&facts, "SMART health (sdb)");
}

/// Two reports naming the same drive: the first is merged, the second is not guessed onto
/// the other drive.
#[test]
fn two_smartctl_files_for_one_drive_do_not_spill_onto_another() {
    let (dir, root_dir) = md_raid1_tree();
    let first = retargeted_smartctl(dir.path(), PM883_SDA, "/dev/sda", "2235E6A1B2C3");
    let second = retargeted_smartctl(dir.path(), A400_SDA, "/dev/sda", "2235E6A1B2C3");
    let facts = probe_with_smartctl(&root_dir, vec![first, second]);
    let sdb = drive_named(&facts, "sdb");
    assert_eq!(sdb.model_family, None, "{sdb:?}");
    assert!(
        facts
            .warnings
            .iter()
            .any(|w| w.contains(A400_SDA) && w.contains("describes none")),
        "{:?}",
        facts.warnings
    );
}
