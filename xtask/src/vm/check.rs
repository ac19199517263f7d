//! What came back from a guest, and the assertions on it.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// Markers on the second serial port (`ttyS1`), which carries only results: the kernel's own
/// messages go to `ttyS0` and cannot interleave with them. They belong to this parser; the
/// guest's init script writes them.
pub const BEGIN: &str = "@@NODECHECK-BEGIN ";
pub const END: &str = "@@NODECHECK-END ";
pub const DONE: &str = "@@NODECHECK-DONE@@";
pub const SETUP_FAILED: &str = "@@NODECHECK-SETUP-FAILED@@";

/// One guest command's output and exit status.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub stdout: String,
    pub status: i32,
}

/// Everything one scenario produced.
#[derive(Debug)]
pub struct Outcome {
    pub runs: BTreeMap<String, RunOutput>,
    /// `nodecheck probe --json` in the guest.
    pub probe: Value,
    /// `nodecheck check --json` in the guest.
    pub check: Value,
    /// `nodecheck check --json --snapshot` on the host, on the guest's snapshot.
    pub replayed: Value,
    /// QEMU's `pci_nvme_read`/`pci_nvme_write` trace, for scenarios that ask for it.
    pub nvme_trace: String,
}

impl Outcome {
    pub fn rc(&self, run: &str) -> i64 {
        self.runs.get(run).map_or(-1, |r| i64::from(r.status))
    }

    pub fn json(&self, run: &str) -> Value {
        self.runs
            .get(run)
            .and_then(|r| serde_json::from_str(r.stdout.trim()).ok())
            .unwrap_or(Value::Null)
    }
}

/// Splits the results port's text into runs. The guest's tty may add `\r` before `\n`.
pub fn parse_results(text: &str) -> Result<BTreeMap<String, RunOutput>> {
    let text = text.replace('\r', "");
    if text.contains(SETUP_FAILED) {
        bail!("the guest's setup failed");
    }
    let mut runs = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(BEGIN) {
            let name = rest.trim_end_matches('@').to_string();
            current = Some((name, String::new()));
        } else if let Some(rest) = line.strip_prefix(END) {
            let rest = rest.trim_end_matches('@');
            let (name, status) = rest.rsplit_once(' ').context("malformed end marker")?;
            let (begun, stdout) = current.take().context("end marker without a begin")?;
            if begun != name {
                bail!("end marker for {name} inside {begun}");
            }
            let status = status.parse().context("exit status")?;
            runs.insert(name.to_string(), RunOutput { stdout, status });
        } else if let Some((_, stdout)) = current.as_mut() {
            stdout.push_str(line);
            stdout.push('\n');
        }
    }
    if !text.contains(DONE) {
        bail!("the guest did not finish its script");
    }
    Ok(runs)
}

