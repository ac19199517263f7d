//! ATA IDENTIFY DEVICE data: the libata sysfs text dump and the 256-word structure.
//!
//! `/sys/class/ata_device/devN.M/id` is world-readable and holds the raw IDENTIFY DEVICE
//! response the kernel captured at probe time: 256 words printed as `%04x`, eight per line
//! separated by spaces, 32 lines (`show_ata_dev_id` in `drivers/ata/libata-transport.c`).
//! Port multipliers print nothing. Word meanings follow ACS-3 as summarised in
//! `docs/sources/linux-storage-facts.md`.

use thiserror::Error;

/// Words in an IDENTIFY DEVICE response.
pub const IDENTIFY_WORDS: usize = 256;

const W_SERIAL: std::ops::Range<usize> = 10..20;
const W_FIRMWARE: std::ops::Range<usize> = 23..27;
const W_MODEL: std::ops::Range<usize> = 27..47;
const W_LBA28_CAPACITY: usize = 60;
const W_ADDITIONAL_SUPPORTED: usize = 69;
const W_SATA_CAPABILITIES: usize = 76;
const W_SATA_ADDITIONAL_CAPABILITIES: usize = 77;
const W_COMMAND_SET_2: usize = 83;
const W_LBA48_CAPACITY: usize = 100;
const W_DATA_SET_MANAGEMENT: usize = 169;
const W_ROTATION_RATE: usize = 217;
const W_INTEGRITY: usize = 255;
const INTEGRITY_SIGNATURE: u16 = 0x00A5;

const DRAT_BIT: u16 = 1 << 14;
const TRIM_BIT: u16 = 1 << 0;
const LBA48_SUPPORTED_BIT: u16 = 1 << 10;
/// Words 82-87 are only meaningful when bits 15:14 read `01`.
const VALIDITY_MASK: u16 = 0xC000;
const VALIDITY_OK: u16 = 0x4000;
const ROTATION_NON_ROTATING: u16 = 0x0001;
const ROTATION_MIN_RPM: u16 = 0x0401;
const ROTATION_MAX_RPM: u16 = 0xFFFE;

/// Signalling speeds in word 76 (bits 1, 2, 3) and their rates in Gb/s.
const SATA_SPEEDS: [(u16, f64); 3] = [(1 << 1, 1.5), (1 << 2, 3.0), (1 << 3, 6.0)];

/// What the probe needs from an IDENTIFY DEVICE response.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AtaIdentify {
    /// Full ATA model (words 27-46), which the SCSI `model` attribute truncates to 16 chars.
    pub model: String,
    pub firmware: String,
    pub serial: String,
    /// Word 169 bit 0: DATA SET MANAGEMENT / TRIM.
    pub trim_supported: bool,
    /// Word 69 bit 14: deterministic read after TRIM.
    pub deterministic_read_after_trim: bool,
    /// Word 217 as the drive reports it: `Some(1)` non-rotating (SSD), `Some(rpm)` for a
    /// spinning disk, `None` when not reported (0) or reserved.
    pub rotation_rate: Option<u32>,
    /// Fastest signalling speed the drive supports (word 76), Gb/s.
    pub sata_max_gbps: Option<f64>,
    /// Negotiated signalling speed (word 77 bits 3:1), Gb/s.
    pub sata_current_gbps: Option<f64>,
    /// User-addressable logical sectors: words 100-103 when 48-bit addressing is supported,
    /// else words 60-61.
    pub capacity_sectors: Option<u64>,
    /// Word 255 integrity check: `None` when the drive does not sign it (low byte not
    /// 0xA5), else whether all 512 bytes sum to zero. A bad sum means a corrupted dump.
    pub checksum_ok: Option<bool>,
}

impl AtaIdentify {
    /// Rotation rate in the convention of [`crate::facts::Drive::rotation_rate_rpm`] and
    /// smartctl: `Some(0)` for an SSD, else rpm.
    pub fn rotation_rate_rpm(&self) -> Option<u32> {
        rotation_rate_rpm(self.rotation_rate)
    }

    /// `Some(false)` for a non-rotating drive, `Some(true)` when it reports an rpm.
    pub fn rotational(&self) -> Option<bool> {
        self.rotation_rate.map(|rate| rate != 1)
    }
}

