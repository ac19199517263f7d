//! A small builder of probe facts for verdict tests: one realistic machine per constructor,
//! which each test then bends to the case it checks. Values follow what the probe reads on
//! real machines (sysfs sizes, NVMe Identify thresholds, mountinfo options).

use std::sync::OnceLock;

use bench::{BenchReport, EngineKind, LatencySummary, Qd1Result, RandRwResult};
use probe::{
    AtimeMode, ControllerMode, Drive, Facts, FstabEntry, Health, Interface, IoUringStatus, Layer,
    LayerKind, MountFacts, NvmeDetails, NvmeIdentify, PcieLink, Platform,
};
use verdict::Database;
use verdict::HistoryMode;
use verdict::{judge_choice, ClientChoice, EntrySummary, NodeChoice, Verdict};
use verdict::{Finding, Grade, Severity};

pub const TB: u64 = 1_000_000_000_000;
pub const GB: u64 = 1_000_000_000;

/// The embedded database, parsed once per test binary.
pub fn db() -> &'static Database {
    static DB: OnceLock<Database> = OnceLock::new();
    DB.get_or_init(|| Database::embedded().expect("the embedded database loads"))
}

/// Every probe fixture tree built and probed, with its name. Hostile trees may fail to probe;
/// that is the probe's answer, not the judge's, so they are left out.
pub fn probed_fixtures() -> Vec<(&'static str, Facts)> {
    probe::fixture::SCENARIOS
        .iter()
        .filter_map(|scenario| {
            let dir = tempfile::tempdir().expect("tempdir");
            (scenario.build)(dir.path()).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
            let root =
                probe::Root::at(dir.path()).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
            probe::probe_path(
                &root,
                std::path::Path::new(scenario.probe_path),
                &probe::ProbeOptions::default(),
            )
            .ok()
            .map(|facts| (scenario.name, facts))
        })
        .collect()
}

/// A Samsung 970 EVO Plus 2TB in a CPU-attached M.2 slot, ext4 on a partition, noatime,
/// fstrim.timer on, healthy, cool, probed as root.
pub fn nvme_machine() -> Facts {
    let drive = Drive {
        name: "nvme0n1".into(),
        model: Some("Samsung SSD 970 EVO Plus 2TB".into()),
        firmware: Some("2B2QEXM7".into()),
        serial: Some("S4J4NX0R000000X".into()),
        capacity_bytes: Some(2_000_398_934_016),
        interface: Some(Interface::Nvme),
        rotational: Some(false),
        logical_block_size: Some(512),
        physical_block_size: Some(512),
        scheduler: Some("none".into()),
        write_cache: Some("write back".into()),
        temperature_c: Some(38.0),
        temperature_source: Some("hwmon".into()),
        trim_supported: Some(true),
        hmb: Some(false),
        pcie_link: Some(PcieLink {
            current_gts: Some(8.0),
            current_width: Some(4),
            max_gts: Some(8.0),
            max_width: Some(4),
        }),
        nvme: Some(NvmeDetails {
            controller: "nvme0".into(),
            transport: Some("pcie".into()),
            state: Some("live".into()),
            pci_address: Some("0000:01:00.0".into()),
            pci_vendor_id: Some("0x144d".into()),
            pci_device_id: Some("0xa808".into()),
            identify: Some(NvmeIdentify {
                vendor_id: 0x144d,
                serial: "S4J4NX0R000000X".into(),
                model: "Samsung SSD 970 EVO Plus 2TB".into(),
                firmware: "2B2QEXM7".into(),
                wctemp_k: 358,
                cctemp_k: 358,
                hmpre_4k: 0,
                hmmin_4k: 0,
                total_capacity_bytes: 2_000_398_934_016,
                dataset_management: true,
                write_zeroes: true,
                volatile_write_cache: true,
                power: None,
            }),
        }),
        health: Some(Health {
            source: "nvme-smart-log".into(),
            passed: None,
            critical_warning: Some(0),
            available_spare_pct: Some(100),
            available_spare_threshold_pct: Some(10),
            percentage_used: Some(3),
            media_errors: Some(0),
            data_units_written: Some(58_593_750),
            bytes_written: Some(30_000_000_000_000),
            power_on_hours: Some(8_760),
            unsafe_shutdowns: Some(12),
            warning_temp_minutes: Some(0),
            critical_temp_minutes: Some(0),
            thermal_throttle_t1_transitions: Some(0),
            thermal_throttle_t2_transitions: Some(0),
            ..Health::default()
        }),
        ..Drive::default()
    };
    Facts {
        schema_version: probe::SCHEMA_VERSION,
        probe_version: "0.1.0".into(),
        root: "/".into(),
        live: true,
        privileged: true,
        path: "/var/lib/ethereum".into(),
        mount: Some(MountFacts {
            mount_point: "/var/lib/ethereum".into(),
            fs_type: "ext4".into(),
            source: "/dev/nvme0n1p2".into(),
            dev: "259:2".into(),
            atime: AtimeMode::Noatime,
            lazytime: false,
            discard: false,
            read_only: false,
            mount_options: vec!["rw".into(), "noatime".into()],
            super_options: vec!["rw".into(), "errors=remount-ro".into()],
            free_bytes: Some(1_500 * GB),
            total_bytes: Some(1_967 * GB),
            fstab: FstabEntry::Unreadable,
            network: None,
        }),
        stack: vec!["nvme0n1p2".into(), "nvme0n1".into()],
        layers: partition_on_disk("nvme0n1p2", "nvme0n1", 0, 2_199_023_255_040),
        trim_effective: Some(true),
        drives: vec![drive],
        platform: Platform {
            sys_vendor: Some("ASUS".into()),
            product_name: Some("System Product Name".into()),
            board_vendor: Some("ASUSTeK COMPUTER INC.".into()),
            board_name: Some("PRIME B550-PLUS".into()),
            bios_vendor: Some("American Megatrends Inc.".into()),
            bios_version: None,
            cloud: None,
            virtualized: Some(false),
            board_model: None,
        },
        io_uring: IoUringStatus {
            available: Some(true),
            sysctl_disabled: Some(0),
            reason: None,
        },
        fstrim_timer: Some(true),
        ..Facts::default()
    }
}

