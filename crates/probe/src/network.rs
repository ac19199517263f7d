//! File systems whose storage is on another machine (NFS, SMB/CIFS, CephFS, GlusterFS) or on
//! the host of a virtual machine (9p, virtiofs): which server and export a mount comes from,
//! read from the mountinfo source and super options as the kernel prints them.
//!
//! Source formats: NFS `host:/export` (`[v6addr]:/export`), SMB `//host/share[/dir]`, CephFS
//! `mon1:6789,mon2:6789:/path` or, since Linux 5.17, `name@fsid.fs_name=/path` with the
//! monitors in the `mon_addr=` super option (`/`-separated), GlusterFS (FUSE)
//! `host:/volume`, 9p and virtiofs the mount tag the host exported. NFS and SMB print the
//! address they connected to as `addr=`.

use serde::{Deserialize, Serialize};

/// What kind of shared storage a mount is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShareKind {
    Nfs,
    /// SMB / CIFS (`cifs`, `smb3`).
    Smb,
    /// CephFS (kernel client or ceph-fuse).
    Ceph,
    /// GlusterFS (FUSE client).
    Glusterfs,
    /// 9p, mostly a VM's host directory over virtio (QEMU `-virtfs`, WSL2). Serialized as
    /// the file system type operators know, not the variant's spelled-out name; facts saved
    /// by a probe that wrote `nine_p` still read.
    #[serde(rename = "9p", alias = "nine_p")]
    NineP,
    /// virtiofs: a VM's host directory through the virtiofsd daemon.
    Virtiofs,
}

impl ShareKind {
    /// The file system type as people name it.
    pub fn label(self) -> &'static str {
        match self {
            ShareKind::Nfs => "NFS",
            ShareKind::Smb => "SMB/CIFS",
            ShareKind::Ceph => "CephFS",
            ShareKind::Glusterfs => "GlusterFS",
            ShareKind::NineP => "9p",
            ShareKind::Virtiofs => "virtiofs",
        }
    }

    /// 9p and virtiofs share a directory of the VM's host; the others reach another machine
    /// over the network.
    pub fn host_shared(self) -> bool {
        matches!(self, ShareKind::NineP | ShareKind::Virtiofs)
    }

    /// The kind of a mountinfo file system type, `None` for local file systems.
    pub fn of_fs_type(fs_type: &str) -> Option<ShareKind> {
        Some(match fs_type {
            "nfs" | "nfs4" => ShareKind::Nfs,
            "cifs" | "smb3" | "smbfs" => ShareKind::Smb,
            "ceph" | "fuse.ceph-fuse" | "fuse.ceph" => ShareKind::Ceph,
            "glusterfs" | "fuse.glusterfs" => ShareKind::Glusterfs,
            "9p" => ShareKind::NineP,
            "virtiofs" => ShareKind::Virtiofs,
            _ => return None,
        })
    }
}

/// Where a shared mount's data lives, as far as mountinfo tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkShare {
    pub kind: ShareKind,
    /// The server as the mount names it (`nas.lan`, `192.168.1.10`, Ceph monitors joined by
    /// `, `); `None` for 9p and virtiofs, whose server is the VM's host.
    pub server: Option<String>,
    /// The address the kernel connected to (`addr=`), when it differs from `server` or the
    /// source names none.
    pub address: Option<String>,
    /// The export (NFS), share (SMB), path and file system (CephFS), volume (GlusterFS) or
    /// mount tag (9p, virtiofs).
    pub export: Option<String>,
    /// Protocol version (`vers=4.2`, `vers=3.1.1`).
    pub version: Option<String>,
    /// 9p transport (`virtio`, `fd`), NFS protocol (`tcp`, `rdma`).
    pub transport: Option<String>,
}

