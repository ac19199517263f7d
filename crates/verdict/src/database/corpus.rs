//! The corpus of real model strings (`data/corpus/*.tsv`) and what the database makes of it:
//! every labelled string must resolve to its entry and no other, every unlisted string to its
//! class. Read by the corpus test and by `cargo xtask db-coverage`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{controller_maker, parse_hex_u16, ClassQuery, Database, DriveQuery, EntryInterface};
use crate::model::Grade;

/// The share of the random sample (`data/corpus/sample`) allowed to get neither a family nor a
/// class before `cargo xtask db-coverage` fails: the [`SAMPLE_UNKNOWN_TARGET_PERCENT`], now that
/// the database meets it, so the line holds.
pub const SAMPLE_UNKNOWN_GATE_PERCENT: f64 = SAMPLE_UNKNOWN_TARGET_PERCENT;
/// The unknown share the database aims for on the random sample.
pub const SAMPLE_UNKNOWN_TARGET_PERCENT: f64 = 5.0;

/// Column names, in order, of the name tables (model strings as a collection's tables print
/// them: these check entry patterns, not what a drive reports).
pub const CORPUS_COLUMNS: [&str; 7] = [
    "model", "vendor", "capacity", "firmware", "kind", "expect", "source",
];

/// Column names, in order, of report rows: one report file each, every field copied from it
/// (smartctl's `Model Number:`/`Device Model:`, `Firmware Version:`, the capacity in bytes,
/// `Model Family:`, NVMe `PCI Vendor ID`/`Subsystem ID`), the report's path as source.
pub const REPORT_COLUMNS: [&str; 9] = [
    "model",
    "firmware",
    "capacity",
    "model_family",
    "pci_vendor",
    "pci_subsystem",
    "kind",
    "expect",
    "source",
];

/// What a corpus row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// A name from a collection's table: checked against entry patterns only.
    Name,
    /// A drive's identity copied from one report file: classified and graded like the probe does.
    Report,
}

/// The drive kinds the sources sort reports into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Nvme,
    /// SATA or SAS solid state.
    Ssd,
    Hdd,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
        match s {
            "nvme" => Some(Kind::Nvme),
            "ssd" => Some(Kind::Ssd),
            "hdd" => Some(Kind::Hdd),
            _ => None,
        }
    }

    pub fn interface(self) -> EntryInterface {
        match self {
            Kind::Nvme => EntryInterface::Nvme,
            Kind::Ssd | Kind::Hdd => EntryInterface::Sata,
        }
    }

    fn probe_interface(self) -> probe::Interface {
        match self {
            Kind::Nvme => probe::Interface::Nvme,
            Kind::Ssd | Kind::Hdd => probe::Interface::Sata,
        }
    }
}

/// What a corpus string must resolve to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum Expect {
    /// The drives.toml entry id.
    Entry(String),
    /// No entry; this data/classes.toml class.
    Class(String),
    /// Nothing is known about it.
    Nothing,
}

