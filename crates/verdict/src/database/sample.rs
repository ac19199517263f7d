//! The proportional sample the unknown-rate gate is measured on: per
//! interface, a fixed number of slots shared over linuxhw/SMART's vendors in proportion to
//! their model folders (`data/corpus/weights/vendor-folders.tsv`), each vendor's slots filled
//! from its report rows in a seeded order that knows nothing of grades.
//!
//! The report rows were drawn in several rounds, and a round could only reach the folders a
//! 100-file listing returns: some vendors got more rows than their share (every row of a small
//! vendor fits one listing), some fewer. Rows are never removed from the corpus, so the gate
//! reads a subsample instead: a vendor with more rows than slots contributes only its slots'
//! worth, chosen by [`sample_order`], and a vendor with fewer contributes all it has (the
//! unfilled slots are reported, not invented).

use std::collections::BTreeMap;

use serde::Serialize;

use super::corpus::{CorpusError, CorpusRow, Kind, RowKind};

/// Slots per interface: the issue asks for at least 300 report files of each.
pub const SLOTS_PER_INTERFACE: u32 = 300;

/// The seed of the grade-blind order within a vendor (the draws' own seed, 2026-12-03).
pub const ORDER_SEED: u64 = 20261203;

/// One vendor's weight: how many model folders linuxhw/SMART files under it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VendorWeight {
    pub kind: Kind,
    /// As spelled by the folder under `NVMe/` or `SSD/`, which is how row sources spell it.
    pub vendor: String,
    pub model_folders: u32,
}

/// Reads the weights file: `#` comments, a header line `interface vendor model_folders
/// source`, then tab-separated rows; `interface` is `nvme` or `sata`.
pub fn parse_weights(text: &str, origin: &str) -> Result<Vec<VendorWeight>, CorpusError> {
    let mut weights = Vec::new();
    let mut header_seen = false;
    for (index, line) in text.lines().enumerate() {
        let error = |message: String| CorpusError {
            origin: origin.to_string(),
            line: index + 1,
            message,
        };
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if !header_seen {
            if fields.first().map(|f| f.trim()) != Some("interface") {
                return Err(error(
                    "expected the header `interface\tvendor\tmodel_folders\tsource`".into(),
                ));
            }
            header_seen = true;
            continue;
        }
        if fields.len() != 4 {
            return Err(error(format!(
                "expected 4 tab-separated fields, found {}",
                fields.len()
            )));
        }
        let kind = match fields[0].trim() {
            "nvme" => Kind::Nvme,
            "sata" => Kind::Ssd,
            other => return Err(error(format!("unknown interface `{other}` (nvme or sata)"))),
        };
        let vendor = fields[1].trim();
        if vendor.is_empty() {
            return Err(error("empty vendor".into()));
        }
        let model_folders = fields[2]
            .trim()
            .replace(',', "")
            .parse::<u32>()
            .map_err(|_| error(format!("`{}` is not a folder count", fields[2].trim())))?;
        if weights
            .iter()
            .any(|w: &VendorWeight| w.kind == kind && w.vendor == vendor)
        {
            return Err(error(format!("vendor `{vendor}` is listed twice")));
        }
        weights.push(VendorWeight {
            kind,
            vendor: vendor.to_string(),
            model_folders,
        });
    }
    Ok(weights)
}

/// `total` slots shared over the vendors of `kind` in proportion to their model folders, by
/// largest remainders (ties by vendor name), as the draws shared theirs.
pub fn slots(weights: &[VendorWeight], kind: Kind, total: u32) -> BTreeMap<String, u32> {
    let of_kind: Vec<&VendorWeight> = weights.iter().filter(|w| w.kind == kind).collect();
    let sum: u64 = of_kind.iter().map(|w| u64::from(w.model_folders)).sum();
    let mut out = BTreeMap::new();
    if sum == 0 {
        return out;
    }
    let mut remainders: Vec<(u64, &str)> = Vec::new();
    let mut given = 0u32;
    for w in &of_kind {
        let scaled = u64::from(w.model_folders) * u64::from(total);
        let whole = (scaled / sum) as u32;
        given += whole;
        out.insert(w.vendor.clone(), whole);
        remainders.push((scaled % sum, w.vendor.as_str()));
    }
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    for (_, vendor) in remainders
        .into_iter()
        .take(total.saturating_sub(given) as usize)
    {
        if let Some(n) = out.get_mut(vendor) {
            *n += 1;
        }
    }
    out
}

