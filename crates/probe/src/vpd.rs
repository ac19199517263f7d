//! SCSI Vital Product Data pages as the kernel exposes them in sysfs.
//!
//! `/sys/block/sdX/device/vpd_pgb1` (Linux >= 5.19, when the device lists the page) holds the
//! raw Block Device Characteristics page (SBC-4 6.6.2): byte 1 is the page code `0xB1`,
//! bytes 2-3 the page length, bytes 4-5 the MEDIUM ROTATION RATE, big-endian. libata builds
//! this page from ATA IDENTIFY word 217, USB bridges and SAS drives answer it themselves. The
//! kernel clears `queue/rotational` only when the rate is 1, so a page that says nothing
//! leaves a solid-state drive marked rotational.

use thiserror::Error;

use crate::ata::{rotation_rate, rotation_rate_rpm};

/// Page code of the Block Device Characteristics VPD page.
pub const BLOCK_CHARACTERISTICS_PAGE: u8 = 0xB1;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VpdError {
    #[error("VPD page is {0} bytes, too short for the medium rotation rate")]
    Truncated(usize),
    #[error("VPD page code is {found:#04x}, expected {expected:#04x}")]
    WrongPage { found: u8, expected: u8 },
    #[error("VPD page length {0} does not cover the medium rotation rate")]
    ShortLength(u16),
}

/// The MEDIUM ROTATION RATE of a Block Device Characteristics page, in the convention of
/// [`crate::facts::Drive::rotation_rate_rpm`]: `Some(0)` for a non-rotating medium, `Some(rpm)`
/// for a spinning one, `None` when the device does not report it (0) or reports a reserved
/// value.
pub fn parse_block_characteristics(page: &[u8]) -> Result<Option<u32>, VpdError> {
    if page.len() < 6 {
        return Err(VpdError::Truncated(page.len()));
    }
    if page[1] != BLOCK_CHARACTERISTICS_PAGE {
        return Err(VpdError::WrongPage {
            found: page[1],
            expected: BLOCK_CHARACTERISTICS_PAGE,
        });
    }
    let length = u16::from_be_bytes([page[2], page[3]]);
    // The page length counts the bytes after byte 3; the rate needs bytes 4 and 5.
    if length < 2 {
        return Err(VpdError::ShortLength(length));
    }
    // libata fills the rate in from IDENTIFY word 217 and SBC adopted ATA's encoding.
    let rate = u16::from_be_bytes([page[4], page[5]]);
    Ok(rotation_rate_rpm(rotation_rate(rate)))
}

/// A Block Device Characteristics page as a device returns it (for fixtures and tests): the
/// SBC-4 length of 0x3C, the given rotation rate word, nominal form factor 2.5" (3) or
/// unreported (0).
pub fn encode_block_characteristics(rotation_rate: u16, form_factor_2_5: bool) -> Vec<u8> {
    let mut page = vec![0u8; 64];
    page[1] = BLOCK_CHARACTERISTICS_PAGE;
    page[2..4].copy_from_slice(&0x003Cu16.to_be_bytes());
    page[4..6].copy_from_slice(&rotation_rate.to_be_bytes());
    if form_factor_2_5 {
        page[7] = 0x03;
    }
    page
}

/// Page code of the Unit Serial Number VPD page (SPC-5 7.7.17).
pub const UNIT_SERIAL_PAGE: u8 = 0x80;
/// Page code of the Device Identification VPD page (SPC-5 7.7.6).
pub const DEVICE_IDENTIFICATION_PAGE: u8 = 0x83;

/// The PRODUCT SERIAL NUMBER of a Unit Serial Number page (sysfs `device/vpd_pg80`), trimmed;
/// `None` for a malformed page or a blank serial.
pub fn parse_unit_serial(page: &[u8]) -> Option<String> {
    let body = page_body(page, UNIT_SERIAL_PAGE)?;
    let text = String::from_utf8_lossy(body);
    let serial = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!serial.is_empty()).then(|| serial.to_owned())
}

/// What a SAT layer (libata, a USB-SATA bridge, a RAID HBA, a hypervisor passing a disk
/// through) says about the ATA drive behind it in the Device Identification page: SAT builds a
/// T10 vendor ID designator of `ATA` padded to 8 bytes, the drive's 40-byte IDENTIFY model and
/// its 20-byte serial (the kernel's `ata_scsiop_inq_83` does exactly this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtaBehindSat {
    pub model: String,
    pub serial: Option<String>,
}

