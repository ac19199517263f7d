//! Lookups: model string → entry, then capacity rules, then firmware rules.

use std::borrow::Cow;

use super::{
    Advisory, Database, DriveEntry, DriveQuery, EntryInterface, Lookup, PlatformMatch,
    PlatformQuery,
};
use crate::model::{Grade, Severity};

/// Model strings longer than this are not drive models; matching stops looking at them so a
/// hostile report cannot make a lookup expensive.
const MAX_MODEL_LEN: usize = 256;

/// The model string as entries are written against: surrounding whitespace and NUL padding
/// removed, inner runs of whitespace collapsed to one space (ATA and SCSI strings are
/// space-padded fixed-width fields, and sysfs keeps the padding).
pub fn normalize_model(model: &str) -> Cow<'_, str> {
    let trimmed = model.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    let trimmed = match trimmed.char_indices().nth(MAX_MODEL_LEN) {
        Some((cut, _)) => &trimmed[..cut],
        None => trimmed,
    };
    let needs_collapse = trimmed
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_whitespace() && w[1].is_ascii_whitespace())
        || trimmed.chars().any(|c| c.is_whitespace() && c != ' ');
    if !needs_collapse {
        return Cow::Borrowed(trimmed);
    }
    let mut out = String::with_capacity(trimmed.len());
    for word in trimmed.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    Cow::Owned(out)
}

/// Company names drives put in front of their model (`Samsung SSD 980 PRO 1TB`,
/// `WDC WDS100T3X0C-00SJG0`, `WD_BLACK SN850X 2000GB`, `KINGSTON SA400S37240G`), lowercase,
/// longest first among those sharing a start. Public databases such as linuxhw/SMART list the
/// same drives without them (`980 PRO 1TB`), so entries are written against the bare model.
const VENDOR_PREFIXES: &[&str] = &[
    "samsung ssd ",
    "samsung ",
    "western digital ",
    "wd black ",
    "wd blue ",
    "wd green ",
    "wd red ",
    "wdc ",
    "wd ",
    "kingston ",
    "crucial ",
    "intel ",
    "solidigm ",
    "micron ",
    "sk hynix ",
    "skhynix ",
    "hynix ",
    "seagate ",
    "toshiba ",
    "kioxia ",
    "adata ",
    "corsair ",
    "sabrent ",
    "lexar ssd ",
    "lexar ",
    "hp ssd ",
    "hp ",
    "pny ",
    "patriot ",
    "teamgroup ",
    "team ",
    "netac ",
    "sandisk ",
    "transcend ",
    "mushkin ",
    "hgst ",
    "hitachi ",
    "ssd ",
];

/// The model as entry patterns are written: [`normalize_model`], underscores read as spaces
/// (`WD_BLACK`, `Micron_5300_MTFDDAK480TDS`), and the vendor prefixes above removed. Falls
/// back to the normalised model when nothing but a prefix is left.
pub fn canonical_model(model: &str) -> String {
    let normalized = normalize_model(model);
    let spaced: String = normalized.replace('_', " ");
    let mut key = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    // Two rounds: `WDC WD_BLACK ...` and `Samsung SSD ...` carry two layers of prefix.
    for _ in 0..2 {
        let lower = key.to_ascii_lowercase();
        let Some(prefix) = VENDOR_PREFIXES.iter().find(|p| {
            lower.len() > p.len() && lower.is_char_boundary(p.len()) && lower.starts_with(*p)
        }) else {
            break;
        };
        key = key[prefix.len()..].to_string();
    }
    if key.is_empty() {
        normalized.into_owned()
    } else {
        key
    }
}

/// The forms of one reported model that entry patterns are tried against: as reported
/// (normalised) and its canonical key. A pattern written for either form matches.
#[derive(Debug, Clone)]
pub struct ModelForms {
    pub reported: String,
    pub canonical: String,
}

impl ModelForms {
    pub fn new(model: &str) -> ModelForms {
        ModelForms {
            reported: normalize_model(model).into_owned(),
            canonical: canonical_model(model),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.reported.is_empty()
    }

    /// True when `re` matches either form.
    pub fn matched_by(&self, re: &regex::Regex) -> bool {
        re.is_match(&self.reported)
            || (self.canonical != self.reported && re.is_match(&self.canonical))
    }
}

fn normalize_firmware(firmware: &str) -> &str {
    firmware.trim_matches(|c: char| c.is_whitespace() || c == '\0')
}

pub(crate) fn lookup<'a>(db: &'a Database, q: &DriveQuery) -> Lookup<'a> {
    let model = normalize_model(q.model);
    let mut advisories = Vec::new();
    let entry = match pick_entry(db, &model, q) {
        Some(entry) => entry,
        None => match pick_by_truncated_prefix(db, &model, q) {
            Some(entry) => {
                advisories.push(Advisory {
                    code: format!("{}/truncated-model", entry.id),
                    severity: Severity::Info,
                    text: format!(
                        "Matched on `{model}`, the first {SCSI_MODEL_LEN} characters of the model: all Linux shows of a SATA drive's name without root. It is the only family in the database whose names start so."
                    ),
                    fix: Some("Confirm the full model with `sudo smartctl -i /dev/DRIVE` (or run nodecheck as root).".into()),
                });
                entry
            }
            None => {
                return Lookup {
                    entry: None,
                    grade: Grade::Unknown,
                    advisories,
                    nand: None,
                    dram: None,
                }
            }
        },
    };
    apply_rules(entry, q, advisories)
}

