//! Every option a message suggests is accepted by the command that printed it, and every
//! `nodecheck ...` command line a message quotes parses. Library text names no bare options
//! (the command printing it phrases the hint); the binary's text names only its command's.

use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process};
use test_support::skip;

use crate::cli_support::{machine_lock, nodecheck, stderr, stdout};
use crate::text_commands::{
    accepts, named_in, parse_command, rust_files, string_literals, workspace,
};
use bench::{BenchError, ByteSize};
use nodecheck::{bench_failure_hint, HintPrinter};

/// The commands whose options a source file's text may name.
fn printers_of(file: &Path) -> Vec<Vec<&str>> {
    let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let parent = file
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|s| s.to_str())
        .unwrap_or("");
    match (parent, name) {
        ("commands", "db") | ("render", "database") => {
            vec![vec!["db", "lookup"], vec!["db", "list"]]
        }
        // The measurement `check` runs, whose pieces `submit` shares.
        ("commands", "measure") => vec![vec!["check"], vec!["submit"]],
        ("commands", cmd) => vec![vec![cmd]],
        ("render", "bench") => vec![vec!["bench"]],
        ("render", "facts") => vec![vec!["probe"]],
        // Reports are rendered by both commands that judge.
        ("render", _) | ("src", "report") => vec![vec!["check"], vec!["triage"]],
        _ => vec![],
    }
}