/// The sysfs `id` text is not a 256-word IDENTIFY dump.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IdentifyError {
    #[error("IDENTIFY data is empty (the kernel prints nothing for port multipliers)")]
    Empty,
    #[error("IDENTIFY word {index} is not four hex digits: {text:?}")]
    BadWord { index: usize, text: String },
    #[error("IDENTIFY data has {found} words, expected 256")]
    WrongLength { found: usize },
}

/// Decodes a fixed-width ASCII identity field: NUL padding is treated as space, other
/// control and non-ASCII bytes become U+FFFD, surrounding spaces are trimmed.
pub(crate) fn decode_ascii_field(bytes: &[u8]) -> String {
    let text: String = bytes
        .iter()
        .map(|&byte| match byte {
            0 => ' ',
            0x20..=0x7E => char::from(byte),
            _ => char::REPLACEMENT_CHARACTER,
        })
        .collect();
    text.trim().to_owned()
}

/// ATA strings put the first character in the high byte of each word.
fn word_string(words: &[u16]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_be_bytes()).collect();
    decode_ascii_field(&bytes)
}

fn word(words: &[u16; IDENTIFY_WORDS], index: usize) -> u16 {
    words.get(index).copied().unwrap_or(0)
}

fn dword(words: &[u16; IDENTIFY_WORDS], index: usize) -> u32 {
    u32::from(word(words, index)) | (u32::from(word(words, index + 1)) << 16)
}

fn qword(words: &[u16; IDENTIFY_WORDS], index: usize) -> u64 {
    (0..4).fold(0u64, |acc, i| {
        acc | (u64::from(word(words, index + i)) << (16 * i))
    })
}

fn sata_max_gbps(word76: u16) -> Option<f64> {
    // 0x0000 and 0xFFFF mean the word is not implemented (PATA, or a bridge that zeroes it).
    if word76 == 0 || word76 == 0xFFFF {
        return None;
    }
    SATA_SPEEDS
        .iter()
        .rev()
        .find(|(bit, _)| word76 & bit != 0)
        .map(|&(_, gbps)| gbps)
}

fn sata_current_gbps(word77: u16) -> Option<f64> {
    if word77 == 0xFFFF {
        return None;
    }
    match (word77 >> 1) & 0b111 {
        1 => Some(1.5),
        2 => Some(3.0),
        3 => Some(6.0),
        _ => None,
    }
}

/// Nominal media rotation rate as ATA word 217 encodes it, and the SCSI Block Device
/// Characteristics page copies it: `Some(1)` for a non-rotating medium, `Some(rpm)` for a
/// spinning one, `None` when not reported (0) or reserved.
pub(crate) fn rotation_rate(word: u16) -> Option<u32> {
    match word {
        ROTATION_NON_ROTATING => Some(1),
        ROTATION_MIN_RPM..=ROTATION_MAX_RPM => Some(u32::from(word)),
        _ => None,
    }
}

/// A [`rotation_rate`] in the convention of [`crate::facts::Drive::rotation_rate_rpm`] and
/// smartctl: `Some(0)` for a non-rotating medium, else rpm.
pub(crate) fn rotation_rate_rpm(rate: Option<u32>) -> Option<u32> {
    match rate {
        Some(1) => Some(0),
        other => other,
    }
}

fn capacity_sectors(words: &[u16; IDENTIFY_WORDS]) -> Option<u64> {
    let word83 = word(words, W_COMMAND_SET_2);
    let lba48 = word83 & VALIDITY_MASK == VALIDITY_OK && word83 & LBA48_SUPPORTED_BIT != 0;
    if lba48 {
        let sectors = qword(words, W_LBA48_CAPACITY);
        if sectors != 0 {
            return Some(sectors);
        }
    }
    match dword(words, W_LBA28_CAPACITY) {
        0 => None,
        sectors => Some(u64::from(sectors)),
    }
}

fn byte_sum(words: &[u16]) -> u8 {
    words.iter().fold(0u8, |sum, word| {
        let [high, low] = word.to_be_bytes();
        sum.wrapping_add(high).wrapping_add(low)
    })
}

fn checksum_ok(words: &[u16; IDENTIFY_WORDS]) -> Option<bool> {
    if word(words, W_INTEGRITY) & 0x00FF != INTEGRITY_SIGNATURE {
        return None;
    }
    Some(byte_sum(words) == 0)
}

