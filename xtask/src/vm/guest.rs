//! What the guest boots: Debian's kernel package (fetched once, cached under `target/vm/`) and
//! an initramfs with busybox, the release `nodecheck`, the host tools the scenarios use (each
//! with its shared libraries) and the kernel modules they load (with their dependencies).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use super::check::{BEGIN, DONE, END};
use super::cpio::Archive;
use super::openzfs::{self, OpenZfs};
use super::scenarios::{Scenario, DATADIR};

/// The unpacked kernel package.
pub struct Kernel {
    pub version: String,
    pub vmlinuz: PathBuf,
    modules: PathBuf,
}

/// The kernel package this machine's Debian release installs (`linux-image-amd64` depends on
/// it), downloaded and unpacked under `cache` unless it already is.
pub fn kernel(cache: &Path) -> Result<Kernel> {
    let package = match current_kernel_package().or_else(|err| {
        // A fresh container has no package lists yet.
        if super::is_root() {
            super::run(Command::new("apt-get").args(["update", "-qq"]))?;
            current_kernel_package()
        } else {
            Err(err)
        }
    }) {
        Ok(package) => package,
        Err(err) => match cached_kernel_package(cache) {
            Some(package) => {
                eprintln!("vm: {err:#}; using the cached {package}");
                package
            }
            None => return Err(err),
        },
    };
    let version = package
        .strip_prefix("linux-image-")
        .context("kernel package name")?
        .to_string();
    let dir = cache.join(&package);
    let unpacked = dir.join("root");
    let vmlinuz = unpacked.join(format!("boot/vmlinuz-{version}"));
    let modules = unpacked.join(format!("lib/modules/{version}"));
    if !vmlinuz.is_file() || !modules.is_dir() {
        fs::create_dir_all(&dir)?;
        eprintln!("vm: downloading {package}");
        super::run(
            Command::new("apt-get")
                .args(["download", &package])
                .current_dir(&dir),
        )
        .with_context(|| format!("cannot download {package} (apt-get download)"))?;
        let deb = fs::read_dir(&dir)?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .find(|path| path.extension().is_some_and(|ext| ext == "deb"))
            .with_context(|| format!("apt-get download left no .deb in {}", dir.display()))?;
        let partial = dir.join("root.partial");
        let _ = fs::remove_dir_all(&partial);
        super::run(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&partial))
            .with_context(|| format!("cannot unpack {}", deb.display()))?;
        fs::remove_file(&deb)?;
        fs::rename(&partial, &unpacked)?;
    }
    if !vmlinuz.is_file() {
        bail!("{package} holds no {}", vmlinuz.display());
    }
    Ok(Kernel {
        version,
        vmlinuz,
        modules,
    })
}

fn current_kernel_package() -> Result<String> {
    let output = Command::new("apt-cache")
        .args(["depends", "linux-image-amd64"])
        .output()
        .context("cannot run apt-cache")?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("Depends: "))
        .map(str::trim)
        .find(|name| name.starts_with("linux-image-") && name.ends_with("-amd64"))
        .map(str::to_string)
        .context("apt-cache names no linux-image-*-amd64 for linux-image-amd64 (apt-get update?)")
}

fn cached_kernel_package(cache: &Path) -> Option<String> {
    let mut names: Vec<String> = fs::read_dir(cache)
        .ok()?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.path().join("root/boot").is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.pop()
}

/// `modprobe` name → file under `lib/modules/VERSION`, with its `depends=` list read from the
/// module's `.modinfo` strings (the package ships no `modules.dep`).
struct Modules {
    files: BTreeMap<String, PathBuf>,
}

fn module_name(file_name: &str) -> Option<String> {
    let stem = file_name.strip_suffix(".ko")?;
    Some(stem.replace('-', "_"))
}

