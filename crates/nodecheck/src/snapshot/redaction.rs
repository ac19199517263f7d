//! What `--redact` changes in the files an archive holds: serial numbers (with the IDENTIFY
//! dump's checksum re-signed), WWNs, whatever the redactor recognises in text, and the names of
//! the entries themselves. What every archive leaves out of `/etc/fstab` is here too.

use std::collections::BTreeMap;

use super::*;

/// The names entries get in an archive: each component redacted as the redactor would redact
/// the path up to it, so `home/alice_test/...` becomes `home/[redacted]/...` and
/// `sys/fs/btrfs/<uuid>/...` becomes `sys/fs/btrfs/[redacted]/...`, and kept apart when two
/// originals redact to one name (two btrfs file systems are `[redacted]` and `[redacted]-2`),
/// so a replay lists as many as the machine had.
pub(super) struct EntryNames<'a> {
    redactor: Option<&'a Redactor>,
    given: BTreeMap<PathBuf, PathBuf>,
    taken: BTreeSet<PathBuf>,
}

impl<'a> EntryNames<'a> {
    pub(super) fn new(redactor: Option<&'a Redactor>) -> Self {
        EntryNames {
            redactor,
            given: BTreeMap::new(),
            taken: BTreeSet::new(),
        }
    }

    /// The name of the entry for `relative` (a path inside the archive, no leading `/`).
    pub(super) fn name(&mut self, relative: &Path) -> PathBuf {
        let Some(redactor) = self.redactor else {
            return relative.to_path_buf();
        };
        let mut original = PathBuf::new();
        let mut named = PathBuf::new();
        for component in relative.components() {
            original.push(component);
            if let Some(known) = self.given.get(&original) {
                named = known.clone();
                continue;
            }
            let redacted = redactor.redact(&format!("/{}", original.to_string_lossy()));
            let last = redacted
                .rsplit('/')
                .next()
                .filter(|part| !part.is_empty() && *part != "." && *part != "..")
                .unwrap_or(crate::redact::MARK);
            let mut candidate = named.join(last);
            let mut count = 1;
            while self.taken.contains(&candidate) {
                count += 1;
                candidate = named.join(format!("{last}-{count}"));
            }
            self.taken.insert(candidate.clone());
            self.given.insert(original.clone(), candidate.clone());
            named = candidate;
        }
        named
    }
}

/// `/etc/fstab` with every line but `keep` (1-based) emptied: a replay finds the line the probe
/// used at its number, and nothing about the machine's other mounts (other shares, their
/// credentials) leaves it.
pub(super) fn only_fstab_line(bytes: &[u8], keep: Option<usize>) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (index, line) in text.lines().enumerate() {
        if Some(index + 1) == keep {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// Text files are redacted as text. The ATA IDENTIFY dump carries the serial number as hex
/// words, which text redaction cannot see, so its serial words are blanked.
pub(super) fn redact_file(redactor: &Redactor, path: &Path, bytes: Vec<u8>) -> Vec<u8> {
    let is_identify = path.file_name().is_some_and(|n| n == "id")
        && path.components().any(|c| c.as_os_str() == "ata_device");
    let Ok(text) = String::from_utf8(bytes.clone()) else {
        return bytes;
    };
    let text = if is_identify {
        blank_identify_serial(&text)
    } else {
        text
    };
    redactor.redact(&text).into_bytes()
}

/// IDENTIFY DEVICE words 10–19 hold the serial number (ATA8-ACS 7.16.7), words 108–111 the
/// world wide name (ACS-3, `docs/sources/linux-storage-facts.md`). The dump is 256 four-digit hex words; words are
/// replaced in place (`2020` = two spaces for the serial, `0000` for the WWN, which ACS leaves
/// zero on a device without one) so the layout stays.
///
/// A dump the drive signed with a valid word 255 checksum is re-signed over the blanked words,
/// so the replay does not report as corruption what redaction did; a dump whose checksum was
/// already wrong stays wrong, so the replay warns as the live probe did.
const SERIAL_WORDS: std::ops::Range<usize> = 10..20;
const WWN_WORDS: std::ops::Range<usize> = 108..112;

pub fn blank_identify_serial(text: &str) -> String {
    let resigned = resigned_integrity_word(text);
    let mut out = String::with_capacity(text.len());
    let mut word_index = 0usize;
    let mut rest = text;
    while !rest.is_empty() {
        let token_start = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..token_start]);
        rest = &rest[token_start..];
        if rest.is_empty() {
            break;
        }
        let token_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..token_end];
        let is_word = token.len() == 4 && token.chars().all(|c| c.is_ascii_hexdigit());
        if is_word && SERIAL_WORDS.contains(&word_index) {
            out.push_str("2020");
        } else if is_word && WWN_WORDS.contains(&word_index) {
            out.push_str("0000");
        } else if let (true, 255, Some(integrity)) = (is_word, word_index, resigned) {
            out.push_str(&format!("{integrity:04x}"));
        } else {
            out.push_str(token);
        }
        if is_word {
            word_index += 1;
        }
        rest = &rest[token_end..];
    }
    out
}