/// The vendor folder a report row was read from: `linuxhw/SMART:NVMe/<Vendor>/...` or
/// `linuxhw/SMART:SSD/<Vendor>/...`.
pub fn row_vendor(row: &CorpusRow) -> Option<&str> {
    let path = row.source.strip_prefix("linuxhw/SMART:")?;
    let (tree, rest) = path.split_once('/')?;
    if tree != "NVMe" && tree != "SSD" {
        return None;
    }
    rest.split_once('/').map(|(vendor, _)| vendor)
}

/// Where a row falls in its vendor's order: FNV-1a over the seed and the row's source. The
/// source (report path and commit) is all the order sees, so which rows count cannot depend on
/// how they grade, and a row appended later does not move the others.
pub fn sample_order(row: &CorpusRow) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in ORDER_SEED.to_le_bytes().iter().chain(row.source.as_bytes()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// One vendor of the proportional sample.
#[derive(Debug, Clone, Serialize)]
pub struct VendorShare {
    pub vendor: String,
    pub slots: u32,
    /// Report rows of the vendor on file.
    pub rows: usize,
    /// Rows counted: `min(slots, rows)`.
    pub taken: usize,
}

/// The proportional sample of one interface.
#[derive(Debug, Clone, Serialize)]
pub struct Proportional<'a> {
    pub kind: Kind,
    pub slots: u32,
    #[serde(skip)]
    pub rows: Vec<&'a CorpusRow>,
    pub vendors: Vec<VendorShare>,
    /// Report rows of the interface whose vendor has no weight (no slot).
    pub rows_without_weight: usize,
}

impl Proportional<'_> {
    /// Slots no row fills.
    pub fn unfilled(&self) -> u32 {
        self.vendors
            .iter()
            .map(|v| v.slots.saturating_sub(v.taken as u32))
            .sum()
    }
}

