//! `cargo xtask vm`: nodecheck on a real Debian kernel with emulated NVMe, SATA (AHCI and
//! legacy IDE), USB, RAID HBA, md, LVM, dm-crypt and btrfs, under QEMU's TCG.
//!
//! Each scenario boots the kernel with an initramfs holding the release binary, builds its
//! storage stack with the kernel's own drivers, runs `probe`, `check` and `snapshot` as root,
//! and prints their JSON between markers on the second serial port. The host asserts on those
//! documents, and replays the snapshot with `check --snapshot` to get the same verdict.
//!
//! TCG, not KVM: `/dev/kvm` on a nested VM is slower than TCG by orders of magnitude.

mod check;
mod cpio;
mod guest;
mod openzfs;
mod scenarios;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use check::{Checks, Outcome};
use scenarios::{Scenario, DATADIR, SCENARIOS};

const USAGE: &str = "\
usage: cargo xtask vm [--list] [--scenario NAME]... [--jobs N] [--timeout SECS]
                      [--update-test-data]

Boots each scenario's emulated hardware with Debian's kernel under QEMU (TCG), runs nodecheck
in the guest and asserts on its JSON. Installs the Debian packages it needs when missing (as
root), caches the kernel package under target/vm/. Scenarios on ZFS build OpenZFS for the guest
kernel from Debian's contrib (zfs-dkms, once, cached under target/vm/openzfs/); when it cannot
be built they are skipped with the reason, unless named with --scenario.

  --list              name the scenarios and what each emulates
  --scenario NAME     run only this scenario (repeatable)
  --jobs N            guests booted at once (default 1; each takes one core)
  --timeout SECS      a guest still running after this is killed (default 600)
  --update-test-data  save each scenario's snapshot tree under crates/probe/tests/data/qemu/
";

/// Debian packages, each with a program that shows it is installed; gcc-12, make and strip
/// build OpenZFS for the guest (vm/openzfs.rs) on every clean checkout.
const PACKAGES: &[(&str, &str)] = &[
    ("qemu-system-x86", "qemu-system-x86_64"),
    ("busybox-static", "busybox"),
    ("mdadm", "mdadm"),
    ("lvm2", "lvm"),
    ("cryptsetup-bin", "cryptsetup"),
    ("e2fsprogs", "mke2fs"),
    ("btrfs-progs", "mkfs.btrfs"),
    ("smartmontools", "smartctl"),
    ("fdisk", "sfdisk"),
    ("gcc-12", "gcc-12"),
    ("make", "make"),
    ("binutils", "strip"),
];

struct Options {
    scenarios: Vec<&'static Scenario>,
    /// The scenarios were named on the command line: one that cannot run is an error.
    named: bool,
    jobs: usize,
    timeout: Duration,
    update_test_data: bool,
}

pub fn run_task(args: &[String]) -> Result<()> {
    let mut names = Vec::new();
    let mut jobs = 1usize;
    let mut timeout = Duration::from_secs(600);
    let mut update_test_data = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--list" => {
                for scenario in SCENARIOS {
                    let fixture = scenario
                        .fixture
                        .map(|name| format!(" (fixture: {name})"))
                        .unwrap_or_default();
                    println!("{:<24} {}{fixture}", scenario.name, scenario.about);
                }
                return Ok(());
            }
            "--scenario" => names.push(iter.next().context("--scenario needs a name")?.clone()),
            "--jobs" => {
                jobs = iter
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .context("--jobs needs a positive number")?;
            }
            "--timeout" => {
                let secs: u64 = iter
                    .next()
                    .and_then(|n| n.parse().ok())
                    .context("--timeout needs seconds")?;
                timeout = Duration::from_secs(secs);
            }
            "--update-test-data" => update_test_data = true,
            "--help" | "-h" => {
                print!("{USAGE}");
                return Ok(());
            }
            other => {
                eprint!("{USAGE}");
                bail!("unknown argument `{other}`");
            }
        }
    }
    let scenarios = if names.is_empty() {
        SCENARIOS.iter().collect()
    } else {
        names
            .iter()
            .map(|name| {
                SCENARIOS
                    .iter()
                    .find(|s| s.name == name)
                    .with_context(|| format!("no scenario `{name}` (see --list)"))
            })
            .collect::<Result<Vec<_>>>()?
    };
    run_scenarios(&Options {
        named: !names.is_empty(),
        scenarios,
        jobs,
        timeout,
        update_test_data,
    })
}

