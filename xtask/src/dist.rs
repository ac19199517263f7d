//! `cargo xtask dist`: everything a release ships, built from the same clap definition and the
//! same release binary, into `target/dist`:
//!
//! - `completions/` (bash, zsh, fish) and `man/` (one page per command, as git does);
//! - `nodecheck-<version>-<arch>-linux/` and its `.tar.gz`: the stripped release binary, man
//!   pages, completions, README and licenses;
//! - `nodecheck_<version>_<debarch>.deb`, staged as a plain tree and packed with `dpkg-deb`
//!   (no cargo-deb to install), its `Depends` taken from what the binary links against.
//!
//! It then checks what it built: the highest glibc symbol version the binary needs is within
//! what the README promises, the package holds what it must, and the Dockerfile copies files
//! that this build produces.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

/// The newest glibc the shipped binary may need. The README's "Install" section names the
/// distributions this allows; raising it drops older ones, so it is a decision, not a drift.
/// 2.35 because the PNG plot's rasteriser (resvg/tiny-skia) calls `hypotf`, versioned 2.35.
pub const MAX_GLIBC: GlibcVersion = GlibcVersion(2, 35);

pub fn run(args: &[String]) -> Result<()> {
    let root = crate::project_root();
    let out = match args {
        [] => root.join("target/dist"),
        [flag, dir] if flag == "--out" => PathBuf::from(dir),
        _ => bail!("usage: cargo xtask dist [--out DIR]"),
    };
    let generated = generate(&out)?;
    let binary = build_release(&root)?;
    let built = package(&root, &out, &binary)?;
    for path in generated.iter().chain(&built) {
        println!("{}", path.display());
    }
    if out == root.join("target/dist") {
        check_dockerfile(&root)?;
    }
    Ok(())
}

/// Writes completions to `out/completions/` and man pages to `out/man/`; returns the files.
pub fn generate(out: &Path) -> Result<Vec<PathBuf>> {
    let completions = out.join("completions");
    let man = out.join("man");
    fs::create_dir_all(&completions)
        .with_context(|| format!("cannot create {}", completions.display()))?;
    fs::create_dir_all(&man).with_context(|| format!("cannot create {}", man.display()))?;

    let mut written = Vec::new();
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        let mut cmd = nodecheck::cli::Cli::command();
        let path = clap_complete::generate_to(shell, &mut cmd, "nodecheck", &completions)
            .with_context(|| format!("cannot write {shell} completions"))?;
        written.push(path);
    }

    // One page for the command and one per subcommand (`nodecheck-check.1`), as git does.
    clap_mangen::generate_to(nodecheck::cli::Cli::command(), &man)
        .with_context(|| format!("cannot write man pages to {}", man.display()))?;
    written.extend(man_pages(&man)?);
    Ok(written)
}

fn man_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut pages: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .collect();
    pages.sort();
    Ok(pages)
}

/// `cargo build --release --locked -p nodecheck`; returns the binary.
fn build_release(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "--locked", "-p", "nodecheck"])
        .status()
        .context("cannot run cargo")?;
    ensure!(status.success(), "cargo build --release failed ({status})");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release/nodecheck"))
}