impl Modules {
    fn index(dir: &Path) -> Result<Modules> {
        let mut files = BTreeMap::new();
        let mut pending = vec![dir.join("kernel")];
        while let Some(dir) = pending.pop() {
            for entry in fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
                let entry = entry?;
                let path = entry.path();
                if entry.file_type()?.is_dir() {
                    pending.push(path);
                } else if let Some(name) = module_name(&entry.file_name().to_string_lossy()) {
                    files.insert(name, path);
                }
            }
        }
        Ok(Modules { files })
    }

    fn depends(path: &Path) -> Result<Vec<String>> {
        let bytes = fs::read(path).with_context(|| format!("{}", path.display()))?;
        let key = b"\0depends=";
        let Some(start) = bytes.windows(key.len()).position(|w| w == key) else {
            return Ok(Vec::new());
        };
        let rest = &bytes[start + key.len()..];
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        Ok(String::from_utf8_lossy(&rest[..end])
            .split(',')
            .filter(|name| !name.is_empty())
            .map(|name| name.replace('-', "_"))
            .collect())
    }

    /// Modules built outside the kernel package (OpenZFS's), found by the same names.
    fn add_external(&mut self, files: &[PathBuf]) {
        for file in files {
            if let Some(name) = file
                .file_name()
                .and_then(|n| module_name(&n.to_string_lossy()))
            {
                self.files.insert(name, file.clone());
            }
        }
    }

    /// The named modules and everything they depend on.
    fn closure(&self, wanted: &BTreeSet<String>) -> Result<BTreeSet<PathBuf>> {
        let mut seen = BTreeSet::new();
        let mut files = BTreeSet::new();
        let mut pending: Vec<String> = wanted.iter().cloned().collect();
        while let Some(name) = pending.pop() {
            let name = name.replace('-', "_");
            if !seen.insert(name.clone()) {
                continue;
            }
            let file = self
                .files
                .get(&name)
                .with_context(|| format!("module {name} is not in the kernel package"))?;
            pending.extend(Self::depends(file)?);
            files.insert(file.clone());
        }
        Ok(files)
    }
}

