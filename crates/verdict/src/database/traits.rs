//! What an entry says a drive is: how it is attached, its NAND, its DRAM and its class. The
//! probe's facts map onto the same vocabulary, so entries and generic rules compare directly.

use serde::{Deserialize, Serialize};
use strum::IntoStaticStr;

/// How an entry's drive is attached, as the list sorts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum EntryInterface {
    Nvme,
    Sata,
    Sas,
    Usb,
    /// Virtual disks of VPS platforms (virtio-blk, virtio-scsi, Xen).
    Virtio,
}

impl EntryInterface {
    /// The snake_case name serde writes for it in JSON and TOML.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn label(self) -> &'static str {
        match self {
            EntryInterface::Nvme => "NVMe",
            EntryInterface::Sata => "SATA",
            EntryInterface::Sas => "SAS",
            EntryInterface::Usb => "USB",
            EntryInterface::Virtio => "Virtual disk",
        }
    }

    /// The entry interface a probed interface corresponds to; `None` for `Mmc`/`Unknown`.
    pub fn from_probe(interface: probe::Interface) -> Option<EntryInterface> {
        use probe::Interface;
        match interface {
            Interface::Nvme => Some(EntryInterface::Nvme),
            Interface::Sata => Some(EntryInterface::Sata),
            Interface::Sas => Some(EntryInterface::Sas),
            Interface::Usb => Some(EntryInterface::Usb),
            Interface::Virtio | Interface::Xen => Some(EntryInterface::Virtio),
            Interface::Mmc | Interface::Unknown => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Nand {
    Slc,
    Mlc,
    Tlc,
    Qlc,
    /// Intel/Micron 3D XPoint (Optane): not NAND, listed here because it replaces it.
    Xpoint,
}

impl Nand {
    /// The snake_case name serde writes for it in JSON and TOML.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn label(self) -> &'static str {
        match self {
            Nand::Slc => "SLC",
            Nand::Mlc => "MLC",
            Nand::Tlc => "TLC",
            Nand::Qlc => "QLC",
            Nand::Xpoint => "3D XPoint",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Dram {
    Yes,
    No,
    /// DRAM-less, borrowing host memory (NVMe Host Memory Buffer).
    Hmb,
}

impl Dram {
    /// The snake_case name serde writes for it in JSON and TOML.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn label(self) -> &'static str {
        match self {
            Dram::Yes => "DRAM",
            Dram::No => "DRAM-less",
            Dram::Hmb => "DRAM-less (HMB)",
        }
    }

    /// No DRAM of its own, HMB or not.
    pub fn is_dramless(self) -> bool {
        matches!(self, Dram::No | Dram::Hmb)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Class {
    Mainstream,
    Performance,
    Budget,
    DataCenter,
    Portable,
    Cloud,
    Hdd,
}

impl Class {
    /// The snake_case name serde writes for it in JSON and TOML.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn label(self) -> &'static str {
        match self {
            Class::Mainstream => "Mainstream",
            Class::Performance => "Performance",
            Class::Budget => "Budget",
            Class::DataCenter => "Data center",
            Class::Portable => "Portable",
            Class::Cloud => "Cloud / VPS",
            Class::Hdd => "Hard disk",
        }
    }
}

/// Whether the maker stands behind a drive's make-up. The list grades Kingston's NV1 and NV2
/// bad because they "could be 'anything' as Kingston do not guarantee specific components"; a
/// string that names no maker product line (a bare capacity, a rebrander's name) guarantees
/// even less.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Components {
    /// Nothing about the drive's NAND and DRAM is guaranteed: the same string ships with
    /// whatever controller and flash were at hand.
    Unguaranteed,
}