/// The staged tree, the release archive and the Debian package; returns the archive and the
/// package.
fn package(root: &Path, out: &Path, binary: &Path) -> Result<Vec<PathBuf>> {
    let version = binary_version(binary)?;
    let arch = std::env::consts::ARCH;
    let glibc = glibc_needed(binary)?;
    ensure!(
        glibc <= MAX_GLIBC,
        "the binary needs glibc {glibc}, newer than the {MAX_GLIBC} the README promises \
         (build on an older distribution, or raise MAX_GLIBC and the README together)"
    );
    let readme = fs::read_to_string(root.join("README.md")).context("reading README.md")?;
    ensure!(
        readme.contains(&format!("glibc {MAX_GLIBC} or newer")),
        "README.md must say which glibc the release binary needs (\"glibc {MAX_GLIBC} or newer\")"
    );
    let libraries = needed_libraries(binary)?;
    println!(
        "nodecheck {version}: needs glibc {glibc}, links {}",
        libraries.join(", ")
    );

    let name = format!("nodecheck-{version}-{arch}-linux");
    let staged = out.join(&name);
    if staged.exists() {
        fs::remove_dir_all(&staged)
            .with_context(|| format!("cannot clear {}", staged.display()))?;
    }
    fs::create_dir_all(staged.join("man"))?;
    fs::create_dir_all(staged.join("completions"))?;
    copy(binary, &staged.join("nodecheck"))?;
    for page in man_pages(&out.join("man"))? {
        copy(&page, &staged.join("man").join(file_name(&page)?))?;
    }
    for file in ["nodecheck.bash", "_nodecheck", "nodecheck.fish"] {
        copy(
            &out.join("completions").join(file),
            &staged.join("completions").join(file),
        )?;
    }
    for file in ["README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        copy(&root.join(file), &staged.join(file))?;
    }
    let archive = out.join(format!("{name}.tar.gz"));
    write_tar_gz(&staged, &name, &archive)?;

    let deb = debian_package(root, out, binary, &version, glibc, &libraries)?;
    Ok(vec![archive, deb])
}

fn file_name(path: &Path) -> Result<&std::ffi::OsStr> {
    path.file_name()
        .with_context(|| format!("{} has no file name", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to)
        .map(|_| ())
        .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))
}

/// `nodecheck --version` of the built binary: `nodecheck 0.1.0 (drive database ...)`.
fn binary_version(binary: &Path) -> Result<String> {
    let output = Command::new(binary)
        .arg("--version")
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace()
        .nth(1)
        .map(str::to_string)
        .with_context(|| format!("unexpected --version output: {text:?}"))
}

/// A glibc symbol version (`GLIBC_2.34`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlibcVersion(pub u32, pub u32);

impl std::fmt::Display for GlibcVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// The highest `GLIBC_x.y` among the binary's dynamic symbol versions (`objdump -T`).
fn glibc_needed(binary: &Path) -> Result<GlibcVersion> {
    let output = Command::new("objdump")
        .arg("-T")
        .arg(binary)
        .output()
        .context("cannot run objdump (apt-get install binutils)")?;
    ensure!(output.status.success(), "objdump -T failed: {output:?}");
    highest_glibc(&String::from_utf8_lossy(&output.stdout))
        .context("the binary names no GLIBC_ symbol version")
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
fn needed_libraries(binary: &Path) -> Result<Vec<String>> {
    let output = Command::new("objdump")
        .arg("-p")
        .arg(binary)
        .output()
        .context("cannot run objdump")?;
    ensure!(output.status.success(), "objdump -p failed: {output:?}");
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.trim().strip_prefix("NEEDED"))
        .map(|lib| lib.trim().to_string())
        .collect())
}

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

