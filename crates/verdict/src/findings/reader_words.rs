//! The database's words as a drive's owner reads them: a generic rule's id spelled out, and an
//! entry's notes without the sentences written for the database's curators.

/// A generic rule's id in the reader's words: `qlc-and-dramless` is "QLC and DRAM-less".
pub(super) fn rule_subject(id: &str) -> String {
    id.split('-')
        .map(|word| match word {
            "qlc" | "tlc" | "sata" | "dram" => word.to_ascii_uppercase(),
            "dramless" => "DRAM-less".to_string(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
        .replace("data center", "data-center")
        .replace("hard disk", "hard-disk")
        .replace("unguaranteed components", "unguaranteed-component")
}

/// Phrases of the sentences in an entry's notes that are written for the database's curators
/// (which strings the entry matches, which part number is which form factor) rather than for
/// the drive's owner.
const CURATOR_PHRASES: &[&str] = &[
    " = ",
    "this entry",
    "own entry",
    "pattern",
    "part number",
    "Part number",
    "in the model string",
    "Model string not verified",
    "real report",
    "matching ignores",
    "Kept apart",
];

/// An entry's notes without the sentences meant for its curators.
pub(super) fn for_readers(notes: &str) -> String {
    let notes = notes.trim();
    let mut kept = Vec::new();
    let mut start = 0;
    let bytes = notes.as_bytes();
    for (at, _) in notes.match_indices(". ") {
        // A sentence ends at ". " before a capital letter (`CT...P5SSD8` does not end one).
        if bytes.get(at + 2).is_some_and(u8::is_ascii_uppercase) {
            kept.push(&notes[start..=at]);
            start = at + 2;
        }
    }
    kept.push(&notes[start..]);
    kept.retain(|sentence| !CURATOR_PHRASES.iter().any(|p| sentence.contains(p)));
    kept.join(" ")
}
