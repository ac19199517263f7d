//! Finding a block device's sysfs directory by what names it: its kernel name (`sda1`,
//! `dm-0`), its `major:minor` number, or its device-mapper name (`/dev/mapper/vg0-eth`).
//! It sits below the stack walk, the ZFS pool reader, the dm mapping and the sensors that
//! each start from a device named somewhere else, and depends on nothing but the root.

use std::path::PathBuf;

use crate::root::Root;

/// The sysfs directory of block device `major:minor`.
pub fn device_by_number(root: &Root, major: u32, minor: u32) -> Option<PathBuf> {
    root.canonicalize(format!("/sys/dev/block/{major}:{minor}"))
        .ok()
}

/// The sysfs directory of block device `name` (`sda1`, `dm-0`).
pub fn device_by_name(root: &Root, name: &str) -> Option<PathBuf> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return None;
    }
    root.canonicalize(format!("/sys/class/block/{name}")).ok()
}

/// The `dm-N` device whose `dm/name` is `mapper_name` (`/dev/mapper/vg0-eth`).
pub fn device_by_dm_name(root: &Root, mapper_name: &str) -> Option<PathBuf> {
    root.read_dir("/sys/block")
        .into_iter()
        .filter(|name| name.starts_with("dm-"))
        .find(|name| {
            root.read_attr(format!("/sys/block/{name}/dm/name"))
                .as_deref()
                == Some(mapper_name)
        })
        .and_then(|name| device_by_name(root, &name))
}
