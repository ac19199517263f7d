//! `/proc/self/mountinfo`: which mount holds a path, and with what options.
//!
//! Format (Documentation/filesystems/proc.rst): mount id, parent id, `major:minor`, root,
//! mount point, per-mount options, optional fields ending with `-`, fs type, source, super
//! options. Spaces, tabs, newlines and backslashes inside fields are octal-escaped.

use std::path::{Component, Path, PathBuf};

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountEntry {
    pub mount_id: u32,
    pub parent_id: u32,
    pub major: u32,
    pub minor: u32,
    /// The directory of the file system mounted here (`/` or a bind-mounted subdirectory).
    pub root: String,
    pub mount_point: String,
    pub mount_options: Vec<String>,
    /// Optional fields (`shared:1`, `master:2`).
    pub optional_fields: Vec<String>,
    pub fs_type: String,
    pub source: String,
    pub super_options: Vec<String>,
}

impl MountEntry {
    /// `major:minor` as mountinfo writes it.
    pub fn dev(&self) -> String {
        format!("{}:{}", self.major, self.minor)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MountinfoError {
    #[error("mountinfo line has too few fields")]
    TooFewFields,
    #[error("mountinfo line has no `-` separator")]
    NoSeparator,
    #[error("mountinfo field {field} is not a number: {value:?}")]
    BadNumber { field: &'static str, value: String },
    #[error("mountinfo device {0:?} is not major:minor")]
    BadDevice(String),
}

/// Parses a whole mountinfo file, skipping lines that are not valid mountinfo.
pub fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    parse_mountinfo_lines(text)
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

/// Parses every non-blank line, keeping the error of each bad one so the caller can warn.
pub fn parse_mountinfo_lines(text: &str) -> Vec<Result<MountEntry, MountinfoError>> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(parse_mountinfo_line)
        .collect()
}

pub fn parse_mountinfo_line(line: &str) -> Result<MountEntry, MountinfoError> {
    let fields: Vec<&str> = line.split_ascii_whitespace().collect();
    if fields.len() < 9 {
        return Err(MountinfoError::TooFewFields);
    }
    let separator = fields[6..]
        .iter()
        .position(|field| *field == "-")
        .map(|offset| offset + 6)
        .ok_or(MountinfoError::NoSeparator)?;
    if fields.len() < separator + 3 {
        return Err(MountinfoError::TooFewFields);
    }
    let (major, minor) = fields[2]
        .split_once(':')
        .ok_or_else(|| MountinfoError::BadDevice(fields[2].to_string()))?;
    Ok(MountEntry {
        mount_id: number("mount id", fields[0])?,
        parent_id: number("parent id", fields[1])?,
        major: number("major", major)?,
        minor: number("minor", minor)?,
        root: unescape(fields[3]),
        mount_point: unescape(fields[4]),
        mount_options: split_options(fields[5]),
        optional_fields: fields[6..separator].iter().map(|f| unescape(f)).collect(),
        fs_type: unescape(fields[separator + 1]),
        source: unescape(fields[separator + 2]),
        super_options: fields
            .get(separator + 3)
            .map(|options| split_options(options))
            .unwrap_or_default(),
    })
}

fn number(field: &'static str, value: &str) -> Result<u32, MountinfoError> {
    value.parse().map_err(|_| MountinfoError::BadNumber {
        field,
        value: value.to_string(),
    })
}

fn split_options(options: &str) -> Vec<String> {
    options
        .split(',')
        .filter(|option| !option.is_empty())
        .map(unescape)
        .collect()
}

/// Decodes the kernel's `\ooo` octal escapes (`\040` space, `\011` tab, `\012` newline,
/// `\134` backslash). A backslash not followed by three octal digits is kept as is.
pub fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if let Some(value) = octal_triplet(&bytes[i + 1..]) {
                out.push(value);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn octal_triplet(bytes: &[u8]) -> Option<u8> {
    let digits = bytes.get(..3)?;
    let mut value: u32 = 0;
    for digit in digits {
        if !(b'0'..=b'7').contains(digit) {
            return None;
        }
        value = value * 8 + u32::from(digit - b'0');
    }
    u8::try_from(value).ok()
}

/// The mount that holds `path`: the longest mount point that is `path` or a parent of it on a
/// `/` boundary; among duplicates of that mount point the last one listed (mounted on top)
/// wins. `path` is normalized lexically (it need not exist).
pub fn find_mount<'a>(entries: &'a [MountEntry], path: &Path) -> Option<&'a MountEntry> {
    let path = normalize(path);
    let mut best: Option<(&MountEntry, usize)> = None;
    for entry in entries {
        let mount_point = normalize(Path::new(&entry.mount_point));
        if !path.starts_with(&mount_point) {
            continue;
        }
        let depth = mount_point.components().count();
        // `>=`: a later entry with the same mount point is mounted over the earlier one.
        match best {
            Some((_, best_depth)) if depth < best_depth => {}
            _ => best = Some((entry, depth)),
        }
    }
    best.map(|(entry, _)| entry)
}

/// Lexical normalization: makes the path absolute, drops `.`, applies `..` (never above `/`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The mount holding a path, chosen while mountinfo is read: the deepest mount point that is
/// an ancestor of the path (a later entry with the same depth is mounted over an earlier one),
/// unless `stat` gave the path's device and that mount is another device's: then the deepest
/// ancestor mount of that device (a bind mount or a mount hidden under another), if any.
pub struct MountChooser {
    path: PathBuf,
    st_dev: Option<(u32, u32)>,
    by_path: Option<(MountEntry, usize)>,
    by_dev: Option<(MountEntry, usize)>,
}

impl MountChooser {
    pub fn new(path: &Path, st_dev: Option<(u32, u32)>) -> Self {
        MountChooser {
            path: normalize(path),
            st_dev,
            by_path: None,
            by_dev: None,
        }
    }

