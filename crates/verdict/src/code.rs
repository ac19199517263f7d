//! Finding codes: one enum for every code the judge can emit, with the family it belongs to,
//! the title of its section in `docs/findings.md` and that section's anchor.
//!
//! A code is what users search for and what scripts match on, so it serializes as the stable
//! string (`"NC201"`) and a code never changes meaning: a new check gets a new variant with a
//! new number. `tests/findings_docs.rs` iterates [`Code::ALL`] against the documentation.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The families findings are grouped in, one hundred codes each: the hundreds digit of a code
/// is its family, and each family has a section in `docs/findings.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// NC1xx: what the drive is and what the database says about it.
    Identity,
    /// NC2xx: health and temperature.
    Health,
    /// NC3xx: TRIM.
    Trim,
    /// NC4xx: controller, link and interface.
    Link,
    /// NC5xx: mount, file system and capacity.
    Storage,
    /// NC6xx: platform, cloud and io_uring.
    Platform,
    /// NC7xx: what the benchmark measured.
    Bench,
    /// NC8xx: how the drive behaves under a sync-like load.
    Behaviour,
}

impl Family {
    pub const ALL: [Family; 8] = [
        Family::Identity,
        Family::Health,
        Family::Trim,
        Family::Link,
        Family::Storage,
        Family::Platform,
        Family::Bench,
        Family::Behaviour,
    ];

    /// The hundreds digit every code of the family starts with.
    pub fn hundred(self) -> u16 {
        match self {
            Family::Identity => 1,
            Family::Health => 2,
            Family::Trim => 3,
            Family::Link => 4,
            Family::Storage => 5,
            Family::Platform => 6,
            Family::Bench => 7,
            Family::Behaviour => 8,
        }
    }

    /// The heading of the family's section in `docs/findings.md`, after `NC1xx `.
    pub fn title(self) -> &'static str {
        match self {
            Family::Identity => "identity",
            Family::Health => "health and temperature",
            Family::Trim => "TRIM",
            Family::Link => "controller, link and interface",
            Family::Storage => "mount, file system and capacity",
            Family::Platform => "platform, cloud and io_uring",
            Family::Bench => "benchmark",
            Family::Behaviour => "behaviour",
        }
    }

    fn of(number: u16) -> Family {
        Family::ALL
            .into_iter()
            .find(|f| f.hundred() == number / 100)
            .expect("every code number lies in a family's hundred")
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NC{}xx {}", self.hundred(), self.title())
    }
}

/// Declares [`Code`] from one table so the variant, its number, string, anchor and title can
/// never disagree. Variants are listed in numeric order: the derived `Ord` sorts like the
/// strings do.
macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $number:literal, $title:literal; )*) => {
        /// A stable finding code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in numeric order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The code's number: 201 for NC201.
            pub fn number(self) -> u16 {
                match self {
                    $( Code::$variant => $number, )*
                }
            }

            /// The stable string users see and scripts match: `"NC201"`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Code::$variant => concat!("NC", $number), )*
                }
            }

            /// The anchor of the code's section in `docs/findings.md`: `"nc201"`.
            pub fn anchor(self) -> &'static str {
                match self {
                    $( Code::$variant => concat!("nc", $number), )*
                }
            }

            /// The heading of the code's section in `docs/findings.md`: what the check is
            /// about, whatever the outcome. A finding's own title says how it came out.
            pub fn title(self) -> &'static str {
                match self {
                    $( Code::$variant => $title, )*
                }
            }
        }
    };
}

