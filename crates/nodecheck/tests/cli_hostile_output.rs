//! Hostile strings on their way out: what redaction must remove whatever the renderer does
//! to it (escaping, clipping, quoting), what must never reach a terminal raw (escapes, bidi
//! and invisible characters), and mentions that must not notify anyone when a report is
//! pasted; and a drive database whose patterns would compile without bound. Every run happens
//! under the 256 MiB address-space limit of `run_limited`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::cli_support::{run_limited, written, Fixture, Limited};

fn os(text: &str) -> &OsStr {
    text.as_ref()
}

/// Every regular file under `dir` named `name`, symlinks not followed.
fn files_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let kind = entry.file_type().expect("file type");
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() && entry.file_name() == name {
                found.push(entry.path());
            }
        }
    }
    found
}

/// The NVMe fixture with its drive's sysfs attribute `name` (`model`, `serial`) set to
/// `value`, as the kernel pads it.
fn nvme_with(name: &str, value: &str) -> Fixture {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let files = files_named(&fixture.root().join("sys"), name);
    assert!(!files.is_empty(), "the fixture has a {name} attribute");
    for file in files {
        std::fs::write(file, format!("{value:<40}\n")).expect("write");
    }
    fixture
}

/// `check --root ROOT PATH` plus `args`, under the limits; it must end with a verdict.
fn check(fixture: &Fixture, args: &[&str]) -> Limited {
    let mut all = vec![
        os("check"),
        os("--root"),
        fixture.root().as_os_str(),
        os(fixture.scenario.probe_path),
    ];
    all.extend(args.iter().map(|a| os(a)));
    let out = run_limited(&all);
    assert!(
        matches!(out.code, Some(0..=2)),
        "{args:?} ended with {:?}: {}",
        out.code,
        out.stderr
    );
    out
}

/// The part of a markdown report above the folded JSON, which is a code block.
fn above_the_json(markdown: &str) -> &str {
    &markdown[..markdown.find("<details>").expect("the folded JSON")]
}

#[test]
fn serials_are_redacted_before_markdown_escapes_or_clips_them() {
    // `cell()` escaped `_` before the redactor saw the text.
    let fixture = nvme_with("serial", "ABC_12345678");
    for format in ["markdown", "discord"] {
        let out = check(&fixture, &["--format", format]);
        assert!(!out.stdout.contains("12345678"), "{format}: {}", out.stdout);
    }
    // The serial cell clipped a 60-character serial to 39 characters and an ellipsis.
    let long = "S".to_string() + &"0123456789".repeat(6)[..59];
    let fixture = nvme_with("serial", &long);
    let out = check(&fixture, &["--format", "markdown"]);
    assert!(!out.stdout.contains(&long[..20]), "{}", out.stdout);
    assert!(out.stdout.contains("[redacted]"), "{}", out.stdout);
}

#[test]
fn credentials_in_the_fstab_line_a_finding_quotes_are_redacted() {
    let fixture = Fixture::named("cifs_nas");
    std::fs::write(
        fixture.root().join("etc/fstab"),
        "//192.168.1.10/ethereum /var/lib/ethereum cifs \
         username=alice,password=hunter2,,x,vers=3.1.1,_netdev 0 0\n",
    )
    .expect("fstab");
    let json = check(&fixture, &["--json"]);
    assert!(
        json.stdout.contains("password=hunter2"),
        "the fixture's fstab line is in the report: {}",
        json.stdout
    );
    for format in ["markdown", "discord"] {
        let out = check(&fixture, &["--format", format]);
        for secret in ["hunter2", "alice", ",,x"] {
            assert!(
                !out.stdout.contains(secret),
                "{format} leaks {secret}: {}",
                out.stdout
            );
        }
        if format == "markdown" {
            assert!(
                out.stdout.contains("password=[redacted]"),
                "says what it removed: {}",
                out.stdout
            );
        }
    }
}

#[test]
fn nfs_servers_and_addresses_are_redacted() {
    let fixture = Fixture::named("nfs4_nas");
    let json = check(&fixture, &["--json"]);
    for secret in ["diskstation.lan", "192.168.1.10", "192.168.1.20"] {
        assert!(json.stdout.contains(secret), "the fixture names {secret}");
    }
    for format in ["markdown", "discord"] {
        let out = check(&fixture, &["--format", format]);
        for secret in ["diskstation", "192.168.1.10", "192.168.1.20"] {
            assert!(
                !out.stdout.contains(secret),
                "{format} leaks {secret}: {}",
                out.stdout
            );
        }
    }
}

const MENTIONS: &str = "@everyone @here <@&123456789> <@!42> <@77> <#99> @octocat";

