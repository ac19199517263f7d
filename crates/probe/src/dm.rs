//! Device-mapper tables: which lower device and sector each part of a dm device (an LVM
//! logical volume, a dm-crypt mapping) is mapped to, and dm-crypt's optional parameters.
//!
//! On the live machine the table comes from the `DM_TABLE_STATUS` ioctl on
//! `/dev/mapper/control` (root only), the call `dmsetup table` makes; under a fixture or an
//! unpacked snapshot from `/nodecheck/dm/<dm-N>.table` in `dmsetup table`'s text format. The
//! formats are the kernel's (`include/uapi/linux/dm-ioctl.h`,
//! `Documentation/admin-guide/device-mapper/{linear,dm-crypt}.rst`; docs/sources/stack-mapping.md).
//!
//! A crypt target's table line carries its key (in hex unless it sits in the kernel keyring):
//! the parser skips that word and nothing here keeps, logs or returns it.

use serde::{Deserialize, Serialize};

use crate::root::Root;

/// Where a fixture or an unpacked snapshot keeps a dm device's table (`dm-0.table`).
pub const SAVED_TABLES: &str = "/nodecheck/dm";

/// Bytes in the sectors device-mapper counts in, whatever the device's logical block size.
pub const SECTOR_BYTES: u64 = 512;

/// One line of a dm table: sectors `start..start+sectors` of the dm device go to a target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DmTarget {
    pub start_sector: u64,
    pub sectors: u64,
    /// The target type: `linear`, `crypt`, `striped`, `thin`, ...
    pub target: String,
    /// For `linear` and `crypt`: the lower device as `major:minor` (a path where the table
    /// names one) and the sector there that this target's first sector maps to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_sector: Option<u64>,
    /// dm-crypt's optional parameters as the table lists them (`no_read_workqueue`,
    /// `allow_discards`, `sector_size:4096`); the cipher is kept, the key never.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cipher: Option<String>,
}

impl DmTarget {
    /// Whether a dm-crypt target lists the optional parameter `name`.
    pub fn has_option(&self, name: &str) -> bool {
        self.options.iter().any(|o| o == name)
    }

    /// The byte range of the dm device this target covers (`None` if it overflows).
    pub fn byte_range(&self) -> Option<std::ops::Range<u64>> {
        let start = self.start_sector.checked_mul(SECTOR_BYTES)?;
        let end = self
            .start_sector
            .checked_add(self.sectors)?
            .checked_mul(SECTOR_BYTES)?;
        Some(start..end)
    }
}

/// Why a table could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    #[error("reading the device-mapper table of {name} needs root")]
    NeedsRoot { name: String },
    #[error("the device-mapper table of {name} could not be read: {reason}")]
    Unreadable { name: String, reason: String },
    #[error("the device-mapper table of {name} is not in the snapshot")]
    NotSaved { name: String },
    #[error("line {line} of the device-mapper table of {name} is malformed: {text:?}")]
    Malformed {
        name: String,
        line: usize,
        text: String,
    },
}

/// Lines that are not a target (a truncated or garbled table) are an error: a table that
/// maps only part of the device would send reads to the wrong place.
pub fn parse_table(name: &str, text: &str) -> Result<Vec<DmTarget>, TableError> {
    let mut targets = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let malformed = || TableError::Malformed {
            name: name.to_string(),
            line: index + 1,
            text: shown(line),
        };
        let [start, length, target, params @ ..] = words.as_slice() else {
            return Err(malformed());
        };
        let (Ok(start), Ok(length)) = (start.parse(), length.parse()) else {
            return Err(malformed());
        };
        targets.push(target_of(start, length, target, &params.join(" ")));
    }
    Ok(targets)
}

