//! The libata sysfs `id` text parser on arbitrary bytes, and the word parser on arbitrary
//! word arrays with a text round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use probe::ata::{
    encode_identify_text, parse_identify_text, parse_identify_words, parse_identify_words_text,
    IDENTIFY_WORDS,
};

fuzz_target!(|data: &[u8]| {
    let _ = parse_identify_text(data);
    if data.len() >= IDENTIFY_WORDS * 2 {
        let mut words = [0u16; IDENTIFY_WORDS];
        for (word, pair) in words.iter_mut().zip(data.chunks_exact(2)) {
            *word = u16::from_le_bytes([pair[0], pair[1]]);
        }
        let identify = parse_identify_words(&words);
        let _ = identify.rotation_rate_rpm();
        let text = encode_identify_text(&words);
        assert_eq!(parse_identify_words_text(text.as_bytes()).ok(), Some(words));
    }
});