/// The share behind a mount, `None` when the file system is local.
pub fn share_of(fs_type: &str, source: &str, super_options: &[String]) -> Option<NetworkShare> {
    let kind = ShareKind::of_fs_type(fs_type)?;
    let option = |name: &str| {
        super_options.iter().find_map(|option| {
            option
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('='))
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        })
    };
    let non_empty = |text: &str| (!text.is_empty()).then(|| text.to_owned());
    let (server, export) = match kind {
        ShareKind::Nfs => split_host_path(source),
        ShareKind::Smb => {
            let unc = source.replace('\\', "/");
            let rest = unc.trim_start_matches('/');
            match rest.split_once('/') {
                Some((host, share)) => (non_empty(host), non_empty(share)),
                None => (non_empty(rest), None),
            }
        }
        ShareKind::Ceph => ceph_source(source, option("mon_addr")),
        ShareKind::Glusterfs => {
            let (host, volume) = split_host_path(source);
            (
                host,
                volume.and_then(|v| non_empty(v.trim_start_matches('/'))),
            )
        }
        ShareKind::NineP | ShareKind::Virtiofs => (None, non_empty(source)),
    };
    let address = option("addr").filter(|addr| server.as_deref() != Some(addr.as_str()));
    let transport = match kind {
        ShareKind::NineP => option("trans"),
        ShareKind::Nfs => option("proto"),
        _ => None,
    };
    Some(NetworkShare {
        kind,
        server,
        address,
        export,
        version: option("vers"),
        transport,
    })
}

/// `host:/path`, `[v6]:/path`; a source without a host part is all path.
fn split_host_path(source: &str) -> (Option<String>, Option<String>) {
    let non_empty = |text: &str| (!text.is_empty()).then(|| text.to_owned());
    if let Some(rest) = source.strip_prefix('[') {
        if let Some((host, path)) = rest.split_once("]:") {
            return (non_empty(host), non_empty(path));
        }
    }
    match source.split_once(':') {
        Some((host, path)) => (non_empty(host), non_empty(path)),
        None => (None, non_empty(source)),
    }
}

