//! What each Ethereum execution client needs from its storage, what a consensus client adds on
//! the same disk, as published by the client teams (data/clients.toml, sourced from
//! docs/sources/ethereum-node-storage-facts.md), and the list's own sizing advice.
//!
//! [`ClientCatalog`] is the one list of clients: the command line accepts its names, the judge
//! applies its needs, and the running-client check recognises processes by its names.

use serde::{Deserialize, Serialize};

pub use crate::storage_figures::{year_month, ConsensusMode, HistoryMode, StorageFigure};

/// Everything `data/clients.toml` holds but its sources (which join the database's), checked
/// at load. The database owns the catalog it was loaded with; `ClientCatalog::embedded` is
/// the embedded file for callers without a database (the command line's names).
#[derive(Debug, Clone, Default)]
pub struct ClientCatalog {
    /// Execution clients, in file order.
    pub execution: Vec<ClientNeeds>,
    /// Consensus clients, in file order.
    pub consensus: Vec<ConsensusNeeds>,
    pub sizing: Option<Sizing>,
}

impl ClientCatalog {
    /// The `--client` names: one per execution client.
    pub fn execution_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.execution.iter().map(|c| c.name.as_str())
    }

    /// The `--cl` names: one per consensus client.
    pub fn consensus_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.consensus.iter().map(|c| c.name.as_str())
    }

    /// Each execution client's name with how its running process is recognised, in the
    /// order of `clients`.
    pub fn process_names(&self) -> impl Iterator<Item = (&str, &ProcessNames)> + '_ {
        self.execution.iter().map(|c| (c.name.as_str(), &c.process))
    }
}

/// How a running process of one execution client is recognised. Every name is lower case and
/// compared case-insensitively. Read from a client's `process` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessNames {
    /// Names the program runs as: its `comm`, or the file name of its argv\[0\].
    pub names: Vec<String>,
    /// Beginnings of such names, for programs whose name varies (`Nethermind.Runner`; `comm`
    /// is cut at 15 characters).
    #[serde(default)]
    pub name_prefixes: Vec<String>,
    /// Text in an argument of a `java` or `dotnet` launcher that names the client's main
    /// class or assembly (`org.hyperledger.besu`).
    #[serde(default)]
    pub launcher_arguments: Vec<String>,
}

/// The published storage requirements of one execution client, and how its process is
/// recognised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientNeeds {
    /// Lower-case key used by `--client` (`geth`, `nethermind`, `besu`, `erigon`, `reth`).
    pub name: String,
    /// Name as the client team writes it (`Nethermind`).
    pub display: String,
    /// Drive size the client documentation (or the community list) recommends.
    pub recommended_disk_bytes: u64,
    /// Free space a fresh sync needs on the data directory's file system.
    pub min_free_bytes: u64,
    /// Minimum 4k random read IOPS, when the client publishes one.
    pub min_read_iops: Option<u32>,
    /// Minimum 4k random write IOPS, when the client publishes one.
    pub min_write_iops: Option<u32>,
    /// Highest acceptable QD1 4k random read latency (99th percentile), when published.
    pub max_qd1_read_p99_us: Option<f64>,
    pub notes: String,
    /// Source ids (see `Database::sources`).
    pub sources: Vec<String>,
    /// The history mode the client runs in when started without a flag that says otherwise.
    pub default_history: HistoryMode,
    /// What the client's database takes in each history mode it offers, and how fast it grows.
    /// A combination of clients keeps the first one's: the size check projects each client
    /// on its own (see `findings::capacity::runways`).
    pub history: Vec<StorageFigure<HistoryMode>>,
    /// How its running process is recognised; a combination of clients keeps the first
    /// one's. Reports show requirements only.
    #[serde(skip_serializing)]
    pub process: ProcessNames,
}

impl ClientNeeds {
    /// The client's figure for `mode`, when it offers that mode.
    pub fn figure(&self, mode: HistoryMode) -> Option<&StorageFigure<HistoryMode>> {
        self.history.iter().find(|f| f.mode == mode)
    }
}

impl ConsensusNeeds {
    /// The client's figure for `mode`, when the data file has one.
    pub fn figure(&self, mode: ConsensusMode) -> Option<&StorageFigure<ConsensusMode>> {
        self.storage.iter().find(|f| f.mode == mode)
    }

