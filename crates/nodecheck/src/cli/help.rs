//! The examples each command's `--help` ends with. Every line is a command that parses
//! (tests/doc_commands.rs runs them through the real CLI).

pub(super) const MAIN_EXAMPLES: &str = "\
Examples:
  sudo nodecheck /var/lib/ethereum          check the storage under a datadir
  nodecheck                                 auto-detect a client datadir and check it
  nodecheck check --client nethermind .     apply Nethermind's size and speed needs
  nodecheck check --format markdown > r.md  a report to paste into a GitHub issue
  nodecheck db lookup 'Samsung SSD 980 PRO 2TB' --firmware 3B2QGXA7
  nodecheck triage smartctl.json            judge a saved `smartctl -j -x` output

Exit codes: 0 good, 1 ugly (warnings), 2 bad, 3 usage error, 4 could not check;
128 + N when stopped by signal N after cleanup (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
Docs: https://github.com/nodecheck/nodecheck/tree/main/docs";

pub(super) const CHECK_EXAMPLES: &str = "\
Examples:
  sudo nodecheck check /var/lib/ethereum
  nodecheck check --bench none --json /var/lib/geth
  nodecheck check --bench full --client reth /var/lib/reth
  nodecheck check --client geth --cl lighthouse /var/lib/ethereum
  nodecheck check --bench full --plot sync.svg --format markdown > r.md
  nodecheck check --format prometheus > /var/lib/node_exporter/textfile/nodecheck.prom
  nodecheck check --snapshot operator.tar.gz          replay another machine's snapshot
  nodecheck check --root ./fixture /var/lib/ethereum  replay an unpacked tree

Exit codes: 0 good, 1 ugly, 2 bad, 3 usage error, 4 could not check;
128 + N when stopped by signal N after cleanup (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).";

pub(super) const PROBE_EXAMPLES: &str = "\
Examples:
  nodecheck probe /var/lib/ethereum
  sudo nodecheck probe --json . > facts.json
  nodecheck probe --root ./fixture /var/lib/ethereum --json
  nodecheck probe --smartctl-json sda.json --smartctl-json sdb.json /   one saved output per drive";

pub(super) const BENCH_EXAMPLES: &str = "\
Examples:
  nodecheck bench /var/lib/ethereum                  qd1 and randrw on a 150G test file
  nodecheck bench --test qd1 --runtime 10 --size 1G  a short latency look
  nodecheck bench --test sync --plot sync.svg /data  a client's write bursts, drawn
  nodecheck bench --force --test qd1 /var/lib/ethereum  beside a running node
  sudo nodecheck bench --device /dev/nvme0n1 --test qd1  read-only on the drive, like `ioping -D`
  nodecheck bench --format markdown > bench.md

Writes only to a test file it creates in PATH's file system (O_EXCL|O_NOFOLLOW, one descriptor
for every test), one bench per directory at a time, keeps a free-space reserve of max(10 % of the
file system, 50 GiB), refuses tmpfs and ramfs, and removes the file on success, error, Ctrl-C,
SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2. A test file left by a killed run (no bench holds
its lock) is reported on the next run (--clean-stale removes it). Set NODECHECK_FORCE_NO_IO_URING=1
to use the portable engine as if io_uring were blocked.

Exit codes: 0 measured, 3 usage error, 4 could not measure (the message says why and what to do);
128 + N when stopped by signal N after removing the test file (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).";

pub(super) const DB_LOOKUP_EXAMPLES: &str = "\
Examples:
  nodecheck db lookup 'Samsung SSD 980 PRO 2TB' --firmware 3B2QGXA7
  nodecheck db lookup WDS200T3X0C-00SJG0
  nodecheck db lookup 'ADATA SX8200PNP' --capacity 4TB --json";

pub(super) const DB_LIST_EXAMPLES: &str = "\
Examples:
  nodecheck db list
  nodecheck db list --grade bad
  nodecheck db list --json";

pub(super) const TRIAGE_EXAMPLES: &str = "\
Examples:
  nodecheck triage smartctl.json                  a saved `smartctl -j -x /dev/nvme0` output
  nodecheck triage report.json --format markdown  a saved `nodecheck --json` report
  nodecheck triage smartctl.json --client erigon --cl teku --json";

pub(super) const SNAPSHOT_EXAMPLES: &str = "\
Examples:
  sudo nodecheck snapshot -o node.tar.gz /var/lib/ethereum
  nodecheck check --snapshot node.tar.gz       replay it anywhere

The archive holds exactly the sysfs, procfs and /etc files the probe read, plus one smartctl
JSON per drive (as root), with serial numbers, hostnames, UUIDs and /home paths redacted unless --no-redact.";

pub(super) const SUBMIT_EXAMPLES: &str = "\
Examples:
  sudo nodecheck submit /var/lib/ethereum > my-drive.toml
  nodecheck submit --from report.json            reuse a saved `check --bench full --json`

Runs the full benchmark (about 150 GiB of test file; takes a while) unless --from is given,
then prints a TOML result block for data/ and the pull-request steps.";

pub(super) const DB_EXAMPLES: &str = "\
Examples:
  nodecheck db lookup 'Samsung SSD 990 PRO 2TB' --firmware 0B2QJXD7
  nodecheck db list --grade ugly";

pub(super) const WATCH_EXAMPLES: &str = "\
Examples:
  sudo nodecheck watch /var/lib/ethereum            60 s beside the running node
  nodecheck watch --for 10s                         a short look, auto-detected datadir
  nodecheck watch --for 5m --save watch.json        keep the raw readings for triage
  nodecheck watch --for 30s --format markdown > w.md
  nodecheck watch -q --for 50s --format prometheus --output /var/lib/prometheus/node-exporter/nodecheck_watch.prom

Exit codes: 0 not storage-bound, 1 partly storage-bound, 2 storage-bound, 3 usage error,
4 could not watch.";
