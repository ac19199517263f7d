//! `nvme_fresh_data`: a fresh NVMe drive (an image that was never written) with a small data
//! file, then a larger one, and QEMU's own trace of every NVMe command. The trace tells which
//! blocks had been written before each read, so it proves from outside the guest whether
//! `check`'s QD1 reads hit data: on the test file while the data is small, on the data
//! extents once there is enough, never on never-written blocks (at most 5 %). A whole-device
//! `bench --device` run is the control that shows what the trace sees otherwise. A check with
//! a write load running beside it shows the temperature sampled and the SMART counters read.

use std::collections::BTreeMap;

use serde_json::Value;

use super::super::check::{Checks, Outcome};
use super::{Disk, Scenario};

/// Reads of these 4 KiB blocks (near the end of the 10 GiB disk) mark where each measured
/// run starts and ends in the trace; nothing else reads there.
const MARKS: [u64; 8] = [
    2_621_000, 2_621_001, 2_621_002, 2_621_003, 2_621_004, 2_621_005, 2_621_006, 2_621_007,
];
/// The share of a run's QD1 reads allowed to hit never-written blocks: the bar a fresh drive under a real kernel must meet.
const MOST_UNWRITTEN_PERCENT: f64 = 5.0;

macro_rules! mark {
    ($block:literal) => {
        concat!(
            "dd if=/dev/nvme0n1 of=/dev/null bs=4096 count=1 iflag=direct skip=",
            $block
        )
    };
}

pub const NVME_FRESH_DATA: Scenario = Scenario {
    name: "nvme_fresh_data",
    about: "a fresh NVMe drive with a 64 MiB data file, then 1.1 GiB: QEMU's NVMe trace proves check's QD1 reads hit written blocks; a write load beside check shows temperature sampling and the SMART counters",
    disks: &[Disk {
        id: "nvme",
        mib: 10 << 10,
    }],
    shares: &[],
    devices: &["-device", "nvme,drive=nvme,serial=NCQEMUFRESH1"],
    modules: &["nvme", "ext4", "crc32c_generic"],
    tools: &["mke2fs", "smartctl", "sfdisk"],
    // Partitioned, so the data extents are moved by the partition's start.
    setup: r#"
wait_for /dev/nvme0n1
echo ',,L' | sfdisk -q /dev/nvme0n1
wait_for /dev/nvme0n1p1
/usr/bin/mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=1 /dev/nvme0n1p1
mount -t ext4 -o noatime /dev/nvme0n1p1 /var/lib/ethereum
mkdir -p /var/lib/ethereum/chaindata
head -c 67108864 /dev/urandom > /var/lib/ethereum/chaindata/000001.ldb
sync
"#,
    // Zeros for the large file: under TCG /dev/urandom would take minutes for a GiB, and
    // ext4 stores zeros as written blocks like any other bytes.
    runs: &[
        ("mark0", mark!("2621000")),
        ("check_small", "nodecheck check --json /var/lib/ethereum"),
        ("mark1", mark!("2621001")),
        (
            "grow",
            "dd if=/dev/zero of=/var/lib/ethereum/chaindata/000002.ldb bs=1048576 count=1040 conv=fsync 2>/dev/null && sync",
        ),
        ("mark2", mark!("2621002")),
        ("check_data", "nodecheck check --json /var/lib/ethereum"),
        ("mark3", mark!("2621003")),
        (
            "check_load",
            "(dd if=/dev/zero of=/var/lib/ethereum/load bs=1048576 count=400 conv=fsync 2>/dev/null; sync) & nodecheck check --json /var/lib/ethereum; wait",
        ),
        ("mark4", mark!("2621004")),
        (
            "bench_device",
            "nodecheck bench --json --device /dev/nvme0n1 --test qd1 --runtime 3",
        ),
        ("mark5", mark!("2621005")),
    ],
    fixture: None,
    nvme_trace: true,
    openzfs: false,
    expect: expect_nvme_fresh_data,
};

/// `lvm_on_crypt_discards`'s runs: 1.1 GiB of data in the logical volume (zeros, which
/// dm-crypt writes as ciphertext), then a check between two marks.
pub const LVM_ON_CRYPT_DATA_RUNS: &[(&str, &str)] = &[
    (
        "grow",
        "mkdir -p /var/lib/ethereum/chaindata && dd if=/dev/zero of=/var/lib/ethereum/chaindata/000001.ldb bs=1048576 count=1100 conv=fsync 2>/dev/null && sync",
    ),
    ("mark0", mark!("2621000")),
    ("check_data", "nodecheck check --json /var/lib/ethereum"),
    ("mark1", mark!("2621001")),
];

