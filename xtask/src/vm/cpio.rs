//! The initramfs as an uncompressed `newc` cpio archive (the format the kernel unpacks into
//! its rootfs; see the kernel's Documentation/driver-api/early-userspace/buffer-format.rst).
//! Uncompressed because the guest runs under TCG, where decompressing costs more than copying.

use std::collections::BTreeMap;
use std::io::{self, Write};

#[derive(Debug, Clone)]
enum Entry {
    Dir,
    File { bytes: Vec<u8>, mode: u32 },
    Symlink(String),
}

/// Paths are absolute inside the archive; parents are created as directories when missing.
#[derive(Debug, Default)]
pub struct Archive {
    entries: BTreeMap<String, Entry>,
}

impl Archive {
    pub fn dir(&mut self, path: &str) {
        self.parents(path);
        self.entries.entry(clean(path)).or_insert(Entry::Dir);
    }

    pub fn file(&mut self, path: &str, bytes: Vec<u8>, mode: u32) {
        self.parents(path);
        self.entries
            .insert(clean(path), Entry::File { bytes, mode });
    }

    pub fn symlink(&mut self, path: &str, target: &str) {
        self.parents(path);
        self.entries
            .insert(clean(path), Entry::Symlink(target.to_string()));
    }

    pub fn contains(&self, path: &str) -> bool {
        self.entries.contains_key(&clean(path))
    }

    fn parents(&mut self, path: &str) {
        let clean = clean(path);
        let mut prefix = String::new();
        let parts: Vec<&str> = clean.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            self.entries.entry(prefix.clone()).or_insert(Entry::Dir);
        }
    }

    /// Writes the archive; the map's order puts every directory before what it holds.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let mut written = 0usize;
        for (inode, (name, entry)) in self.entries.iter().enumerate() {
            let (mode, data): (u32, &[u8]) = match entry {
                Entry::Dir => (0o040_755, &[]),
                Entry::File { bytes, mode } => (0o100_000 | mode, bytes),
                Entry::Symlink(target) => (0o120_777, target.as_bytes()),
            };
            let nlink = if matches!(entry, Entry::Dir) { 2 } else { 1 };
            written += header(out, inode + 1, mode, nlink, data.len(), name)?;
            out.write_all(data)?;
            written += data.len();
            written += pad(out, written)?;
        }
        written += header(out, 0, 0, 1, 0, "TRAILER!!!")?;
        pad(out, written)?;
        Ok(())
    }
}

fn clean(path: &str) -> String {
    path.trim_matches('/').to_string()
}

fn header(
    out: &mut impl Write,
    inode: usize,
    mode: u32,
    nlink: u32,
    size: usize,
    name: &str,
) -> io::Result<usize> {
    let size = u32::try_from(size).map_err(|_| io::Error::other(format!("{name}: too big")))?;
    let inode = u32::try_from(inode).map_err(|_| io::Error::other("too many entries"))?;
    let name_size = u32::try_from(name.len() + 1).map_err(|_| io::Error::other("long name"))?;
    let text = format!(
        "070701{inode:08x}{mode:08x}{:08x}{:08x}{nlink:08x}{:08x}{size:08x}{:08x}{:08x}{:08x}{:08x}{name_size:08x}{:08x}",
        0, 0, 0, 0, 0, 0, 0, 0
    );
    out.write_all(text.as_bytes())?;
    out.write_all(name.as_bytes())?;
    out.write_all(&[0])?;
    let written = text.len() + name.len() + 1;
    Ok(written + pad(out, written)?)
}

/// newc aligns headers and file data to four bytes.
fn pad(out: &mut impl Write, written: usize) -> io::Result<usize> {
    let padding = (4 - written % 4) % 4;
    out.write_all(&[0u8; 3][..padding])?;
    Ok(padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_aligned_and_parents_come_first() {
        let mut archive = Archive::default();
        archive.file("/bin/tool", b"abcde".to_vec(), 0o755);
        archive.symlink("/sbin", "bin");
        let mut bytes = Vec::new();
        archive.write_to(&mut bytes).expect("write");
        assert_eq!(bytes.len() % 4, 0);
        let text = String::from_utf8_lossy(&bytes);
        let bin = text.find("bin\0").expect("bin");
        let tool = text.find("bin/tool\0").expect("tool");
        assert!(bin < tool, "the directory precedes its file");
        assert!(text.contains("abcde"));
        assert!(text.contains("TRAILER!!!\0"));
        // 110-byte header + "bin/tool\0" (9) = 119, padded to 120, then data at 120.
        let header_start = tool - 110;
        assert_eq!(header_start % 4, 0);
        assert_eq!(&bytes[header_start..header_start + 6], b"070701");
        assert_eq!(
            &bytes[header_start + 54..header_start + 62],
            b"00000005",
            "file size field"
        );
    }
}
