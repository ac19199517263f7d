//! Generic rules: grades by trait ("data-center SSDs") for drives no entry names.

use serde::{Deserialize, Serialize};

use super::{Class, Components, Dram, EntryInterface, Nand};
use crate::model::Grade;

/// A rule that grades drives by their traits when no entry matches the model.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenericRule {
    pub id: String,
    pub when: TraitMatch,
    pub grade: Grade,
    pub notes: String,
    pub sources: Vec<String>,
}

/// Conditions of a generic rule: each non-empty list must contain the drive's trait, each
/// `Some` flag must equal it. An unknown trait never satisfies a condition. Read from the TOML
/// as written; an absent key is no condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TraitMatch {
    pub nand: Vec<Nand>,
    pub dram: Vec<Dram>,
    pub class: Vec<Class>,
    pub interface: Vec<EntryInterface>,
    pub rotational: Option<bool>,
    pub virtualized: Option<bool>,
    /// Whether the maker guarantees the make-up (`["unguaranteed"]`: the list's rule for
    /// drives that "could be anything", Kingston NV1/NV2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<Components>,
}

/// What is known about a drive's make-up, from an entry, the probe (HMB, rotational) or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traits {
    pub nand: Option<Nand>,
    pub dram: Option<Dram>,
    pub class: Option<Class>,
    pub interface: Option<EntryInterface>,
    pub rotational: Option<bool>,
    pub virtualized: Option<bool>,
    /// `Unguaranteed` when the drive's string names no maker product line and no hardware
    /// evidence pins both its NAND and its DRAM.
    pub components: Option<Components>,
}

impl TraitMatch {
    pub fn matches(&self, t: &Traits) -> bool {
        fn list<T: PartialEq + Copy>(want: &[T], have: Option<T>) -> bool {
            want.is_empty() || have.is_some_and(|h| want.contains(&h))
        }
        fn flag(want: Option<bool>, have: Option<bool>) -> bool {
            want.is_none() || want == have
        }
        list(&self.nand, t.nand)
            && list(&self.dram, t.dram)
            && list(&self.class, t.class)
            && list(&self.interface, t.interface)
            && flag(self.rotational, t.rotational)
            && flag(self.virtualized, t.virtualized)
            && list(&self.components, t.components)
    }

    pub fn is_empty(&self) -> bool {
        *self == TraitMatch::default()
    }
}
