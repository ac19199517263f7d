//! Which CPUs take a drive's completion interrupts: the block stack under a device is walked
//! down to its disks (the same walk as the probe's [`crate::stack`]), each disk's nearest bus
//! device gives its interrupts (MSI/MSI-X vectors, else the legacy line), and `/proc/irq` gives
//! where the kernel delivers them.
//!
//! The bench pins its QD1 and randrw workers to these CPUs on single-queue devices; whatever is
//! missing or unreadable here only means "unknown", never an error.

use std::collections::BTreeSet;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::root::Root;
use crate::{devices, stack};

/// More CPUs than any machine has; a CPU list naming more is malformed.
const MAX_CPUS: usize = 8192;

/// Where a device's completions land.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionCpus {
    /// The physical disks under the device (`vda`, `sda`) that have interrupts, in name order.
    pub disks: Vec<String>,
    /// The interrupts that complete their I/O, in number order.
    pub irqs: Vec<u32>,
    /// The union of those interrupts' effective affinities.
    pub cpus: Vec<usize>,
}

/// Why the completion CPUs of a path are not known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionCpusUnknown {
    /// The path itself could not be examined.
    CannotStat,
    /// The path's file system reports a device number that is no block device: btrfs, ZFS,
    /// overlayfs and tmpfs use anonymous ones.
    NotABlockDevice { major: u32, minor: u32 },
    /// No interrupt with a known affinity was found under the device (virtual, stacked or
    /// unknown device).
    NoInterrupts,
}

/// The completion CPUs of the block device holding `path` (a file or directory on the live
/// machine), or of `path` itself when it is a block device node.
pub fn completion_cpus_of_path(
    root: &Root,
    path: &Path,
) -> Result<CompletionCpus, CompletionCpusUnknown> {
    let (major, minor) = device_number(path).ok_or(CompletionCpusUnknown::CannotStat)?;
    if !root.exists(format!("/sys/dev/block/{major}:{minor}")) {
        return Err(CompletionCpusUnknown::NotABlockDevice { major, minor });
    }
    completion_cpus(root, major, minor).ok_or(CompletionCpusUnknown::NoInterrupts)
}

