//! Unit tests of every module, one `mod` per module.

mod size {
    use crate::size::*;
    use proptest::prelude::*;

    fn vendor(text: &str) -> Result<u64, SizeError> {
        parse(text, Convention::Vendor)
    }

    fn fio(text: &str) -> Result<u64, SizeError> {
        parse(text, Convention::Fio)
    }

    #[test]
    fn vendor_sizes_are_decimal_unless_binary_is_spelled_out() {
        for (text, bytes) in [
            ("2TB", 2_000_000_000_000),
            ("1.5TiB", 1_649_267_441_664),
            ("500G", 500_000_000_000),
            ("250 gb", 250_000_000_000),
            ("4096", 4096),
            ("960GB", 960_000_000_000),
        ] {
            assert_eq!(vendor(text), Ok(bytes), "{text}");
        }
    }

    #[test]
    fn fio_sizes_are_binary_whatever_the_spelling() {
        for (text, bytes) in [
            ("256M", 256 << 20),
            ("150G", 150 << 30),
            ("150GB", 150 << 30),
            ("1.5GiB", 3 << 29),
            ("4096", 4096),
        ] {
            assert_eq!(fio(text), Ok(bytes), "{text}");
        }
    }

    #[test]
    fn a_size_past_u64_max_is_out_of_range_not_clamped() {
        for text in [
            "18446744073709551616",
            "18446744073709551617",
            "18446744073709551616B",
            "16777216TiB",
            "16384PiB",
            "16384.0PiB",
            "99999999999999999999",
        ] {
            for convention in [Convention::Vendor, Convention::Fio] {
                assert!(
                    matches!(parse(text, convention), Err(SizeError::OutOfRange { .. })),
                    "{text}: {:?}",
                    parse(text, convention)
                );
            }
        }
        assert_eq!(fio("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(fio("16383PiB"), Ok(16383 << 50));
    }

    #[test]
    fn nonsense_is_rejected_with_a_reason() {
        for bad in [
            "",
            "TB",
            "G",
            "2XB",
            "12Q",
            "1.2.3G",
            "-1G",
            "1e999",
            "99999999999999999999999T",
        ] {
            for convention in [Convention::Vendor, Convention::Fio] {
                let err = parse(bad, convention).expect_err(bad);
                assert!(err.to_string().contains('`'), "{bad:?}: {err}");
            }
        }
        assert!(matches!(fio("12Q"), Err(SizeError::UnknownUnit { .. })));
        assert!(fio("").unwrap_err().to_string().contains("150G"));
    }

    #[test]
    fn messages_print_one_binary_decimal() {
        assert_eq!(ByteSize(512).to_string(), "512 B");
        assert_eq!(ByteSize(150 << 30).to_string(), "150.0 GiB");
        assert_eq!(ByteSize(3 << 29).to_string(), "1.5 GiB");
        assert_eq!(ByteSize(16 << 20).to_string(), "16.0 MiB");
    }

    #[test]
    fn reports_print_binary_whole_from_a_hundred() {
        assert_eq!(binary(150 << 30), "150 GiB");
        assert_eq!(binary(3 << 29), "1.5 GiB");
        assert_eq!(binary(1000), "1000 B");
    }

    #[test]
    fn caps_print_in_the_unit_that_divides_them() {
        for (bytes, label) in [
            (16 << 20, "16 MiB"),
            (64 << 10, "64 KiB"),
            (4096, "4 KiB"),
            (100, "100 B"),
            ((1 << 20) + 1, "1048577 B"),
        ] {
            assert_eq!(binary_exact(bytes), label, "{bytes}");
        }
    }

    #[test]
    fn capacities_print_like_the_label() {
        for (bytes, label) in [
            (2_000_398_934_016, "2 TB"),
            (250_059_350_016, "250 GB"),
            (1_920_383_410_176, "1.9 TB"),
            (1_200_000_000_000, "1.2 TB"),
            (120_034_123_776, "120 GB"),
            (512, "512 B"),
            (2_000_000_000_000_000, "2 PB"),
        ] {
            assert_eq!(decimal(bytes), label, "{bytes}");
        }
        for (bytes, label) in [
            (2_000_398_934_016, "2TB"),
            (3_840_000_000_000, "3.8TB"),
            (250_059_350_016, "250GB"),
            (512, "512B"),
        ] {
            assert_eq!(decimal_compact(bytes), label, "{bytes}");
        }
    }

    proptest! {
        #[test]
        fn parsing_never_panics(text in "\\PC{0,40}") {
            let _ = vendor(&text);
            let _ = fio(&text);
        }

        #[test]
        fn whole_fio_sizes_round_trip(value in 0u64..1_000_000, unit in 0usize..5) {
            let suffix = ["", "K", "M", "G", "T"][unit];
            prop_assert_eq!(fio(&format!("{value}{suffix}")), Ok(value << (10 * unit as u32)));
        }

        #[test]
        fn decimal_capacities_round_trip(gb in 1u64..100_000) {
            prop_assert_eq!(vendor(&format!("{gb}GB")), Ok(gb * 1_000_000_000));
            let bytes = gb * 1_000_000_000;
            let printed = decimal(bytes);
            let parsed = vendor(&printed).expect("a printed capacity parses");
            // One decimal below 100 of a unit, whole above: at most 5 % off.
            prop_assert!(parsed.abs_diff(bytes) * 20 <= bytes, "{bytes} → {printed} → {parsed}");
        }

        #[test]
        fn printed_messages_parse_back_within_their_precision(bytes in 0u64..(1 << 50)) {
            let printed = ByteSize(bytes).to_string();
            let parsed = fio(&printed.replace(' ', "")).expect("a printed size parses");
            let unit = [1u64 << 10, 1 << 20, 1 << 30, 1 << 40, 1 << 50]
                .into_iter()
                .rev()
                .find(|u| bytes >= *u)
                .unwrap_or(1);
            prop_assert!(parsed.abs_diff(bytes) <= unit / 20 + 1, "{bytes} → {printed} → {parsed}");
        }
    }
}

mod latency {
    use crate::latency::*;

    #[test]
    fn latencies_read_in_the_unit_a_person_would_say() {
        for (us, expected) in [
            (85.4, "85 µs"),
            (180.4, "180 µs"),
            (1234.0, "1.2 ms"),
            (1400.0, "1.4 ms"),
            (2_500_000.0, "2.5 s"),
            (f64::NAN, "n/a"),
            (f64::INFINITY, "n/a"),
        ] {
            assert_eq!(format_us(us), expected, "{us} µs");
        }
    }
}

mod rate {
    use crate::rate::*;

    #[test]
    fn iops_read_like_the_community_list() {
        for (rate, expected) in [
            (68_400.0, "68k"),
            (68_000.0, "68k"),
            (2_500.0, "2.5k"),
            (1_540.0, "1.5k"),
            (950.2, "950"),
            (f64::NAN, "n/a"),
        ] {
            assert_eq!(iops(rate), expected, "{rate} IOPS");
        }
    }

    #[test]
    fn live_rates_survive_a_zero_elapsed_time() {
        assert_eq!(live_iops(10_450, 1.0), "10450 IOPS");
        assert_eq!(live_iops(5, 0.0), "5000 IOPS");
        assert_eq!(live_megabytes(512_000_000, 1.0), "512 MB/s");
        assert_eq!(live_megabytes(0, 0.0), "0 MB/s");
    }
}

mod text {
    use crate::text::*;
    use proptest::prelude::*;

    #[test]
    fn clip_cuts_on_a_char_boundary() {
        assert_eq!(
            clip("Samsung SSD 980 PRO 2TB", 64),
            "Samsung SSD 980 PRO 2TB"
        );
        assert_eq!(clip("µµµµ", 3), "µµ…");
        assert_eq!(clip("ääääää", 4), "äää…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("", 3), "");
        assert_eq!(clip("abc", 0), "…");
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("/var/lib/geth"), "/var/lib/geth");
        assert_eq!(shell_quote("/mnt/my disk"), "'/mnt/my disk'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("/data/100%,a=b"), "/data/100%,a=b");
    }

    proptest! {
        #[test]
        fn clipped_text_fits(text in "\\PC{0,80}", max in 1usize..40) {
            let clipped = clip(&text, max);
            prop_assert!(clipped.chars().count() <= max);
            if text.chars().count() <= max {
                prop_assert_eq!(clipped, text);
            }
        }
    }
}
