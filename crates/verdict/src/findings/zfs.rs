//! NC530-NC533: a ZFS dataset under the database, judged by its pool's and its own properties,
//! the ARC's limit against the machine's RAM and what O_DIRECT means on its ZFS version.
//! Thresholds and sources: `data/setups.toml` (`[zfs]`).

use probe::{Facts, ZfsFacts};

use crate::code::Code;
use crate::model::{Finding, Severity};
use crate::setups::Setups;

pub fn check(facts: &Facts, bench_ran: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(zfs) = &facts.zfs else {
        return out;
    };
    let setups = Setups::embedded();
    let sources = setups.cite(&setups.zfs.sources);
    pool_layout(facts, zfs, setups, &sources, &mut out);
    dataset_properties(zfs, setups, &sources, &mut out);
    arc_limit(zfs, setups, &sources, &mut out);
    direct_io(facts, zfs, bench_ran, &mut out);
    out
}

fn pool_layout(
    facts: &Facts,
    zfs: &ZfsFacts,
    setups: &Setups,
    sources: &str,
    out: &mut Vec<Finding>,
) {
    let pool = &zfs.pool;
    if let Some(ashift) = effective_ashift(facts, zfs) {
        let min = setups.zfs.min_ashift;
        if ashift < min {
            out.push(
                Finding::new(
                    Code::ZfsPoolLayout,
                    Severity::Warning,
                    format!("ZFS pool {pool} has ashift={ashift}"),
                    format!(
                        "Pool {pool} {} ({} byte blocks): SSDs write 4 KiB pages or larger, so every smaller block is a read-modify-write inside the drive. ashift is fixed per vdev when it is created. Sources: {sources}.",
                        if zfs.pool_number("ashift") == Some(0) {
                            format!("was created with ashift=0 (auto), so each vdev took the sector size its drives report: ashift={ashift}")
                        } else {
                            format!("was created with ashift={ashift}")
                        },
                        1u64 << ashift.min(20)
                    ),
                )
                .with_fix(format!(
                    "Recreate the pool with `sudo zpool create -o ashift={min} -o autotrim=on {pool} ...` (back the data up first; `zpool set ashift` does not change existing vdevs)"
                )),
            );
        }
    }
    let solid_state =
        !facts.drives.is_empty() && facts.drives.iter().all(|d| d.rotational == Some(false));
    if solid_state
        && zfs
            .pool_properties
            .get("autotrim")
            .is_some_and(|v| v == "off")
    {
        out.push(
            Finding::new(
                Code::ZfsPoolLayout,
                Severity::Info,
                format!("ZFS pool {pool} has autotrim off"),
                format!("Pool {pool} is on SSDs and autotrim is off: freed blocks are not trimmed unless `zpool trim` runs, and the drives' write speed degrades as they fill. Sources: {sources}."),
            )
            .with_fix(format!("sudo zpool set autotrim=on {pool}   (or a periodic `sudo zpool trim {pool}`)")),
        );
    }
}

/// The pool's `ashift`, or for `ashift=0` ("auto", what `zpool create` without `-o ashift`
/// records) the one each vdev took at creation: log2 of the largest physical sector size its
/// drives reported. Many SSDs report 512-byte sectors, which gives ashift 9. `None` when
/// neither is known.
fn effective_ashift(facts: &Facts, zfs: &ZfsFacts) -> Option<u64> {
    match zfs.pool_number("ashift")? {
        0 => facts
            .drives
            .iter()
            .filter_map(|d| d.physical_block_size)
            .filter(|size| size.is_power_of_two())
            .max()
            .map(|size| u64::from(size.trailing_zeros()).max(9)),
        ashift => Some(ashift),
    }
}