/// CephFS: `name@fsid.fs_name=/path` (monitors in `mon_addr`), or `mons:/path`.
fn ceph_source(source: &str, mon_addr: Option<String>) -> (Option<String>, Option<String>) {
    let non_empty = |text: &str| (!text.is_empty()).then(|| text.to_owned());
    let monitors = mon_addr.map(|list| list.split('/').collect::<Vec<_>>().join(", "));
    if let Some((spec, path)) = source.split_once('=') {
        if let Some((_, cluster)) = spec.split_once('@') {
            let fs_name = cluster.rsplit_once('.').map_or(cluster, |(_, name)| name);
            let export = match (non_empty(fs_name), non_empty(path)) {
                (Some(fs), Some(path)) => Some(format!("{path} (file system {fs})")),
                (None, path) => path,
                (fs, None) => fs,
            };
            return (monitors, export);
        }
    }
    match source.rsplit_once(":/") {
        Some((mons, path)) => (
            monitors.or_else(|| non_empty(&mons.replace(',', ", "))),
            Some(format!("/{path}")),
        ),
        None => (monitors, non_empty(source)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// JSON names each kind by the short name operators use for it; 9p as the kernel's file
    /// system type, not the variant's spelled-out name.
    #[test]
    fn kinds_serialize_as_their_file_system_types() {
        let kinds = [
            (ShareKind::Nfs, "nfs"),
            (ShareKind::Smb, "smb"),
            (ShareKind::Ceph, "ceph"),
            (ShareKind::Glusterfs, "glusterfs"),
            (ShareKind::NineP, "9p"),
            (ShareKind::Virtiofs, "virtiofs"),
        ];
        for (kind, name) in kinds {
            let json = serde_json::to_value(kind).expect("serializes");
            assert_eq!(json, name, "{kind:?}");
            let back: ShareKind = serde_json::from_value(json).expect("deserializes");
            assert_eq!(back, kind);
        }
    }

    /// Facts and reports saved before the kind was named `9p` spelled it `nine_p`; `triage`
    /// of such a file must still read it.
    #[test]
    fn the_earlier_nine_p_spelling_still_reads() {
        let kind: ShareKind = serde_json::from_str("\"nine_p\"").expect("deserializes");
        assert_eq!(kind, ShareKind::NineP);
    }

    fn options(text: &str) -> Vec<String> {
        text.split(',').map(str::to_owned).collect()
    }

    fn network_share(fs_type: &str, source: &str, mount_options: &str) -> NetworkShare {
        share_of(fs_type, source, &options(mount_options))
            .unwrap_or_else(|| panic!("{fs_type} {source} is a network share"))
    }

    #[test]
    fn nfs_server_export_and_address() {
        let share = network_share(
            "nfs4",
            "nas.lan:/volume1/ethereum",
            "rw,vers=4.2,rsize=131072,proto=tcp,clientaddr=192.168.1.20,addr=192.168.1.10",
        );
        assert_eq!(share.kind, ShareKind::Nfs);
        assert_eq!(share.server.as_deref(), Some("nas.lan"));
        assert_eq!(share.address.as_deref(), Some("192.168.1.10"));
        assert_eq!(share.export.as_deref(), Some("/volume1/ethereum"));
        assert_eq!(share.version.as_deref(), Some("4.2"));
        assert_eq!(share.transport.as_deref(), Some("tcp"));

        let v6 = network_share("nfs", "[fd00::10]:/srv/eth", "rw,addr=fd00::10");
        assert_eq!(v6.server.as_deref(), Some("fd00::10"));
        assert_eq!(v6.address, None, "same as the server");
        assert_eq!(v6.export.as_deref(), Some("/srv/eth"));
    }

    #[test]
    fn smb_ceph_gluster_and_host_shares() {
        for (fs_type, source, mount_options, server, export) in [
            (
                "cifs",
                "//192.168.1.10/ethereum/node",
                "rw,vers=3.1.1,addr=192.168.1.10",
                Some("192.168.1.10"),
                Some("ethereum/node"),
            ),
            (
                "ceph",
                "admin@b3acfc0d-575f-4b93-9e7b-b4b6e8fbfc1a.cephfs=/volumes/eth",
                "rw,name=admin,secret=<hidden>,acl,mon_addr=10.0.0.11:3300/10.0.0.12:3300",
                Some("10.0.0.11:3300, 10.0.0.12:3300"),
                Some("/volumes/eth (file system cephfs)"),
            ),
            (
                "ceph",
                "10.0.0.11:6789,10.0.0.12:6789:/volumes/eth",
                "rw,name=admin",
                Some("10.0.0.11:6789, 10.0.0.12:6789"),
                Some("/volumes/eth"),
            ),
            (
                "fuse.glusterfs",
                "gluster1.lan:/gv0",
                "rw,user_id=0",
                Some("gluster1.lan"),
                Some("gv0"),
            ),
            (
                "9p",
                "hostshare",
                "rw,access=client,msize=512000,trans=virtio",
                None,
                Some("hostshare"),
            ),
            ("virtiofs", "ethdata", "rw", None, Some("ethdata")),
        ] {
            let share = network_share(fs_type, source, mount_options);
            assert_eq!(share.server.as_deref(), server, "{fs_type} {source}");
            assert_eq!(share.export.as_deref(), export, "{fs_type} {source}");
        }
        let smb = network_share(
            "cifs",
            "//192.168.1.10/ethereum/node",
            "rw,vers=3.1.1,addr=192.168.1.10",
        );
        assert_eq!(smb.address, None);
        let ninep = network_share(
            "9p",
            "hostshare",
            "rw,access=client,msize=512000,trans=virtio",
        );
        assert!(ninep.kind.host_shared());
        assert_eq!(ninep.transport.as_deref(), Some("virtio"));

        assert_eq!(share_of("ext4", "/dev/sda1", &options("rw")), None);
        assert_eq!(share_of("fuse.sshfs", "me@host:/x", &options("rw")), None);
    }

    #[test]
    fn odd_sources_do_not_panic() {
        for source in [
            "",
            ":",
            "[",
            "[::1]",
            "//",
            "@=",
            "a@b=",
            "=/x",
            ":/",
            "\\\\host\\share",
        ] {
            for fs in ["nfs", "cifs", "ceph", "glusterfs", "9p"] {
                let _ = share_of(fs, source, &options("addr=,mon_addr=,vers"));
            }
        }
        let smb = share_of("cifs", "\\\\nas\\eth", &[]).expect("smb");
        assert_eq!(smb.server.as_deref(), Some("nas"));
        assert_eq!(smb.export.as_deref(), Some("eth"));
    }
}
