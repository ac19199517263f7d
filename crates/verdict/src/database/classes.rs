//! Classes for drives the list does not name (`data/classes.toml`): the class, NAND and DRAM
//! a part-number scheme or product line implies, so the list's general rules can grade a drive
//! without an entry, plus what the probe itself saw (rotational media, a host memory buffer
//! request). Every classification carries the evidence that decided it.

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::build::{read, IdSet};
use super::error::{DbError, ErrorKind};
use super::{
    Class, Components, ControllerMatch, Database, Dram, EntryInterface, ModelForms, Nand, PciId,
    Traits,
};

/// The classes file compiled into the binary.
pub const EMBEDDED_CLASSES: &str = include_str!("../../../../data/classes.toml");
pub const EMBEDDED_CLASSES_ORIGIN: &str = "data/classes.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassesFile {
    schema_version: u32,
    #[serde(default)]
    classes: Vec<ClassRule>,
}

/// One class rule: a part-number scheme or product line and what it implies, read from the
/// TOML as written; the loader compiles its patterns.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRule {
    /// Stable, unique, kebab-case (`intel-dc-nvme-tlc`).
    pub id: String,
    pub label: String,
    #[serde(skip)]
    pub models: Vec<Regex>,
    #[serde(rename = "models")]
    pub model_patterns: Vec<String>,
    /// smartmontools drivedb family names (smartctl's `Model Family:`, JSON `model_family`)
    /// that also mean this class, for ATA drives whose model string alone does not say.
    #[serde(skip)]
    pub families: Vec<Regex>,
    #[serde(default, rename = "families")]
    pub family_patterns: Vec<String>,
    /// When set, the class only applies to drives whose reported firmware revision matches
    /// one of these patterns (whole-string, case-insensitive): a controller maker's firmware
    /// naming scheme (Phison's `ECFM` for the PS5012-E12) says what the model string cannot.
    #[serde(skip)]
    pub firmware: Vec<Regex>,
    #[serde(default, rename = "firmware")]
    pub firmware_patterns: Vec<String>,
    /// Real firmware revisions the class's drives report; db-check classifies every model
    /// example with each of them. Required when `firmware` is set.
    #[serde(default)]
    pub firmware_examples: Vec<String>,
    /// When set, the class only applies to drives whose NVMe controller is by one of these
    /// makers (see [`controller_maker`]).
    #[serde(default)]
    pub controllers: Vec<String>,
    /// The interface the scheme belongs to; a drive seen on another interface is not this class.
    pub interface: Option<EntryInterface>,
    pub class: Class,
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    /// `unguaranteed` for strings that name no maker product line (a bare capacity, a
    /// rebrander's name): nothing about the NAND and DRAM is guaranteed, which the list's
    /// `unguaranteed-components` rule grades. Such a class cannot pin the NAND; hardware
    /// evidence that pins both NAND and DRAM lifts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Components>,
    /// Why the scheme means this, for the finding.
    pub evidence: String,
    pub sources: Vec<String>,
    /// Real model strings of the class; each must resolve to this class.
    pub examples: Vec<String>,
}

impl ClassRule {
    pub fn matches_forms(&self, forms: &ModelForms) -> bool {
        !forms.is_empty() && self.models.iter().any(|re| forms.matched_by(re))
    }

    pub fn matches_family(&self, family: Option<&str>) -> bool {
        family.is_some_and(|f| self.families.iter().any(|re| re.is_match(f.trim())))
    }

    /// A class without firmware patterns takes any firmware; one with them needs a reported
    /// revision that matches, so an unknown firmware never satisfies a firmware scheme.
    pub fn matches_firmware(&self, firmware: Option<&str>) -> bool {
        self.firmware.is_empty()
            || firmware.is_some_and(|f| self.firmware.iter().any(|re| re.is_match(f.trim())))
    }
}

/// What a classification is asked about: the model and what the probe knows besides it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassQuery<'a> {
    pub model: &'a str,
    pub interface: Option<EntryInterface>,
    /// The probe's judgement that this is spinning media (rotation rate or rotational flag).
    pub rotational: Option<bool>,
    /// The NVMe controller asks for a host memory buffer (HMPRE > 0 in identify).
    pub hmb: Option<bool>,
    /// The maker of the NVMe controller, from its PCI vendor id ([`controller_maker`]).
    pub controller: Option<&'a str>,
    /// The NVMe controller's PCI vendor and device id (sysfs `device/vendor`, `device/device`).
    pub pci_id: Option<PciId>,
    /// smartctl's ATA `model_family` (smartmontools drivedb), where the report has one.
    pub model_family: Option<&'a str>,
    /// The firmware revision the drive reports (NVMe identify `FR`, ATA identify words 23-26;
    /// smartctl's `firmware_version`).
    pub firmware: Option<&'a str>,
}