/// A table line with the key of a crypt target left out, in `dmsetup table`'s format, for a
/// snapshot or a report.
pub fn line_without_key(target: &DmTarget) -> String {
    let mut line = format!(
        "{} {} {}",
        target.start_sector, target.sectors, target.target
    );
    if let (Some(device), Some(sector)) = (&target.device, target.device_sector) {
        if target.target == "crypt" {
            let cipher = target.cipher.as_deref().unwrap_or("-");
            line.push_str(&format!(" {cipher} - 0 {device} {sector}"));
            if !target.options.is_empty() {
                line.push_str(&format!(
                    " {} {}",
                    target.options.len(),
                    target.options.join(" ")
                ));
            }
        } else {
            line.push_str(&format!(" {device} {sector}"));
        }
    }
    line
}

/// One target from its start, length, type and parameter string.
fn target_of(start: u64, sectors: u64, target: &str, params: &str) -> DmTarget {
    let words: Vec<&str> = params.split_whitespace().collect();
    let mut found = DmTarget {
        start_sector: start,
        sectors,
        target: shown(target),
        device: None,
        device_sector: None,
        options: Vec::new(),
        cipher: None,
    };
    match target {
        // linear: <dev> <offset>
        "linear" => {
            if let [device, sector, ..] = words.as_slice() {
                found.device = Some(shown(device));
                found.device_sector = sector.parse().ok();
            }
        }
        // crypt: <cipher> <key> <iv_offset> <device> <offset> [<#opt_params> <opt_params>]
        "crypt" => {
            if let [cipher, _key, _iv_offset, device, sector, rest @ ..] = words.as_slice() {
                found.cipher = Some(shown(cipher));
                found.device = Some(shown(device));
                found.device_sector = sector.parse().ok();
                if let Some((count, options)) = rest.split_first() {
                    let count: usize = count.parse().unwrap_or(0);
                    found.options = options.iter().take(count).map(|o| shown(o)).collect();
                }
            }
        }
        _ => {}
    }
    found
}

/// Table words are short; a longer one is garbage and is cut before it reaches a report.
fn shown(word: &str) -> String {
    word.chars().take(256).collect()
}

/// The table of dm device `name` (`dm-0`, mapped as `mapper_name`): the ioctl on the live
/// machine, the saved text under a fixture or snapshot.
pub fn read_table(
    root: &Root,
    name: &str,
    mapper_name: Option<&str>,
) -> Result<Vec<DmTarget>, TableError> {
    if !root.is_live() {
        let text = root
            .read_text(format!("{SAVED_TABLES}/{name}.table"))
            .ok_or_else(|| TableError::NotSaved {
                name: name.to_string(),
            })?;
        return parse_table(name, &text);
    }
    let Some(mapper_name) = mapper_name else {
        return Err(TableError::Unreadable {
            name: name.to_string(),
            reason: "sysfs gives no dm name".to_string(),
        });
    };
    ioctl::table_status(name, mapper_name)
}

mod ioctl {
    //! `DM_TABLE_STATUS` with `DM_STATUS_TABLE_FLAG`: the table as loaded, not the targets'
    //! run-time status. The result buffer is `struct dm_ioctl`, then from `data_start` one
    //! `struct dm_target_spec` per target, each followed by its NUL-terminated parameter
    //! string; `next` is the next spec's offset from the first spec.

    use std::os::unix::io::AsRawFd;

    use super::{target_of, DmTarget, TableError};

    const DM_NAME_LEN: usize = 128;
    const DM_UUID_LEN: usize = 129;
    const DM_MAX_TYPE_NAME: usize = 16;
    const DM_STATUS_TABLE_FLAG: u32 = 1 << 4;
    const DM_BUFFER_FULL_FLAG: u32 = 1 << 8;
    /// The kernel wipes its copies of the buffers: the table holds a crypt key.
    const DM_SECURE_DATA_FLAG: u32 = 1 << 15;
    const DM_TABLE_STATUS_CMD: u8 = 12;

    #[repr(C)]
    #[derive(Clone, Copy)]
    struct DmIoctl {
        version: [u32; 3],
        data_size: u32,
        data_start: u32,
        target_count: u32,
        open_count: i32,
        flags: u32,
        event_nr: u32,
        padding: u32,
        dev: u64,
        name: [u8; DM_NAME_LEN],
        uuid: [u8; DM_UUID_LEN],
        data: [u8; 7],
    }