/// LVM on dm-crypt with data: the crypt flags are read from the real kernel's table, and
/// check's QD1 reads, mapped through both dm tables, land on blocks the guest wrote.
pub(super) fn expect_lvm_on_crypt_data(outcome: &Outcome, checks: &mut Checks) {
    super::expect::expect_lvm_on_crypt_passes(outcome, checks);
    let crypt = &outcome.probe["layers"][1]["dm_table"][0];
    checks.eq("crypt table: target", &crypt["target"], "crypt");
    checks.eq(
        "crypt table: flags from the kernel",
        &crypt["options"],
        serde_json::json!(["allow_discards", "no_read_workqueue", "no_write_workqueue"]),
    );
    checks.eq(
        "LVM table: linear onto the crypt device",
        &outcome.probe["layers"][0]["dm_table"][0]["target"],
        "linear",
    );
    checks.passed_check(&outcome.check, "NC507");

    let data = outcome.json("check_data");
    let qd1 = &data["bench"]["qd1"];
    checks.eq(
        "LVM on dm-crypt: read the data extents",
        &qd1["read_span"]["kind"],
        "data_extents",
    );
    checks.eq("LVM on dm-crypt: on the device", &qd1["target"], "device");
    let why = qd1["read_span"]["why"].as_str().unwrap_or("");
    checks.eq(
        "LVM on dm-crypt: mapped through both dm layers to the drive",
        &Value::Bool(
            why.contains("(LVM, linear)")
                && why.contains("(dm-crypt, crypt)")
                && why.ends_with("to nvme0n1"),
        ),
        true,
    );
    let trace = parse_trace(&outcome.nvme_trace);
    share_check(
        checks,
        &trace,
        "check through LVM and dm-crypt with 1.1 GiB of data",
        0,
        MOST_UNWRITTEN_PERCENT,
    );
}

/// One NVMe I/O command from the trace: `pci_nvme_read cid 640 nsid 1 nlb 8 count 4096 lba 0x0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracedIo {
    pub write: bool,
    pub lba: u64,
    pub blocks: u64,
}

pub fn parse_trace(text: &str) -> Vec<TracedIo> {
    text.lines()
        .filter_map(|line| {
            let write = if line.contains("pci_nvme_write ") {
                true
            } else if line.contains("pci_nvme_read ") {
                false
            } else {
                return None;
            };
            let mut words = line.split_whitespace();
            let mut lba = None;
            let mut blocks = None;
            while let Some(word) = words.next() {
                match word {
                    "nlb" => blocks = words.next().and_then(|n| n.parse().ok()),
                    "lba" => {
                        lba = words
                            .next()
                            .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
                    }
                    _ => {}
                }
            }
            Some(TracedIo {
                write,
                lba: lba?,
                blocks: blocks?,
            })
        })
        .collect()
}

/// Logical blocks written so far, as merged ranges.
#[derive(Debug, Default)]
struct Written(BTreeMap<u64, u64>);

