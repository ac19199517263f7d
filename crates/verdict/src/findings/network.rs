//! NC520: the data directory on network storage (NFS, SMB, CephFS, GlusterFS) or on a VM
//! host's shared directory (9p, virtiofs), and what the network adds to measured latency.

use probe::{Facts, NetworkShare, ShareKind};

use crate::code::Code;
use crate::model::{Finding, Severity};

use super::{clip, format_latency_us};

/// A QD1 4 KiB random read on a local NVMe SSD with TLC and DRAM completes in under about
/// 100 us (eth-docker's guidance: good drives stay under 300 us even at the maximum); what a
/// network share measures above that is the round trip and the server's own storage.
pub const LOCAL_NVME_QD1_P50_US: f64 = 100.0;

/// Server-supplied strings (tags, export paths) end up in the text verbatim.
const NAME_CHARS: usize = 80;

/// "NFS (version 4.2) from nas.lan (192.168.1.10), export /volume1/ethereum".
pub fn describe(share: &NetworkShare) -> String {
    let mut text = share.kind.label().to_owned();
    if let Some(version) = &share.version {
        text.push_str(&format!(" (version {})", clip(version, 16)));
    }
    match (&share.server, &share.address) {
        (Some(server), Some(address)) => text.push_str(&format!(
            " from {} ({})",
            clip(server, NAME_CHARS),
            clip(address, NAME_CHARS)
        )),
        (Some(server), None) => text.push_str(&format!(" from {}", clip(server, NAME_CHARS))),
        (None, Some(address)) => text.push_str(&format!(" from {}", clip(address, NAME_CHARS))),
        (None, None) if share.kind.host_shared() => text.push_str(" from the VM's host"),
        (None, None) => {}
    }
    if let Some(export) = &share.export {
        let what = match share.kind {
            ShareKind::Nfs => "export",
            ShareKind::Smb => "share",
            ShareKind::Ceph => "path",
            ShareKind::Glusterfs => "volume",
            ShareKind::NineP | ShareKind::Virtiofs => "mount tag",
        };
        text.push_str(&format!(", {what} {}", clip(export, NAME_CHARS)));
    }
    text
}

pub fn check(facts: &Facts) -> Option<Finding> {
    let mount = facts.mount.as_ref()?;
    let share = mount.network.as_ref()?;
    let path = clip(&facts.path, NAME_CHARS);
    let described = describe(share);
    let finding = if share.kind.host_shared() {
        let transport = share
            .transport
            .as_deref()
            .map(|t| format!(" (transport {})", clip(t, 16)))
            .unwrap_or_default();
        Finding::new(
            Code::NetworkStorage,
            Severity::Warning,
            format!("Data directory on a {} share from the host", share.kind.label()),
            format!(
                "{path} is on {described}{transport}: a directory of the VM's host, passed through the hypervisor. The host's drive decides how fast the node can sync, and every read and write also pays the round trip through {}; nodecheck cannot see that drive from inside the VM.",
                if share.kind == ShareKind::Virtiofs {
                    "virtiofsd on the host"
                } else {
                    "the 9p server on the host"
                }
            ),
        )
        .with_fix(format!(
            "Run nodecheck on the host against the directory it shares{}; better, give the VM a virtio block disk on the host's local NVMe SSD (or pass the NVMe drive through) and put the node's database there",
            share
                .export
                .as_deref()
                .map(|tag| format!(" as mount tag {}", clip(tag, NAME_CHARS)))
                .unwrap_or_default()
        ))
    } else {
        Finding::new(
            Code::NetworkStorage,
            Severity::Critical,
            format!("Data directory on network storage ({})", share.kind.label()),
            format!(
                "{path} is on {described}. Every database read and write crosses the network to another machine's drives: each of the many small QD1 reads a sync waits on pays a network round trip on top of the server's own storage, and 4 KiB random writes collapse (a homelab measured 17.9 MB/s on an NFS RAID 5 NAS against 430 MB/s on a local NVMe SSD). No client can sync on it; the drive checks cannot see the server's drives either."
            ),
        )
        .with_fix(
            "Put the node's database on a local NVMe SSD (TLC NAND with DRAM, 2 TB or more) in the machine that runs the node; keep the NAS for backups",
        )
    };
    Some(finding)
}

/// For the QD1 latency finding of a share: how much of the measured median is the network.
pub fn latency_note(share: &NetworkShare, p50_us: f64) -> Option<String> {
    if !p50_us.is_finite() || p50_us <= 0.0 {
        return None;
    }
    let over = share.kind.label();
    let added = p50_us - LOCAL_NVME_QD1_P50_US;
    Some(if added > 0.0 {
        format!(
            " Measured over {over}: a local NVMe SSD answers such a read in under {}, so the network and the server add about {} to every read (p50 {}).",
            format_latency_us(LOCAL_NVME_QD1_P50_US),
            format_latency_us(added),
            format_latency_us(p50_us)
        )
    } else {
        format!(
            " Measured over {over}, yet as fast as a local NVMe SSD (p50 {}): the reads were most likely served from the server's cache, which a database larger than that cache will not enjoy.",
            format_latency_us(p50_us)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(kind: ShareKind) -> NetworkShare {
        NetworkShare {
            kind,
            server: Some("nas.lan".into()),
            address: Some("192.168.1.10".into()),
            export: Some("/volume1/ethereum".into()),
            version: Some("4.2".into()),
            transport: Some("tcp".into()),
        }
    }

    #[test]
    fn descriptions_name_server_and_export() {
        assert_eq!(
            describe(&share(ShareKind::Nfs)),
            "NFS (version 4.2) from nas.lan (192.168.1.10), export /volume1/ethereum"
        );
        let tag = NetworkShare {
            kind: ShareKind::Virtiofs,
            server: None,
            address: None,
            export: Some("ethdata".into()),
            version: None,
            transport: None,
        };
        assert_eq!(
            describe(&tag),
            "virtiofs from the VM's host, mount tag ethdata"
        );
    }

    #[test]
    fn latency_notes() {
        let nfs = share(ShareKind::Nfs);
        let note = latency_note(&nfs, 1_400.0).expect("note");
        assert!(note.contains("add about 1.3 ms"), "{note}");
        let cached = latency_note(&nfs, 60.0).expect("note");
        assert!(cached.contains("server's cache"), "{cached}");
        assert_eq!(latency_note(&nfs, f64::NAN), None);
    }
}
