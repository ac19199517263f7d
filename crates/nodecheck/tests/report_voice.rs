//! One voice across a report: the same unit for the same figure, clients by their names,
//! notes wrapped and never cut, and a replay says what it replays.

use crate::cli_support::{assert_contains, stderr, stdout, triage, written, Fixture};

/// The `N GB`/`N TB` figure before `free` in a line.
fn free_figure(line: &str) -> Option<String> {
    let at = line.find(" free")?;
    let words: Vec<&str> = line[..at].split_whitespace().collect();
    let (number, unit) = (words.get(words.len().checked_sub(2)?)?, words.last()?);
    Some(format!("{number} {unit}"))
}

#[test]
fn header_and_free_space_finding_print_the_same_figure() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let table = stdout(&fixture.check(&["--bench", "none"]));
    let header = table
        .lines()
        .find(|l| l.starts_with("Mount:"))
        .expect("mount line");
    let finding = table
        .lines()
        .find(|l| l.contains(" free") && l.contains("has "))
        .expect("NC511 detail");
    let (a, b) = (free_figure(header), free_figure(finding));
    assert!(a.is_some() && a == b, "{header:?} vs {finding:?}");
    assert!(
        !table.contains(" us ") && !table.contains("GiB free"),
        "{table}"
    );
}

#[test]
fn the_verdict_line_names_the_client_as_the_findings_do() {
    let fixture = Fixture::named("nvme_degraded_pcie_link");
    let table = stdout(&fixture.check(&["--bench", "none"]));
    let verdict = table.lines().last().expect("verdict line");
    let story = "[needs of every client (none named or detected); Reth fails first]";
    assert!(verdict.ends_with(story), "{verdict}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&fixture.check(&["--bench", "none", "--json"])))
            .expect("json");
    let nc511 = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["code"] == "NC511")
        .expect("NC511");
    assert!(
        nc511["detail"]
            .as_str()
            .unwrap_or("")
            .contains("Reth (the most demanding client that fails)"),
        "{nc511}"
    );
    // The JSON summary, markdown and discord say it in the same words.
    assert!(
        json["summary"].as_str().unwrap_or("").ends_with(story),
        "{}",
        json["summary"]
    );
    assert_eq!(json["client"]["story"], story.trim_matches(['[', ']']));
    let markdown = stdout(&fixture.check(&["--bench", "none", "--format", "markdown"]));
    assert_contains(
        &markdown,
        &format!("| Judged for | {} |", story.trim_matches(['[', ']'])),
    );
    let discord = stdout(&fixture.check(&["--bench", "none", "--format", "discord"]));
    assert_contains(&discord, story);
}

#[test]
fn long_notes_are_wrapped_whole_and_triage_names_its_file() {
    let fixture = Fixture::named("sata_ahci");
    let json = stdout(&fixture.check(&["--json", "--bench", "none"]));
    let mut report: serde_json::Value = serde_json::from_str(&json).expect("report");
    let long = format!(
        "Measurement skipped:{} the end of this note is the fix: run `nodecheck bench --force --test qd1 /data`",
        " a long reason,".repeat(20)
    );
    report["notes"] = serde_json::json!([long.clone()]);
    let (_dir, saved) = written("report.json", report.to_string());

    let output = triage(&saved, &[]);
    let table = stdout(&output);
    assert!(
        matches!(output.status.code(), Some(0..=2)),
        "{}",
        stderr(&output)
    );
    for line in table.lines() {
        assert!(
            line.chars().count() <= 80,
            "{line:?} is wider than 80 columns"
        );
    }
    let mut note = String::new();
    let mut in_note = false;
    for line in table.lines() {
        if let Some(rest) = line.strip_prefix("Note:     ") {
            in_note = rest.starts_with("Measurement skipped");
            if in_note {
                note = rest.to_string();
            }
        } else if in_note && line.starts_with("          ") {
            note.push(' ');
            note.push_str(line.trim());
        } else {
            in_note = false;
        }
    }
    assert_eq!(note, long, "the note, unwrapped, is whole");
    assert_eq!(table.matches("Measurement skipped").count(), 1, "{table}");
    let source = table
        .lines()
        .find(|l| l.starts_with("Source:"))
        .expect("source line");
    assert_eq!(source, "Source:   replayed from report.json");
}

/// The database's internal names (entry and rule ids such as `samsung-970-evo-plus/pre-rework`
/// or `tlc-and-dram`) and its curators' notes (which part number is which form factor, which
/// strings an entry matches) are for the database's maintainers, never in a report.
#[test]
fn no_internal_id_or_curator_note_reaches_user_text() {
    let data = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/drives.toml"),
    )
    .expect("drives.toml");
    // Every `id = "..."` of the database: entries, their rules, generic rules.
    let ids: Vec<&str> = data
        .lines()
        .filter_map(|l| l.strip_prefix("id = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|id| id.contains('-'))
        .collect();
    assert!(ids.len() > 100, "the database's ids ({})", ids.len());
    let mut texts = Vec::new();
    for file in [
        "nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json",
        "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json",
        "INTEL_SSDPE2KX080T8_1.json",
        "sat-Samsung_based_SSDs-SAMSUNG_MZ7LH1T9HMLT-00005-sda.json",
    ] {
        let path = crate::cli_support::smartctl_fixture(file);
        for format in ["json", "table", "markdown", "discord"] {
            let out = triage(&path, &["--format", format, "-v"]);
            texts.push((format!("{file} ({format})"), stdout(&out)));
        }
    }
    for scenario in crate::cli_support::all_scenarios().iter().take(12) {
        let fixture = Fixture::build(scenario);
        let out = fixture.check(&["--bench", "none", "--format", "markdown", "-v"]);
        texts.push((scenario.name.to_string(), stdout(&out)));
    }
    let mut problems = Vec::new();
    for (origin, text) in &texts {
        // The markdown embeds the full JSON document for triage; its facts are the machine's.
        let text = text.split("<details>").next().unwrap_or(text);
        for id in &ids {
            for shape in [format!("[{id}]"), format!("`{id}`"), format!("/{id}]")] {
                if text.contains(&shape) {
                    problems.push(format!("{origin}: internal id {shape}"));
                }
            }
        }
        for note in ["SA400S37 = 2.5", "this entry", "Model string not verified"] {
            if text.contains(note) {
                problems.push(format!("{origin}: curator note {note:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
