//! Running Ethereum clients, on the host or in containers, from `/proc`: benchmarking beside a
//! node skews the figures and slows the node.
//!
//! Which processes are which client is the caller's data ([`ClientProcess`]): the client
//! catalogue names them, this module only matches them against `comm`, `cmdline` and `cgroup`.

use crate::root::Root;

/// How the processes of one client are recognised. Patterns compare case-insensitively and may
/// begin or end with `*` (any text): `geth`, `Nethermind*` (the runner, and its `comm` cut to 15
/// bytes), `*org.hyperledger.besu*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientProcess {
    /// The client's id (`geth`), as reports name it.
    pub client: String,
    /// The program: the process's `comm`, or the last path component of its `argv[0]`.
    pub programs: Vec<String>,
    /// For clients run by an interpreter (`java`, `dotnet`): an argument's last path component
    /// naming the client's main class or assembly.
    pub interpreted: Vec<String>,
}

/// A running client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningClient {
    pub client: String,
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

/// The processes under `/proc` that are one of `clients`, skipping `own_pid`, in pid order.
/// Unreadable or vanished processes are skipped: the scan races with processes exiting.
pub fn running_clients(root: &Root, clients: &[ClientProcess], own_pid: u32) -> Vec<RunningClient> {
    if clients.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for entry in root.read_dir("/proc") {
        let Ok(pid) = entry.parse::<u32>() else {
            continue;
        };
        if pid == own_pid {
            continue;
        }
        let comm = root
            .read_attr(format!("/proc/{pid}/comm"))
            .unwrap_or_default();
        let cmdline = root
            .read_bytes(format!("/proc/{pid}/cmdline"))
            .unwrap_or_default();
        let Some(client) = identify(clients, &comm, &cmdline) else {
            continue;
        };
        let cgroup = root
            .read_bytes(format!("/proc/{pid}/cgroup"))
            .unwrap_or_default();
        found.push(RunningClient {
            client: client.to_string(),
            pid,
            container: in_container(&String::from_utf8_lossy(&cgroup)),
        });
    }
    found.sort_by_key(|client| client.pid);
    found
}

/// Which of `clients` a process is, from its `comm` and NUL-separated `cmdline`. Only the
/// program itself counts (argv[0] or the interpreter's main class/assembly), so `tail -f
/// geth.log` or an editor on `reth.toml` is not a node.
pub fn identify<'a>(clients: &'a [ClientProcess], comm: &str, cmdline: &[u8]) -> Option<&'a str> {
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|arg| !arg.is_empty())
        .map(String::from_utf8_lossy);
    let argv0 = args.next().map(|arg| basename(&arg).to_ascii_lowercase());
    let comm = comm.trim_end().to_ascii_lowercase();
    let program_matches = |pattern: &String| {
        matches(pattern, &comm)
            || argv0
                .as_deref()
                .is_some_and(|argv0| matches(pattern, argv0))
    };
    if let Some(client) = clients
        .iter()
        .find(|client| client.programs.iter().any(program_matches))
    {
        return Some(&client.client);
    }
    let is_interpreter = |name: &str| name == "java" || name == "dotnet";
    if !is_interpreter(argv0.as_deref().unwrap_or_default()) && !is_interpreter(&comm) {
        return None;
    }
    for arg in args {
        let arg = arg.to_ascii_lowercase();
        let name = basename(&arg);
        if let Some(client) = clients.iter().find(|client| {
            client
                .interpreted
                .iter()
                .any(|pattern| matches(pattern, name))
        }) {
            return Some(&client.client);
        }
    }
    None
}

