//! `db lookup`, `db list` and `submit`, whose block must pass the checks `cargo xtask
//! db-check FILE` makes.

use std::time::Duration;
use test_support::skip;

use crate::cli_support::{
    assert_contains, assert_succeeded, codes_in, json_of, machine_lock, nodecheck, run, run_ok,
    stderr, stdout, submit_from, written, Fixture,
};
use verdict::{Database, DriveQuery};

#[test]
fn lookup_json_has_the_documented_keys() {
    let (code, doc) = lookup_json(&["Samsung SSD 980 PRO 2TB", "--firmware", "3B2QGXA7"]);
    assert_eq!(code, Some(0), "{doc}");
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
fn lookup_of_an_unknown_model_says_unknown_and_exits_1() {
    let (code, doc) = lookup_json(&["NoSuchVendor XYZ-123"]);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["grade"], "unknown");
    assert!(doc["entry"].is_null());
    assert!(doc["matched_by"].is_null(), "{doc}");
    let out = run(["db", "lookup", "NoSuchVendor XYZ-123"]);
    assert_eq!(out.status.code(), Some(1));
    assert_contains(&stdout(&out), "unknown");
}

#[test]
fn lookup_of_an_empty_model_is_a_usage_error_not_an_unknown_drive() {
    for blank in ["", "   "] {
        let out = run(["db", "lookup", blank]);
        assert_eq!(
            out.status.code(),
            Some(i32::from(nodecheck::exit_codes::USAGE)),
            "{out:?}"
        );
        let err = crate::cli_support::stderr(&out);
        assert_contains(&err, "give the model string");
        assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    }
}

/// `db lookup ARGS --json`: the exit code and the document.
fn lookup_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = run([&["db", "lookup"], args, &["--json"]].concat());
    (out.status.code(), json_of(&out))
}

/// What `db lookup MODEL` prints for a person.
fn lookup_text(model: &str) -> String {
    stdout(&run(["db", "lookup", model]))
}

/// `db list ARGS --json`: the entries the list holds.
fn list_entries(args: &[&str]) -> Vec<serde_json::Value> {
    let mut doc: serde_json::Value = json_of(&run([&["db", "list"], args, &["--json"]].concat()));
    match doc["entries"].take() {
        serde_json::Value::Array(entries) => entries,
        other => panic!("entries is not a list: {other}"),
    }
}

#[test]
fn lookup_finds_family_names_as_db_list_prints_them_and_says_so() {
    for (name, id, grade) in [
        ("Crucial P3", "crucial-p3", "bad"),
        ("Samsung 980", "samsung-980", "bad"),
        ("samsung  870-evo", "samsung-870-evo", "good"),
    ] {
        let (code, doc) = lookup_json(&[name]);
        assert_eq!(code, Some(0), "{name}: {doc}");
        assert_eq!(doc["matched_by"], "family_name", "{name}: {doc}");
        assert_eq!(doc["entry"]["id"], id, "{name}: {doc}");
        assert_eq!(doc["grade"], grade, "{name}: {doc}");
        let codes = codes_in(&doc, "advisories");
        assert!(
            codes.contains(&format!("{id}/matched-by-family-name").as_str()),
            "{name}: {codes:?}"
        );
    }
    assert_contains(
        &lookup_text("Crucial P3"),
        "family name (not a model string)",
    );
}

#[test]
fn lookup_by_family_name_applies_only_the_rules_given() {
    // The 990 PRO's bad firmware is applied when the firmware is given, and the lookup asks
    // for it when it is not; neither happens silently.
    let (code, doc) = lookup_json(&["Samsung 990 PRO", "--firmware", "0B2QJXD7"]);
    assert_eq!(code, Some(0));
    assert_eq!(doc["matched_by"], "family_name");
    assert_eq!(doc["entry"]["grade"], "good", "{doc}");
    assert_eq!(doc["grade"], "bad", "the firmware rule applies: {doc}");
    let (_, doc) = lookup_json(&["Samsung 990 PRO"]);
    assert_eq!(doc["grade"], "good");
    assert!(
        codes_in(&doc, "advisories").contains(&"samsung-990-pro/firmware-unknown"),
        "{doc}"
    );
}

#[test]
fn every_family_db_list_prints_looks_up() {
    let db = Database::embedded().expect("embedded");
    for item in list_entries(&[]) {
        let family = item["family"].as_str().expect("family");
        let id = item["id"].as_str().expect("id");
        let found = db.entries_by_family_name(family);
        assert!(
            found.iter().any(|e| e.id == id),
            "`{family}` as db list prints it does not find {id}"
        );
    }
}

