//! `nodecheck probe`: the facts document (docs/json.md), from fixture roots and
//! from this machine, and its readable table.

use crate::cli_support::{all_scenarios, assert_succeeded, json_of, run, stderr, stdout, Fixture};

const DRIVE_KEYS: [&str; 15] = [
    "name",
    "model",
    "firmware",
    "serial",
    "interface",
    "capacity_bytes",
    "rotational",
    "temperature_c",
    "trim_supported",
    "controller_mode",
    "sata_link_gbps",
    "hmb",
    "pcie_link",
    "vendor",
    "health",
];

#[test]
fn json_has_the_documented_keys_for_every_fixture() {
    for scenario in all_scenarios() {
        let out = Fixture::build(scenario).probe(&[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            scenario.name,
            stderr(&out)
        );
        let doc: serde_json::Value = json_of(&out);
        for key in [
            "schema_version",
            "stack",
            "trim_effective",
            "mount",
            "platform",
            "io_uring",
            "drives",
        ] {
            assert!(doc.get(key).is_some(), "{}: no {key}", scenario.name);
        }
        for drive in doc["drives"].as_array().expect("drives") {
            for key in DRIVE_KEYS {
                assert!(
                    drive.get(key).is_some(),
                    "{}: drive without {key}",
                    scenario.name
                );
            }
        }
    }
}

#[test]
fn degraded_link_fixture_reports_its_link() {
    let doc: serde_json::Value = json_of(&Fixture::named("nvme_degraded_pcie_link").probe(&[]));
    let drive = &doc["drives"][0];
    assert_eq!(drive["model"], "Samsung SSD 980 PRO 2TB");
    assert_eq!(drive["interface"], "nvme");
    let link = &drive["pcie_link"];
    assert!(
        link["current_width"].as_u64() < link["max_width"].as_u64(),
        "{link}"
    );
}

#[test]
fn this_machine_probes_in_a_table_and_as_json() {
    let out = run(["probe", "/"]);
    assert_succeeded(&out);
    let table = stdout(&out);
    assert!(
        table.contains("stack") && table.contains("mount"),
        "{table}"
    );
    let doc: serde_json::Value = json_of(&run(["probe", "--json", "/"]));
    assert_eq!(doc["live"], true);
    assert_eq!(doc["mount"]["mount_point"], "/");
    for drive in doc["drives"].as_array().expect("drives") {
        let name = drive["name"].as_str().expect("name");
        assert!(
            std::path::Path::new("/sys/block").join(name).exists(),
            "{name}"
        );
    }
}

#[test]
fn a_saved_smartctl_output_is_merged() {
    let saved = crate::cli_support::smartctl_fixture(
        "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json",
    );
    let out = Fixture::named("sata_ahci").probe(&["--smartctl-json".as_ref(), saved.as_os_str()]);
    assert_succeeded(&out);
    let doc: serde_json::Value = json_of(&out);
    let text = doc.to_string();
    assert!(text.contains("smartctl"), "smartctl facts appear: {text}");
}

#[test]
fn no_smartctl_changes_nothing_but_smartctl() {
    let probe = |extra: &[&str]| -> serde_json::Value {
        let out = run([&["probe", "--json"], extra, &["/"]].concat());
        assert_succeeded(&out);
        json_of(&out)
    };
    let with = probe(&[]);
    let without = probe(&["--no-smartctl"]);
    assert_eq!(with["stack"], without["stack"]);
    assert_eq!(
        with["mount"]["mount_point"],
        without["mount"]["mount_point"]
    );
    let names = |doc: &serde_json::Value| -> Vec<String> {
        doc["drives"]
            .as_array()
            .expect("drives")
            .iter()
            .map(|d| d["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(names(&with), names(&without));
    for drive in without["drives"].as_array().expect("drives") {
        assert_ne!(
            drive["health"]["source"], "smartctl",
            "--no-smartctl ran smartctl: {drive}"
        );
    }
}
