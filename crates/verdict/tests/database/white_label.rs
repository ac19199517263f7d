//! Strings that name no maker product line: the list's rule for drives whose components are not
//! guaranteed (Kingston NV1/NV2) grades them bad, until hardware evidence pins both their NAND
//! and their DRAM.

use crate::support::db;

use verdict::{ClassQuery, Components, EntryInterface, Grade, PciId};

fn nvme(model: &str) -> ClassQuery<'_> {
    ClassQuery {
        model,
        interface: Some(EntryInterface::Nvme),
        ..ClassQuery::default()
    }
}

fn rule_ids(graded: &verdict::UnlistedGrade<'_>) -> Vec<String> {
    graded.rules.iter().map(|r| r.id.clone()).collect()
}

#[test]
fn a_white_label_string_grades_bad_by_the_unguaranteed_components_rule() {
    for model in [
        "SSD 512GB",
        "512GB SSD",
        "2TB  NVME SSD",
        "KINGSTON M2 NVME 250GB",
        "WALRAM 256G",
        "Anucell 128GB",
        "256GB PCS PCIe M.2 SSD",
        "3DFX",
        "GOODRAM",
        "FORESEE 512GB SSD",
        "Lexar 256GB SSD",
    ] {
        let graded = db().grade_unlisted(&ClassQuery {
            controller: Some("Silicon Motion"),
            firmware: Some("V0808A0"),
            ..nvme(model)
        });
        let class = graded.classification.as_ref().expect("classified");
        assert_eq!(class.id(), "white-label-nvme", "{model}");
        assert_eq!(class.components, Some(Components::Unguaranteed), "{model}");
        assert_eq!(graded.grade, Grade::Bad, "{model}");
        assert_eq!(rule_ids(&graded), ["unguaranteed-components"], "{model}");
        let notes = &graded.rules[0].notes;
        assert!(notes.contains("names no maker product line"), "{notes}");
        assert!(notes.contains("Kingston NV1"), "{notes}");
        assert!(notes.contains("nodecheck bench"), "{notes}");
        assert!(
            class.evidence[0]
                .text
                .contains("names no maker product line"),
            "{:?}",
            class.evidence
        );
    }
}

#[test]
fn named_product_lines_are_not_white_label() {
    // A brand followed by a line name, a maker's part number or a listed family: not the class.
    for model in [
        "1TB MEGA S3 1TB",
        "Asgard AN1TNVMe-M.2/80",
        "Asgard AN4+ 1TNVMe-M.2/80",
        "SBSSD512-HLX-M2P3",
        "AAR256GN021122030",
        "APS-SE20 1TB",
        "Samsung SSD 980 PRO 1TB",
        "KINGSTON SNV2S1000G",
        "SSD 512GB extra",
    ] {
        let got = db().classify(&nvme(model));
        assert!(
            got.as_ref()
                .and_then(|c| c.rule)
                .is_none_or(|r| r.components.is_none()),
            "`{model}` must not be classed as white-label: {:?}",
            got.map(|c| c.id().to_owned())
        );
    }
    // On SATA the NVMe class does not apply.
    let sata = db().classify(&ClassQuery {
        interface: Some(EntryInterface::Sata),
        ..nvme("SSD 512GB")
    });
    assert!(sata.is_none_or(|c| c.id() != "white-label-nvme"));
}

#[test]
fn hardware_evidence_lifts_the_rule_only_when_it_pins_nand_and_dram() {
    // A host memory buffer request pins the DRAM only: still bad, and DRAM-less besides.
    let hmb = db().grade_unlisted(&ClassQuery {
        hmb: Some(true),
        ..nvme("SSD 1TB")
    });
    assert_eq!(hmb.grade, Grade::Bad);
    let ids = rule_ids(&hmb);
    assert!(
        ids.contains(&"unguaranteed-components".to_owned()),
        "{ids:?}"
    );
    assert!(ids.contains(&"dramless".to_owned()), "{ids:?}");

    // The string naming a controller with DRAM pins the DRAM only: the NAND is still anything.
    let e12 = db().grade_unlisted(&nvme("m.2 Smartbuy PS5012-2280 512GB"));
    let class = e12.classification.as_ref().expect("classified");
    assert_eq!(class.id(), "white-label-phison-e12");
    assert_eq!(e12.grade, Grade::Bad);
    assert_eq!(rule_ids(&e12), ["unguaranteed-components"]);

    // A controller PCI id whose rule names both NAND and DRAM: the make-up is known, and the
    // rules for that make-up grade.
    let pinned = db().grade_unlisted(&ClassQuery {
        pci_id: PciId::parse("c0a9:5407"),
        ..nvme("SSD 1TB")
    });
    let class = pinned.classification.as_ref().expect("classified");
    assert_eq!(class.id(), "white-label-nvme");
    assert_eq!(class.components, None);
    assert!(class.nand.is_some() && class.dram.is_some());
    assert!(
        !rule_ids(&pinned).contains(&"unguaranteed-components".to_owned()),
        "{:?}",
        rule_ids(&pinned)
    );
    assert_ne!(pinned.grade, Grade::Unknown);
    assert!(
        class
            .evidence
            .iter()
            .any(|e| e.text.contains("names both its NAND and its DRAM")),
        "{:?}",
        class.evidence
    );
}

#[test]
fn db_check_refuses_an_unguaranteed_class_that_pins_its_nand() {
    let classes = r#"schema_version = 1

[[classes]]
id = "test-white-label"
label = "Test: white label"
models = ['NONAME \d+GB']
interface = "nvme"
class = "budget"
nand = "tlc"
components = "unguaranteed"
evidence = "names no product line"
sources = ["hall-of-blame"]
examples = ["NONAME 512GB"]
"#;
    let db = db()
        .clone()
        .with_classes(classes, "test-classes.toml")
        .expect("parses");
    let issues: Vec<String> = db
        .validate()
        .into_iter()
        .map(|i| i.to_string())
        .filter(|i| i.contains("test-white-label"))
        .collect();
    assert!(
        issues.iter().any(|i| i.contains("pins a NAND")),
        "{issues:?}"
    );
}

#[test]
fn rebrander_lines_seen_on_two_controller_makers_are_unguaranteed() {
    // The same string on Silicon Motion (0x126f) and Maxio (0x1e4b) in linuxhw reports.
    for (model, controller) in [
        ("Asgard AN2 250NVMe-M.2/80", "Silicon Motion"),
        ("Asgard AN2 250NVMe-M.2/80", "Maxio"),
        ("Asgard AN3 1TNVMe-M.2/80", "Silicon Motion"),
        ("ASint AS806 512GB", "Maxio"),
    ] {
        let graded = db().grade_unlisted(&ClassQuery {
            controller: Some(controller),
            ..nvme(model)
        });
        let class = graded.classification.as_ref().expect("classified");
        assert_eq!(class.id(), "rebrander-lines-mixed-controllers", "{model}");
        assert_eq!(graded.grade, Grade::Bad, "{model}");
        assert_eq!(rule_ids(&graded), ["unguaranteed-components"], "{model}");
        assert!(
            class.evidence[0].text.contains("Maxio"),
            "{:?}",
            class.evidence
        );
    }
}
