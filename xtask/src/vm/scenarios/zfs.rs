//! A ZFS mirror on a real OpenZFS: Debian's zfs-dkms built for the guest kernel (see
//! `vm/openzfs.rs`), a pool made as an operator makes one, and a dataset as the data directory.

use serde_json::{json, Value};

use super::super::check::{Checks, Outcome};
use super::{Disk, Scenario};

pub const ZFS_SERIALS: [&str; 2] = ["NCQEMUZFS001", "NCQEMUZFS002"];

/// The fixes NC530-NC532 print, applied: autotrim on, the dataset's properties set, the ARC
/// capped at a quarter of the guest's RAM (`MemTotal` KiB × 256 bytes); then `check` again.
const TUNED: (&str, &str) = (
    "check_tuned",
    "zpool set autotrim=on tank && zfs set recordsize=16K compression=lz4 atime=off tank/ethereum && echo $(( $(sed -n \"s/^MemTotal: *\\([0-9]*\\) kB/\\1/p\" /proc/meminfo) * 256 )) > /sys/module/zfs/parameters/zfs_arc_max && nodecheck check --json --bench none /var/lib/ethereum",
);

/// Two NVMe drives partitioned as `zpool create` on a whole disk would (GPT, partition 1 of the
/// Solaris /usr type that OpenZFS uses), the pool made on the partitions with OpenZFS's
/// defaults (ashift 0, so each vdev takes its drives' 512-byte sectors; autotrim off), a dataset
/// mounted at the data directory. No udev in the guest: the probe finds the members with
/// `zpool status -P`, the path it takes where udev has no record.
pub const ZFS_MIRROR: Scenario = Scenario {
    name: "zfs_mirror",
    about: "a ZFS mirror over two partitioned NVMe drives (OpenZFS from Debian's zfs-dkms, built for the guest kernel), a dataset with OpenZFS's defaults as the data directory, then tuned",
    disks: &[Disk { id: "first", mib: 1024 }, Disk { id: "second", mib: 1024 }],
    shares: &[],
    devices: &[
        "-device",
        "nvme,drive=first,serial=NCQEMUZFS001",
        "-device",
        "nvme,drive=second,serial=NCQEMUZFS002",
    ],
    modules: &["nvme", "zfs"],
    tools: &["sfdisk", "smartctl"],
    setup: r#"
wait_for /dev/nvme0n1
wait_for /dev/nvme1n1
wait_for /dev/zfs
for disk in /dev/nvme0n1 /dev/nvme1n1; do
    printf 'label: gpt\n,,6A898CC3-1DD2-11B2-99A6-080020736631\n' | sfdisk -q "$disk"
    wait_for "${disk}p1"
done
zpool create -m none tank mirror /dev/nvme0n1p1 /dev/nvme1n1p1
zfs create -o mountpoint=/var/lib/ethereum tank/ethereum
"#,
    runs: &[
        ("zpool_status", "zpool status -P tank"),
        ("zpool_get", "zpool get -Hp -o property,value ashift,autotrim tank"),
        (
            "zfs_get",
            "zfs get -Hp -o property,value recordsize,compression,atime,relatime,sync,primarycache,logbias tank/ethereum",
        ),
        ("arc_before", "grep -E \"^c_max \" /proc/spl/kstat/zfs/arcstats"),
        TUNED,
        ("arc_after", "grep -E \"^c_max \" /proc/spl/kstat/zfs/arcstats"),
    ],
    fixture: Some("zfs_mirror"),
    nvme_trace: false,
    openzfs: true,
    expect: expect_zfs_mirror,
};

