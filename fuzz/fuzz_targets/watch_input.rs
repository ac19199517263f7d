//! What `watch` and `triage` read from outside: a saved watch file, a watch JSON report, a
//! pasted `iostat -x` (text or `-o JSON`) or `ioping` output, `/proc/pressure/io` and a
//! cgroup's `io.stat`, on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = nodecheck::read_watch_input(data, "fuzz");
    let text = String::from_utf8_lossy(data);
    let _ = nodecheck::parse_iostat_text(&text);
    let _ = nodecheck::parse_ioping_text(&text);
    let _ = probe::pressure::parse(&text);
    let _ = probe::cgroup::parse_io_stat(&text);
});
