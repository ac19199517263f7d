//! Prints the probe's JSON for a path: `probe_json [PATH] [--root DIR] [--no-smartctl]`.
//! Used by `cargo xtask bench probe` to time the library on its own.

use std::path::PathBuf;
use std::process::ExitCode;

use probe::{ProbeOptions, Root};

fn main() -> ExitCode {
    let mut path = PathBuf::from("/");
    let mut root_dir: Option<PathBuf> = None;
    let mut opts = ProbeOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--root" => root_dir = args.next().map(PathBuf::from),
            "--no-smartctl" => opts.run_smartctl = false,
            other => path = PathBuf::from(other),
        }
    }
    let root = match root_dir {
        Some(dir) => match Root::at(&dir) {
            Ok(root) => root,
            Err(err) => {
                eprintln!("probe_json: {err}");
                return ExitCode::FAILURE;
            }
        },
        None => Root::live(),
    };
    match probe::probe_path(&root, &path, &opts) {
        Ok(facts) => match serde_json::to_string_pretty(&facts) {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("probe_json: {err}");
                ExitCode::FAILURE
            }
        },
        Err(err) => {
            eprintln!("probe_json: {err}");
            ExitCode::FAILURE
        }
    }
}
