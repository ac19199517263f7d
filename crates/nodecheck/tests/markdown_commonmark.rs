//! The Markdown report read back by a CommonMark parser (with GitHub's tables): every finding's
//! detail and fix renders to exactly its text, and every command in a fix is a code span whose
//! text is the command, so pasting it runs what the finding says.

use crate::cli_support::{all_scenarios, stdout, Fixture};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// What a reader sees in each list item: the rendered text (code spans without their
/// backticks) and the code spans alone.
#[derive(Debug, Default, Clone)]
struct Rendered {
    text: String,
    code: Vec<String>,
}

fn list_items(markdown: &str) -> Vec<Rendered> {
    let mut items = Vec::new();
    let mut stack: Vec<Rendered> = Vec::new();
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Item) => stack.push(Rendered::default()),
            Event::End(TagEnd::Item) => items.extend(stack.pop()),
            Event::Text(text) => {
                if let Some(item) = stack.last_mut() {
                    item.text.push_str(&text);
                }
            }
            Event::Code(code) => {
                if let Some(item) = stack.last_mut() {
                    item.text.push_str(&code);
                    item.code.push(code.to_string());
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(item) = stack.last_mut() {
                    item.text.push(' ');
                }
            }
            // The folded JSON is the only HTML the report means to write, outside any list.
            Event::Html(_) | Event::InlineHtml(_) if !stack.is_empty() => {
                panic!("raw HTML where text was meant: {event:?}\n{markdown}")
            }
            _ => {}
        }
    }
    items
}

/// `text` as a reader should see it, and its backtick spans.
fn expected(text: &str) -> (String, Vec<String>) {
    let spans = text
        .split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect();
    (text.replace('`', ""), spans)
}

#[test]
fn every_fix_renders_to_its_exact_text_and_commands() {
    let mut fixes_seen = 0;
    let mut pipes_seen = 0;
    for scenario in all_scenarios() {
        let fixture = Fixture::build(scenario);
        let json = fixture.check(&["--json", "--bench", "none"]);
        let report: serde_json::Value = match serde_json::from_slice(&json.stdout) {
            Ok(report) => report,
            Err(_) => continue, // scenarios that cannot be checked have no report
        };
        let markdown = stdout(&fixture.check(&["--format", "markdown", "--no-redact"]));
        let items = list_items(&markdown);
        for finding in report["findings"].as_array().into_iter().flatten() {
            if finding["severity"] == "ok" {
                continue;
            }
            let Some(fix) = finding["fix"].as_str() else {
                continue;
            };
            fixes_seen += 1;
            pipes_seen += fix.matches('|').count();
            let (text, code) = expected(fix);
            let want = format!("Fix: {text}");
            let item = items.iter().find(|i| i.text == want).unwrap_or_else(|| {
                panic!(
                    "{}: no list item renders to {want:?}; items: {:#?}\n{markdown}",
                    scenario.name, items
                )
            });
            assert_eq!(item.code, code, "{}: code spans of {fix:?}", scenario.name);
        }
    }
    assert!(fixes_seen > 30, "the scenarios have fixes ({fixes_seen})");
    assert!(
        pipes_seen > 0,
        "a fix with a pipeline was rendered and checked"
    );
}

#[test]
fn hostile_text_cannot_inject_markdown() {
    let fixture = Fixture::named("hostile_huge_model");
    let markdown = stdout(&fixture.check(&["--format", "markdown", "--no-redact"]));
    // Parsing panics on raw HTML; every item must also be plain text.
    for item in list_items(&markdown) {
        assert!(!item.text.contains("\\|"), "{item:?}");
    }
}