    pub fn offer(&mut self, entry: MountEntry) {
        let mount_point = normalize(Path::new(&entry.mount_point));
        if !self.path.starts_with(&mount_point) {
            return;
        }
        let depth = mount_point.components().count();
        let deeper =
            |best: &Option<(MountEntry, usize)>| best.as_ref().is_none_or(|(_, d)| depth >= *d);
        if self.st_dev == Some((entry.major, entry.minor)) && deeper(&self.by_dev) {
            self.by_dev = Some((entry.clone(), depth));
        }
        if deeper(&self.by_path) {
            self.by_path = Some((entry, depth));
        }
    }

    pub fn choose(self) -> Option<MountEntry> {
        let (by_path, _) = self.by_path?;
        match (self.st_dev, self.by_dev) {
            (Some(dev), Some((by_dev, _))) if (by_path.major, by_path.minor) != dev => Some(by_dev),
            _ => Some(by_path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict
40 27 259:2 / /var/lib/ethereum rw,noatime shared:5 - ext4 /dev/nvme0n1p2 rw,lazytime
41 27 253:0 / /mnt/my\\040disk rw,relatime - xfs /dev/mapper/vg-data rw,attr2
42 40 259:3 / /var/lib/ethereum rw,relatime - ext4 /dev/nvme1n1 rw
";

    #[test]
    fn parses_fields_and_optional_fields() {
        let entries = parse_mountinfo(HOST);
        assert_eq!(entries.len(), 5);
        let eth = &entries[2];
        assert_eq!(eth.dev(), "259:2");
        assert_eq!(eth.optional_fields, vec!["shared:5"]);
        assert_eq!(eth.mount_options, vec!["rw", "noatime"]);
        assert_eq!(eth.super_options, vec!["rw", "lazytime"]);
        assert_eq!(eth.source, "/dev/nvme0n1p2");
    }

    #[test]
    fn decodes_octal_escapes() {
        let entries = parse_mountinfo(HOST);
        assert_eq!(entries[3].mount_point, "/mnt/my disk");
        assert_eq!(unescape("a\\011b\\012c\\134d"), "a\tb\nc\\d");
        assert_eq!(unescape("trailing\\04"), "trailing\\04");
        assert_eq!(unescape("\\999"), "\\999");
    }

    #[test]
    fn longest_mount_on_a_slash_boundary_topmost_wins() {
        let entries = parse_mountinfo(HOST);
        let found =
            find_mount(&entries, Path::new("/var/lib/ethereum/geth/chaindata")).expect("mounted");
        assert_eq!(
            found.source, "/dev/nvme1n1",
            "the later mount covers the earlier"
        );
        let root = find_mount(&entries, Path::new("/var/lib/ethereum2")).expect("mounted");
        assert_eq!(root.mount_point, "/");
        let spaced = find_mount(&entries, Path::new("/mnt/my disk/x")).expect("mounted");
        assert_eq!(spaced.fs_type, "xfs");
        let dotted = find_mount(&entries, Path::new("/var/lib/ethereum/../x")).expect("mounted");
        assert_eq!(dotted.mount_point, "/");
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let text =
            "garbage\n1 2 x:y / / rw - ext4 /dev/a rw\n27 1 254:0 / / rw - ext4 /dev/vda rw\n";
        let lines = parse_mountinfo_lines(text);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], Err(MountinfoError::TooFewFields));
        assert!(matches!(lines[1], Err(MountinfoError::BadNumber { .. })));
        assert_eq!(parse_mountinfo(text).len(), 1);
    }
}
