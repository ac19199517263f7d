//! The documented exit codes: 0 good, 1 ugly, 2 bad, 3 usage error, 4 could not check, and
//! errors as one line with their cause chain, never a panic or backtrace.

use crate::cli_support::{nodecheck, smartctl_fixture, stderr, Fixture};

fn assert_one_line_error(output: &std::process::Output) {
    let err = stderr(output);
    assert!(err.starts_with("nodecheck: error: "), "error line: {err:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
}

#[test]
fn good_ugly_and_bad_verdicts() {
    for (scenario, code) in [("md_raid1", 0), ("sata_ahci", 1), ("hdd", 2)] {
        let out = Fixture::named(scenario).check(&["--bench", "none"]);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{scenario}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn unknown_exits_like_ugly() {
    let out = Fixture::named("zfs_dataset").check(&["--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["grade"], "unknown");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn usage_errors_exit_3() {
    let cases: &[&[&str]] = &[
        &["--no-such-option"],
        &["check", "--root", "a", "--snapshot", "b.tar.gz"],
        &["check", "--format", "yaml"],
        &["check", "--client", "parity"],
        &["db", "lookup", "X", "--capacity", "2XB"],
        &["db", "lookup"],
        &["triage"],
        &["snapshot"],
        &["--json", "db", "list"],
    ];
    for args in cases {
        let out = nodecheck().args(*args).output().expect("runs");
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        // One line, as README's "Errors are one line" says, ending with the help to read.
        assert_one_line_error(&out);
        let err = stderr(&out);
        let help = err
            .trim_end()
            .rsplit_once("; see `")
            .and_then(|(_, rest)| rest.strip_suffix('`'))
            .unwrap_or_else(|| panic!("{args:?}: names the help to read: {err:?}"));
        assert!(
            help.starts_with("nodecheck") && help.ends_with(" --help"),
            "{err}"
        );
        let shown = nodecheck()
            .args(help.split_whitespace().skip(1))
            .output()
            .expect("runs");
        assert_eq!(shown.status.code(), Some(0), "`{help}` works: {shown:?}");
    }
    // The subcommand whose usage was wrong is the one whose help is named.
    let out = nodecheck()
        .args(["db", "lookup", "X", "--capacity", "2XB"])
        .output()
        .expect("runs");
    assert!(
        stderr(&out)
            .trim_end()
            .ends_with("; see `nodecheck db lookup --help`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn help_and_version_exit_0_with_examples_and_the_database_version() {
    let out = nodecheck().arg("--version").output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(nodecheck::embedded_database_version()),
        "{text}"
    );
    for sub in [
        &["--help"][..],
        &["check", "--help"],
        &["probe", "--help"],
        &["db", "lookup", "--help"],
        &["db", "list", "--help"],
        &["triage", "--help"],
        &["snapshot", "--help"],
        &["submit", "--help"],
        &["bench", "--help"],
        &["watch", "--help"],
        &["db", "--help"],
    ] {
        let out = nodecheck().args(sub).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{sub:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Examples:"), "{sub:?} has examples: {text}");
    }
}

#[test]
fn runtime_errors_exit_4_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let truncated = dir.path().join("truncated.json");
    let full = std::fs::read(smartctl_fixture("INTEL_SSDPE2KX080T8_1.json")).expect("fixture");
    std::fs::write(&truncated, &full[..full.len() / 2]).expect("write");
    let foreign = dir.path().join("package.json");
    std::fs::write(&foreign, br#"{"name": "left-pad", "version": "1.3.0"}"#).expect("write");
    let bad_db = dir.path().join("drives.toml");
    std::fs::write(
        &bad_db,
        "schema_version = 1\nversion = \"x\"\n[[drives]]\nid = ",
    )
    .expect("write");
    let not_gzip = dir.path().join("snap.tar.gz");
    std::fs::write(&not_gzip, b"not an archive").expect("write");

    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec!["check".into(), "--root".into(), "/nonexistent/root".into()],
            "nonexistent/root",
        ),
        (vec!["triage".into(), truncated.clone().into()], "truncated"),
        (
            vec!["triage".into(), foreign.clone().into()],
            "not smartctl output",
        ),
        (
            vec!["triage".into(), dir.path().join("missing.json").into()],
            "cannot open",
        ),
        (
            vec![
                "--db".into(),
                bad_db.clone().into(),
                "db".into(),
                "list".into(),
            ],
            "drives.toml",
        ),
        (
            vec!["check".into(), "--snapshot".into(), not_gzip.clone().into()],
            "snap.tar.gz",
        ),
    ];
    for (args, needle) in cases {
        let out = nodecheck().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(4), "{args:?}: {}", stderr(&out));
        assert_one_line_error(&out);
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_test_file_below_the_minimum_is_refused_not_enlarged() {
    for args in [
        &["bench", "--size", "1k", "--test", "qd1", "."][..],
        &["check", "--bench-size", "1k", "."][..],
    ] {
        let output = nodecheck().args(args).output().expect("runs");
        assert_eq!(output.status.code(), Some(3), "{args:?}: {output:?}");
        let message = stderr(&output);
        assert!(
            message.contains("smaller than the smallest test file, 16.0 MiB"),
            "{message}"
        );
    }
}

#[test]
fn a_size_past_u64_max_is_a_usage_error_not_clamped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dir = dir.path().to_str().expect("utf-8");
    let cases: &[&[&str]] = &[
        &[
            "bench",
            dir,
            "--size",
            "18446744073709551616",
            "--test",
            "qd1",
        ],
        &[
            "bench",
            dir,
            "--size",
            "18446744073709551616B",
            "--test",
            "qd1",
        ],
        &["db", "lookup", "X", "--capacity", "18446744073709551616"],
    ];
    for args in cases {
        let out = nodecheck().args(*args).output().expect("runs");
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("out of range"), "{}", stderr(&out));
    }
}

/// `--root` on a directory that is no replayed machine says so in the reader's terms, not as
/// the mount table the probe could not read.
#[test]
fn root_on_a_directory_that_is_no_snapshot_says_what_root_takes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = crate::cli_support::nodecheck()
        .args(["check", "--root"])
        .arg(dir.path())
        .arg("/")
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(i32::from(nodecheck::exit_codes::COULD_NOT_CHECK)),
        "{out:?}"
    );
    let err = crate::cli_support::stderr(&out);
    assert!(err.contains("is not a replayed machine"), "{err}");
    assert!(err.contains("--snapshot"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}