/// Decodes standard base64 as busybox `base64` writes it (76-column lines).
pub fn decode_base64(text: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0u32;
    for byte in text.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' | b'\n' | b'\r' | b' ' => continue,
            other => bail!("not base64: byte 0x{other:02x}"),
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// Assertions collected without stopping at the first failure.
#[derive(Debug, Default)]
pub struct Checks {
    pub passed: Vec<String>,
    pub failed: Vec<String>,
}

impl Checks {
    fn record(&mut self, ok: bool, what: String) {
        if ok {
            self.passed.push(what);
        } else {
            self.failed.push(what);
        }
    }

    pub fn eq(&mut self, what: &str, actual: &Value, expected: impl Into<Value>) {
        let expected = expected.into();
        let ok = *actual == expected;
        self.record(ok, format!("{what}: {actual} (expected {expected})"));
    }

    pub fn prefix(&mut self, what: &str, actual: &Value, prefix: &str) {
        let ok = actual.as_str().is_some_and(|s| s.starts_with(prefix));
        self.record(ok, format!("{what}: {actual} (expected {prefix}...)"));
    }

    pub fn number(&mut self, what: &str, actual: &Value, low: f64, high: f64) {
        let ok = actual.as_f64().is_some_and(|n| (low..=high).contains(&n));
        self.record(ok, format!("{what}: {actual} (expected {low}..={high})"));
    }

    pub fn count(&mut self, what: &str, actual: &Value, expected: usize) {
        let found = actual.as_array().map(Vec::len);
        self.record(
            found == Some(expected),
            format!("{what}: {found:?} (expected {expected})"),
        );
    }

    /// `key` is present and not null somewhere in `value` (any depth).
    pub fn present(&mut self, what: &str, value: &Value, key: &str) {
        fn find(value: &Value, key: &str) -> bool {
            match value {
                Value::Object(map) => map
                    .iter()
                    .any(|(k, v)| (k == key && !v.is_null()) || find(v, key)),
                Value::Array(items) => items.iter().any(|v| find(v, key)),
                _ => false,
            }
        }
        let ok = find(value, key);
        self.record(ok, format!("{what}: `{key}` present"));
    }

    /// The drive with this serial; records a failure (and returns null) when absent.
    pub fn drive_by_serial(&mut self, facts: &Value, serial: &str) -> Value {
        let drive = facts["drives"].as_array().and_then(|drives| {
            drives
                .iter()
                .find(|d| d["serial"].as_str().map(str::trim) == Some(serial))
        });
        self.record(drive.is_some(), format!("drive with serial {serial} found"));
        drive.cloned().unwrap_or(Value::Null)
    }

    /// The drive with this model; for devices whose serial the probe cannot read.
    pub fn drive_by_model(&mut self, facts: &Value, model: &str) -> Value {
        let drive = facts["drives"]
            .as_array()
            .and_then(|drives| drives.iter().find(|d| d["model"] == model));
        self.record(drive.is_some(), format!("drive with model {model} found"));
        drive.cloned().unwrap_or(Value::Null)
    }

    fn findings<'a>(check: &'a Value, code: &str) -> Vec<&'a Value> {
        check["findings"]
            .as_array()
            .map(|all| all.iter().filter(|f| f["code"] == code).collect())
            .unwrap_or_default()
    }

    /// A finding with `code` at a problem severity (not `ok`) is, or is not, in the verdict.
    pub fn problem(&mut self, check: &Value, code: &str, expected: bool) {
        let found = Self::findings(check, code)
            .iter()
            .any(|f| f["severity"] != "ok");
        self.record(
            found == expected,
            format!(
                "problem {code} {} (findings: {})",
                if expected { "raised" } else { "not raised" },
                Self::summary(check)
            ),
        );
    }

    /// A finding with `code` says the check passed (severity `ok`).
    pub fn passed_check(&mut self, check: &Value, code: &str) {
        let found = Self::findings(check, code)
            .iter()
            .any(|f| f["severity"] == "ok");
        self.record(
            found,
            format!("{code} passed (findings: {})", Self::summary(check)),
        );
    }

    fn summary(check: &Value) -> String {
        check["findings"]
            .as_array()
            .map(|all| {
                all.iter()
                    .map(|f| {
                        format!(
                            "{}:{}",
                            f["code"].as_str().unwrap_or("?"),
                            f["severity"].as_str().unwrap_or("?")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    }

    /// No finding with `code` at all, not even one saying the check passed.
    pub fn absent(&mut self, check: &Value, code: &str) {
        let found = !Self::findings(check, code).is_empty();
        self.record(
            !found,
            format!("{code} absent (findings: {})", Self::summary(check)),
        );
    }

    /// The first finding with `code` has this severity (`null` when there is none).
    pub fn severity(&mut self, check: &Value, code: &str, expected: &str) {
        let severity = Self::findings(check, code)
            .first()
            .map(|f| f["severity"].clone())
            .unwrap_or(Value::Null);
        self.eq(&format!("{code} severity"), &severity, expected);
    }

    pub fn finding_has_fix(&mut self, check: &Value, code: &str) {
        let ok = Self::findings(check, code)
            .iter()
            .any(|f| f["fix"].as_str().is_some_and(|fix| !fix.is_empty()));
        self.record(ok, format!("finding {code} carries a fix"));
    }

    pub fn finding_mentions(&mut self, check: &Value, code: &str, text: &str) {
        let ok = Self::findings(check, code).iter().any(|f| {
            ["title", "detail", "fix"]
                .iter()
                .any(|k| f[*k].as_str().is_some_and(|s| s.contains(text)))
        });
        self.record(ok, format!("finding {code} names {text}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_split_into_runs_with_status() {
        let text = format!(
            "noise\r\n{BEGIN}probe@@\r\n{{\"a\": 1}}\r\n\r\n{END}probe 0@@\r\n{BEGIN}check@@\r\nx\r\n{END}check 2@@\r\n{DONE}\r\n"
        );
        let runs = parse_results(&text).expect("parses");
        assert_eq!(runs["probe"].status, 0);
        assert_eq!(runs["probe"].stdout.trim(), "{\"a\": 1}");
        assert_eq!(runs["check"].status, 2);
        assert_eq!(runs["check"].stdout, "x\n");
    }

    #[test]
    fn an_unfinished_guest_is_an_error() {
        let text = format!("{BEGIN}probe@@\n{{}}\n{END}probe 0@@\n");
        assert!(parse_results(&text).is_err());
        assert!(parse_results(&format!("{SETUP_FAILED}\n{DONE}\n")).is_err());
    }

    #[test]
    fn base64_round_trips_busybox_output() {
        // `printf 'nodecheck\0\xff' | base64`
        assert_eq!(
            decode_base64("bm9kZWNoZWNrAP8=\n").expect("decodes"),
            b"nodecheck\0\xff"
        );
        assert!(decode_base64("not*base64").is_err());
    }

    #[test]
    fn failed_assertions_are_collected() {
        let mut checks = Checks::default();
        let check = serde_json::json!({"findings": [
            {"code": "NC401", "severity": "warning", "fix": "enable AHCI"},
            {"code": "NC501", "severity": "ok", "fix": null},
        ]});
        checks.problem(&check, "NC401", true);
        checks.finding_has_fix(&check, "NC401");
        checks.problem(&check, "NC501", false);
        checks.passed_check(&check, "NC501");
        checks.problem(&check, "NC302", true);
        checks.passed_check(&check, "NC401");
        checks.finding_has_fix(&check, "NC501");
        checks.eq("x", &Value::from(1), 2);
        assert_eq!(checks.passed.len(), 4);
        assert_eq!(checks.failed.len(), 4);
    }
}
