//! `nodecheck submit [PATH]`: runs the full benchmark (or reads a saved full report) and prints
//! a `[[drives.results]]` TOML block for `data/drives.toml`, in the schema of
//! `docs/database-schema.md`, plus the pull-request steps.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use bench::{BenchReport, BenchTarget, Plan};
use probe::Root;
use probe::{Drive, Facts, Interface};
use serde::Serialize;

use super::{emit, say};
use crate::config::{GlobalOptions, SubmitConfig};
use crate::report::Report;

/// The benchmark id in `data/drives.toml`'s `[[benchmarks]]` that nodecheck's randrw is.
pub const BENCHMARK_ID: &str = "nodecheck-randrw";

#[derive(Debug, Serialize)]
struct ResultBlock {
    drives: ResultDrives,
}

#[derive(Debug, Serialize)]
struct ResultDrives {
    results: Vec<ResultRow>,
}

/// One crowd result, field for field as the database schema names them.
#[derive(Debug, Serialize)]
struct ResultRow {
    model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    firmware: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interface: Option<&'static str>,
    read_iops: u32,
    write_iops: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    qd1_read_p50_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qd1_read_p99_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qd1_read_p999_us: Option<f64>,
    engine: &'static str,
    span_bytes: u64,
    nodecheck_version: String,
    date: String,
    benchmark: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    context: verdict::ResultContext,
}

pub fn run(config: &SubmitConfig, global: &GlobalOptions) -> Result<u8> {
    let (facts, bench) = match &config.from {
        Some(file) => from_report(file)?,
        None => measure_now(config, global)?,
    };
    let block = result_block(&facts, &bench, &today_utc())?;
    let entry = entry_for(&facts, global);
    let header = match &entry {
        Some(id) => format!(
            "# paste under the [[drives]] entry with id = {} in data/drives.toml\n",
            toml_quoted(id)
        ),
        None => "# no [[drives]] entry matches this model yet: add one first (docs/contributing-drives.md)\n"
            .to_string(),
    };
    // After the block's own first comment line, which names the drive.
    let (first, rest) = block.split_once('\n').unwrap_or((block.as_str(), ""));
    emit(&format!("{first}\n{header}{rest}"))?;
    say(global, &pull_request_steps(&facts, entry.as_deref()));
    Ok(crate::exit_codes::GOOD)
}

/// A `check --bench full --json` report is well under a MiB; the typed parse below holds no
/// more than the document's own values.
const MAX_REPORT_BYTES: u64 = 16 << 20;

fn from_report(file: &Path) -> Result<(Facts, BenchReport)> {
    let bytes = probe::input::read_user_file(file, MAX_REPORT_BYTES, "a nodecheck report")?;
    let report: Report = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not a `nodecheck check --json` report",
            file.display()
        )
    })?;
    let bench = report.bench.ok_or_else(|| {
        anyhow!(
            "{} has no measurements; create it with `nodecheck check --bench full --json`",
            file.display()
        )
    })?;
    Ok((report.facts, bench))
}

fn measure_now(config: &SubmitConfig, global: &GlobalOptions) -> Result<(Facts, BenchReport)> {
    let path = match &config.path {
        Some(p) => p.clone(),
        None => super::detect_datadir()
            .map(|d| d.path)
            .unwrap_or_else(|| PathBuf::from(".")),
    };
    // Said before the 150 GiB run is announced, not after.
    if !path.is_dir() {
        bail!(
            "{} is not a directory: submit measures the drive under a directory (the node's data directory); to submit a saved report, give it with --from",
            path.display()
        );
    }
    let facts = super::probe::probe_facts(&Root::live(), &path, &probe::ProbeOptions::default())?;
    single_drive(&facts)?;
    say(
        global,
        &format!(
            "Running the full benchmark in {}: a 150 GiB test file (less if space is short), \
             QD1 latency and randrw 75/25. This takes a while; Ctrl-C stops it and removes the file.",
            path.display()
        ),
    );
    let directory = super::measure::measured_directory(&path);
    let mut plan = Plan::full(BenchTarget::Directory(directory));
    plan.live_node_clients = crate::config::ClientName::processes();
    let cooperation = crate::signals::cooperate()
        .context("cannot install the Ctrl-C handler that removes the test file")?;
    plan.cancel = cooperation.token().clone();
    let mut bars = crate::progress::Bars::for_stderr(global.verbosity);
    match bench::run(&plan, &mut bars) {
        Ok(report) => Ok((facts, report)),
        Err(err) => {
            if plan.cancel.is_cancelled() {
                super::measure::stop_on_signal(Some(cooperation), bars);
            }
            Err(anyhow::Error::new(err).context("the benchmark failed"))
        }
    }
}