fn run_scenarios(opts: &Options) -> Result<()> {
    let started = Instant::now();
    ensure_packages()?;
    let root = crate::project_root();
    let work = root.join("target/vm");
    fs::create_dir_all(&work)?;
    let kernel = guest::kernel(&work.join("kernel"))?;
    eprintln!("vm: kernel {}", kernel.version);

    eprintln!("vm: building the release nodecheck");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    run(Command::new(&cargo)
        .args(["build", "--release", "--locked", "-p", "nodecheck"])
        .current_dir(&root))?;
    // The release profile strips symbols: the guest unpacks every byte under TCG.
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let nodecheck = target_dir.join("release/nodecheck");

    let mut scenarios = opts.scenarios.clone();
    let mut skipped = Vec::new();
    let openzfs = if scenarios.iter().any(|s| s.openzfs) {
        match openzfs::prepare(&work.join("openzfs"), &kernel.version) {
            Ok(zfs) => {
                eprintln!("vm: OpenZFS {} for the guest", zfs.version);
                Some(zfs)
            }
            Err(err) if !opts.named => {
                let reason = format!("OpenZFS could not be built for the guest kernel: {err:#}");
                eprintln!("vm: {reason}");
                for scenario in scenarios.iter().filter(|s| s.openzfs) {
                    skipped.push((scenario.name, reason.clone()));
                }
                scenarios.retain(|s| !s.openzfs);
                None
            }
            Err(err) => return Err(err.context("OpenZFS for the guest")),
        }
    } else {
        None
    };

    let initramfs = work.join("initramfs.cpio");
    guest::initramfs(
        &kernel,
        &nodecheck,
        &scenarios,
        openzfs.as_ref(),
        &work,
        &initramfs,
    )?;
    eprintln!(
        "vm: initramfs {} MiB, ready after {:.0?}",
        fs::metadata(&initramfs)?.len() >> 20,
        started.elapsed()
    );

    let queue = Mutex::new(scenarios.iter());
    let results: Mutex<Vec<(&str, Result<Checks>, Duration)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.min(scenarios.len()) {
            scope.spawn(|| loop {
                let Some(scenario) = queue.lock().expect("queue").next() else {
                    break;
                };
                let begun = Instant::now();
                let result = run_scenario(
                    scenario,
                    &kernel.vmlinuz,
                    &initramfs,
                    &nodecheck,
                    &work,
                    opts,
                );
                let elapsed = begun.elapsed();
                match &result {
                    Ok(checks) if checks.failed.is_empty() => eprintln!(
                        "vm: {} passed ({} assertions, {elapsed:.0?})",
                        scenario.name,
                        checks.passed.len()
                    ),
                    Ok(checks) => eprintln!(
                        "vm: {} FAILED {} of {} assertions ({elapsed:.0?})",
                        scenario.name,
                        checks.failed.len(),
                        checks.failed.len() + checks.passed.len()
                    ),
                    Err(err) => eprintln!("vm: {} FAILED: {err:#}", scenario.name),
                }
                results
                    .lock()
                    .expect("results")
                    .push((scenario.name, result, elapsed));
            });
        }
    });

    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(name, _, _)| SCENARIOS.iter().position(|s| s.name == *name).unwrap_or(0));
    let mut failures = 0usize;
    println!("\nscenario                 result   time  assertions");
    for (name, result, elapsed) in &results {
        match result {
            Ok(checks) => {
                let status = if checks.failed.is_empty() {
                    "ok"
                } else {
                    "FAILED"
                };
                println!(
                    "{name:<24} {status:<6} {:>5.0}s  {} passed, {} failed",
                    elapsed.as_secs_f64(),
                    checks.passed.len(),
                    checks.failed.len()
                );
                for failure in &checks.failed {
                    println!("    failed: {failure}");
                }
                if !checks.failed.is_empty() {
                    failures += 1;
                }
            }
            Err(err) => {
                failures += 1;
                println!("{name:<24} FAILED {:>5.0}s  {err:#}", elapsed.as_secs_f64());
            }
        }
    }
    for (name, reason) in &skipped {
        println!("{name:<24} SKIPPED  {reason}");
    }
    println!("total {:.0?}", started.elapsed());
    if failures > 0 {
        bail!("{failures} scenario(s) failed");
    }
    Ok(())
}