#[test]
fn library_text_names_no_bare_options_and_its_commands_parse() {
    let mut problems = Vec::new();
    for krate in ["probe", "bench", "verdict"] {
        for file in rust_files(&workspace().join("crates").join(krate).join("src")) {
            let source = std::fs::read_to_string(&file).expect("source");
            for literal in string_literals(&source) {
                let named = named_in(&literal);
                for flag in named.bare_flags {
                    problems.push(format!(
                        "{}: library text names {flag} (the printing command must phrase it): {literal:?}",
                        file.display()
                    ));
                }
                for command in named.commands {
                    if let Err(err) = parse_command(&command) {
                        problems.push(format!("{}: {err}", file.display()));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn binary_text_names_only_options_of_the_command_that_prints_it() {
    let mut problems = Vec::new();
    let mut flags_seen = 0;
    let src = workspace().join("crates/nodecheck/src");
    for file in rust_files(&src) {
        // The clap definitions (their examples are checked through `--help`) and the bench
        // hints (checked per printing command below).
        if file.starts_with(src.join("cli")) || file.ends_with("commands/hints.rs") {
            continue;
        }
        let source = std::fs::read_to_string(&file).expect("source");
        let printers = printers_of(&file);
        for literal in string_literals(&source) {
            let named = named_in(&literal);
            for flag in &named.bare_flags {
                flags_seen += 1;
                if printers.is_empty() {
                    // Text any command may print: only global options belong there.
                    if let Err(err) = accepts(&[], flag) {
                        problems.push(format!("{}: {err}", file.display()));
                    }
                }
                for printer in &printers {
                    if let Err(err) = accepts(printer, flag) {
                        problems.push(format!("{}: {err} (text: {literal:?})", file.display()));
                    }
                }
            }
            for command in named.commands {
                if let Err(err) = parse_command(&command) {
                    problems.push(format!("{}: {err}", file.display()));
                }
            }
        }
    }
    assert!(
        flags_seen > 10,
        "the scan found the binary's options ({flags_seen})"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn help_examples_parse() {
    let mut problems = Vec::new();
    let mut examples = 0;
    for sub in [
        vec![],
        vec!["check"],
        vec!["probe"],
        vec!["bench"],
        vec!["db"],
        vec!["db", "lookup"],
        vec!["db", "list"],
        vec!["triage"],
        vec!["snapshot"],
        vec!["submit"],
    ] {
        let output = nodecheck().args(&sub).arg("--help").output().expect("runs");
        assert!(output.status.success(), "{sub:?} --help: {output:?}");
        for line in stdout(&output).lines() {
            let trimmed = line.trim_start();
            if !(trimmed.starts_with("nodecheck") || trimmed.starts_with("sudo nodecheck")) {
                continue;
            }
            // Examples are `COMMAND   description`; the description starts after a wide gap.
            let command = trimmed.split("  ").next().unwrap_or(trimmed);
            examples += 1;
            if let Err(err) = parse_command(command) {
                problems.push(format!("{sub:?} --help: {err}"));
            }
        }
    }
    assert!(examples > 20, "found the help examples ({examples})");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn samples() -> Vec<BenchError> {
    vec![
        BenchError::LiveNode("geth (pid 1234)".into()),
        BenchError::NoRoom {
            fs: "/data".into(),
            avail: ByteSize(40 << 30),
            total: ByteSize(400 << 30),
            reserve: ByteSize(50 << 30),
            reserve_origin: "max(10 % of 400 GiB, 50 GiB)".into(),
            spare: ByteSize(0),
            needed: ByteSize(16 << 20),
        },
        BenchError::ReserveBroken {
            fs: "/data".into(),
            size: ByteSize(1 << 30),
            avail: ByteSize(10 << 30),
            reserve: ByteSize(50 << 30),
        },
        BenchError::Busy {
            pid: Some(4321),
            lock: PathBuf::from("/data/.nodecheck-bench.lock"),
        },
        BenchError::StaleFiles(vec![PathBuf::from("/data/.nodecheck-bench-1-00.tmp")]),
        BenchError::Refused("x".into()),
        BenchError::Unsupported("x".into()),
        BenchError::InvalidPlan("x".into()),
        BenchError::Engine("x".into()),
        BenchError::Interrupted(libc::SIGINT),
    ]
}

#[test]
fn every_bench_failure_hint_is_accepted_by_the_command_that_prints_it() {
    let mut hinted = 0;
    for err in samples() {
        // The library's own message names no option.
        assert!(
            crate::text_commands::long_flags(&err.to_string()).is_empty(),
            "{err}"
        );
        for (printer, command) in [(HintPrinter::Bench, "bench"), (HintPrinter::Check, "check")] {
            let text = bench_failure_hint(&err, printer, Path::new("/var/lib/my node"));
            let named = named_in(&text);
            hinted += named.bare_flags.len() + named.commands.len();
            for flag in named.bare_flags {
                accepts(&[command], &flag).unwrap_or_else(|e| panic!("{text}: {e}"));
            }
            for line in named.commands {
                parse_command(&line).unwrap_or_else(|e| panic!("{text}: {e}"));
            }
        }
    }
    assert!(
        hinted >= 6,
        "every refusal with a way out names it ({hinted})"
    );
}

/// A process whose name is `geth`: a copy of `sleep` started from a scratch directory.
struct FakeClient {
    child: Child,
    _dir: tempfile::TempDir,
}

impl FakeClient {
    fn start() -> FakeClient {
        let dir = tempfile::tempdir().expect("tempdir");
        let geth = dir.path().join("geth");
        std::fs::copy("/bin/sleep", &geth).expect("copy sleep");
        let child = Process::new(&geth)
            .arg("120")
            .spawn()
            .expect("start fake geth");
        // The kernel sets comm at exec; wait until /proc shows it.
        let comm = PathBuf::from(format!("/proc/{}/comm", child.id()));
        for _ in 0..100 {
            if std::fs::read_to_string(&comm).is_ok_and(|c| c.trim() == "geth") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        FakeClient { child, _dir: dir }
    }
}

impl Drop for FakeClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn bench_beside_a_running_client_names_an_option_that_then_works() {
    let _machine = machine_lock();
    let _geth = FakeClient::start();
    let dir = tempfile::tempdir().expect("scratch");
    let base = [
        "bench",
        "--test",
        "qd1",
        "--runtime",
        "1",
        "--size",
        "16M",
        "--reserve",
        "0",
        "--json",
    ];
    let refused = nodecheck()
        .args(base)
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(4), "{refused:?}");
    let message = stderr(&refused);
    assert!(
        message.contains("an Ethereum client is running"),
        "{message}"
    );
    let flags = named_in(&message).bare_flags;
    assert_eq!(flags, ["--force"], "{message}");

    let forced = nodecheck()
        .args(base)
        .args(&flags)
        .arg(dir.path())
        .output()
        .expect("runs");
    let report = stdout(&forced);
    if stderr(&forced).contains("io_uring") && report.is_empty() {
        skip(format_args!(
            "the rerun: no engine can run here: {}",
            stderr(&forced)
        ));
        return;
    }
    assert!(forced.status.success(), "{forced:?}");
    assert!(
        report.contains("geth (pid"),
        "the warning names the client: {report}"
    );
}

#[test]
fn check_beside_a_running_client_names_only_what_it_accepts() {
    let _machine = machine_lock();
    let _geth = FakeClient::start();
    let dir = tempfile::tempdir().expect("scratch");
    let output = nodecheck()
        .args([
            "check",
            "--bench",
            "quick",
            "--bench-runtime",
            "1",
            "--bench-size",
            "16M",
            "--bench-reserve",
            "0",
            "--no-smartctl",
            "--json",
        ])
        .arg(dir.path())
        .output()
        .expect("runs");
    let text = format!("{}\n{}", stdout(&output), stderr(&output));
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&output)).unwrap_or_else(|e| panic!("{e}: {text}"));
    let notes = report["notes"].to_string();
    if !is_root() {
        // On a test file beside a client, check refuses to measure and says what to do.
        assert!(notes.contains("an Ethereum client is running"), "{notes}");
        assert!(
            notes.contains("`nodecheck bench --force --test qd1 "),
            "{notes}"
        );
    }
    let named = named_in(&text.replace("\\\"", "\""));
    for flag in named.bare_flags {
        accepts(&["check"], &flag).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
    for line in named.commands {
        parse_command(&line).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}
