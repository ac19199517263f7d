//! Model strings cut short. Behind libata, USB bridges and HBAs that do not pass ATA commands
//! through, Linux sees only the 16-byte SCSI INQUIRY product: `Samsung SSD 870` for both a
//! `Samsung SSD 870 EVO 2TB` and a `Samsung SSD 870 QVO 1TB`. Such a string is matched as a
//! prefix of the real model strings of every entry, and every family it could be is reported.

use probe::{Interface, ModelSource};

use super::{normalize_model, Database, DriveEntry, EntryInterface};
use crate::model::Grade;

/// Length of the SCSI INQUIRY product identification field (SPC-4, bytes 16-31).
pub const SCSI_PRODUCT_LEN: usize = 16;

/// A prefix shorter than this says too little ("SSD") to name candidates.
const MIN_PREFIX_LEN: usize = 6;

/// True when `model` may be the head of a longer name: it came from (or, with the source
/// unknown, fits) a SCSI INQUIRY product field. NVMe, ATA IDENTIFY and smartctl models are
/// whole.
pub fn may_be_truncated(
    model: &str,
    source: Option<ModelSource>,
    interface: Option<Interface>,
) -> bool {
    let length = normalize_model(model).chars().count();
    if !(MIN_PREFIX_LEN..=SCSI_PRODUCT_LEN).contains(&length) {
        return false;
    }
    match source {
        Some(ModelSource::ScsiInquiry) => true,
        Some(_) => false,
        None => !matches!(
            interface,
            Some(Interface::Nvme | Interface::Virtio | Interface::Xen | Interface::Mmc)
        ),
    }
}

/// The families a cut-short model string could be, with what tells them apart.
#[derive(Debug, Clone)]
pub struct PrefixCandidates<'a> {
    /// The model as seen, normalised (`Samsung SSD 870`).
    pub prefix: String,
    /// Every entry with a real model string that starts with the prefix, in file order.
    pub entries: Vec<&'a DriveEntry>,
}

impl PrefixCandidates<'_> {
    /// The grade when every candidate has the same one, else `Unknown`.
    pub fn common_grade(&self) -> Grade {
        let mut grades = self.entries.iter().map(|e| e.grade);
        match grades.next() {
            Some(first) if grades.all(|g| g == first) => first,
            _ => Grade::Unknown,
        }
    }

    /// `Samsung 870 EVO (good) or Samsung 870 QVO (ugly)`.
    pub fn describe(&self) -> String {
        let named: Vec<String> = self
            .entries
            .iter()
            .map(|e| format!("{} ({})", e.display_name(), e.grade))
            .collect();
        match named.split_last() {
            None => String::new(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }
}

impl Database {
    /// Entries that `model`, read as the first characters of a longer name, could be: those
    /// whose drives Linux can see through a SCSI layer (NVMe and virtual disks report their
    /// whole model). Empty when the string is too short to say anything or no entry's real
    /// strings start with it.
    pub fn prefix_candidates(&self, model: &str) -> PrefixCandidates<'_> {
        let prefix = normalize_model(model).into_owned();
        let wanted = prefix.to_lowercase();
        let entries = if wanted.chars().count() < MIN_PREFIX_LEN {
            Vec::new()
        } else {
            self.drives
                .iter()
                .filter(|e| !matches!(e.interface, EntryInterface::Nvme | EntryInterface::Virtio))
                .filter(|e| {
                    e.examples.iter().any(|x| {
                        let x = normalize_model(x).to_lowercase();
                        x.len() > wanted.len() && x.starts_with(&wanted)
                    })
                })
                .collect()
        };
        PrefixCandidates { prefix, entries }
    }
}

/// The command that reads the full model through the pass-through a bridge or HBA offers.
pub fn full_model_command(device: &str, interface: Option<Interface>) -> String {
    match interface {
        Some(Interface::Usb) => format!(
            "Read the full model with `sudo smartctl -d sat -i /dev/{device}` (if the USB bridge refuses SAT pass-through, `smartctl --scan-open` names the type it needs, such as `-d usbjmicron` or `-d usbrealtek`), or attach the drive to a SATA port"
        ),
        Some(Interface::Sas) => format!(
            "Read the full model with `sudo smartctl -d sat -i /dev/{device}`; behind a MegaRAID HBA use `-d megaraid,N` with the drive's slot number N (`smartctl --scan-open` lists them)"
        ),
        _ => format!("Read the full model with `sudo smartctl -d sat -i /dev/{device}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inquiry_sized_strings_may_be_cut() {
        let inquiry = Some(ModelSource::ScsiInquiry);
        assert!(may_be_truncated("Samsung SSD 870 ", inquiry, None));
        assert!(!may_be_truncated("Samsung SSD 870 EVO 2TB", inquiry, None));
        assert!(!may_be_truncated("SSD", inquiry, None));
        assert!(!may_be_truncated(
            "Samsung SSD 870",
            Some(ModelSource::AtaIdentify),
            Some(Interface::Sata)
        ));
        assert!(may_be_truncated(
            "Samsung SSD 870",
            None,
            Some(Interface::Usb)
        ));
        assert!(!may_be_truncated(
            "Samsung SSD 870",
            None,
            Some(Interface::Nvme)
        ));
    }
}
