//! NC510: how many months the drive lasts for a pair of clients in a history mode, from the
//! sourced figures of `data/clients.toml`.

use super::*;
use verdict::{judge_choice, ClientChoice, ConsensusMode, HistoryMode, NodeChoice};

/// A drive of `capacity` bytes with no file system facts, as `triage` of a smartctl report
/// sees it: the room is the drive less the databases.
fn bare_drive(capacity: u64) -> probe::Facts {
    let mut facts = nvme_machine();
    facts.mount = None;
    drive0(&mut facts).capacity_bytes = Some(capacity);
    facts
}

fn choice(
    client: &str,
    consensus: Option<&str>,
    history: Option<HistoryMode>,
    mode: ConsensusMode,
) -> NodeChoice {
    NodeChoice {
        client: ClientChoice::Named(client.into()),
        consensus: consensus.map(str::to_owned),
        history,
        consensus_mode: mode,
    }
}

fn judge(facts: &probe::Facts, choice: &NodeChoice) -> verdict::Verdict {
    judge_choice(facts, None, db(), choice)
}

/// Every execution client with every consensus client in both its modes, in every history mode it has a
/// figure for, at the boundaries: 13 months of growth left is enough, 11 months warns, a
/// byte short of today's databases is critical.
#[test]
fn nc510_projects_every_client_pair_and_mode_at_its_boundaries() {
    let db = db();
    let mut checked = 0;
    let pairs = db
        .clients
        .execution
        .iter()
        .flat_map(|c| db.clients.consensus.iter().map(move |cl| (c, cl)));
    for (client, consensus) in pairs {
        for figure in &client.history {
            for mode in [ConsensusMode::Default, ConsensusMode::Supernode] {
                let cl = consensus.figure(mode).expect("a consensus figure per mode");
                let need = figure.disk_bytes + cl.disk_bytes;
                let growth = figure.growth_bytes_per_month + cl.growth_bytes_per_month;
                let node = choice(&client.name, Some(&consensus.name), Some(figure.mode), mode);
                let case = format!(
                    "{} {:?} + {} {:?}",
                    client.name, figure.mode, consensus.name, mode
                );
                for (capacity, severity, title) in [
                    (
                        need + 13 * growth,
                        Severity::Ok,
                        "Room for the node to grow",
                    ),
                    (need + 11 * growth, Severity::Warning, "Fills within a year"),
                    (
                        need - 1_000_000_000,
                        Severity::Critical,
                        "Too small for the node",
                    ),
                ] {
                    let v = judge(&bare_drive(capacity), &node);
                    let f = one_in_case(&case, &v, "NC510");
                    assert_eq!(f.severity, severity, "{case}: {f:#?}");
                    assert_eq!(f.title, title, "{case}");
                    // The figures and their dates are in the finding.
                    assert!(f.detail.contains(&figure.as_of), "{case}: {}", f.detail);
                    assert!(f.detail.contains(&client.display), "{case}: {}", f.detail);
                    assert!(
                        f.detail.contains(&consensus.display),
                        "{case}: {}",
                        f.detail
                    );
                    if severity == Severity::Ok {
                        assert!(f.detail.contains("about 13 months"), "{case}: {}", f.detail);
                        assert!(f.fix.is_none(), "{case}");
                    } else {
                        assert!(f
                            .fix
                            .as_deref()
                            .is_some_and(|x| x.contains("Use a drive of")));
                    }
                    if severity == Severity::Warning {
                        assert!(f.detail.contains("about 11 months"), "{case}: {}", f.detail);
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(
        checked,
        5 * 5 * 3 * 2 * 3,
        "five execution and five consensus clients, three history modes, two consensus modes, three sizes"
    );
}

/// The case: a 2 TB Samsung 990 PRO for Reth with Lighthouse, full history, as
/// `triage` of its smartctl report sees it, is no longer "big enough", and says why.
#[test]
fn nc510_a_2tb_drive_does_not_hold_reth_and_lighthouse_with_full_history() {
    let facts = bare_drive(2_000_398_934_016);
    let node = choice(
        "reth",
        Some("lighthouse"),
        Some(HistoryMode::Full),
        ConsensusMode::Default,
    );
    let v = judge(&facts, &node);
    let f = one(&v, "NC510");
    assert_eq!(f.severity, Severity::Critical, "{f:#?}");
    for needle in [
        "Reth + Lighthouse: Reth with full history",
        "2 TB",
        "less than they take today",
        "4 TB the conservative size",
    ] {
        assert!(f.detail.contains(needle), "{needle}: {}", f.detail);
    }
    assert_eq!(v.grade, Grade::Bad);
    // Its own default is an archive node: larger still, and said to be the default.
    let node = choice("reth", Some("lighthouse"), None, ConsensusMode::Default);
    let f = one(&judge(&facts, &node), "NC510").clone();
    assert!(
        f.detail.contains("as an archive node (Reth's own default"),
        "{}",
        f.detail
    );
    // A 4 TB drive gets its months of headroom.
    let node = choice(
        "reth",
        Some("lighthouse"),
        Some(HistoryMode::Full),
        ConsensusMode::Default,
    );
    let f = one(&judge(&bare_drive(4_000_787_030_016), &node), "NC510").clone();
    assert_eq!(f.severity, Severity::Ok, "{f:#?}");
    assert!(f.detail.contains("years)"), "{}", f.detail);
    assert!(
        !f.detail.contains("conservative"),
        "a 4 TB drive is the conservative size: {}",
        f.detail
    );
}

/// Post-merge history expiry roughly halves the database: the same 2 TB drive then holds
/// Reth for years.
#[test]
fn nc510_post_merge_history_fits_where_full_history_does_not() {
    let facts = bare_drive(2_000_398_934_016);
    let node = choice(
        "reth",
        Some("lighthouse"),
        Some(HistoryMode::PostMerge),
        ConsensusMode::Default,
    );
    let f = one(&judge(&facts, &node), "NC510").clone();
    assert_eq!(f.severity, Severity::Ok, "{f:#?}");
    assert!(f.detail.contains("post-merge history"), "{}", f.detail);
}

/// A supernode's blob sidecars are counted.
#[test]
fn nc510_a_supernode_needs_hundreds_of_gb_more() {
    let facts = bare_drive(2_000_398_934_016);
    let node = choice(
        "geth",
        Some("lighthouse"),
        Some(HistoryMode::PostMerge),
        ConsensusMode::Default,
    );
    let normal = one(&judge(&facts, &node), "NC510").clone();
    let node = NodeChoice {
        consensus_mode: ConsensusMode::Supernode,
        ..node
    };
    let supernode = one(&judge(&facts, &node), "NC510").clone();
    assert!(
        supernode.detail.contains("as a supernode about 935 GB"),
        "{}",
        supernode.detail
    );
    assert!(
        supernode.severity > normal.severity,
        "{normal:#?} {supernode:#?}"
    );
}

/// With no client named, every client is judged in its own default and the one that runs
/// out first is named; the shortfall may be another client's than the user's, so it informs
/// while some client lasts a year here, and warns only when none does.
#[test]
fn nc510_without_a_client_names_the_one_that_fails_first() {
    let strictest = NodeChoice::new(ClientChoice::Strictest, None);
    let v = judge_choice(&bare_drive(2_000_398_934_016), None, db(), &strictest);
    let f = one(&v, "NC510");
    assert_eq!(
        f.severity,
        Severity::Info,
        "Erigon lasts a year on 2 TB: {f:#?}"
    );
    assert_eq!(f.title, "Too small for the most demanding client");
    assert_eq!(
        v.failing_client, None,
        "an informed shortfall fails no client"
    );
    assert!(
        f.detail.contains("No client was named or detected"),
        "{}",
        f.detail
    );
    assert!(
        f.detail
            .contains("Reth (the client that runs out of room first)"),
        "{}",
        f.detail
    );
    // 1.5 TB holds Erigon's full node, but not for a year: a warning.
    let v = judge_choice(&bare_drive(1_500_000_000_000), None, db(), &strictest);
    let f = one(&v, "NC510");
    assert_eq!(f.severity, Severity::Warning, "{f:#?}");
    assert_eq!(v.grade, Grade::Ugly);
    assert_eq!(
        v.failing_client.as_deref(),
        Some("reth"),
        "Reth's default archive is largest"
    );
    // 1 TB holds no client's default database with a consensus client: critical.
    let v = judge_choice(&bare_drive(1_000_204_886_016), None, db(), &strictest);
    let f = one(&v, "NC510");
    assert_eq!(f.severity, Severity::Critical, "{f:#?}");
    assert_eq!(f.title, "Too small for any client");
    assert_eq!(v.grade, Grade::Bad);
}

/// A file system that already holds about the node's data is judged by its free space; a
/// fresh one by its free space less the databases still to come.
#[test]
fn nc510_a_drive_in_use_lasts_as_long_as_its_free_space() {
    let node = choice(
        "geth",
        Some("lighthouse"),
        Some(HistoryMode::Full),
        ConsensusMode::Default,
    );
    let geth = db().client("geth").expect("geth");
    let growth = geth
        .figure(HistoryMode::Full)
        .expect("full")
        .growth_bytes_per_month;
    let mut facts = nvme_machine();
    let mount = facts.mount.as_mut().expect("mount");
    // 1.5 TB already used: the node is there; 20 months of growth are free.
    mount.free_bytes = Some(20 * growth);
    mount.total_bytes = Some(1_500 * GB + 20 * growth);
    let f = one(&judge(&facts, &node), "NC510").clone();
    assert_eq!(f.severity, Severity::Ok, "{f:#?}");
    assert!(
        f.detail.contains("taken to be the node's synced data"),
        "{}",
        f.detail
    );
    assert!(f.detail.contains("about 20 months"), "{}", f.detail);
    // The same free space on an empty file system must first take the databases.
    let mount = facts.mount.as_mut().expect("mount");
    mount.total_bytes = Some(20 * growth + 10 * GB);
    let f = one(&judge(&facts, &node), "NC510").clone();
    assert_eq!(f.severity, Severity::Critical, "{f:#?}");
}
