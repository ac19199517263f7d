//! Which CPUs take a device's completion interrupts, so that the QD1 and randrw workers wait on
//! them.
//!
//! At queue depth 1 every read ends with an interrupt waking the waiting thread. When the thread
//! sleeps on another CPU than the interrupt, the wake-up crosses CPUs (an IPI; on a VM, waking a
//! halted vCPU through the host), and that adds to every read. On this project's virtio test VM
//! it is 34 µs vs 50 µs p50 for the same reads, fio and nodecheck alike: without pinning, the QD1
//! figure depends on where the scheduler happened to start the thread, run to run.
//!
//! NVMe, and virtio-blk with one queue per CPU, give each CPU its own queue and interrupt, so
//! every CPU completes locally and nothing is pinned. A single-queue device (virtio-blk with one
//! queue, AHCI, most SAS HBAs, USB bridges behind one xHCI interrupt) interrupts one CPU: the QD1
//! worker is pinned there, the equivalent of fio's `cpus_allowed` set to that CPU.
//!
//! Everything is read through `sys` and `proc` roots (`/sys`, `/proc` live; a fixture tree in
//! tests). Whatever is missing or unreadable means "do not pin": pinning is an optimisation of
//! the measurement, never a reason to fail it.

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Stacks (partition on dm-crypt on LVM on md) are a few levels deep; deeper is a loop.
const MAX_STACK_DEPTH: u32 = 8;
/// Sysfs attribute files are tiny; a larger one is not an attribute.
const MAX_ATTRIBUTE_BYTES: u64 = 64 * 1024;
/// More CPUs than any machine has; a CPU list naming more is malformed.
const MAX_CPUS: usize = 8192;

/// Where a device's completions land.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionCpus {
    /// The physical disks under the path (`vda`, `sda`), in name order.
    pub disks: Vec<String>,
    /// The interrupts that complete their I/O, in number order.
    pub irqs: Vec<u32>,
    /// The union of those interrupts' effective affinities.
    pub cpus: Vec<usize>,
}

/// The decision for one run (QD1 or randrw) on a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pinning {
    /// Run the workers (and the thread waiting for them) on these CPUs.
    Pin {
        cpus: Vec<usize>,
        completions: CompletionCpus,
    },
    /// Leave the worker where the scheduler puts it, and why.
    Unpinned(String),
}

impl Pinning {
    pub fn cpus(&self) -> Option<&[usize]> {
        match self {
            Pinning::Pin { cpus, .. } => Some(cpus),
            Pinning::Unpinned(_) => None,
        }
    }

