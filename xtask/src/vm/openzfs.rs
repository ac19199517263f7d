//! OpenZFS for the guest: Debian's `zfs-dkms` source built against the guest kernel's own
//! headers (`linux-headers-<version>`), and `zfsutils-linux` for `zpool` and `zfs`.
//!
//! Debian ships ZFS in `contrib`, which a default install does not list. The packages are
//! fetched through a private apt configuration under `target/vm/openzfs/apt` (the machine's
//! sources and installed packages stay as they are), unpacked with `dpkg-deb -x`, and the
//! modules built with the source's own `configure` and kbuild, as DKMS would. The stripped
//! modules are cached per (OpenZFS version, kernel version): only a checkout's first run pays
//! for the build (597 s of CPU measured, docs/real-kernel.md), but CI's clean checkout pays it
//! every time. `gcc-12`, `make` and `strip` come with the other host packages (`vm/mod.rs`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// The userland and its libraries, all from the same source version as the modules.
const USERLAND: &[&str] = &[
    "zfs-dkms",
    "zfsutils-linux",
    "libzfs4linux",
    "libzpool5linux",
    "libnvpair3linux",
    "libuutil3linux",
];

/// The programs the guest runs, as `zfsutils-linux` installs them.
pub const PROGRAMS: &[&str] = &["sbin/zpool", "sbin/zfs", "sbin/mount.zfs"];

/// What the guest gets: the modules and the unpacked packages the programs come from.
pub struct OpenZfs {
    pub version: String,
    /// The stripped `.ko` files (`spl.ko`, `zfs.ko`, ...).
    pub modules: Vec<PathBuf>,
    /// The unpacked packages: `sbin/zpool`, `lib/x86_64-linux-gnu/libzfs.so.4`, ...
    pub sysroot: PathBuf,
}

/// Fetches, unpacks and builds what is missing under `cache` (`target/vm/openzfs`).
pub fn prepare(cache: &Path, kernel: &str) -> Result<OpenZfs> {
    let sysroot = cache.join(format!("root-{}", kernel));
    if !sysroot.join("usr/src").is_dir() {
        fetch(cache, kernel, &sysroot)?;
    }
    let source = fs::read_dir(sysroot.join("usr/src"))?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("zfs-"))
        })
        .context("zfs-dkms holds no /usr/src/zfs-VERSION")?;
    let version = source
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("zfs-"))
        .context("zfs source directory name")?
        .to_string();
    let built = cache.join(format!("modules-{version}-{}", kernel));
    if !built.join("zfs.ko").is_file() {
        build(cache, kernel, &sysroot, &source, &built)?;
    }
    let mut modules: Vec<PathBuf> = fs::read_dir(&built)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "ko"))
        .collect();
    modules.sort();
    Ok(OpenZfs {
        version,
        modules,
        sysroot,
    })
}

/// The machine's Debian release (`bookworm`), whose `contrib` matches its kernel.
fn codename() -> Result<String> {
    let text = fs::read_to_string("/etc/os-release").context("reading /etc/os-release")?;
    text.lines()
        .find_map(|line| line.strip_prefix("VERSION_CODENAME="))
        .map(|name| name.trim_matches('"').to_string())
        .filter(|name| !name.is_empty())
        .context("/etc/os-release names no VERSION_CODENAME")
}

/// apt-get/apt-cache options that keep lists, cache and sources under `apt`.
fn apt_options(apt: &Path) -> Vec<String> {
    let d = apt.display();
    vec![
        format!("-oDir::State={d}"),
        format!("-oDir::State::Lists={d}/lists"),
        format!("-oDir::State::status={d}/status"),
        format!("-oDir::Cache={d}"),
        format!("-oDir::Etc::SourceList={d}/sources.list"),
        "-oDir::Etc::SourceParts=/nonexistent".to_string(),
        "-oAPT::Sandbox::User=root".to_string(),
        "-qq".to_string(),
    ]
}

fn fetch(cache: &Path, kernel: &str, sysroot: &Path) -> Result<()> {
    let apt = cache.join("apt");
    fs::create_dir_all(apt.join("lists/partial"))?;
    fs::create_dir_all(apt.join("archives/partial"))?;
    let release = codename()?;
    fs::write(
        apt.join("sources.list"),
        format!(
            "deb http://deb.debian.org/debian {release} main contrib\n\
             deb http://deb.debian.org/debian {release}-updates main contrib\n\
             deb http://deb.debian.org/debian-security {release}-security main contrib\n"
        ),
    )?;
    fs::write(apt.join("status"), "")?;
    let options = apt_options(&apt);
    eprintln!("vm: fetching the package lists with {release}'s contrib (OpenZFS)");
    super::run(Command::new("apt-get").args(&options).arg("update"))
        .context("apt-get update with contrib")?;

    // The headers come from the apt view the guest kernel was chosen from (the machine's own
    // lists, `guest::kernel`); Debian's mirrors are not always in step, and a private list
    // fetched minutes later has named other kernel ABIs (6.1.0-47 and -50 where the machine's
    // lists had just chosen -48). The private view is the fallback for a machine whose own
    // lists lack them.
    let headers = format!("linux-headers-{}", kernel);
    let system: Vec<String> = vec!["-oAPT::Sandbox::User=root".into(), "-qq".into()];
    let (header_packages, header_options) = match header_packages(&system, &headers)? {
        Some(found) => (found, system),
        None => match header_packages(&options, &headers)? {
            Some(found) => (found, options.clone()),
            None => bail!(
                "neither this machine's apt lists nor {release}'s (with contrib) name the \
                 common headers and kbuild packages of {headers}"
            ),
        },
    };

    let debs = cache.join("debs");
    let _ = fs::remove_dir_all(&debs);
    fs::create_dir_all(&debs)?;
    for (packages, options) in [
        (
            USERLAND.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            &options,
        ),
        (header_packages, &header_options),
    ] {
        eprintln!("vm: downloading {}", packages.join(" "));
        super::run(
            Command::new("apt-get")
                .args(options)
                .arg("download")
                .args(&packages)
                .current_dir(&debs),
        )
        .with_context(|| format!("cannot download {}", packages.join(" ")))?;
    }
    let partial = sysroot.with_extension("partial");
    let _ = fs::remove_dir_all(&partial);
    for entry in fs::read_dir(&debs)? {
        let deb = entry?.path();
        super::run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&partial))
            .with_context(|| format!("cannot unpack {}", deb.display()))?;
    }
    // The flavour's Makefile includes the common headers' by absolute path (/usr/src/...):
    // point it at the unpacked copy.
    let makefile = partial.join(format!("usr/src/{headers}/Makefile"));
    let text = fs::read_to_string(&makefile)
        .with_context(|| format!("{} is missing", makefile.display()))?;
    let moved = sysroot.join("usr/src");
    fs::write(
        &makefile,
        text.replace(
            "include /usr/src/",
            &format!("include {}/", moved.display()),
        ),
    )?;
    fs::remove_dir_all(&debs)?;
    let _ = fs::remove_dir_all(sysroot);
    fs::rename(&partial, sysroot)?;
    Ok(())
}