impl Expect {
    fn parse(s: &str) -> Option<Expect> {
        if s == "none" {
            return Some(Expect::Nothing);
        }
        match s.strip_prefix("class:") {
            Some(id) if !id.is_empty() => Some(Expect::Class(id.to_owned())),
            Some(_) => None,
            None if !s.is_empty() => Some(Expect::Entry(s.to_owned())),
            None => None,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CorpusRow {
    /// Where the row is: file name and 1-based line.
    pub origin: String,
    pub line: usize,
    pub model: String,
    pub vendor: String,
    pub capacity_bytes: Option<u64>,
    pub firmware: Option<String>,
    pub kind: Kind,
    pub expect: Expect,
    pub source: String,
    pub row_kind: RowKind,
    /// smartctl's `Model Family:` (report rows).
    pub model_family: Option<String>,
    /// The NVMe controller's PCI vendor id and subsystem vendor id (report rows).
    pub pci_vendor: Option<u16>,
    pub pci_subsystem: Option<u16>,
}

#[derive(Debug, thiserror::Error)]
#[error("{origin}:{line}: {message}")]
pub struct CorpusError {
    pub origin: String,
    pub line: usize,
    pub message: String,
}

/// `512 GB`, `1.9 TB`, `4 TB`: decimal units, as drive makers and the sources print them.
pub fn parse_capacity(s: &str) -> Option<u64> {
    let s = s.trim();
    let (number, unit) = s.split_once(' ').unwrap_or((s, ""));
    let multiplier: f64 = match unit.trim().to_ascii_uppercase().as_str() {
        "GB" | "G" => 1e9,
        "TB" | "T" => 1e12,
        "MB" | "M" => 1e6,
        _ => return None,
    };
    let value: f64 = number.parse().ok()?;
    if !value.is_finite() || value <= 0.0 || value > 1e6 {
        return None;
    }
    Some((value * multiplier).round() as u64)
}

/// A byte count as smartctl prints it: digits grouped by the reporting machine's locale
/// (`1,024,209,543,168`, `128 035 676 160`, `128.035.676.160`, or a no-break space).
pub fn parse_report_bytes(s: &str) -> Option<u64> {
    const GROUPING: [char; 6] = [',', '.', ' ', '\'', '\u{a0}', '\u{202f}'];
    let digits: String = s.trim().chars().filter(|c| !GROUPING.contains(c)).collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok().filter(|b| *b > 0)
}

/// Parses one corpus file. Lines starting with `#` are comments; the first other line is the
/// header and must name [`CORPUS_COLUMNS`].
pub fn parse_corpus(text: &str, origin: &str) -> Result<Vec<CorpusRow>, CorpusError> {
    let err = |line: usize, message: String| CorpusError {
        origin: origin.to_owned(),
        line,
        message,
    };
    let mut rows = Vec::new();
    let mut header: Option<RowKind> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.starts_with('#') || raw.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = raw.split('\t').collect();
        let Some(row_kind) = header else {
            header = if fields == CORPUS_COLUMNS {
                Some(RowKind::Name)
            } else if fields == REPORT_COLUMNS {
                Some(RowKind::Report)
            } else {
                return Err(err(
                    line,
                    format!(
                        "header must be `{}` or `{}`",
                        CORPUS_COLUMNS.join("<TAB>"),
                        REPORT_COLUMNS.join("<TAB>")
                    ),
                ));
            };
            continue;
        };
        let want = match row_kind {
            RowKind::Name => CORPUS_COLUMNS.len(),
            RowKind::Report => REPORT_COLUMNS.len(),
        };
        if fields.len() != want {
            return Err(err(line, format!("{} fields, want {want}", fields.len())));
        }
        let dash = |s: &str| (s != "-").then(|| s.to_owned());
        let (
            model,
            vendor,
            capacity,
            firmware,
            family,
            pci_vendor,
            pci_subsystem,
            kind,
            expect,
            source,
        ) = match row_kind {
            RowKind::Name => (
                fields[0], fields[1], fields[2], fields[3], "-", "-", "-", fields[4], fields[5],
                fields[6],
            ),
            RowKind::Report => (
                fields[0], "", fields[2], fields[1], fields[3], fields[4], fields[5], fields[6],
                fields[7], fields[8],
            ),
        };
        if model.trim().is_empty() {
            return Err(err(line, "empty model".into()));
        }
        let capacity_bytes = match (capacity, row_kind) {
            ("-", _) => None,
            (c, RowKind::Name) => {
                Some(parse_capacity(c).ok_or_else(|| err(line, format!("bad capacity `{c}`")))?)
            }
            (c, RowKind::Report) => Some(
                parse_report_bytes(c)
                    .ok_or_else(|| err(line, format!("bad capacity in bytes `{c}`")))?,
            ),
        };
        let pci = |s: &str| match s {
            "-" => Ok(None),
            s => parse_hex_u16(s)
                .map(Some)
                .ok_or_else(|| err(line, format!("bad PCI id `{s}`"))),
        };
        let pci_vendor = pci(pci_vendor)?;
        let pci_subsystem = pci(pci_subsystem)?;
        let kind = Kind::parse(kind)
            .ok_or_else(|| err(line, format!("kind `{kind}` is not nvme, ssd or hdd")))?;
        let expect = Expect::parse(expect).ok_or_else(|| {
            err(
                line,
                format!("expect `{expect}` is not an entry id, class:<id> or none"),
            )
        })?;
        if source.trim().is_empty() {
            return Err(err(line, "empty source".into()));
        }
        rows.push(CorpusRow {
            origin: origin.to_owned(),
            line,
            model: model.to_owned(),
            vendor: vendor.to_owned(),
            capacity_bytes,
            firmware: dash(firmware),
            kind,
            expect,
            source: source.to_owned(),
            row_kind,
            model_family: dash(family),
            pci_vendor,
            pci_subsystem,
        });
    }
    if header.is_none() {
        return Err(err(0, "no header line".into()));
    }
    Ok(rows)
}

/// What the database made of one row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Every entry whose patterns match (more than one is a collision).
    pub entries: Vec<String>,
    /// The entry a lookup picks, truncated-prefix matching included.
    pub entry: Option<String>,
    /// The class of a row without an entry.
    pub class: Option<String>,
    /// The first generic rule of the list the class reaches, if any.
    pub generic: Option<String>,
    /// The grade the user sees: the entry's (capacity and firmware rules applied), or the
    /// worst of the list's generic rules the class reaches, as `triage` and `check` judge it.
    pub grade: Grade,
}

impl Outcome {
    pub fn got(&self) -> Expect {
        match (&self.entry, &self.class) {
            (Some(e), _) => Expect::Entry(e.clone()),
            (None, Some(c)) => Expect::Class(c.clone()),
            (None, None) => Expect::Nothing,
        }
    }
}

pub fn evaluate_row(db: &Database, row: &CorpusRow) -> Outcome {
    let entries: Vec<String> = db
        .entries_matching(&row.model)
        .into_iter()
        .map(|e| e.id.clone())
        .collect();
    let mut q = DriveQuery::new(&row.model).interface(row.kind.probe_interface());
    if let Some(c) = row.capacity_bytes {
        q = q.capacity(c);
    }
    if let Some(f) = &row.firmware {
        q = q.firmware(f);
    }
    let lookup = db.lookup(&q);
    let entry = lookup.entry.map(|e| e.id.clone());
    if entry.is_some() {
        return Outcome {
            entries,
            entry,
            class: None,
            generic: None,
            grade: lookup.grade,
        };
    }
    let interface = Some(row.kind.interface());
    // What the probe and `triage` know besides the string: the controller maker from the PCI
    // vendor id the report prints (NVMe identify VID), smartctl's ATA model family, the
    // firmware revision.
    let vendor = row.pci_vendor.map(|v| format!("{v:04x}"));
    let unlisted = db.grade_unlisted(&ClassQuery {
        model: &row.model,
        interface,
        controller: vendor.as_deref().and_then(controller_maker),
        model_family: row.model_family.as_deref(),
        firmware: row.firmware.as_deref(),
        rotational: (row.kind == Kind::Hdd && row.row_kind == RowKind::Report).then_some(true),
        ..ClassQuery::default()
    });
    Outcome {
        entries,
        entry: None,
        class: unlisted.classification.as_ref().map(|c| c.id().to_owned()),
        generic: unlisted.rules.first().map(|g| g.id.clone()),
        grade: unlisted.grade,
    }
}

/// Counts over a corpus, as `cargo xtask db-coverage` prints them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Coverage {
    pub rows: usize,
    pub distinct_models: usize,
    /// Rows labelled with an entry.
    pub labelled: usize,
    /// Of those, rows that resolve to exactly their entry.
    pub labelled_matched: usize,
    /// Rows labelled `class:` or `none`.
    pub unlisted: usize,
    /// Of those, rows that resolve to no entry and exactly their expected class (or nothing).
    pub unlisted_as_expected: usize,
    /// Unlisted rows that got some class.
    pub unlisted_classified: usize,
    /// Rows matching more than one entry.
    pub collisions: Vec<Mismatch>,
    /// Rows that resolved to something other than their label.
    pub mismatches: Vec<Mismatch>,
    /// Rows per entry id that resolved to it.
    pub per_family: BTreeMap<String, usize>,
    /// Rows per class id that resolved to it.
    pub per_class: BTreeMap<String, usize>,
    /// Rows per generic rule reached through a class.
    pub per_generic: BTreeMap<String, usize>,
    /// Rows with neither an entry nor a class.
    pub unknown: usize,
    /// Report rows per drive kind, and of those the ones whose grade is unknown (a class that
    /// reaches no rule of the list is no answer).
    pub graded_rows: BTreeMap<Kind, usize>,
    pub grade_unknown: BTreeMap<Kind, usize>,
    /// The report rows whose grade is unknown, to work on.
    pub grade_unknown_rows: Vec<Mismatch>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Mismatch {
    pub origin: String,
    pub line: usize,
    pub model: String,
    pub expected: Expect,
    pub got: Expect,
    pub entries: Vec<String>,
}

impl Coverage {
    /// Share of rows with neither an entry nor a class, in percent.
    pub fn unknown_percent(&self) -> f64 {
        if self.rows == 0 {
            0.0
        } else {
            100.0 * self.unknown as f64 / self.rows as f64
        }
    }