/// Makers of client NVMe controllers by PCI vendor id (sysfs `device/vendor`, `0x1987`, or the
/// identify VID): drives that carry no product name of their own keep the controller maker's id.
const CONTROLLER_MAKERS: &[(u16, &str)] = &[
    (0x1987, "Phison"),
    (0x126f, "Silicon Motion"),
    (0x1e4b, "Maxio"),
    (0x10ec, "Realtek"),
    (0x1dbe, "InnoGrit"),
];

/// The controller maker for a PCI vendor id written as sysfs does (`0x1987`) or bare hex.
pub fn controller_maker(pci_vendor: &str) -> Option<&'static str> {
    let id = super::parse_hex_u16(pci_vendor)?;
    CONTROLLER_MAKERS
        .iter()
        .find(|(vid, _)| *vid == id)
        .map(|(_, name)| *name)
}

/// Where a piece of evidence came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    /// The model string matched a class's part-number scheme or product line.
    PartNumber,
    /// The drive reports rotating media.
    Rotational,
    /// The NVMe controller requests a host memory buffer, which DRAM-less controllers do.
    HostMemoryBuffer,
    /// The NVMe controller's PCI device id names a controller whose specification says.
    ControllerModel,
    /// smartctl's ATA model family (smartmontools drivedb) named the class.
    ModelFamily,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    pub kind: EvidenceKind,
    pub text: String,
}

/// The class of a drive without an entry and why.
#[derive(Debug, Clone, Serialize)]
pub struct Classification<'a> {
    /// The class rule whose scheme matched, when the model string decided.
    pub rule: Option<&'a ClassRule>,
    pub class: Option<Class>,
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    /// `Unguaranteed` while the class says the maker guarantees no make-up and no hardware
    /// evidence pins both NAND and DRAM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub components: Option<Components>,
    /// The NVMe controller its PCI id named, when that was evidence.
    pub controller: Option<ControllerMatch<'a>>,
    pub evidence: Vec<Evidence>,
}

impl Classification<'_> {
    /// The traits the list's generic rules are matched against.
    pub fn traits(&self, interface: Option<EntryInterface>) -> Traits {
        Traits {
            nand: self.nand,
            dram: self.dram,
            class: self.class,
            interface: interface.or(self.rule.and_then(|r| r.interface)),
            rotational: Some(self.class == Some(Class::Hdd)),
            virtualized: None,
            components: self.components,
        }
    }

    /// A short name for the class: the rule's label, or what the probe saw.
    pub fn label(&self) -> String {
        match (self.rule, self.evidence.first().map(|e| e.kind)) {
            (Some(rule), _) => rule.label.clone(),
            (None, Some(EvidenceKind::Rotational)) => "Hard disk (rotating media)".into(),
            (None, Some(EvidenceKind::HostMemoryBuffer)) => {
                "DRAM-less NVMe (asks for a host memory buffer)".into()
            }
            (None, Some(EvidenceKind::ControllerModel)) => {
                match self.controller.as_ref().and_then(|c| c.rule) {
                    Some(rule) => format!("NVMe drive on {}", rule.controller),
                    None => match self.controller.as_ref().and_then(|c| c.pci_name) {
                        Some(name) => format!("NVMe drive: {name} (pci.ids)"),
                        None => "NVMe drive (controller named by PCI id)".into(),
                    },
                }
            }
            (None, _) => "Unclassified".into(),
        }
    }

    /// The id naming this classification in reports and the corpus: the class rule's, or the
    /// probe evidence's when no scheme matched.
    pub fn id(&self) -> &str {
        match (self.rule, self.evidence.first().map(|e| e.kind)) {
            (Some(rule), _) => &rule.id,
            (None, Some(EvidenceKind::Rotational)) => "rotational",
            (None, Some(EvidenceKind::HostMemoryBuffer)) => "host-memory-buffer",
            (None, Some(EvidenceKind::ControllerModel)) => "controller",
            (None, _) => "unclassified",
        }
    }
}

pub(crate) fn parse(text: &str, origin: &str) -> Result<Vec<ClassRule>, DbError> {
    let (file, ctx) = read(text, origin, |f: &ClassesFile| f.schema_version)?;
    let mut ids = IdSet::default();
    let mut rules = file.classes;
    ctx.with_unique_ids(
        &mut rules,
        &mut ids,
        "class",
        "classes",
        |c| &c.id,
        |c, at| {
            if c.model_patterns.is_empty() {
                return Err(ctx.err(
                    ErrorKind::MissingField,
                    &format!("{at}.id"),
                    format!("class `{}` has no model patterns", c.id),
                    "add the part-number patterns the class stands for",
                ));
            }
            c.models = ctx.regexes(&c.model_patterns, &format!("{at}.models"), "model pattern")?;
            c.families = ctx.regexes(
                &c.family_patterns,
                &format!("{at}.families"),
                "family pattern",
            )?;
            c.firmware = ctx.regexes(
                &c.firmware_patterns,
                &format!("{at}.firmware"),
                "firmware pattern",
            )?;
            Ok(())
        },
    )?;
    Ok(rules)
}

