//! Every entry seeded from the Good/Bad/Ugly list, looked up with real reported model strings
//! (several capacities where the family has them), with the grade the list gives it, and the
//! firmware, capacity and family advisories the list names.

mod advisories;
mod derived_seeds;
mod seeds;
mod traits;

use std::collections::BTreeSet;

use crate::support::{db, TB};
use derived_seeds::DERIVED_SEEDS;
use seeds::{NOT_MODEL_MATCHED, SEEDS};
use verdict::{Class, Dram, DriveQuery, Nand};
use verdict::{Grade, Severity};

#[test]
fn every_seed_model_string_finds_its_entry_and_grade() {
    let db = db();
    for (id, models, grade) in SEEDS.iter().chain(DERIVED_SEEDS) {
        let entry = db
            .entry(id)
            .unwrap_or_else(|| panic!("entry `{id}` missing"));
        assert_eq!(entry.grade, *grade, "{id}: family grade");
        for model in *models {
            let l = db.lookup(&DriveQuery::new(model));
            assert_eq!(l.entry.map(|e| e.id.as_str()), Some(*id), "{model}");
            assert_eq!(l.grade, *grade, "{model}");
            assert_eq!(
                db.entries_matching(model).len(),
                1,
                "{model} must match exactly one entry"
            );
        }
    }
}

#[test]
fn every_entry_in_the_database_is_covered_by_this_test() {
    let covered: BTreeSet<&str> = SEEDS
        .iter()
        .chain(DERIVED_SEEDS)
        .map(|(id, _, _)| *id)
        .chain(NOT_MODEL_MATCHED.iter().copied())
        .collect();
    let all: BTreeSet<&str> = db().drives.iter().map(|e| e.id.as_str()).collect();
    let missing: Vec<_> = all.difference(&covered).collect();
    let stale: Vec<_> = covered.difference(&all).collect();
    assert!(
        missing.is_empty(),
        "entries without a seed test: {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "seed tests for entries that no longer exist: {stale:?}"
    );
}

#[test]
fn every_crowd_iops_figure_of_the_list_is_recorded() {
    let db = db();
    let figures = [
        ("adata-sx8200-pro", 68_000, 22_000),
        ("samsung-970-evo-plus", 140_000, 46_000),
        ("crucial-mx500", 46_000, 15_000),
        ("samsung-870-evo", 63_000, 20_000),
        ("seagate-firecuda-530", 428_000, 143_000),
        ("wd-black-sn850x", 101_000, 33_000),
        ("intel-660p", 98_000, 33_000),
    ];
    for (id, read, write) in figures {
        let entry = db.entry(id).unwrap_or_else(|| panic!("{id}"));
        assert!(
            entry.results.iter().any(|r| r.read_iops == read
                && r.write_iops == write
                && r.benchmark == "community-fio"),
            "{id}: {read}/{write} missing"
        );
    }
    let evo = db.entry("samsung-970-evo-plus").expect("970 EVO Plus");
    let r = &evo.results[0];
    assert_eq!(r.firmware.as_deref(), Some("2B2QEXM7"));
    assert_eq!(r.capacity_bytes.map(|c| c / TB), Some(2));
}
