//! What `watch` and `triage` read from outside: a saved watch file, a watch JSON report, a
//! pasted `iostat -x` (text or `-o JSON`) or `ioping` output, `/proc/pressure/io` and a
//! cgroup's `io.stat`, on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nodecheck::commands::watch::triage;

fuzz_target!(|data: &[u8]| {
    let _ = triage::report(data, "fuzz");
    let text = String::from_utf8_lossy(data);
    let _ = triage::iostat_text(&text);
    let _ = triage::ioping_text(&text);
    let _ = probe::pressure::parse(&text);
    let _ = probe::cgroup::parse_io_stat(&text);
});
