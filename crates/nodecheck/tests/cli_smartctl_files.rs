//! Saved smartctl outputs for machines with several drives: `--smartctl-json FILE` given once
//! per drive on `probe` and `check`, and snapshots that carry one output per drive.

use std::fs;
use std::path::{Path, PathBuf};

use crate::cli_support::{json_of, nodecheck, run_ok, smartctl_fixture, stderr, Fixture};
use flate2::write::GzEncoder;
use flate2::Compression;
use nodecheck::snapshot::{Manifest, MANIFEST, SMARTCTL_DIR};

const PM883: &str = "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json";
const A400: &str = "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json";

/// A real saved output as smartctl would have printed it for md_raid1's drive `device`: its
/// device name, serial and capacity (both real files were taken on `/dev/sda` of other
/// drives, and an output whose serial or capacity disagrees is another drive's). A device
/// md_raid1 lacks keeps the file's own serial and capacity.
fn saved_for(dir: &Path, source: &str, device: &str) -> PathBuf {
    let bytes = fs::read(smartctl_fixture(source)).expect("saved output");
    let mut value: serde_json::Value = serde_json::from_slice(&bytes).expect("valid JSON");
    value["device"]["name"] = format!("/dev/{device}").into();
    value["device"]["info_name"] = format!("/dev/{device} [SAT]").into();
    if let Some(drive) = md_raid1_drive(device) {
        value["serial_number"] = drive["serial"].clone();
        value["user_capacity"]["bytes"] = drive["capacity_bytes"].clone();
    }
    let out = dir.join(format!("{device}.json"));
    fs::write(&out, serde_json::to_vec_pretty(&value).expect("serialize")).expect("write");
    out
}

/// md_raid1's drive `device` as the probe sees it.
fn md_raid1_drive(device: &str) -> Option<serde_json::Value> {
    let fixture = Fixture::named("md_raid1");
    let doc: serde_json::Value = json_of(&fixture.probe(&[]));
    doc["drives"]
        .as_array()?
        .iter()
        .find(|d| d["name"] == device)
        .cloned()
}