codes! {
    DatabaseGrade = 101, "Database grade";
    DatabaseAdvisory = 102, "Database advisory";
    UnknownDrive = 103, "Drive not in the database";
    GenericRule = 104, "Generic rule";
    HardDisk = 105, "Hard disk";
    DramLess = 106, "DRAM-less drive";
    ModelNameCut = 109, "Model name cut short";
    RotationalFlagDisagrees = 120, "The kernel's rotational flag disagrees with better evidence";
    NeedsRoot = 190, "Some checks need root";
    HealthFine = 200, "Drive health is fine";
    SmartFailing = 201, "SMART says the drive is failing";
    NvmeCriticalWarning = 202, "NVMe critical warning";
    SpareBelowThreshold = 203, "Spare below threshold";
    Worn = 204, "The drive is worn";
    MediaErrors = 205, "Media errors";
    BadSectors = 206, "Bad sectors";
    SmartctlFlags = 207, "smartctl flags attributes or logged errors";
    AttributeNotBadSectors = 208, "A SMART attribute that is not a bad-sector count on this family";
    SelfTestFailed = 209, "The drive failed a SMART self-test";
    Temperature = 210, "Temperature";
    Throttled = 211, "The drive has throttled for heat";
    ThrottledDuringRun = 212, "Heat during the measurement";
    ErrorsDuringRun = 213, "New media errors or error-log entries during the measurement";
    InterfaceCrcErrors = 214, "SATA interface CRC errors";
    TrimReachesDrive = 300, "TRIM reaches the drive";
    TrimUnsupported = 301, "The drive does not support TRIM";
    TrimBlocked = 302, "TRIM is blocked by a layer";
    NoPeriodicTrim = 303, "No periodic TRIM";
    SataControllerMode = 401, "SATA controller mode";
    PcieLinkBelowMax = 402, "PCIe link below the drive's maximum";
    SataLinkBelowMax = 403, "SATA link below the drive's maximum";
    UsbAttached = 404, "Drive attached over USB";
    UsbBridge = 405, "The USB bridge and its known quirks";
    NvmePowerManagement = 420, "NVMe power management (APST, ASPM, D3cold)";
    AccessTime = 501, "Access-time updates";
    BtrfsCopyOnWrite = 502, "btrfs copy-on-write under the database";
    ZfsCopyOnWrite = 503, "ZFS copy-on-write under the database";
    ParityRaid = 504, "Parity RAID under the database";
    ReadOnly = 505, "The file system is read-only";
    StackUnresolved = 506, "Part of the storage stack could not be resolved";
    CryptOptions = 507, "dm-crypt work queues and TRIM";
    UnknownClient = 509, "Unknown client";
    Size = 510, "Size against the client's needs";
    FreeSpace = 511, "Free space";
    NetworkStorage = 520, "Data directory on network or host-shared storage";
    ZfsPoolLayout = 530, "ZFS pool layout (ashift, autotrim)";
    ZfsDatasetProperties = 531, "ZFS dataset properties under the database";
    ZfsArcLimit = 532, "ZFS ARC limit against RAM";
    ZfsDirectIo = 533, "ZFS and O_DIRECT reads";
    CloudPlatform = 601, "Cloud or VPS platform in the database";
    UnknownProvisionedIops = 602, "Virtual or cloud volume with unknown provisioned IOPS";
    IoUringBlocked = 603, "io_uring is blocked";
    PassedThrough = 610, "Real drive passed through to a virtual machine";
    VirtualDiskSettings = 611, "Virtual disk settings on the hypervisor host";
    CloudVolume = 612, "Cloud volume recognised by its provider";
    Qd1Latency = 701, "QD1 read latency";
    RandomIo = 702, "Random I/O against the client's needs";
    NoIoUring = 703, "Benchmark ran without io_uring";
    BenchCaveats = 704, "Benchmark caveats";
    /// A bench result with no valid measurement, ignored rather than allowed to vouch for
    /// the drive; its own code because it says the figures are absent, not qualified.
    BenchResultUnusable = 705, "Benchmark result unusable";
    CacheSpeedReads = 706, "Reads faster than a drive can answer (a cache)";
    UnwrittenBlocksRead = 707, "QD1 reads of never-written blocks";
    BaselineReadLatency = 801, "QD1 read latency between write bursts";
    ReadLatencyDuringBursts = 802, "Read latency during write bursts";
    BurstRecovery = 803, "Recovery after write bursts";
    WriteCliff = 804, "Sustained writes (write cliff)";
    SpanLatency = 805, "Read latency over growing spans (mapping table)";
    QlcAndDramLess = 806, "QLC and DRAM-less behaviour together";
    WorseThanEntry = 807, "Behaves worse than its database entry";
}

impl Code {
    pub fn family(self) -> Family {
        Family::of(self.number())
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// A string that names no finding code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a nodecheck finding code")]
pub struct UnknownCode(pub String);

impl FromStr for Code {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Code, UnknownCode> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownCode(s.to_owned()))
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Code, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Codes are matched against their strings throughout tests and scripts (`f.code == "NC201"`).
impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Code {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Code> for &str {
    fn eq(&self, other: &Code) -> bool {
        *self == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_numbers_and_anchors_agree() {
        for &code in Code::ALL {
            assert_eq!(code.as_str(), format!("NC{}", code.number()));
            assert_eq!(code.anchor(), code.as_str().to_lowercase());
            assert_eq!(code.as_str().parse::<Code>(), Ok(code));
            assert_eq!(code.family().hundred(), code.number() / 100);
            assert!(!code.title().is_empty());
        }
    }

    #[test]
    fn codes_are_unique_and_sorted_like_their_strings() {
        for pair in Code::ALL.windows(2) {
            assert!(pair[0].number() < pair[1].number(), "{pair:?}");
            assert!(pair[0] < pair[1] && pair[0].as_str() < pair[1].as_str());
        }
    }

    #[test]
    fn serializes_as_the_stable_string() {
        let json = serde_json::to_string(&Code::SmartFailing).expect("serialize");
        assert_eq!(json, "\"NC201\"");
        let back: Code = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, Code::SmartFailing);
        assert!(serde_json::from_str::<Code>("\"NC999\"").is_err());
        assert_eq!("NC70".parse::<Code>(), Err(UnknownCode("NC70".to_owned())));
    }

    #[test]
    fn every_family_has_codes() {
        for family in Family::ALL {
            assert!(
                Code::ALL.iter().any(|c| c.family() == family),
                "{family} has no code"
            );
        }
    }
}