#[test]
fn lookup_of_a_near_miss_suggests_the_nearest_families() {
    let (code, doc) = lookup_json(&["Samsng 980 PRO"]);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["grade"], "unknown");
    assert_eq!(doc["suggestions"][0]["id"], "samsung-980-pro", "{doc}");
    let text = lookup_text("Samsng 980 PRO");
    assert_contains(&text, "Nearest families");
    assert_contains(&text, "nodecheck db lookup 'Samsung 980 PRO'");
}

#[test]
fn lookup_suggests_only_families_that_share_a_model_number() {
    // Jaro-Winkler alone put `Lexar NM1090` first for an Acer string of the same shape.
    let (_, doc) = lookup_json(&["Acer SSD FA150 1TB"]);
    let suggested: Vec<&str> = doc["suggestions"]
        .as_array()
        .map(|s| s.iter().filter_map(|e| e["id"].as_str()).collect())
        .unwrap_or_default();
    assert!(!suggested.contains(&"lexar-nm1090"), "{doc}");
}

#[test]
fn lookup_of_the_acer_fa100_as_it_reports_itself_is_graded() {
    let (_, doc) = lookup_json(&["Acer SSD FA100 1TB"]);
    assert_eq!(doc["entry"]["id"], "acer-fa100", "{doc}");
    assert_eq!(doc["grade"], "ugly", "{doc}");
}

#[test]
fn lookup_of_a_cut_short_model_lists_every_family_it_could_be() {
    let (code, doc) = lookup_json(&["Samsung SSD 870 "]);
    assert_eq!(code, Some(1), "EVO and QVO grade differently: {doc}");
    assert_eq!(doc["matched_by"], "model_prefix");
    let candidates: Vec<(&str, &str)> = doc["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().expect("id"),
                c["grade"].as_str().expect("grade"),
            )
        })
        .collect();
    assert_eq!(
        candidates,
        [("samsung-870-evo", "good"), ("samsung-870-qvo", "ugly")]
    );
    let text = lookup_text("Samsung SSD 870 ");
    assert_contains(&text, "Samsung 870 QVO (ugly)");
    assert_contains(&text, "smartctl -d sat -i");
}

#[test]
fn list_filters_by_grade() {
    let bad = list_entries(&["--grade", "bad"]);
    assert!(!bad.is_empty());
    assert!(bad.iter().all(|e| e["grade"] == "bad"), "{bad:?}");
    assert!(list_entries(&[]).len() > bad.len());
}

#[test]
fn db_option_overrides_the_embedded_database() {
    let (_dir, file) = written("drives.toml", verdict::EMBEDDED_DRIVES);
    run_ok(
        nodecheck()
            .arg("--db")
            .arg(&file)
            .args(["db", "list", "--json"]),
    );
}

/// A real (small) measurement on a temporary directory, inserted into a fixture machine's
/// report as `check --bench full --json` would write it, then turned into a result block.
#[test]
fn submit_prints_a_block_that_db_check_accepts() {
    let _machine = machine_lock();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut plan = bench::Plan::full(bench::BenchTarget::Directory(dir.path().to_path_buf()));
    plan.runtime = Duration::from_secs(1);
    plan.size = Some(64 << 20);
    plan.safety.reserve = Some(1 << 30);
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

    let out = submit_from(&saved);
    assert_succeeded(&out);
    let block = stdout(&out);
    assert!(
        stderr(&out).contains("pull request"),
        "steps on stderr: {}",
        stderr(&out)
    );

    // What `cargo xtask db-check FILE` checks for a result block.
    let results = verdict::parse_result_block(&block, "submit").expect("the block parses as is");
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
    // A 64 MiB span is named as such, not rounded down to "0 GiB".
    assert_contains(&block, "span 64.0 MiB is below the list's 150G");

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
    let (_dir, saved) = written("report.json", fixture.check(&["--json"]).stdout);
    let out = submit_from(&saved);
    assert_eq!(out.status.code(), Some(4));
    assert_contains(&stderr(&out), "--bench full");
}

#[test]
fn submit_on_a_file_says_so_before_announcing_a_benchmark() {
    let (_dir, file) = crate::cli_support::written("afile.txt", "not a directory\n");
    let out = run([std::ffi::OsStr::new("submit"), file.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(i32::from(nodecheck::exit_codes::COULD_NOT_CHECK)),
        "{out:?}"
    );
    let err = crate::cli_support::stderr(&out);
    assert_contains(&err, "is not a directory");
    assert_contains(&err, "--from");
    assert!(!err.contains("Running the full benchmark"), "{err}");
    assert!(!err.contains("invalid plan"), "{err}");
}