/// The ATA drive named in a Device Identification page (sysfs `device/vpd_pg83`), if the page
/// carries SAT's T10 vendor ID designator; `None` for any other or malformed page.
pub fn parse_ata_designator(page: &[u8]) -> Option<AtaBehindSat> {
    let mut rest = page_body(page, DEVICE_IDENTIFICATION_PAGE)?;
    while rest.len() >= 4 {
        let designator_type = rest[1] & 0x0F;
        let length = usize::from(rest[3]);
        let designator = rest.get(4..4 + length)?;
        if designator_type == 1 && designator.len() >= 48 && designator.starts_with(b"ATA ") {
            let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_owned();
            let model = text(&designator[8..48]);
            let serial = designator.get(48..).map(text).filter(|s| !s.is_empty());
            return (!model.is_empty()).then_some(AtaBehindSat { model, serial });
        }
        rest = &rest[4 + length..];
    }
    None
}

/// The bytes after a VPD page's 4-byte header, bounded by its page length.
fn page_body(page: &[u8], code: u8) -> Option<&[u8]> {
    if page.len() < 4 || page[1] != code {
        return None;
    }
    let length = usize::from(u16::from_be_bytes([page[2], page[3]]));
    let end = (4 + length).min(page.len());
    Some(&page[4..end])
}

/// A Device Identification page with SAT's designator for `model` and `serial`, as libata
/// writes it (for fixtures and tests).
pub fn encode_ata_device_identification(model: &str, serial: &str) -> Vec<u8> {
    let mut designator = format!("{:<8}{model:<40}{serial:<20}", "ATA").into_bytes();
    designator.truncate(68);
    let mut page = vec![0, DEVICE_IDENTIFICATION_PAGE, 0, 0];
    // ASCII code set, association: logical unit, type 1 (T10 vendor ID).
    page.extend_from_slice(&[0x02, 0x01, 0x00, designator.len() as u8]);
    page.extend_from_slice(&designator);
    let length = (page.len() - 4) as u16;
    page[2..4].copy_from_slice(&length.to_be_bytes());
    page
}

/// A Unit Serial Number page holding `serial` (for fixtures and tests).
pub fn encode_unit_serial(serial: &str) -> Vec<u8> {
    let mut page = vec![0, UNIT_SERIAL_PAGE, 0, serial.len().min(255) as u8];
    page.extend_from_slice(&serial.as_bytes()[..serial.len().min(255)]);
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_rates() {
        let rate = |word| parse_block_characteristics(&encode_block_characteristics(word, true));
        assert_eq!(rate(0x0000), Ok(None), "not reported");
        assert_eq!(rate(0x0001), Ok(Some(0)), "non-rotating medium");
        assert_eq!(rate(0x0002), Ok(None), "reserved");
        assert_eq!(rate(0x0400), Ok(None), "reserved");
        assert_eq!(rate(5400), Ok(Some(5400)));
        assert_eq!(rate(7200), Ok(Some(7200)));
        assert_eq!(rate(0xFFFF), Ok(None), "reserved");
    }

    #[test]
    fn malformed_pages() {
        assert_eq!(
            parse_block_characteristics(&[]),
            Err(VpdError::Truncated(0))
        );
        assert_eq!(
            parse_block_characteristics(&[0, 0xB1, 0, 0x3C, 0]),
            Err(VpdError::Truncated(5))
        );
        let mut page = encode_block_characteristics(1, false);
        page[1] = 0xB0;
        assert_eq!(
            parse_block_characteristics(&page),
            Err(VpdError::WrongPage {
                found: 0xB0,
                expected: 0xB1
            })
        );
        let mut page = encode_block_characteristics(1, false);
        page[2..4].copy_from_slice(&[0, 1]);
        assert_eq!(
            parse_block_characteristics(&page),
            Err(VpdError::ShortLength(1))
        );
    }

    #[test]
    fn sat_designator_names_the_ata_drive() {
        let page = encode_ata_device_identification("Samsung SSD 870 EVO 2TB", "S6PNNS0T412345A");
        assert_eq!(
            parse_ata_designator(&page),
            Some(AtaBehindSat {
                model: "Samsung SSD 870 EVO 2TB".into(),
                serial: Some("S6PNNS0T412345A".into())
            })
        );
        // Cut anywhere, a page yields nothing rather than a wrong name.
        for end in 0..page.len() {
            let cut = &page[..end];
            assert!(parse_ata_designator(cut).is_none_or(|a| !a.model.is_empty()));
        }
        assert_eq!(parse_ata_designator(&encode_unit_serial("X")), None);
        assert_eq!(
            parse_unit_serial(&encode_unit_serial("  NCQEMU01 ")),
            Some("NCQEMU01".into())
        );
        assert_eq!(parse_unit_serial(&[0, 0x80, 0, 40]), None);
    }
}
