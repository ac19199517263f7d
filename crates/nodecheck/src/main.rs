//! The `nodecheck` binary: see the library crate for everything it does.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(nodecheck::run())
}
