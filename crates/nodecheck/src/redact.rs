//! Removes what identifies a machine or a person from text that leaves it: serial numbers,
//! hostnames, UUIDs and paths under /home. Used for markdown/discord reports and snapshots.
//!
//! Redaction works on finished text rather than on the facts, so that nothing a renderer or a
//! collected file adds later can slip past it.

use std::sync::OnceLock;

use regex::Regex;

/// What replaces a secret. Kept free of `/` and whitespace so that paths and sysfs values
/// stay one token.
pub const MARK: &str = "[redacted]";

fn uuid_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
            .unwrap_or_else(|e| unreachable!("constant regex: {e}"))
    })
}

/// device-mapper uuids carry LVM and LUKS ids without dashes after a type prefix that the
/// probe needs (`LVM-`, `CRYPT-LUKS2-`), so keep the prefix and drop the id.
fn dm_uuid_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\b(LVM-|CRYPT-[A-Z0-9]+-|mpath-)([A-Za-z0-9]{16,})")
            .unwrap_or_else(|e| unreachable!("constant regex: {e}"))
    })
}

fn home_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"/home/[^/\s"'`|)\]]+"#)
            .unwrap_or_else(|e| unreachable!("constant regex: {e}"))
    })
}

/// A set of secrets to remove from text.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    /// Literal strings (serial numbers): removed wherever they appear.
    literals: Vec<String>,
    /// Host names: removed as whole words only, since short names are common substrings.
    hostnames: Vec<Regex>,
}

impl Redactor {
    pub fn new() -> Self {
        Self::default()
    }

    /// Serial numbers of every drive in the facts.
    pub fn with_facts(mut self, facts: &probe::Facts) -> Self {
        for drive in &facts.drives {
            if let Some(serial) = &drive.serial {
                self.add_literal(serial);
            }
            if let Some(identify) = drive.nvme.as_ref().and_then(|n| n.identify.as_ref()) {
                self.add_literal(&identify.serial);
            }
        }
        self
    }

    /// A literal secret such as a serial number. Very short values are skipped: replacing
    /// every `0` or `1` would destroy the report and protect nothing.
    pub fn add_literal(&mut self, secret: &str) {
        let secret = secret.trim();
        if secret.len() >= 4 && !self.literals.iter().any(|s| s == secret) {
            self.literals.push(secret.to_string());
        }
    }

    pub fn add_hostname(&mut self, hostname: &str) {
        let hostname = hostname.trim();
        if hostname.len() < 3 || hostname == "localhost" {
            return;
        }
        if let Ok(re) = Regex::new(&format!(r"\b{}\b", regex::escape(hostname))) {
            self.hostnames.push(re);
        }
    }

    /// The hostname of the machine this runs on, from the kernel.
    pub fn with_local_hostname(mut self) -> Self {
        if let Ok(name) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
            self.add_hostname(&name);
        }
        self
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        // Longest first, so a serial that contains another is replaced whole.
        let mut literals: Vec<&String> = self.literals.iter().collect();
        literals.sort_by_key(|s| std::cmp::Reverse(s.len()));
        for secret in literals {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MARK);
            }
        }
        for re in &self.hostnames {
            out = re.replace_all(&out, MARK).into_owned();
        }
        out = uuid_pattern().replace_all(&out, MARK).into_owned();
        out = dm_uuid_pattern()
            .replace_all(&out, format!("${{1}}{MARK}"))
            .into_owned();
        out = home_pattern()
            .replace_all(&out, format!("/home/{MARK}"))
            .into_owned();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_every_kind_of_secret() {
        let mut r = Redactor::new();
        r.add_literal("S4EWNX0R123456");
        r.add_hostname("validator-07");
        let text =
            "serial S4EWNX0R123456 on validator-07, fs 3f2504e0-4f89-11d3-9a0c-0305e82c3301, \
                    dm LVM-AbCdEfGhIjKlMnOpQrStUvWxYz012345, path /home/alice/.ethereum";
        let out = r.redact(text);
        assert!(!out.contains("S4EWNX0R123456"));
        assert!(!out.contains("validator-07"));
        assert!(!out.contains("3f2504e0"));
        assert!(!out.contains("AbCdEfGh"));
        assert!(
            out.contains("LVM-[redacted]"),
            "keeps the dm type prefix: {out}"
        );
        assert!(out.contains("/home/[redacted]/.ethereum"), "{out}");
        assert!(!out.contains("alice"));
    }

    #[test]
    fn hostnames_only_as_whole_words() {
        let mut r = Redactor::new();
        r.add_hostname("eth");
        assert_eq!(r.redact("ethereum on eth"), "ethereum on [redacted]");
    }

    #[test]
    fn short_literals_are_ignored() {
        let mut r = Redactor::new();
        r.add_literal("1");
        assert_eq!(r.redact("nvme1n1"), "nvme1n1");
    }
}
