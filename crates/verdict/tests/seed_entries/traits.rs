//! What the list says about key entries (NAND, DRAM, class), and model strings as tools cut or
//! report them.

use super::*;

#[test]
fn traits_of_key_entries_follow_the_list() {
    let db = db();
    let t = |id: &str| {
        let e = db.entry(id).unwrap_or_else(|| panic!("{id}"));
        (e.nand, e.dram, e.class)
    };
    assert_eq!(
        t("crucial-p3-plus"),
        (Some(Nand::Qlc), Some(Dram::No), Class::Budget)
    );
    assert_eq!(
        t("wd-green-sn350"),
        (Some(Nand::Qlc), Some(Dram::Hmb), Class::Budget)
    );
    assert_eq!(
        t("samsung-980"),
        (Some(Nand::Tlc), Some(Dram::Hmb), Class::Budget)
    );
    assert_eq!(t("wd-black-sn770").1, Some(Dram::Hmb));
    assert_eq!(t("samsung-870-qvo").0, Some(Nand::Qlc));
    assert_eq!(t("intel-dc-p4510").2, Class::DataCenter);
    assert_eq!(t("intel-optane-900p-905p").0, Some(Nand::Xpoint));
    assert_eq!(t("samsung-t7").2, Class::Portable);
    assert_eq!(t("wd-red-hdd").2, Class::Hdd);
    assert_eq!(t("aws-ebs").2, Class::Cloud);
}

#[test]
fn smartctl_fixture_models_are_graded_as_the_issue_expects() {
    // The model_name fields of the real smartctl outputs in crates/probe/tests/data/smartctl.
    let db = db();
    let grade = |model: &str| db.lookup(&DriveQuery::new(model)).grade;
    assert_eq!(grade("WDC WD20EFRX-68EUZN0"), Grade::Bad);
    assert_eq!(grade("KINGSTON SA400M8120G"), Grade::Bad);
    assert_eq!(
        db.lookup(&DriveQuery::new("KINGSTON SA400M8120G"))
            .entry
            .map(|e| e.class),
        Some(Class::Budget)
    );
    assert_eq!(grade("INTEL SSDPE2KX080T8"), Grade::Good);
    assert_eq!(grade("SAMSUNG MZ7LH1T9HMLT-00005"), Grade::Good);
    assert_eq!(grade("Samsung SSD 970 EVO Plus 250GB"), Grade::Good);
}

#[test]
fn sata_models_cut_to_16_characters_resolve_only_when_unambiguous() {
    let db = db();
    let sata = probe::Interface::Sata;
    for (cut, id) in [
        ("INTEL SSDSC2KG96", "intel-d3-s4610"),
        ("Micron_5300_MTFD", "micron-5300"),
        ("KINGSTON SA400S3", "kingston-a400"),
        ("SAMSUNG MZ7LH1T9", "samsung-pm883"),
        ("WDC WDS500G2B0A-", "wd-blue-3d-sata"),
    ] {
        let l = db.lookup(&DriveQuery::new(cut).interface(sata));
        assert_eq!(l.entry.map(|e| e.id.as_str()), Some(id), "{cut}");
        assert_eq!(l.advisories[0].code, format!("{id}/truncated-model"));
        assert_eq!(l.advisories[0].severity, Severity::Info);
    }
    // A cut that ends on a space cannot tell the 870 EVO from the 870 QVO.
    let l = db.lookup(&DriveQuery::new("Samsung SSD 870 ").interface(sata));
    assert!(l.entry.is_none());
    assert_eq!(l.grade, Grade::Unknown);
    // NVMe model strings are never cut, so a 16-character NVMe prefix is not guessed at.
    let nvme = DriveQuery::new("Samsung SSD 990 ").interface(probe::Interface::Nvme);
    assert!(db.lookup(&nvme).entry.is_none());
    let nvme = DriveQuery::new("WDC WDS100T3X0C-").interface(probe::Interface::Nvme);
    assert!(db.lookup(&nvme).entry.is_none());
}