fn run_scenario(
    scenario: &Scenario,
    vmlinuz: &Path,
    initramfs: &Path,
    nodecheck: &Path,
    work: &Path,
    opts: &Options,
) -> Result<Checks> {
    let dir = work.join("run").join(scenario.name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir)?;
    let console = dir.join("console.log");
    let results = dir.join("results.log");

    let mut command = Command::new("qemu-system-x86_64");
    command
        .args([
            "-accel", "tcg", "-machine", "pc", "-cpu", "max", "-smp", "1",
        ])
        .args(["-m", "1024", "-nodefaults", "-no-user-config", "-no-reboot"])
        .args(["-display", "none", "-monitor", "none"])
        .arg("-kernel")
        .arg(vmlinuz)
        .arg("-initrd")
        .arg(initramfs)
        .arg("-append")
        .arg(format!(
            "console=ttyS0 panic=-1 no_timer_check loglevel=4 nodecheck.scenario={}",
            scenario.name
        ))
        .arg("-serial")
        .arg(format!("file:{}", console.display()))
        .arg("-serial")
        .arg(format!("file:{}", results.display()));
    for disk in scenario.disks {
        let image = dir.join(format!("{}.img", disk.id));
        let file = fs::File::create(&image)?;
        file.set_len(disk.mib << 20)?;
        command.arg("-drive").arg(format!(
            "file={},format=raw,if=none,id={},cache=unsafe,discard=unmap",
            image.display(),
            disk.id
        ));
    }
    for tag in scenario.shares {
        let share = dir.join(tag);
        fs::create_dir_all(&share)?;
        command
            .arg("-fsdev")
            .arg(format!(
                "local,id={tag},path={},security_model=none",
                share.display()
            ))
            .arg("-device")
            .arg(format!("virtio-9p-pci,fsdev={tag},mount_tag={tag}"));
    }
    command.args(scenario.devices);
    let trace = dir.join("nvme-trace.log");
    if scenario.nvme_trace {
        // QEMU's own record of every NVMe I/O command the guest sent (lba, nlb).
        let events = dir.join("nvme-trace.events");
        fs::write(&events, "pci_nvme_read\npci_nvme_write\n")?;
        command.arg("-trace").arg(format!(
            "events={},file={}",
            events.display(),
            trace.display()
        ));
    }
    command
        .stdin(Stdio::null())
        .stdout(fs::File::create(dir.join("qemu.log"))?)
        .stderr(fs::File::create(dir.join("qemu.err"))?);

    let images: Vec<_> = scenario
        .disks
        .iter()
        .map(|disk| dir.join(format!("{}.img", disk.id)))
        .collect();
    let mut child = command.spawn().context("cannot start qemu-system-x86_64")?;
    let deadline = Instant::now() + opts.timeout;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let failed_boot = |reason: String| -> anyhow::Error {
        let console_text = fs::read_to_string(&console).unwrap_or_default();
        let qemu_err = fs::read_to_string(dir.join("qemu.err")).unwrap_or_default();
        anyhow::anyhow!(
            "{reason}\n--- qemu stderr ---\n{qemu_err}\n--- console ({}) ---\n{}",
            console.display(),
            console_text.replace('\r', "")
        )
    };
    // What the guest wrote to its disks is in its snapshot and results; the images only
    // hold space.
    for image in &images {
        let _ = fs::remove_file(image);
    }
    let Some(status) = status else {
        return Err(failed_boot(format!(
            "the guest was still running after {:?}: killed",
            opts.timeout
        )));
    };
    let text = fs::read_to_string(&results).unwrap_or_default();
    let runs = match check::parse_results(&text) {
        Ok(runs) => runs,
        Err(err) => return Err(failed_boot(format!("{err} (qemu exited with {status})"))),
    };

    let document = |name: &str| -> Result<Value> {
        let run = runs
            .get(name)
            .with_context(|| format!("the guest did not run `{name}`"))?;
        serde_json::from_str(run.stdout.trim()).map_err(|err| {
            failed_boot(format!(
                "`{name}` printed no JSON (exit {}): {err}\n{}",
                run.status, run.stdout
            ))
        })
    };
    let probe = document("probe")?;
    let check = document("check")?;
    let snapshot_run = runs.get("snapshot").context("no snapshot run")?;
    if snapshot_run.status != 0 {
        return Err(failed_boot(format!(
            "`snapshot` failed with {}",
            snapshot_run.status
        )));
    }
    let snapshot = dir.join("snapshot.tar.gz");
    fs::write(&snapshot, check::decode_base64(&snapshot_run.stdout)?)?;
    let replay = Command::new(nodecheck)
        .args(["check", "--json", "--snapshot"])
        .arg(&snapshot)
        .arg(DATADIR)
        .output()
        .context("cannot run nodecheck check --snapshot")?;
    let replayed: Value = serde_json::from_slice(&replay.stdout).with_context(|| {
        format!(
            "check --snapshot printed no JSON: {}",
            String::from_utf8_lossy(&replay.stderr)
        )
    })?;
    fs::write(dir.join("probe.json"), serde_json::to_vec_pretty(&probe)?)?;
    fs::write(dir.join("check.json"), serde_json::to_vec_pretty(&check)?)?;
    fs::write(
        dir.join("replayed.json"),
        serde_json::to_vec_pretty(&replayed)?,
    )?;

    let outcome = Outcome {
        runs,
        probe,
        check,
        replayed,
        nvme_trace: if scenario.nvme_trace {
            fs::read_to_string(&trace).with_context(|| format!("reading {}", trace.display()))?
        } else {
            String::new()
        },
    };
    let mut checks = Checks::default();
    let guest_check = outcome.runs.get("check").map_or(-1, |r| r.status);
    checks.eq(
        "check --snapshot on the host: same grade as in the guest",
        &outcome.replayed["grade"],
        outcome.check["grade"].clone(),
    );
    checks.eq(
        "check --snapshot on the host: same exit status",
        &Value::from(replay.status.code().unwrap_or(-1)),
        guest_check,
    );
    checks.eq(
        "check --snapshot on the host: same findings",
        &finding_codes(&outcome.replayed),
        finding_codes(&outcome.check),
    );
    (scenario.expect)(&outcome, &mut checks);

    if opts.update_test_data {
        save_test_data(scenario, &snapshot)?;
        save_watch_data(scenario, &outcome)?;
    }
    Ok(checks)
}