/// `major:minor` of the block device holding `path`, or of `path` itself when it is one.
fn device_number(path: &Path) -> Option<(u32, u32)> {
    let metadata = std::fs::metadata(path).ok()?;
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
/// partitions and `slaves/` (device-mapper, md). `None` when no interrupt with a known
/// affinity could be found.
pub fn completion_cpus(root: &Root, major: u32, minor: u32) -> Option<CompletionCpus> {
    let top = devices::device_by_number(root, major, minor)?;
    let devices_root = root.canonicalize("/sys/devices").ok()?;
    let mut disks = BTreeSet::new();
    let mut irqs = BTreeSet::new();
    for (name, disk) in stack::resolve(root, &[top]).disks {
        let Ok(device) = root.canonicalize(disk.join("device")) else {
            continue;
        };
        let found = interrupts_above(root, &device, &devices_root);
        if !found.is_empty() {
            disks.insert(name);
            irqs.extend(
                found
                    .into_iter()
                    .filter(|&irq| completes_io(&irq_name(root, irq))),
            );
        }
    }
    let mut cpus = BTreeSet::new();
    for &irq in &irqs {
        let list = root
            .read_attr(format!("/proc/irq/{irq}/effective_affinity_list"))
            .or_else(|| root.read_attr(format!("/proc/irq/{irq}/smp_affinity_list")));
        if let Some(list) = list.as_deref().and_then(parse_cpu_list) {
            cpus.extend(list);
        }
    }
    if cpus.is_empty() {
        return None;
    }
    Some(CompletionCpus {
        disks: disks.into_iter().collect(),
        irqs: irqs.into_iter().collect(),
        cpus: cpus.into_iter().collect(),
    })
}

/// The interrupts of the nearest bus device at or above `device` (the PCI function of an NVMe,
/// virtio or AHCI controller): its MSI/MSI-X vectors, else its legacy `irq`.
fn interrupts_above(root: &Root, device: &Path, devices_root: &Path) -> Vec<u32> {
    let mut current: Option<PathBuf> = Some(device.to_path_buf());
    while let Some(dir) = current {
        if !dir.starts_with(devices_root) || dir == devices_root {
            break;
        }
        let mut irqs: Vec<u32> = root
            .read_dir(dir.join("msi_irqs"))
            .iter()
            .filter_map(|name| name.parse().ok())
            .collect();
        if !irqs.is_empty() {
            irqs.sort_unstable();
            return irqs;
        }
        if let Some(irq) = root
            .read_attr(dir.join("irq"))
            .and_then(|text| text.parse::<u32>().ok())
        {
            if irq != 0 {
                return vec![irq];
            }
        }
        current = dir.parent().map(Path::to_path_buf);
    }
    Vec::new()
}

/// The name of interrupt `irq`'s handler (`virtio1-req.0`, `nvme0q3`), empty when unknown.
fn irq_name(root: &Root, irq: u32) -> String {
    root.read_attr(format!("/sys/kernel/irq/{irq}/actions"))
        .unwrap_or_default()
}

/// Whether an interrupt can signal I/O completions: everything but a virtio device's
/// configuration-change vector, which fires on resizes, never on reads.
fn completes_io(name: &str) -> bool {
    !name.ends_with("-config")
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
    use std::fs;
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
            tree.mkdir("sys/dev/block");
            tree.mkdir("sys/devices");
            tree
        }
        fn root(&self) -> Root {
            Root::at(self.dir.path()).unwrap()
        }
        fn completion_cpus(&self, major: u32, minor: u32) -> Option<CompletionCpus> {
            completion_cpus(&self.root(), major, minor)
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
        // The config vector (CPU 0) fires on resizes only and is left out.
        assert_eq!(
            Tree::virtio_vm().completion_cpus(254, 1),
            Some(CompletionCpus {
                disks: vec!["vda".into()],
                irqs: vec![36],
                cpus: vec![1],
            })
        );
    }

    #[test]
    fn nvme_with_a_queue_per_cpu_completes_on_every_cpu() {
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
        let found = tree.completion_cpus(259, 0).unwrap();
        assert_eq!(found.irqs, vec![40, 41, 42]);
        assert_eq!(found.cpus, vec![0, 1]);
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
        assert_eq!(
            tree.completion_cpus(253, 0),
            Some(CompletionCpus {
                disks: vec!["sda".into(), "sdb".into()],
                irqs: vec![45],
                cpus: vec![3],
            })
        );
    }

    #[test]
    fn missing_or_hostile_trees_give_no_cpus() {
        let tree = Tree::new();
        assert_eq!(tree.completion_cpus(8, 0), None);
        // A device with no interrupts anywhere above it (zram, loop).
        tree.mkdir("sys/devices/virtual/block/zram0");
        tree.link("sys/dev/block/251:0", "../../devices/virtual/block/zram0");
        assert_eq!(tree.completion_cpus(251, 0), None);
        // A slaves loop.
        tree.mkdir("sys/devices/virtual/block/dm-1/slaves");
        tree.link("sys/devices/virtual/block/dm-1/slaves/dm-1", "../../dm-1");
        tree.link("sys/dev/block/253:1", "../../devices/virtual/block/dm-1");
        assert_eq!(tree.completion_cpus(253, 1), None);
        // A symlink loop where the device should be.
        tree.link("sys/dev/block/7:0", "7:0");
        assert_eq!(tree.completion_cpus(7, 0), None);
        // Garbage affinity: the interrupt is found but no CPU is known.
        let vm = Tree::virtio_vm();
        vm.write("proc/irq/36/effective_affinity_list", "\u{fffd}zz\n");
        vm.write("proc/irq/36/smp_affinity_list", "not a list\n");
        assert_eq!(vm.completion_cpus(254, 0), None);
    }

    #[test]
    fn an_empty_effective_affinity_falls_back_to_the_configured_one() {
        let tree = Tree::virtio_vm();
        tree.write("proc/irq/36/effective_affinity_list", "\n");
        assert_eq!(tree.completion_cpus(254, 0).unwrap().cpus, vec![0, 1]);
    }

    #[test]
    fn the_reads_are_recorded_for_a_snapshot() {
        let tree = Tree::virtio_vm();
        let root = tree.root().recording();
        assert!(completion_cpus(&root, 254, 1).is_some());
        let accessed: Vec<PathBuf> = root.accessed().into_iter().map(|a| a.path).collect();
        for path in [
            "/sys/dev/block/254:1",
            "/sys/kernel/irq/36/actions",
            "/proc/irq/36/effective_affinity_list",
        ] {
            assert!(
                accessed.contains(&PathBuf::from(path)),
                "{path}: {accessed:?}"
            );
        }
    }

    #[test]
    fn a_path_on_an_unknown_device_or_none_at_all_is_explained() {
        let tree = Tree::new();
        let root = tree.root();
        assert_eq!(
            completion_cpus_of_path(&root, &tree.dir.path().join("missing")),
            Err(CompletionCpusUnknown::CannotStat)
        );
        // The temporary directory's device has no entry in this empty tree.
        assert!(matches!(
            completion_cpus_of_path(&root, tree.dir.path()),
            Err(CompletionCpusUnknown::NotABlockDevice { .. })
        ));
    }
}