fn dataset_properties(zfs: &ZfsFacts, setups: &Setups, sources: &str, out: &mut Vec<Finding>) {
    let ds = &zfs.dataset;
    let mut problems = Vec::new();
    let mut fixes = Vec::new();
    if let Some(recordsize) = zfs.dataset_number("recordsize") {
        if recordsize > setups.zfs.max_recordsize_bytes {
            problems.push(format!(
                "recordsize is {} (each small database read or write moves a whole record)",
                format_size(recordsize)
            ));
            fixes.push(format!("recordsize={}", setups.zfs.recommended_recordsize));
        }
    }
    let prop = |name: &str| zfs.dataset_properties.get(name).map(String::as_str);
    if prop("compression") == Some("off") {
        problems.push("compression is off (lz4 costs little CPU and writes less)".to_owned());
        fixes.push("compression=lz4".to_owned());
    }
    if prop("atime") == Some("on") && prop("relatime") != Some("on") {
        problems.push("atime is on (every read writes an access time)".to_owned());
        fixes.push("atime=off".to_owned());
    }
    if prop("primarycache") == Some("none") {
        problems.push("primarycache is none (not even metadata is cached)".to_owned());
        fixes.push("primarycache=metadata".to_owned());
    }
    if prop("logbias") == Some("throughput") {
        problems.push(
            "logbias is throughput (synchronous writes skip the intent log's fast path)".to_owned(),
        );
        fixes.push("logbias=latency".to_owned());
    }
    let mut severity = Severity::Info;
    if prop("sync") == Some("disabled") {
        severity = Severity::Warning;
        problems.push("sync is disabled (a power loss can lose the last seconds of writes, which can corrupt the client's database)".to_owned());
        fixes.push("sync=standard".to_owned());
    }
    if problems.is_empty() {
        return;
    }
    let sets: Vec<String> = fixes
        .iter()
        .map(|f| format!("sudo zfs set {f} {ds}"))
        .collect();
    out.push(
        Finding::new(
            Code::ZfsDatasetProperties,
            severity,
            format!(
                "ZFS dataset {ds}: {} propert{} to change",
                problems.len(),
                if problems.len() == 1 { "y" } else { "ies" }
            ),
            format!("Dataset {ds}: {}. Sources: {sources}.", problems.join("; ")),
        )
        .with_fix(format!(
            "{}   (recordsize and compression apply to newly written data)",
            sets.join(" && ")
        )),
    );
}

fn arc_limit(zfs: &ZfsFacts, setups: &Setups, sources: &str, out: &mut Vec<Finding>) {
    let Some(ram) = zfs.mem_total_bytes.filter(|r| *r > 0) else {
        return;
    };
    let default_limit = (ram as f64 * setups.zfs.default_arc_fraction_before_2_3) as u64;
    let limit = zfs
        .arc_c_max_bytes
        .or(zfs.arc_max_parameter_bytes.filter(|p| *p > 0))
        .unwrap_or(default_limit);
    let fraction = limit as f64 / ram as f64;
    if fraction <= setups.zfs.max_arc_fraction_of_ram {
        return;
    }
    let cap = ram / 4;
    out.push(
        Finding::new(
            Code::ZfsArcLimit,
            Severity::Info,
            format!("The ZFS ARC may take {:.0}% of RAM", fraction * 100.0),
            format!(
                "The ARC may grow to {} of {} RAM: the client keeps its own database cache (Geth's cache flag, Nethermind's and Reth's caches), which then competes with the ARC for the same memory and evicts hot pages twice. Sources: {sources}.",
                format_size(limit),
                format_size(ram)
            ),
        )
        .with_fix(format!(
            "echo {cap} | sudo tee /sys/module/zfs/parameters/zfs_arc_max && echo 'options zfs zfs_arc_max={cap}' | sudo tee -a /etc/modprobe.d/zfs.conf && sudo update-initramfs -u   (a quarter of RAM; size the client's own cache with what is left)"
        )),
    );
}

fn direct_io(facts: &Facts, zfs: &ZfsFacts, bench_ran: bool, out: &mut Vec<Finding>) {
    let Some(false) = zfs.direct_io_bypasses_arc() else {
        return;
    };
    let version = zfs.module_version.as_deref().unwrap_or("before 2.3");
    let measured = if bench_ran {
        "The benchmark's reads may have been served from the ARC: its latency is a lower bound, not the drives'."
    } else {
        "A benchmark on this dataset would measure the ARC as much as the drives."
    };
    out.push(
        Finding::new(
            Code::ZfsDirectIo,
            Severity::Info,
            "O_DIRECT does not bypass the ARC on this ZFS",
            format!(
                "OpenZFS {version} accepts O_DIRECT but serves it through the ARC (Direct I/O came in OpenZFS 2.3, https://github.com/openzfs/zfs/releases/tag/zfs-2.3.0). {measured}"
            ),
        )
        .with_fix(match facts.drives.first() {
            Some(drive) => format!("Benchmark a member drive itself (reads only): `sudo nodecheck bench --device /dev/{} --test qd1`; OpenZFS 2.3+ honours O_DIRECT", drive.name),
            None => "Upgrade to OpenZFS 2.3 or later, which honours O_DIRECT, before trusting a benchmark on the dataset".to_owned(),
        }),
    );
}

/// Sizes as ZFS prints them (binary: 128K, 16G).
fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["", "K", "M", "G", "T"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} B");
    }
    if value.fract() == 0.0 {
        format!("{value:.0}{}", UNITS[unit])
    } else {
        format!("{value:.1}{}", UNITS[unit])
    }
}