/// The finding codes and severities, sorted: what a user reads as the verdict.
fn finding_codes(check: &Value) -> Value {
    let mut codes: Vec<String> = check["findings"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|f| {
                    format!(
                        "{} {}",
                        f["code"].as_str().unwrap_or("?"),
                        f["severity"].as_str().unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    codes.sort();
    Value::from(codes)
}

/// The probe's test data: the snapshot's tree, exactly what the probe read in the guest.
fn save_test_data(scenario: &Scenario, snapshot: &Path) -> Result<()> {
    let unpacked = nodecheck::snapshot::unpack(snapshot)?;
    let dest = crate::project_root()
        .join("crates/probe/tests/data/qemu")
        .join(scenario.name);
    let _ = fs::remove_dir_all(&dest);
    copy_tree(unpacked.root(), &dest)?;
    eprintln!("vm: saved {}", dest.display());
    Ok(())
}

/// The nodecheck tests' watch replay data: what `watch --save` kept in the guest beside the
/// write load, and the report the live run printed, which the replay must give again.
fn save_watch_data(scenario: &Scenario, outcome: &Outcome) -> Result<()> {
    let (Some(saved), Some(live)) = (
        outcome.runs.get(scenarios::WATCH_SAVED_RUN),
        outcome.runs.get("watch"),
    ) else {
        return Ok(());
    };
    let dir = crate::project_root().join("crates/nodecheck/tests/data/watch");
    let name = scenario.name.replace('_', "-");
    let saved_path = dir.join(format!("qemu-{name}.watch.json"));
    fs::write(&saved_path, &saved.stdout)?;
    fs::write(dir.join(format!("qemu-{name}.live.json")), &live.stdout)?;
    eprintln!("vm: saved {}", saved_path.display());
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Installs the missing packages with apt-get (as root); fails saying which are missing when
/// that is not possible, so CI never skips silently.
fn ensure_packages() -> Result<()> {
    let missing: Vec<&str> = PACKAGES
        .iter()
        .filter(|(package, program)| guest::which(program).is_none() || !dpkg_installed(package))
        .map(|(package, _)| *package)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !is_root() {
        bail!(
            "missing Debian packages: {} (run as root, or: sudo apt-get install {})",
            missing.join(" "),
            missing.join(" ")
        );
    }
    eprintln!("vm: installing {}", missing.join(" "));
    let install = |command: &mut Command| {
        run(command
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(&missing))
    };
    if install(&mut Command::new("apt-get")).is_err() {
        run(Command::new("apt-get").args(["update", "-qq"]))?;
        install(&mut Command::new("apt-get"))
            .with_context(|| format!("cannot install {}", missing.join(" ")))?;
    }
    Ok(())
}

fn dpkg_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f", "${Status}", package])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).ends_with("installed"))
        .unwrap_or(false)
}

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Runs a command, failing with its stderr when it fails.
pub(crate) fn run(command: &mut Command) -> Result<()> {
    let output = command
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {command:?}"))?;
    if !output.status.success() {
        bail!(
            "{command:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}