/// `model_family` per drive name, from a probe document or a check report's `facts`.
fn families(facts: &serde_json::Value) -> Vec<(String, Option<String>)> {
    facts["drives"]
        .as_array()
        .expect("drives")
        .iter()
        .map(|d| {
            (
                d["name"].as_str().expect("name").to_string(),
                d["model_family"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn both_families() -> Vec<(String, Option<String>)> {
    vec![
        ("sda".to_string(), Some("Samsung based SSDs".to_string())),
        ("sdb".to_string(), Some("Phison Driven SSDs".to_string())),
    ]
}

fn warnings(facts: &serde_json::Value) -> Vec<String> {
    facts["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w.as_str().expect("text").to_string())
        .collect()
}

#[test]
fn probe_takes_one_smartctl_file_per_drive() {
    let fixture = Fixture::named("md_raid1");
    let scratch = tempfile::tempdir().expect("tempdir");
    let sdb = saved_for(scratch.path(), A400, "sdb");
    let out = run_ok(
        nodecheck()
            .args(["probe", "--json", "--root"])
            .arg(fixture.root())
            .arg("--smartctl-json")
            .arg(&sdb)
            .arg("--smartctl-json")
            .arg(saved_for(scratch.path(), PM883, "sda"))
            .arg("/var/lib/ethereum"),
    );
    let doc: serde_json::Value = json_of(&out);
    assert_eq!(families(&doc), both_families());
    assert_eq!(warnings(&doc), Vec::<String>::new());
}

#[test]
fn check_takes_one_smartctl_file_per_drive_and_names_the_one_that_fits_none() {
    let fixture = Fixture::named("md_raid1");
    let scratch = tempfile::tempdir().expect("tempdir");
    let sdb = saved_for(scratch.path(), A400, "sdb");
    let stranger = saved_for(scratch.path(), A400, "sdq");
    let sda = saved_for(scratch.path(), PM883, "sda");
    let out = fixture.check(&[
        "--json",
        "--smartctl-json",
        sdb.to_str().expect("utf-8"),
        "--smartctl-json",
        sda.to_str().expect("utf-8"),
        "--smartctl-json",
        stranger.to_str().expect("utf-8"),
    ]);
    let report: serde_json::Value = json_of(&out);
    assert_eq!(families(&report["facts"]), both_families());
    let warnings = warnings(&report["facts"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&stranger.display().to_string())
            && warnings[0].contains("describes none"),
        "{warnings:?}"
    );
}

/// A snapshot tree of the md_raid1 machine as `nodecheck snapshot` run as root writes it: the
/// fixture, the manifest, and one smartctl output per listed drive.
fn snapshot_tree(dir: &Path, drives: &[(&str, &str)]) {
    probe::fixture::md_raid1(dir).expect("fixture builds");
    let smartctl_dir = dir.join(SMARTCTL_DIR);
    fs::create_dir_all(&smartctl_dir).expect("mkdir");
    for (drive, source) in drives {
        saved_for(&smartctl_dir, source, drive);
    }
    let manifest = Manifest {
        format: 1,
        nodecheck_version: env!("CARGO_PKG_VERSION").to_string(),
        path: probe::fixture::DATADIR.to_string(),
        smartctl: drives.iter().map(|(drive, _)| drive.to_string()).collect(),
        redacted: false,
        path_kind: None,
    };
    fs::write(
        dir.join(MANIFEST),
        serde_json::to_vec_pretty(&manifest).expect("serialize"),
    )
    .expect("write manifest");
}

fn pack(tree: &Path, archive: &Path) {
    let file = fs::File::create(archive).expect("create");
    let mut builder = tar::Builder::new(GzEncoder::new(file, Compression::default()));
    builder.follow_symlinks(false);
    let mut names: Vec<_> = fs::read_dir(tree)
        .expect("read tree")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    names.sort();
    for name in names {
        let path = tree.join(&name);
        if path.is_dir() {
            builder.append_dir_all(&name, &path).expect("add dir");
        } else {
            builder
                .append_path_with_name(&path, &name)
                .expect("add file");
        }
    }
    builder.into_inner().expect("tar").finish().expect("gzip");
}

fn replay(args: &[&std::ffi::OsStr]) -> serde_json::Value {
    let out = nodecheck()
        .args(["check", "--json"])
        .args(args)
        .output()
        .expect("runs");
    assert!(matches!(out.status.code(), Some(0..=2)), "{}", stderr(&out));
    json_of(&out)
}

#[test]
fn a_snapshot_with_a_smartctl_file_per_drive_replays_all_of_them() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let tree = scratch.path().join("tree");
    snapshot_tree(&tree, &[("sda", PM883), ("sdb", A400)]);
    let archive = scratch.path().join("node.tar.gz");
    pack(&tree, &archive);

    let from_archive = replay(&["--snapshot".as_ref(), archive.as_os_str()]);
    assert_eq!(families(&from_archive["facts"]), both_families());
    assert_eq!(warnings(&from_archive["facts"]), Vec::<String>::new());

    let from_tree = replay(&["--root".as_ref(), tree.as_os_str()]);
    assert_eq!(families(&from_tree["facts"]), both_families());
    assert_eq!(
        from_tree["facts"]["drives"],
        from_archive["facts"]["drives"]
    );
}

/// Snapshots written before several outputs were replayed hold one; they replay unchanged.
#[test]
fn a_snapshot_with_a_single_smartctl_file_still_replays() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let tree = scratch.path().join("tree");
    snapshot_tree(&tree, &[("sda", PM883)]);
    let report = replay(&["--root".as_ref(), tree.as_os_str()]);
    assert_eq!(
        families(&report["facts"]),
        vec![
            ("sda".to_string(), Some("Samsung based SSDs".to_string())),
            ("sdb".to_string(), None),
        ]
    );
    assert_eq!(warnings(&report["facts"]), Vec::<String>::new());
}

#[test]
fn a_replayed_snapshot_is_named_by_its_archive_not_a_temporary_directory() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let tree = scratch.path().join("tree");
    snapshot_tree(&tree, &[("sda", PM883)]);
    let archive = scratch.path().join("node.tar.gz");
    pack(&tree, &archive);
    let out = nodecheck()
        .args(["check", "--snapshot"])
        .arg(&archive)
        .output()
        .expect("runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(&format!(
            "Source:   replayed from the snapshot {}",
            archive.display()
        )),
        "{table}"
    );
    let replayed = replay(&["--snapshot".as_ref(), archive.as_os_str()]);
    assert_eq!(
        replayed["source"],
        format!("replayed from the snapshot {}", archive.display())
    );
}

/// A saved output of another machine's drive (an 8 TB Intel P4510 on NVMe) given for a
/// virtio disk: it must not turn the disk into that drive, and the report says it was not used.
#[test]
fn another_drives_saved_output_is_not_merged_and_the_report_says_so() {
    let fixture = Fixture::named("virtio_vps");
    let intel = smartctl_fixture("INTEL_SSDPE2KX080T8_1.json");
    let intel = intel.to_str().expect("utf-8 path");
    let output = fixture.check(&["--bench", "none", "--json", "--smartctl-json", intel]);
    let report: serde_json::Value = json_of(&output);
    let drives = report["facts"]["drives"].as_array().expect("drives");
    assert_eq!(drives.len(), 1, "{drives:?}");
    assert_eq!(drives[0]["interface"], "virtio", "{}", drives[0]);
    assert_ne!(drives[0]["model"], "INTEL SSDPE2KX080T8", "{}", drives[0]);
    assert!(
        crate::cli_support::codes_in(&report, "findings").contains(&"NC611")
            || report["findings"].to_string().contains("virtual"),
        "the virtual-disk finding stays: {}",
        report["findings"]
    );
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("INTEL_SSDPE2KX080T8_1.json") && notes.contains("not used"),
        "a note without -v names the file: {notes}"
    );
    assert!(notes.contains("bus"), "and what disagrees: {notes}");
    let table =
        crate::cli_support::stdout(&fixture.check(&["--bench", "none", "--smartctl-json", intel]));
    assert!(table.contains("not used"), "{table}");
}

/// A file saved on another machine's `/dev/sda` names this machine's `sda` too; its serial
/// and capacity say it is another drive.
#[test]
fn a_saved_output_under_the_same_device_name_but_of_another_drive_is_not_merged() {
    let fixture = Fixture::named("md_raid1");
    let foreign = smartctl_fixture(A400);
    let out = fixture.check(&[
        "--json",
        "--smartctl-json",
        foreign.to_str().expect("utf-8"),
    ]);
    let report: serde_json::Value = json_of(&out);
    assert_eq!(
        families(&report["facts"]),
        vec![("sda".to_string(), None), ("sdb".to_string(), None)]
    );
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("serial, capacity disagree") || notes.contains("capacity"),
        "{notes}"
    );
}