    /// What its database takes in the default mode (0 when the file has no such figure,
    /// which loading rejects).
    pub fn default_database_bytes(&self) -> u64 {
        self.figure(ConsensusMode::Default)
            .map_or(0, |f| f.disk_bytes)
    }
}

impl ClientNeeds {
    /// The combination that satisfies every client given: the largest size and free-space
    /// figures, the highest IOPS floors and the lowest latency ceiling. Used when the operator
    /// has not said which client will run (or runs several on one volume). `None` when
    /// `clients` is empty.
    pub fn strictest<'a, I>(clients: I) -> Option<ClientNeeds>
    where
        I: IntoIterator<Item = &'a ClientNeeds>,
    {
        let mut iter = clients.into_iter();
        let first = iter.next()?;
        let mut names = vec![first.name.clone()];
        let mut displays = vec![first.display.clone()];
        let mut combined = first.clone();
        let mut sources = first.sources.clone();
        for client in iter {
            names.push(client.name.clone());
            displays.push(client.display.clone());
            combined.recommended_disk_bytes = combined
                .recommended_disk_bytes
                .max(client.recommended_disk_bytes);
            combined.min_free_bytes = combined.min_free_bytes.max(client.min_free_bytes);
            combined.min_read_iops = max_option(combined.min_read_iops, client.min_read_iops);
            combined.min_write_iops = max_option(combined.min_write_iops, client.min_write_iops);
            combined.max_qd1_read_p99_us =
                min_option_f64(combined.max_qd1_read_p99_us, client.max_qd1_read_p99_us);
            for source in &client.sources {
                if !sources.contains(source) {
                    sources.push(source.clone());
                }
            }
        }
        if names.len() > 1 {
            combined.name = "strictest".to_string();
            combined.display = format!("strictest of {}", displays.join(", "));
            combined.notes = format!(
                "Combined requirements of {}: each figure is the most demanding one.",
                names.join(", ")
            );
        }
        combined.sources = sources;
        Some(combined)
    }
}

/// What a consensus client adds on the disk it shares with the execution client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsensusNeeds {
    /// Lower-case key used by `--cl` (`lighthouse`, `prysm`, `teku`, `nimbus`, `lodestar`).
    pub name: String,
    pub display: String,
    /// Drive size the client's documentation recommends for a node (execution and consensus
    /// client on one drive), when it gives one.
    pub node_disk_bytes: Option<u64>,
    pub notes: String,
    pub sources: Vec<String>,
    /// What its database takes in each mode, blob sidecars included.
    pub storage: Vec<StorageFigure<ConsensusMode>>,
}

/// The community list's sizing advice beyond any one client's documentation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sizing {
    /// The size the list calls the conservative choice.
    pub conservative_disk_bytes: u64,
    /// Below this many months of growth left, the size finding warns.
    pub min_months_of_growth: u32,
    /// `db-check` fails on a figure older than this many months.
    pub max_figure_age_months: u32,
    pub text: String,
    pub sources: Vec<String>,
}

impl ClientNeeds {
    /// The needs of this execution client and `consensus` (in `mode`) on one disk: the larger
    /// of the two recommended drives (a consensus client's documentation sizes the drive for
    /// the whole node), and the free space both databases take during a sync. The history
    /// figures stay the execution client's; the size check adds the consensus client's own.
    pub fn paired_with(&self, consensus: &ConsensusNeeds, mode: ConsensusMode) -> ClientNeeds {
        let database = consensus
            .figure(mode)
            .or(consensus.figure(ConsensusMode::Default))
            .map_or(0, |f| f.disk_bytes);
        let node_disk = consensus.node_disk_bytes.unwrap_or(0);
        let mut sources = self.sources.clone();
        for source in &consensus.sources {
            if !sources.contains(source) {
                sources.push(source.clone());
            }
        }
        ClientNeeds {
            name: self.name.clone(),
            display: format!("{} + {}", self.display, consensus.display),
            recommended_disk_bytes: self.recommended_disk_bytes.max(node_disk),
            min_free_bytes: self.min_free_bytes.saturating_add(database),
            notes: format!("{} {}", self.notes, consensus.notes),
            sources,
            ..self.clone()
        }
    }
}

