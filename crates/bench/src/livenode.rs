//! Live-node awareness: finds running Ethereum execution clients (on the host or in
//! containers) from `/proc`, because benchmarking beside them skews the figures and slows them.

use std::path::Path;

/// The execution clients whose process names are looked for.
pub const CLIENTS: [&str; 5] = ["geth", "nethermind", "besu", "erigon", "reth"];

/// A running client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningClient {
    pub client: &'static str,
    pub pid: u32,
    /// The process runs in a container (its cgroup says docker, containerd, podman or LXC).
    pub container: bool,
}

impl std::fmt::Display for RunningClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (pid {}", self.client, self.pid)?;
        if self.container {
            write!(f, ", in a container")?;
        }
        write!(f, ")")
    }
}

/// Scans `proc_root` (normally `/proc`) for running clients, skipping `own_pid`. Unreadable or
/// vanished processes are skipped: the scan races with processes exiting.
pub fn scan(proc_root: &Path, own_pid: u32) -> Vec<RunningClient> {
    let Ok(entries) = std::fs::read_dir(proc_root) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == own_pid {
            continue;
        }
        let dir = entry.path();
        let comm = read_lossy(&dir.join("comm"));
        let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
        let Some(client) = identify(comm.trim_end(), &cmdline) else {
            continue;
        };
        let cgroup = read_lossy(&dir.join("cgroup"));
        found.push(RunningClient {
            client,
            pid,
            container: in_container(&cgroup),
        });
    }
    found.sort_by_key(|c| c.pid);
    found
}

fn read_lossy(path: &Path) -> String {
    // Bounded: comm is 16 bytes and cgroup a few lines; a hostile file must not exhaust memory.
    use std::io::Read;
    let mut text = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(64 * 1024).read_to_end(&mut text);
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// Which client a process is, from its `comm` and NUL-separated `cmdline`. Only the program
/// itself counts (argv[0] or the interpreter's main class/assembly), so `tail -f geth.log` or an
/// editor on `reth.toml` is not a node.
pub fn identify(comm: &str, cmdline: &[u8]) -> Option<&'static str> {
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(String::from_utf8_lossy);
    let argv0 = args.next().map(|a| basename(&a).to_ascii_lowercase());
    for client in CLIENTS {
        if comm.eq_ignore_ascii_case(client) || argv0.as_deref() == Some(client) {
            return Some(client);
        }
    }
    // Nethermind runs as `Nethermind.Runner` (or under `dotnet`); Besu is a Java program whose
    // comm is `java` and whose launcher names the main class.
    if comm.starts_with("Nethermind")
        || argv0
            .as_deref()
            .is_some_and(|a| a.starts_with("nethermind"))
    {
        return Some("nethermind");
    }
    let interpreter = argv0.as_deref().unwrap_or_default();
    if interpreter == "java" || interpreter == "dotnet" || comm == "java" || comm == "dotnet" {
        for arg in args {
            let arg = arg.to_ascii_lowercase();
            if arg.contains("org.hyperledger.besu") {
                return Some("besu");
            }
            if basename(&arg).starts_with("nethermind") {
                return Some("nethermind");
            }
        }
    }
    None
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn in_container(cgroup: &str) -> bool {
    [
        "docker",
        "containerd",
        "libpod",
        "podman",
        "/lxc",
        "kubepods",
    ]
    .iter()
    .any(|marker| cgroup.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(root: &Path, pid: u32, comm: &str, cmdline: &[&str], cgroup: &str) {
        let dir = root.join(pid.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("comm"), format!("{comm}\n")).unwrap();
        let mut bytes = Vec::new();
        for arg in cmdline {
            bytes.extend_from_slice(arg.as_bytes());
            bytes.push(0);
        }
        std::fs::write(dir.join("cmdline"), bytes).unwrap();
        std::fs::write(dir.join("cgroup"), cgroup).unwrap();
    }

    #[test]
    fn finds_clients_on_the_host_and_in_containers() {
        let root = tempfile::tempdir().unwrap();
        let host = "0::/system.slice/geth.service\n";
        let docker = "0::/system.slice/docker-3f2a9c.scope\n";
        process(
            root.path(),
            101,
            "geth",
            &["/usr/bin/geth", "--datadir", "/data"],
            host,
        );
        process(root.path(), 102, "reth", &["reth", "node"], docker);
        process(
            root.path(),
            103,
            "java",
            &[
                "java",
                "-cp",
                "/opt/besu/lib/*",
                "org.hyperledger.besu.Besu",
            ],
            docker,
        );
        process(
            root.path(),
            104,
            "Nethermind.Runn",
            &["./Nethermind.Runner", "--config", "mainnet"],
            host,
        );
        process(root.path(), 105, "erigon", &["erigon"], host);
        // Not nodes: a log reader, an editor, a shell, ourselves.
        process(
            root.path(),
            201,
            "tail",
            &["tail", "-f", "/var/log/geth.log"],
            host,
        );
        process(root.path(), 202, "vim", &["vim", "reth.toml"], host);
        process(root.path(), 203, "bash", &["bash"], host);
        process(root.path(), 204, "geth", &["geth"], host);
        std::fs::create_dir_all(root.path().join("self")).unwrap();

        let found = scan(root.path(), 204);
        let summary: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            summary,
            [
                "geth (pid 101)",
                "reth (pid 102, in a container)",
                "besu (pid 103, in a container)",
                "nethermind (pid 104)",
                "erigon (pid 105)",
            ]
        );
    }

    #[test]
    fn hostile_proc_entries_are_skipped() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("300");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("comm"), [0xff, 0xfe, b'\n']).unwrap();
        std::fs::write(dir.join("cmdline"), vec![0u8; 100]).unwrap();
        std::fs::create_dir_all(root.path().join("301")).unwrap();
        assert!(scan(root.path(), 1).is_empty());
        assert!(scan(&root.path().join("missing"), 1).is_empty());
        assert_eq!(identify("", &[]), None);
    }

    proptest::proptest! {
        #[test]
        fn identify_never_panics(comm in "\\PC{0,20}", cmdline in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let _ = identify(&comm, &cmdline);
        }
    }
}
