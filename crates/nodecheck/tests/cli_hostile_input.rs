//! Hostile files given to nodecheck: devices, FIFOs, symlinks out of a replayed tree, archives
//! whose entries claim gigabytes, huge JSON. Every run here happens under `RLIMIT_AS` of
//! 256 MiB and a time limit, so "takes all memory" and "hangs" are failures, not slow tests;
//! each must end with a clear error (exit 4) that names the file.

use std::io::Write;
use std::path::Path;

use crate::cli_support::{
    assert_contains, fifo, nodecheck, run_limited, run_ok, smartctl_fixture, stderr, stdout,
    written, Fixture, Limited,
};
use flate2::write::GzEncoder;
use flate2::Compression;

fn os(text: &str) -> &std::ffi::OsStr {
    text.as_ref()
}

/// Exit 4 with an error that names `file` and says `why`; never a panic, an abort for lack
/// of memory, or a kill.
fn assert_refused(out: &Limited, file: &Path, why: &str) {
    assert_eq!(
        out.code,
        Some(4),
        "refused with exit 4, not a crash: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&file.display().to_string()),
        "the error names {}: {}",
        file.display(),
        out.stderr
    );
    assert!(
        out.stderr.contains(why),
        "the error says {why:?}: {}",
        out.stderr
    );
}

/// `check --snapshot ARCHIVE` under the limits.
fn replay_limited(archive: &Path) -> Limited {
    run_limited(&[os("check"), os("--snapshot"), archive.as_os_str()])
}

#[test]
fn devices_and_fifos_as_input_files_are_refused_without_reading() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = fifo(dir.path());
    let zero_link = dir.path().join("drives.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero_link).expect("symlink");
    for (file, why) in [
        (
            Path::new("/dev/zero"),
            "character device, not a regular file",
        ),
        (zero_link.as_path(), "character device, not a regular file"),
        (fifo.as_path(), "FIFO, not a regular file"),
    ] {
        let f = file.as_os_str();
        assert_refused(
            &run_limited(&[os("--db"), f, os("db"), os("list")]),
            file,
            why,
        );
        assert_refused(&run_limited(&[os("submit"), os("--from"), f]), file, why);
        assert_refused(&run_limited(&[os("triage"), f]), file, why);
        assert_refused(&run_limited(&[os("check"), os("--snapshot"), f]), file, why);
        // A saved smartctl output that cannot be read blurs one drive, not the probe: a
        // warning naming the file, and the probe goes on.
        let fixture = Fixture::named("sata_ahci");
        let probed = run_limited(&[
            os("probe"),
            os("--json"),
            os("--root"),
            fixture.root().as_os_str(),
            os("--smartctl-json"),
            f,
            os(fixture.scenario.probe_path),
        ]);
        assert_eq!(probed.code, Some(0), "{}", probed.stderr);
        let facts: probe::Facts = serde_json::from_str(&probed.stdout).expect("facts");
        assert!(
            facts
                .warnings
                .iter()
                .any(|w| w.contains(&file.display().to_string()) && w.contains(why)),
            "{:?}",
            facts.warnings
        );
    }
}

#[test]
fn a_huge_json_array_to_triage_is_refused_by_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("array.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).expect("create"));
    out.write_all(b"[0").expect("write");
    for _ in 0..(63 << 20) / 2 {
        out.write_all(b",0").expect("write");
    }
    out.write_all(b"]").expect("write");
    out.into_inner().expect("flush");
    let result = run_limited(&[os("triage"), file.as_os_str()]);
    assert_refused(&result, &file, "larger than 4 MiB");
}

/// A gzip-compressed tar stream built from raw 512-byte headers, so entries can claim sizes
/// their data does not have.
struct RawTar {
    gz: GzEncoder<std::fs::File>,
}

impl RawTar {
    fn create(path: &Path) -> RawTar {
        RawTar {
            gz: GzEncoder::new(
                std::fs::File::create(path).expect("create"),
                Compression::fast(),
            ),
        }
    }

    fn header(&mut self, name: &str, kind: tar::EntryType, size: u64, link: Option<&str>) {
        let mut header = tar::Header::new_gnu();
        header.set_path(name).expect("name");
        header.set_entry_type(kind);
        header.set_size(size);
        header.set_mode(0o644);
        if let Some(link) = link {
            header.set_link_name(link).expect("link");
        }
        header.set_cksum();
        self.gz.write_all(header.as_bytes()).expect("write");
    }

    fn data(&mut self, bytes: &[u8]) {
        self.gz.write_all(bytes).expect("write");
        let pad = (512 - bytes.len() % 512) % 512;
        self.gz.write_all(&vec![0; pad]).expect("write");
    }

