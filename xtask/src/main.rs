//! `cargo xtask`: project automation in Rust (database checks, generated docs, fuzzing,
//! benchmarks, completions and man page), in the style of rust-analyzer's xtask.
//!
//! Each task lives in its own module and takes the arguments after its name.

mod bench_fio;
mod bench_probe;
mod db;
mod db_coverage;
mod db_pci_ids;
mod dist;
mod fixture;
mod fuzz;
mod tidy;
mod vm;

use std::path::PathBuf;

use anyhow::{bail, Result};

const USAGE: &str = "\
usage: cargo xtask <task> [args]

tasks:
  db-check                 validate data/*.toml and check docs/drives.md is fresh
  db-coverage [--json] [--max-unknown[-nvme|-sata] PCT]
                           the database on the corpus of real model strings (data/corpus)
  db-pci-ids PCI_IDS       cut data/pci-ids/nvme.ids (NVMe controller ids) out of a pci.ids file
  docs                     regenerate docs/drives.md (and other generated docs)
  fuzz [--seconds N]       run every cargo-fuzz target for N seconds each (default 30)
  bench probe              measure a full probe: wall time and peak memory
  bench vs-fio [opts]      nodecheck's engine against fio on the same file (alias: bench-vs-fio)
  dist                     completions, man pages, release archive and .deb into target/dist
  fixture NAME DIR         write a probe fixture tree (--list names them) to replay with --root
  vm [--scenario NAME]     nodecheck on a real kernel with emulated drives under QEMU (--help)
";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (task, rest) = match args.split_first() {
        Some((task, rest)) => (task.as_str(), rest),
        None => {
            eprint!("{USAGE}");
            bail!("no task given");
        }
    };
    match task {
        "db-check" => db::check(rest),
        "db-coverage" => db_coverage::run(rest),
        "db-pci-ids" => db_pci_ids::run(rest),
        "docs" => db::docs(rest),
        "fuzz" => fuzz::run(rest),
        "bench" => match rest.split_first() {
            Some((what, rest)) if what == "probe" => bench_probe::run(rest),
            Some((what, rest)) if what == "vs-fio" => bench_fio::run(rest),
            _ => bail!("usage: cargo xtask bench <probe|vs-fio> [args]"),
        },
        "bench-vs-fio" => bench_fio::run(rest),
        "dist" => dist::run(rest),
        "fixture" => fixture::run(rest),
        "vm" => vm::run_task(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => {
            eprint!("{USAGE}");
            bail!("unknown task `{other}`")
        }
    }
}

/// The workspace root (xtask lives one level below it).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_path_buf()
}