/// A SATA SSD on an AHCI controller, otherwise like [`nvme_machine`].
pub fn sata_machine(model: &str, capacity: u64) -> Facts {
    let mut facts = nvme_machine();
    let drive = Drive {
        name: "sda".into(),
        model: Some(model.into()),
        firmware: Some("SBFK71F3".into()),
        capacity_bytes: Some(capacity),
        interface: Some(Interface::Sata),
        rotational: Some(false),
        rotation_rate_rpm: Some(0),
        temperature_c: Some(33.0),
        temperature_source: Some("drivetemp".into()),
        trim_supported: Some(true),
        controller_mode: Some(ControllerMode::Ahci),
        controller_driver: Some("ahci".into()),
        controller_pci_class: Some("0x010601".into()),
        sata_link_gbps: Some(6.0),
        sata_link_max_gbps: Some(6.0),
        ..Drive::default()
    };
    facts.drives = vec![drive];
    facts.stack = vec!["sda1".into(), "sda".into()];
    facts.layers = partition_on_disk("sda1", "sda", 0, 2_147_450_880);
    if let Some(m) = facts.mount.as_mut() {
        m.source = "/dev/sda1".into();
        m.total_bytes = Some(capacity - capacity / 50);
        m.free_bytes = Some(capacity / 2);
    }
    facts
}

/// Puts `facts`' data on a LUKS mapping of the NVMe drive's third partition, opened without
/// `--allow-discards`: TRIM stops at the crypt layer.
pub fn luks_without_discards(facts: &mut Facts, mapping: &str) {
    facts.stack = vec!["dm-0".into(), "nvme0n1p3".into(), "nvme0n1".into()];
    facts.layers = crypt_without_discards(mapping, 0, "nvme0n1p3");
    facts.trim_effective = Some(false);
}

/// A dm-crypt mapping (`dm-0`) `depth` layers below the mount, opened without
/// `--allow-discards`, on `partition` of the NVMe drive, and the layers under it.
pub fn crypt_without_discards(mapping: &str, depth: u32, partition: &str) -> Vec<Layer> {
    let crypt = layer(
        "dm-0",
        LayerKind::Crypt,
        Some(mapping),
        depth,
        &[partition],
        0,
    );
    let mut layers = vec![crypt];
    layers.extend(partition_on_disk(
        partition,
        "nvme0n1",
        depth + 1,
        2_199_023_255_040,
    ));
    layers
}