    fn finish(mut self) {
        self.gz.write_all(&[0; 1024]).expect("write");
        self.gz.finish().expect("gzip");
    }
}

#[test]
fn a_gnu_long_name_entry_claiming_gigabytes_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let archive = dir.path().join("long-name.tar.gz");
    let mut tar = RawTar::create(&archive);
    tar.header("././@LongLink", tar::EntryType::GNULongName, 3 << 30, None);
    // 320 MiB of the claimed 3 GiB: more than the memory limit, a few hundred KiB compressed.
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..320 {
        tar.gz.write_all(&zeros).expect("write");
    }
    tar.gz.finish().expect("gzip");
    assert!(std::fs::metadata(&archive).expect("archive").len() < 4 << 20);
    let out = replay_limited(&archive);
    assert_refused(&out, &archive, "GNU long-name header");
    assert_contains(&out.stderr, "entry 1");
}

#[test]
fn pax_headers_links_and_devices_in_an_archive_are_bounded_or_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, kind, size, link, why) in [
        (
            "big.pax",
            tar::EntryType::XHeader,
            2 << 30,
            None,
            "PAX header",
        ),
        (
            "global.pax",
            tar::EntryType::XGlobalHeader,
            2 << 30,
            None,
            "PAX global header",
        ),
        (
            "sys/hard",
            tar::EntryType::Link,
            0,
            Some("etc/passwd"),
            "is a hard link",
        ),
        (
            "dev/sda",
            tar::EntryType::Block,
            0,
            None,
            "is a block device",
        ),
        (
            "dev/null",
            tar::EntryType::Char,
            0,
            None,
            "is a character device",
        ),
        ("pipe", tar::EntryType::Fifo, 0, None, "is a FIFO"),
        (
            "sys/huge",
            tar::EntryType::Regular,
            3 << 30,
            None,
            "larger than any file",
        ),
        (
            "sys/link",
            tar::EntryType::Symlink,
            1 << 30,
            Some("x"),
            "symlink with",
        ),
    ] {
        let archive = dir
            .path()
            .join(format!("{}.tar.gz", name.replace('/', "_")));
        let mut tar = RawTar::create(&archive);
        tar.header(name, kind, size, link);
        tar.data(&[0; 512]);
        tar.finish();
        let out = replay_limited(&archive);
        assert_refused(&out, &archive, why);
        assert_contains(&out.stderr, name);
    }
}

/// A tiny archive whose manifest is a symlink: to `/dev/zero`, to a FIFO on the host, to a
/// host file. Inside the replayed tree those targets do not exist, so none is read.
#[test]
fn a_manifest_symlinked_out_of_the_archive_is_never_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let host_fifo = fifo(dir.path());
    let host_manifest = dir.path().join("host-manifest.json");
    std::fs::write(
        &host_manifest,
        br#"{"format":1,"nodecheck_version":"0","path":"/HOST-SECRET","smartctl":[],"redacted":false}"#,
    )
    .expect("write");
    for target in [
        Path::new("/dev/zero"),
        host_fifo.as_path(),
        host_manifest.as_path(),
    ] {
        let archive = dir.path().join("evil.tar.gz");
        let mut tar = RawTar::create(&archive);
        tar.header(
            "nodecheck-snapshot.json",
            tar::EntryType::Symlink,
            0,
            Some(target.to_str().expect("utf-8")),
        );
        tar.finish();
        assert!(std::fs::metadata(&archive).expect("archive").len() < 1024);
        let out = replay_limited(&archive);
        assert_refused(&out, &archive, "not a nodecheck snapshot");
        assert!(!out.stdout.contains("HOST-SECRET") && !out.stderr.contains("HOST-SECRET"));
    }
}

/// A replayed tree whose saved smartctl output is a symlink to a host file: the replay must
/// not show the host file's drive.
#[test]
fn a_saved_smartctl_output_symlinked_to_a_host_file_is_not_read() {
    let fixture = Fixture::named("sata_ahci");
    let root = fixture.root();
    let facts: probe::Facts = serde_json::from_slice(&fixture.probe(&[]).stdout).expect("facts");
    let drive = facts.drives.first().expect("a drive").name.clone();
    std::fs::write(
        root.join("nodecheck-snapshot.json"),
        format!(
            r#"{{"format":1,"nodecheck_version":"0","path":"{}","smartctl":["{drive}"],"redacted":false}}"#,
            fixture.scenario.probe_path
        ),
    )
    .expect("manifest");
    std::fs::create_dir_all(root.join("nodecheck/smartctl")).expect("mkdir");
    let host_file = smartctl_fixture("WDC_WD20EFRX-68EUZN0_17.json");
    std::os::unix::fs::symlink(
        &host_file,
        root.join(format!("nodecheck/smartctl/{drive}.json")),
    )
    .expect("symlink");
    let out = nodecheck()
        .args(["check", "--json", "--root"])
        .arg(root)
        .output()
        .expect("runs");
    let text = stdout(&out);
    assert!(
        !text.contains("WD20EFRX"),
        "the host file was read: {}",
        stderr(&out)
    );
    let report: nodecheck::Report = serde_json::from_str(&text).expect("report");
    assert!(
        report
            .facts
            .warnings
            .iter()
            .any(|w| w.contains(&format!("{drive}.json"))),
        "the unreadable file is a warning: {:?}",
        report.facts.warnings
    );
}

