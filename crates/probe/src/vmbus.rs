//! Hyper-V and Azure: the VMBus channel a SCSI disk's storvsc controller hangs off. Azure tells
//! its disks apart by that channel's instance id (`device_id`) and the disk's LUN, as its own
//! udev rules do (WALinuxAgent's `66-azure-storage.rules`, azure-vm-utils' `80-azure-disk.rules`;
//! docs/sources/azure-disks.md).
//!
//! The kernel names each VMBus device directory by its instance GUID, under the `VMBUS:NN` ACPI
//! node: `/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/<guid>/host2/target2:0:0/
//! 2:0:0:0/block/sdb`, and `<guid>/device_id` holds it in braces (`{00000000-0001-8899-...}`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::root::Root;

/// Where a disk sits on VMBus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct VmbusDisk {
    /// The storvsc channel's `device_id`, as the kernel prints it (`{f8b3781b-...}`).
    pub device_id: String,
    /// The disk's SCSI LUN, the last field of its `H:C:T:L` address.
    pub lun: Option<u32>,
}

/// The VMBus placement of the disk whose canonical sysfs directory is `path`, if it has one.
pub fn read(root: &Root, path: &Path) -> Option<VmbusDisk> {
    let channel = path.ancestors().find(|dir| {
        dir.parent()
            .and_then(|parent| parent.file_name())
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("VMBUS:"))
    })?;
    let device_id = root.read_attr(channel.join("device_id"))?;
    let lun = root
        .canonicalize(path.join("device"))
        .ok()
        .and_then(|scsi| scsi.file_name()?.to_str()?.rsplit(':').next()?.parse().ok());
    Some(VmbusDisk { device_id, lun })
}
