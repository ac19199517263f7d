//! From a mounted block device down to every physical disk: partitions, device-mapper (LVM,
//! dm-crypt, multipath), md RAID. Depth-first, lower devices in name order, each layer with
//! the discard limit that decides whether TRIM reaches the drive, and the device-mapper
//! layers with their tables (`dm`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::dm;
use crate::facts::{Layer, LayerKind, Unavailable, UnavailableReason};
use crate::root::Root;
use crate::sysfs;

/// Real stacks are a handful of levels deep; a deeper one is a loop in a hostile tree.
const MAX_DEPTH: u32 = 16;

/// The resolved stack under one or more top devices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stack {
    pub layers: Vec<Layer>,
    /// The disks at the bottom: kernel name and canonical in-root sysfs directory.
    pub disks: Vec<(String, PathBuf)>,
    pub unresolved: Vec<String>,
}

impl Stack {
    /// Every layer passes discard; `None` when there are no layers or a limit is unknown.
    pub fn trim_effective(&self) -> Option<bool> {
        if self.layers.is_empty() {
            return None;
        }
        let mut effective = true;
        for layer in &self.layers {
            effective &= layer.discard_max_bytes? > 0;
        }
        Some(effective)
    }

    pub fn names(&self) -> Vec<String> {
        self.layers.iter().map(|layer| layer.name.clone()).collect()
    }
}

/// Walks down from each of `tops` (canonical sysfs directories of block devices).
pub fn resolve(root: &Root, tops: &[PathBuf]) -> Stack {
    let mut stack = Stack::default();
    let mut visited = BTreeSet::new();
    for top in tops {
        visit(root, top, 0, &mut visited, &mut stack);
    }
    stack
}

fn visit(root: &Root, path: &Path, depth: u32, visited: &mut BTreeSet<PathBuf>, stack: &mut Stack) {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    if !visited.insert(path.to_path_buf()) {
        return;
    }
    if depth > MAX_DEPTH {
        stack.unresolved.push(format!(
            "{name}: block stack deeper than {MAX_DEPTH} levels, not followed further"
        ));
        return;
    }
    let attr = |relative: &str| root.read_attr(path.join(relative));
    let slaves = || -> Vec<PathBuf> {
        root.read_dir(path.join("slaves"))
            .into_iter()
            .filter_map(|slave| root.canonicalize(path.join("slaves").join(slave)).ok())
            .collect()
    };
    let discard =
        |dir: &Path| root.parse_attr(dir.join("queue/discard_max_bytes"), sysfs::parse_u64);

    let (kind, detail, lower, discard_max_bytes) = if root.exists(path.join("partition")) {
        // A partition shares its disk's request queue, so the disk's limit is its limit.
        let parent = path.parent().map(Path::to_path_buf);
        let detail = attr("partition").map(|number| format!("partition {number}"));
        let discard_max_bytes = parent.as_deref().and_then(discard);
        (
            LayerKind::Partition,
            detail,
            parent.into_iter().collect(),
            discard_max_bytes,
        )
    } else if root.exists(path.join("dm")) {
        let uuid = attr("dm/uuid").unwrap_or_default();
        let kind = if uuid.starts_with("LVM-") {
            LayerKind::Lvm
        } else if uuid.starts_with("CRYPT-") {
            LayerKind::Crypt
        } else if uuid.starts_with("mpath-") {
            LayerKind::Multipath
        } else if uuid.starts_with("part") {
            // kpartx partitions on a multipath device: `part1-mpath-...`.
            LayerKind::Partition
        } else {
            LayerKind::Dm
        };
        (kind, attr("dm/name"), slaves(), discard(path))
    } else if root.exists(path.join("md")) {
        (LayerKind::Md, attr("md/level"), slaves(), discard(path))
    } else if name.starts_with("loop") {
        let backing = attr("loop/backing_file");
        stack.unresolved.push(match &backing {
            Some(file) => format!(
                "{name} is a loop device backed by the file {file}; the drive holding that file is not resolved"
            ),
            None => format!("{name} is a loop device without a backing file"),
        });
        (LayerKind::Loop, backing, Vec::new(), discard(path))
    } else {
        let lower = slaves();
        let kind = if lower.is_empty() {
            LayerKind::Disk
        } else {
            LayerKind::Other
        };
        (kind, None, lower, discard(path))
    };

    let mut lower_sorted: Vec<(String, PathBuf)> = lower
        .into_iter()
        .filter_map(|lower_path| {
            let lower_name = lower_path.file_name()?.to_string_lossy().into_owned();
            Some((lower_name, lower_path))
        })
        .collect();
    lower_sorted.sort();
    stack.layers.push(Layer {
        name: name.clone(),
        kind,
        detail,
        depth,
        lower: lower_sorted.iter().map(|(n, _)| n.clone()).collect(),
        discard_max_bytes,
        dm_table: Vec::new(),
    });
    if kind == LayerKind::Disk {
        stack.disks.push((name, path.to_path_buf()));
        return;
    }
    for (_, lower_path) in lower_sorted {
        visit(root, &lower_path, depth + 1, visited, stack);
    }
}

/// The table of every device-mapper layer of `layers`: as root through the ioctl, under a
/// replayed root from its saved copy when there is one (older snapshots have none, which is
/// no gap). The tables that need root go to `unread`; a table that fails otherwise is a
/// warning.
pub fn read_dm_tables(
    root: &Root,
    privileged: bool,
    layers: &mut [Layer],
    unread: &mut Vec<Unavailable>,
) {
    for layer in layers.iter_mut() {
        let dm = matches!(
            layer.kind,
            LayerKind::Lvm | LayerKind::Crypt | LayerKind::Dm | LayerKind::Multipath
        ) || layer.name.starts_with("dm-");
        if !dm {
            continue;
        }
        let needs_root = || Unavailable {
            fact: format!("device-mapper table of {}", layer.name),
            reason: UnavailableReason::NeedsRoot,
        };
        if root.is_live() && !privileged {
            unread.push(needs_root());
            continue;
        }
        let mapper_name = root.read_attr(format!("/sys/block/{}/dm/name", layer.name));
        match dm::read_table(root, &layer.name, mapper_name.as_deref()) {
            Ok(table) => layer.dm_table = table,
            Err(dm::TableError::NotSaved { .. }) => {}
            Err(dm::TableError::NeedsRoot { .. }) => unread.push(needs_root()),
            Err(err) => root.warn(err.to_string()),
        }
    }
}