/// The first class whose scheme matches (file order puts specific schemes first), refined by
/// what the probe saw: rotating media makes a hard disk whatever the string says, and a host
/// memory buffer request means no DRAM of its own.
pub(crate) fn classify<'a>(db: &'a Database, q: &ClassQuery) -> Option<Classification<'a>> {
    let forms = ModelForms::new(q.model);
    let fits = |r: &&ClassRule| {
        let interface_fits = match (r.interface, q.interface) {
            (Some(want), Some(have)) => want == have,
            _ => true,
        };
        let controller_fits = r.controllers.is_empty()
            || q.controller.is_some_and(|c| {
                r.controllers
                    .iter()
                    .any(|want| want.eq_ignore_ascii_case(c))
            });
        interface_fits && controller_fits && r.matches_firmware(q.firmware)
    };
    let by_model = db
        .classes
        .iter()
        .filter(fits)
        .find(|r| r.matches_forms(&forms));
    let by_family = match by_model {
        Some(_) => None,
        None => db
            .classes
            .iter()
            .filter(fits)
            .find(|r| r.matches_family(q.model_family)),
    };
    let rule = by_model.or(by_family);
    let controller = q.pci_id.and_then(|id| db.controller(id));
    let mut out = Classification {
        rule,
        class: rule.map(|r| r.class),
        nand: rule.and_then(|r| r.nand),
        dram: rule.and_then(|r| r.dram),
        components: rule.and_then(|r| r.components),
        controller: None,
        evidence: Vec::new(),
    };
    if q.rotational == Some(true) {
        out.evidence.push(Evidence {
            kind: EvidenceKind::Rotational,
            text: "the drive reports rotating media".into(),
        });
        if out.class != Some(Class::Hdd) {
            out.rule = None;
            out.class = Some(Class::Hdd);
            out.nand = None;
            out.dram = None;
            out.components = None;
        }
    }
    if let Some(rule) = out.rule {
        let controller = match (rule.controllers.is_empty(), q.controller) {
            (false, Some(c)) => format!(" Controller: {c}."),
            _ => String::new(),
        };
        let firmware = match (rule.firmware.is_empty(), q.firmware) {
            (false, Some(f)) => format!(" Firmware: {}.", f.trim()),
            _ => String::new(),
        };
        let (kind, family) = match by_family {
            Some(_) => (
                EvidenceKind::ModelFamily,
                format!(
                    "smartctl names the model family \"{}\": ",
                    q.model_family.unwrap_or_default().trim()
                ),
            ),
            None => (EvidenceKind::PartNumber, String::new()),
        };
        out.evidence.push(Evidence {
            kind,
            text: format!(
                "{family}{}{controller}{firmware} (class `{}`)",
                rule.evidence.trim(),
                rule.id
            ),
        });
    }
    if out.class != Some(Class::Hdd) {
        if let Some(found) = controller {
            apply_controller(&mut out, found, &db.pci_ids.version);
        }
    }
    if q.hmb == Some(true) && out.class != Some(Class::Hdd) {
        out.evidence.push(Evidence {
            kind: EvidenceKind::HostMemoryBuffer,
            text: "the NVMe controller asks the host for a memory buffer (HMB), which controllers without DRAM of their own do".into(),
        });
        out.dram = Some(Dram::Hmb);
    }
    // The list's premise for drives whose components are not guaranteed is that their make-up
    // is unknown: once the hardware pins both the NAND and the DRAM, the rules for those grade.
    if out.components == Some(Components::Unguaranteed) && out.nand.is_some() && out.dram.is_some()
    {
        out.components = None;
        out.evidence.push(Evidence {
            kind: EvidenceKind::ControllerModel,
            text: "the hardware names both its NAND and its DRAM, so the make-up is known although the model string guarantees none".into(),
        });
    }
    (!out.evidence.is_empty()).then_some(out)
}

/// What the controller's PCI id adds: its DRAM (the hardware outranks a part-number scheme's
/// typical make-up), its NAND or class where the id names one drive line, and the evidence.
fn apply_controller<'a>(out: &mut Classification<'a>, found: ControllerMatch<'a>, version: &str) {
    let Some(rule) = found.rule else {
        apply_pci_ids_mark(out, found, version);
        return;
    };
    if rule.dram.is_some() {
        out.dram = rule.dram;
    }
    out.nand = out.nand.or(rule.nand);
    out.class = out.class.or(rule.class);
    out.evidence.push(Evidence {
        kind: EvidenceKind::ControllerModel,
        text: found.describe(version),
    });
    out.controller = Some(found);
}

