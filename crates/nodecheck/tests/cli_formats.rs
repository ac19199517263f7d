//! `--format` is one option across the commands: every command that prints a document takes
//! it, `--json` and `text` are other names for `json` and `table`, and a format a command does
//! not print is a usage error naming the ones it does (docs/formats.md).

use std::path::Path;
use std::process::Output;

use crate::cli_support::{machine_lock, run, scratch, stderr, stdout, Fixture};

const FIXTURE: &str = "nvme_degraded_pcie_link";

/// `probe` and `check` on the fixture tree, whose root differs per test run.
fn on_fixture(fixture: &Fixture, command: &str, args: &[&str]) -> Output {
    let root = fixture.root().to_str().expect("UTF-8 path");
    let mut argv = vec![command, "--root", root, fixture.scenario.probe_path];
    argv.extend_from_slice(args);
    run(&argv)
}

fn assert_same_output(a: &Output, b: &Output, what: &str) {
    assert_eq!(a.status.code(), b.status.code(), "{what}: exit codes");
    assert_eq!(stdout(a), stdout(b), "{what}: stdout");
}

#[test]
fn the_documented_refusal_is_what_probe_prints() {
    let out = run(["probe", "--format", "prometheus", "."]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let docs = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/formats.md"),
    )
    .expect("docs/formats.md");
    let line = stderr(&out);
    assert!(
        docs.contains(line.trim_end()),
        "docs/formats.md quotes {line:?}"
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn every_command_refuses_a_format_it_does_not_print_and_names_its_own() {
    let not_documents = ["markdown", "discord", "prometheus"];
    let cases: [(&[&str], &str, &[&str], &str); 4] = [
        (&["probe", "."], "probe", &not_documents, "table, json"),
        (
            &["db", "lookup", "Samsung SSD 980 PRO 2TB"],
            "db lookup",
            &not_documents,
            "table, json",
        ),
        (&["db", "list"], "db list", &not_documents, "table, json"),
        (
            &["bench", "."],
            "bench",
            &["discord", "prometheus"],
            "table, json, markdown",
        ),
    ];
    for (args, command, formats, valid) in cases {
        for format in formats {
            let out = run([args, &["--format", format]].concat());
            assert_eq!(out.status.code(), Some(3), "{args:?} {format}: {out:?}");
            let err = stderr(&out);
            assert!(
                err.contains(&format!(
                    "`--format {format}` does not apply to `nodecheck {command}`; its formats are {valid}"
                )),
                "{args:?} {format}: {err}"
            );
            assert!(
                stdout(&out).is_empty(),
                "{args:?} {format}: nothing on stdout"
            );
        }
    }
}

#[test]
fn json_is_format_json_on_every_command() {
    let fixture = Fixture::named(FIXTURE);
    for command in ["probe", "check"] {
        let json = on_fixture(&fixture, command, &["--json"]);
        let format = on_fixture(&fixture, command, &["--format", "json"]);
        assert_same_output(&json, &format, command);
        serde_json::from_slice::<serde_json::Value>(&format.stdout)
            .unwrap_or_else(|e| panic!("{command} prints JSON: {e}"));
    }
    for args in [
        vec!["db", "lookup", "Samsung SSD 980 PRO 2TB"],
        vec!["db", "list", "--grade", "bad"],
    ] {
        let json = run([args.as_slice(), &["--json"]].concat());
        let format = run([args.as_slice(), &["--format", "json"]].concat());
        assert_same_output(&json, &format, &args.join(" "));
        let doc: serde_json::Value = serde_json::from_slice(&format.stdout).expect("JSON");
        assert!(doc["database_version"].is_string(), "{args:?}");
    }
    let both = run(["probe", "--json", "--format", "table", "."]);
    assert_eq!(both.status.code(), Some(3), "--json and --format conflict");
}

#[test]
fn text_is_another_name_for_table() {
    let fixture = Fixture::named(FIXTURE);
    for command in ["probe", "check"] {
        let default = on_fixture(&fixture, command, &[]);
        let table = on_fixture(&fixture, command, &["--format", "table"]);
        let text = on_fixture(&fixture, command, &["--format", "text"]);
        assert_same_output(&default, &table, command);
        assert_same_output(&default, &text, command);
    }
    let default = run(["db", "list"]);
    let text = run(["db", "list", "--format", "text"]);
    assert_same_output(&default, &text, "db list");
    assert!(stdout(&text).contains("entries (database "));
}

#[test]
fn check_and_triage_print_the_report_in_all_five() {
    let fixture = Fixture::named(FIXTURE);
    let saved = tempfile::NamedTempFile::new().expect("temp file");
    let json = on_fixture(&fixture, "check", &["--json"]);
    std::fs::write(saved.path(), &json.stdout).expect("save the report");
    let saved = saved.path().to_str().expect("UTF-8 path");
    let starts = [
        ("table", ""),
        ("json", "{"),
        ("markdown", "## nodecheck: **"),
        ("discord", "**nodecheck: "),
        ("prometheus", "# HELP nodecheck_info "),
    ];
    for (format, start) in starts {
        let check = on_fixture(&fixture, "check", &["--format", format]);
        let triage = run(["triage", saved, "--format", format]);
        for (name, out) in [("check", &check), ("triage", &triage)] {
            assert_eq!(
                out.status.code(),
                json.status.code(),
                "{name} --format {format}: same verdict: {out:?}"
            );
            let text = stdout(out);
            assert!(text.starts_with(start), "{name} --format {format}: {text}");
            assert!(!text.trim().is_empty(), "{name} --format {format}");
        }
    }
}

#[test]
fn bench_prints_its_three_formats() {
    let _machine = machine_lock();
    let dir = scratch("formats-e2e-");
    let path = dir.path().to_str().expect("UTF-8 path");
    let bench = |format: &str| {
        run([
            "bench",
            path,
            "--test",
            "qd1",
            "--size",
            "16M",
            "--runtime",
            "1",
            "--reserve",
            "1G",
            "--force",
            "--format",
            format,
        ])
    };
    let json = bench("json");
    assert!(json.status.success(), "{json:?}");
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert!(doc["qd1"]["iops"].as_f64().is_some_and(|iops| iops > 0.0));

    let markdown = bench("markdown");
    assert!(markdown.status.success(), "{markdown:?}");
    let text = stdout(&markdown);
    assert!(text.starts_with("## nodecheck bench `"), "{text}");
    assert!(text.contains("- QD1 4 KiB random read: p50 "), "{text}");
    assert!(
        text.contains("<summary>Full result (JSON)</summary>"),
        "{text}"
    );

    let table = bench("text");
    assert!(table.status.success(), "{table:?}");
    let text = stdout(&table);
    assert!(text.starts_with("nodecheck bench "), "{text}");
    assert!(text.contains("QD1 4 KiB random read"), "{text}");
}
