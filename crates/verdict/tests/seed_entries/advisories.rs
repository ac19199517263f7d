//! The firmware, capacity and family advisories the list attaches to its entries.

use super::*;

fn codes(l: &verdict::Lookup<'_>) -> Vec<String> {
    l.advisories.iter().map(|a| a.code.clone()).collect()
}

#[test]
fn samsung_980_pro_on_3b2qgxa7_is_bad_until_updated() {
    let db = db();
    let q = DriveQuery::new("Samsung SSD 980 PRO 2TB").capacity(2 * TB);
    let broken = db.lookup(&q.firmware("3B2QGXA7"));
    assert_eq!(broken.grade, Grade::Bad);
    assert_eq!(codes(&broken), vec!["samsung-980-pro/3b2qgxa7"]);
    let adv = &broken.advisories[0];
    assert_eq!(adv.severity, Severity::Critical);
    let fix = adv.fix.as_deref().expect("a fix");
    assert!(
        fix.contains("5B2QGXA7") && fix.contains("fumagician"),
        "{fix}"
    );

    let fixed = db.lookup(&q.firmware("5B2QGXA7"));
    assert_eq!(fixed.grade, Grade::Good);
    assert!(fixed.advisories.is_empty());

    // Unknown firmware: still good, but the lookup says the firmware matters.
    let unknown = db.lookup(&q);
    assert_eq!(unknown.grade, Grade::Good);
    assert_eq!(codes(&unknown), vec!["samsung-980-pro/firmware-unknown"]);
    assert_eq!(unknown.advisories[0].severity, Severity::Info);
}

#[test]
fn samsung_990_pro_before_1b2qjxd7_is_bad() {
    let db = db();
    let q = DriveQuery::new("Samsung SSD 990 PRO 2TB");
    let early = db.lookup(&q.firmware("0B2QJXD7"));
    assert_eq!(early.grade, Grade::Bad);
    assert_eq!(codes(&early), vec!["samsung-990-pro/before-1b2qjxd7"]);
    let text = &early.advisories[0].text;
    assert!(text.contains("won't reverse"), "{text}");
    for fw in ["1B2QJXD7", "3B2QJXD7", "4B2QJXD7"] {
        let l = db.lookup(&q.firmware(fw));
        assert_eq!(l.grade, Grade::Good, "{fw}");
        assert!(l.advisories.is_empty(), "{fw}");
    }
}

#[test]
fn samsung_970_evo_plus_2tb_pre_and_post_rework_are_both_good() {
    let db = db();
    let q = DriveQuery::new("Samsung SSD 970 EVO Plus 2TB").capacity(2_000_398_934_016);
    let pre = db.lookup(&q.firmware("2B2QEXM7"));
    assert_eq!(pre.grade, Grade::Good);
    assert_eq!(codes(&pre), vec!["samsung-970-evo-plus/pre-rework"]);
    assert!(pre.advisories[0].text.contains("140k/46k"));
    for fw in ["3B2QEXM7", "4B2QEXM7"] {
        let post = db.lookup(&q.firmware(fw));
        assert_eq!(post.grade, Grade::Good, "{fw}");
        assert_eq!(
            codes(&post),
            vec!["samsung-970-evo-plus/post-rework"],
            "{fw}"
        );
        assert!(post.advisories[0].text.contains("just as quickly"));
        assert_eq!(post.advisories[0].severity, Severity::Info);
    }
    // No firmware rule downgrades the 970 EVO Plus, so an unknown firmware says nothing.
    assert!(db.lookup(&q).advisories.is_empty());
}

#[test]
fn adata_s40g_sx8100_4tb_is_qlc_and_bad_2tb_is_tlc_and_fine() {
    let db = db();
    for model in ["ADATA SX8100NP", "XPG SPECTRIX S40G"] {
        let four = db.lookup(&DriveQuery::new(model).capacity(4_000_787_030_016));
        assert_eq!(four.grade, Grade::Bad, "{model}");
        assert_eq!(four.nand, Some(Nand::Qlc));
        assert_eq!(codes(&four), vec!["adata-sx8100/4tb-qlc"]);
        assert_eq!(four.advisories[0].severity, Severity::Critical);

        let two = db.lookup(&DriveQuery::new(model).capacity(2_048_408_248_320));
        assert_eq!(two.grade, Grade::Good, "{model}");
        assert_eq!(two.nand, Some(Nand::Tlc));
        assert_eq!(codes(&two), vec!["adata-sx8100/2tb-tlc"]);

        let unknown = db.lookup(&DriveQuery::new(model));
        assert_eq!(unknown.grade, Grade::Good);
        assert_eq!(codes(&unknown), vec!["adata-sx8100/capacity-unknown"]);
        assert!(unknown.advisories[0].text.contains("4TB"));
    }
}

#[test]
fn family_advisories_the_list_attaches() {
    let db = db();
    let cases: &[(&str, &str, Severity)] = &[
        (
            "Amazon Elastic Block Store",
            "aws-ebs/provisioned-iops",
            Severity::Warning,
        ),
        (
            "Amazon EC2 NVMe Instance Storage",
            "aws-ec2-instance-store/ephemeral",
            Severity::Warning,
        ),
        (
            "WD_BLACK SN770 1TB",
            "wd-black-sn770/works-fine-report",
            Severity::Info,
        ),
        (
            "Samsung SSD 980 1TB",
            "samsung-980/grade-uncertain",
            Severity::Info,
        ),
        (
            "KINGSTON SNVS2000G",
            "kingston-nv1/components-not-guaranteed",
            Severity::Info,
        ),
        (
            "KINGSTON SNV2S2000G",
            "kingston-nv2/components-not-guaranteed",
            Severity::Info,
        ),
        (
            "Portable SSD T5",
            "samsung-t5/prefer-nvme",
            Severity::Warning,
        ),
    ];
    for (model, code, severity) in cases {
        let l = db.lookup(&DriveQuery::new(model));
        let adv = l
            .advisories
            .iter()
            .find(|a| a.code == *code)
            .unwrap_or_else(|| panic!("{model}: no advisory {code}: {:?}", l.advisories));
        assert_eq!(adv.severity, *severity, "{code}");
    }
    let ebs = db.lookup(&DriveQuery::new("Amazon Elastic Block Store"));
    let fix = ebs.advisories[0].fix.as_deref().expect("fix");
    assert!(fix.contains("--iops 10000"), "{fix}");
    assert!(ebs.advisories[0].text.contains("10,000"));
}
