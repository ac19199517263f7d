//! ATA IDENTIFY parsing: real sysfs-format dumps, words set one by one, the builder, and
//! hostile text.

use crate::support::{ascii_field, read_data};
use probe::ata::{
    encode_identify_text, parse_identify_text, parse_identify_words, parse_identify_words_text,
    AtaIdentify, IdentifyBuilder, IdentifyError, IDENTIFY_WORDS,
};
use proptest::prelude::*;

/// Puts an ATA string into words the way a drive does: first character in the high byte.
fn put_ata_string(words: &mut [u16; IDENTIFY_WORDS], first_word: usize, len_words: usize, s: &str) {
    let mut bytes = s.bytes().chain(std::iter::repeat(b' '));
    for word in &mut words[first_word..first_word + len_words] {
        let high = bytes.next().unwrap_or(b' ');
        let low = bytes.next().unwrap_or(b' ');
        *word = (u16::from(high) << 8) | u16::from(low);
    }
}

#[test]
fn real_seagate_dump_from_sysfs_format() {
    let id = parse_identify_text(&read_data("ata", "ST3160023AS.id")).expect("real dump parses");
    assert_eq!(
        id,
        AtaIdentify {
            model: "ST3160023AS".into(),
            firmware: "3.18".into(),
            serial: "3JS2KSL3".into(),
            trim_supported: false,
            deterministic_read_after_trim: false,
            rotation_rate: None,
            sata_max_gbps: Some(1.5),
            sata_current_gbps: None,
            // hdparm printed "sectors = 312581808" for this drive.
            capacity_sectors: Some(312_581_808),
            checksum_ok: Some(true),
        }
    );
    assert_eq!(id.rotation_rate_rpm(), None);
    assert_eq!(id.rotational(), None);
}

#[test]
fn real_maxtor_dump_from_sysfs_format() {
    let id = parse_identify_text(&read_data("ata", "Maxtor_6B200M0.id")).expect("real dump parses");
    assert_eq!(id.model, "Maxtor 6B200M0");
    assert_eq!(id.firmware, "BANC1BY0");
    assert_eq!(id.serial, "B41RVC2H");
    assert_eq!(id.capacity_sectors, Some(398_297_088));
    assert_eq!(id.sata_max_gbps, Some(1.5));
    assert!(!id.trim_supported);
    assert_eq!(id.checksum_ok, Some(true));
}

#[test]
fn real_dump_survives_encode_round_trip_byte_for_byte() {
    let text = read_data("ata", "ST3160023AS.id");
    let words = parse_identify_words_text(&text).expect("parses");
    assert_eq!(encode_identify_text(&words).as_bytes(), text.as_slice());
}

#[test]
fn a_corrupted_word_breaks_the_checksum() {
    let mut words = parse_identify_words_text(&read_data("ata", "ST3160023AS.id")).expect("parses");
    words[27] ^= 0x0100;
    assert_eq!(parse_identify_words(&words).checksum_ok, Some(false));
}

#[test]
fn modern_sata_ssd_words_set_one_by_one() {
    let mut words = [0u16; IDENTIFY_WORDS];
    put_ata_string(&mut words, 10, 10, "S3Z9NB0K123456A");
    put_ata_string(&mut words, 23, 4, "RVT04B6Q");
    put_ata_string(&mut words, 27, 20, "Samsung SSD 860 EVO 1TB");
    words[69] = 1 << 14; // deterministic read after TRIM
    words[76] = 0b1110; // 1.5, 3.0 and 6.0 Gb/s
    words[77] = 3 << 1; // negotiated 6.0 Gb/s
    words[83] = 0x4000 | (1 << 10); // valid, 48-bit addressing
    words[100] = 0x6db0;
    words[101] = 0x7470;
    words[169] = 1; // TRIM
    words[217] = 1; // non-rotating
    let id = parse_identify_words(&words);
    assert_eq!(id.model, "Samsung SSD 860 EVO 1TB");
    assert_eq!(id.serial, "S3Z9NB0K123456A");
    assert_eq!(id.firmware, "RVT04B6Q");
    assert!(id.trim_supported);
    assert!(id.deterministic_read_after_trim);
    assert_eq!(id.sata_max_gbps, Some(6.0));
    assert_eq!(id.sata_current_gbps, Some(6.0));
    // 1 TB Samsung 860 EVO: 1,953,525,168 sectors.
    assert_eq!(id.capacity_sectors, Some(1_953_525_168));
    assert_eq!(id.rotation_rate, Some(1));
    assert_eq!(id.rotation_rate_rpm(), Some(0));
    assert_eq!(id.rotational(), Some(false));
    assert_eq!(id.checksum_ok, None, "word 255 not signed");
}