/// An id with no controller rule still counts when pci.ids marks the design DRAM-less (and,
/// for some, its NAND): the DRAM outranks a class's typical make-up as a rule's would.
fn apply_pci_ids_mark<'a>(out: &mut Classification<'a>, found: ControllerMatch<'a>, version: &str) {
    let Some((dram, nand)) = found
        .pci_name
        .and_then(super::controllers::pci_ids_design_mark)
    else {
        return;
    };
    out.dram = Some(dram);
    out.nand = out.nand.or(nand);
    out.evidence.push(Evidence {
        kind: EvidenceKind::ControllerModel,
        text: format!(
            "{}: pci.ids marks this design DRAM-less{}",
            found.describe(version),
            match nand {
                Some(n) => format!(" with {} NAND", n.as_str().to_uppercase()),
                None => String::new(),
            }
        ),
    });
    out.controller = Some(found);
}

/// Problems `cargo xtask db-check` reports for the classes: citations, examples that do not
/// resolve to their own class, patterns that match nothing.
pub(crate) fn validate(
    db: &Database,
    source_ids: &std::collections::HashSet<&str>,
) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    for rule in &db.classes {
        let mut problem = |m: String| problems.push((rule.id.clone(), m));
        if rule.sources.is_empty() {
            problem("has no source: cite where the claim comes from".into());
        }
        for s in &rule.sources {
            if !source_ids.contains(s.as_str()) {
                problem(format!(
                    "cites unknown source `{s}` (add it to [[sources]] in data/drives.toml)"
                ));
            }
        }
        if rule.evidence.trim().is_empty() {
            problem("has no evidence text".into());
        }
        if rule.examples.is_empty() {
            problem("has no `examples` (real reported strings)".into());
        }
        if rule.components == Some(Components::Unguaranteed) && rule.nand.is_some() {
            problem(
                "says its components are not guaranteed but pins a NAND: leave `nand` out (the hardware may pin it)"
                    .into(),
            );
        }
        for (pattern, re) in rule.model_patterns.iter().zip(&rule.models) {
            if re.is_match("") {
                problem(format!(
                    "model pattern `{pattern}` matches the empty string"
                ));
            }
        }
        for (pattern, re) in rule.firmware_patterns.iter().zip(&rule.firmware) {
            if re.is_match("") {
                problem(format!(
                    "firmware pattern `{pattern}` matches the empty string"
                ));
            }
        }
        match (rule.firmware.is_empty(), rule.firmware_examples.is_empty()) {
            (false, true) => problem(
                "has `firmware` patterns but no `firmware_examples` (real reported revisions)"
                    .into(),
            ),
            (true, false) => {
                problem("has `firmware_examples` but no `firmware` patterns to match".into())
            }
            _ => {}
        }
        for f in &rule.firmware_examples {
            if !rule.matches_firmware(Some(f)) {
                problem(format!(
                    "firmware example `{f}` matches none of the class's firmware patterns"
                ));
            }
        }
        // A class with a firmware scheme is checked with each revision it cites; a class
        // without one with no firmware at all.
        let firmwares: Vec<Option<&str>> = if rule.firmware_examples.is_empty() {
            vec![None]
        } else {
            rule.firmware_examples
                .iter()
                .map(|f| Some(f.as_str()))
                .collect()
        };
        for (x, firmware) in
            (rule.examples.iter()).flat_map(|x| firmwares.iter().map(move |f| (x, *f)))
        {
            let got = classify(
                db,
                &ClassQuery {
                    model: x,
                    interface: rule.interface,
                    controller: rule.controllers.first().map(String::as_str),
                    firmware,
                    ..ClassQuery::default()
                },
            );
            let got_id = got.as_ref().map(|c| c.id().to_string());
            if got_id.as_deref() != Some(rule.id.as_str()) {
                let with = firmware.map_or(String::new(), |f| format!(" with firmware `{f}`"));
                problem(format!(
                    "example `{x}`{with} resolves to {} instead",
                    got_id.map_or("no class".to_string(), |id| format!("class `{id}`"))
                ));
            }
            let owners = db.entries_matching(x);
            if let Some(owner) = owners.first() {
                problem(format!(
                    "example `{x}` is listed (entry `{}`): a class example must be an unlisted drive",
                    owner.id
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::controller_maker;

    #[test]
    fn controller_makers_come_from_pci_vendor_ids() {
        assert_eq!(controller_maker("0x1987"), Some("Phison"));
        assert_eq!(controller_maker("126f"), Some("Silicon Motion"));
        assert_eq!(controller_maker(" 0X1E4B\n"), Some("Maxio"));
        assert_eq!(controller_maker("0x144d"), None);
        assert_eq!(controller_maker("0x1987xyz"), None);
        assert_eq!(controller_maker(""), None);
    }
}