/// `headers` and the common headers and kbuild packages it depends on, as the apt view of
/// `options` names them (without list options: the machine's own); `None` when that view does not know them.
fn header_packages(options: &[String], headers: &str) -> Result<Option<Vec<String>>> {
    let output = Command::new("apt-cache")
        .args(options)
        .args(["depends", headers])
        .stderr(Stdio::null())
        .output()
        .context("cannot run apt-cache")?;
    let depends = String::from_utf8_lossy(&output.stdout);
    let mut packages = vec![headers.to_string()];
    packages.extend(
        depends
            .lines()
            .filter_map(|line| line.trim().strip_prefix("Depends: "))
            .map(str::trim)
            .filter(|name| name.starts_with("linux-headers-") || name.starts_with("linux-kbuild-"))
            .map(str::to_string),
    );
    // The flavour's headers need at least the common headers and kbuild.
    Ok((packages.len() >= 3).then_some(packages))
}

fn build(cache: &Path, kernel: &str, sysroot: &Path, source: &Path, out: &Path) -> Result<()> {
    let started = Instant::now();
    let cpu_before = children_cpu();
    let headers = sysroot.join(format!("usr/src/linux-headers-{}", kernel));
    let common = fs::read_dir(sysroot.join("usr/src"))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .find(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("linux-headers-") && n.ends_with("-common"))
        })
        .context("no linux-headers-*-common unpacked")?;
    let work = cache.join("build");
    let _ = fs::remove_dir_all(&work);
    copy_dir(source, &work)?;
    let log = cache.join("build.log");
    let log_file = fs::File::create(&log)?;
    eprintln!(
        "vm: building OpenZFS {} for {} (once; log: {})",
        source.display(),
        kernel,
        log.display()
    );
    // As DKMS runs it (dkms.conf's PRE_BUILD), with the source and build trees of Debian's
    // split headers.
    let status = Command::new("./configure")
        .arg("--with-config=kernel")
        .arg(format!("--with-linux={}", common.display()))
        .arg(format!("--with-linux-obj={}", headers.display()))
        .current_dir(&work)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file.try_clone()?)
        .status()
        .context("cannot run OpenZFS's configure")?;
    if !status.success() {
        bail!("OpenZFS's configure failed ({status}): {}", tail(&log));
    }
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let status = Command::new("make")
        .arg(format!("-j{jobs}"))
        .current_dir(&work)
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file)
        .status()
        .context("cannot run make")?;
    if !status.success() {
        bail!(
            "building OpenZFS's modules failed ({status}): {}",
            tail(&log)
        );
    }
    let partial = out.with_extension("partial");
    let _ = fs::remove_dir_all(&partial);
    fs::create_dir_all(&partial)?;
    let mut pending = vec![work.join("module")];
    let mut count = 0;
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "ko") {
                let target = partial.join(path.file_name().context("module name")?);
                // Debian's kernel config keeps debug info; the guest unpacks every byte under
                // TCG, and DKMS strips them too.
                super::run(
                    Command::new("strip")
                        .arg("--strip-debug")
                        .arg("-o")
                        .arg(&target)
                        .arg(&path),
                )?;
                count += 1;
            }
        }
    }
    if !partial.join("zfs.ko").is_file() {
        bail!("the OpenZFS build left no zfs.ko ({count} modules)");
    }
    let _ = fs::remove_dir_all(out);
    fs::rename(&partial, out)?;
    fs::remove_dir_all(&work)?;
    // The CI budget depends on this build (a clean checkout pays it on every run): say what it
    // cost, wall and the compilers' CPU, so a slow run shows where its time went.
    eprintln!(
        "vm: built {count} OpenZFS modules in {:.0?} wall, {:.0?} CPU (make -j{jobs})",
        started.elapsed(),
        children_cpu().saturating_sub(cpu_before)
    );
    Ok(())
}

/// User and system CPU time of every waited-for child process so far (`configure`, `make` and
/// the compilers under them).
fn children_cpu() -> Duration {
    // SAFETY: getrusage writes only into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn tail(log: &Path) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    super::run(Command::new("cp").arg("-a").arg(from).arg(to))
}