#[test]
fn degraded_link_and_rpm() {
    let mut words = [0u16; IDENTIFY_WORDS];
    words[76] = 0b1110;
    words[77] = 1 << 1; // running at 1.5 Gb/s on a 6 Gb/s drive
    words[217] = 5400;
    let id = parse_identify_words(&words);
    assert_eq!(id.sata_max_gbps, Some(6.0));
    assert_eq!(id.sata_current_gbps, Some(1.5));
    assert_eq!(id.rotation_rate, Some(5400));
    assert_eq!(id.rotation_rate_rpm(), Some(5400));
    assert_eq!(id.rotational(), Some(true));
}

#[test]
fn unimplemented_words_read_as_not_reported() {
    let mut words = [0u16; IDENTIFY_WORDS];
    words[76] = 0xFFFF;
    words[77] = 0xFFFF;
    words[217] = 0x0200; // reserved range
    let id = parse_identify_words(&words);
    assert_eq!(id.sata_max_gbps, None);
    assert_eq!(id.sata_current_gbps, None);
    assert_eq!(id.rotation_rate, None);
    assert_eq!(id.capacity_sectors, None);
    assert_eq!(id.model, "");
}

#[test]
fn lba48_capacity_needs_word_83_valid() {
    let mut words = [0u16; IDENTIFY_WORDS];
    words[60] = 0xFFFF;
    words[61] = 0x0FFF;
    words[100] = 0x1234;
    words[83] = 1 << 10; // bit set, but bits 15:14 are not 01: word invalid
    assert_eq!(
        parse_identify_words(&words).capacity_sectors,
        Some(0x0FFF_FFFF)
    );
    words[83] |= 0x4000;
    assert_eq!(parse_identify_words(&words).capacity_sectors, Some(0x1234));
}

#[test]
fn strings_with_nul_padding_and_non_ascii() {
    let mut words = [0u16; IDENTIFY_WORDS];
    put_ata_string(&mut words, 27, 20, "ACME SSD");
    words[31] = 0x0000; // NUL padding after the name
    words[32] = 0xC3A9; // non-ASCII bytes
    let id = parse_identify_words(&words);
    // NUL padding reads as spaces; only the ends are trimmed.
    assert_eq!(id.model, "ACME SSD  \u{FFFD}\u{FFFD}");
}

#[test]
fn builder_writes_a_real_looking_dump() {
    let words = IdentifyBuilder::new()
        .model("KINGSTON SA400S37240G")
        .firmware("SBFKB1H5")
        .serial("50026B7782A1B2C3")
        .trim(true, false)
        .non_rotating()
        .sata_speeds(Some(6.0), Some(3.0))
        .capacity_sectors(468_862_128)
        .build();
    let text = encode_identify_text(&words);
    assert_eq!(text.lines().count(), 32);
    assert!(text.lines().all(|line| line.split(' ').count() == 8));
    assert!(text.ends_with('\n'));
    let id = parse_identify_text(text.as_bytes()).expect("builder output parses");
    assert_eq!(
        id,
        AtaIdentify {
            model: "KINGSTON SA400S37240G".into(),
            firmware: "SBFKB1H5".into(),
            serial: "50026B7782A1B2C3".into(),
            trim_supported: true,
            deterministic_read_after_trim: false,
            rotation_rate: Some(1),
            sata_max_gbps: Some(6.0),
            sata_current_gbps: Some(3.0),
            capacity_sectors: Some(468_862_128),
            checksum_ok: Some(true),
        }
    );
}

#[test]
fn builder_truncates_long_strings_to_their_fields() {
    let long = "X".repeat(100);
    let id = parse_identify_words(&IdentifyBuilder::new().model(&long).serial(&long).build());
    assert_eq!(id.model.len(), 40);
    assert_eq!(id.serial.len(), 20);
}

#[test]
fn empty_file_is_a_port_multiplier() {
    assert_eq!(parse_identify_text(b""), Err(IdentifyError::Empty));
    assert_eq!(parse_identify_text(b"\n \n"), Err(IdentifyError::Empty));
}