/// Builds the initramfs for every scenario at `out`; `openzfs` when one of them needs it.
pub fn initramfs(
    kernel: &Kernel,
    nodecheck: &Path,
    scenarios: &[&Scenario],
    openzfs: Option<&OpenZfs>,
    work: &Path,
    out: &Path,
) -> Result<()> {
    let mut archive = Archive::default();
    let busybox = Path::new("/bin/busybox");
    add_program(&mut archive, busybox, "/bin/busybox")?;
    archive.symlink("/sbin", "bin");
    archive.symlink("/usr/sbin", "bin");
    for dir in [
        "/proc", "/sys", "/dev", "/tmp", "/run", "/etc", "/mnt", DATADIR,
    ] {
        archive.dir(dir);
    }
    archive.symlink("/etc/mtab", "/proc/self/mounts");
    add_program(&mut archive, nodecheck, "/usr/bin/nodecheck")?;

    let tools: BTreeSet<&str> = scenarios
        .iter()
        .flat_map(|s| s.tools.iter().copied())
        .collect();
    for tool in tools {
        let host = which(tool).with_context(|| format!("`{tool}` is not installed"))?;
        add_program(&mut archive, &host, &format!("/usr/bin/{tool}"))?;
    }

    let wanted: BTreeSet<String> = scenarios
        .iter()
        .flat_map(|s| s.modules.iter().map(|m| m.to_string()))
        .collect();
    let mut index = Modules::index(&kernel.modules)?;
    if let Some(zfs) = openzfs {
        index.add_external(&zfs.modules);
        for program in openzfs::PROGRAMS {
            let name = Path::new(program).file_name().context("program name")?;
            add_program_from(
                &mut archive,
                &zfs.sysroot,
                Path::new(program),
                &format!("/usr/bin/{}", name.to_string_lossy()),
            )?;
        }
        // The kernel module writes the pool's cache file here.
        archive.dir("/etc/zfs");
    }
    let staging = work.join("modules");
    let _ = fs::remove_dir_all(&staging);
    let staged_modules = staging.join(format!("lib/modules/{}", kernel.version));
    for file in index.closure(&wanted)? {
        // DKMS installs out-of-tree modules under `extra/`.
        let relative = match file.strip_prefix(&kernel.modules) {
            Ok(relative) => relative.to_path_buf(),
            Err(_) => Path::new("extra").join(file.file_name().context("module name")?),
        };
        let target = staged_modules.join(relative);
        fs::create_dir_all(target.parent().context("module path")?)?;
        fs::copy(&file, &target)?;
    }
    for extra in [
        "modules.builtin",
        "modules.order",
        "modules.builtin.modinfo",
    ] {
        let source = kernel.modules.join(extra);
        if source.is_file() {
            fs::copy(&source, staged_modules.join(extra))?;
        }
    }
    // busybox's depmod writes modules.dep and modules.alias for exactly the staged modules,
    // so the guest's modprobe (and the kernel's request_module through it) resolves them.
    super::run(
        Command::new(busybox)
            .args(["depmod", "-b"])
            .arg(&staging)
            .arg(&kernel.version),
    )
    .context("busybox depmod on the staged modules")?;
    add_tree(&mut archive, &staging, &staging)?;
    fs::remove_dir_all(&staging)?;

    archive.file("/init", init_script().into_bytes(), 0o755);
    archive.file("/lib/vm-helpers.sh", HELPERS.as_bytes().to_vec(), 0o644);
    // Under TCG on a loaded 2-core host an emulated NVMe write can outlast the driver's 30 s
    // default; the timeout path aborts, resets the controller, and when the reset fails the
    // kernel removes the namespace, so ext4 goes read-only and the scenario hangs on I/O errors
    // (seen twice in CI, in nvme and nvme_fresh_data). 255 s is the largest value every kernel
    // accepts (older ones keep it in a byte). nvme_core is a module, and busybox's modprobe
    // takes options from modprobe.d, not from the kernel command line.
    archive.file(
        "/etc/modprobe.d/nodecheck-vm.conf",
        b"options nvme_core io_timeout=255 admin_timeout=255\n".to_vec(),
        0o644,
    );
    for scenario in scenarios {
        archive.file(
            &format!("/scenarios/{}.sh", scenario.name),
            scenario.guest_script().into_bytes(),
            0o644,
        );
        archive.file(
            &format!("/scenarios/{}-setup.sh", scenario.name),
            format!(
                ". /lib/vm-helpers.sh\nset -ex\n{}",
                scenario.setup.trim_start()
            )
            .into_bytes(),
            0o644,
        );
    }

    let mut bytes = Vec::new();
    archive.write_to(&mut bytes)?;
    fs::write(out, bytes).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(())
}

fn add_tree(archive: &mut Archive, base: &Path, dir: &Path) -> Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let inside = format!("/{}", path.strip_prefix(base)?.display());
        if entry.file_type()?.is_dir() {
            archive.dir(&inside);
            add_tree(archive, base, &path)?;
        } else {
            archive.file(&inside, fs::read(&path)?, 0o644);
        }
    }
    Ok(())
}

/// A host program and the shared libraries `ldd` lists for it, at the paths it lists them.
fn add_program(archive: &mut Archive, host: &Path, guest: &str) -> Result<()> {
    let bytes = fs::read(host).with_context(|| format!("cannot read {}", host.display()))?;
    archive.file(guest, bytes, 0o755);
    let output = Command::new("ldd").arg(host).output().context("ldd")?;
    add_libraries(archive, &String::from_utf8_lossy(&output.stdout), None)
}