/// Interprets a 256-word IDENTIFY DEVICE response.
pub fn parse_identify_words(words: &[u16; IDENTIFY_WORDS]) -> AtaIdentify {
    AtaIdentify {
        model: word_string(&words[W_MODEL]),
        firmware: word_string(&words[W_FIRMWARE]),
        serial: word_string(&words[W_SERIAL]),
        trim_supported: word(words, W_DATA_SET_MANAGEMENT) & TRIM_BIT != 0,
        deterministic_read_after_trim: word(words, W_ADDITIONAL_SUPPORTED) & DRAT_BIT != 0,
        rotation_rate: rotation_rate(word(words, W_ROTATION_RATE)),
        sata_max_gbps: sata_max_gbps(word(words, W_SATA_CAPABILITIES)),
        sata_current_gbps: sata_current_gbps(word(words, W_SATA_ADDITIONAL_CAPABILITIES)),
        capacity_sectors: capacity_sectors(words),
        checksum_ok: checksum_ok(words),
    }
}

/// Reads the 256 words of a sysfs `id` dump. Whitespace layout is not enforced (any
/// whitespace separates words), but every word must be exactly four hex digits.
pub fn parse_identify_words_text(text: &[u8]) -> Result<[u16; IDENTIFY_WORDS], IdentifyError> {
    let mut words = [0u16; IDENTIFY_WORDS];
    let mut found = 0usize;
    for token in text
        .split(|byte| byte.is_ascii_whitespace())
        .filter(|token| !token.is_empty())
    {
        let Some(slot) = words.get_mut(found) else {
            // Count the rest without storing it, so the error says how long the input was.
            found += 1;
            continue;
        };
        *slot = parse_hex_word(token).ok_or_else(|| IdentifyError::BadWord {
            index: found,
            text: String::from_utf8_lossy(&token[..token.len().min(16)]).into_owned(),
        })?;
        found += 1;
    }
    match found {
        0 => Err(IdentifyError::Empty),
        IDENTIFY_WORDS => Ok(words),
        _ => Err(IdentifyError::WrongLength { found }),
    }
}

fn parse_hex_word(token: &[u8]) -> Option<u16> {
    if token.len() != 4 {
        return None;
    }
    token.iter().try_fold(0u16, |acc, &byte| {
        let digit = char::from(byte).to_digit(16)?;
        Some((acc << 4) | u16::try_from(digit).ok()?)
    })
}

/// Parses the text of `/sys/class/ata_device/devN.M/id`.
pub fn parse_identify_text(text: &[u8]) -> Result<AtaIdentify, IdentifyError> {
    parse_identify_words_text(text).map(|words| parse_identify_words(&words))
}

/// Formats 256 words exactly as the kernel prints the sysfs `id` attribute (32 lines of eight
/// `%04x` words). For tests and fixture generators.
pub fn encode_identify_text(words: &[u16; IDENTIFY_WORDS]) -> String {
    let mut text = String::with_capacity(IDENTIFY_WORDS * 5);
    for (index, word) in words.iter().enumerate() {
        text.push_str(&format!("{word:04x}"));
        text.push(if (index + 1) % 8 == 0 { '\n' } else { ' ' });
    }
    text
}