    /// One line for the report about `test` (`qd1`, `randrw`).
    pub fn describe(&self, test: &str) -> String {
        match self {
            Pinning::Pin { cpus, completions } => format!(
                "{test} ran on CPU {}, which takes the completion interrupt{} of {} ({}): no \
                 completion waited for a cross-CPU wake-up",
                format_cpu_list(cpus),
                if completions.irqs.len() == 1 { "" } else { "s" },
                completions.disks.join(", "),
                completions
                    .irqs
                    .iter()
                    .map(|irq| format!("IRQ {irq}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Pinning::Unpinned(reason) => format!("{test} not pinned to a CPU: {reason}"),
        }
    }
}

/// Decides the pinning for I/O on `path` (a file, or a block device) on the live system.
pub fn pinning_for(path: &Path) -> Pinning {
    let allowed = match allowed_cpus() {
        Ok(cpus) => cpus,
        Err(err) => return Pinning::Unpinned(format!("sched_getaffinity: {err}")),
    };
    match device_number(path) {
        Some((major, minor)) if !Path::new(&format!("/sys/dev/block/{major}:{minor}")).exists() => {
            // btrfs, ZFS, overlayfs and tmpfs report an anonymous device number.
            Pinning::Unpinned(format!(
                "{} is on device {major}:{minor}, which is not a block device (btrfs, ZFS or \
                 overlayfs?)",
                path.display()
            ))
        }
        Some((major, minor)) => decide(
            completion_cpus(Path::new("/sys"), Path::new("/proc"), major, minor),
            &allowed,
        ),
        None => Pinning::Unpinned(format!("cannot stat {}", path.display())),
    }
}

/// The pure part of [`pinning_for`]: completions vs the CPUs this process may run on.
pub fn decide(completions: Option<CompletionCpus>, allowed: &[usize]) -> Pinning {
    let Some(completions) = completions else {
        return Pinning::Unpinned(
            "the device's completion interrupts are not visible in sysfs (virtual, stacked or \
             unknown device)"
                .into(),
        );
    };
    let allowed_set: BTreeSet<usize> = allowed.iter().copied().collect();
    let cpus: Vec<usize> = completions
        .cpus
        .iter()
        .copied()
        .filter(|cpu| allowed_set.contains(cpu))
        .collect();
    if cpus.is_empty() {
        return Pinning::Unpinned(format!(
            "completions land on CPU {}, outside the CPUs this process may use ({})",
            format_cpu_list(&completions.cpus),
            format_cpu_list(allowed)
        ));
    }
    if cpus.len() == allowed_set.len() {
        return Pinning::Unpinned(format!(
            "the completion interrupts reach every CPU this process may use ({})",
            format_cpu_list(allowed)
        ));
    }
    Pinning::Pin { cpus, completions }
}

/// The CPUs the calling thread may run on.
pub fn allowed_cpus() -> Result<Vec<usize>, nix::Error> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0))?;
    Ok((0..nix::sched::CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect())
}

/// Pins the calling thread (not the process) to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> Result<(), nix::Error> {
    let mut set = nix::sched::CpuSet::new();
    for &cpu in cpus {
        set.set(cpu)?;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
}

/// `major:minor` of the block device holding `path`, or of `path` itself when it is one.
fn device_number(path: &Path) -> Option<(u32, u32)> {
    let metadata = fs::metadata(path).ok()?;
    let dev = if metadata.file_type().is_block_device() {
        metadata.rdev()
    } else {
        metadata.dev()
    };
    Some((
        nix::sys::stat::major(dev) as u32,
        nix::sys::stat::minor(dev) as u32,
    ))
}

/// The completion interrupts of every disk under block device `major:minor`, through
/// partitions and `slaves/` (device-mapper, md). `None` when no interrupt could be found.
pub fn completion_cpus(sys: &Path, proc: &Path, major: u32, minor: u32) -> Option<CompletionCpus> {
    let top = fs::canonicalize(sys.join(format!("dev/block/{major}:{minor}"))).ok()?;
    let devices_root = fs::canonicalize(sys.join("devices")).ok()?;
    let mut disks = BTreeSet::new();
    collect_disks(&top, 0, &mut disks);
    let mut irqs = BTreeSet::new();
    let mut names = Vec::new();
    for disk in &disks {
        let Some(name) = disk.file_name() else {
            continue;
        };
        let Some(device) = fs::canonicalize(disk.join("device")).ok() else {
            continue;
        };
        let found = interrupts_above(&device, &devices_root);
        if !found.is_empty() {
            names.push(name.to_string_lossy().into_owned());
            irqs.extend(
                found
                    .into_iter()
                    .filter(|&irq| completes_io(&irq_name(sys, irq))),
            );
        }
    }
    let mut cpus = BTreeSet::new();
    for &irq in &irqs {
        let dir = proc.join(format!("irq/{irq}"));
        let list = read_attribute(&dir.join("effective_affinity_list"))
            .filter(|text| !text.is_empty())
            .or_else(|| read_attribute(&dir.join("smp_affinity_list")));
        if let Some(list) = list.as_deref().and_then(parse_cpu_list) {
            cpus.extend(list);
        }
    }
    if cpus.is_empty() {
        return None;
    }
    Some(CompletionCpus {
        disks: names,
        irqs: irqs.into_iter().collect(),
        cpus: cpus.into_iter().collect(),
    })
}

/// The whole disks under a block device's sysfs directory: a partition's parent; the
/// `slaves/` of a device-mapper or md device, recursively; else the device itself.
fn collect_disks(block: &Path, depth: u32, disks: &mut BTreeSet<PathBuf>) {
    if depth > MAX_STACK_DEPTH {
        return;
    }
    if block.join("partition").is_file() {
        if let Some(parent) = block.parent() {
            collect_disks(parent, depth + 1, disks);
        }
        return;
    }
    let slaves: Vec<PathBuf> = fs::read_dir(block.join("slaves"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| fs::canonicalize(entry.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    if slaves.is_empty() {
        disks.insert(block.to_path_buf());
    } else {
        for slave in slaves {
            collect_disks(&slave, depth + 1, disks);
        }
    }
}

/// The interrupts of the nearest bus device at or above `device` (the PCI function of an NVMe,
/// virtio or AHCI controller): its MSI/MSI-X vectors, else its legacy `irq`.
fn interrupts_above(device: &Path, devices_root: &Path) -> Vec<u32> {
    let mut current = Some(device);
    while let Some(dir) = current {
        if !dir.starts_with(devices_root) || dir == devices_root {
            break;
        }
        if let Ok(entries) = fs::read_dir(dir.join("msi_irqs")) {
            let mut irqs: Vec<u32> = entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
                .collect();
            if !irqs.is_empty() {
                irqs.sort_unstable();
                return irqs;
            }
        }
        if let Some(irq) = read_attribute(&dir.join("irq")).and_then(|text| text.parse().ok()) {
            if irq != 0 {
                return vec![irq];
            }
        }
        current = dir.parent();
    }
    Vec::new()
}

/// The name of interrupt `irq`'s handler (`virtio1-req.0`, `nvme0q3`), empty when unknown.
fn irq_name(sys: &Path, irq: u32) -> String {
    read_attribute(&sys.join(format!("kernel/irq/{irq}/actions"))).unwrap_or_default()
}

/// Whether an interrupt can signal I/O completions: everything but a virtio device's
/// configuration-change vector, which fires on resizes, never on reads.
fn completes_io(name: &str) -> bool {
    !name.ends_with("-config")
}

/// A trimmed sysfs/procfs attribute; `None` when missing, unreadable or too large.
fn read_attribute(path: &Path) -> Option<String> {
    let metadata = fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_ATTRIBUTE_BYTES {
        return None;
    }
    let bytes = fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).trim().to_string())
}

/// The kernel's CPU list format: `0-3,8,10-11`. `None` when malformed. A bitmap, not a set:
/// a hostile list repeating `0-8191` costs a memset per range, not 8192 insertions.
pub fn parse_cpu_list(text: &str) -> Option<Vec<usize>> {
    let mut present = Vec::new();
    for part in text.trim().split(',').filter(|part| !part.is_empty()) {
        let (first, last): (usize, usize) = match part.split_once('-') {
            Some((first, last)) => (first.trim().parse().ok()?, last.trim().parse().ok()?),
            None => {
                let cpu = part.trim().parse().ok()?;
                (cpu, cpu)
            }
        };
        if first > last || last >= MAX_CPUS {
            return None;
        }
        if present.len() <= last {
            present.resize(last + 1, false);
        }
        present[first..=last].fill(true);
    }
    Some(
        present
            .iter()
            .enumerate()
            .filter_map(|(cpu, &set)| set.then_some(cpu))
            .collect(),
    )
}

/// The inverse of [`parse_cpu_list`]: ranges collapsed, `0-3,8`.
pub fn format_cpu_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut iter = cpus.iter().copied().peekable();
    while let Some(first) = iter.next() {
        let mut last = first;
        while iter.peek() == Some(&(last + 1)) {
            last += 1;
            iter.next();
        }
        parts.push(if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        });
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A kernel-shaped tree: relative symlinks from /sys/dev/block and /sys/block into
    /// /sys/devices, trailing newlines in attributes, /proc/irq affinities.
    struct Tree {
        dir: tempfile::TempDir,
    }

    impl Tree {
        fn new() -> Self {
            let tree = Tree {
                dir: tempfile::tempdir().unwrap(),
            };
            fs::create_dir_all(tree.sys().join("dev/block")).unwrap();
            fs::create_dir_all(tree.sys().join("devices")).unwrap();
            tree
        }
        fn sys(&self) -> PathBuf {
            self.dir.path().join("sys")
        }
        fn proc(&self) -> PathBuf {
            self.dir.path().join("proc")
        }
        fn write(&self, path: &str, text: &str) {
            let path = self.dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        fn link(&self, at: &str, target: &str) {
            let at = self.dir.path().join(at);
            fs::create_dir_all(at.parent().unwrap()).unwrap();
            symlink(target, at).unwrap();
        }
        fn mkdir(&self, path: &str) {
            fs::create_dir_all(self.dir.path().join(path)).unwrap();
        }
        fn irq(&self, irq: u32, name: &str, effective: &str) {
            self.write(
                &format!("sys/kernel/irq/{irq}/actions"),
                &format!("{name}\n"),
            );
            self.write(
                &format!("proc/irq/{irq}/effective_affinity_list"),
                &format!("{effective}\n"),
            );
            self.write(&format!("proc/irq/{irq}/smp_affinity_list"), "0-1\n");
        }
        /// This project's test VM: vda on virtio1 on PCI 0000:00:02.0, one request queue.
        fn virtio_vm() -> Self {
            let tree = Tree::new();
            let pci = "sys/devices/pci0000:00/0000:00:02.0";
            tree.mkdir(&format!("{pci}/virtio1/block/vda/vda1"));
            tree.write(&format!("{pci}/virtio1/block/vda/vda1/partition"), "1\n");
            tree.link(
                &format!("{pci}/virtio1/block/vda/device"),
                "../../../virtio1",
            );
            tree.write(&format!("{pci}/msi_irqs/35"), "msix\n");
            tree.write(&format!("{pci}/msi_irqs/36"), "msix\n");
            tree.write(&format!("{pci}/irq"), "11\n");
            tree.irq(35, "virtio1-config", "0");
            tree.irq(36, "virtio1-req.0", "1");
            tree.link(
                "sys/dev/block/254:0",
                "../../devices/pci0000:00/0000:00:02.0/virtio1/block/vda",
            );
            tree.link(
                "sys/dev/block/254:1",
                "../../devices/pci0000:00/0000:00:02.0/virtio1/block/vda/vda1",
            );
            tree
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_without_panicking_and_round_trips(text in "\\PC{0,64}") {
            if let Some(cpus) = parse_cpu_list(&text) {
                proptest::prop_assert!(cpus.windows(2).all(|pair| pair[0] < pair[1]));
                proptest::prop_assert_eq!(parse_cpu_list(&format_cpu_list(&cpus)), Some(cpus));
            }
        }

        #[test]
        fn every_cpu_set_formats_and_parses_back(
            cpus in proptest::collection::btree_set(0usize..300, 0..40)
        ) {
            let cpus: Vec<usize> = cpus.into_iter().collect();
            proptest::prop_assert_eq!(parse_cpu_list(&format_cpu_list(&cpus)), Some(cpus));
        }
    }

    #[test]
    fn a_hostile_list_of_huge_ranges_is_cheap() {
        let text = "0-8191,".repeat(10_000);
        assert_eq!(parse_cpu_list(&text).map(|cpus| cpus.len()), Some(8192));
    }

    #[test]
    fn cpu_lists_parse_and_format_like_the_kernel() {
        assert_eq!(
            parse_cpu_list("0-3,8,10-11\n"),
            Some(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(parse_cpu_list("1"), Some(vec![1]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("0-99999999999"), None);
        assert_eq!(parse_cpu_list("a-b"), None);
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(format_cpu_list(&[1]), "1");
    }

    #[test]
    fn a_partition_on_single_queue_virtio_completes_on_the_request_queue_cpu() {
        let tree = Tree::virtio_vm();
        let found = completion_cpus(&tree.sys(), &tree.proc(), 254, 1).unwrap();
        // The config vector (CPU 0) fires on resizes only and is left out.
        assert_eq!(
            found,
            CompletionCpus {
                disks: vec!["vda".into()],
                irqs: vec![36],
                cpus: vec![1],
            }
        );
        let pinning = decide(Some(found), &[0, 1]);
        assert_eq!(pinning.cpus(), Some(&[1][..]));
        assert!(
            pinning.describe("qd1").contains("CPU 1") && pinning.describe("qd1").contains("IRQ 36"),
            "{}",
            pinning.describe("qd1")
        );
    }

    #[test]
    fn nvme_with_a_queue_per_cpu_is_not_pinned() {
        let tree = Tree::new();
        let pci = "sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0";
        tree.mkdir(&format!("{pci}/nvme/nvme0/nvme0n1"));
        tree.link(&format!("{pci}/nvme/nvme0/nvme0n1/device"), "../../nvme0");
        for (irq, name, cpu) in [
            (40, "nvme0q0", "0"),
            (41, "nvme0q1", "0"),
            (42, "nvme0q2", "1"),
        ] {
            tree.write(&format!("{pci}/msi_irqs/{irq}"), "msix\n");
            tree.irq(irq, name, cpu);
        }
        tree.link(
            "sys/dev/block/259:0",
            "../../devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1",
        );
        let found = completion_cpus(&tree.sys(), &tree.proc(), 259, 0).unwrap();
        assert_eq!(found.cpus, vec![0, 1]);
        assert!(matches!(decide(Some(found), &[0, 1]), Pinning::Unpinned(_)));
    }

    #[test]
    fn dm_crypt_over_two_ahci_disks_follows_the_slaves() {
        let tree = Tree::new();
        let ahci = "sys/devices/pci0000:00/0000:00:17.0";
        for (disk, port) in [
            ("sda", "ata1/host0/target0:0:0/0:0:0:0"),
            ("sdb", "ata2/host1/target1:0:0/1:0:0:0"),
        ] {
            let lun = port.rsplit('/').next().unwrap();
            tree.mkdir(&format!("{ahci}/{port}/block/{disk}"));
            tree.link(
                &format!("{ahci}/{port}/block/{disk}/device"),
                &format!("../../../{lun}"),
            );
            tree.link(
                &format!("sys/devices/virtual/block/dm-0/slaves/{disk}"),
                &format!("../../../../pci0000:00/0000:00:17.0/{port}/block/{disk}"),
            );
        }
        tree.write(&format!("{ahci}/msi_irqs/45"), "msi\n");
        tree.irq(45, "ahci[0000:00:17.0]", "3");
        tree.link("sys/dev/block/253:0", "../../devices/virtual/block/dm-0");
        let found = completion_cpus(&tree.sys(), &tree.proc(), 253, 0).unwrap();
        assert_eq!(found.disks, vec!["sda".to_string(), "sdb".to_string()]);
        assert_eq!(found.irqs, vec![45]);
        assert_eq!(found.cpus, vec![3]);
        assert_eq!(
            decide(Some(found.clone()), &[0, 1, 2, 3]).cpus(),
            Some(&[3][..])
        );
        // A container limited to CPUs 0-1 cannot follow the interrupt.
        let outside = decide(Some(found), &[0, 1]);
        assert!(
            outside.describe("qd1").contains("outside"),
            "{}",
            outside.describe("qd1")
        );
    }

    #[test]
    fn missing_or_hostile_trees_mean_no_pinning() {
        let tree = Tree::new();
        assert_eq!(completion_cpus(&tree.sys(), &tree.proc(), 8, 0), None);
        // A device with no interrupts anywhere above it (zram, loop).
        tree.mkdir("sys/devices/virtual/block/zram0");
        tree.link("sys/dev/block/251:0", "../../devices/virtual/block/zram0");
        assert_eq!(completion_cpus(&tree.sys(), &tree.proc(), 251, 0), None);
        // A slaves loop.
        tree.mkdir("sys/devices/virtual/block/dm-1/slaves");
        tree.link("sys/devices/virtual/block/dm-1/slaves/dm-1", "../../dm-1");
        tree.link("sys/dev/block/253:1", "../../devices/virtual/block/dm-1");
        assert_eq!(completion_cpus(&tree.sys(), &tree.proc(), 253, 1), None);
        // A symlink loop where the device should be.
        tree.link("sys/dev/block/7:0", "7:0");
        assert_eq!(completion_cpus(&tree.sys(), &tree.proc(), 7, 0), None);
        // Garbage affinity: the interrupt is found but no CPU is known.
        let vm = Tree::virtio_vm();
        vm.write("proc/irq/36/effective_affinity_list", "\u{fffd}zz\n");
        vm.write("proc/irq/36/smp_affinity_list", "not a list\n");
        assert_eq!(completion_cpus(&vm.sys(), &vm.proc(), 254, 0), None);
        assert!(matches!(decide(None, &[0, 1]), Pinning::Unpinned(_)));
    }

    #[test]
    fn an_empty_effective_affinity_falls_back_to_the_configured_one() {
        let tree = Tree::virtio_vm();
        tree.write("proc/irq/36/effective_affinity_list", "\n");
        let found = completion_cpus(&tree.sys(), &tree.proc(), 254, 0).unwrap();
        assert_eq!(found.cpus, vec![0, 1]);
    }

    #[test]
    fn pinning_the_current_thread_takes_effect_and_is_per_thread() {
        let allowed = allowed_cpus().unwrap();
        assert!(!allowed.is_empty());
        let first = allowed[0];
        std::thread::spawn(move || {
            pin_current_thread(&[first]).unwrap();
            assert_eq!(allowed_cpus().unwrap(), vec![first]);
        })
        .join()
        .unwrap();
        assert_eq!(allowed_cpus().unwrap(), allowed);
    }
}