/// The report rows of `kind` that fill the slots: per vendor, the first `slots` in
/// [`sample_order`].
pub fn proportional<'a>(
    rows: &'a [CorpusRow],
    weights: &[VendorWeight],
    kind: Kind,
    total: u32,
) -> Proportional<'a> {
    let slots = slots(weights, kind, total);
    let mut by_vendor: BTreeMap<&str, Vec<&CorpusRow>> = BTreeMap::new();
    let mut rows_without_weight = 0;
    for row in rows
        .iter()
        .filter(|r| r.row_kind == RowKind::Report && r.kind == kind)
    {
        match row_vendor(row).filter(|v| slots.contains_key(*v)) {
            Some(vendor) => by_vendor.entry(vendor).or_default().push(row),
            None => rows_without_weight += 1,
        }
    }
    let mut chosen = Vec::new();
    let mut vendors = Vec::new();
    for (vendor, &n) in &slots {
        let mut of_vendor = by_vendor.remove(vendor.as_str()).unwrap_or_default();
        of_vendor.sort_by_key(|row| (sample_order(row), row.source.clone()));
        let taken = of_vendor.len().min(n as usize);
        vendors.push(VendorShare {
            vendor: vendor.clone(),
            slots: n,
            rows: of_vendor.len(),
            taken,
        });
        chosen.extend(of_vendor.into_iter().take(taken));
    }
    chosen.sort_by(|a, b| a.origin.cmp(&b.origin).then(a.line.cmp(&b.line)));
    Proportional {
        kind,
        slots: total,
        rows: chosen,
        vendors,
        rows_without_weight,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Expect;

    fn weight(vendor: &str, model_folders: u32) -> VendorWeight {
        VendorWeight {
            kind: Kind::Nvme,
            vendor: vendor.into(),
            model_folders,
        }
    }

    fn row(vendor: &str, n: usize) -> CorpusRow {
        CorpusRow {
            origin: "sample".into(),
            line: n,
            model: format!("M{n}"),
            vendor: String::new(),
            capacity_bytes: None,
            firmware: None,
            kind: Kind::Nvme,
            expect: Expect::Nothing,
            source: format!("linuxhw/SMART:NVMe/{vendor}/M/M{n}/ABC@0123456789ab"),
            row_kind: RowKind::Report,
            model_family: None,
            pci_vendor: None,
            pci_subsystem: None,
        }
    }

    #[test]
    fn slots_follow_the_folder_counts_by_largest_remainders() {
        let weights = [weight("A", 2), weight("B", 1), weight("C", 1)];
        let slots = slots(&weights, Kind::Nvme, 10);
        // 5, 2.5, 2.5: the tie on remainders goes to the first name.
        assert_eq!(slots["A"], 5);
        assert_eq!(slots["B"], 3);
        assert_eq!(slots["C"], 2);
        assert_eq!(slots.values().sum::<u32>(), 10);
    }

    #[test]
    fn a_vendor_over_its_share_counts_only_its_slots_and_one_under_counts_what_it_has() {
        let weights = [weight("Big", 9), weight("Small", 1)];
        let rows: Vec<CorpusRow> = (0..3)
            .map(|n| row("Big", n))
            .chain((10..16).map(|n| row("Small", n)))
            .collect();
        let p = proportional(&rows, &weights, Kind::Nvme, 10);
        let small = p.vendors.iter().find(|v| v.vendor == "Small").unwrap();
        assert_eq!((small.slots, small.rows, small.taken), (1, 6, 1));
        let big = p.vendors.iter().find(|v| v.vendor == "Big").unwrap();
        assert_eq!((big.slots, big.rows, big.taken), (9, 3, 3));
        assert_eq!(p.rows.len(), 4);
        assert_eq!(p.unfilled(), 6);
    }

    #[test]
    fn appending_a_row_does_not_change_which_of_the_others_count_unless_it_takes_a_slot() {
        let weights = [weight("V", 3)];
        let rows: Vec<CorpusRow> = (0..8).map(|n| row("V", n)).collect();
        let before: Vec<usize> = proportional(&rows, &weights, Kind::Nvme, 3)
            .rows
            .iter()
            .map(|r| r.line)
            .collect();
        let mut more = rows.clone();
        more.push(row("V", 99));
        let after: Vec<usize> = proportional(&more, &weights, Kind::Nvme, 3)
            .rows
            .iter()
            .map(|r| r.line)
            .collect();
        let kept = before.iter().filter(|l| after.contains(l)).count();
        assert!(kept >= 2, "before {before:?}, after {after:?}");
    }

    #[test]
    fn rows_come_from_their_source_path_vendor_and_unweighted_vendors_are_counted_apart() {
        let r = row("Silicon Motion", 1);
        assert_eq!(row_vendor(&r), Some("Silicon Motion"));
        let rows = [r];
        let p = proportional(&rows, &[weight("Samsung", 1)], Kind::Nvme, 1);
        assert_eq!(p.rows_without_weight, 1);
        assert!(p.rows.is_empty());
    }

    #[test]
    fn a_malformed_weights_file_is_an_error_with_its_line() {
        let err = parse_weights(
            "# c\ninterface\tvendor\tmodel_folders\tsource\nnvme\tX\tmany\ts\n",
            "w",
        )
        .unwrap_err();
        assert_eq!(err.line, 3);
        assert!(parse_weights("nvme\tX\t1\ts\n", "w").is_err(), "no header");
        let ok = parse_weights(
            "interface\tvendor\tmodel_folders\tsource\nsata\tSamsung\t1,234\tREADME\n",
            "w",
        )
        .unwrap();
        assert_eq!(ok[0].model_folders, 1234);
        assert_eq!(ok[0].kind, Kind::Ssd);
    }
}
