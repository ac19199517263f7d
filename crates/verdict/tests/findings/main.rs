//! One test (or a few) per finding, from constructed facts judged against the embedded
//! database: the code, its severity, the measured value in the detail and the fix.

#[path = "../judge_support/mod.rs"]
mod judge_support;

mod benchmark;
mod health;
mod identity;
mod link;
mod mount;
mod platform;
mod trim;

use bench::EngineKind;
use judge_support::*;
use probe::{
    AtimeMode, ControllerMode, FstabEntry, Health, Interface, IoUringStatus, LayerKind, PcieLink,
    Unavailable, UsbDetails,
};
use verdict::judge::{judge, ClientChoice};
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
