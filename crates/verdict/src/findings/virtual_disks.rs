//! NC610-NC612: the disks of a virtual machine told apart. A real drive passed through is judged
//! by its model and told what the host still decides (NC610); a hypervisor's emulated disk gets
//! the guest-side evidence and the host settings that decide its speed (NC611); a cloud volume
//! is named with its provider's fix, and network storage is judged by its measured latency
//! (NC612). Identities, fixes and sources: `data/setups.toml`.

use probe::{Drive, Facts, Interface};

use crate::code::Code;
use crate::model::{Finding, Severity};
use crate::setups::{CloudVolume, Setups};

use super::format_latency_us;

/// What a disk inside a VM is.
pub enum Kind<'a> {
    /// A real drive's identity seen through the hypervisor.
    PassedThrough,
    /// The hypervisor's emulated disk (`QEMU HARDDISK`, virtio-blk without a model).
    Emulated(&'a str),
    Cloud(&'a CloudVolume),
}

/// Platforms that are hypervisors rather than cloud providers: a disk with a drive's identity
/// there was passed through by whoever runs the host.
const HYPERVISORS: &[&str] = &["kvm", "vmware", "xen", "virtualbox", "hyperv", "parallels"];

/// What `drive` is, when it is inside a VM (or is a recognised cloud volume anywhere).
pub fn kind<'a>(facts: &Facts, drive: &Drive, setups: &'a Setups) -> Option<Kind<'a>> {
    let vendor = drive.vendor.as_deref();
    if let Some(model) = drive.model.as_deref() {
        if let Some(volume) = setups.cloud_volume(vendor, model, drive.vmbus.as_ref()) {
            return Some(Kind::Cloud(volume));
        }
    }
    let in_vm = facts.platform.virtualized == Some(true)
        || matches!(drive.interface, Some(Interface::Virtio | Interface::Xen));
    if !in_vm {
        return None;
    }
    match drive.model.as_deref() {
        Some(model) => {
            if let Some(disk) = setups.virtual_disk(vendor, model) {
                return Some(Kind::Emulated(&disk.hypervisor));
            }
            let hypervisor = facts
                .platform
                .cloud
                .as_deref()
                .is_none_or(|c| HYPERVISORS.contains(&c));
            hypervisor.then_some(Kind::PassedThrough)
        }
        None if matches!(drive.interface, Some(Interface::Virtio)) => {
            Some(Kind::Emulated("QEMU/KVM (virtio-blk)"))
        }
        None => None,
    }
}

/// Whether NC602's "unknown provisioned IOPS" has been said better here.
pub fn said_here(facts: &Facts, drive: &Drive) -> bool {
    match kind(facts, drive, Setups::embedded()) {
        Some(Kind::PassedThrough | Kind::Cloud(_)) => true,
        // A VPS shows the same emulated disk as a homelab host: NC602 still says what a
        // provider decides, NC611 what the host's owner can change.
        Some(Kind::Emulated(_)) | None => false,
    }
}

pub fn check(facts: &Facts, bench: Option<&bench::BenchReport>) -> Vec<Finding> {
    let setups = Setups::embedded();
    let mut out = Vec::new();
    let qd1_p50 = bench.and_then(|b| b.qd1.as_ref()).map(|q| q.lat_us.p50);
    for drive in &facts.drives {
        match kind(facts, drive, setups) {
            Some(Kind::PassedThrough) => out.push(passed_through(facts, drive)),
            Some(Kind::Emulated(hypervisor))
                if facts
                    .platform
                    .cloud
                    .as_deref()
                    .is_none_or(|c| HYPERVISORS.contains(&c)) =>
            {
                out.push(emulated(facts, drive, hypervisor))
            }
            Some(Kind::Cloud(volume)) => out.push(cloud(drive, volume, setups, qd1_p50)),
            _ => {}
        }
    }
    out
}

/// The VM's number on its Proxmox host, found from the guest: Proxmox gives each VM an SMBIOS
/// UUID (`smbios1: uuid=` in its config), which the guest reads as its DMI product_uuid; no
/// guest-side fact names the VMID itself.
const FIND_VMID: &str = "with `uuid` set to what `sudo cat /sys/class/dmi/id/product_uuid` prints in this VM, the VM's number is `vmid=$(grep -il \"uuid=$uuid\" /etc/pve/qemu-server/*.conf | xargs basename -s .conf)`";

const HOST_SOURCES: &str = "https://pve.proxmox.com/pve-docs/pve-admin-guide.html#qm_hard_disk, https://www.qemu.org/docs/master/system/invocation.html";

fn passed_through(facts: &Facts, drive: &Drive) -> Finding {
    let model = drive.model.as_deref().unwrap_or_default();
    let host = facts.platform.cloud.as_deref().unwrap_or("a hypervisor");
    let by_id = match (&drive.interface, &drive.serial) {
        (Some(Interface::Nvme), _) => None,
        (_, Some(serial)) => Some(format!(
            "/dev/disk/by-id/ata-{}_{serial}",
            model.replace(' ', "_")
        )),
        _ => None,
    };
    let fix = match (&drive.interface, by_id) {
        (Some(Interface::Nvme), _) => format!("The NVMe drive is passed through as a PCIe device, the fastest way; keep it so on a q35 machine ({FIND_VMID}; `qm config \"$vmid\" | grep hostpci` shows the passthrough, such as `hostpci0: …,pcie=1`)"),
        (_, Some(by_id)) => format!("On the host (Proxmox), {FIND_VMID}: `qm set \"$vmid\" --scsihw virtio-scsi-single --scsi1 {by_id},cache=none,discard=on,ssd=1,iothread=1`; read SMART there: `smartctl -x {by_id}`"),
        (_, None) => "On the host (Proxmox): pass the disk by its /dev/disk/by-id name with `cache=none,discard=on,ssd=1,iothread=1` on a `virtio-scsi-single` controller, and read SMART there".to_owned(),
    };
    Finding::new(
        Code::PassedThrough,
        Severity::Info,
        format!("{}: a real drive passed through to this VM", drive.name),
        format!(
            "{} reports the identity of a real drive ({model}) inside a virtual machine on {host}: it is a drive passed through, judged by its model like any other. What the host still decides: its cache mode (cache=none lets the guest's flushes reach the drive), whether discard passes (discard=on), and whether health and temperature can be read (often only on the host). Sources: {HOST_SOURCES}.",
            drive.name
        ),
    )
    .about(&drive.name)
    .with_fix(fix)
}

