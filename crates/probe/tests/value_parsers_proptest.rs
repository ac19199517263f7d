//! Property tests of the probe's text parsers: mountinfo and sysfs values never panic, and
//! well-formed input round-trips.

use std::path::Path;

use ::probe::mounts::{find_mount, normalize, parse_mountinfo, parse_mountinfo_line, unescape};
use ::probe::sysfs;
use proptest::prelude::*;

/// The kernel's escaping (fs/proc_namespace.c `mangle`): space, tab, newline, backslash.
fn escape(field: &str) -> String {
    let mut out = String::new();
    for c in field.chars() {
        match c {
            ' ' => out.push_str("\\040"),
            '\t' => out.push_str("\\011"),
            '\n' => out.push_str("\\012"),
            '\\' => out.push_str("\\134"),
            other => out.push(other),
        }
    }
    out
}

proptest! {
    #[test]
    fn vpd_block_characteristics_never_panic(page in proptest::collection::vec(any::<u8>(), 0..80)) {
        if let Ok(Some(rpm)) = ::probe::vpd::parse_block_characteristics(&page) {
            prop_assert!(rpm == 0 || (0x0401..=0xFFFE).contains(&rpm));
        }
    }

    #[test]
    fn vpd_rotation_rates_round_trip(word in any::<u16>()) {
        let page = ::probe::vpd::encode_block_characteristics(word, true);
        let rate = ::probe::vpd::parse_block_characteristics(&page).expect("well-formed");
        let expected = match word {
            1 => Some(0),
            0x0401..=0xFFFE => Some(u32::from(word)),
            _ => None,
        };
        prop_assert_eq!(rate, expected);
    }

    #[test]
    fn network_share_sources_never_panic(
        fs_type in prop_oneof![Just("nfs4"), Just("cifs"), Just("ceph"), Just("fuse.glusterfs"), Just("9p"), Just("virtiofs")],
        source in "\\PC*",
        options in proptest::collection::vec("\\PC*", 0..4),
    ) {
        let share = ::probe::network::share_of(fs_type, &source, &options);
        prop_assert!(share.is_some());
    }

    #[test]
    fn mountinfo_never_panics(text in "\\PC*") {
        let _ = parse_mountinfo(&text);
    }

    #[test]
    fn mountinfo_lines_of_fields_never_panic(fields in prop::collection::vec("[ -~]{0,12}", 0..16)) {
        let _ = parse_mountinfo_line(&fields.join(" "));
    }

    #[test]
    fn escaped_mount_points_round_trip(
        name in "[a-z \t\n\\\\]{1,20}",
        id in 1u32..10_000,
        major in 0u32..512,
        minor in 0u32..1_000_000,
    ) {
        let mount_point = format!("/mnt/{name}");
        let line = format!(
            "{id} 1 {major}:{minor} / {} rw,noatime shared:1 - ext4 /dev/sda1 rw",
            escape(&mount_point)
        );
        let entry = parse_mountinfo_line(&line).expect("well formed");
        prop_assert_eq!(&entry.mount_point, &mount_point);
        prop_assert_eq!(entry.dev(), format!("{major}:{minor}"));
        let entries = vec![entry];
        let inside = format!("{mount_point}/geth");
        prop_assert!(find_mount(&entries, Path::new(&inside)).is_some());
    }

    #[test]
    fn unescape_never_panics(text in "\\PC*") {
        let _ = unescape(&text);
    }

    #[test]
    fn normalize_never_goes_above_root(parts in prop::collection::vec("(\\.\\.|\\.|[a-z]{1,3})", 0..12)) {
        let path = format!("/{}", parts.join("/"));
        let normalized = normalize(Path::new(&path));
        prop_assert!(normalized.is_absolute());
        prop_assert!(!normalized.components().any(|c| c.as_os_str() == ".."));
    }

    #[test]
    fn sysfs_parsers_never_panic(text in "\\PC*") {
        let _ = sysfs::parse_link_speed_gts(&text);
        let _ = sysfs::parse_link_width(&text);
        let _ = sysfs::parse_sata_speed_gbps(&text);
        let _ = sysfs::parse_scheduler(&text);
        let _ = sysfs::parse_hex_u32(&text);
        let _ = sysfs::sectors_to_bytes(&text);
        let _ = sysfs::parse_millidegrees(&text);
        let _ = sysfs::parse_dev(&text);
        let _ = sysfs::parse_usb_speed_mbps(&text);
        let _ = sysfs::parse_flag(&text);
    }

    #[test]
    fn link_speeds_round_trip(tenths in 1u32..640, new_format in any::<bool>()) {
        let speed = f64::from(tenths) / 10.0;
        let text = if new_format { format!("{speed:.1} GT/s PCIe") } else { format!("{speed} GT/s") };
        prop_assert_eq!(sysfs::parse_link_speed_gts(&text), Some(speed));
    }

    #[test]
    fn schedulers_pick_the_bracketed_one(
        names in prop::collection::vec("[a-z-]{1,12}", 1..5),
        active in any::<prop::sample::Index>(),
    ) {
        let chosen = active.index(names.len());
        let text: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, name)| if i == chosen { format!("[{name}]") } else { name.clone() })
            .collect();
        prop_assert_eq!(sysfs::parse_scheduler(&text.join(" ")), Some(names[chosen].clone()));
    }

    #[test]
    fn sizes_are_sectors_times_512(sectors in 0u64..(u64::MAX / 512)) {
        prop_assert_eq!(sysfs::sectors_to_bytes(&format!("{sectors}\n")), Some(sectors * 512));
    }
}
