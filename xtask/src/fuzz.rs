//! `cargo xtask fuzz [--seconds N] [--target NAME] [--check]`: runs the cargo-fuzz targets in
//! `fuzz/` for N seconds each.
//!
//! It installs nothing: libFuzzer needs a nightly toolchain and the `cargo-fuzz` subcommand,
//! and when either is missing the task says exactly which and how to get it, then fails.
//! `--check` only type-checks the fuzz crate on the default (stable) toolchain, which needs
//! neither, so CI can keep the targets compiling everywhere.
//!
//! Each target's corpus lives in `fuzz/corpus/NAME` (git-ignored); the real test data of the
//! probe crate is passed as a second, read-only seed corpus where a target has one.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::project_root;

const DEFAULT_SECONDS: u64 = 30;

const USAGE: &str = "\
usage: cargo xtask fuzz [--seconds N] [--target NAME] [--check] [--list]

  --seconds N    run each target for N seconds (default 30)
  --target NAME  run only this target (repeatable)
  --check        only `cargo check` the fuzz crate on the default toolchain (no libFuzzer)
  --list         print the targets and exit
";

#[derive(Debug, PartialEq)]
struct Options {
    seconds: u64,
    targets: Vec<String>,
    check_only: bool,
    list: bool,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options {
        seconds: DEFAULT_SECONDS,
        targets: Vec::new(),
        check_only: false,
        list: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                let value = args.next().context("--seconds needs a number")?;
                options.seconds = value
                    .parse()
                    .with_context(|| format!("--seconds: `{value}` is not a whole number"))?;
                if options.seconds == 0 {
                    bail!("--seconds must be at least 1");
                }
            }
            "--target" => {
                let value = args.next().context("--target needs a name")?;
                options.targets.push(value.clone());
            }
            "--check" => options.check_only = true,
            "--list" => options.list = true,
            "--help" | "-h" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            other => {
                eprint!("{USAGE}");
                bail!("unknown argument `{other}`");
            }
        }
    }
    Ok(options)
}