    /// `struct dm_target_spec`: u64, u64, i32, u32, then the type name.
    const SPEC_BYTES: usize = 8 + 8 + 4 + 4 + DM_MAX_TYPE_NAME;
    const HEADER_BYTES: usize = std::mem::size_of::<DmIoctl>();

    nix::ioctl_readwrite!(dm_table_status, 0xfd, DM_TABLE_STATUS_CMD, DmIoctl);

    /// Tables of LVM volumes spread over many segments run to a few KiB; a buffer the kernel
    /// reports full is doubled up to this.
    const MAX_BUFFER: usize = 1 << 20;

    pub(super) fn table_status(name: &str, mapper_name: &str) -> Result<Vec<DmTarget>, TableError> {
        let unreadable = |reason: String| TableError::Unreadable {
            name: name.to_string(),
            reason,
        };
        if mapper_name.len() >= DM_NAME_LEN || mapper_name.contains('\0') {
            return Err(unreadable("its dm name is not a valid name".to_string()));
        }
        let control = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/mapper/control")
            .map_err(|err| match err.kind() {
                std::io::ErrorKind::PermissionDenied => TableError::NeedsRoot {
                    name: name.to_string(),
                },
                _ => unreadable(format!("/dev/mapper/control: {err}")),
            })?;
        let mut size = 16 << 10;
        loop {
            // u64 words keep the buffer aligned for the header and the specs' u64 fields.
            let mut buffer = vec![0u64; size / 8];
            let header = DmIoctl {
                version: [4, 0, 0],
                data_size: size as u32,
                data_start: HEADER_BYTES as u32,
                target_count: 0,
                open_count: 0,
                flags: DM_STATUS_TABLE_FLAG | DM_SECURE_DATA_FLAG,
                event_nr: 0,
                padding: 0,
                dev: 0,
                name: {
                    let mut bytes = [0u8; DM_NAME_LEN];
                    bytes[..mapper_name.len()].copy_from_slice(mapper_name.as_bytes());
                    bytes
                },
                uuid: [0; DM_UUID_LEN],
                data: [0; 7],
            };
            let base = buffer.as_mut_ptr().cast::<DmIoctl>();
            // SAFETY: the buffer is at least HEADER_BYTES long, 8-byte aligned, and the kernel
            // writes at most `data_size` bytes into it.
            let result = unsafe {
                base.write(header);
                dm_table_status(control.as_raw_fd(), base)
            };
            if let Err(errno) = result {
                wipe(&mut buffer);
                return Err(match errno {
                    nix::errno::Errno::EPERM | nix::errno::Errno::EACCES => TableError::NeedsRoot {
                        name: name.to_string(),
                    },
                    errno => unreadable(format!("DM_TABLE_STATUS: {errno}")),
                });
            }
            // SAFETY: the kernel filled the header in place.
            let answer = unsafe { base.read() };
            if answer.flags & DM_BUFFER_FULL_FLAG != 0 && size < MAX_BUFFER {
                wipe(&mut buffer);
                size *= 2;
                continue;
            }
            let bytes: Vec<u8> = buffer.iter().flat_map(|w| w.to_ne_bytes()).collect();
            wipe(&mut buffer);
            let parsed = parse_answer(&bytes, &answer).map_err(unreadable);
            let mut bytes = bytes;
            bytes.iter_mut().for_each(|b| *b = 0);
            return parsed;
        }
    }

    /// The key was in the buffer: overwrite it before the memory is freed.
    fn wipe(buffer: &mut [u64]) {
        for word in buffer.iter_mut() {
            // SAFETY: a plain write to a valid, aligned u64; volatile so it is not elided.
            unsafe { std::ptr::write_volatile(word, 0) };
        }
    }

