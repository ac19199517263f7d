//! Every fixture scenario, regular and hostile, through every output format: no panic, the
//! exit code follows the verdict, and each format keeps its promises (80 columns, < 2,000
//! characters, parseable JSON and exposition format, redaction).

use crate::cli_support::{all_scenarios, stderr, stdout, Fixture};
use nodecheck::Report;

fn grade_exit_code(grade: &str) -> i32 {
    match grade {
        "good" => 0,
        "unknown" | "ugly" => 1,
        "bad" => 2,
        other => panic!("unexpected grade {other}"),
    }
}

#[test]
fn json_is_a_report_and_the_exit_code_follows_its_grade() {
    let mut codes = std::collections::BTreeSet::new();
    for scenario in all_scenarios() {
        let fixture = Fixture::build(scenario);
        let out = fixture.check(&["--json"]);
        let text = stdout(&out);
        let report: Report = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not a report ({e}): {}", scenario.name, stderr(&out)));
        assert_eq!(report.schema_version, nodecheck::REPORT_SCHEMA_VERSION);
        assert!(
            !report.facts.live,
            "{}: a fixture is never live",
            scenario.name
        );
        assert!(
            report.bench.is_none(),
            "{}: replays measure nothing",
            scenario.name
        );
        let code = out.status.code().expect("exited");
        assert_eq!(
            code,
            grade_exit_code(report.grade.as_str()),
            "{}",
            scenario.name
        );
        codes.insert(code);
        // Worst first.
        for pair in report.findings.windows(2) {
            assert!(
                pair[0].severity >= pair[1].severity,
                "{}: findings out of order",
                scenario.name
            );
        }
    }
    assert_eq!(
        codes.into_iter().collect::<Vec<_>>(),
        vec![0, 1, 2],
        "the fixtures cover good, ugly and bad"
    );
}

#[test]
fn table_fits_80_columns_and_ends_with_the_verdict() {
    for scenario in all_scenarios() {
        let fixture = Fixture::build(scenario);
        let out = fixture.check(&["-v"]);
        let text = stdout(&out);
        assert!(
            !text.contains('\u{1b}'),
            "{}: NO_COLOR and a pipe mean no ANSI codes",
            scenario.name
        );
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80 || !line.contains('│'),
                "{}: table row wider than 80 columns: {line}",
                scenario.name
            );
        }
        let last = text.lines().last().unwrap_or_default();
        assert!(
            ["GOOD:", "UGLY:", "BAD:", "UNKNOWN:"]
                .iter()
                .any(|w| last.starts_with(w)),
            "{}: last line is not the verdict: {last}",
            scenario.name
        );
    }
}

#[test]
fn discord_stays_under_2000_characters_for_every_fixture() {
    let mut longest = (0, "");
    for scenario in all_scenarios() {
        let fixture = Fixture::build(scenario);
        let out = fixture.check(&["--format", "discord"]);
        let text = stdout(&out);
        let chars = text.chars().count();
        assert!(chars < 2000, "{}: {chars} characters", scenario.name);
        assert!(
            text.starts_with("**nodecheck: "),
            "{}: {text}",
            scenario.name
        );
        if chars > longest.0 {
            longest = (chars, scenario.name);
        }
    }
    println!(
        "longest discord message: {} characters ({})",
        longest.0, longest.1
    );
}

#[test]
fn prometheus_is_valid_exposition_format() {
    let sample = regex::Regex::new(
        r#"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$"#,
    )
    .expect("regex");
    for scenario in all_scenarios() {
        let fixture = Fixture::build(scenario);
        let out = fixture.check(&["--format", "prometheus"]);
        let text = stdout(&out);
        assert!(
            text.contains("# TYPE nodecheck_grade gauge"),
            "{}",
            scenario.name
        );
        // The drive's two grades, each under its own name.
        for metric in ["nodecheck_drive_verdict", "nodecheck_drive_database_grade"] {
            assert!(
                text.contains(&format!("# HELP {metric} ")),
                "{}: {metric}",
                scenario.name
            );
        }
        assert!(!text.contains("nodecheck_drive_grade"), "{}", scenario.name);
        let mut declared = std::collections::BTreeSet::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                declared.insert(rest.split(' ').next().unwrap_or_default().to_string());
                continue;
            }
            if line.starts_with("# HELP ") {
                continue;
            }
            assert!(
                sample.is_match(line),
                "{}: bad sample line {line:?}",
                scenario.name
            );
            let name = line.split(['{', ' ']).next().unwrap_or_default();
            let family = name.trim_end_matches("_sum").trim_end_matches("_count");
            assert!(
                declared.contains(family),
                "{}: {name} has no TYPE line",
                scenario.name
            );
        }
    }
}

#[test]
fn markdown_and_discord_are_redacted_unless_asked() {
    // Every regular scenario's drives carry serial numbers.
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let json: Report = serde_json::from_str(&stdout(&fixture.check(&["--json"]))).expect("report");
    let serials: Vec<String> = json
        .facts
        .drives
        .iter()
        .filter_map(|d| d.serial.clone())
        .collect();
    assert!(!serials.is_empty(), "the fixture has serial numbers");
    for format in ["markdown", "discord"] {
        let redacted = stdout(&fixture.check(&["--format", format]));
        let kept = stdout(&fixture.check(&["--format", format, "--no-redact"]));
        for serial in &serials {
            assert!(
                !redacted.contains(serial.as_str()),
                "{format} leaks {serial}"
            );
        }
        if format == "markdown" {
            assert!(
                redacted.contains("[redacted]"),
                "{format} marks what it removed"
            );
            for serial in &serials {
                assert!(kept.contains(serial.as_str()), "--no-redact keeps {serial}");
            }
        }
    }
}

#[test]
fn markdown_embeds_a_report_that_triage_reads_back() {
    let fixture = Fixture::named("dm_crypt");
    let md = stdout(&fixture.check(&["--format", "markdown", "--no-redact"]));
    let start = md.find("```json\n").expect("json block") + "```json\n".len();
    let end = md[start..].find("```").expect("block end") + start;
    let embedded: Report =
        serde_json::from_str(&md[start..end]).expect("the embedded report parses");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("report.json");
    std::fs::write(&file, &md[start..end]).expect("write");
    let out = crate::cli_support::nodecheck()
        .args(["triage", "--json"])
        .arg(&file)
        .output()
        .expect("runs");
    let again: Report = serde_json::from_str(&stdout(&out)).expect("triage prints a report");
    assert_eq!(again.grade, embedded.grade);
    assert_eq!(again.facts, embedded.facts);
    let codes = |r: &Report| r.findings.iter().map(|f| f.code).collect::<Vec<_>>();
    assert_eq!(codes(&again), codes(&embedded));
}