/// A partition `depth` layers below the mount and the whole disk under it, both passing
/// discards of up to `discard_max_bytes`. The partition's number is the digits its name ends
/// in (`nvme0n1p2` is 2, `sda1` is 1).
pub fn partition_on_disk(
    partition: &str,
    disk: &str,
    depth: u32,
    discard_max_bytes: u64,
) -> Vec<Layer> {
    let number = &partition[partition
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .len()..];
    vec![
        layer(
            partition,
            LayerKind::Partition,
            Some(number),
            depth,
            &[disk],
            discard_max_bytes,
        ),
        layer(
            disk,
            LayerKind::Disk,
            None,
            depth + 1,
            &[],
            discard_max_bytes,
        ),
    ]
}

pub fn layer(
    name: &str,
    kind: LayerKind,
    detail: Option<&str>,
    depth: u32,
    lower: &[&str],
    discard_max_bytes: u64,
) -> Layer {
    Layer {
        name: name.into(),
        kind,
        detail: detail.map(Into::into),
        depth,
        lower: lower.iter().map(|s| (*s).into()).collect(),
        discard_max_bytes: Some(discard_max_bytes),
        dm_table: Vec::new(),
    }
}

pub fn latency(p50: f64, p99: f64, max: f64) -> LatencySummary {
    LatencySummary {
        mean: p50 * 1.1,
        p50,
        p90: (p50 + p99) / 2.0,
        p99,
        p999: (p99 + max) / 2.0,
        max,
    }
}

/// A bench report with a QD1 result (and, when `randrw` is given, the community test).
pub fn bench_report(
    qd1: LatencySummary,
    randrw: Option<(f64, f64)>,
    engine: EngineKind,
) -> BenchReport {
    BenchReport {
        schema_version: bench::SCHEMA_VERSION,
        path: "/var/lib/ethereum".into(),
        engine,
        engine_reason: (engine == EngineKind::Psync)
            .then(|| "io_uring_setup: EPERM, blocked by seccomp (Docker >= 25?)".into()),
        qd1: Some(Qd1Result {
            iops: 1e6 / qd1.mean,
            lat_us: qd1,
            ios: 100_000,
            runtime_s: 10.0,
            span_bytes: 4 << 30,
            target: "file".into(),
            engine,
            placement: Default::default(),
            read_span: None,
            reads_timed_through_submit: 0,
        }),
        randrw: randrw.map(|(read_iops, write_iops)| RandRwResult {
            read_iops,
            write_iops,
            read_bw_bytes_per_s: read_iops * 4096.0,
            write_bw_bytes_per_s: write_iops * 4096.0,
            read_lat_us: latency(400.0, 2_000.0, 9_000.0),
            write_lat_us: latency(300.0, 1_500.0, 8_000.0),
            read_ios: (read_iops * 60.0) as u64,
            write_ios: (write_iops * 60.0) as u64,
            span_bytes: 150 << 30,
            runtime_s: 60.0,
            queue_depth: 64,
            block_size: 4096,
            seed: 1,
            engine,
            fio_comparable: true,
            placement: Default::default(),
        }),
        sync: None,
        cliff: None,
        span: None,
        warnings: Vec::new(),
        clients_running: Vec::new(),
        conditions: None,
    }
}

/// The node most tests judge: `client` with post-merge history expiry, the case the
/// community list sizes a 2 TB drive for (the fixtures' drives are 2 TB). The size projection
/// of every mode has its own tests (`findings/sizing.rs`).
fn node(client: ClientChoice) -> NodeChoice {
    NodeChoice {
        history: Some(HistoryMode::PostMerge),
        ..NodeChoice::new(client, None)
    }
}

pub fn run(facts: &Facts) -> Verdict {
    judge_choice(facts, None, db(), &node(ClientChoice::Strictest))
}

/// `facts` and a benchmark report, judged for the strictest client.
pub fn run_bench(facts: &Facts, report: &BenchReport) -> Verdict {
    judge_choice(facts, Some(report), db(), &node(ClientChoice::Strictest))
}