    fn parse_answer(bytes: &[u8], answer: &DmIoctl) -> Result<Vec<DmTarget>, String> {
        let data_start = answer.data_start as usize;
        let data_end = (answer.data_size as usize).min(bytes.len());
        if data_start > data_end {
            return Err("the kernel's answer is malformed".to_string());
        }
        let data = &bytes[data_start..data_end];
        let mut targets = Vec::new();
        let mut offset = 0usize;
        for _ in 0..answer.target_count {
            let Some(spec) = data.get(offset..offset + SPEC_BYTES) else {
                return Err("the kernel's answer ends inside a target".to_string());
            };
            let word =
                |at: usize| u64::from_ne_bytes(spec[at..at + 8].try_into().unwrap_or([0; 8]));
            let next = u32::from_ne_bytes(spec[20..24].try_into().unwrap_or([0; 4])) as usize;
            let type_name = c_string(&spec[24..24 + DM_MAX_TYPE_NAME]);
            let params = c_string(data.get(offset + SPEC_BYTES..).unwrap_or(&[]));
            targets.push(target_of(word(0), word(8), &type_name, &params));
            if next <= offset {
                break;
            }
            offset = next;
        }
        Ok(targets)
    }

    fn c_string(bytes: &[u8]) -> String {
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        String::from_utf8_lossy(&bytes[..end]).into_owned()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_header_has_the_kernels_size() {
            // 3×4 + 6×4 + 8 + 128 + 129 + 7 = 312, a multiple of 8: the specs follow it.
            assert_eq!(HEADER_BYTES, 312);
        }

        /// An answer laid out as dm-ioctl.c's retrieve_status lays it out: a linear target,
        /// then a crypt target whose key must not survive parsing.
        #[test]
        fn an_answer_in_the_kernels_layout_parses_without_the_key() {
            let mut data = Vec::new();
            let spec = |start: u64, length: u64, kind: &str, params: &str, data: &mut Vec<u8>| {
                let at = data.len();
                data.extend_from_slice(&start.to_ne_bytes());
                data.extend_from_slice(&length.to_ne_bytes());
                data.extend_from_slice(&0i32.to_ne_bytes());
                data.extend_from_slice(&0u32.to_ne_bytes());
                let mut name = [0u8; DM_MAX_TYPE_NAME];
                name[..kind.len()].copy_from_slice(kind.as_bytes());
                data.extend_from_slice(&name);
                data.extend_from_slice(params.as_bytes());
                data.push(0);
                while !data.len().is_multiple_of(8) {
                    data.push(0);
                }
                let next = data.len() as u32;
                data[at + 20..at + 24].copy_from_slice(&next.to_ne_bytes());
            };
            spec(0, 2048, "linear", "259:1 2048", &mut data);
            spec(
                2048,
                4096,
                "crypt",
                "aes-xts-plain64 0123456789abcdef0123456789abcdef 0 259:2 32768 2 no_read_workqueue no_write_workqueue",
                &mut data,
            );
            let mut bytes = vec![0u8; HEADER_BYTES];
            bytes.extend_from_slice(&data);
            let answer = DmIoctl {
                version: [4, 48, 0],
                data_size: bytes.len() as u32,
                data_start: HEADER_BYTES as u32,
                target_count: 2,
                open_count: 1,
                flags: 0,
                event_nr: 0,
                padding: 0,
                dev: 0,
                name: [0; DM_NAME_LEN],
                uuid: [0; DM_UUID_LEN],
                data: [0; 7],
            };
            let targets = parse_answer(&bytes, &answer).unwrap();
            assert_eq!(targets.len(), 2);
            assert_eq!(targets[0].device.as_deref(), Some("259:1"));
            assert_eq!(targets[0].device_sector, Some(2048));
            assert_eq!(targets[1].start_sector, 2048);
            assert_eq!(targets[1].device_sector, Some(32768));
            assert!(targets[1].has_option("no_write_workqueue"));
            assert!(!format!("{targets:?}").contains("0123456789abcdef"));

            let truncated = DmIoctl {
                data_size: (HEADER_BYTES + 30) as u32,
                ..answer
            };
            assert!(parse_answer(&bytes, &truncated).is_err());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dmsetup table` on Ubuntu's LUKS-with-LVM install after `cryptsetup refresh
    /// --perf-no_read_workqueue --perf-no_write_workqueue --allow-discards`: the key as
    /// `dmsetup` masks it, LVM's root volume in two segments.
    const LUKS_TABLE: &str = "0 3905943552 crypt aes-xts-plain64 :64:logon:cryptsetup:4f1c2b9d-8e7a-4c3b-9a1d-2e3f4a5b6c7d-d0 0 259:2 32768 3 allow_discards no_read_workqueue no_write_workqueue\n";
    const LVM_TABLE: &str =
        "0 209715200 linear 253:0 2048\n209715200 1048576000 linear 253:0 419432448\n";

    #[test]
    fn crypt_lines_give_the_device_offset_and_options_not_the_key() {
        let targets = parse_table("dm-0", LUKS_TABLE).unwrap();
        let crypt = &targets[0];
        assert_eq!(crypt.target, "crypt");
        assert_eq!(crypt.sectors, 3_905_943_552);
        assert_eq!(crypt.device.as_deref(), Some("259:2"));
        assert_eq!(crypt.device_sector, Some(32768));
        assert_eq!(crypt.cipher.as_deref(), Some("aes-xts-plain64"));
        assert!(crypt.has_option("no_read_workqueue"));
        assert!(crypt.has_option("allow_discards"));
        assert!(!format!("{targets:?}").contains("logon"));
        assert_eq!(
            line_without_key(crypt),
            "0 3905943552 crypt aes-xts-plain64 - 0 259:2 32768 3 allow_discards no_read_workqueue no_write_workqueue"
        );
        // What a snapshot saves reads back as the same target, so a replay judges the flags.
        let saved = parse_table("dm-0", &line_without_key(crypt)).unwrap();
        assert_eq!(saved, std::slice::from_ref(crypt));

        let hex_key = "0 8192 crypt aes-xts-plain64 \
            0000000000000000000000000000000000000000000000000000000000000000 0 8:16 4096\n";
        let plain = parse_table("dm-1", hex_key).unwrap();
        assert!(plain[0].options.is_empty());
        assert_eq!(plain[0].device_sector, Some(4096));
    }

    #[test]
    fn linear_segments_keep_their_order() {
        let targets = parse_table("dm-1", LVM_TABLE).unwrap();
        assert_eq!(targets.len(), 2);
        assert_eq!(
            targets[1].byte_range(),
            Some(209_715_200 * 512..(209_715_200 + 1_048_576_000) * 512)
        );
        assert_eq!(targets[1].device_sector, Some(419_432_448));
        assert_eq!(
            line_without_key(&targets[1]),
            LVM_TABLE.lines().nth(1).unwrap()
        );
    }

    #[test]
    fn hostile_tables_are_errors_or_harmless() {
        for text in ["0", "x 1 linear", "0 1", "1 -2 linear"] {
            assert!(parse_table("dm-0", text).is_err(), "{text:?}");
        }
        // A count larger than the options given, and a garbage sector, are survivable.
        let odd = parse_table(
            "dm-0",
            "0 8 crypt c k 0 8:0 x 9 allow_discards\n0 1 striped 2 8 a 0 b 0\n",
        )
        .unwrap();
        assert_eq!(odd[0].device_sector, None);
        assert_eq!(odd[0].options, vec!["allow_discards"]);
        assert_eq!(odd[1].device, None);
        assert!(DmTarget {
            start_sector: u64::MAX,
            ..odd[1].clone()
        }
        .byte_range()
        .is_none());
        let huge = format!("0 1 {} 8:0 0", "x".repeat(100_000));
        assert_eq!(parse_table("dm-0", &huge).unwrap()[0].target.len(), 256);
    }
}
