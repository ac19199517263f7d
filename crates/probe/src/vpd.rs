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
}
