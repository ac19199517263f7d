//! The self-test logs in smartctl's JSON (`ata_smart_self_test_log`, `nvme_self_test_log`):
//! which recorded self-tests failed and still count.

use serde_json::Value;

/// What every failed self-test entry in [`Health::smartctl_status`](crate::facts::Health)
/// starts with, so the verdict tells them from the decoded exit status bits.
pub const FAILED_SELF_TEST: &str = "failed self-test";

/// NVMe "Device Self-test Result" codes that mean the test failed (NVMe base specification,
/// Get Log Page 06h): 5 a fatal error, 6 a failed segment of unknown number, 7 failed segments.
/// Codes 1–4 are aborts (by a command, a reset, a namespace removal, a format), not failures.
const NVME_FAILED_RESULTS: [u64; 3] = [5, 6, 7];
/// NVMe self-test code of an extended test.
const NVME_EXTENDED: u64 = 2;

/// One line per failed self-test that still counts, newest first. As smartctl does for its
/// exit status bit 7, failures older than a later successful extended test are outdated.
pub fn failed_self_tests(root: &Value) -> Vec<String> {
    let mut failed = Vec::new();
    let ata_tables = ["standard", "extended"].into_iter().filter_map(|kind| {
        root.get("ata_smart_self_test_log")?
            .get(kind)?
            .get("table")?
            .as_array()
    });
    for table in ata_tables {
        for entry in table {
            let status = entry.get("status");
            let passed = status
                .and_then(|s| s.get("passed"))
                .and_then(Value::as_bool);
            let kind = text(entry.get("type"));
            if passed == Some(true) && kind.to_ascii_lowercase().contains("extended") {
                break;
            }
            if passed == Some(false) {
                failed.push(describe(&kind, &text(status), entry.get("lifetime_hours")));
            }
        }
    }
    let nvme_table = root
        .get("nvme_self_test_log")
        .and_then(|log| log.get("table"))
        .and_then(Value::as_array);
    for entry in nvme_table.into_iter().flatten() {
        let code = entry.get("self_test_code");
        let result = entry.get("self_test_result");
        let result_value = result.and_then(|r| r.get("value")).and_then(Value::as_u64);
        let code_value = code.and_then(|c| c.get("value")).and_then(Value::as_u64);
        if result_value == Some(0) && code_value == Some(NVME_EXTENDED) {
            break;
        }
        if result_value.is_some_and(|value| NVME_FAILED_RESULTS.contains(&value)) {
            failed.push(describe(
                &text(code),
                &text(result),
                entry.get("power_on_hours"),
            ));
        }
    }
    failed
}

/// smartctl's `{"value": …, "string": "…"}` pair as its string.
fn text(pair: Option<&Value>) -> String {
    pair.and_then(|p| p.get("string"))
        .and_then(Value::as_str)
        .unwrap_or("self-test")
        .trim()
        .to_owned()
}

fn describe(kind: &str, status: &str, hours: Option<&Value>) -> String {
    match hours.and_then(Value::as_u64) {
        Some(hours) => format!("{FAILED_SELF_TEST}: {kind}, {status}, at {hours} power-on hours"),
        None => format!("{FAILED_SELF_TEST}: {kind}, {status}"),
    }
}