/// Target names: the file stems under `fuzz/fuzz_targets/`, sorted.
fn available_targets(fuzz_dir: &Path) -> Result<Vec<String>> {
    let dir = fuzz_dir.join("fuzz_targets");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "rs") {
            if let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) {
                names.push(stem.to_owned());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Real inputs that make good starting points for a target.
fn seed_corpus(root: &Path, target: &str) -> Option<PathBuf> {
    let dir = match target {
        "smartctl_json" | "triage_input" => root.join("crates/probe/tests/data/smartctl"),
        "ata_identify" => root.join("crates/probe/tests/data/ata"),
        "drive_database" => root.join("data"),
        _ => return None,
    };
    dir.is_dir().then_some(dir)
}

fn succeeds(command: &mut Command) -> bool {
    command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// What is missing to run libFuzzer here, one line each.
fn missing_prerequisites(fuzz_dir: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    if !succeeds(Command::new("cargo").args(["+nightly", "--version"])) {
        missing.push(
            "a nightly toolchain (`cargo +nightly` failed): install it with \
             `rustup toolchain install nightly`"
                .to_owned(),
        );
        return missing;
    }
    if !succeeds(
        Command::new("cargo")
            .args(["+nightly", "fuzz", "--version"])
            .current_dir(fuzz_dir),
    ) {
        missing.push(
            "the cargo-fuzz subcommand (`cargo fuzz` not found): install it with \
             `cargo install cargo-fuzz`"
                .to_owned(),
        );
    }
    missing
}

fn check_only(fuzz_dir: &Path) -> Result<()> {
    println!("xtask fuzz: cargo check in {}", fuzz_dir.display());
    let status = Command::new("cargo")
        .args(["check", "--bins"])
        .current_dir(fuzz_dir)
        .status()
        .context("running cargo check")?;
    if !status.success() {
        bail!("the fuzz crate does not compile ({status})");
    }
    Ok(())
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let root = project_root();
    let fuzz_dir = root.join("fuzz");
    let available = available_targets(&fuzz_dir)?;
    if options.list {
        for name in &available {
            println!("{name}");
        }
        return Ok(());
    }
    if options.check_only {
        return check_only(&fuzz_dir);
    }
    for name in &options.targets {
        if !available.contains(name) {
            bail!(
                "no fuzz target `{name}`; available: {}",
                available.join(", ")
            );
        }
    }
    let targets = if options.targets.is_empty() {
        available
    } else {
        options.targets.clone()
    };

    let missing = missing_prerequisites(&fuzz_dir);
    if !missing.is_empty() {
        eprintln!("xtask fuzz: cannot run libFuzzer here; missing:");
        for line in &missing {
            eprintln!("  - {line}");
        }
        eprintln!("(`cargo xtask fuzz --check` still type-checks the targets on stable.)");
        bail!("fuzzing prerequisites missing");
    }

    let mut failed = Vec::new();
    for target in &targets {
        let corpus = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus)
            .with_context(|| format!("creating {}", corpus.display()))?;
        println!(
            "xtask fuzz: {target} for {} s (corpus {})",
            options.seconds,
            corpus.display()
        );
        let mut command = Command::new("cargo");
        command
            .args(["+nightly", "fuzz", "run", target.as_str()])
            .arg(&corpus)
            .current_dir(&fuzz_dir);
        if let Some(seeds) = seed_corpus(&root, target) {
            command.arg(seeds);
        }
        command
            .arg("--")
            .arg(format!("-max_total_time={}", options.seconds))
            // A parser that takes a second on one input is a bug worth a crash report.
            .arg("-timeout=10");
        let status = command
            .status()
            .with_context(|| format!("running cargo fuzz for {target}"))?;
        if !status.success() {
            eprintln!("xtask fuzz: {target} failed ({status}); see fuzz/artifacts/{target}/");
            failed.push(target.clone());
        }
    }
    if !failed.is_empty() {
        bail!("fuzz targets failed: {}", failed.join(", "));
    }
    println!(
        "xtask fuzz: {} target(s) ran {} s each without a crash",
        targets.len(),
        options.seconds
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn defaults() {
        assert_eq!(
            parse_args(&[]).expect("parses"),
            Options {
                seconds: 30,
                targets: vec![],
                check_only: false,
                list: false
            }
        );
    }

    #[test]
    fn seconds_and_targets() {
        let options = parse_args(&strings(&[
            "--seconds",
            "5",
            "--target",
            "mountinfo",
            "--target",
            "smartctl_json",
        ]))
        .expect("parses");
        assert_eq!(options.seconds, 5);
        assert_eq!(options.targets, strings(&["mountinfo", "smartctl_json"]));
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(parse_args(&strings(&["--seconds"])).is_err());
        assert!(parse_args(&strings(&["--seconds", "ten"])).is_err());
        assert!(parse_args(&strings(&["--seconds", "0"])).is_err());
        assert!(parse_args(&strings(&["--target"])).is_err());
        assert!(parse_args(&strings(&["--frobnicate"])).is_err());
    }

    #[test]
    fn every_required_target_exists() {
        let targets = available_targets(&project_root().join("fuzz")).expect("lists targets");
        for required in [
            "ata_identify",
            "mountinfo",
            "nvme_identify",
            "nvme_smart_log",
            "smartctl_json",
        ] {
            assert!(
                targets.iter().any(|t| t == required),
                "{required} missing from {targets:?}"
            );
        }
    }

    #[test]
    fn seed_corpora_point_at_real_test_data() {
        let root = project_root();
        let seeds = seed_corpus(&root, "smartctl_json").expect("smartctl seeds exist");
        assert!(std::fs::read_dir(seeds)
            .expect("readable")
            .any(|entry| entry.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))));
        assert!(seed_corpus(&root, "mountinfo").is_none());
    }
}