fn emulated(facts: &Facts, drive: &Drive, hypervisor: &str) -> Finding {
    let discard = facts
        .layers
        .iter()
        .find(|l| l.name == drive.name)
        .and_then(|l| l.discard_max_bytes);
    let mut evidence = Vec::new();
    let mut settings = Vec::new();
    match drive.queue_count {
        Some(1) => {
            evidence.push("one hardware queue".to_owned());
            settings
                .push("iothread=1 on a virtio-scsi-single controller (one I/O thread per disk)");
        }
        Some(n) => evidence.push(format!("{n} hardware queues")),
        None => {}
    }
    match discard {
        Some(0) => {
            evidence.push("no discard (TRIM does not reach the host's storage)".to_owned());
            settings.push("discard=on");
        }
        Some(_) => evidence.push("discard passes".to_owned()),
        None => {}
    }
    if drive.queue_rotational == Some(true) {
        evidence.push("marked rotational (the guest schedules for a hard disk)".to_owned());
        settings.push("ssd=1");
    }
    settings.push("cache=none");
    let fix = format!(
        "If you run the host (Proxmox), {FIND_VMID}; then keep the disk's volume and set its options (scsi0 is the first disk's slot in `qm config \"$vmid\"`): `vol=$(qm config \"$vmid\" | sed -n 's/^scsi0: \\([^,]*\\).*/\\1/p') && qm set \"$vmid\" --scsihw virtio-scsi-single --scsi0 \"$vol\",{}`; faster still, pass an NVMe drive through as a PCIe device: `lspci -D -nn | grep -i 'non-volatile'` lists the host's NVMe drives with their addresses first, and with `addr` set to the one to pass, `qm set \"$vmid\" --hostpci0 \"$addr\",pcie=1`",
        settings.iter().flat_map(|s| s.split(' ').next()).filter(|s| s.contains('=')).collect::<Vec<_>>().join(",")
    );
    Finding::new(
        Code::VirtualDiskSettings,
        if evidence.iter().any(|e| e.starts_with("one") || e.starts_with("no discard")) { Severity::Warning } else { Severity::Info },
        format!("{}: an emulated disk of {hypervisor}", drive.name),
        format!(
            "{} is a virtual disk of {hypervisor}: its speed is the host's storage behind the host's settings, which whoever runs the host (you, on Proxmox or libvirt) can change. Seen from the guest: {}. Sources: {HOST_SOURCES}.",
            drive.name,
            if evidence.is_empty() { "nothing more".to_owned() } else { evidence.join(", ") }
        ),
    )
    .about(&drive.name)
    .with_fix(fix)
}

fn cloud(drive: &Drive, volume: &CloudVolume, setups: &Setups, qd1_p50: Option<f64>) -> Finding {
    let sources = setups.cite(&volume.sources);
    let volume_id = drive
        .serial
        .as_deref()
        .map(|s| {
            s.strip_prefix("vol")
                .map(|id| format!("vol-{}", id.trim_start_matches('-')))
                .unwrap_or_else(|| s.to_owned())
        })
        // Not read here: the NVMe controller's serial is the volume id without its dash.
        .unwrap_or_else(|| {
            format!(
                "\"$(sed 's/^vol-*/vol-/; s/ *$//' /sys/block/{}/device/serial)\"",
                drive.name
            )
        });
    let fix = volume.fix.replace("{serial_as_volume_id}", &volume_id);
    let network = volume.kind == "network";
    let limit = setups.network_latency_us;
    let (severity, measured) = match (network, qd1_p50) {
        // Erased by the provider on its own schedule (Azure: deallocation, resize, host move):
        // the datadir and the sync that filled it go with it.
        (false, _) if volume.kind == "temporary" => (Severity::Warning, String::new()),
        (false, _) => (Severity::Info, String::new()),
        (true, Some(p50)) if p50 > limit => (
            Severity::Warning,
            format!(" Measured QD1 read latency {} (median) is above the {} a node's random reads need: latency, not IOPS, is what limits network storage.", format_latency_us(p50), format_latency_us(limit)),
        ),
        (true, Some(p50)) => (
            Severity::Info,
            format!(" Measured QD1 read latency {} (median) is within {}.", format_latency_us(p50), format_latency_us(limit)),
        ),
        (true, None) => (
            Severity::Warning,
            " Nothing was measured: network storage is limited by its latency, which `nodecheck check --bench quick` measures.".to_owned(),
        ),
    };
    let burst = volume
        .burst
        .as_deref()
        .map(|b| {
            format!(" Bursts: {b}; a 60-second test can see the burst, not the sustained rate.")
        })
        .unwrap_or_default();
    Finding::new(
        Code::CloudVolume,
        severity,
        format!("{}: {}", drive.name, volume.label),
        format!(
            "{} is a {} ({} storage).{measured}{burst} Sources: {sources}.",
            drive.name, volume.label, volume.kind
        ),
    )
    .about(&drive.name)
    .with_fix(fix)
}