/// Word 255 for the dump with its serial blanked, when the original carried a valid
/// signature (low byte 0xA5) and checksum (high byte making all 512 bytes sum to zero).
fn resigned_integrity_word(text: &str) -> Option<u16> {
    const INTEGRITY_SIGNATURE: u16 = 0x00A5;
    let mut words = probe::ata::parse_identify_words_text(text.as_bytes()).ok()?;
    if probe::ata::parse_identify_words(&words).checksum_ok != Some(true) {
        return None;
    }
    for word in &mut words[SERIAL_WORDS] {
        *word = 0x2020;
    }
    for word in &mut words[WWN_WORDS] {
        *word = 0;
    }
    let [_, signature] = INTEGRITY_SIGNATURE.to_be_bytes();
    let sum = words[..255]
        .iter()
        .flat_map(|word| word.to_be_bytes())
        .fold(signature, u8::wrapping_add);
    let checksum = 0u8.wrapping_sub(sum);
    Some((u16::from(checksum) << 8) | INTEGRITY_SIGNATURE)
}

/// smartctl's JSON names the serial and the WWN; drop them structurally, then redact the text.
pub(super) fn redact_smartctl(redactor: &Redactor, json: &[u8]) -> Vec<u8> {
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(json) else {
        return redactor.redact(&String::from_utf8_lossy(json)).into_bytes();
    };
    if let Some(obj) = value.as_object_mut() {
        if obj.contains_key("serial_number") {
            obj.insert("serial_number".into(), crate::redact::MARK.into());
        }
        obj.remove("wwn");
        obj.remove("logical_unit_id");
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    redactor.redact(&text).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BTRFS_FSID: &str = "5e3f1a2b-8c4d-4e6f-9a0b-1c2d3e4f5a6b";
    const OTHER_FSID: &str = "0a1b2c3d-4e5f-4789-8bcd-ef0123456789";

    fn redactor() -> Redactor {
        let mut redactor = Redactor::new();
        redactor.add_literal("S4EWNX0R123456");
        redactor
    }

    #[test]
    fn entry_names_are_redacted_component_by_component_and_kept_apart() {
        let redactor = redactor();
        let mut names = EntryNames::new(Some(&redactor));
        let mut name = |path: &str| names.name(Path::new(path)).display().to_string();
        assert_eq!(
            name("home/alice_test/.ethereum"),
            "home/[redacted]/.ethereum"
        );
        assert_eq!(name("run/media/bob/eth"), "run/media/[redacted]/eth");
        assert_eq!(name("media/carol"), "media/[redacted]");
        assert_eq!(
            name(&format!("sys/fs/btrfs/{BTRFS_FSID}/devices/sda")),
            "sys/fs/btrfs/[redacted]/devices/sda"
        );
        assert_eq!(
            name(&format!("sys/fs/btrfs/{OTHER_FSID}/devices/sdb")),
            "sys/fs/btrfs/[redacted]-2/devices/sdb",
            "two file systems stay two"
        );
        assert_eq!(
            name(&format!("sys/fs/btrfs/{BTRFS_FSID}/devices/sdc")),
            "sys/fs/btrfs/[redacted]/devices/sdc",
            "the same original keeps its name"
        );
        assert_eq!(
            name("dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S4EWNX0R123456"),
            "dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_[redacted]"
        );
        assert_eq!(name("sys/block/sda/queue"), "sys/block/sda/queue");

        let mut kept = EntryNames::new(None);
        assert_eq!(
            kept.name(Path::new("home/alice_test")),
            Path::new("home/alice_test")
        );
    }

    /// The archive itself: no entry name or link target carries what the manifest says was
    /// redacted.
    #[test]
    fn a_redacted_archive_names_no_user_uuid_or_serial() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("s.tar.gz");
        let accessed: Vec<AccessedPath> = [
            ("/home/alice_test/.ethereum", AccessKind::Dir),
            (
                &format!("/sys/fs/btrfs/{BTRFS_FSID}/devices") as &str,
                AccessKind::Dir,
            ),
            (
                "/dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S4EWNX0R123456",
                AccessKind::Symlink {
                    target: "../../nvme0n1".into(),
                },
            ),
            (
                "/var/lib/ethereum",
                AccessKind::Symlink {
                    target: "/home/alice_test/.ethereum".into(),
                },
            ),
        ]
        .into_iter()
        .map(|(path, kind)| AccessedPath {
            path: PathBuf::from(path),
            kind,
        })
        .collect();
        let redactor = redactor();
        super::super::write(
            &out,
            &super::super::Contents {
                manifest: Manifest {
                    format: 1,
                    nodecheck_version: "0".into(),
                    path: "/var/lib/ethereum".into(),
                    smartctl: Vec::new(),
                    redacted: true,
                    path_kind: None,
                },
                accessed: &accessed,
                smartctl: Vec::new(),
                statvfs: None,
                dm_tables: Vec::new(),
                command_outputs: Vec::new(),
                redactor: Some(&redactor),
                fstab_line: None,
            },
        )
        .expect("written");
        let mut archive = tar::Archive::new(GzDecoder::new(fs::File::open(&out).expect("open")));
        let mut seen = Vec::new();
        for entry in archive.entries().expect("entries") {
            let entry = entry.expect("entry");
            let name = entry.path().expect("name").display().to_string();
            let target = entry
                .link_name()
                .expect("link")
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            for secret in ["alice", BTRFS_FSID, "S4EWNX0R123456"] {
                assert!(!name.contains(secret), "{name} names {secret}");
                assert!(
                    !target.contains(secret),
                    "{name} -> {target} names {secret}"
                );
            }
            seen.push(name);
        }
        assert!(
            seen.contains(&"home/[redacted]/.ethereum".to_string()),
            "{seen:?}"
        );
    }

    #[test]
    fn only_the_fstab_line_the_probe_used_is_kept_at_its_number() {
        let fstab = b"# comment\nUUID=1 / ext4 defaults 0 1\n//nas/x /mnt/x cifs username=a,password=b 0 0\nLABEL=eth /var/lib/ethereum ext4 defaults 0 2\n";
        assert_eq!(
            String::from_utf8(only_fstab_line(fstab, Some(4))).expect("text"),
            "\n\n\nLABEL=eth /var/lib/ethereum ext4 defaults 0 2\n"
        );
        assert_eq!(only_fstab_line(fstab, None), b"\n\n\n\n");
        let kept = String::from_utf8(only_fstab_line(fstab, Some(4))).expect("text");
        assert_eq!(
            probe::fstab::find_line(&kept, "/var/lib/ethereum"),
            probe::fstab::find_line(&String::from_utf8_lossy(fstab), "/var/lib/ethereum"),
            "the replay finds the same line"
        );
    }

    #[test]
    fn identify_wwn_words_are_blanked_and_the_dump_re_signed() {
        let mut words = probe::ata::IdentifyBuilder::new()
            .model("Samsung SSD 870 QVO 4TB")
            .serial("S5VYNG0N123456A")
            .build();
        words[108..112].copy_from_slice(&[0x5002, 0x538e, 0x4012, 0x3456]);
        let sum = words[..255]
            .iter()
            .flat_map(|w| w.to_be_bytes())
            .fold(0xA5u8, u8::wrapping_add);
        words[255] = (u16::from(0u8.wrapping_sub(sum)) << 8) | 0x00A5;
        let dump = probe::ata::encode_identify_text(&words);
        assert_eq!(
            probe::ata::parse_identify_text(dump.as_bytes())
                .expect("dump")
                .checksum_ok,
            Some(true)
        );
        let out = blank_identify_serial(&dump);
        let after = probe::ata::parse_identify_words_text(out.as_bytes()).expect("dump");
        assert_eq!(after[108..112], [0, 0, 0, 0], "the WWN is gone");
        assert_eq!(after[107], words[107]);
        assert_eq!(after[112], words[112]);
        assert_eq!(
            probe::ata::parse_identify_text(out.as_bytes())
                .expect("dump")
                .checksum_ok,
            Some(true),
            "re-signed"
        );
    }
}
