//! The grade of a drive the list does not name: its class (part-number scheme, controller,
//! model family, probe evidence) and the list's generic rules that class reaches. `check` and
//! `triage` judge an unlisted drive this way (`findings::identity`), and so do `db lookup` and
//! the corpus, so all of them give the same answer for the same drive.

use serde::Serialize;

use super::{ClassQuery, Classification, Database, GenericRule};
use crate::model::Grade;

#[derive(Debug, Clone, Serialize)]
pub struct UnlistedGrade<'a> {
    pub classification: Option<Classification<'a>>,
    /// Every generic rule the class's traits satisfy, in file order.
    pub rules: Vec<&'a GenericRule>,
    /// The worst of those rules' grades; `Unknown` when none applies.
    pub grade: Grade,
}

pub(crate) fn grade<'a>(db: &'a Database, q: &ClassQuery) -> UnlistedGrade<'a> {
    let classification = db.classify(q);
    let rules = match &classification {
        Some(c) => db.generic_matches(&c.traits(q.interface)),
        None => Vec::new(),
    };
    let grade = worst(rules.iter().map(|r| r.grade));
    UnlistedGrade {
        classification,
        rules,
        grade,
    }
}

/// The worst grade of several rules; `Unknown` only when there are none.
pub fn worst(grades: impl IntoIterator<Item = Grade>) -> Grade {
    grades.into_iter().fold(Grade::Unknown, |acc, g| {
        if acc == Grade::Unknown {
            g
        } else {
            acc.max(g)
        }
    })
}
