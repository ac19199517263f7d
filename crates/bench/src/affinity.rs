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
//! Which interrupts complete a device's I/O, and on which CPUs, is read by the probe
//! ([`probe::interrupts`]); this module decides what to do with it. Whatever the probe could not
//! find means "do not pin": pinning is an optimisation of the measurement, never a reason to
//! fail it.

use std::collections::BTreeSet;
use std::path::Path;

use probe::interrupts::CompletionCpusUnknown;
pub use probe::interrupts::{format_cpu_list, CompletionCpus};
use serde::{Deserialize, Serialize};

/// Where a test's worker ran: the CPUs taking the device's completion interrupts
/// (crate::affinity), or wherever the scheduler put it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The CPUs the worker was pinned to; empty when it was not pinned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<usize>,
    /// Why it was pinned or not, in words (`qd1 ran on CPU 1, which takes ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinning: Option<String>,
}

impl Placement {
    /// The CPUs as a list (`0-3,8`), or `None` when the worker was not pinned.
    pub fn cpu_list(&self) -> Option<String> {
        (!self.cpus.is_empty()).then(|| format_cpu_list(&self.cpus))
    }
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
    let completions = match probe::interrupts::completion_cpus_of_path(&probe::Root::live(), path) {
        Ok(completions) => Some(completions),
        Err(CompletionCpusUnknown::CannotStat) => {
            return Pinning::Unpinned(format!("cannot stat {}", path.display()))
        }
        Err(CompletionCpusUnknown::NotABlockDevice { major, minor }) => {
            return Pinning::Unpinned(format!(
                "{} is on device {major}:{minor}, which is not a block device (btrfs, ZFS or \
                 overlayfs?)",
                path.display()
            ))
        }
        Err(CompletionCpusUnknown::NoInterrupts) => None,
    };
    decide(completions, &allowed)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn completions(disks: &[&str], irqs: &[u32], cpus: &[usize]) -> CompletionCpus {
        CompletionCpus {
            disks: disks.iter().map(ToString::to_string).collect(),
            irqs: irqs.to_vec(),
            cpus: cpus.to_vec(),
        }
    }

    #[test]
    fn single_queue_virtio_is_pinned_to_the_request_queue_cpu() {
        let pinning = decide(Some(completions(&["vda"], &[36], &[1])), &[0, 1]);
        assert_eq!(pinning.cpus(), Some(&[1][..]));
        assert!(
            pinning.describe("qd1").contains("CPU 1") && pinning.describe("qd1").contains("IRQ 36"),
            "{}",
            pinning.describe("qd1")
        );
    }

    #[test]
    fn nvme_with_a_queue_per_cpu_is_not_pinned() {
        let nvme = completions(&["nvme0n1"], &[40, 41, 42], &[0, 1]);
        assert!(matches!(decide(Some(nvme), &[0, 1]), Pinning::Unpinned(_)));
    }

    #[test]
    fn completions_outside_the_allowed_cpus_are_not_followed() {
        let ahci = completions(&["sda", "sdb"], &[45], &[3]);
        assert_eq!(
            decide(Some(ahci.clone()), &[0, 1, 2, 3]).cpus(),
            Some(&[3][..])
        );
        // A container limited to CPUs 0-1 cannot follow the interrupt.
        let outside = decide(Some(ahci), &[0, 1]);
        assert!(
            outside.describe("qd1").contains("outside"),
            "{}",
            outside.describe("qd1")
        );
    }

    #[test]
    fn unknown_completions_mean_no_pinning() {
        assert!(matches!(decide(None, &[0, 1]), Pinning::Unpinned(_)));
    }

    #[test]
    fn a_path_on_no_block_device_is_not_pinned_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        assert_eq!(
            pinning_for(&missing),
            Pinning::Unpinned(format!("cannot stat {}", missing.display()))
        );
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
