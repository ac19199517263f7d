//! The seeded entries: the model strings drives really report, and the grade the list gives
//! each family.

use super::*;

/// (entry id, model strings as drives report them, grade of the family).
pub(super) const SEEDS: &[(&str, &[&str], Grade)] = &[
    // NVMe, Good: mainstream
    (
        "adata-sx8200-pro",
        &["ADATA SX8200PNP", "XPG GAMMIX S11 Pro"],
        Grade::Good,
    ),
    (
        "adata-gammix-s50-lite",
        &["XPG GAMMIX S50 Lite"],
        Grade::Good,
    ),
    (
        "hp-ex950",
        &["HP SSD EX950 512GB", "HP SSD EX950 1TB", "HP SSD EX950 2TB"],
        Grade::Good,
    ),
    (
        "mushkin-pilot-e",
        &["MKNSSDPE500GB-D8", "MKNSSDPE1TB-D8", "MKNSSDPE2TB-D8"],
        Grade::Good,
    ),
    (
        "samsung-970-evo-plus",
        &[
            "Samsung SSD 970 EVO Plus 250GB",
            "Samsung SSD 970 EVO Plus 1TB",
            "Samsung SSD 970 EVO Plus 2TB",
        ],
        Grade::Good,
    ),
    (
        "sk-hynix-p31-gold",
        &["SHGP31-1000GM-2", "SHGP31-500GM-2", "SHGP31-2000GM"],
        Grade::Good,
    ),
    (
        "wd-black-sn750",
        &[
            "WDC WDS100T3X0C-00SJG0",
            "WDC WDS500G3X0C-00SJG0",
            "WDC WDS200T3X0C-00SJG0",
            "WDC WDS500G3XHC-00SJG0",
        ],
        Grade::Good,
    ),
    (
        "wd-red-sn700",
        &["WDC WDS200T1R0C-68BDK0", "WDC WDS100T1R0C-68BDK0"],
        Grade::Good,
    ),
    // NVMe, Good: performance
    (
        "adata-gammix-s70",
        &["XPG GAMMIX S70", "XPG GAMMIX S70 BLADE"],
        Grade::Good,
    ),
    ("corsair-force-mp600", &["Force MP600"], Grade::Good),
    (
        "crucial-p5-plus",
        &["CT2000P5PSSD8", "CT1000P5PSSD8", "CT500P5PSSD8"],
        Grade::Good,
    ),
    (
        "kingston-kc2000",
        &[
            "KINGSTON SKC2000M8250G",
            "KINGSTON SKC2000M8500G",
            "KINGSTON SKC2000M81000G",
        ],
        Grade::Good,
    ),
    (
        "kingston-kc3000",
        &["KINGSTON SKC3000D2048G", "KINGSTON SKC3000S1024G"],
        Grade::Good,
    ),
    (
        "kingston-fury-renegade",
        &[
            "KINGSTON SFYRS1000G",
            "KINGSTON SFYRD2000G",
            "KINGSTON SFYRD4000G",
        ],
        Grade::Good,
    ),
    (
        "mushkin-redline-vortex",
        &["MKNSSDRV1TB-D8", "MKNSSDRV2TB-D8"],
        Grade::Good,
    ),
    (
        "sabrent-rocket-4-plus",
        &["Sabrent Rocket 4.0 Plus"],
        Grade::Good,
    ),
    (
        "samsung-980-pro",
        &[
            "Samsung SSD 980 PRO 500GB",
            "Samsung SSD 980 PRO 1TB",
            "Samsung SSD 980 PRO 2TB",
        ],
        Grade::Good,
    ),
    (
        "samsung-990-pro",
        &[
            "Samsung SSD 990 PRO 1TB",
            "Samsung SSD 990 PRO 2TB",
            "Samsung SSD 990 PRO with Heatsink 4TB",
        ],
        Grade::Good,
    ),
    (
        "seagate-firecuda-530",
        &[
            "Seagate FireCuda 530 ZP2000GM30013",
            "Seagate FireCuda 530 ZP4000GM30013",
            "Seagate FireCuda 530 ZP2000GM30023",
        ],
        Grade::Good,
    ),
    (
        "sk-hynix-p41-platinum",
        &["SHPP41-500GM", "SHPP41-1000GM", "SHPP41-2000GM"],
        Grade::Good,
    ),
    (
        "solidigm-p44-pro",
        &["SOLIDIGM SSDPFKKW020X7", "SOLIDIGM SSDPFKKW010X7"],
        Grade::Good,
    ),
    (
        "wd-black-sn850",
        &[
            "WDC WDS200T1X0E-00AFY0",
            "WDS200T1X0E-00AFY0",
            "WDC WDS100T1X0E-00AFY0",
        ],
        Grade::Good,
    ),
    (
        "wd-black-sn850x",
        &[
            "WD_BLACK SN850X 1000GB",
            "WD_BLACK SN850X 2000GB",
            "WD_BLACK SN850X 4000GB",
        ],
        Grade::Good,
    ),
    // NVMe, not named in the list but needed to keep look-alikes apart
    ("corsair-mp600-pro", &["Corsair MP600 PRO"], Grade::Good),
    (
        "corsair-mp600-pro-lpx",
        &["Corsair MP600 PRO LPX"],
        Grade::Good,
    ),
    (
        "corsair-mp600-pro-xt",
        &["Corsair MP600 PRO XT"],
        Grade::Good,
    ),
    (
        "corsair-mp600-core-xt",
        &["Corsair MP600 CORE XT"],
        Grade::Bad,
    ),
    (
        "wd-black-sn750-se",
        &["WDC WDS500G1B0E", "WDS100T1B0E"],
        Grade::Ugly,
    ),
    // NVMe, Optane from the comments
    (
        "intel-optane-900p-905p",
        &[
            "INTEL SSDPE21D960GA",
            "INTEL SSDPED1D960GA",
            "INTEL SSDPE21D480GA",
        ],
        Grade::Good,
    ),
    (
        "intel-optane-p1600x",
        &["INTEL SSDPEK1A118GA", "INTEL SSDPEK1A058GA"],
        Grade::Good,
    ),
    // NVMe, data center
    (
        "intel-dc-p4510",
        &[
            "INTEL SSDPE2KX080T8",
            "INTEL SSDPE2KX040T8",
            "INTEL SSDPE2KX020T8",
        ],
        Grade::Good,
    ),
    (
        "intel-dc-p4610",
        &["INTEL SSDPE2KE016T8", "INTEL SSDPE2KE032T8"],
        Grade::Good,
    ),
    (
        "intel-d7-p5510",
        &["INTEL SSDPF2KX038TZ", "INTEL SSDPF2KX076TZ"],
        Grade::Good,
    ),
    (
        "solidigm-d7-p5520",
        &[
            "SOLIDIGM SSDPF2KX038T1",
            "INTEL SSDPF2KX038T1",
            "INTEL SSDPF2KX019T1M",
        ],
        Grade::Good,
    ),
    (
        "intel-d5-p4320",
        &["INTEL SSDPE2NV076T8", "INTEL SSDPE2NV153T8"],
        Grade::Ugly,
    ),
    (
        "solidigm-d5-p5316",
        &["INTEL SSDPF2NV153TZ", "INTEL SSDPF2NV307TZ"],
        Grade::Bad,
    ),
    (
        "samsung-pm9a3",
        &[
            "SAMSUNG MZQL21T9HCJR-00A07",
            "SAMSUNG MZQL23T8HCLS-00A07",
            "SAMSUNG MZ1L21T9HCLS-00A07",
        ],
        Grade::Good,
    ),
    (
        "samsung-pm983",
        &[
            "SAMSUNG MZQLB1T9HAJR-00007",
            "SAMSUNG MZQLB960HAJR-00007",
            "SAMSUNG MZ1LB1T9HALS-00007",
        ],
        Grade::Good,
    ),
    (
        "micron-7300",
        &[
            "Micron_7300_MTFDHBE1T9TDF",
            "Micron_7300_MTFDHBE3T8TDF",
            "Micron_7300_MTFDHBA400TDG",
        ],
        Grade::Good,
    ),
    (
        "micron-7400",
        &[
            "Micron_7400_MTFDKBG1T9TDZ",
            "MICRON_7400_MTFDKBA1T9TDQ",
            "Micron_7400_MTFDKBG3T8TDZ",
        ],
        Grade::Good,
    ),
    (
        "micron-7450",
        &[
            "Micron_7450_MTFDKCC1T9TFR",
            "Micron_7450_MTFDKBA960TFR",
            "Micron_7450_MTFDKBG3T8TFR",
        ],
        Grade::Good,
    ),
    // NVMe, Bad
    (
        "adata-sx8100",
        &["ADATA SX8100NP", "XPG SPECTRIX S40G"],
        Grade::Good,
    ),
    (
        "crucial-p1",
        &["CT1000P1SSD8", "CT500P1SSD8", "CT2000P1SSD8"],
        Grade::Bad,
    ),
    (
        "crucial-p2",
        &["CT2000P2SSD8", "CT1000P2SSD8", "CT500P2SSD8"],
        Grade::Bad,
    ),
    (
        "crucial-p3",
        &["CT2000P3SSD8", "CT4000P3SSD8", "CT1000P3SSD8"],
        Grade::Bad,
    ),
    (
        "crucial-p3-plus",
        &["CT2000P3PSSD8", "CT4000P3PSSD8", "CT1000P3PSSD8"],
        Grade::Bad,
    ),
    (
        "kingston-nv1",
        &[
            "KINGSTON SNVS500G",
            "KINGSTON SNVS1000G",
            "KINGSTON SNVS2000G",
        ],
        Grade::Bad,
    ),
    (
        "kingston-nv2",
        &[
            "KINGSTON SNV2S500G",
            "KINGSTON SNV2S1000G",
            "KINGSTON SNV2S2000G",
        ],
        Grade::Bad,
    ),
    (
        "wd-green-sn350",
        &[
            "WDC WDS480G2G0C-00AJM0",
            "WDC WDS240G2G0C-00AJM0",
            "WD Green SN350 1TB",
            "WD Green SN350 2TB",
        ],
        Grade::Bad,
    ),
    (
        "samsung-980",
        &[
            "Samsung SSD 980 250GB",
            "Samsung SSD 980 500GB",
            "Samsung SSD 980 1TB",
        ],
        Grade::Bad,
    ),
    // NVMe, Ugly
    ("corsair-mp400", &["Corsair MP400"], Grade::Ugly),
    (
        "intel-660p",
        &[
            "INTEL SSDPEKNW512G8",
            "INTEL SSDPEKNW010T8",
            "INTEL SSDPEKNW020T8",
        ],
        Grade::Ugly,
    ),
    (
        "seagate-barracuda-q5",
        &[
            "Seagate BarraCuda Q5 ZP500CV30001",
            "Seagate BarraCuda Q5 ZP1000CV30001",
        ],
        Grade::Ugly,
    ),
    (
        "wd-black-sn770",
        &[
            "WD_BLACK SN770 500GB",
            "WD_BLACK SN770 1TB",
            "WD_BLACK SN770 2TB",
        ],
        Grade::Ugly,
    ),
    // NVMe, cloud
    (
        "aws-ec2-instance-store",
        &["Amazon EC2 NVMe Instance Storage"],
        Grade::Good,
    ),
    ("aws-ebs", &["Amazon Elastic Block Store"], Grade::Good),
    // SATA
    (
        "crucial-mx500",
        &[
            "CT2000MX500SSD1",
            "CT1000MX500SSD1",
            "CT500MX500SSD1",
            "CT1000MX500SSD4",
        ],
        Grade::Good,
    ),
    (
        "samsung-860-evo",
        &[
            "Samsung SSD 860 EVO 500GB",
            "Samsung SSD 860 EVO 1TB",
            "Samsung SSD 860 EVO M.2 500GB",
        ],
        Grade::Good,
    ),
    (
        "samsung-870-evo",
        &[
            "Samsung SSD 870 EVO 500GB",
            "Samsung SSD 870 EVO 1TB",
            "Samsung SSD 870 EVO 2TB",
        ],
        Grade::Good,
    ),
    (
        "wd-blue-3d-sata",
        &[
            "WDC WDS500G2B0A-00SM50",
            "WDC WDS100T2B0A-00SM50",
            "WDC WDS500G2B0B-00YS70",
        ],
        Grade::Good,
    ),
    (
        "samsung-870-qvo",
        &[
            "Samsung SSD 870 QVO 1TB",
            "Samsung SSD 870 QVO 2TB",
            "Samsung SSD 870 QVO 4TB",
        ],
        Grade::Ugly,
    ),
    (
        "crucial-bx500",
        &["CT1000BX500SSD1", "CT480BX500SSD1", "CT240BX500SSD1"],
        Grade::Bad,
    ),
    (
        "hp-s650",
        &[
            "HP SSD S650 120GB",
            "HP SSD S650 240GB",
            "HP SSD S650 1920GB",
        ],
        Grade::Bad,
    ),
    (
        "kingston-a400",
        &[
            "KINGSTON SA400M8120G",
            "KINGSTON SA400S37240G",
            "KINGSTON SA400S37480G",
        ],
        Grade::Bad,
    ),
    (
        "intel-d3-s4510",
        &[
            "INTEL SSDSC2KB960G8",
            "INTEL SSDSC2KB480G8",
            "INTEL SSDSC2KB019T8",
        ],
        Grade::Good,
    ),
    (
        "intel-d3-s4610",
        &[
            "INTEL SSDSC2KG960G8",
            "INTEL SSDSC2KG480G8",
            "INTEL SSDSC2KG240G8",
        ],
        Grade::Good,
    ),
    (
        "samsung-pm883",
        &[
            "SAMSUNG MZ7LH1T9HMLT-00005",
            "SAMSUNG MZ7LH960HAJR-00005",
            "SAMSUNG MZ7LH480HAHQ-00005",
        ],
        Grade::Good,
    ),
    (
        "samsung-pm893",
        &[
            "SAMSUNG MZ7L3960HCJR-00B7C",
            "SAMSUNG MZ7L31T9HBLT-00A07",
            "SAMSUNG MZ7L3480HCHQ-00A07",
        ],
        Grade::Good,
    ),
    (
        "micron-5300",
        &[
            "Micron_5300_MTFDDAK960TDS",
            "Micron_5300_MTFDDAK1T9TDS",
            "Micron_5300_MTFDDAV240TDS",
        ],
        Grade::Good,
    ),
    (
        "micron-5400",
        &[
            "Micron_5400_MTFDDAK1T9TGB",
            "Micron_5400_MTFDDAK480TGA",
            "Micron_5400_MTFDDAV240TGA",
        ],
        Grade::Good,
    ),
    (
        "wd-red-hdd",
        &[
            "WDC WD20EFRX-68EUZN0",
            "WDC WD40EFRX-68N32N0",
            "WDC WD40EFAX-68JH4N1",
        ],
        Grade::Bad,
    ),
    // USB
    (
        "samsung-t5",
        &["Portable SSD T5", "Samsung Portable SSD T5"],
        Grade::Ugly,
    ),
    (
        "samsung-t7",
        &[
            "PSSD T7",
            "Samsung PSSD T7",
            "PSSD T7 Shield",
            "PSSD T7 Touch",
        ],
        Grade::Bad,
    ),
];

/// Entries matched by DMI rather than a model string, and the one entry with no usable string.
pub(super) const NOT_MODEL_MATCHED: &[&str] = &[
    "contabo-vps-nvme",
    "contabo-vps-ssd",
    "netcup-rs",
    "netcup-vps",
    "inland-professional-qlc",
];
