//! What people type instead of a model string: a family name as `db list` prints it
//! (`Crucial P3`, `Samsung 980`), and near misses that deserve a suggestion rather than a bare
//! "unknown".

use super::{matching, normalize_model, Advisory, Database, DriveEntry, DriveQuery, Lookup};

/// Suggestions below this similarity (Jaro-Winkler on the normalised name) are noise.
const SUGGESTION_FLOOR: f64 = 0.80;

/// Names are compared lower-case, with runs of spaces, `_` and `-` folded to one space, so
/// `samsung  980-pro` and `Samsung 980 PRO` are the same name.
fn name_key(text: &str) -> String {
    let text = normalize_model(text).to_lowercase();
    text.split(|c: char| c.is_whitespace() || c == '_' || c == '-')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The model numbers of a name key: the digit runs of two or more digits in its words, less
/// the words that are a capacity (`1tb`, `512gb`, `2000g`). `samsung 980 pro 1tb` has `980`,
/// `wd black sn850x 2000gb` has `850`, `acer ssd fa100 1tb` has `100`.
fn model_numbers(key: &str) -> Vec<&str> {
    let is_capacity = |word: &str| {
        let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let unit = &word[digits.len()..];
        !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
            && matches!(unit, "g" | "gb" | "t" | "tb")
    };
    key.split(' ')
        .filter(|word| !is_capacity(word))
        .flat_map(|word| word.split(|c: char| !c.is_ascii_digit()))
        .filter(|run| run.len() >= 2)
        .collect()
}

impl DriveEntry {
    /// The name `db list` prints: vendor and family (`Crucial P3`).
    pub fn display_name(&self) -> String {
        format!("{} {}", self.vendor, self.family)
    }
}

impl Database {
    /// Entries whose name is `name`: the vendor and family as `db list` prints them, or the
    /// family alone. Several entries answer a family that more than one vendor uses.
    pub fn entries_by_family_name(&self, name: &str) -> Vec<&DriveEntry> {
        let wanted = name_key(name);
        if wanted.is_empty() {
            return Vec::new();
        }
        let full: Vec<&DriveEntry> = self
            .drives
            .iter()
            .filter(|e| name_key(&e.display_name()) == wanted)
            .collect();
        if !full.is_empty() {
            return full;
        }
        self.drives
            .iter()
            .filter(|e| name_key(&e.family) == wanted)
            .collect()
    }

    /// Up to `max` entries nearest to `text` (a mistyped family name or an unlisted variant
    /// of a listed model string), best first; none when nothing is close.
    ///
    /// A suggestion needs shared evidence, not only a similar spelling: the entry's name or
    /// one of its examples must carry a model number of `text` (`980` in `Samsng 980 PRO`).
    /// String similarity alone pairs strings of the same shape (`Acer SSD FA100 1TB` and
    /// `Lexar SSD NM1090 2TB` score above the floor while naming unrelated drives).
    pub fn nearest_families(&self, text: &str, max: usize) -> Vec<&DriveEntry> {
        let wanted = name_key(text);
        let numbers = model_numbers(&wanted);
        if wanted.is_empty() || max == 0 || numbers.is_empty() {
            return Vec::new();
        }
        let mut scored: Vec<(f64, &DriveEntry)> = self
            .drives
            .iter()
            .filter_map(|e| {
                let names = [e.display_name(), e.family.clone()];
                let score = names
                    .iter()
                    .chain(e.examples.iter())
                    .map(|name| name_key(name))
                    .filter(|key| model_numbers(key).iter().any(|n| numbers.contains(n)))
                    .map(|key| strsim::jaro_winkler(&wanted, &key))
                    .fold(0.0_f64, f64::max);
                (score >= SUGGESTION_FLOOR).then_some((score, e))
            })
            .collect();
        // Ties keep file order, so the answer is stable.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.into_iter().take(max).map(|(_, e)| e).collect()
    }

    /// A lookup on an entry the caller already chose (by family name): the entry's capacity,
    /// firmware and family rules applied to what `q` says about the drive, with an advisory
    /// saying the model string was not checked.
    pub fn lookup_entry<'a>(&'a self, entry: &'a DriveEntry, q: &DriveQuery) -> Lookup<'a> {
        let advisory = Advisory {
            code: format!("{}/matched-by-family-name", entry.id),
            severity: crate::model::Severity::Info,
            text: format!(
                "`{}` matched the family name {}, not a model string a drive reports: the grade is the family's, with only the capacity and firmware given here applied.",
                normalize_model(q.model),
                entry.display_name()
            ),
            fix: Some(
                "Look up the model string the drive reports (`nodecheck probe`, or `sudo smartctl -i /dev/DRIVE`), with its firmware and capacity, for the grade of that drive."
                    .into(),
            ),
        };
        matching::apply_rules(entry, q, vec![advisory])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_numbers_skip_capacities() {
        assert_eq!(model_numbers("samsung 980 pro 1tb"), ["980"]);
        assert_eq!(model_numbers("wd black sn850x 2000gb"), ["850"]);
        assert_eq!(model_numbers("acer ssd fa100 1tb"), ["100"]);
        assert_eq!(model_numbers("lexar ssd nm1090 pro 2tb"), ["1090"]);
        assert_eq!(model_numbers("samsung 990 pro 1.5tb"), ["990"]);
        assert!(model_numbers("samsung evo plus").is_empty());
    }

    #[test]
    fn suggestions_need_a_shared_model_number() {
        let db = Database::embedded().expect("embedded database");
        // Same shape as `Lexar SSD NM1090 2TB`, close by Jaro-Winkler, but no shared number.
        let ids = |text: &str| -> Vec<String> {
            db.nearest_families(text, 5)
                .iter()
                .map(|e| e.id.clone())
                .collect()
        };
        assert!(
            !ids("Acer SSD FA150 1TB").contains(&"lexar-nm1090".to_string()),
            "{:?}",
            ids("Acer SSD FA150 1TB")
        );
        assert_eq!(
            ids("Lexr SSD NM1090 2TB").first().map(String::as_str),
            Some("lexar-nm1090")
        );
        assert!(ids("Samsng EVO").is_empty(), "no model number, no evidence");
        for text in [
            "Acer SSD FA150 1TB",
            "Samsng 980 PRO",
            "WD_BLAK SN850X 2000GB",
        ] {
            let wanted = name_key(text);
            let numbers = model_numbers(&wanted);
            for entry in db.nearest_families(text, 5) {
                let shares = [entry.display_name(), entry.family.clone()]
                    .iter()
                    .chain(entry.examples.iter())
                    .any(|name| {
                        model_numbers(&name_key(name))
                            .iter()
                            .any(|n| numbers.contains(n))
                    });
                assert!(
                    shares,
                    "`{text}` suggested {} without a shared model number",
                    entry.id
                );
            }
        }
    }

    #[test]
    fn name_keys_ignore_case_spacing_and_separators() {
        assert_eq!(name_key("  Samsung  980-PRO "), "samsung 980 pro");
        assert_eq!(name_key("WD_BLACK SN850X"), "wd black sn850x");
        assert_eq!(name_key("---"), "");
    }
}
