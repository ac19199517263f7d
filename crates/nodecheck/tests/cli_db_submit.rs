//! `db lookup`, `db list` and `submit`, whose block must pass the checks `cargo xtask
//! db-check FILE` makes.

mod cli_support;

use cli_support::skip::skip;
use std::time::Duration;

use cli_support::{nodecheck, stderr, stdout, Fixture};
use verdict::database::{self, Database, DriveQuery};

#[test]
fn lookup_json_has_the_documented_keys() {
    let out = nodecheck()
        .args([
            "db",
            "lookup",
            "Samsung SSD 980 PRO 2TB",
            "--firmware",
            "3B2QGXA7",
            "--json",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(
        doc["grade"], "bad",
        "the bad firmware makes the drive bad: {doc}"
    );
    for key in ["family", "grade", "nand", "dram", "class"] {
        assert!(doc["entry"].get(key).is_some(), "entry.{key} in {doc}");
    }
    assert!(doc["advisories"].as_array().is_some_and(|a| !a.is_empty()));
}

#[test]
fn lookup_of_an_unknown_model_says_unknown() {
    let out = nodecheck()
        .args(["db", "lookup", "NoSuchVendor XYZ-123", "--json"])
        .output()
        .expect("runs");
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(doc["grade"], "unknown");
    assert!(doc["entry"].is_null());
    let text = stdout(
        &nodecheck()
            .args(["db", "lookup", "NoSuchVendor XYZ-123"])
            .output()
            .expect("runs"),
    );
    assert!(text.contains("unknown"), "{text}");
}

#[test]
fn list_filters_by_grade() {
    let out = nodecheck()
        .args(["db", "list", "--grade", "bad", "--json"])
        .output()
        .expect("runs");
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let entries = doc["entries"].as_array().expect("entries");
    assert!(!entries.is_empty());
    assert!(entries.iter().all(|e| e["grade"] == "bad"), "{doc}");
    let all = nodecheck()
        .args(["db", "list", "--json"])
        .output()
        .expect("runs");
    let all: serde_json::Value = serde_json::from_str(&stdout(&all)).expect("json");
    assert!(all["entries"].as_array().expect("entries").len() > entries.len());
}

#[test]
fn db_option_overrides_the_embedded_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("drives.toml");
    std::fs::write(&file, database::EMBEDDED_DRIVES).expect("write");
    let out = nodecheck()
        .arg("--db")
        .arg(&file)
        .args(["db", "list", "--json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A real (small) measurement on a temporary directory, inserted into a fixture machine's
/// report as `check --bench full --json` would write it, then turned into a result block.
#[test]
fn submit_prints_a_block_that_db_check_accepts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut plan = bench::Plan::new(bench::BenchTarget::Directory(dir.path().to_path_buf()));
    plan.runtime = Duration::from_secs(1);
    plan.size = Some(64 << 20);
    plan.reserve = Some(1 << 30);
    let measured = match bench::run(&plan, &mut bench::NoProgress) {
        Ok(report) => report,
        Err(err) => {
            skip(format_args!(
                "cannot benchmark a temporary directory here ({err})"
            ));
            return;
        }
    };

    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let mut report: serde_json::Value =
        serde_json::from_slice(&fixture.check(&["--json"]).stdout).expect("report");
    report["bench"] = serde_json::to_value(&measured).expect("bench json");
    let saved = dir.path().join("report.json");
    std::fs::write(&saved, serde_json::to_vec(&report).expect("json")).expect("write");

    let out = nodecheck()
        .arg("submit")
        .arg("--from")
        .arg(&saved)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let block = stdout(&out);
    assert!(
        stderr(&out).contains("pull request"),
        "steps on stderr: {}",
        stderr(&out)
    );

    // What `cargo xtask db-check FILE` checks for a result block.
    let results = database::parse_result_block(&block, "submit").expect("the block parses as is");
    assert_eq!(results.len(), 1);
    let r = &results[0];
    let db = Database::embedded().expect("embedded database");
    assert!(
        db.benchmark(&r.benchmark).is_some(),
        "benchmark {} is declared",
        r.benchmark
    );
    assert!(r.read_iops > 0 || r.write_iops > 0);
    assert!(r.nodecheck_version.is_some());
    let model = r.model.as_deref().expect("model");
    assert_eq!(model, "Samsung SSD 980 PRO 2TB");
    let lookup = db.lookup(&DriveQuery::new(model));
    assert!(lookup.entry.is_some(), "the block's model finds its entry");
    assert_eq!(r.span_bytes, measured.randrw.as_ref().map(|x| x.span_bytes));
    assert!(r.date.as_deref().is_some_and(|d| d.len() == 10));

    // And the real thing, when `cargo xtask` has been built beside this binary (.ci/run runs
    // `cargo xtask db-check` before the tests).
    let xtask = std::path::Path::new(env!("CARGO_BIN_EXE_nodecheck")).with_file_name("xtask");
    if !xtask.exists() {
        skip(format_args!(
            "`cargo xtask db-check FILE`: no xtask binary at {}",
            xtask.display()
        ));
        return;
    }
    let block_file = dir.path().join("result.toml");
    std::fs::write(&block_file, &block).expect("write");
    let checked = std::process::Command::new(&xtask)
        .arg("db-check")
        .arg(&block_file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("xtask runs");
    assert!(
        checked.status.success(),
        "cargo xtask db-check refuses the block:\n{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[test]
fn submit_refuses_a_report_without_measurements() {
    let fixture = Fixture::named("sata_ahci");
    let dir = tempfile::tempdir().expect("tempdir");
    let saved = dir.path().join("report.json");
    std::fs::write(&saved, fixture.check(&["--json"]).stdout).expect("write");
    let out = nodecheck()
        .arg("submit")
        .arg("--from")
        .arg(&saved)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("--bench full"), "{}", stderr(&out));
}
