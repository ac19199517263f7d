//! The Debian package: its `Depends` from the linked libraries, the control and copyright
//! files, the staged tree packed with `dpkg-deb`, and a check of what the package holds.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use super::linkage::GlibcVersion;
use super::{copy, dir_size, file_name, gzip_file, man_pages, set_modes};

/// The Debian packages that provide the libraries: the binary links only the C runtime, and
/// anything else must be added here deliberately.
pub fn debian_depends(libraries: &[String], glibc: GlibcVersion) -> Result<String> {
    let mut depends = vec![format!("libc6 (>= {glibc})")];
    for library in libraries {
        match library.as_str() {
            "libc.so.6"
            | "libm.so.6"
            | "libpthread.so.0"
            | "libdl.so.2"
            | "librt.so.1"
            | "ld-linux-x86-64.so.2"
            | "ld-linux-aarch64.so.1" => {}
            "libgcc_s.so.1" => depends.push("libgcc-s1".to_string()),
            other => bail!("the binary links {other}: add the Debian package providing it"),
        }
    }
    depends.dedup();
    Ok(depends.join(", "))
}

fn debian_arch(arch: &str) -> Result<&'static str> {
    Ok(match arch {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => bail!("no Debian architecture name for {other}"),
    })
}

/// Files of the package, as `dpkg-deb -c` lists them (without the leading `.`).
pub const DEB_FILES: [&str; 9] = [
    "/usr/bin/nodecheck",
    "/usr/share/man/man1/nodecheck.1.gz",
    "/usr/share/man/man1/nodecheck-check.1.gz",
    "/usr/share/bash-completion/completions/nodecheck",
    "/usr/share/zsh/vendor-completions/_nodecheck",
    "/usr/share/fish/vendor_completions.d/nodecheck.fish",
    "/usr/share/doc/nodecheck/README.md",
    "/usr/share/doc/nodecheck/copyright",
    "/usr/share/doc/nodecheck/LICENSE-APACHE",
];

pub(super) fn debian_package(
    root: &Path,
    out: &Path,
    binary: &Path,
    version: &str,
    glibc: GlibcVersion,
    libraries: &[String],
    epoch: u64,
) -> Result<PathBuf> {
    let arch = debian_arch(std::env::consts::ARCH)?;
    let stage = out.join(format!("deb/nodecheck_{version}_{arch}"));
    if stage.exists() {
        fs::remove_dir_all(&stage).with_context(|| format!("cannot clear {}", stage.display()))?;
    }
    let dir = |path: &str| -> Result<PathBuf> {
        let dir = stage.join(path);
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir)
    };
    copy(binary, &dir("usr/bin")?.join("nodecheck"))?;
    let man1 = dir("usr/share/man/man1")?;
    for page in man_pages(&out.join("man"))? {
        let name = format!("{}.gz", file_name(&page)?.to_string_lossy());
        gzip_file(&page, &man1.join(name))?;
    }
    let completions = out.join("completions");
    copy(
        &completions.join("nodecheck.bash"),
        &dir("usr/share/bash-completion/completions")?.join("nodecheck"),
    )?;
    copy(
        &completions.join("_nodecheck"),
        &dir("usr/share/zsh/vendor-completions")?.join("_nodecheck"),
    )?;
    copy(
        &completions.join("nodecheck.fish"),
        &dir("usr/share/fish/vendor_completions.d")?.join("nodecheck.fish"),
    )?;
    let doc = dir("usr/share/doc/nodecheck")?;
    copy(&root.join("README.md"), &doc.join("README.md"))?;
    copy(&root.join("LICENSE-APACHE"), &doc.join("LICENSE-APACHE"))?;
    fs::write(doc.join("copyright"), copyright(&root.join("LICENSE-MIT"))?)?;

    let installed_kib = dir_size(&stage)?.div_ceil(1024);
    let control = control_file(
        version,
        arch,
        &debian_depends(libraries, glibc)?,
        installed_kib,
    );
    fs::write(dir("DEBIAN")?.join("control"), control)?;
    set_modes(&stage)?;

    let deb = out.join(format!("nodecheck_{version}_{arch}.deb"));
    // dpkg-deb dates the ar members and clamps the files' dates to SOURCE_DATE_EPOCH: the
    // package is dated like the archive.
    let status = Command::new("dpkg-deb")
        .env("SOURCE_DATE_EPOCH", epoch.to_string())
        .args(["--root-owner-group", "-Zxz", "--build"])
        .arg(&stage)
        .arg(&deb)
        .status()
        .context("cannot run dpkg-deb (apt-get install dpkg)")?;
    ensure!(status.success(), "dpkg-deb --build failed ({status})");
    check_deb_contents(&deb)?;
    Ok(deb)
}

