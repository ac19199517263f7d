//! The kernel CPU-list parser behind QD1/randrw pinning (`/proc/irq/N/effective_affinity_list`)
//! on arbitrary text: never panics, never allocates without bound, and what it accepts formats
//! back to a list that parses to the same CPUs.
#![no_main]

use probe::interrupts::{format_cpu_list, parse_cpu_list};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(cpus) = parse_cpu_list(&text) {
        assert!(cpus.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(parse_cpu_list(&format_cpu_list(&cpus)), Some(cpus));
    }
});