/// A program unpacked under `sysroot` (`sbin/zpool`) and its libraries: those `ldd` finds in
/// the sysroot go to the same path in the guest (`/lib/x86_64-linux-gnu/libzfs.so.4`), the
/// rest from the host as for [`add_program`].
fn add_program_from(
    archive: &mut Archive,
    sysroot: &Path,
    program: &Path,
    guest: &str,
) -> Result<()> {
    let host = sysroot.join(program);
    let bytes = fs::read(&host).with_context(|| format!("cannot read {}", host.display()))?;
    archive.file(guest, bytes, 0o755);
    let libraries = ["lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu"]
        .map(|dir| sysroot.join(dir).display().to_string())
        .join(":");
    let output = Command::new("ldd")
        .arg(&host)
        .env("LD_LIBRARY_PATH", libraries)
        .output()
        .context("ldd")?;
    add_libraries(
        archive,
        &String::from_utf8_lossy(&output.stdout),
        Some(sysroot),
    )
}

/// The libraries of an `ldd` listing; a library under `sysroot` goes to its path inside it.
fn add_libraries(archive: &mut Archive, text: &str, sysroot: Option<&Path>) -> Result<()> {
    for line in text.lines() {
        let library = match line.split_once("=>") {
            Some((_, right)) => right.split_whitespace().next(),
            None => line
                .split_whitespace()
                .next()
                .filter(|p| p.starts_with('/')),
        };
        let Some(library) = library.filter(|p| p.starts_with('/')) else {
            continue;
        };
        let inside = match sysroot.and_then(|root| Path::new(library).strip_prefix(root).ok()) {
            Some(relative) => format!("/{}", relative.display()),
            None => library.to_string(),
        };
        if archive.contains(&inside) {
            continue;
        }
        let bytes = fs::read(library).with_context(|| format!("cannot read {library}"))?;
        archive.file(&inside, bytes, 0o755);
    }
    Ok(())
}

pub fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(tool))
        .find(|candidate| candidate.is_file())
}

/// Shell functions for the init script and every scenario's setup script.
const HELPERS: &str = r#"# A device node appears a moment after its driver probes.
wait_for() {
    for _ in $(seq 1 300); do
        [ -e "$1" ] && return 0
        sleep 0.1
    done
    echo "guest: $1 did not appear"
    return 1
}

# The disk whose serial (as the kernel reports it) is $1.
disk_by_serial() {
    for dir in /sys/block/*; do
        for file in "$dir/serial" "$dir/device/serial" "$dir/device/vpd_pg80"; do
            if [ -r "$file" ] && grep -q "$1" "$file" 2>/dev/null; then
                echo "/dev/${dir##*/}"
                return 0
            fi
        done
        if [ -r "$dir/device/wwid" ] && grep -q "$1" "$dir/device/wwid"; then
            echo "/dev/${dir##*/}"
            return 0
        fi
    done
    return 1
}

"#;

fn init_script() -> String {
    format!(
        r#"#!/bin/busybox sh
/bin/busybox --install -s /bin
# The host tools in /usr/bin win over busybox applets of the same name (mke2fs).
export PATH=/usr/bin:/bin
. /lib/vm-helpers.sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /run/lock /run/lvm /run/cryptsetup
# libdevmapper creates /dev/mapper nodes itself when no udev is there to do it.
export DM_DISABLE_UDEV=1
exec 3>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null

# run NAME COMMAND...: the command's stdout goes to the results port between markers, its
# stderr to the console.
run() {{
    name=$1
    shift
    echo "guest: $name: $*"
    "$@" >/tmp/run.out 2>/tmp/run.err
    rc=$?
    cat /tmp/run.err
    echo "{BEGIN}$name@@" >&3
    cat /tmp/run.out >&3
    echo >&3
    echo "{END}$name $rc@@" >&3
}}

modules() {{
    for module in "$@"; do
        modprobe "$module" || echo "guest: modprobe $module failed"
    done
    if [ -r /sys/module/nvme_core/parameters/io_timeout ]; then
        echo "guest: nvme_core io_timeout $(cat /sys/module/nvme_core/parameters/io_timeout) s"
    fi
}}

scenario=$(sed -n 's/.*nodecheck\.scenario=\([^ ]*\).*/\1/p' /proc/cmdline)
echo "guest: scenario $scenario"
. "/scenarios/$scenario.sh"
echo "{DONE}" >&3
sync
poweroff -f
"#
    )
}