    /// Share of report rows of `kind` whose grade is unknown, in percent; `None` without rows.
    pub fn grade_unknown_percent(&self, kind: Kind) -> Option<f64> {
        let rows = *self.graded_rows.get(&kind)?;
        (rows > 0).then(|| {
            100.0 * self.grade_unknown.get(&kind).copied().unwrap_or(0) as f64 / rows as f64
        })
    }

    pub fn matched_percent(&self) -> f64 {
        if self.labelled == 0 {
            100.0
        } else {
            100.0 * self.labelled_matched as f64 / self.labelled as f64
        }
    }
}

pub fn evaluate(db: &Database, rows: &[CorpusRow]) -> Coverage {
    let mut cov = Coverage {
        rows: rows.len(),
        ..Coverage::default()
    };
    let mut models = std::collections::HashSet::new();
    for row in rows {
        models.insert(row.model.as_str());
        let outcome = evaluate_row(db, row);
        let got = outcome.got();
        let mismatch = || Mismatch {
            origin: row.origin.clone(),
            line: row.line,
            model: row.model.clone(),
            expected: row.expect.clone(),
            got: got.clone(),
            entries: outcome.entries.clone(),
        };
        if outcome.entries.len() > 1 {
            cov.collisions.push(mismatch());
        }
        match &got {
            Expect::Entry(id) => *cov.per_family.entry(id.clone()).or_default() += 1,
            Expect::Class(id) => *cov.per_class.entry(id.clone()).or_default() += 1,
            Expect::Nothing => cov.unknown += 1,
        }
        if let Some(g) = &outcome.generic {
            *cov.per_generic.entry(g.clone()).or_default() += 1;
        }
        if row.row_kind == RowKind::Report {
            *cov.graded_rows.entry(row.kind).or_default() += 1;
            if outcome.grade == Grade::Unknown {
                *cov.grade_unknown.entry(row.kind).or_default() += 1;
                cov.grade_unknown_rows.push(mismatch());
            }
        }
        // A name from a table is not a drive's identity: it checks entry patterns (a listed name
        // resolves to its entry, an unlisted one to none), not classes.
        let as_expected = match (row.row_kind, &row.expect) {
            (RowKind::Name, Expect::Class(_) | Expect::Nothing) => {
                outcome.entry.is_none() && outcome.entries.is_empty()
            }
            _ => got == row.expect && outcome.entries.len() <= 1,
        };
        match &row.expect {
            Expect::Entry(_) => {
                cov.labelled += 1;
                if as_expected {
                    cov.labelled_matched += 1;
                }
            }
            Expect::Class(_) | Expect::Nothing => {
                cov.unlisted += 1;
                if as_expected {
                    cov.unlisted_as_expected += 1;
                }
                if matches!(got, Expect::Class(_)) {
                    cov.unlisted_classified += 1;
                }
            }
        }
        if !as_expected {
            cov.mismatches.push(mismatch());
        }
    }
    cov.distinct_models = models.len();
    cov
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_are_decimal() {
        let cases = [
            ("512 GB", Some(512_000_000_000)),
            ("1.9 TB", Some(1_900_000_000_000)),
            ("4 TB", Some(4_000_000_000_000)),
            ("15.... TB", None),
            ("-1 GB", None),
            ("NaN GB", None),
            ("12 parsecs", None),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_capacity(text), bytes, "{text}");
        }
    }

