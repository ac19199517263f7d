//! Finds an execution client's data directory when the user gave no PATH.
//!
//! Looks at the five clients' default locations and at eth-docker's Docker volumes; the first
//! that exists wins and the user is told which one (and which others were seen).

use std::path::{Path, PathBuf};

use crate::config::ClientName;

/// A data directory found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub path: PathBuf,
    /// The client whose default location this is, when the location says.
    pub client: Option<ClientName>,
    /// Other candidates that also exist, so the user can pick one explicitly.
    pub others: Vec<PathBuf>,
}

/// Candidate locations in the order they are tried, with the client (its catalog name) whose
/// default each is. `home` entries are relative to each home directory, the rest to the
/// file-system root.
const HOME_CANDIDATES: [(&str, &str); 4] = [
    (".ethereum", "geth"),
    (".local/share/reth", "reth"),
    (".local/share/erigon", "erigon"),
    (".nethermind", "nethermind"),
];

const SYSTEM_CANDIDATES: [(&str, &str); 7] = [
    ("var/lib/geth", "geth"),
    ("var/lib/goethereum", "geth"),
    ("var/lib/nethermind", "nethermind"),
    ("var/lib/besu", "besu"),
    ("var/lib/erigon", "erigon"),
    ("var/lib/reth", "reth"),
    ("var/lib/ethereum", "geth"),
];

/// Home directories to search: the caller's, and under sudo the invoking user's (whose
/// `~/.ethereum` is the one they mean).
pub fn home_dirs() -> Vec<PathBuf> {
    let mut homes = Vec::new();
    if let Some(home) = std::env::var_os("HOME") {
        homes.push(PathBuf::from(home));
    }
    if let Ok(user) = std::env::var("SUDO_USER") {
        if !user.is_empty() && !user.contains('/') {
            let home = PathBuf::from("/home").join(user);
            if !homes.contains(&home) {
                homes.push(home);
            }
        }
    }
    homes
}

/// Looks for a datadir under `fs_root` (`/` normally; a temporary tree in tests).
pub fn detect(fs_root: &Path, homes: &[PathBuf]) -> Option<Detected> {
    let mut found: Vec<(PathBuf, Option<ClientName>)> = Vec::new();
    for home in homes {
        let home = fs_root.join(home.strip_prefix("/").unwrap_or(home));
        for (rel, client) in HOME_CANDIDATES {
            let path = home.join(rel);
            if path.is_dir() {
                found.push((path, ClientName::named(client)));
            }
        }
    }
    for (rel, client) in SYSTEM_CANDIDATES {
        let path = fs_root.join(rel);
        if path.is_dir() {
            found.push((path, ClientName::named(client)));
        }
    }
    found.extend(docker_volumes(&fs_root.join("var/lib/docker/volumes")));
    found.dedup_by(|a, b| a.0 == b.0);
    let mut iter = found.into_iter();
    let (path, client) = iter.next()?;
    Some(Detected {
        path,
        client,
        others: iter.map(|(p, _)| p).collect(),
    })
}

/// eth-docker (and compose set-ups like it) keep each client's data in a named volume such as
/// `eth-docker_nethermind-el-data`; the data itself is in its `_data` directory.
fn docker_volumes(volumes: &Path) -> Vec<(PathBuf, Option<ClientName>)> {
    let Ok(entries) = std::fs::read_dir(volumes) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut found = Vec::new();
    for name in names {
        let lower = name.to_ascii_lowercase();
        let Some(client) = ClientName::all().find(|c| lower.contains(c.id())) else {
            continue;
        };
        let data = volumes.join(&name).join("_data");
        if data.is_dir() {
            found.push((data, Some(client)));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_names_a_client_of_the_catalog() {
        for (path, client) in HOME_CANDIDATES.iter().chain(&SYSTEM_CANDIDATES) {
            assert!(ClientName::named(client).is_some(), "{path}: {client}");
        }
    }

    #[test]
    fn nothing_found_on_an_empty_machine() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(detect(dir.path(), &[PathBuf::from("/home/op")]), None);
    }

    #[test]
    fn home_default_wins_and_others_are_listed() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home/op/.ethereum")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("var/lib/nethermind")).expect("mkdir");
        let found = detect(dir.path(), &[PathBuf::from("/home/op")]).expect("found");
        assert_eq!(found.path, dir.path().join("home/op/.ethereum"));
        assert_eq!(found.client, ClientName::named("geth"));
        assert_eq!(found.others, vec![dir.path().join("var/lib/nethermind")]);
    }

    #[test]
    fn eth_docker_volume() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vols = dir.path().join("var/lib/docker/volumes");
        std::fs::create_dir_all(vols.join("eth-docker_reth-el-data/_data")).expect("mkdir");
        std::fs::create_dir_all(vols.join("eth-docker_lhconsensus-data/_data")).expect("mkdir");
        let found = detect(dir.path(), &[]).expect("found");
        assert_eq!(found.path, vols.join("eth-docker_reth-el-data/_data"));
        assert_eq!(found.client, ClientName::named("reth"));
    }
}
