//! Removes what identifies a machine or a person from what leaves it: serial numbers,
//! hostnames, network file servers and their addresses, UUIDs, user names in paths under
//! /home, /media and /run/media, and credentials in mount options. Used for markdown/discord
//! reports and snapshots; `docs/formats.md` lists the same things (a test keeps them equal).
//!
//! A report is redacted value by value before it is rendered ([`Redactor::redact_document`]),
//! so that escaping, clipping and quoting cannot split a secret into pieces the redactor no
//! longer recognises; the finished text is redacted once more, so nothing a renderer adds
//! slips past either.

use std::sync::OnceLock;

use regex::Regex;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What replaces a secret. Kept free of `/` and whitespace so that paths and sysfs values
/// stay one token.
pub const MARK: &str = "[redacted]";

/// The mount options whose values are credentials or who holds them (mount.cifs(8):
/// `username`/`user`, `password`/`pass`, `credentials`/`cred`; mount.ceph(8): `secret`,
/// `secretfile`), as they appear in fstab lines and mount options.
pub const CREDENTIAL_OPTIONS: &[&str] = &[
    "username",
    "user",
    "password",
    "pass",
    "credentials",
    "cred",
    "secret",
    "secretfile",
];

/// The mount options that name the address a network file system connected to (nfs(5)
/// `addr`, `clientaddr`, `mountaddr`; mount.ceph(8) `mon_addr`).
pub const ADDRESS_OPTIONS: &[&str] = &["addr", "clientaddr", "mountaddr", "mon_addr"];

fn constant(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("constant regex: {e}"))
}

fn uuid_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        constant(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
    })
}

/// device-mapper uuids carry LVM and LUKS ids without dashes after a type prefix that the
/// probe needs (`LVM-`, `CRYPT-LUKS2-`), so keep the prefix and drop the id.
fn dm_uuid_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| constant(r"\b(LVM-|CRYPT-[A-Z0-9]+-|mpath-)([A-Za-z0-9]{16,})"))
}

/// The user's directory in `/home/<user>`, and the per-user mount directories of udisks
/// (`/media/<user>`, `/run/media/<user>`): at the start of a path only, so a directory that
/// happens to be called `home` deeper in a path (`/tmp/test/home/.ethereum`) names no user.
fn user_dir_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| constant(r#"(^|[^\w./~-])(/home/|/run/media/|/media/)[^/\s"'`|)\]]+"#))
}

/// `name=value` for a credential or address option; a value runs to the next comma or blank,
/// and mount.cifs reads a doubled comma as a comma inside a password.
fn option_value_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let names: Vec<&str> = CREDENTIAL_OPTIONS
            .iter()
            .chain(ADDRESS_OPTIONS)
            .copied()
            .collect();
        constant(&format!(
            r"(?i)(^|[\s,(\x60'\x22])({})=([^,\s\x60'\x22]*(?:,,[^,\s\x60'\x22]*)*)",
            names.join("|")
        ))
    })
}

/// A set of secrets to remove from text.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    /// Literal strings (serial numbers): removed wherever they appear.
    literals: Vec<String>,
    /// Host names, matched case-insensitively: removed as whole names only, since short names
    /// are common substrings.
    hostnames: Vec<Regex>,
}

impl Redactor {
    pub fn new() -> Self {
        Self::default()
    }