    #[test]
    fn report_bytes_accept_every_locale_grouping() {
        let cases = [
            ("1,024,209,543,168", Some(1_024_209_543_168)),
            ("128 035 676 160", Some(128_035_676_160)),
            ("128.035.676.160", Some(128_035_676_160)),
            ("128\u{a0}035\u{a0}676\u{a0}160", Some(128_035_676_160)),
            ("0", None),
            ("", None),
            ("12 GB", None),
            ("-5", None),
            ("99999999999999999999999", None),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_report_bytes(text), bytes, "{text}");
        }
    }

    #[test]
    fn rows_are_checked_field_by_field() {
        let header = CORPUS_COLUMNS.join("\t");
        let ok = format!("# c\n{header}\nX1\tV\t1 TB\t-\tnvme\tnone\tsrc\n");
        let rows = parse_corpus(&ok, "t.tsv").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].line, 3);
        assert_eq!(rows[0].expect, Expect::Nothing);
        for bad in [
            "X1\tV\t1 TB\t-\tnvme\tnone",
            "X1\tV\t1 TB\t-\ttape\tnone\tsrc",
            "X1\tV\tbig\t-\tnvme\tnone\tsrc",
            "X1\tV\t1 TB\t-\tnvme\tclass:\tsrc",
            "\tV\t1 TB\t-\tnvme\tnone\tsrc",
            "X1\tV\t1 TB\t-\tnvme\tnone\t ",
        ] {
            let text = format!("{header}\n{bad}\n");
            assert!(parse_corpus(&text, "t.tsv").is_err(), "{bad:?}");
        }
        assert!(parse_corpus("model\tvendor\n", "t.tsv").is_err());
        assert!(parse_corpus("# only comments\n", "t.tsv").is_err());
    }
}
