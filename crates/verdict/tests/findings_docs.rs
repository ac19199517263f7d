//! Tidy check: every finding code has a section in docs/findings.md, under its family's
//! heading, with the anchor and title the code carries, and the page documents no code that
//! does not exist. A code users search for must never lead nowhere, and the page must not
//! document checks that no longer exist.

use std::collections::BTreeMap;
use std::path::PathBuf;

use regex::Regex;
use verdict::{Code, Family};

/// One `### NC201 — Title` section of the page: its anchor, title and the family heading
/// (`## NC2xx health and temperature`) it sits under.
struct Section {
    anchor: String,
    title: String,
    family_heading: Option<String>,
}

fn documented_sections() -> BTreeMap<String, Section> {
    let doc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/findings.md");
    let text = std::fs::read_to_string(&doc).unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
    let anchor = Regex::new(r#"^<a id="([^"]+)"></a>$"#).expect("regex");
    let code_heading = Regex::new(r"^### (NC\d{3}) — (.+)$").expect("regex");
    let lines: Vec<&str> = text.lines().collect();
    let mut sections = BTreeMap::new();
    let mut family_heading = None;
    for (i, line) in lines.iter().enumerate() {
        if let Some(heading) = line.strip_prefix("## ") {
            family_heading = Some(heading.to_owned());
        }
        let Some(cap) = code_heading.captures(line) else {
            continue;
        };
        let code = cap[1].to_owned();
        let anchor = i
            .checked_sub(1)
            .and_then(|above| anchor.captures(lines[above]))
            .map(|a| a[1].to_owned())
            .unwrap_or_else(|| panic!("{code}'s section has no anchor line above its heading"));
        let section = Section {
            anchor,
            title: cap[2].to_owned(),
            family_heading: family_heading.clone(),
        };
        assert!(
            sections.insert(code.clone(), section).is_none(),
            "{code} is documented twice"
        );
    }
    sections
}

#[test]
fn every_code_is_documented_where_its_family_is_and_nothing_else_is() {
    let mut sections = documented_sections();
    for &code in Code::ALL {
        let Some(section) = sections.remove(code.as_str()) else {
            panic!("{code} has no section in docs/findings.md");
        };
        assert_eq!(section.anchor, code.anchor(), "anchor of {code}");
        assert_eq!(section.title, code.title(), "title of {code}");
        assert_eq!(
            section.family_heading.as_deref(),
            Some(code.family().to_string().as_str()),
            "{code} is documented outside its family's section"
        );
    }
    let stale: Vec<&String> = sections.keys().collect();
    assert!(
        stale.is_empty(),
        "docs/findings.md documents codes that do not exist: {stale:?}"
    );
}

#[test]
fn every_family_heading_is_linked_from_the_overview() {
    let doc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/findings.md");
    let text = std::fs::read_to_string(&doc).unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
    for family in Family::ALL {
        let heading = format!("## {family}\n");
        assert!(text.contains(&heading), "no `{}` heading", heading.trim());
        assert!(
            text.contains(&format!("[{family}](#")),
            "the overview does not link {family}"
        );
    }
}
