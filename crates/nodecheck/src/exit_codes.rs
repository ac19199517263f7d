//! Process exit codes, documented in `docs/exit-codes.md` and `nodecheck --help`.

/// The storage is good for a node.
pub const GOOD: u8 = 0;
/// Warnings: it will work, slowly or with care (`ugly`).
pub const UGLY: u8 = 1;
/// It will not keep up (`bad`).
pub const BAD: u8 = 2;
/// The command line was wrong.
pub const USAGE: u8 = 3;
/// Could not check: a runtime error stopped the check.
pub const COULD_NOT_CHECK: u8 = 4;