fn single_drive(facts: &Facts) -> Result<&Drive> {
    match facts.drives.as_slice() {
        [drive] => Ok(drive),
        [] => bail!("no physical drive found under {}; submit needs one drive", facts.path),
        drives => bail!(
            "{} is on {} drives ({}); results in data/ are per drive: run submit on a file system on one drive",
            facts.path,
            drives.len(),
            drives.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The TOML block. Fails when a fact the database needs is missing, rather than printing a
/// block that `cargo xtask db-check` would refuse.
pub fn result_block(facts: &Facts, bench: &BenchReport, date: &str) -> Result<String> {
    let drive = single_drive(facts)?;
    let model = drive
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .ok_or_else(|| anyhow!("the drive's model is unknown; the database matches on it"))?;
    let randrw = bench.randrw.as_ref().ok_or_else(|| {
        anyhow!(
            "the report has no randrw result; create it with `nodecheck check --bench full --json`"
        )
    })?;
    let qd1 = bench.qd1.as_ref();
    let mut notes = Vec::new();
    if !randrw.fio_comparable {
        notes.push(format!(
            "span {} is below the list's 150G",
            bench::ByteSize(randrw.span_bytes)
        ));
    }
    if let Some(word) = verdict::qd1_rule_word(bench).filter(|w| *w != "ok") {
        notes.push(format!("QD1 latency {word} by nodecheck's QD1 rule"));
    }
    let context = result_context(facts, drive, bench)?;
    let row = ResultRow {
        model: model.to_string(),
        firmware: drive
            .firmware
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_string),
        capacity_bytes: drive.capacity_bytes,
        interface: drive.interface.and_then(interface_id),
        read_iops: iops(randrw.read_iops),
        write_iops: iops(randrw.write_iops),
        qd1_read_p50_us: qd1.map(|q| round1(q.lat_us.p50)),
        qd1_read_p99_us: qd1.map(|q| round1(q.lat_us.p99)),
        qd1_read_p999_us: qd1.map(|q| round1(q.lat_us.p999)),
        engine: randrw.engine.name(),
        span_bytes: randrw.span_bytes,
        nodecheck_version: env!("CARGO_PKG_VERSION").to_string(),
        date: date.to_string(),
        benchmark: BENCHMARK_ID,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        context,
    };
    let block = ResultBlock {
        drives: ResultDrives { results: vec![row] },
    };
    let toml =
        escape_hidden(&toml::to_string(&block).context("cannot write the result block as TOML")?);
    Ok(format!(
        "# nodecheck result for {}\n{toml}",
        toml_quoted(model)
    ))
}

/// `toml` with every invisible or bidi character (U+202E, U+200B, ...) written as a TOML
/// `\uXXXX` escape, so the block shows on a terminal as it is and still reads back as the same
/// string. They can only stand inside quoted strings: keys and numbers are ASCII.
fn escape_hidden(toml: &str) -> String {
    let mut out = String::with_capacity(toml.len());
    for c in toml.chars() {
        if c != '\n' && crate::render::is_hidden_or_control(c) {
            let code = u32::from(c);
            if code > 0xFFFF {
                out.push_str(&format!("\\U{code:08X}"));
            } else {
                out.push_str(&format!("\\u{code:04X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod escape_tests {
    use super::escape_hidden;

    #[test]
    fn hidden_characters_become_escapes_that_read_back_the_same() {
        let model = "Samsung\u{202E}SSD\u{200B} 990\u{FEFF}";
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Row {
            model: String,
        }
        let toml = escape_hidden(
            &toml::to_string(&Row {
                model: model.into(),
            })
            .expect("toml"),
        );
        assert!(
            toml.chars()
                .all(|c| c == '\n' || !crate::render::is_hidden_or_control(c)),
            "{toml:?}"
        );
        assert!(toml.contains("\\u202E"), "{toml}");
        let back: Row = toml::from_str(&toml).expect("reads back");
        assert_eq!(back.model, model);
    }
}

/// What the result was measured through, for the crowd data (db-check refuses a nodecheck
/// result without it).
fn result_context(
    facts: &Facts,
    drive: &Drive,
    bench: &BenchReport,
) -> Result<verdict::ResultContext> {
    let qd1 = bench.qd1.as_ref().ok_or_else(|| {
        anyhow!(
            "the report has no QD1 result; create it with `nodecheck check --bench full --json`"
        )
    })?;
    let reads_hit_data = match &qd1.read_span {
        Some(span) => span.kind.hits_data(),
        None => qd1.target == "file",
    };
    let rate = |gts: Option<f64>, width: Option<u32>| match (gts, width) {
        (Some(gts), Some(width)) => Some(format!("{gts:.1} GT/s x{width}")),
        _ => None,
    };
    let pcie_link = match &drive.pcie_link {
        Some(link) => match (
            rate(link.current_gts, link.current_width),
            rate(link.max_gts, link.max_width),
        ) {
            (Some(now), Some(max)) => format!("{now} of {max}"),
            (Some(now), None) => now,
            _ => "unknown".to_string(),
        },
        None => "none".to_string(),
    };
    Ok(verdict::ResultContext {
        file_system: facts
            .mount
            .as_ref()
            .map_or_else(|| "unknown".to_string(), |m| m.fs_type.clone()),
        stack: if facts.stack.is_empty() {
            vec![drive.name.clone()]
        } else {
            facts.stack.clone()
        },
        pcie_link,
        virtualized: facts.platform.virtualized.unwrap_or(false),
        cloud: facts
            .platform
            .cloud
            .clone()
            .unwrap_or_else(|| "none".to_string()),
        peak_temperature_c: bench
            .conditions
            .as_ref()
            .and_then(|c| c.temperature.as_ref())
            .map(|t| t.peak_c)
            .or(drive.temperature_c),
        qd1_span_bytes: qd1.span_bytes,
        qd1_engine: qd1.engine.name().to_string(),
        reads_hit_data,
    })
}

/// `text` as one TOML basic string, quotes and escapes included, for comments: a model string
/// is the drive's (or a pasted report's) to choose, and a newline in a comment would end the
/// comment and start live TOML.
/// (The `toml` serializer may pick a multi-line string for text with newlines, so comments
/// use this single-line escaper of TOML 1.0's basic-string rules instead.)
fn toml_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if crate::render::is_hidden_or_control(c) => {
                out.push_str(&format!("\\u{:04X}", u32::from(c)))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The database entry the result belongs under, as `cargo xtask db-check` will place it.
fn entry_for(facts: &Facts, global: &GlobalOptions) -> Option<String> {
    let db = crate::database::load(global).ok()?;
    let drive = facts.drives.first()?;
    let mut query = verdict::DriveQuery::new(drive.model.as_deref()?);
    query.firmware = drive.firmware.as_deref();
    query.capacity_bytes = drive.capacity_bytes;
    query.interface = drive.interface;
    db.lookup(&query).entry.map(|e| e.id.clone())
}

fn iops(value: f64) -> u32 {
    if value.is_finite() && value > 0.0 {
        value.round().min(f64::from(u32::MAX)) as u32
    } else {
        0
    }
}

fn round1(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn interface_id(interface: Interface) -> Option<&'static str> {
    verdict::EntryInterface::from_probe(interface).map(|i| i.as_str())
}

fn pull_request_steps(facts: &Facts, entry: Option<&str>) -> String {
    let model = facts
        .drives
        .first()
        .and_then(|d| d.model.as_deref())
        .map(|model| crate::render::printable(&units::text::clip(model, 100)))
        .unwrap_or_else(|| "your drive".to_string());
    // The model comes from the machine or a pasted report, the entry id from a `--db` file:
    // both reach the terminal.
    let entry = entry.map(|id| crate::render::printable(&units::text::clip(id, 100)));
    let place = match entry {
        Some(id) => format!(
            "Paste the block above into data/drives.toml under the [[drives]] entry with \
             id = \"{id}\", after its other results."
        ),
        None => format!(
            "No entry matches \"{model}\" yet: add a [[drives]] entry for it first \
             (docs/contributing-drives.md), then paste the block above under it."
        ),
    };
    format!(
        "\nTo contribute this result:\n\
         1. Fork the nodecheck repository and clone your fork.\n\
         2. {place}\n\
         3. Save the block to a file and check it: `cargo xtask db-check result.toml`, \
            then `cargo xtask db-check` for the whole database.\n\
         4. Commit (\"data: {model} result\"), push, and open a pull request with the \
            `nodecheck check --format markdown` report of this machine in its description."
    )
}

/// Today's date in UTC as `YYYY-MM-DD` (the database's date format), from the system clock.
pub fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_423), (2025, 12, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn quoted_text_is_one_line_of_valid_toml() {
        for text in [
            "Samsung SSD 980 PRO 2TB",
            "X\"\n[[sources]]\nurl = \"evil\"\r\n# \\",
            "tab\there \u{7f}\u{1b}[31m \u{2028} ünïcödé",
        ] {
            let quoted = toml_quoted(text);
            assert!(!quoted.contains('\n') && !quoted.contains('\r'), "{quoted}");
            let parsed: toml::Table = toml::from_str(&format!("v = {quoted}")).expect("valid TOML");
            assert_eq!(parsed["v"].as_str(), Some(text));
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_quotes_to_one_line_that_parses_back(text in "\\PC*|[\\x00-\\x7f]*") {
            let quoted = toml_quoted(&text);
            proptest::prop_assert!(!quoted.contains('\n') && !quoted.contains('\r'));
            let parsed: toml::Table =
                toml::from_str(&format!("v = {quoted}")).expect("valid TOML");
            proptest::prop_assert_eq!(parsed["v"].as_str(), Some(text.as_str()));
        }
    }

    #[test]
    fn iops_are_whole_and_bounded() {
        assert_eq!(iops(1234.6), 1235);
        assert_eq!(iops(f64::NAN), 0);
        assert_eq!(iops(1e20), u32::MAX);
    }
}
