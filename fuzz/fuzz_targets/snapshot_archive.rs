//! Snapshot archives (`check --snapshot FILE`) of arbitrary bytes: every entry kind, GNU long
//! names and PAX headers are bounded or refused, never a panic or an unbounded allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Raw bytes as the gzip stream, and the same bytes as an uncompressed tar inside a valid
    // gzip stream, so the fuzzer reaches the tar parser without having to learn deflate.
    let _ = nodecheck::snapshot::unpack_stream(data, "fuzz");
    let mut gzipped = Vec::new();
    {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(&mut gzipped, flate2::Compression::fast());
        let _ = encoder.write_all(data);
        let _ = encoder.finish();
    }
    let _ = nodecheck::snapshot::unpack_stream(&gzipped[..], "fuzz");
});
