//! `--client` and `--cl`: the execution and consensus client that share the node's disk, end
//! to end through `check` and `triage`.

use crate::cli_support::{
    assert_contains, assert_has_finding, finding, json_of, run, stderr, stdout, triage, written,
    Fixture,
};
use nodecheck::Report;

#[test]
fn check_names_the_pair_in_the_size_findings_and_the_report() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let out = fixture.check(&["--client", "geth", "--cl", "lighthouse", "--json"]);
    let report: Report = json_of(&out);
    assert_eq!(report.client.requested.as_deref(), Some("geth"));
    assert_eq!(report.client.consensus.as_deref(), Some("lighthouse"));
    let size = finding(&report, "NC510", "geth + lighthouse");
    assert_contains(&size.detail, "Geth + Lighthouse");
    assert_contains(&size.detail, "and Lighthouse about 200 GB");
    assert_contains(&report.summary, "[needs of Geth with Lighthouse]");

    let alone: Report = json_of(&fixture.check(&["--client", "geth", "--json"]));
    assert_eq!(alone.client.consensus, None);
    let size = finding(&alone, "NC510", "geth alone");
    assert_contains(
        &size.detail,
        "no consensus client named, so the largest consensus allowance is counted",
    );

    let markdown = stdout(&fixture.check(&[
        "--client",
        "geth",
        "--cl",
        "lighthouse",
        "--format",
        "markdown",
    ]));
    assert_contains(&markdown, "| Judged for | needs of Geth with Lighthouse |");
}

/// NC510 counts the clients nobody named and names the options that name them, so the
/// operator need not guess that "no consensus client named" means `--cl`; the options it
/// names are the ones that then remove the caveat.
#[test]
fn the_size_finding_names_the_options_for_the_clients_nobody_named() {
    // Where the size check fails the options end its fix, which no format cuts; where it
    // passes, its detail.
    let text = |f: &verdict::Finding| format!("{} {}", f.detail, f.fix.as_deref().unwrap_or(""));
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let unnamed: Report = json_of(&fixture.check(&["--bench", "none", "--json"]));
    let size = finding(&unnamed, "NC510", "no client named");
    assert!(
        size.fix.as_deref().is_some_and(|fix| {
            fix.ends_with(
            "To judge only your node's clients, name them: `--client NAME --cl NAME --history MODE`"
        )
        }),
        "{size:?}"
    );

    let geth: Report = json_of(&fixture.check(&["--client", "geth", "--json"]));
    let size = finding(&geth, "NC510", "geth alone");
    assert_contains(&text(size), "name them: `--cl NAME --history MODE`");

    let all: Report = json_of(&fixture.check(&[
        "--client",
        "geth",
        "--cl",
        "lighthouse",
        "--history",
        "post-merge",
        "--json",
    ]));
    let size = finding(&all, "NC510", "every client named");
    assert!(!text(size).contains("name them"), "{size:?}");
    assert!(
        !size.detail.contains("no consensus client named"),
        "{size:?}"
    );

    // triage prints the same report, and takes the same options.
    let (_dir, file) = written("report.json", fixture.check(&["--json"]).stdout);
    let triaged: Report = json_of(&triage(&file, &["--client", "besu", "--json"]));
    let size = finding(&triaged, "NC510", "triage --client besu");
    assert_contains(&text(size), "name them: `--cl NAME --history MODE`");
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
    let out = run(["check", "--cl", "grandine-typo", "--bench", "none"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("lighthouse"), "{}", stderr(&out));
}

/// A client of the other kind is named as such, with the option to use instead.
#[test]
fn a_client_given_to_the_wrong_option_says_which_option_takes_it() {
    let out = run(["check", "--cl", "geth", "--bench", "none"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_contains(
        &stderr(&out),
        "`geth` is an execution client: name it with --client",
    );
    let out = run(["check", "--client", "lighthouse", "--bench", "none"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_contains(
        &stderr(&out),
        "`lighthouse` is a consensus client: name it with --cl",
    );
}

/// Client names are accepted in any case, as people write them.
#[test]
fn client_names_are_accepted_in_any_case() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let report: Report =
        json_of(&fixture.check(&["--client", "Geth", "--cl", "LightHouse", "--json"]));
    assert_eq!(report.client.requested.as_deref(), Some("geth"));
    assert_eq!(report.client.consensus.as_deref(), Some("lighthouse"));
}

/// `--history` and `--cl-mode` reach the size projection and the report.
#[test]
fn history_and_consensus_modes_reach_the_size_finding() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let args = [
        "--client",
        "reth",
        "--cl",
        "lighthouse",
        "--history",
        "post-merge",
        "--cl-mode",
        "supernode",
        "--json",
    ];
    let report: Report = json_of(&fixture.check(&args));
    assert_eq!(report.client.history.as_deref(), Some("post-merge"));
    assert_eq!(report.client.consensus_mode.as_deref(), Some("supernode"));
    let size = finding(&report, "NC510", "reth post-merge + lighthouse supernode");
    assert_contains(&size.detail, "Reth with post-merge history");
    assert_contains(&size.detail, "Lighthouse as a supernode about 935 GB");
    // `pruned` is another word for post-merge history expiry.
    let pruned: Report =
        json_of(&fixture.check(&["--client", "reth", "--history", "pruned", "--json"]));
    assert_eq!(pruned.client.history.as_deref(), Some("post-merge"));
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
