//! NC190: the facts that could not be read without root, in one finding.

use probe::Facts;

use crate::code::Code;
use crate::model::{Finding, Severity};

/// Checks that need root and could not run, in one place so the reader knows how to get the
/// full picture.
pub fn needs_root(facts: &Facts) -> (Vec<String>, Option<Finding>) {
    let missing: Vec<String> = facts
        .unavailable
        .iter()
        // Replayed snapshots also miss facts ("replayed root: no ioctls"); only privilege
        // can be fixed by rerunning.
        .filter(|u| u.reason.needs_root())
        .map(|u| u.fact.clone())
        .collect();
    if missing.is_empty() {
        return (missing, None);
    }
    let finding = Finding::new(
        Code::NeedsRoot,
        Severity::Info,
        "Some checks need root",
        format!(
            "Ran without root, so these could not be read: {}.",
            missing.join(", ")
        ),
    )
    .with_fix(format!(
        "Rerun as root for the full picture: `sudo nodecheck {}`",
        units::text::shell_quote(&facts.path)
    ));
    (missing, Some(finding))
}
