//! Finds an execution client's data directory when the user gave no PATH.
//!
//! Looks at the five clients' default locations and at eth-docker's Docker volumes; the first
//! that exists wins and the user is told which one (and which others were seen). It reads the
//! machine through a [`Root`] like the rest of the probe; the client catalog is the caller's
//! (the verdict crate owns it), so clients are named by their catalog id.

use std::path::{Path, PathBuf};

use crate::root::Root;

/// A data directory found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    /// The directory inside the root.
    pub path: PathBuf,
    /// The catalog id of the client whose default location this is, when the location says.
    pub client: Option<&'static str>,
    /// Other candidates that also exist, so the user can pick one explicitly.
    pub others: Vec<PathBuf>,
}

/// Candidate locations in the order they are tried, with the client (its catalog name) whose
/// default each is. `home` entries are relative to each home directory, the rest to the
/// file-system root.
pub const HOME_CANDIDATES: [(&str, &str); 4] = [
    (".ethereum", "geth"),
    (".local/share/reth", "reth"),
    (".local/share/erigon", "erigon"),
    (".nethermind", "nethermind"),
];

pub const SYSTEM_CANDIDATES: [(&str, &str); 7] = [
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

/// Looks for a datadir under `root`. `clients` are the execution clients' catalog ids, which
/// name eth-docker's volumes.
pub fn detect(root: &Root, homes: &[PathBuf], clients: &[&'static str]) -> Option<Detected> {
    let fs_root = Path::new("/");
    let mut found: Vec<(PathBuf, Option<&'static str>)> = Vec::new();
    for home in homes {
        let home = fs_root.join(home.strip_prefix("/").unwrap_or(home));
        for (rel, client) in HOME_CANDIDATES {
            let path = home.join(rel);
            if root.is_dir(&path) {
                found.push((path, Some(client)));
            }
        }
    }
    for (rel, client) in SYSTEM_CANDIDATES {
        let path = fs_root.join(rel);
        if root.is_dir(&path) {
            found.push((path, Some(client)));
        }
    }
    found.extend(docker_volumes(
        root,
        &fs_root.join("var/lib/docker/volumes"),
        clients,
    ));
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
fn docker_volumes(
    root: &Root,
    volumes: &Path,
    clients: &[&'static str],
) -> Vec<(PathBuf, Option<&'static str>)> {
    let mut found = Vec::new();
    for name in root.read_dir(volumes) {
        let lower = name.to_ascii_lowercase();
        let Some(&client) = clients.iter().find(|id| lower.contains(*id)) else {
            continue;
        };
        let data = volumes.join(&name).join("_data");
        if root.is_dir(&data) {
            found.push((data, Some(client)));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIENTS: [&str; 5] = ["geth", "nethermind", "besu", "erigon", "reth"];

    fn root_at(dir: &tempfile::TempDir) -> Root {
        Root::at(dir.path()).expect("root")
    }

    #[test]
    fn nothing_found_on_an_empty_machine() {
        let dir = tempfile::tempdir().expect("tempdir");
        let found = detect(&root_at(&dir), &[PathBuf::from("/home/op")], &CLIENTS);
        assert_eq!(found, None);
    }

    #[test]
    fn home_default_wins_and_others_are_listed() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home/op/.ethereum")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("var/lib/nethermind")).expect("mkdir");
        let found = detect(&root_at(&dir), &[PathBuf::from("/home/op")], &CLIENTS).expect("found");
        assert_eq!(found.path, Path::new("/home/op/.ethereum"));
        assert_eq!(found.client, Some("geth"));
        assert_eq!(found.others, vec![PathBuf::from("/var/lib/nethermind")]);
    }

    #[test]
    fn a_file_where_a_datadir_would_be_is_not_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("var/lib")).expect("mkdir");
        std::fs::write(dir.path().join("var/lib/geth"), b"").expect("write");
        assert_eq!(detect(&root_at(&dir), &[], &CLIENTS), None);
    }

    #[test]
    fn eth_docker_volume() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vols = dir.path().join("var/lib/docker/volumes");
        std::fs::create_dir_all(vols.join("eth-docker_reth-el-data/_data")).expect("mkdir");
        std::fs::create_dir_all(vols.join("eth-docker_lhconsensus-data/_data")).expect("mkdir");
        let found = detect(&root_at(&dir), &[], &CLIENTS).expect("found");
        assert_eq!(
            found.path,
            Path::new("/var/lib/docker/volumes/eth-docker_reth-el-data/_data")
        );
        assert_eq!(found.client, Some("reth"));
    }
}