fn max_option(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn min_option_f64(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(name: &str, disk: u64, read: Option<u32>, p99: Option<f64>) -> ClientNeeds {
        ClientNeeds {
            name: name.to_string(),
            display: name.to_uppercase(),
            recommended_disk_bytes: disk * 2,
            min_free_bytes: disk / 2,
            min_read_iops: read,
            min_write_iops: None,
            max_qd1_read_p99_us: p99,
            notes: String::new(),
            sources: vec![format!("{name}-docs")],
            default_history: HistoryMode::Full,
            history: vec![figure(HistoryMode::Full, disk, 10)],
            process: ProcessNames {
                names: vec![name.to_string()],
                name_prefixes: Vec::new(),
                launcher_arguments: Vec::new(),
            },
        }
    }

    fn figure<M>(mode: M, disk: u64, growth: u64) -> StorageFigure<M> {
        StorageFigure {
            mode,
            disk_bytes: disk,
            growth_bytes_per_month: growth,
            as_of: "2026-01".into(),
            how: "measured".into(),
            sources: vec!["docs".into()],
        }
    }

    #[test]
    fn strictest_takes_the_most_demanding_figure_of_each_kind() {
        let a = client("a", 1_000, Some(10_000), Some(500.0));
        let b = client("b", 2_000, None, Some(300.0));
        let combined = ClientNeeds::strictest([&a, &b]).expect("two clients");
        assert_eq!(combined.name, "strictest");
        assert_eq!(combined.recommended_disk_bytes, 4_000);
        assert_eq!(combined.min_free_bytes, 1_000);
        assert_eq!(combined.min_read_iops, Some(10_000));
        assert_eq!(combined.max_qd1_read_p99_us, Some(300.0));
        assert_eq!(
            combined.sources,
            vec!["a-docs".to_string(), "b-docs".to_string()]
        );
    }

    #[test]
    fn a_pair_needs_the_larger_drive_and_both_databases_free() {
        let geth = client("geth", 2_000, None, None);
        let cl = ConsensusNeeds {
            name: "lodestar".into(),
            display: "Lodestar".into(),
            node_disk_bytes: Some(4_000),
            notes: "cl".into(),
            sources: vec!["geth-docs".into(), "lodestar-docs".into()],
            storage: vec![
                figure(ConsensusMode::Default, 200, 0),
                figure(ConsensusMode::Supernode, 900, 0),
            ],
        };
        let pair = geth.paired_with(&cl, ConsensusMode::Default);
        assert_eq!(pair.name, "geth");
        assert_eq!(pair.display, "GETH + Lodestar");
        assert_eq!(pair.history, geth.history);
        assert_eq!(pair.recommended_disk_bytes, 4_000);
        assert_eq!(pair.min_free_bytes, 1_000 + 200);
        assert_eq!(pair.sources, ["geth-docs", "lodestar-docs"]);
        let supernode = geth.paired_with(&cl, ConsensusMode::Supernode);
        assert_eq!(supernode.min_free_bytes, 1_000 + 900);
        let small = ConsensusNeeds {
            node_disk_bytes: None,
            ..cl
        };
        let pair = geth.paired_with(&small, ConsensusMode::Default);
        assert_eq!(pair.recommended_disk_bytes, 4_000);
    }

    #[test]
    fn the_embedded_catalog_lists_every_client_with_a_process_name() {
        let catalog = ClientCatalog::embedded();
        let execution: Vec<&str> = catalog.execution_names().collect();
        assert_eq!(execution, ["geth", "nethermind", "besu", "erigon", "reth"]);
        let consensus: Vec<&str> = catalog.consensus_names().collect();
        assert_eq!(
            consensus,
            ["lighthouse", "prysm", "teku", "nimbus", "lodestar"]
        );
        let processes: Vec<&str> = catalog.process_names().map(|(client, _)| client).collect();
        assert_eq!(processes, execution);
        let (_, besu) = catalog.process_names().nth(2).expect("a third client");
        assert_eq!(besu.names, ["besu"]);
        assert_eq!(besu.launcher_arguments, ["org.hyperledger.besu"]);
    }

    #[test]
    fn a_catalog_that_cannot_be_true_does_not_load() {
        let embedded = crate::database::EMBEDDED_CLIENTS;
        let cases = [
            (
                embedded.replace("process = { names = [\"reth\"] }\n", ""),
                "missing field `process`",
            ),
            (
                embedded.replace("names = [\"reth\"]", "names = []"),
                "client `reth`: process needs at least one name",
            ),
            (
                embedded.replace("names = [\"geth\"]", "names = [\"Geth\"]"),
                "process name `Geth` is not lower case",
            ),
            (
                embedded.replacen(
                    "min_free_bytes = 1_000_000_000_000",
                    "min_free_bytes = 3_000_000_000_000",
                    1,
                ),
                "client `geth`: min_free_bytes exceeds the recommended disk size",
            ),
            (
                embedded.replacen("mode = \"post-merge\"", "mode = \"full\"", 1),
                "client `geth`: two figures for history mode `full`",
            ),
            (
                embedded
                    .replacen(
                        "default_history = \"archive\"",
                        "default_history = \"full\"",
                        1,
                    )
                    .replacen(
                        "mode = \"full\"\ndisk_bytes = 1_979",
                        "mode = \"archive\"\ndisk_bytes = 1_979",
                        1,
                    ),
                "client `reth`: no figure for the `full` mode it runs in by default",
            ),
            (
                embedded.replacen(
                    "mode = \"full\"\ndisk_bytes = 1_979",
                    "mode = \"archive\"\ndisk_bytes = 1_979",
                    1,
                ),
                "client `reth`: two figures for history mode `archive`",
            ),
            (
                embedded.replacen("as_of = \"2026\"", "as_of = \"last year\"", 1),
                "client `geth`: as_of `last year` is not a date",
            ),
            (
                embedded.replacen("mode = \"default\"", "mode = \"supernode\"", 1),
                "consensus client `lighthouse`: no figure for the `default` mode",
            ),
            (
                embedded.replacen("min_read_iops = 10000", "min_read_iops = 0", 1),
                "client `nethermind`: an IOPS floor of 0 is no floor",
            ),
            (
                embedded.replace(
                    "node_disk_bytes = 4_000_000_000_000",
                    "node_disk_bytes = 100_000_000_000",
                ),
                "consensus client `lodestar`: node_disk_bytes",
            ),
            (
                embedded.replace("name = \"teku\"", "name = \"reth\""),
                "reth",
            ),
        ];
        for (text, expected) in cases {
            assert_ne!(text, embedded, "the case for `{expected}` changed nothing");
            let err = ClientCatalog::parse(&text, "clients.toml")
                .expect_err(expected)
                .to_string();
            assert!(err.contains(expected), "expected `{expected}` in {err}");
            assert!(err.starts_with("clients.toml:"), "{err}");
        }
    }

    #[test]
    fn a_figure_date_is_a_year_a_month_or_a_day() {
        assert_eq!(year_month("2026"), Some((2026, 1)));
        assert_eq!(year_month("2025-07"), Some((2025, 7)));
        assert_eq!(year_month("2025-07-31"), Some((2025, 7)));
        for bad in [
            "",
            "26",
            "2025-13",
            "2025-00",
            "2025-07-32",
            "2025-07-01-01",
            "soon",
            "1999",
        ] {
            assert_eq!(year_month(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_embedded_client_has_a_figure_for_its_default_mode_and_every_mode_is_known() {
        let catalog = ClientCatalog::embedded();
        for c in &catalog.execution {
            assert!(c.figure(c.default_history).is_some(), "{}", c.name);
            for f in &c.history {
                assert!(year_month(&f.as_of).is_some(), "{}: {}", c.name, f.as_of);
                assert!(
                    f.growth_bytes_per_month > 0,
                    "{}: execution databases grow",
                    c.name
                );
            }
        }
        for c in &catalog.consensus {
            assert!(c.figure(ConsensusMode::Default).is_some(), "{}", c.name);
        }
        let reth = catalog
            .execution
            .iter()
            .find(|c| c.name == "reth")
            .expect("reth");
        assert_eq!(
            reth.default_history,
            HistoryMode::Archive,
            "reth runs archive unless --full"
        );
    }

    #[test]
    fn strictest_of_one_is_that_client_and_of_none_is_none() {
        let a = client("a", 1_000, Some(10_000), None);
        assert_eq!(ClientNeeds::strictest([&a]), Some(a.clone()));
        assert_eq!(ClientNeeds::strictest(std::iter::empty()), None);
    }
}
