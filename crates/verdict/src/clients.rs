//! What each Ethereum execution client needs from its storage, what a consensus client adds on
//! the same disk, as published by the client teams (data/clients.toml, sourced from
//! docs/sources/ethereum-node-storage-facts.md), and the list's own sizing advice.

use serde::Serialize;

/// The published storage requirements of one execution client.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientNeeds {
    /// Lower-case key used by `--client` (`geth`, `nethermind`, `besu`, `erigon`, `reth`).
    pub name: String,
    /// Name as the client team writes it (`Nethermind`).
    pub display: String,
    /// Smallest drive the client documentation calls workable.
    pub min_disk_bytes: u64,
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
            combined.min_disk_bytes = combined.min_disk_bytes.max(client.min_disk_bytes);
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

    /// True when a drive of `capacity_bytes` meets the documented minimum.
    pub fn disk_fits(&self, capacity_bytes: u64) -> bool {
        capacity_bytes >= self.min_disk_bytes
    }
}

/// What a consensus client adds on the disk it shares with the execution client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsensusNeeds {
    /// Lower-case key used by `--cl` (`lighthouse`, `prysm`, `teku`, `nimbus`, `lodestar`).
    pub name: String,
    pub display: String,
    /// Space its beacon database takes, blob sidecars included.
    pub database_bytes: u64,
    /// Drive size the client's documentation recommends for a node (execution and consensus
    /// client on one drive), when it gives one.
    pub node_disk_bytes: Option<u64>,
    pub notes: String,
    pub sources: Vec<String>,
}

/// The community list's sizing advice beyond any one client's documentation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sizing {
    /// The size the list calls the conservative choice.
    pub conservative_disk_bytes: u64,
    pub text: String,
    pub sources: Vec<String>,
}

impl ClientNeeds {
    /// The needs of this execution client and `consensus` on one disk: the larger of the two
    /// recommended drives (a consensus client's documentation sizes the drive for the whole
    /// node), and the free space both databases take during a sync. The minimum drive stays
    /// the execution client's: consensus documentation recommends, it sets no minimum.
    pub fn paired_with(&self, consensus: &ConsensusNeeds) -> ClientNeeds {
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
            min_free_bytes: self.min_free_bytes.saturating_add(consensus.database_bytes),
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
            min_disk_bytes: disk,
            recommended_disk_bytes: disk * 2,
            min_free_bytes: disk / 2,
            min_read_iops: read,
            min_write_iops: None,
            max_qd1_read_p99_us: p99,
            notes: String::new(),
            sources: vec![format!("{name}-docs")],
        }
    }

    #[test]
    fn strictest_takes_the_most_demanding_figure_of_each_kind() {
        let a = client("a", 1_000, Some(10_000), Some(500.0));
        let b = client("b", 2_000, None, Some(300.0));
        let combined = ClientNeeds::strictest([&a, &b]).expect("two clients");
        assert_eq!(combined.name, "strictest");
        assert_eq!(combined.min_disk_bytes, 2_000);
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
            database_bytes: 200,
            node_disk_bytes: Some(4_000),
            notes: "cl".into(),
            sources: vec!["geth-docs".into(), "lodestar-docs".into()],
        };
        let pair = geth.paired_with(&cl);
        assert_eq!(pair.name, "geth");
        assert_eq!(pair.display, "GETH + Lodestar");
        assert_eq!(pair.min_disk_bytes, 2_000);
        assert_eq!(pair.recommended_disk_bytes, 4_000);
        assert_eq!(pair.min_free_bytes, 1_000 + 200);
        assert_eq!(pair.sources, ["geth-docs", "lodestar-docs"]);
        let small = ConsensusNeeds {
            node_disk_bytes: None,
            ..cl
        };
        let pair = geth.paired_with(&small);
        assert_eq!(pair.min_disk_bytes, 2_000);
        assert_eq!(pair.recommended_disk_bytes, 4_000);
    }

    #[test]
    fn strictest_of_one_is_that_client_and_of_none_is_none() {
        let a = client("a", 1_000, Some(10_000), None);
        assert_eq!(ClientNeeds::strictest([&a]), Some(a.clone()));
        assert_eq!(ClientNeeds::strictest(std::iter::empty()), None);
    }
}