fn debian_package(
    root: &Path,
    out: &Path,
    binary: &Path,
    version: &str,
    glibc: GlibcVersion,
    libraries: &[String],
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
    let status = Command::new("dpkg-deb")
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

fn dir_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        total += if meta.is_dir() {
            dir_size(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// 0755 for directories and the binary, 0644 for the rest, whatever the umask.
fn set_modes(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let executable = path.is_dir() || path.ends_with("usr/bin/nodecheck");
        let mode = if executable { 0o755 } else { 0o644 };
        fs::set_permissions(&path, fs::Permissions::from_mode(mode))?;
        if path.is_dir() {
            set_modes(&path)?;
        }
    }
    Ok(())
}

fn gzip_file(from: &Path, to: &Path) -> Result<()> {
    let bytes = fs::read(from).with_context(|| format!("cannot read {}", from.display()))?;
    let file = fs::File::create(to).with_context(|| format!("cannot create {}", to.display()))?;
    let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    encoder.write_all(&bytes)?;
    encoder.finish()?;
    Ok(())
}

/// `staged` as `name/...` in a gzip-compressed tar, owned by root, with stable modes.
fn write_tar_gz(staged: &Path, name: &str, archive: &Path) -> Result<()> {
    let file = fs::File::create(archive)
        .with_context(|| format!("cannot create {}", archive.display()))?;
    let encoder = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    let mut builder = tar::Builder::new(encoder);
    builder.mode(tar::HeaderMode::Deterministic);
    builder
        .append_dir_all(name, staged)
        .with_context(|| format!("cannot archive {}", staged.display()))?;
    builder.into_inner()?.finish()?;
    Ok(())
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

/// Every `COPY --from=build` source in the Dockerfile names a file this build produced (the
/// build stage runs `cargo xtask dist` in `/src`), and the build context leaves `target/` out.
fn check_dockerfile(root: &Path) -> Result<()> {
    let dockerfile = fs::read_to_string(root.join("Dockerfile")).context("reading Dockerfile")?;
    let mut copies = 0;
    for line in dockerfile.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["COPY", "--from=build", sources @ .., _destination] = words.as_slice() {
            for source in sources {
                let relative = source
                    .strip_prefix("/src/")
                    .with_context(|| format!("Dockerfile copies {source} from outside /src"))?;
                ensure!(
                    glob_matches(root, relative)?,
                    "Dockerfile copies {source}, which `cargo xtask dist` did not produce"
                );
                copies += 1;
            }
        }
    }
    ensure!(
        copies > 0,
        "the Dockerfile copies nothing from its build stage"
    );
    let ignore = fs::read_to_string(root.join(".dockerignore")).context("reading .dockerignore")?;
    ensure!(
        ignore
            .lines()
            .any(|l| l.trim() == "target" || l.trim() == "/target"),
        ".dockerignore must leave target/ out of the build context"
    );
    Ok(())
}

/// Whether `pattern` (path components, `*` within a component) matches a file under `root`.
fn glob_matches(root: &Path, pattern: &str) -> Result<bool> {
    let mut candidates = vec![root.to_path_buf()];
    for component in pattern.split('/') {
        let mut next = Vec::new();
        for dir in &candidates {
            if !component.contains('*') {
                let path = dir.join(component);
                if path.exists() {
                    next.push(path);
                }
                continue;
            }
            let Ok(entries) = fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if wildcard(component, &entry.file_name().to_string_lossy()) {
                    next.push(entry.path());
                }
            }
        }
        candidates = next;
    }
    Ok(!candidates.is_empty())
}

fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_completions_and_pages() {
        let dir = std::env::temp_dir().join(format!("nodecheck-dist-test-{}", std::process::id()));
        let written = generate(&dir).expect("generates");
        let names: Vec<String> = written
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        for expected in [
            "nodecheck.bash",
            "_nodecheck",
            "nodecheck.fish",
            "nodecheck.1",
            "nodecheck-check.1",
            "nodecheck-triage.1",
        ] {
            assert!(
                names.iter().any(|n| n == expected),
                "{expected} missing from {names:?}"
            );
        }
        let bash = fs::read_to_string(dir.join("completions/nodecheck.bash")).expect("bash");
        assert!(
            bash.contains("--snapshot"),
            "bash completion knows check's options"
        );
        let page = fs::read_to_string(dir.join("man/nodecheck-check.1")).expect("page");
        assert!(
            page.contains("\\-\\-bench") || page.contains("--bench"),
            "man page lists --bench"
        );
        let _ = fs::remove_dir_all(&dir);
    }

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

    #[test]
    fn wildcards_match_one_component() {
        assert!(wildcard(
            "nodecheck-*-linux",
            "nodecheck-0.1.0-x86_64-linux"
        ));
        assert!(!wildcard(
            "nodecheck-*-linux",
            "nodecheck-0.1.0-x86_64-linux.tar.gz"
        ));
        assert!(wildcard("nodecheck", "nodecheck"));
    }
}
