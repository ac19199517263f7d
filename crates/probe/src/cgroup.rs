//! Where a process's cgroup v2 lives and what it says about I/O: `io.pressure` (PSI, the
//! format of [`crate::pressure`]) and `io.stat` (`MAJ:MIN rbytes=… wbytes=… rios=… wios=…`).
//!
//! Three layouts exist: the unified one (cgroup2 at `/sys/fs/cgroup`), the hybrid one of older
//! systemd distributions (v1 controllers at `/sys/fs/cgroup/*`, a v2 tree at
//! `/sys/fs/cgroup/unified` that has `io.pressure` but no `io.stat`, the io controller being
//! bound to v1 `blkio`), and v1 only (no v2 tree, so no per-cgroup PSI at all).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::root::Root;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CgroupLayout {
    /// cgroup v2 at `/sys/fs/cgroup`.
    Unified,
    /// v1 controllers with a v2 tree at `/sys/fs/cgroup/unified`.
    Hybrid,
    /// Only v1 hierarchies: no per-cgroup pressure.
    V1Only,
    /// No cgroup file system is mounted (or it is not visible).
    None,
}

impl CgroupLayout {
    /// The mount point of the v2 tree, when there is one.
    pub fn v2_mount(&self) -> Option<&'static str> {
        match self {
            CgroupLayout::Unified => Some("/sys/fs/cgroup"),
            CgroupLayout::Hybrid => Some("/sys/fs/cgroup/unified"),
            CgroupLayout::V1Only | CgroupLayout::None => None,
        }
    }
}

/// Tells the layouts apart by the file only a v2 root has (`cgroup.controllers`).
pub fn layout(root: &Root) -> CgroupLayout {
    if root.exists("/sys/fs/cgroup/cgroup.controllers") {
        CgroupLayout::Unified
    } else if root.exists("/sys/fs/cgroup/unified/cgroup.controllers") {
        CgroupLayout::Hybrid
    } else if root.read_dir("/sys/fs/cgroup").is_empty() {
        CgroupLayout::None
    } else {
        CgroupLayout::V1Only
    }
}

/// The v2 path (`0::/system.slice/geth.service`) in a `/proc/PID/cgroup` text.
pub fn v2_path(proc_cgroup: &str) -> Option<String> {
    proc_cgroup
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .map(|path| path.trim().to_string())
        .filter(|path| path.starts_with('/'))
}

/// The directory of `pid`'s v2 cgroup inside the root, when the layout has a v2 tree. A path
/// with `..` components (hostile input) is refused rather than allowed to leave the tree.
pub fn v2_dir(root: &Root, layout: &CgroupLayout, pid: u32) -> Option<PathBuf> {
    let mount = layout.v2_mount()?;
    let text = root.read_text(format!("/proc/{pid}/cgroup"))?;
    let path = v2_path(&text)?;
    if path.split('/').any(|part| part == "..") {
        return None;
    }
    Some(PathBuf::from(mount).join(path.trim_start_matches('/')))
}

/// One device's line of `io.stat`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoStatLine {
    pub major: u32,
    pub minor: u32,
    pub rbytes: u64,
    pub wbytes: u64,
    pub rios: u64,
    pub wios: u64,
}

/// Every line of an `io.stat` text with a `MAJ:MIN` and the four counters.
pub fn parse_io_stat(text: &str) -> Vec<IoStatLine> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let (major, minor) = words.next()?.split_once(':')?;
            let mut stat = IoStatLine {
                major: major.parse().ok()?,
                minor: minor.parse().ok()?,
                ..IoStatLine::default()
            };
            for word in words {
                let Some((key, value)) = word.split_once('=') else {
                    continue;
                };
                let Ok(value) = value.parse::<u64>() else {
                    continue;
                };
                match key {
                    "rbytes" => stat.rbytes = value,
                    "wbytes" => stat.wbytes = value,
                    "rios" => stat.rios = value,
                    "wios" => stat.wios = value,
                    _ => {}
                }
            }
            Some(stat)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v2_line_is_found_in_every_layout() {
        // The hybrid layout of this project's build machine.
        let hybrid = "9:name=systemd:/\n4:memory:/process_api/1089ff\n1:cpu:/\n0::/\n";
        assert_eq!(v2_path(hybrid).as_deref(), Some("/"));
        assert_eq!(
            v2_path("0::/system.slice/geth.service\n").as_deref(),
            Some("/system.slice/geth.service")
        );
        assert_eq!(v2_path("4:memory:/docker/abc\n"), None);
    }

    #[test]
    fn io_stat_lines_parse() {
        let text = "259:0 rbytes=1048576 wbytes=2097152 rios=256 wios=512 dbytes=0 dios=0\n8:0 rbytes=x\nbad\n";
        let lines = parse_io_stat(text);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].major, 259);
        assert_eq!(lines[0].wios, 512);
        assert_eq!(lines[1].rbytes, 0);
    }

    #[test]
    fn layouts_are_told_apart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = Root::at(dir.path()).expect("root");
        assert_eq!(layout(&root), CgroupLayout::None);
        std::fs::create_dir_all(dir.path().join("sys/fs/cgroup/blkio")).expect("mkdir");
        assert_eq!(layout(&root), CgroupLayout::V1Only);
        std::fs::create_dir_all(dir.path().join("sys/fs/cgroup/unified")).expect("mkdir");
        std::fs::write(
            dir.path().join("sys/fs/cgroup/unified/cgroup.controllers"),
            "\n",
        )
        .expect("write");
        assert_eq!(layout(&root), CgroupLayout::Hybrid);
        std::fs::write(
            dir.path().join("sys/fs/cgroup/cgroup.controllers"),
            "io memory\n",
        )
        .expect("write");
        assert_eq!(layout(&root), CgroupLayout::Unified);
    }

    #[test]
    fn a_cgroup_path_cannot_leave_the_tree() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("proc/7")).expect("mkdir");
        std::fs::write(dir.path().join("proc/7/cgroup"), "0::/../../etc\n").expect("write");
        let root = Root::at(dir.path()).expect("root");
        assert_eq!(v2_dir(&root, &CgroupLayout::Unified, 7), None);
    }
}
