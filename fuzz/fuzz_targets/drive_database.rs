//! The drive database loader on arbitrary text (a hostile `--db FILE`), and everything a loaded
//! database is used for: validation, rendering, lookups of its own examples and of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verdict::{parse_result_block, Database, DriveQuery};
use xtask::drives_page::render_drives_markdown;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_result_block(text, "fuzz.toml");
    let Ok(db) = Database::parse(text, "fuzz.toml") else {
        return;
    };
    let _ = db.validate();
    let _ = render_drives_markdown(&db);
    for entry in &db.drives {
        for example in &entry.examples {
            let _ = db.lookup(
                &DriveQuery::new(example)
                    .firmware(text)
                    .capacity(4_000_000_000_000),
            );
        }
    }
    let _ = db.lookup(&DriveQuery::new(text));
});
