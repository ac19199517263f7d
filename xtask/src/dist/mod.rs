//! `cargo xtask dist`: everything a release ships, built from the same clap definition and the
//! same release binary, into `target/dist`:
//!
//! - `completions/` (bash, zsh, fish) and `man/` (one page per command, as git does, examples
//!   verbatim: see [`man`]);
//! - `nodecheck-<version>-<arch>-linux/` and its `.tar.gz`: the stripped release binary, man
//!   pages, completions, README and licenses;
//! - `nodecheck_<version>_<debarch>.deb`, staged as a plain tree and packed with `dpkg-deb`
//!   (no cargo-deb to install), its `Depends` taken from what the binary links against.
//!
//! It then checks what it built: the highest glibc symbol version the binary needs is within
//! what the README promises, the package holds what it must, and the Dockerfile copies files
//! that this build produces.

mod debian;
mod dockerfile;
mod linkage;
mod man;

use debian::debian_package;
use dockerfile::check_dockerfile;
use linkage::{glibc_needed, needed_libraries, GlibcVersion};

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
        let mut cmd = nodecheck::Cli::command();
        let path = clap_complete::generate_to(shell, &mut cmd, "nodecheck", &completions)
            .with_context(|| format!("cannot write {shell} completions"))?;
        written.push(path);
    }

    // One page for the command and one per subcommand (`nodecheck-check.1`), as git does.
    man::generate_to(&man)
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
    let epoch = source_date_epoch(std::env::var("SOURCE_DATE_EPOCH").ok(), root)?;
    write_tar_gz(&staged, &name, &archive, epoch)?;

    let deb = debian_package(root, out, binary, &version, glibc, &libraries, epoch)?;
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

/// The time a release's files are dated: `SOURCE_DATE_EPOCH` when the builder sets it (the
/// reproducible-builds convention), else the commit's time, so an archive built twice from one
/// commit is the same bytes and its dates say when the code was written, not a constant.
pub fn source_date_epoch(from_env: Option<String>, root: &Path) -> Result<u64> {
    if let Some(value) = from_env.filter(|v| !v.trim().is_empty()) {
        return value
            .trim()
            .parse()
            .with_context(|| format!("SOURCE_DATE_EPOCH={value:?} is not a number of seconds"));
    }
    let output = Command::new("git")
        .current_dir(root)
        .args(["log", "-1", "--format=%ct"])
        .output()
        .context("cannot run git to date the release (or set SOURCE_DATE_EPOCH)")?;
    ensure!(
        output.status.success(),
        "git log failed ({}); outside a git checkout set SOURCE_DATE_EPOCH to date the release",
        String::from_utf8_lossy(&output.stderr).trim()
    );
    let text = String::from_utf8_lossy(&output.stdout);
    text.trim()
        .parse()
        .with_context(|| format!("git log printed {text:?}, not a commit time"))
}

/// `staged` as `name/...` in a gzip-compressed tar, owned by root, with stable modes, every
/// entry dated `epoch` and in name order.
fn write_tar_gz(staged: &Path, name: &str, archive: &Path, epoch: u64) -> Result<()> {
    let file = fs::File::create(archive)
        .with_context(|| format!("cannot create {}", archive.display()))?;
    let encoder = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    let mut builder = tar::Builder::new(encoder);
    append_dated(&mut builder, staged, Path::new(name), epoch)
        .with_context(|| format!("cannot archive {}", staged.display()))?;
    builder.into_inner()?.finish()?;
    Ok(())
}

/// `dir` and everything under it as `inside/...`. tar's own `append_dir_all` dates every entry
/// 2006-07-24 in its deterministic mode; this dates them `epoch`.
fn append_dated<W: Write>(
    builder: &mut tar::Builder<W>,
    dir: &Path,
    inside: &Path,
    epoch: u64,
) -> Result<()> {
    let header_for = |meta: &fs::Metadata| {
        let mut header = tar::Header::new_gnu();
        header.set_metadata_in_mode(meta, tar::HeaderMode::Deterministic);
        header.set_mtime(epoch);
        header
    };
    let mut header = header_for(&fs::metadata(dir)?);
    builder.append_data(&mut header, inside, std::io::empty())?;
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries {
        let meta = fs::symlink_metadata(&path)?;
        let name = inside.join(file_name(&path)?);
        if meta.is_dir() {
            append_dated(builder, &path, &name, epoch)?;
        } else {
            ensure!(meta.is_file(), "{} is not a regular file", path.display());
            let mut header = header_for(&meta);
            builder.append_data(&mut header, &name, fs::File::open(&path)?)?;
        }
    }
    Ok(())
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

    /// Release archives are dated from the commit (or SOURCE_DATE_EPOCH), not tar's
    /// deterministic 2006-07-24.
    #[test]
    fn archive_entries_are_dated_from_the_commit() {
        let root = crate::project_root();
        assert_eq!(
            source_date_epoch(Some("1700000000".into()), &root).expect("from the variable"),
            1_700_000_000
        );
        assert!(source_date_epoch(Some("yesterday".into()), &root).is_err());
        let commit = source_date_epoch(None, &root).expect("this checkout's commit time");
        // After the project began (2024-01-01), and not tar's deterministic constant.
        assert!(commit > 1_704_067_200, "{commit}");

        let dir = std::env::temp_dir().join(format!("nodecheck-dist-date-{}", std::process::id()));
        let staged = dir.join("staged");
        fs::create_dir_all(staged.join("man")).expect("mkdir");
        fs::write(staged.join("README.md"), "read me\n").expect("write");
        fs::write(staged.join("man/nodecheck.1"), ".TH x\n").expect("write");
        let archive = dir.join("x.tar.gz");
        write_tar_gz(&staged, "nodecheck-x", &archive, commit).expect("archived");

        let file = fs::File::open(&archive).expect("open");
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
        let mut names = Vec::new();
        for entry in tar.entries().expect("entries") {
            let entry = entry.expect("entry");
            let header = entry.header();
            assert_eq!(header.mtime().expect("mtime"), commit, "{:?}", entry.path());
            assert_eq!(header.uid().expect("uid"), 0);
            names.push(entry.path().expect("path").display().to_string());
        }
        assert_eq!(
            names,
            [
                "nodecheck-x",
                "nodecheck-x/README.md",
                "nodecheck-x/man",
                "nodecheck-x/man/nodecheck.1"
            ]
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
