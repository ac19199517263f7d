//! Drives whose names differ by a word must not match each other's entries: the list's own
//! warnings ("980 Pro, not 980", "SN750 but not SN750 SE") and the other near-twins.

use crate::support::db;
use verdict::DriveQuery;
use verdict::Grade;

/// The entry id a model string resolves to, `None` when nothing matches.
fn id(model: &str) -> Option<&'static str> {
    db().lookup(&DriveQuery::new(model))
        .entry
        .map(|e| e.id.as_str())
}

/// (model A, entry of A, model B, entry of B): each must resolve to its own entry.
const PAIRS: &[(&str, Option<&str>, &str, Option<&str>)] = &[
    (
        "Corsair MP600 PRO",
        Some("corsair-mp600-pro"),
        "Corsair MP600 MINI",
        None,
    ),
    (
        "Samsung SSD 980 1TB",
        Some("samsung-980"),
        "Samsung SSD 980 PRO 1TB",
        Some("samsung-980-pro"),
    ),
    (
        "WDC WDS100T3X0C-00SJG0",
        Some("wd-black-sn750"),
        "WDC WDS100T1B0E",
        Some("wd-black-sn750-se"),
    ),
    (
        "WDC WDS500G3X0C-00SJG0",
        Some("wd-black-sn750"),
        "WDS500G1B0E",
        Some("wd-black-sn750-se"),
    ),
    (
        "Force MP600",
        Some("corsair-force-mp600"),
        "Corsair MP600 PRO",
        Some("corsair-mp600-pro"),
    ),
    (
        "Corsair MP600 PRO",
        Some("corsair-mp600-pro"),
        "Corsair MP600 PRO XT",
        Some("corsair-mp600-pro-xt"),
    ),
    (
        "Corsair MP600 PRO XT",
        Some("corsair-mp600-pro-xt"),
        "Corsair MP600 PRO LPX",
        Some("corsair-mp600-pro-lpx"),
    ),
    (
        "Force MP600",
        Some("corsair-force-mp600"),
        "Corsair MP600 CORE XT",
        Some("corsair-mp600-core-xt"),
    ),
    (
        "CT2000P3SSD8",
        Some("crucial-p3"),
        "CT2000P3PSSD8",
        Some("crucial-p3-plus"),
    ),
    (
        "CT2000P5PSSD8",
        Some("crucial-p5-plus"),
        "CT2000P5SSD8",
        None,
    ),
    (
        "Samsung SSD 870 EVO 1TB",
        Some("samsung-870-evo"),
        "Samsung SSD 870 QVO 1TB",
        Some("samsung-870-qvo"),
    ),
    (
        "Samsung SSD 860 EVO 1TB",
        Some("samsung-860-evo"),
        "Samsung SSD 860 QVO 1TB",
        None,
    ),
    (
        "SHPP41-2000GM",
        Some("sk-hynix-p41-platinum"),
        "SOLIDIGM SSDPFKKW020X7",
        Some("solidigm-p44-pro"),
    ),
    (
        "SHPP41-1000GM",
        Some("sk-hynix-p41-platinum"),
        "SHGP31-1000GM-2",
        Some("sk-hynix-p31-gold"),
    ),
    (
        "KINGSTON SNVS1000G",
        Some("kingston-nv1"),
        "KINGSTON SNV2S1000G",
        Some("kingston-nv2"),
    ),
    (
        "KINGSTON SNV2S1000G",
        Some("kingston-nv2"),
        "KINGSTON SNV3S1000G",
        Some("kingston-nv3"),
    ),
    (
        "Samsung SSD 970 EVO Plus 1TB",
        Some("samsung-970-evo-plus"),
        "Samsung SSD 970 EVO 1TB",
        None,
    ),
    (
        "Samsung SSD 970 EVO Plus 1TB",
        Some("samsung-970-evo-plus"),
        "Samsung SSD 970 PRO 1TB",
        None,
    ),
    (
        "Samsung SSD 990 PRO 2TB",
        Some("samsung-990-pro"),
        "Samsung SSD 990 EVO 2TB",
        Some("samsung-990-evo"),
    ),
    (
        "WD_BLACK SN850X 2000GB",
        Some("wd-black-sn850x"),
        "WDC WDS200T1X0E-00AFY0",
        Some("wd-black-sn850"),
    ),
    (
        "WD_BLACK SN770 1TB",
        Some("wd-black-sn770"),
        "WD_BLACK SN770M 1TB",
        Some("wd-black-sn770m"),
    ),
    (
        "WD_BLACK SN770 1TB",
        Some("wd-black-sn770"),
        "WDC WDS100T3X0C-00SJG0",
        Some("wd-black-sn750"),
    ),
    (
        "XPG GAMMIX S50 Lite",
        Some("adata-gammix-s50-lite"),
        "XPG GAMMIX S50",
        None,
    ),
    (
        "XPG GAMMIX S70",
        Some("adata-gammix-s70"),
        "XPG GAMMIX S70 PRO",
        None,
    ),
    (
        "ADATA SX8200PNP",
        Some("adata-sx8200-pro"),
        "ADATA SX8100NP",
        Some("adata-sx8100"),
    ),
    (
        "Sabrent Rocket 4.0 Plus",
        Some("sabrent-rocket-4-plus"),
        "Sabrent Rocket 4.0",
        None,
    ),
    (
        "CT1000MX500SSD1",
        Some("crucial-mx500"),
        "CT1000BX500SSD1",
        Some("crucial-bx500"),
    ),
    (
        "Portable SSD T5",
        Some("samsung-t5"),
        "PSSD T7",
        Some("samsung-t7"),
    ),
    ("PSSD T7", Some("samsung-t7"), "PSSD T9", None),
    (
        "INTEL SSDPE2KX040T8",
        Some("intel-dc-p4510"),
        "INTEL SSDPE2KE032T8",
        Some("intel-dc-p4610"),
    ),
    (
        "INTEL SSDPF2KX038TZ",
        Some("intel-d7-p5510"),
        "INTEL SSDPF2KX038T1",
        Some("solidigm-d7-p5520"),
    ),
    (
        "INTEL SSDPF2KX038T1",
        Some("solidigm-d7-p5520"),
        "INTEL SSDPF2NV307TZ",
        Some("solidigm-d5-p5316"),
    ),
    (
        "INTEL SSDSC2KB960G8",
        Some("intel-d3-s4510"),
        "INTEL SSDSC2KG960G8",
        Some("intel-d3-s4610"),
    ),
    (
        "SAMSUNG MZ7LH1T9HMLT-00005",
        Some("samsung-pm883"),
        "SAMSUNG MZ7L31T9HBLT-00A07",
        Some("samsung-pm893"),
    ),
    (
        "SAMSUNG MZQLB1T9HAJR-00007",
        Some("samsung-pm983"),
        "SAMSUNG MZQL21T9HCJR-00A07",
        Some("samsung-pm9a3"),
    ),
    (
        "Micron_7400_MTFDKBG1T9TDZ",
        Some("micron-7400"),
        "Micron_7450_MTFDKBG1T9TFR",
        Some("micron-7450"),
    ),
    (
        "Micron_5300_MTFDDAK960TDS",
        Some("micron-5300"),
        "Micron_5400_MTFDDAK960TGA",
        Some("micron-5400"),
    ),
    (
        "INTEL SSDPEKNW010T8",
        Some("intel-660p"),
        "INTEL SSDPEKNX010T8",
        None,
    ),
    (
        "Amazon Elastic Block Store",
        Some("aws-ebs"),
        "Amazon EC2 NVMe Instance Storage",
        Some("aws-ec2-instance-store"),
    ),
    (
        "WDC WD20EFRX-68EUZN0",
        Some("wd-red-hdd"),
        "WDC WD20EZRZ-00Z5HB0",
        None,
    ),
];

