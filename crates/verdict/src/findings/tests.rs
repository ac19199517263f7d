//! The check table's own tests: they loop over `CHECKS`, as ripgrep's flag tests loop over `FLAGS`.
use std::collections::BTreeSet;
use std::path::Path;

use super::CHECKS;
use crate::code::Code;

#[test]
fn every_check_has_a_unique_name_and_docs() {
    let mut names = BTreeSet::new();
    for check in CHECKS {
        assert!(
            !check.name.is_empty()
                && check
                    .name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-'),
            "check name {:?} is not kebab-case",
            check.name
        );
        assert!(
            names.insert(check.name),
            "{} is in the table twice",
            check.name
        );
        let docs = check.docs.trim();
        assert!(
            docs.len() > 20 && docs.ends_with('.'),
            "the {} check needs a sentence of docs, not {docs:?}",
            check.name
        );
        assert!(
            !check.codes.is_empty(),
            "the {} check lists no code",
            check.name
        );
    }
}

/// A code a check can emit leads the user to its section of docs/findings.md.
#[test]
fn every_code_a_check_emits_is_documented() {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/findings.md");
    let text = std::fs::read_to_string(&doc).expect("docs/findings.md");
    for check in CHECKS {
        for code in check.codes {
            let heading = format!("### {} — {}", code.as_str(), code.title());
            assert!(
                text.lines().any(|line| line == heading),
                "the {} check emits {code}, which has no `{heading}` in docs/findings.md",
                check.name
            );
        }
    }
}

/// The codes the table lists are the codes the finding modules write, and every code is
/// some check's: a new finding added to a module without its table entry fails here
/// (and each check's own list is held to its output by `run_all`'s debug assertion in
/// every test that judges).
#[test]
fn the_table_lists_every_code_the_modules_emit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/findings");
    let mut written = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("src/findings") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("module source");
        // Code outside the module's tests, and outside this table.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code = match code.split_once("pub(crate) const CHECKS") {
            Some((before, table)) => {
                let after = table.split_once("fn run_all").map_or("", |(_, a)| a);
                format!("{before}{after}")
            }
            None => code.to_owned(),
        };
        for variant in code.split("Code::").skip(1) {
            let name: String = variant
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if let Some(code) = Code::ALL.iter().find(|c| format!("{c:?}") == name) {
                written.insert(*code);
            }
        }
    }
    let listed: BTreeSet<Code> = CHECKS
        .iter()
        .flat_map(|c| c.codes.iter().copied())
        .collect();
    let all: BTreeSet<Code> = Code::ALL.iter().copied().collect();
    assert_eq!(
        listed.symmetric_difference(&written).collect::<Vec<_>>(),
        Vec::<&Code>::new(),
        "codes the finding modules write and codes the table lists differ"
    );
    assert_eq!(
        all.difference(&listed).collect::<Vec<_>>(),
        Vec::<&Code>::new(),
        "codes no check emits"
    );
}
