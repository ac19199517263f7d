//! The derived entries' seeds: drives the list does not name, graded by its rules (TLC with
//! DRAM good, DRAM-less ugly, QLC and DRAM-less bad) from their cited spec sheets and reviews.

use super::*;

/// (entry id, model strings as drives report them, grade of the family).
pub(super) const DERIVED_SEEDS: &[(&str, &[&str], Grade)] = &[
    ("crucial-t500", &["CT2000T500SSD8"], Grade::Good),
    ("crucial-t700", &["CT2000T700SSD3"], Grade::Good),
    (
        "crucial-t705",
        &["CT1000T705SSD3", "CT4000T705SSD3"],
        Grade::Good,
    ),
    ("crucial-p310", &["CT2000P310SSD8"], Grade::Bad),
    ("kingston-nv3", &["KINGSTON SNV3S1000G"], Grade::Bad),
    ("lexar-nm790", &["Lexar SSD NM790 4TB"], Grade::Ugly),
    (
        "samsung-990-evo",
        &[
            "Samsung SSD 990 EVO Plus 1TB",
            "Samsung SSD 990 EVO Plus 4TB",
        ],
        Grade::Ugly,
    ),
    (
        "samsung-9100-pro",
        &["Samsung SSD 9100 PRO 2TB"],
        Grade::Good,
    ),
    (
        "samsung-pm981a",
        &["SAMSUNG MZVLB1T0HBLR-000L7", "MZVLB512HBJQ-00000"],
        Grade::Good,
    ),
    (
        "samsung-pm9a1",
        &["MZVL21T0HCLR-00B00", "SAMSUNG MZVL22T0HBLB-00B00"],
        Grade::Good,
    ),
    ("wd-blue-sn580", &["WD Blue SN580 1TB"], Grade::Ugly),
    ("wd-black-sn770m", &["WD_BLACK SN770M 1TB"], Grade::Ugly),
    (
        "corsair-mp700-pro",
        &["Corsair MP700 PRO", "MP700 PRO 2TB"],
        Grade::Good,
    ),
    ("wd-blue-sn5000", &["WD Blue SN5000 1TB"], Grade::Ugly),
    ("solidigm-p41-plus", &["SOLIDIGM SSDPFKNU020TZ"], Grade::Bad),
    ("teamgroup-mp44", &["TEAM TM8FPW002T"], Grade::Ugly),
    // Drives sold since 2025 (derived entries): the reported string and the part number.
    (
        "wd-black-sn7100",
        &["WD_BLACK SN7100 2000GB", "WDS200T4X0E"],
        Grade::Ugly,
    ),
    (
        "wd-black-sn8100",
        &[
            "WD_BLACK SN8100 2000GB",
            "WDS200T1X0M",
            "WDS400T1X0M-00CMT0",
        ],
        Grade::Good,
    ),
    ("crucial-t710", &["CT2000T710SSD8"], Grade::Good),
    ("crucial-p510", &["CT1000P510SSD8"], Grade::Ugly),
    ("lexar-nm1090", &["Lexar SSD NM1090 PRO 2TB"], Grade::Good),
    ("micron-7500", &["Micron_7500_MTFDKCC1T9TGP"], Grade::Good),
    // The issue's own example: the string the Acer FA100 reports, not linuxhw's `SSD FA100`.
    (
        "acer-fa100",
        &["Acer SSD FA100 1TB", "Acer SSD FA100 512GB"],
        Grade::Ugly,
    ),
    (
        "kioxia-cd8",
        &["KCD8XRUG1T92", "Dell Ent NVMe CD8 RI 3.84TB"],
        Grade::Good,
    ),
];