/// An entry's capacity, firmware and family rules applied to one drive; `advisories` already
/// holds what the match itself had to say.
pub(crate) fn apply_rules<'a>(
    entry: &'a DriveEntry,
    q: &DriveQuery,
    mut advisories: Vec<Advisory>,
) -> Lookup<'a> {
    let mut grade = entry.grade;
    let mut nand = entry.nand;
    let mut dram = entry.dram;

    let advise = |rule_id: &str, severity, text: &str, fix: &Option<String>| {
        Advisory::of_rule(&entry.id, rule_id, severity, text, fix)
    };
    // Capacity first: it decides what hardware this is (the 4TB model is QLC); firmware
    // advisories then apply to that hardware.
    match q.capacity_bytes {
        Some(capacity) => {
            for rule in entry.capacity.iter().filter(|r| r.contains(capacity)) {
                if let Some(g) = rule.grade {
                    grade = g;
                }
                nand = rule.nand.or(nand);
                dram = rule.dram.or(dram);
                advisories.push(advise(&rule.id, rule.severity, &rule.text, &rule.fix));
            }
        }
        None => {
            if let Some(rule) = entry
                .capacity
                .iter()
                .find(|r| r.grade.is_some_and(|g| g > entry.grade))
            {
                advisories.push(Advisory::unknown(
                    &entry.id,
                    "capacity",
                    "The capacity is not known, and it matters for this family",
                    &rule.text,
                    &format!(
                        "Give the capacity (`nodecheck db lookup {} --capacity 4TB`, with the drive's size) or run on the machine with the drive.",
                        shell_quoted(q.model)
                    ),
                ));
            }
        }
    }

    match q.firmware.map(normalize_firmware).filter(|f| !f.is_empty()) {
        Some(firmware) => {
            for rule in entry.firmware.iter().filter(|r| r.matches(firmware)) {
                // A firmware problem is a property of this particular drive: it can only make
                // the grade worse than what model and capacity say.
                if let Some(g) = rule.grade {
                    grade = grade.max(g);
                }
                advisories.push(advise(&rule.id, rule.severity, &rule.text, &rule.fix));
            }
        }
        None => {
            if let Some(rule) = entry
                .firmware
                .iter()
                .find(|r| r.grade.is_some_and(|g| g > Grade::Good))
            {
                advisories.push(Advisory::unknown(
                    &entry.id,
                    "firmware",
                    "The firmware revision is not known, and some revisions of this family need an update",
                    &rule.text,
                    &format!(
                        "Read it with `lsblk -d -o name,model,rev` (rev is the firmware revision) and, with `rev` set to it, look the drive up again: `nodecheck db lookup {} --firmware \"$rev\"`.",
                        shell_quoted(q.model)
                    ),
                ));
            }
        }
    }

    for rule in &entry.advisories {
        advisories.push(advise(&rule.id, rule.severity, &rule.text, &rule.fix));
    }

    Lookup {
        entry: Some(entry),
        grade,
        advisories,
        nand,
        dram,
    }
}

/// The entry for a model. A valid database has at most one candidate; for a user's `--db`
/// file with overlapping patterns the entry whose interface agrees with the drive's wins, then
/// the first in file order, so the answer is deterministic.
fn pick_entry<'a>(db: &'a Database, model: &str, q: &DriveQuery) -> Option<&'a DriveEntry> {
    let forms = ModelForms::new(model);
    if forms.is_empty() {
        return None;
    }
    let mut candidates = db.drives.iter().filter(|e| e.matches_forms(&forms));
    let first = candidates.next()?;
    let wanted = q.interface.and_then(EntryInterface::from_probe);
    if wanted.is_none() || wanted == Some(first.interface) {
        return Some(first);
    }
    Some(
        candidates
            .find(|e| Some(e.interface) == wanted)
            .unwrap_or(first),
    )
}

/// libata gives the SCSI layer only the first 16 bytes of the 40-byte ATA model, and that is
/// what `/sys/block/sdX/device/model` shows; the full string needs IDENTIFY (root) or smartctl.
const SCSI_MODEL_LEN: usize = 16;