    /// Serial numbers of every drive in the facts, and the server of a network file system.
    pub fn with_facts(mut self, facts: &probe::Facts) -> Self {
        for drive in &facts.drives {
            if let Some(serial) = &drive.serial {
                self.add_literal(serial);
            }
            if let Some(identify) = drive.nvme.as_ref().and_then(|n| n.identify.as_ref()) {
                self.add_literal(&identify.serial);
            }
        }
        if let Some(share) = facts.mount.as_ref().and_then(|m| m.network.as_ref()) {
            // Ceph names its monitors joined by `, `, each possibly with a port.
            for server in share.server.iter().chain(&share.address) {
                for name in server.split([',', ' ', '/']).filter(|n| !n.is_empty()) {
                    self.add_hostname(name);
                    if let Some((host, _port)) = name.rsplit_once(':') {
                        self.add_hostname(host.trim_matches(['[', ']']));
                    }
                    self.add_hostname(name.trim_matches(['[', ']']));
                }
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
        if hostname.len() < 3 || hostname.eq_ignore_ascii_case("localhost") {
            return;
        }
        if let Ok(re) = Regex::new(&format!("(?i){}", regex::escape(hostname))) {
            if !self.hostnames.iter().any(|h| h.as_str() == re.as_str()) {
                self.hostnames.push(re);
            }
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
            out = replace_whole_names(re, &out);
        }
        out = option_value_pattern()
            .replace_all(&out, format!("${{1}}${{2}}={MARK}"))
            .into_owned();
        out = uuid_pattern().replace_all(&out, MARK).into_owned();
        out = dm_uuid_pattern()
            .replace_all(&out, format!("${{1}}{MARK}"))
            .into_owned();
        out = user_dir_pattern()
            .replace_all(&out, format!("${{1}}${{2}}{MARK}"))
            .into_owned();
        out
    }

    /// `document` with every string in it (values and map keys) redacted, for rendering.
    /// `None` when the redacted values no longer make a `T` (a secret that is also the name
    /// of an enum variant): the caller then renders the original and relies on redacting the
    /// finished text.
    pub fn redact_document<T: Serialize + DeserializeOwned>(&self, document: &T) -> Option<T> {
        let mut value = serde_json::to_value(document).ok()?;
        self.redact_value(&mut value);
        serde_json::from_value(value).ok()
    }

    fn redact_value(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(text) => *text = self.redact(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact_value(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.redact_value(&mut item);
                    map.insert(self.redact(&key), item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// `text` with every match of `name` that stands as a whole name replaced. A name ends where
/// a letter or digit does not follow: `_`, `-` and `.` separate names, because a host name
/// reappears joined to others (`rhel_validator01`, the RHEL and Fedora installers' default
/// volume group) where a regex `\b` would see one word.
fn replace_whole_names(name: &Regex, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = name.find_at(text, from) {
        let before = text[..found.start()].chars().next_back();
        let after = text[found.end()..].chars().next();
        let whole =
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric);
        if whole && !found.is_empty() {
            out.push_str(&text[copied..found.start()]);
            out.push_str(MARK);
            copied = found.end();
            from = found.end();
        } else {
            // Try again one character on: a rejected match may overlap a whole one.
            from = found.start()
                + text[found.start()..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
        }
        if from > text.len() {
            break;
        }
    }
    out.push_str(&text[copied..]);
    out
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
    fn hostnames_joined_with_underscores_or_in_another_case_are_redacted() {
        let mut r = Redactor::new();
        r.add_hostname("validator01");
        // The RHEL and Fedora installers name the volume group `rhel_<hostname>`.
        assert_eq!(
            r.redact("/dev/mapper/rhel_validator01-root on VALIDATOR01.lan"),
            "/dev/mapper/rhel_[redacted]-root on [redacted].lan"
        );
        assert_eq!(
            r.redact("validator012 xvalidator01"),
            "validator012 xvalidator01"
        );
        // A rejected match does not hide a whole one that overlaps it.
        let mut r = Redactor::new();
        r.add_hostname("abab");
        assert_eq!(r.redact("ababab_abab"), "ababab_[redacted]");
    }

    #[test]
    fn user_names_in_media_mount_directories_are_redacted() {
        let r = Redactor::new();
        assert_eq!(
            r.redact("/media/alice/ssd /run/media/bob_smith/eth /home/carol_test/x"),
            "/media/[redacted]/ssd /run/media/[redacted]/eth /home/[redacted]/x"
        );
    }

    #[test]
    fn a_directory_named_home_deeper_in_a_path_is_no_user_directory() {
        let r = Redactor::new();
        for kept in ["/tmp/test/home/.ethereum", "/srv/node/media/disk1"] {
            assert_eq!(r.redact(kept), kept);
        }
        assert_eq!(
            r.redact("path \"/home/alice/eth\" (/home/bob) `/home/carol`"),
            "path \"/home/[redacted]/eth\" (/home/[redacted]) `/home/[redacted]`"
        );
    }

    #[test]
    fn credentials_in_mount_options_are_redacted() {
        let r = Redactor::new();
        let line = "//nas/eth /mnt/eth cifs username=alice,password=hunter2,,x,uid=1000 0 0";
        assert_eq!(
            r.redact(line),
            "//nas/eth /mnt/eth cifs username=[redacted],password=[redacted],uid=1000 0 0"
        );
        assert_eq!(
            r.redact("`rw,user=bob,pass=pw,credentials=/root/.smb,cred=/c,secret=AQB==`"),
            "`rw,user=[redacted],pass=[redacted],credentials=[redacted],cred=[redacted],secret=[redacted]`"
        );
        // Only whole option names: `nouser` and `user_xattr` are options, not credentials.
        assert_eq!(r.redact("nouser,user_xattr"), "nouser,user_xattr");
    }

    #[test]
    fn network_servers_and_their_addresses_are_redacted() {
        let mut facts = probe::Facts::default();
        let source = "diskstation.lan:/volume1/ethereum";
        let super_options = ["rw", "addr=192.168.1.10"].map(String::from).to_vec();
        facts.mount = Some(probe::MountFacts {
            mount_point: "/var/lib/ethereum".into(),
            fs_type: "nfs4".into(),
            source: source.into(),
            dev: "0:52".into(),
            atime: probe::AtimeMode::Relatime,
            lazytime: false,
            discard: false,
            read_only: false,
            mount_options: Vec::new(),
            network: probe::network::share_of("nfs4", source, &super_options),
            super_options,
            free_bytes: None,
            total_bytes: None,
            fstab: probe::FstabEntry::Unreadable,
        });
        let r = Redactor::new().with_facts(&facts);
        assert_eq!(
            r.redact("nfs4 diskstation.lan:/volume1/ethereum vers=4.2,clientaddr=192.168.1.20,addr=192.168.1.10 NAS 192.168.1.10"),
            "nfs4 [redacted]:/volume1/ethereum vers=4.2,clientaddr=[redacted],addr=[redacted] NAS [redacted]"
        );
    }

    #[test]
    fn documents_are_redacted_value_by_value() {
        let mut r = Redactor::new();
        r.add_literal("ABC_12345678");
        let facts = probe::Facts {
            path: "/home/alice/eth".into(),
            drives: vec![probe::Drive {
                name: "sda".into(),
                serial: Some("ABC_12345678".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let redacted = r.redact_document(&facts).expect("still facts");
        assert_eq!(redacted.path, "/home/[redacted]/eth");
        assert_eq!(redacted.drives[0].serial.as_deref(), Some(MARK));
        assert_eq!(redacted.drives[0].name, "sda");
    }

    /// docs/formats.md says what redaction removes; every option name the code redacts is
    /// in that list, and the list names no option the code keeps.
    #[test]
    fn the_documented_list_is_what_the_redactor_removes() {
        let docs = include_str!("../../../docs/formats.md");
        let start = docs.find("## What redaction removes").expect("the section");
        let section = &docs[start..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
        for name in CREDENTIAL_OPTIONS.iter().chain(ADDRESS_OPTIONS) {
            assert!(
                section.contains(&format!("`{name}=`")),
                "{name}= is not documented"
            );
        }
        let documented = section.matches("=`").count();
        assert_eq!(
            documented,
            CREDENTIAL_OPTIONS.len() + ADDRESS_OPTIONS.len(),
            "the section documents options the redactor does not remove"
        );
        for shape in [
            "`/home/<user>`",
            "`/media/<user>`",
            "`/run/media/<user>`",
            "UUID",
            "serial",
            "host name",
            "WWN",
        ] {
            assert!(section.contains(shape), "{shape} is not documented");
        }
        let r = Redactor::new();
        for name in CREDENTIAL_OPTIONS.iter().chain(ADDRESS_OPTIONS) {
            assert_eq!(r.redact(&format!("{name}=x")), format!("{name}={MARK}"));
        }
    }

    #[test]
    fn short_literals_are_ignored() {
        let mut r = Redactor::new();
        r.add_literal("1");
        assert_eq!(r.redact("nvme1n1"), "nvme1n1");
    }
}
