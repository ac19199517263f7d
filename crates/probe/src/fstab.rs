//! `/etc/fstab`: the line that mounts a given mount point, as the user wrote it, so a fix can
//! edit that line instead of inventing one (the user's `UUID=`/`LABEL=` spec and options stay).
//!
//! Format (fstab(5)): one mount per line, fields separated by spaces or tabs, `#` starts a
//! comment line, spaces inside a field written as `\040`. Fields: spec, file (the mount
//! point), vfstype, mntops, freq, passno; the last two are optional.

use std::ops::Range;

use crate::facts::FstabEntry;
use crate::mounts;
use crate::root::Root;

pub const FSTAB_PATH: &str = "/etc/fstab";

/// The fstab entry for `mount_point` under `root`: [`FstabEntry::Unreadable`] when there is no
/// readable `/etc/fstab`, [`FstabEntry::NoLine`] when it has no line for the mount point.
pub fn lookup(root: &Root, mount_point: &str) -> FstabEntry {
    match root.read_text(FSTAB_PATH) {
        Some(text) => find_line(&text, mount_point),
        None => FstabEntry::Unreadable,
    }
}

/// The last line of `text` whose mount point is `mount_point` (mount(8) and
/// systemd-fstab-generator let a later line win over an earlier one).
pub fn find_line(text: &str, mount_point: &str) -> FstabEntry {
    let wanted = mounts::normalize(std::path::Path::new(mount_point));
    let mut found = FstabEntry::NoLine;
    for (index, line) in text.lines().enumerate() {
        let spans = field_spans(line);
        if spans.len() < 4 || line[spans[0].clone()].starts_with('#') {
            continue;
        }
        let file = mounts::unescape(&line[spans[1].clone()]);
        if !file.starts_with('/') {
            continue; // swap ("none"/"swap") and malformed lines
        }
        if mounts::normalize(std::path::Path::new(&file)) == wanted {
            found = FstabEntry::Line {
                number: index + 1,
                text: line.to_string(),
            };
        }
    }
    found
}

/// Byte ranges of the whitespace-separated fields of one fstab line.
pub fn field_spans(line: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, c) in line.char_indices() {
        match (c == ' ' || c == '\t', start) {
            (true, Some(s)) => {
                spans.push(s..at);
                start = None;
            }
            (false, None) => start = Some(at),
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push(s..line.len());
    }
    spans
}

/// `line` with its options field (the fourth) rewritten by `edit`, everything else (the spec,
/// spacing, dump and pass fields) kept byte for byte. `None` when the line has no options field.
pub fn with_options(line: &str, edit: impl FnOnce(Vec<&str>) -> Vec<String>) -> Option<String> {
    let spans = field_spans(line);
    let options = spans.get(3)?.clone();
    let edited = edit(line[options.clone()].split(',').collect()).join(",");
    Some(format!(
        "{}{edited}{}",
        &line[..options.start],
        &line[options.end..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBIAN: &str = "\
# /etc/fstab: static file system information.
#
# <file system> <mount point>   <type>  <options>       <dump>  <pass>
UUID=0a1b2c3d-4e5f-6789-abcd-ef0123456789 /               ext4    errors=remount-ro 0       1
UUID=1111-2222  /boot/efi       vfat    umask=0077      0       1
/swapfile                                 none            swap    sw              0       0
LABEL=chain\t/var/lib/ethereum\text4\tdefaults,discard,relatime\t0\t2
";

    #[test]
    fn finds_the_line_for_a_mount_point() {
        assert_eq!(
            find_line(DEBIAN, "/var/lib/ethereum"),
            FstabEntry::Line {
                number: 7,
                text: "LABEL=chain\t/var/lib/ethereum\text4\tdefaults,discard,relatime\t0\t2"
                    .into()
            }
        );
        let FstabEntry::Line { number, .. } = find_line(DEBIAN, "/") else {
            panic!("root line");
        };
        assert_eq!(number, 4);
        assert_eq!(find_line(DEBIAN, "/data"), FstabEntry::NoLine);
        assert_eq!(find_line(DEBIAN, "none"), FstabEntry::NoLine);
    }

    #[test]
    fn escaped_spaces_and_trailing_slashes_match() {
        let text = "/dev/sdb1 /mnt/eth\\040data/ xfs defaults 0 0\n";
        assert!(matches!(
            find_line(text, "/mnt/eth data"),
            FstabEntry::Line { number: 1, .. }
        ));
    }

    #[test]
    fn a_later_line_wins() {
        let text = "/dev/sda1 /data ext4 defaults 0 2\n/dev/sdb1 /data xfs defaults 0 0\n";
        let FstabEntry::Line { number, text } = find_line(text, "/data") else {
            panic!("line");
        };
        assert_eq!(number, 2);
        assert!(text.starts_with("/dev/sdb1"));
    }

    #[test]
    fn options_are_edited_in_place() {
        let line = "UUID=abc  /data\text4   defaults,discard,relatime  0 2";
        let edited = with_options(line, |opts| {
            opts.into_iter()
                .map(|o| if o == "relatime" { "noatime" } else { o }.to_string())
                .collect()
        });
        assert_eq!(
            edited.as_deref(),
            Some("UUID=abc  /data\text4   defaults,discard,noatime  0 2")
        );
        assert_eq!(
            with_options("/dev/sda1 /data ext4", |o| o
                .into_iter()
                .map(String::from)
                .collect()),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn hostile_fstab_never_panics(text in "\\PC{0,300}", mp in "\\PC{0,20}") {
            let _ = find_line(&text, &mp);
            for line in text.lines() {
                let _ = with_options(line, |o| o.into_iter().map(String::from).collect());
            }
        }
    }
}
