//! Tidy check: every finding code the source can emit has a section (with an anchor) in
//! docs/findings.md, and every documented code is still emitted. A code users search for must
//! never lead nowhere, and the page must not document checks that no longer exist.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use regex::Regex;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Codes written as string literals (`"NC302"`) in the library source that emits findings.
fn emitted_codes() -> BTreeSet<String> {
    let literal = Regex::new(r#""(NC\d{3})""#).expect("regex");
    let mut files: Vec<PathBuf> = vec![crate_dir().join("src/judge.rs")];
    let findings_dir = crate_dir().join("src/findings");
    let entries = std::fs::read_dir(&findings_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", findings_dir.display()));
    for entry in entries {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    let mut codes = BTreeSet::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // Unit tests name codes they look for; only the code above them emits.
        let source = text.split("#[cfg(test)]").next().unwrap_or(&text);
        for cap in literal.captures_iter(source) {
            codes.insert(cap[1].to_owned());
        }
    }
    codes
}

fn documented_codes(doc: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(doc).unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
    let anchor = Regex::new(r#"<a id="nc(\d{3})"></a>\s*\n### NC(\d{3}) — \S"#).expect("regex");
    let mut codes = BTreeSet::new();
    for cap in anchor.captures_iter(&text) {
        assert_eq!(
            &cap[1], &cap[2],
            "anchor nc{} heads the section of NC{}",
            &cap[1], &cap[2]
        );
        assert!(
            codes.insert(format!("NC{}", &cap[1])),
            "NC{} is documented twice",
            &cap[1]
        );
    }
    codes
}

#[test]
fn every_emitted_code_is_documented_and_every_documented_code_emitted() {
    let emitted = emitted_codes();
    let documented = documented_codes(&crate_dir().join("../../docs/findings.md"));
    assert!(
        emitted.len() >= 30,
        "found only {emitted:?}: is the scan broken?"
    );
    let undocumented: Vec<&String> = emitted.difference(&documented).collect();
    let stale: Vec<&String> = documented.difference(&emitted).collect();
    assert!(
        undocumented.is_empty(),
        "codes without a section in docs/findings.md: {undocumented:?}"
    );
    assert!(
        stale.is_empty(),
        "docs/findings.md documents codes nothing emits: {stale:?}"
    );
}

#[test]
fn codes_sit_in_their_family_range() {
    // NC1xx identity, NC2xx health, NC3xx trim, NC4xx controller/link, NC5xx mount and
    // capacity, NC6xx platform, NC7xx bench, NC8xx behaviour.
    let families: [(&str, char); 11] = [
        ("identity.rs", '1'),
        ("media.rs", '1'),
        ("health.rs", '2'),
        ("trim.rs", '3'),
        ("controller.rs", '4'),
        ("mount.rs", '5'),
        ("capacity.rs", '5'),
        ("network.rs", '5'),
        ("platform.rs", '6'),
        ("bench.rs", '7'),
        ("behaviour.rs", '8'),
    ];
    let literal = Regex::new(r#""NC(\d)\d{2}""#).expect("regex");
    for (file, hundred) in families {
        let path = crate_dir().join("src/findings").join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            panic!("{} is missing", path.display());
        };
        let source = text.split("#[cfg(test)]").next().unwrap_or(&text);
        for cap in literal.captures_iter(source) {
            let digit = cap[1].chars().next().unwrap_or('?');
            // platform.rs re-emits database advisories of VPS entries as NC102.
            let allowed = digit == hundred || (file == "platform.rs" && &cap[0] == "\"NC102\"");
            assert!(allowed, "{file} emits {} outside NC{hundred}xx", &cap[0]);
        }
    }
}
