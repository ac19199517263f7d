//! Hostile facts never make the judge panic: arbitrary strings, NaN and infinite
//! measurements, absurd counters, layers pointing at nothing, and any combination of
//! missing fields. (The facts may come from a pasted, hand-edited `--json` report.)

use crate::support::*;
use bench::{BenchReport, EngineKind};
use probe::{AtimeMode, Drive, Facts, Health, Interface, Layer, LayerKind, MountFacts, PcieLink};
use proptest::prelude::*;
use verdict::Severity;
use verdict::{judge, ClientChoice};

fn any_interface() -> impl Strategy<Value = Option<Interface>> {
    prop_oneof![
        Just(None),
        Just(Some(Interface::Nvme)),
        Just(Some(Interface::Sata)),
        Just(Some(Interface::Usb)),
        Just(Some(Interface::Virtio)),
        Just(Some(Interface::Unknown)),
    ]
}

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        -1e12..1e12f64,
    ]
}

fn any_kind() -> impl Strategy<Value = LayerKind> {
    prop_oneof![
        Just(LayerKind::Disk),
        Just(LayerKind::Partition),
        Just(LayerKind::Crypt),
        Just(LayerKind::Lvm),
        Just(LayerKind::Md),
        Just(LayerKind::Loop),
        Just(LayerKind::Other),
    ]
}

prop_compose! {
    fn any_health()(
        critical_warning in proptest::option::of(any::<u8>()),
        spare in proptest::option::of(any::<u8>()),
        threshold in proptest::option::of(any::<u8>()),
        used in proptest::option::of(any::<u8>()),
        counters in proptest::option::of(any::<u64>()),
        status in proptest::collection::vec(".{0,30}", 0..3),
    ) -> Health {
        Health {
            source: "fuzz".into(),
            critical_warning,
            available_spare_pct: spare,
            available_spare_threshold_pct: threshold,
            percentage_used: used,
            media_errors: counters,
            bytes_written: counters,
            reallocated_sectors: counters,
            pending_sectors: counters,
            warning_temp_minutes: counters.map(|c| c as u32),
            smartctl_status: status,
            ..Health::default()
        }
    }
}

prop_compose! {
    fn any_drive()(
        model in proptest::option::of(".{0,80}"),
        firmware in proptest::option::of(".{0,20}"),
        capacity in proptest::option::of(any::<u64>()),
        interface in any_interface(),
        rotational in proptest::option::of(any::<bool>()),
        rpm in proptest::option::of(any::<u32>()),
        temperature in proptest::option::of(any_f64()),
        link in proptest::option::of((any_f64(), any::<u32>(), any_f64(), any::<u32>())),
        health in proptest::option::of(any_health()),
    ) -> Drive {
        Drive {
            model,
            firmware,
            capacity_bytes: capacity,
            interface,
            rotational,
            rotation_rate_rpm: rpm,
            temperature_c: temperature,
            pcie_link: link.map(|(cg, cw, mg, mw)| PcieLink {
                current_gts: Some(cg),
                current_width: Some(cw),
                max_gts: Some(mg),
                max_width: Some(mw),
            }),
            health,
            ..nvme_machine().drives.remove(0)
        }
    }
}

prop_compose! {
    fn any_layer()(
        name in ".{0,12}",
        kind in any_kind(),
        detail in proptest::option::of(".{0,12}"),
        lower in proptest::collection::vec(".{0,6}", 0..3),
        discard in proptest::option::of(any::<u64>()),
    ) -> Layer {
        Layer { name, kind, detail, depth: 0, lower, discard_max_bytes: discard, dm_table: Vec::new() }
    }
}

prop_compose! {
    fn any_mount()(
        mount_point in ".{0,40}",
        source in ".{0,40}",
        fs_type in prop_oneof![Just("ext4".to_owned()), Just("zfs".to_owned()), Just("btrfs".to_owned()), ".{0,8}"],
        options in proptest::collection::vec(".{0,10}", 0..4),
        free in proptest::option::of(any::<u64>()),
        total in proptest::option::of(any::<u64>()),
    ) -> MountFacts {
        MountFacts {
            mount_point,
            source,
            fs_type,
            mount_options: options,
            free_bytes: free,
            total_bytes: total,
            atime: AtimeMode::Strictatime,
            ..nvme_machine().mount.expect("mount")
        }
    }
}

prop_compose! {
    fn any_bench()(
        p99 in any_f64(),
        iops in proptest::option::of((any_f64(), any_f64())),
        warnings in proptest::collection::vec(".{0,20}", 0..2),
    ) -> BenchReport {
        let mut report = bench_report(latency(p99 / 2.0, p99, p99 * 3.0), iops, EngineKind::Psync);
        if let Some(rw) = report.randrw.as_mut() {
            rw.span_bytes = u64::MAX;
        }
        report.warnings = warnings;
        report
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn judge_never_panics(
        drives in proptest::collection::vec(any_drive(), 0..3),
        layers in proptest::collection::vec(any_layer(), 0..5),
        mount in proptest::option::of(any_mount()),
        bench in proptest::option::of(any_bench()),
        client in prop_oneof![Just(None), Just(Some("geth".to_owned())), ".{0,10}".prop_map(Some)],
        path in ".{0,30}",
    ) {
        let facts = Facts {
            drives,
            layers,
            mount,
            path,
            trim_effective: None,
            ..nvme_machine()
        };
        let choice = client.map_or(ClientChoice::Strictest, ClientChoice::Named);
        let v = judge(&facts, bench.as_ref(), db(), &choice);
        // Whatever came in, the verdict stays well-formed.
        let severities: Vec<Severity> = v.findings.iter().map(|f| f.severity).collect();
        prop_assert!(severities.windows(2).all(|w| w[0] >= w[1]));
        prop_assert_eq!(v.drives.len(), facts.drives.len());
        prop_assert!(serde_json::to_string(&v).is_ok());
    }
}