/// `pattern` (lowercased here; `*` at either end for any text) against lowercase `text`.
fn matches(pattern: &str, text: &str) -> bool {
    let pattern = pattern.to_ascii_lowercase();
    let (any_before, rest) = match pattern.strip_prefix('*') {
        Some(rest) => (true, rest),
        None => (false, pattern.as_str()),
    };
    let (any_after, core) = match rest.strip_suffix('*') {
        Some(core) => (true, core),
        None => (false, rest),
    };
    match (any_before, any_after) {
        (false, false) => text == core,
        (false, true) => text.starts_with(core),
        (true, false) => text.ends_with(core),
        (true, true) => text.contains(core),
    }
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
    use std::path::Path;

    /// The execution clients as a catalogue describes them.
    fn execution_clients() -> Vec<ClientProcess> {
        let client = |id: &str, programs: &[&str], interpreted: &[&str]| ClientProcess {
            client: id.to_string(),
            programs: programs.iter().map(ToString::to_string).collect(),
            interpreted: interpreted.iter().map(ToString::to_string).collect(),
        };
        vec![
            client("geth", &["geth"], &[]),
            client("nethermind", &["nethermind*"], &["nethermind*"]),
            client("besu", &["besu"], &["*org.hyperledger.besu*"]),
            client("erigon", &["erigon"], &[]),
            client("reth", &["reth"], &[]),
        ]
    }

    fn process(root: &Path, pid: u32, comm: &str, cmdline: &[&str], cgroup: &str) {
        let dir = root.join(format!("proc/{pid}"));
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
        let dir = tempfile::tempdir().unwrap();
        let host = "0::/system.slice/geth.service\n";
        let docker = "0::/system.slice/docker-3f2a9c.scope\n";
        let tree = dir.path();
        let processes: [(u32, &str, &[&str], &str); 10] = [
            (101, "geth", &["/usr/bin/geth", "--datadir", "/data"], host),
            (102, "reth", &["reth", "node"], docker),
            (
                103,
                "java",
                &[
                    "java",
                    "-cp",
                    "/opt/besu/lib/*",
                    "org.hyperledger.besu.Besu",
                ],
                docker,
            ),
            (
                104,
                "Nethermind.Runn",
                &["./Nethermind.Runner", "--config", "mainnet"],
                host,
            ),
            (105, "erigon", &["erigon"], host),
            (
                106,
                "dotnet",
                &["dotnet", "/opt/nethermind/Nethermind.Runner.dll"],
                host,
            ),
            // Not nodes: a log reader, an editor, a shell, ourselves.
            (201, "tail", &["tail", "-f", "/var/log/geth.log"], host),
            (202, "vim", &["vim", "reth.toml"], host),
            (203, "bash", &["bash"], host),
            (204, "geth", &["geth"], host),
        ];
        for (pid, comm, argv, cgroup) in processes {
            process(tree, pid, comm, argv, cgroup);
        }
        std::fs::create_dir_all(tree.join("proc/self")).unwrap();

        let root = Root::at(tree).unwrap();
        let found = running_clients(&root, &execution_clients(), 204);
        let summary: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            summary,
            [
                "geth (pid 101)",
                "reth (pid 102, in a container)",
                "besu (pid 103, in a container)",
                "nethermind (pid 104)",
                "erigon (pid 105)",
                "nethermind (pid 106)",
            ]
        );
        // Without a catalogue nothing is looked for.
        assert!(running_clients(&root, &[], 204).is_empty());
    }

    #[test]
    fn the_reads_go_through_the_root_and_are_recorded() {
        let dir = tempfile::tempdir().unwrap();
        process(dir.path(), 7, "geth", &["geth"], "0::/\n");
        let root = Root::at(dir.path()).unwrap().recording();
        assert_eq!(running_clients(&root, &execution_clients(), 1).len(), 1);
        let accessed: Vec<_> = root.accessed().into_iter().map(|a| a.path).collect();
        assert!(accessed.contains(&"/proc/7/cmdline".into()), "{accessed:?}");
    }

    #[test]
    fn hostile_proc_entries_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let proc = dir.path().join("proc/300");
        std::fs::create_dir_all(&proc).unwrap();
        std::fs::write(proc.join("comm"), [0xff, 0xfe, b'\n']).unwrap();
        std::fs::write(proc.join("cmdline"), vec![0u8; 100]).unwrap();
        std::fs::create_dir_all(dir.path().join("proc/301")).unwrap();
        let clients = execution_clients();
        assert!(running_clients(&Root::at(dir.path()).unwrap(), &clients, 1).is_empty());
        let empty = tempfile::tempdir().unwrap();
        assert!(running_clients(&Root::at(empty.path()).unwrap(), &clients, 1).is_empty());
        assert_eq!(identify(&clients, "", &[]), None);
    }

    #[test]
    fn patterns_match_whole_names_unless_starred() {
        assert!(matches("geth", "geth"));
        assert!(!matches("geth", "gethx"));
        assert!(matches("Nethermind*", "nethermind.runn"));
        assert!(matches("*hyperledger*", "org.hyperledger.besu.besu"));
        assert!(matches("*.dll", "nethermind.runner.dll"));
        assert!(!matches("*.dll", "nethermind.runner.exe"));
    }

    proptest::proptest! {
        #[test]
        fn identify_never_panics(comm in "\\PC{0,20}", cmdline in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let _ = identify(&execution_clients(), &comm, &cmdline);
        }
    }
}
