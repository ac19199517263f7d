//! `--client` and `--cl`: the execution and consensus client that share the node's disk, end
//! to end through `check` and `triage`.

mod cli_support;

use cli_support::{finding, nodecheck, stderr, stdout, Fixture};
use nodecheck::report::Report;

fn report_of(out: &std::process::Output) -> Report {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("not a report ({e}): {}", stderr(out)))
}

#[test]
fn check_names_the_pair_in_the_size_findings_and_the_report() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let out = fixture.check(&["--client", "geth", "--cl", "lighthouse", "--json"]);
    let report = report_of(&out);
    assert_eq!(report.client.requested.as_deref(), Some("geth"));
    assert_eq!(report.client.consensus.as_deref(), Some("lighthouse"));
    let size = finding(&report, "NC510", "geth + lighthouse");
    assert!(size.detail.contains("Geth + Lighthouse"), "{}", size.detail);
    assert!(
        size.detail
            .contains("Lighthouse's beacon database adds about 200 GB"),
        "{}",
        size.detail
    );

    let alone = report_of(&fixture.check(&["--client", "geth", "--json"]));
    assert_eq!(alone.client.consensus, None);
    let size = finding(&alone, "NC510", "geth alone");
    assert!(
        size.detail.contains("name yours to count it"),
        "{}",
        size.detail
    );

    let markdown = stdout(&fixture.check(&[
        "--client",
        "geth",
        "--cl",
        "lighthouse",
        "--format",
        "markdown",
    ]));
    assert!(
        markdown.contains("| Client needs | geth + lighthouse |"),
        "{markdown}"
    );
}

#[test]
fn triage_takes_the_consensus_client_too() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let saved = stdout(&fixture.check(&["--json"]));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("report.json");
    std::fs::write(&file, saved).expect("write");
    let out = nodecheck()
        .arg("triage")
        .arg(&file)
        .args(["--client", "besu", "--cl", "nimbus", "--json"])
        .output()
        .expect("runs");
    let report = report_of(&out);
    assert_eq!(report.client.consensus.as_deref(), Some("nimbus"));
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.code == "NC510" && f.detail.contains("Besu + Nimbus")),
        "{:#?}",
        report.findings
    );
}

#[test]
fn an_unknown_consensus_client_is_a_usage_error() {
    let out = nodecheck()
        .args(["check", "--cl", "geth", "--bench", "none"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("lighthouse"), "{}", stderr(&out));
}

#[test]
fn the_client_names_come_from_the_catalog_in_help_and_errors() {
    let catalog = verdict::ClientCatalog::embedded();
    let help = stdout(
        &nodecheck()
            .args(["check", "--help"])
            .output()
            .expect("runs"),
    );
    let unknown = nodecheck()
        .args(["check", "--client", "gethh", "--bench", "none"])
        .output()
        .expect("runs");
    assert_eq!(unknown.status.code(), Some(3), "{}", stderr(&unknown));
    for name in catalog.execution_names().chain(catalog.consensus_names()) {
        assert!(help.contains(name), "--help does not list {name}: {help}");
    }
    for name in catalog.execution_names() {
        assert!(
            stderr(&unknown).contains(name),
            "the error does not offer {name}: {}",
            stderr(&unknown)
        );
    }
}
