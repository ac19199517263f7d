//! `--client` and `--cl`: the execution and consensus client that share the node's disk, end
//! to end through `check` and `triage`.

mod cli_support;

use cli_support::{
    assert_contains, assert_has_finding, finding, json_of, run, stderr, stdout, triage, written,
    Fixture,
};
use nodecheck::report::Report;

#[test]
fn check_names_the_pair_in_the_size_findings_and_the_report() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let out = fixture.check(&["--client", "geth", "--cl", "lighthouse", "--json"]);
    let report: Report = json_of(&out);
    assert_eq!(report.client.requested.as_deref(), Some("geth"));
    assert_eq!(report.client.consensus.as_deref(), Some("lighthouse"));
    let size = finding(&report, "NC510", "geth + lighthouse");
    assert_contains(&size.detail, "Geth + Lighthouse");
    assert_contains(
        &size.detail,
        "Lighthouse's beacon database adds about 200 GB",
    );

    let alone: Report = json_of(&fixture.check(&["--client", "geth", "--json"]));
    assert_eq!(alone.client.consensus, None);
    let size = finding(&alone, "NC510", "geth alone");
    assert_contains(&size.detail, "name yours to count it");

    let markdown = stdout(&fixture.check(&[
        "--client",
        "geth",
        "--cl",
        "lighthouse",
        "--format",
        "markdown",
    ]));
    assert_contains(&markdown, "| Client needs | geth + lighthouse |");
}

#[test]
fn triage_takes_the_consensus_client_too() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let (_dir, file) = written("report.json", fixture.check(&["--json"]).stdout);
    let out = triage(&file, &["--client", "besu", "--cl", "nimbus", "--json"]);
    let report: Report = json_of(&out);
    assert_eq!(report.client.consensus.as_deref(), Some("nimbus"));
    let besu_nimbus = |f: &verdict::Finding| f.detail.contains("Besu + Nimbus");
    assert_has_finding(
        &report,
        "NC510",
        besu_nimbus,
        "triage --client besu --cl nimbus",
    );
}

#[test]
fn an_unknown_consensus_client_is_a_usage_error() {
    let out = run(["check", "--cl", "geth", "--bench", "none"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("lighthouse"), "{}", stderr(&out));
}

#[test]
fn the_client_names_come_from_the_catalog_in_help_and_errors() {
    let catalog = verdict::ClientCatalog::embedded();
    let help = stdout(&run(["check", "--help"]));
    let unknown = run(["check", "--client", "gethh", "--bench", "none"]);
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