fn expect_zfs_mirror(outcome: &Outcome, checks: &mut Checks) {
    let facts = &outcome.probe;
    checks.eq("file system", &facts["mount"]["fs_type"], "zfs");
    checks.eq("mount source", &facts["mount"]["source"], "tank/ethereum");
    let zfs = &facts["zfs"];
    checks.eq("pool", &zfs["pool"], "tank");
    checks.eq("dataset", &zfs["dataset"], "tank/ethereum");
    checks.eq("pool state (kstat)", &zfs["pool_state"], "ONLINE");
    checks.prefix("module version", &zfs["module_version"], "2.");
    // pool -> vdev -> partition -> drive, without udev.
    checks.eq(
        "members",
        &zfs["members"],
        json!(["nvme0n1p1", "nvme1n1p1"]),
    );
    checks.eq("members from", &zfs["members_from"], "zpool status");
    checks.count("drives under the pool", &facts["drives"], 2);
    for serial in ZFS_SERIALS {
        let drive = checks.drive_by_serial(facts, serial);
        checks.eq(&format!("{serial} interface"), &drive["interface"], "nvme");
        checks.eq(&format!("{serial} rotational"), &drive["rotational"], false);
        checks.eq(
            &format!("{serial} physical sector"),
            &drive["physical_block_size"],
            512,
        );
        checks.eq(
            &format!("{serial} health (SMART log ioctl)"),
            &drive["health"]["source"],
            "nvme-smart-log",
        );
    }
    checks.eq("no unresolved layer", &facts["unresolved"], json!([]));

    // The properties as `zpool get` / `zfs get` print them, against the guest's own runs.
    let printed = |run: &str| -> Value {
        let text = outcome.runs.get(run).map_or("", |r| r.stdout.as_str());
        text.lines()
            .filter_map(|line| line.split_once('\t'))
            .map(|(k, v)| (k.to_string(), Value::from(v.trim())))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let pool_printed = printed("zpool_get");
    let dataset_printed = printed("zfs_get");
    // A pool made without `-o ashift` records 0 ("auto"): each vdev took its drives' sector
    // size, which QEMU's NVMe reports as 512 bytes, so the verdict judges ashift 9.
    checks.eq("ashift (0: auto)", &zfs["pool_properties"]["ashift"], "0");
    checks.eq(
        "ashift as zpool get printed it",
        &zfs["pool_properties"]["ashift"],
        pool_printed["ashift"].clone(),
    );
    checks.eq("autotrim", &zfs["pool_properties"]["autotrim"], "off");
    for (property, default) in [
        ("recordsize", "131072"),
        ("compression", "off"),
        ("atime", "on"),
        ("sync", "standard"),
    ] {
        checks.eq(
            &format!("dataset {property} (OpenZFS 2.1 default)"),
            &zfs["dataset_properties"][property],
            default,
        );
        checks.eq(
            &format!("dataset {property} as zfs get printed it"),
            &zfs["dataset_properties"][property],
            dataset_printed[property].clone(),
        );
    }
    checks.eq(
        "zfs_arc_max parameter (0: the module's default)",
        &zfs["arc_max_parameter_bytes"],
        0,
    );
    let c_max = outcome
        .runs
        .get("arc_before")
        .and_then(|r| r.stdout.split_whitespace().nth(2))
        .and_then(|n| n.parse::<u64>().ok());
    checks.eq(
        "ARC c_max as arcstats printed it",
        &zfs["arc_c_max_bytes"],
        c_max.map_or(Value::Null, Value::from),
    );
    checks.present("RAM", zfs, "mem_total_bytes");

    let check = &outcome.check;
    checks.severity(check, "NC530", "warning");
    checks.finding_mentions(check, "NC530", "ashift=9");
    checks.finding_mentions(check, "NC530", "ashift=0 (auto)");
    checks.finding_mentions(check, "NC530", "zpool create -o ashift=12");
    checks.problem(check, "NC531", true);
    checks.finding_mentions(check, "NC531", "compression is off");
    checks.finding_mentions(check, "NC531", "atime is on");
    checks.finding_mentions(check, "NC531", "recordsize is 128K");
    checks.finding_mentions(check, "NC531", "sudo zfs set recordsize=16K tank/ethereum");
    checks.problem(check, "NC532", true);
    checks.finding_has_fix(check, "NC532");
    // The cap the scenario applies (a quarter of MemTotal) is the one NC532's fix prints.
    let c_max_after = outcome
        .runs
        .get("arc_after")
        .and_then(|r| r.stdout.split_whitespace().nth(2))
        .and_then(|n| n.parse::<u64>().ok());
    checks.finding_mentions(
        check,
        "NC532",
        &format!("echo {} | sudo tee", c_max_after.unwrap_or(0)),
    );
    checks.problem(check, "NC533", true);
    checks.finding_mentions(check, "NC503", "recordsize of 128K");
    // With `atime=on` the mount has no atime flag at all (strictatime).
    checks.problem(check, "NC501", true);
    checks.finding_mentions(check, "NC501", "sudo zfs set atime=off tank/ethereum");
    // autotrim was read, so NC530 judges it and the "cannot read it" reminder stays away.
    checks.absent(check, "NC303");
    checks.absent(check, "NC506");

    // After the fixes: the properties are read again, and only ashift (fixed at creation)
    // remains of the pool's and the dataset's problems.
    let tuned = outcome.json("check_tuned");
    checks.eq(
        "tuned: recordsize read back",
        &tuned["facts"]["zfs"]["dataset_properties"]["recordsize"],
        "16384",
    );
    checks.eq(
        "tuned: autotrim read back",
        &tuned["facts"]["zfs"]["pool_properties"]["autotrim"],
        "on",
    );
    checks.eq(
        "tuned: ARC c_max read back",
        &tuned["facts"]["zfs"]["arc_c_max_bytes"],
        c_max_after.map_or(Value::Null, Value::from),
    );
    checks.problem(&tuned, "NC531", false);
    checks.problem(&tuned, "NC532", false);
    checks.problem(&tuned, "NC501", false);
    checks.finding_mentions(&tuned, "NC503", "recordsize of 16K");
    checks.absent(&tuned, "NC303");
    checks.finding_mentions(&tuned, "NC530", "ashift=9");
    let autotrim_left = tuned["findings"].as_array().is_some_and(|all| {
        all.iter().any(|f| {
            f["title"]
                .as_str()
                .is_some_and(|t| t.contains("autotrim off"))
        })
    });
    checks.eq(
        "tuned: autotrim finding gone",
        &Value::from(autotrim_left),
        false,
    );
}
