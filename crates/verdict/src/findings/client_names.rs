//! NC509: a client name the database does not know, what was done instead, and the names it
//! does know. The command line only passes known names; a library caller may not.

use crate::code::Code;
use crate::database::Database;
use crate::model::{Finding, Severity};

use super::context::UnknownName;

pub fn check(unknown: &[UnknownName], db: &Database) -> Vec<Finding> {
    unknown
        .iter()
        .map(|name| match name {
            UnknownName::Consensus(name) => finding(
                &format!("consensus client called \"{name}\""),
                db.clients.consensus.iter().map(|c| c.name.as_str()),
                "its database was not counted",
                "Name one of",
            ),
            UnknownName::Execution(name) => finding(
                &format!("client called \"{name}\""),
                db.clients.execution.iter().map(|c| c.name.as_str()),
                "judged against the strictest needs instead",
                "Name one of the known clients",
            ),
        })
        .collect()
}

fn finding<'a>(
    what: &str,
    known: impl Iterator<Item = &'a str>,
    instead: &str,
    fix: &str,
) -> Finding {
    let known = known.collect::<Vec<_>>().join(", ");
    Finding::new(
        Code::UnknownClient,
        Severity::Warning,
        "Unknown client",
        format!("No {what} in the database (known: {known}); {instead}."),
    )
    .with_fix(format!("{fix}: {known}"))
}