impl Written {
    fn add(&mut self, start: u64, end: u64) {
        let (mut start, mut end) = (start, end);
        let touching: Vec<(u64, u64)> = self
            .0
            .range(..=end)
            .rev()
            .take_while(|(_, &e)| e >= start)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in touching {
            self.0.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        self.0.insert(start, end);
    }

    fn holds(&self, start: u64, end: u64) -> bool {
        self.0
            .range(..=start)
            .next_back()
            .is_some_and(|(_, &e)| e >= end)
    }
}

/// For the 4 KiB reads between mark `from` and mark `to`: how many there were and how many
/// hit a block no command had written before them.
pub fn unwritten_reads(trace: &[TracedIo], from: u64, to: u64) -> Option<(u64, u64)> {
    let marker = |block: u64| TracedIo {
        write: false,
        lba: block * 8,
        blocks: 8,
    };
    let start = trace.iter().position(|io| *io == marker(from))?;
    let end = start + trace[start..].iter().position(|io| *io == marker(to))?;
    let mut written = Written::default();
    let (mut reads, mut unwritten) = (0, 0);
    for (index, io) in trace[..end].iter().enumerate() {
        let range = (io.lba, io.lba + io.blocks);
        if io.write {
            written.add(range.0, range.1);
        } else if index > start && io.blocks == 8 {
            reads += 1;
            if !written.holds(range.0, range.1) {
                unwritten += 1;
            }
        }
    }
    Some((reads, unwritten))
}

fn share_check(checks: &mut Checks, trace: &[TracedIo], run: &str, from: u64, most: f64) {
    match unwritten_reads(trace, MARKS[from as usize], MARKS[from as usize + 1]) {
        Some((reads, unwritten)) => {
            let percent = if reads == 0 {
                100.0
            } else {
                unwritten as f64 * 100.0 / reads as f64
            };
            eprintln!(
                "vm: nvme_fresh_data {run}: {unwritten} of {reads} 4 KiB reads ({percent:.2} %) hit never-written blocks"
            );
            checks.number(
                &format!("{run}: 4 KiB reads in the trace"),
                &Value::from(reads),
                1000.0,
                f64::MAX,
            );
            checks.number(
                &format!("{run}: % of {reads} reads on never-written blocks ({unwritten})"),
                &Value::from(percent),
                if most < 50.0 { 0.0 } else { most },
                if most < 50.0 { most } else { 100.0 },
            );
        }
        None => checks.eq(
            &format!("{run}: its marks are in the NVMe trace"),
            &Value::Bool(false),
            true,
        ),
    }
}

fn expect_nvme_fresh_data(outcome: &Outcome, checks: &mut Checks) {
    let trace = parse_trace(&outcome.nvme_trace);
    checks.number(
        "NVMe commands traced",
        &Value::from(trace.len() as u64),
        1.0,
        f64::MAX,
    );

    let small = outcome.json("check_small");
    let qd1 = &small["bench"]["qd1"];
    checks.eq(
        "small data: read the test file",
        &qd1["read_span"]["kind"],
        "test_file",
    );
    checks.eq("small data: target", &qd1["target"], "file");
    checks.prefix(
        "small data: why",
        &qd1["read_span"]["why"],
        "only 64.0 MiB of written file data",
    );
    share_check(
        checks,
        &trace,
        "check with 64 MiB of data",
        0,
        MOST_UNWRITTEN_PERCENT,
    );

    let data = outcome.json("check_data");
    let qd1 = &data["bench"]["qd1"];
    checks.eq(
        "1.1 GiB of data: read the data extents",
        &qd1["read_span"]["kind"],
        "data_extents",
    );
    checks.eq("1.1 GiB of data: on the device", &qd1["target"], "device");
    checks.number(
        "1.1 GiB of data: span",
        &qd1["span_bytes"],
        f64::from(1u32 << 30),
        1.2e9,
    );
    share_check(
        checks,
        &trace,
        "check with 1.1 GiB of data",
        2,
        MOST_UNWRITTEN_PERCENT,
    );

    let load = outcome.json("check_load");
    let conditions = &load["bench"]["conditions"];
    checks.eq(
        "write load: temperature source",
        &conditions["temperature"]["source"],
        "nvme-smart-log",
    );
    checks.number(
        "write load: temperature samples",
        &conditions["temperature"]["samples"],
        2.0,
        1000.0,
    );
    checks.number(
        "write load: peak temperature",
        &conditions["temperature"]["peak_c"],
        1.0,
        100.0,
    );
    for side in ["before", "after"] {
        checks.present(
            &format!("write load: SMART counters {side}"),
            &conditions[side],
            "thermal_t1_transitions",
        );
        checks.present(
            &format!("write load: media errors {side}"),
            &conditions[side],
            "media_errors",
        );
    }
    checks.passed_check(&load, "NC212");

    // The control: whole-device reads of a drive this empty are mostly of nothing.
    share_check(
        checks,
        &trace,
        "bench --device (whole device, the control)",
        4,
        50.0,
    );
    checks.eq(
        "bench --device: says it read the whole device",
        &outcome.json("bench_device")["qd1"]["read_span"]["kind"],
        "whole_device",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_count_as_written_only_after_a_write_covers_them() {
        let trace = parse_trace(
            "pci_nvme_write cid 1 nsid 1 nlb 16 count 8192 lba 0x100\n\
             123@1.5:pci_nvme_read cid 2 nsid 1 nlb 8 count 4096 lba 0x13ff240\n\
             pci_nvme_read cid 3 nsid 1 nlb 8 count 4096 lba 0x100\n\
             pci_nvme_read cid 4 nsid 1 nlb 8 count 4096 lba 0x10c\n\
             pci_nvme_read cid 5 nsid 1 nlb 8 count 4096 lba 0x200\n\
             pci_nvme_write cid 6 nsid 1 nlb 8 count 4096 lba 0x110\n\
             pci_nvme_read cid 7 nsid 1 nlb 8 count 4096 lba 0x10c\n\
             pci_nvme_read cid 8 nsid 1 nlb 8 count 4096 lba 0x13ff248\n\
             unrelated line\n",
        );
        assert_eq!(trace.len(), 8);
        assert_eq!(
            trace[0],
            TracedIo {
                write: true,
                lba: 0x100,
                blocks: 16
            }
        );
        // 0x100 written; 0x10c..0x114 half written, then whole; 0x200 never.
        assert_eq!(unwritten_reads(&trace, 2_621_000, 2_621_001), Some((4, 2)));
        assert_eq!(unwritten_reads(&trace, 2_621_001, 2_621_002), None);
    }
}