#[test]
fn mentions_in_a_model_notify_no_one() {
    let fixture = nvme_with("model", MENTIONS);
    let discord = check(&fixture, &["--format", "discord"]).stdout;
    for live in ["@everyone", "@here", "<@&", "<@!", "<@7", "<#9", "@octocat"] {
        assert!(!discord.contains(live), "discord keeps {live}: {discord}");
    }
    assert!(discord.contains("＠everyone"), "{discord}");
    let markdown = check(&fixture, &["--format", "markdown"]).stdout;
    let shown = above_the_json(&markdown);
    for live in ["@everyone", "@octocat"] {
        assert!(!shown.contains(live), "markdown keeps {live}: {shown}");
    }
    assert!(shown.contains("＠octocat"), "{shown}");
}

/// A title that clears the screen, rewrites the window title and reverses the text after it.
const ESCAPES: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}evil\u{2028}\u{200b}\u{feff}";

fn assert_inert(what: &str, text: &str) {
    for c in [
        '\u{1b}', '\u{7}', '\u{202e}', '\u{2028}', '\u{200b}', '\u{feff}',
    ] {
        assert!(!text.contains(c), "{what} carries {c:?}: {text:?}");
    }
}

#[test]
fn terminal_escapes_in_a_model_never_reach_the_terminal() {
    let fixture = nvme_with("model", ESCAPES);
    for format in ["table", "markdown", "discord", "prometheus"] {
        let out = check(&fixture, &["--format", format, "-v"]);
        assert_inert(format, &out.stdout);
        assert_inert(format, &out.stderr);
    }
}

#[test]
fn terminal_escapes_in_a_saved_smartctl_model_never_reach_the_terminal() {
    let source =
        crate::cli_support::smartctl_fixture("nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(source).expect("smartctl fixture")).expect("json");
    // An OSC 52 clipboard write, then a title change.
    json["model_name"] = format!("\u{1b}]52;c;cm0gLXJmIH4K\u{7}{ESCAPES}").into();
    let (_dir, saved) = written("smartctl.json", serde_json::to_vec(&json).expect("json"));
    // No model in sysfs, so smartctl's is the one shown.
    let fixture = nvme_with("model", "");
    let out = check(
        &fixture,
        &["--smartctl-json", saved.to_str().expect("utf-8")],
    );
    assert!(
        out.stdout.contains("pwned"),
        "the model is shown: {}",
        out.stdout
    );
    assert_inert("table", &out.stdout);
    assert_inert("stderr", &out.stderr);
}

/// A drives file of `entries` entries that all have the model pattern `pattern`.
fn database_of(entries: usize, pattern: &str) -> String {
    let mut text = String::from("schema_version = 1\nversion = \"hostile\"\n");
    for i in 0..entries {
        text.push_str(&format!(
            "\n[[drives]]\nid = \"d{i}\"\nvendor = \"V\"\nfamily = \"F\"\ninterface = \"nvme\"\n\
             form_factor = \"M.2 2280\"\nnand = \"tlc\"\ndram = \"yes\"\nclass = \"mainstream\"\n\
             grade = \"good\"\nnotes = \"n\"\nsources = []\nmodels = ['{pattern}']\n"
        ));
    }
    text
}

/// `db lookup`, which loads the whole database and prints one answer (a listing of thousands
/// of entries would fill the pipe `run_limited` reads only at the end).
fn db_lookup(file: &Path) -> Limited {
    run_limited(&[
        os("--db"),
        file.as_os_str(),
        os("db"),
        os("lookup"),
        os("m"),
    ])
}

#[test]
fn patterns_that_compile_big_together_are_refused_by_their_total_size() {
    // Each pattern is far under the per-regex limit; 2,000 of them (450 KB of TOML) took
    // 370 MB, and 70,000 (under the old 16 MiB cap) took 5.8 GB.
    let (_dir, file) = written(
        "drives.toml",
        database_of(2_000, "[a-z]{50}[0-9]{50}(x|y){200}"),
    );
    let out = db_lookup(&file);
    assert_eq!(out.code, Some(4), "refused, not aborted: {}", out.stderr);
    assert!(
        out.stderr.contains("too large") && out.stderr.contains("8 MiB"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&file.display().to_string()),
        "{}",
        out.stderr
    );
}

#[test]
fn a_database_with_too_many_entries_is_refused_by_their_count() {
    let (_dir, file) = written("drives.toml", database_of(5_001, "m"));
    let out = db_lookup(&file);
    assert_eq!(out.code, Some(4), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("5001 drive entries, more than the 5000"),
        "{}",
        out.stderr
    );
    let (_dir, file) = written("drives.toml", database_of(5_000, "m"));
    let out = db_lookup(&file);
    assert_eq!(out.code, Some(0), "5,000 entries are fine: {}", out.stderr);
}

#[test]
fn a_database_over_4_mib_is_refused_before_it_is_parsed() {
    let mut text = database_of(1, "m");
    text.push_str(&format!("# {}\n", "x".repeat(4 << 20)));
    let (_dir, file) = written("drives.toml", text);
    let out = db_lookup(&file);
    assert_eq!(out.code, Some(4), "{}", out.stderr);
    assert!(out.stderr.contains("4 MiB"), "{}", out.stderr);
}