#[test]
fn look_alike_pairs_resolve_to_their_own_entries() {
    for (a, id_a, b, id_b) in PAIRS {
        assert_eq!(id(a), *id_a, "{a}");
        assert_eq!(id(b), *id_b, "{b}");
        assert_ne!(
            id(a),
            id(b),
            "{a} and {b} must not resolve to the same entry"
        );
    }
}

#[test]
fn look_alikes_the_list_warns_about_get_different_grades() {
    let grade = |m: &str| db().lookup(&DriveQuery::new(m)).grade;
    // Each recommended drive next to the look-alike the list warns about.
    let cases = [
        ("Samsung SSD 980 PRO 2TB", Grade::Good),
        ("Samsung SSD 980 1TB", Grade::Bad),
        ("Samsung SSD 870 EVO 2TB", Grade::Good),
        ("Samsung SSD 870 QVO 2TB", Grade::Ugly),
        ("CT2000P5PSSD8", Grade::Good),
        ("CT2000P3PSSD8", Grade::Bad),
        ("WDC WDS100T3X0C-00SJG0", Grade::Good),
    ];
    for (model, want) in cases {
        assert_eq!(grade(model), want, "{model}");
    }
    assert_ne!(grade("WDC WDS100T1B0E"), Grade::Good);
}

#[test]
fn near_misses_of_every_example_do_not_match() {
    // Extending a real model string by a word or a character must not keep matching: entries
    // are anchored whole-string, like smartmontools' drivedb.
    let db = db();
    for e in &db.drives {
        for x in &e.examples {
            for variant in [format!("{x} X"), format!("{x}Z"), format!("X {x}")] {
                assert!(
                    db.entries_matching(&variant).is_empty(),
                    "`{variant}` (from {} example `{x}`) matches {:?}",
                    e.id,
                    db.entries_matching(&variant)
                        .iter()
                        .map(|m| &m.id)
                        .collect::<Vec<_>>()
                );
            }
        }
    }
}