/// Resolves a model cut to 16 characters when the examples of exactly one entry start with it.
/// Only a cut that ends inside a word (exactly 16 characters after trimming) is tried: a cut
/// that ends on a space, like `Samsung SSD 870 `, cannot tell EVO from QVO and must stay
/// unknown. NVMe models are never cut.
fn pick_by_truncated_prefix<'a>(
    db: &'a Database,
    model: &str,
    q: &DriveQuery,
) -> Option<&'a DriveEntry> {
    if q.interface == Some(probe::Interface::Nvme) || model.chars().count() != SCSI_MODEL_LEN {
        return None;
    }
    let prefix = model.to_lowercase();
    let mut owners = db.drives.iter().filter(|e| {
        e.examples.iter().any(|x| {
            let x = normalize_model(x).to_lowercase();
            x.len() > prefix.len() && x.starts_with(&prefix)
        })
    });
    let first = owners.next()?;
    match owners.next() {
        None => Some(first),
        Some(_) => None,
    }
}

fn platform_fits(p: &PlatformMatch, q: &PlatformQuery) -> bool {
    fn field(re: &Option<regex::Regex>, value: Option<&str>) -> bool {
        match re {
            None => true,
            Some(re) => value.is_some_and(|v| re.is_match(normalize_model(v).as_ref())),
        }
    }
    let cloud_ok = match (&p.cloud, q.cloud) {
        (None, _) => true,
        (Some(want), Some(have)) => want.eq_ignore_ascii_case(have.trim()),
        (Some(_), None) => false,
    };
    cloud_ok
        && field(&p.sys_vendor, q.sys_vendor)
        && field(&p.product_name, q.product_name)
        && field(&p.bios_version, q.bios_version)
}

/// How much of the identity an entry's platform match pins down; a more specific match
/// (vendor, product and BIOS version) beats a vendor-only one.
fn specificity(p: &PlatformMatch) -> usize {
    usize::from(p.cloud.is_some())
        + usize::from(p.sys_vendor.is_some())
        + usize::from(p.product_name.is_some())
        + usize::from(p.bios_version.is_some())
}

pub(crate) fn platform_matches<'a>(db: &'a Database, q: &PlatformQuery) -> Vec<&'a DriveEntry> {
    db.drives
        .iter()
        .filter(|e| e.platform.as_ref().is_some_and(|p| platform_fits(p, q)))
        .collect()
}

pub(crate) fn lookup_platform<'a>(
    db: &'a Database,
    q: &PlatformQuery,
    models: &[&str],
) -> Option<&'a DriveEntry> {
    let matches = platform_matches(db, q);
    let best = matches
        .iter()
        .copied()
        .filter_map(|e| e.platform.as_ref().map(|p| (specificity(p), e)))
        .max_by(|(sa, a), (sb, b)| sa.cmp(sb).then(a.grade.cmp(&b.grade)))
        .map(|(_, e)| e);
    if best.is_some() {
        return best;
    }
    models.iter().find_map(|m| {
        let forms = ModelForms::new(m);
        db.drives
            .iter()
            .filter(|e| e.class == super::Class::Cloud)
            .find(|e| e.matches_forms(&forms))
    })
}

/// `text` as one shell word in single quotes, for a command a fix prints.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.trim().replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_trims_padding_and_collapses_spaces() {
        assert_eq!(
            normalize_model("  Samsung SSD 980 PRO 2TB   \n"),
            "Samsung SSD 980 PRO 2TB"
        );
        assert_eq!(
            normalize_model("WDC  WDS100T3X0C-00SJG0\0\0"),
            "WDC WDS100T3X0C-00SJG0"
        );
        assert_eq!(normalize_model("a\tb"), "a b");
        assert_eq!(normalize_model(""), "");
        assert!(matches!(normalize_model("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn canonical_model_drops_vendor_prefixes_and_underscores() {
        assert_eq!(canonical_model("Samsung SSD 980 PRO 1TB"), "980 PRO 1TB");
        assert_eq!(canonical_model("Samsung 980 PRO 1TB"), "980 PRO 1TB");
        assert_eq!(
            canonical_model("WDC  WDS100T3X0C-00SJG0"),
            "WDS100T3X0C-00SJG0"
        );
        assert_eq!(canonical_model("WD_BLACK SN850X 2000GB"), "SN850X 2000GB");
        assert_eq!(canonical_model("KINGSTON SA400S37240G"), "SA400S37240G");
        assert_eq!(
            canonical_model("Micron_5300_MTFDDAK480TDS"),
            "5300 MTFDDAK480TDS"
        );
        assert_eq!(canonical_model("SSD 970 EVO Plus"), "970 EVO Plus");
        // A prefix is only removed when something follows it.
        assert_eq!(canonical_model("Samsung SSD"), "SSD");
        assert_eq!(canonical_model("SSD"), "SSD");
        assert_eq!(canonical_model("WDC "), "WDC");
        assert_eq!(canonical_model(""), "");
    }

    #[test]
    fn canonical_model_never_splits_a_character() {
        for s in [
            "Samsung\u{e9}",
            "wdc\u{1F600} x",
            "ssd\u{0301}abc",
            "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}",
        ] {
            let _ = canonical_model(s);
        }
    }

    #[test]
    fn normalize_caps_huge_strings_on_a_char_boundary() {
        let huge = "é".repeat(10_000);
        let n = normalize_model(&huge);
        assert_eq!(n.chars().count(), MAX_MODEL_LEN);
    }
}