/// `facts` and a benchmark report, judged for one named client.
pub fn run_bench_for(facts: &Facts, report: &BenchReport, client: &str) -> Verdict {
    judge_choice(
        facts,
        Some(report),
        db(),
        &node(ClientChoice::Named(client.into())),
    )
}

pub fn run_for(facts: &Facts, client: &str) -> Verdict {
    judge_choice(facts, None, db(), &node(ClientChoice::Named(client.into())))
}

/// The database entry of the verdict's first drive.
pub fn entry0(v: &Verdict) -> Option<&EntrySummary> {
    v.drives[0].entry.as_ref()
}

pub fn codes(v: &Verdict) -> Vec<&str> {
    v.findings.iter().map(|f| f.code.as_str()).collect()
}

/// The codes of the findings at one severity, in the verdict's order.
pub fn codes_at(v: &Verdict, severity: Severity) -> Vec<&str> {
    v.findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| f.code.as_str())
        .collect()
}

/// The findings with a code, failing with the verdict's codes when there is none.
pub fn all<'a>(v: &'a Verdict, code: &str) -> Vec<&'a Finding> {
    let found: Vec<&Finding> = v.findings.iter().filter(|f| f.code == code).collect();
    assert!(!found.is_empty(), "no {code} in {:?}", codes(v));
    found
}

/// The one finding with a code.
pub fn one<'a>(v: &'a Verdict, code: &str) -> &'a Finding {
    one_in_case(code, v, code)
}

/// [`one`] for one case of a table: the failure names the case.
pub fn one_in_case<'a>(case: &str, v: &'a Verdict, code: &str) -> &'a Finding {
    let found: Vec<&Finding> = v.findings.iter().filter(|f| f.code == code).collect();
    assert_eq!(found.len(), 1, "{case}: {code} not once in {:?}", codes(v));
    found[0]
}

/// The fix of the one finding with a code, empty when it has none.
pub fn fix_of(v: &Verdict, code: &str) -> String {
    one(v, code).fix.clone().unwrap_or_default()
}

pub fn has(v: &Verdict, code: &str) -> bool {
    v.findings.iter().any(|f| f.code == code)
}

pub fn assert_finding(v: &Verdict, code: &str, severity: Severity, needles: &[&str]) {
    assert_case(code, v, code, severity, needles);
}

/// Judges `facts` for `client` and checks [`assert_finding`]; the verdict, for what a test
/// checks beyond the finding.
pub fn assert_judged(
    facts: &Facts,
    client: &str,
    code: &str,
    severity: Severity,
    needles: &[&str],
) -> Verdict {
    let v = run_for(facts, client);
    assert_finding(&v, code, severity, needles);
    v
}

/// [`assert_finding`] for one case of a table: every failure names the case.
pub fn assert_case(case: &str, v: &Verdict, code: &str, severity: Severity, needles: &[&str]) {
    let f = one_in_case(case, v, code);
    assert_eq!(f.severity, severity, "{case}: {f:#?}");
    let text = format!(
        "{} {} {}",
        f.title,
        f.detail,
        f.fix.as_deref().unwrap_or("")
    );
    for needle in needles {
        assert!(text.contains(needle), "{case}: {needle:?} not in {text:?}");
    }
}

/// One row of a table-driven finding test: a machine bent to the case and the finding its
/// verdict must hold.
pub struct FindingCase {
    pub name: &'static str,
    pub facts: Facts,
    pub code: &'static str,
    pub severity: Severity,
    pub needles: &'static [&'static str],
}

impl FindingCase {
    /// Judges the case's machine for `client` and checks its finding; returns the verdict for
    /// what a case checks beyond it.
    pub fn check(&self, client: &str) -> Verdict {
        let v = run_for(&self.facts, client);
        assert_case(self.name, &v, self.code, self.severity, self.needles);
        v
    }

    /// Checks every case of a table for `client`.
    pub fn check_all(cases: &[FindingCase], client: &str) {
        for case in cases {
            case.check(client);
        }
    }

    /// Checks every case of a table for `client`; a case whose finding is at `severity` must
    /// also grade the whole machine `grade`.
    pub fn check_all_grading(
        cases: &[FindingCase],
        client: &str,
        severity: Severity,
        grade: Grade,
    ) {
        for case in cases {
            let v = case.check(client);
            if case.severity == severity {
                assert_eq!(v.grade, grade, "{}", case.name);
            }
        }
    }
}
