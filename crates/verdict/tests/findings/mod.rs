//! One test (or a few) per finding, from constructed facts judged against the embedded
//! database: the code, its severity, the measured value in the detail and the fix.

mod benchmark;
mod health;
mod identity;
mod link;
mod measured;
mod mount;
mod platform;
mod sizing;
mod trim;

use crate::support::*;
use bench::EngineKind;
use probe::{
    AtimeMode, ControllerMode, FstabEntry, Health, Interface, IoUringStatus, LayerKind, PcieLink,
    Unavailable, UsbDetails,
};
use verdict::{Grade, Severity};

fn drive0(facts: &mut probe::Facts) -> &mut probe::Drive {
    &mut facts.drives[0]
}

fn health0(facts: &mut probe::Facts) -> &mut Health {
    drive0(facts)
        .health
        .as_mut()
        .expect("the builder sets health")
}

/// The stock NVMe machine with its SMART record bent to a case.
fn nvme_with_health(bend: impl FnOnce(&mut Health)) -> probe::Facts {
    let mut facts = nvme_machine();
    bend(health0(&mut facts));
    facts
}

/// The stock NVMe machine with its drive bent to a case.
fn nvme_with_drive(bend: impl FnOnce(&mut probe::Drive)) -> probe::Facts {
    let mut facts = nvme_machine();
    bend(drive0(&mut facts));
    facts
}

/// Moves the first drive into a Samsung USB enclosure on the UAS driver: it is `name`, sold
/// as `product` (USB product id `product_id`), and has no NVMe or PCIe view left.
fn samsung_over_usb<'a>(
    facts: &'a mut probe::Facts,
    name: &str,
    product: &str,
    product_id: &str,
    speed_mbps: u32,
) -> &'a mut probe::Drive {
    let d = drive0(facts);
    d.name = name.into();
    d.interface = Some(Interface::Usb);
    d.model = Some(product.into());
    d.nvme = None;
    d.pcie_link = None;
    d.usb = Some(UsbDetails {
        driver: Some("uas".into()),
        vendor_id: Some("04e8".into()),
        product_id: Some(product_id.into()),
        manufacturer: Some("Samsung".into()),
        product: Some(product.into()),
        speed_mbps: Some(speed_mbps),
        ..UsbDetails::default()
    });
    d
}

/// Puts the first drive behind a hardware RAID card (a MegaRAID SAS controller).
fn behind_megaraid(drive: &mut probe::Drive) {
    drive.controller_mode = Some(ControllerMode::Raid);
    drive.controller_driver = Some("megaraid_sas".into());
    drive.controller_pci_class = Some("0x010400".into());
}

/// The stock NVMe machine with another drive in its slot: `model` on `firmware`.
fn nvme_drive(model: &str, firmware: &str) -> probe::Facts {
    nvme_with_drive(|d| {
        d.model = Some(model.into());
        d.firmware = Some(firmware.into());
    })
}

/// The stock NVMe machine with a DRAM-less `model` in its slot that borrows host memory (HMB).
fn nvme_hmb_drive(model: &str) -> probe::Facts {
    nvme_with_drive(|d| {
        d.model = Some(model.into());
        d.hmb = Some(true);
    })
}
