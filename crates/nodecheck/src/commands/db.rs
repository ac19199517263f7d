//! `nodecheck db lookup MODEL` and `nodecheck db list`: the drive database on its own.

use anyhow::Result;
use verdict::Grade;
use verdict::{DriveEntry, DriveQuery, EntryInterface};

use super::emit;
use crate::config::{DbListConfig, DbLookupConfig, GlobalOptions};
use crate::database::{answer_with, Evidence};
use crate::render::database::{Listing, LookupAnswer};
use crate::render::{self, RenderOptions};

pub fn lookup(config: &DbLookupConfig, global: &GlobalOptions) -> Result<u8> {
    let db = crate::database::load(global)?;
    let mut query = DriveQuery::new(&config.model);
    if let Some(fw) = &config.firmware {
        query = query.firmware(fw);
    }
    if let Some(capacity) = config.capacity_bytes {
        query = query.capacity(capacity);
    }
    let firmware_classes = db.classes_wanting_firmware(&config.model, config.firmware.as_deref());
    let lookup = LookupAnswer {
        database_version: &db.version,
        model: &config.model,
        firmware: config.firmware.as_deref(),
        capacity_bytes: config.capacity_bytes,
        answer: answer_with(
            &db,
            &query,
            Evidence {
                pci_id: config.pci_id,
                interface: config.interface.as_deref().and_then(|i| match i {
                    "nvme" => Some(EntryInterface::Nvme),
                    "sata" => Some(EntryInterface::Sata),
                    "sas" => Some(EntryInterface::Sas),
                    "usb" => Some(EntryInterface::Usb),
                    _ => None,
                }),
                model_family: config.model_family.as_deref(),
            },
        ),
        firmware_classes,
    };
    let grade = lookup.answer.grade();
    emit(&render::render(
        &lookup,
        config.format,
        &RenderOptions::for_stdout(global.verbosity),
    )?)?;
    // A lookup answers a question, it does not check this machine, so a known grade exits 0
    // whatever it is (scripts read the JSON); a name the database cannot grade exits 1, so a
    // typo is not mistaken for an answer.
    Ok(if grade == Grade::Unknown {
        crate::exit_codes::UGLY
    } else {
        crate::exit_codes::GOOD
    })
}

pub fn list(config: &DbListConfig, global: &GlobalOptions) -> Result<u8> {
    let db = crate::database::load(global)?;
    let entries: Vec<&DriveEntry> = db
        .drives
        .iter()
        .filter(|e| match config.grade {
            Some(g) => e.grade == g,
            None => true,
        })
        .collect();
    emit(&render::render(
        &Listing { db: &db, entries },
        config.format,
        &RenderOptions::for_stdout(global.verbosity),
    )?)?;
    Ok(crate::exit_codes::GOOD)
}
