//! The way out of a failed measurement, phrased by the command that prints it. The bench
//! library's errors say what is wrong and name no options; `bench` and `check` have different
//! options for the same remedy (`--reserve` and `--bench-reserve`), and a hint must be accepted
//! by the command it is printed by (tests/hints_runnable.rs runs each one).

use std::path::Path;

use bench::BenchError;
use units::text::shell_quote;

/// The command whose options a hint may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printer {
    Bench,
    Check,
}

/// The error's message followed by what to do about it from `printer`. `dir` is the directory
/// measured, for hints that name another command.
pub fn bench_failure(err: &BenchError, printer: Printer, dir: &Path) -> String {
    match hint(err, printer, dir) {
        Some(hint) => format!("{err}; {hint}"),
        None => err.to_string(),
    }
}

fn hint(err: &BenchError, printer: Printer, dir: &Path) -> Option<String> {
    let sudo = as_writer_of(dir);
    let dir = shell_quote(&dir.display().to_string());
    let text = match (err, printer) {
        (BenchError::LiveNode(_), Printer::Bench) => "stop it first or pass --force".to_string(),
        // Reading a few seconds at QD1 beside the node is what the operator wants to know;
        // `check` keeps its file test off a live node and names the command that allows it.
        (BenchError::LiveNode(_), Printer::Check) => format!(
            "stop it first, or measure beside it with `{sudo}nodecheck bench --force --test qd1 {dir}`"
        ),
        (BenchError::NoRoom { .. }, Printer::Bench) => {
            "free space or lower the reserve with --reserve".to_string()
        }
        (BenchError::NoRoom { .. }, Printer::Check) => {
            "free space or lower the reserve with --bench-reserve".to_string()
        }
        // The same command again would fail the same way: say who can write there.
        (BenchError::Io { source, .. }, Printer::Check) if denied(source) => {
            format!("the test file goes in {dir}: run as the datadir's owner or with sudo")
        }
        (BenchError::Io { source, .. }, Printer::Bench) if denied(source) => {
            format!("the test file goes in {dir}: run as the directory's owner or with sudo")
        }
        (BenchError::StaleFiles(_), Printer::Bench) => "remove them with --clean-stale".to_string(),
        (BenchError::StaleFiles(_), Printer::Check) => {
            format!("remove them with `{sudo}nodecheck bench --clean-stale --test qd1 {dir}`")
        }
        _ => return None,
    };
    Some(text)
}

/// EACCES and EPERM: another user's directory, which this user cannot create a file in.
fn denied(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::PermissionDenied
}

/// `sudo ` when this user cannot create files in `dir`, so a command that writes there runs as
/// printed instead of failing with "Permission denied".
fn as_writer_of(dir: &Path) -> &'static str {
    match nix::unistd::access(dir, nix::unistd::AccessFlags::W_OK) {
        Ok(()) => "",
        Err(_) => "sudo ",
    }
}

/// The hint `bench` adds to its report when the library found test files of killed runs.
pub fn stale_files_hint(warnings: &[String]) -> Option<String> {
    warnings
        .iter()
        .any(|w| w.starts_with(bench::STALE_FILE_WARNING))
        .then(|| "rerun with --clean-stale to remove the stale test files".to_string())
}