#[test]
fn statvfs_records_that_are_malformed_or_impossible_are_reported_as_such() {
    let fixture = Fixture::named("sata_ahci");
    let root = fixture.root();
    let facts = |extra: &str| -> probe::Facts {
        std::fs::create_dir_all(root.join(".nodecheck")).expect("mkdir");
        std::fs::write(root.join(".nodecheck/statvfs.json"), extra).expect("write");
        serde_json::from_slice(&fixture.probe(&[]).stdout).expect("facts")
    };
    let why_no_free_space = |facts: &probe::Facts| -> String {
        let mut unavailable = facts.unavailable.iter();
        let free_space = unavailable.find(|u| u.fact.starts_with("free space"));
        free_space
            .expect("free space unavailable")
            .reason
            .to_string()
    };
    let mount_point = facts("{}").mount.expect("mount").mount_point;

    let reason = why_no_free_space(&facts("{ not json"));
    assert!(reason.contains("malformed"), "not 'missing': {reason}");

    let impossible = facts(&format!(
        r#"{{"{mount_point}": {{"free_bytes": 18446744073709551615, "total_bytes": 0}}}}"#
    ));
    assert_eq!(impossible.mount.as_ref().and_then(|m| m.free_bytes), None);
    assert_contains(&why_no_free_space(&impossible), "cannot be");

    let fine = facts(&format!(
        r#"{{"{mount_point}": {{"free_bytes": 1000, "total_bytes": 4000}}}}"#
    ));
    assert_eq!(fine.mount.as_ref().and_then(|m| m.free_bytes), Some(1000));
}

#[test]
fn a_mount_table_cut_at_the_cap_says_so() {
    let fixture = Fixture::named("sata_ahci");
    let mountinfo = fixture.root().join("proc/self/mountinfo");
    let real = std::fs::read(&mountinfo).expect("mountinfo");
    let mut padded = std::io::BufWriter::new(std::fs::File::create(&mountinfo).expect("create"));
    let filler = b"1 0 0:1 / /nothing/here rw - tmpfs tmpfs rw\n";
    let lines = (probe::TEXT_CAP / filler.len()) + 1000;
    for _ in 0..lines {
        padded.write_all(filler).expect("write");
    }
    padded.write_all(&real).expect("write");
    padded.into_inner().expect("flush");
    let out = run_limited(&[
        os("probe"),
        os("--root"),
        fixture.root().as_os_str(),
        os(fixture.scenario.probe_path),
    ]);
    assert_eq!(out.code, Some(4), "{}", out.stderr);
    assert!(
        out.stderr.contains("16 MiB") && out.stderr.contains("cut"),
        "says the table was cut: {}",
        out.stderr
    );
}

#[test]
fn a_non_utf8_database_is_an_error_at_its_line_and_column() {
    let (_dir, file) = written("drives.toml", b"schema_version = 1\n# caf\xe9\n");
    let out = run_limited(&[os("--db"), file.as_os_str(), os("db"), os("list")]);
    assert_refused(&out, &file, "drives.toml:2:6: not UTF-8");
}

#[test]
fn an_empty_nodecheck_db_means_the_embedded_database() {
    run_ok(
        nodecheck()
            .env("NODECHECK_DB", "")
            .args(["db", "list", "--json"]),
    );
}

#[test]
fn archive_errors_name_the_archive_and_the_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let archive = dir.path().join("twice.tar.gz");
    let mut tar = RawTar::create(&archive);
    for _ in 0..2 {
        tar.header("sys/block/sda/size", tar::EntryType::Regular, 4, None);
        tar.data(b"100\n");
    }
    tar.finish();
    let out = replay_limited(&archive);
    assert_refused(&out, &archive, "entry 2 (sys/block/sda/size)");
    assert_contains(&out.stderr, "appears twice");
}