impl AtaIdentify {
    /// The 256 IDENTIFY words a real SATA drive with these values answers, for tests and
    /// fixture generators: validity bits of words 83/84/87 set, strings space padded and cut
    /// to their field, capacity in words 60-61 (saturated at the 28-bit maximum) and 100-103
    /// with the 48-bit feature bit set, and signed with a correct checksum whatever
    /// `checksum_ok` says.
    pub fn to_words(&self) -> [u16; IDENTIFY_WORDS] {
        let mut words = [0u16; IDENTIFY_WORDS];
        // Word 0 bit 15 clear: an ATA (not ATAPI) device.
        words[0] = 0x0040;
        put_string(&mut words[W_SERIAL], &self.serial);
        put_string(&mut words[W_FIRMWARE], &self.firmware);
        put_string(&mut words[W_MODEL], &self.model);
        // Word 49 bit 9: LBA supported; word 83/84/87 validity patterns plus 48-bit support.
        words[49] = 1 << 9;
        words[W_COMMAND_SET_2] = VALIDITY_OK;
        words[84] = VALIDITY_OK;
        words[87] = VALIDITY_OK;
        if let Some(sectors) = self.capacity_sectors {
            let lba28 = u32::try_from(sectors.min(0x0FFF_FFFF)).unwrap_or(0x0FFF_FFFF);
            words[W_LBA28_CAPACITY] = (lba28 & 0xFFFF) as u16;
            words[W_LBA28_CAPACITY + 1] = (lba28 >> 16) as u16;
            words[W_COMMAND_SET_2] |= LBA48_SUPPORTED_BIT;
            for i in 0..4 {
                words[W_LBA48_CAPACITY + i] = (sectors >> (16 * i)) as u16;
            }
        }
        if self.deterministic_read_after_trim {
            words[W_ADDITIONAL_SUPPORTED] |= DRAT_BIT;
        }
        if self.trim_supported {
            words[W_DATA_SET_MANAGEMENT] |= TRIM_BIT;
        }
        if let Some(max) = self.sata_max_gbps {
            // A drive supporting a speed supports every slower one.
            for (bit, gbps) in SATA_SPEEDS {
                if gbps <= max {
                    words[W_SATA_CAPABILITIES] |= bit;
                }
            }
        }
        if let Some(current) = self.sata_current_gbps {
            let code = SATA_SPEEDS
                .iter()
                .position(|&(_, gbps)| (gbps - current).abs() < 0.01)
                .map_or(0, |index| index as u16 + 1);
            words[W_SATA_ADDITIONAL_CAPABILITIES] |= code << 1;
        }
        words[W_ROTATION_RATE] = self
            .rotation_rate
            .and_then(|rate| u16::try_from(rate).ok())
            .unwrap_or(0);
        // Sign and checksum like a real drive: all 512 bytes must sum to zero.
        words[W_INTEGRITY] = INTEGRITY_SIGNATURE;
        let checksum = 0u8.wrapping_sub(byte_sum(&words));
        words[W_INTEGRITY] |= u16::from(checksum) << 8;
        words
    }
}

/// Builds IDENTIFY DEVICE words with chosen values (see [`AtaIdentify::to_words`]).
#[derive(Debug, Clone, Default)]
pub struct IdentifyBuilder {
    identify: AtaIdentify,
}

impl IdentifyBuilder {
    pub fn new() -> Self {
        Self::default()
    }
    /// Model; at most 40 ASCII bytes are kept.
    pub fn model(mut self, model: &str) -> Self {
        self.identify.model = model.to_owned();
        self
    }
    /// Firmware revision; at most 8 ASCII bytes are kept.
    pub fn firmware(mut self, firmware: &str) -> Self {
        self.identify.firmware = firmware.to_owned();
        self
    }
    /// Serial number; at most 20 ASCII bytes are kept.
    pub fn serial(mut self, serial: &str) -> Self {
        self.identify.serial = serial.to_owned();
        self
    }
    pub fn trim(mut self, supported: bool, deterministic_read_after_trim: bool) -> Self {
        self.identify.trim_supported = supported;
        self.identify.deterministic_read_after_trim = deterministic_read_after_trim;
        self
    }
    /// A solid-state drive (word 217 = 1).
    pub fn non_rotating(mut self) -> Self {
        self.identify.rotation_rate = Some(u32::from(ROTATION_NON_ROTATING));
        self
    }
    /// A spinning disk; rates outside 1025..=65534 rpm are stored as "not reported".
    pub fn rpm(mut self, rpm: u16) -> Self {
        self.identify.rotation_rate = (ROTATION_MIN_RPM..=ROTATION_MAX_RPM)
            .contains(&rpm)
            .then_some(u32::from(rpm));
        self
    }
    /// Maximum supported and negotiated speeds; only 1.5, 3.0 and 6.0 Gb/s exist.
    pub fn sata_speeds(mut self, max_gbps: Option<f64>, current_gbps: Option<f64>) -> Self {
        self.identify.sata_max_gbps = max_gbps;
        self.identify.sata_current_gbps = current_gbps;
        self
    }
    pub fn capacity_sectors(mut self, sectors: u64) -> Self {
        self.identify.capacity_sectors = Some(sectors);
        self
    }

    /// The 256 IDENTIFY words.
    pub fn build(&self) -> [u16; IDENTIFY_WORDS] {
        self.identify.to_words()
    }
}

fn put_string(field: &mut [u16], text: &str) {
    let mut bytes = text.bytes().chain(std::iter::repeat(b' '));
    for word in field.iter_mut() {
        let high = bytes.next().unwrap_or(b' ');
        let low = bytes.next().unwrap_or(b' ');
        *word = u16::from_be_bytes([high, low]);
    }
}
