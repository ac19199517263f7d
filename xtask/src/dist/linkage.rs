//! What the release binary links against, read with `objdump`: the newest glibc symbol
//! version it needs and the shared libraries it loads.

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

/// A glibc symbol version (`GLIBC_2.34`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlibcVersion(pub u32, pub u32);

impl std::fmt::Display for GlibcVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// What `objdump <flag> binary` prints.
fn objdump(flag: &str, binary: &Path) -> Result<String> {
    let output = Command::new("objdump")
        .arg(flag)
        .arg(binary)
        .output()
        .context("cannot run objdump (apt-get install binutils)")?;
    ensure!(output.status.success(), "objdump {flag} failed: {output:?}");
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The highest `GLIBC_x.y` among the binary's dynamic symbol versions (`objdump -T`).
pub(super) fn glibc_needed(binary: &Path) -> Result<GlibcVersion> {
    highest_glibc(&objdump("-T", binary)?).context("the binary names no GLIBC_ symbol version")
}

pub fn highest_glibc(objdump: &str) -> Option<GlibcVersion> {
    objdump
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|word| word.strip_prefix("GLIBC_"))
        .filter_map(|version| {
            let mut parts = version.split('.');
            let major = parts.next()?.parse().ok()?;
            let minor = parts.next().map_or(Some(0), |m| m.parse().ok())?;
            Some(GlibcVersion(major, minor))
        })
        .max()
}

/// The shared libraries the binary loads (`NEEDED` entries of `objdump -p`).
pub(super) fn needed_libraries(binary: &Path) -> Result<Vec<String>> {
    Ok(objdump("-p", binary)?
        .lines()
        .filter_map(|line| line.trim().strip_prefix("NEEDED"))
        .map(|lib| lib.trim().to_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_highest_glibc_version_is_found() {
        let objdump = "\
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.2.5) write
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.34) __libc_start_main
0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.28) statx
0000000000000000  w   D  *UND*  0000000000000000  GLIBC_PRIVATE __x
";
        assert_eq!(highest_glibc(objdump), Some(GlibcVersion(2, 34)));
        assert!(
            GlibcVersion(2, 9) < GlibcVersion(2, 17),
            "compared as numbers"
        );
        assert_eq!(highest_glibc("no versions here"), None);
    }
}