#[test]
fn truncated_dump_is_rejected() {
    let text = read_data("ata", "ST3160023AS.id");
    let half = &text[..text.len() / 2];
    assert!(matches!(
        parse_identify_text(half),
        Err(IdentifyError::WrongLength { found: 128 })
    ));
}

#[test]
fn too_many_words_are_rejected_with_their_count() {
    let mut text = read_data("ata", "ST3160023AS.id");
    text.extend_from_slice(b"0000 0000\n");
    assert_eq!(
        parse_identify_text(&text),
        Err(IdentifyError::WrongLength { found: 258 })
    );
}

#[test]
fn bad_words_are_named() {
    let mut text = read_data("ata", "ST3160023AS.id");
    text[5..9].copy_from_slice(b"zz3f");
    assert_eq!(
        parse_identify_text(&text),
        Err(IdentifyError::BadWord {
            index: 1,
            text: "zz3f".into()
        })
    );
    let mut text = read_data("ata", "ST3160023AS.id");
    text[0] = 0xFF; // non-UTF-8
    assert!(matches!(
        parse_identify_text(&text),
        Err(IdentifyError::BadWord { index: 0, .. })
    ));
    assert!(matches!(
        parse_identify_text(b"12345 0000"),
        Err(IdentifyError::BadWord { index: 0, .. })
    ));
}

#[test]
fn a_megabyte_of_garbage_is_an_error_not_a_panic() {
    let garbage = vec![b'a'; 1 << 20];
    assert!(matches!(
        parse_identify_text(&garbage),
        Err(IdentifyError::BadWord { index: 0, .. })
    ));
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = parse_identify_text(&bytes);
    }

    #[test]
    fn arbitrary_hex_words_never_panic(words in proptest::collection::vec(any::<u16>(), 0..300)) {
        let text: String = words.iter().map(|w| format!("{w:04x} ")).collect();
        let result = parse_identify_text(text.as_bytes());
        prop_assert_eq!(result.is_ok(), words.len() == IDENTIFY_WORDS);
    }

    #[test]
    fn arbitrary_words_parse_and_round_trip_through_text(
        words in proptest::collection::vec(any::<u16>(), IDENTIFY_WORDS)
    ) {
        let mut array = [0u16; IDENTIFY_WORDS];
        array.copy_from_slice(&words);
        let text = encode_identify_text(&array);
        prop_assert_eq!(parse_identify_words_text(text.as_bytes()), Ok(array));
        prop_assert_eq!(parse_identify_text(text.as_bytes()), Ok(parse_identify_words(&array)));
    }

    #[test]
    fn builder_round_trips(
        model in ascii_field(40),
        firmware in ascii_field(8),
        serial in ascii_field(20),
        trim in any::<bool>(),
        drat in any::<bool>(),
        rpm in prop_oneof![Just(None), Just(Some(1u16)), (1025u16..=65534).prop_map(Some)],
        max_index in 0usize..3,
        current_index in 0usize..3,
        sectors in 1u64..(1 << 48),
    ) {
        let speeds = [1.5, 3.0, 6.0];
        let mut builder = IdentifyBuilder::new()
            .model(&model)
            .firmware(&firmware)
            .serial(&serial)
            .trim(trim, drat)
            .sata_speeds(Some(speeds[max_index]), Some(speeds[current_index]))
            .capacity_sectors(sectors);
        builder = match rpm {
            Some(1) => builder.non_rotating(),
            Some(rpm) => builder.rpm(rpm),
            None => builder,
        };
        let id = parse_identify_text(encode_identify_text(&builder.build()).as_bytes())
            .expect("builder output parses");
        prop_assert_eq!(id.model, model);
        prop_assert_eq!(id.firmware, firmware);
        prop_assert_eq!(id.serial, serial);
        prop_assert_eq!(id.trim_supported, trim);
        prop_assert_eq!(id.deterministic_read_after_trim, drat);
        prop_assert_eq!(id.rotation_rate, rpm.map(u32::from));
        prop_assert_eq!(id.sata_max_gbps, Some(speeds[max_index]));
        prop_assert_eq!(id.sata_current_gbps, Some(speeds[current_index]));
        prop_assert_eq!(id.capacity_sectors, Some(sectors));
        prop_assert_eq!(id.checksum_ok, Some(true));
    }
}
