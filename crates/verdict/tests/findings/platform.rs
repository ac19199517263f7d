//! NC6xx: the platform the node runs on (cloud, virtual disks, io_uring).

use super::*;

/// A QEMU guest whose one disk is a virtio `vda`: no model, no NVMe details, no PCIe link.
fn qemu_guest(product: &str, cloud: &str) -> probe::Facts {
    let mut facts = nvme_machine();
    let d = drive0(&mut facts);
    d.name = "vda".into();
    d.model = None;
    d.interface = Some(Interface::Virtio);
    d.nvme = None;
    d.pcie_link = None;
    facts.platform.sys_vendor = Some("QEMU".into());
    facts.platform.product_name = Some(product.into());
    facts.platform.cloud = Some(cloud.into());
    facts.platform.virtualized = Some(true);
    facts
}

#[test]
fn nc601_vps_platform_from_the_database() {
    let mut facts = qemu_guest("Standard PC (i440FX + PIIX, 1996)", "contabo");
    drive0(&mut facts).health = None;
    let v = run_for(&facts, "geth");
    let f = one(&v, "NC601");
    assert!(f.title.contains("Contabo"), "{f:#?}");
    assert!(f.severity >= Severity::Warning, "{f:#?}");
    assert!(v.grade >= Grade::Ugly);
    assert!(
        !has(&v, "NC602"),
        "a listed platform is judged by its entry"
    );
}

#[test]
fn nc602_virtual_disk_without_and_with_a_benchmark() {
    let facts = qemu_guest("Standard PC (Q35 + ICH9, 2009)", "kvm");
    let v = assert_judged(
        &facts,
        "geth",
        "NC602",
        Severity::Warning,
        &["vda", "10,000 provisioned IOPS"],
    );
    assert!(
        one(&v, "NC602")
            .fix
            .as_deref()
            .unwrap_or("")
            .contains("`nodecheck check --bench full`"),
        "nothing measured: measure it"
    );

    // The quick check measured latency, not the provisioned IOPS.
    let report = bench_report(latency(90.0, 180.0, 250.0), None, EngineKind::IoUring);
    let v = run_bench_for(&facts, &report, "geth");
    let f = one(&v, "NC602");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.fix.as_deref().unwrap_or("").contains("Measure its IOPS"),
        "{f:#?}"
    );

    // After the IOPS test nothing asks to measure again.
    let report = bench_report(
        latency(90.0, 180.0, 250.0),
        Some((20_000.0, 7_000.0)),
        EngineKind::IoUring,
    );
    let v = run_bench_for(&facts, &report, "geth");
    let f = one(&v, "NC602");
    assert_eq!(f.severity, Severity::Info);
    let fix = f.fix.as_deref().unwrap_or("");
    assert!(
        !fix.contains("--bench") && !fix.to_lowercase().contains("measure it"),
        "{fix}"
    );
    assert_eq!(f.title, "Virtual or cloud volume");
}

#[test]
fn nc603_io_uring_blocked_by_seccomp_or_sysctl() {
    let mut facts = nvme_machine();
    facts.io_uring = IoUringStatus {
        available: Some(false),
        sysctl_disabled: Some(0),
        reason: Some("io_uring_setup: EPERM (Docker seccomp?)".into()),
    };
    assert_judged(
        &facts,
        "geth",
        "NC603",
        Severity::Info,
        &["seccomp", "--security-opt seccomp=unconfined"],
    );
    facts.io_uring.sysctl_disabled = Some(2);
    assert_judged(
        &facts,
        "geth",
        "NC603",
        Severity::Info,
        &[
            "kernel.io_uring_disabled = 2",
            "sysctl -w kernel.io_uring_disabled=0",
        ],
    );
}
