//! Hostile facts never make the judge panic: arbitrary strings, NaN and infinite
//! measurements, absurd counters, layers pointing at nothing, and any combination of
//! missing fields. (The facts may come from a pasted, hand-edited `--json` report.)

mod judge_support;

use bench::EngineKind;
use judge_support::*;
use probe::{AtimeMode, Health, Interface, LayerKind, PcieLink};
use proptest::prelude::*;
use verdict::judge::{judge, ClientChoice};
use verdict::Severity;

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn judge_never_panics(
        model in proptest::option::of(".{0,80}"),
        firmware in proptest::option::of(".{0,20}"),
        capacity in proptest::option::of(any::<u64>()),
        interface in any_interface(),
        rotational in proptest::option::of(any::<bool>()),
        rpm in proptest::option::of(any::<u32>()),
        temperature in proptest::option::of(any_f64()),
        critical_warning in proptest::option::of(any::<u8>()),
        spare in proptest::option::of(any::<u8>()),
        threshold in proptest::option::of(any::<u8>()),
        used in proptest::option::of(any::<u8>()),
        counters in proptest::option::of(any::<u64>()),
        link in proptest::option::of((any_f64(), any::<u32>(), any_f64(), any::<u32>())),
        layers in proptest::collection::vec((".{0,12}", any_kind(), proptest::option::of(".{0,12}"), proptest::collection::vec(".{0,6}", 0..3), proptest::option::of(any::<u64>())), 0..5),
        mount_point in ".{0,40}",
        fs_type in prop_oneof![Just("ext4".to_owned()), Just("zfs".to_owned()), Just("btrfs".to_owned()), ".{0,8}"],
        free in proptest::option::of(any::<u64>()),
        total in proptest::option::of(any::<u64>()),
        p99 in any_f64(),
        iops in proptest::option::of((any_f64(), any_f64())),
        client in prop_oneof![Just(None), Just(Some("geth".to_owned())), ".{0,10}".prop_map(Some)],
    ) {
        let mut facts = nvme_machine();
        {
            let d = &mut facts.drives[0];
            d.model = model;
            d.firmware = firmware;
            d.capacity_bytes = capacity;
            d.interface = interface;
            d.rotational = rotational;
            d.rotation_rate_rpm = rpm;
            d.temperature_c = temperature;
            d.pcie_link = link.map(|(cg, cw, mg, mw)| PcieLink {
                current_gts: Some(cg),
                current_width: Some(cw),
                max_gts: Some(mg),
                max_width: Some(mw),
            });
            d.health = Some(Health {
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
                ..Health::default()
            });
        }
        facts.layers = layers
            .into_iter()
            .map(|(name, kind, detail, lower, discard)| probe::Layer {
                name,
                kind,
                detail,
                depth: 0,
                lower,
                discard_max_bytes: discard,
            })
            .collect();
        facts.trim_effective = None;
        if let Some(m) = facts.mount.as_mut() {
            m.mount_point = mount_point;
            m.fs_type = fs_type;
            m.free_bytes = free;
            m.total_bytes = total;
            m.atime = AtimeMode::Strictatime;
        }
        let mut report = bench_report(latency(p99 / 2.0, p99, p99 * 3.0), iops, EngineKind::Psync);
        if let Some(rw) = report.randrw.as_mut() {
            rw.span_bytes = u64::MAX;
        }
        let choice = client.map_or(ClientChoice::Strictest, ClientChoice::Named);
        let v = judge(&facts, Some(&report), &db(), &choice);
        // Whatever came in, the verdict stays well-formed.
        let severities: Vec<Severity> = v.findings.iter().map(|f| f.severity).collect();
        prop_assert!(severities.windows(2).all(|w| w[0] >= w[1]));
        prop_assert_eq!(v.drives.len(), facts.drives.len());
        prop_assert!(serde_json::to_string(&v).is_ok());
    }
}
