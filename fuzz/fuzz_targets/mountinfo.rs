//! `/proc/self/mountinfo` parsing (probe engineer's `mounts` module) on arbitrary text, and
//! the mount lookup and the network-share reading of the sources and options it returns.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use probe::mounts::{find_mount, parse_mountinfo, parse_mountinfo_lines, unescape};
use probe::network::share_of;

fuzz_target!(|data: &[u8]| {
    // The kernel escapes whitespace and backslashes but not other bytes: a mount point can
    // hold any non-UTF-8 name, which the probe reads lossily.
    let text = String::from_utf8_lossy(data);
    let entries = parse_mountinfo(&text);
    let _ = parse_mountinfo_lines(&text);
    let _ = unescape(&text);
    for entry in &entries {
        for fs_type in [entry.fs_type.as_str(), "nfs4", "cifs", "ceph", "glusterfs", "9p"] {
            let _ = share_of(fs_type, &entry.source, &entry.super_options);
        }
    }
    for path in ["/", "/var/lib/ethereum", "/mnt/a b"] {
        let _ = find_mount(&entries, Path::new(path));
    }
});