pub fn control_file(version: &str, arch: &str, depends: &str, installed_kib: u64) -> String {
    format!(
        "Package: nodecheck\n\
         Version: {version}\n\
         Architecture: {arch}\n\
         Maintainer: The nodecheck contributors <nodecheck@users.noreply.github.com>\n\
         Installed-Size: {installed_kib}\n\
         Depends: {depends}\n\
         Recommends: smartmontools\n\
         Section: admin\n\
         Priority: optional\n\
         Homepage: https://github.com/nodecheck/nodecheck\n\
         Description: storage check for Ethereum nodes\n \
         Tells whether the storage under an Ethereum node's data directory is fit\n \
         for a multi-day sync of Geth, Nethermind, Besu, Erigon or Reth: it finds\n \
         the drives under the path, judges them against a curated Good/Bad/Ugly\n \
         list, checks TRIM, temperature, health, mount options and free space,\n \
         measures read latency, and prints a verdict with the fixes to apply.\n"
    )
}

/// Debian's machine-readable copyright file, with the MIT text in full (Apache-2.0 is in
/// /usr/share/common-licenses on every Debian system, and shipped beside it too).
fn copyright(mit: &Path) -> Result<String> {
    let mit_text =
        fs::read_to_string(mit).with_context(|| format!("cannot read {}", mit.display()))?;
    let mut text = String::from(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\
         Upstream-Name: nodecheck\n\
         Source: https://github.com/nodecheck/nodecheck\n\n\
         Files: *\n\
         Copyright: The nodecheck contributors\n\
         License: MIT or Apache-2.0\n\n\
         License: Apache-2.0\n \
         On Debian systems the full text is in /usr/share/common-licenses/Apache-2.0.\n\n\
         License: MIT\n",
    );
    for line in mit_text.lines() {
        text.push(' ');
        text.push_str(if line.trim().is_empty() { "." } else { line });
        text.push('\n');
    }
    Ok(text)
}

/// `dpkg-deb -c` lists every file the package must hold.
fn check_deb_contents(deb: &Path) -> Result<()> {
    let output = Command::new("dpkg-deb").arg("-c").arg(deb).output()?;
    ensure!(output.status.success(), "dpkg-deb -c failed: {output:?}");
    let listing = String::from_utf8_lossy(&output.stdout);
    for file in DEB_FILES {
        ensure!(
            listing.lines().any(|l| l.ends_with(&format!(".{file}"))),
            "{} lacks {file}:\n{listing}",
            deb.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depends_cover_what_the_binary_links() {
        let libs = ["libgcc_s.so.1", "libc.so.6", "libm.so.6"].map(String::from);
        assert_eq!(
            debian_depends(&libs, GlibcVersion(2, 34)).unwrap(),
            "libc6 (>= 2.34), libgcc-s1"
        );
        assert!(debian_depends(&["libssl.so.3".to_string()], GlibcVersion(2, 34)).is_err());
    }

    #[test]
    fn control_file_is_a_valid_stanza() {
        let control = control_file("0.1.0", "amd64", "libc6 (>= 2.34)", 5000);
        for field in [
            "Package: nodecheck",
            "Version: 0.1.0",
            "Architecture: amd64",
            "Depends: libc6 (>= 2.34)",
        ] {
            assert!(control.lines().any(|l| l == field), "{field}\n{control}");
        }
        // Continuation lines of the description start with a space; no empty line ends the stanza early.
        let description = control.split("Description: ").nth(1).expect("description");
        assert!(
            description.lines().skip(1).all(|l| l.starts_with(' ')),
            "{control}"
        );
        assert!(control.ends_with('\n') && !control.contains("\n\n"));
    }
}
