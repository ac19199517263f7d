//! smartctl's JSON document into a [`SmartctlReport`], key by key: a key with an unexpected
//! type is absent, a document that is not smartctl output is an error.

use serde_json::{Map, Value};

use super::{AtaAttribute, NvmeHealthLog, SmartctlError, SmartctlReport, TrimSupport};

/// The first smartmontools release with `-j`.
const MIN_SMARTCTL_MAJOR: u64 = 7;
/// The only JSON format major version smartmontools has published.
const SUPPORTED_FORMAT_MAJOR: u64 = 1;

/// smartctl's exit status bits in words (smartctl(8), "RETURN VALUES").
pub fn decode_exit_status(status: u8) -> Vec<String> {
    const BITS: [&str; 8] = [
        "command line did not parse",
        "device open failed",
        "a device command failed or SMART data had a checksum error",
        "SMART status says the disk is failing",
        "prefail attributes at or below threshold now",
        "attributes at or below threshold in the past",
        "device error log has errors",
        "self-test log has errors",
    ];
    BITS.iter()
        .enumerate()
        .filter(|(bit, _)| status & (1 << bit) != 0)
        .map(|(_, text)| (*text).to_owned())
        .collect()
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Recognises smartctl's text banner (`smartctl 6.6 2017-11-05 r4594 ...`), which is what a
/// pre-7.0 smartctl prints when asked for `-j`, or what a user saves without `-j`.
fn text_output_error(text: &[u8]) -> Option<SmartctlError> {
    let rest = text.strip_prefix(b"smartctl ")?;
    let version: String = rest
        .iter()
        .take_while(|byte| byte.is_ascii_digit() || **byte == b'.')
        .map(|&byte| char::from(byte))
        .collect();
    let major: u64 = version.split('.').next()?.parse().ok()?;
    Some(if major < MIN_SMARTCTL_MAJOR {
        SmartctlError::TooOld { version }
    } else {
        SmartctlError::TextOutput
    })
}

/// Parses one `smartctl -j` document.
pub fn parse(json: &[u8]) -> Result<SmartctlReport, SmartctlError> {
    let trimmed = json.trim_ascii_start();
    if trimmed.is_empty() {
        return Err(SmartctlError::Empty);
    }
    if let Some(error) = text_output_error(trimmed) {
        return Err(error);
    }
    let value: Value = serde_json::from_slice(json).map_err(|source| {
        if source.is_eof() {
            SmartctlError::Truncated {
                line: source.line(),
                column: source.column(),
            }
        } else {
            SmartctlError::InvalidJson { source }
        }
    })?;
    let root = value.as_object().ok_or(SmartctlError::NotAnObject {
        found: json_kind(&value),
    })?;
    let format = root
        .get("json_format_version")
        .and_then(version_pair)
        .ok_or(SmartctlError::Foreign {
            missing: "json_format_version",
        })?;
    if format.0 != SUPPORTED_FORMAT_MAJOR {
        return Err(SmartctlError::UnsupportedFormat {
            major: format.0,
            minor: format.1,
        });
    }
    let smartctl =
        root.get("smartctl")
            .and_then(Value::as_object)
            .ok_or(SmartctlError::Foreign {
                missing: "smartctl",
            })?;
    let smartctl_version = smartctl.get("version").and_then(version_pair);
    if let Some((major, minor)) = smartctl_version {
        if major < MIN_SMARTCTL_MAJOR {
            return Err(SmartctlError::TooOld {
                version: format!("{major}.{minor}"),
            });
        }
    }
    let exit_status = smartctl
        .get("exit_status")
        .and_then(Value::as_u64)
        .and_then(|status| u8::try_from(status).ok());

    let device = root.get("device");
    let interface_speed = root.get("interface_speed");
    Ok(SmartctlReport {
        json_format_version: format,
        smartctl_version,
        exit_status,
        status: exit_status.map(decode_exit_status).unwrap_or_default(),
        messages: messages(smartctl),
        device_name: string_at(device, "name"),
        device_type: string_at(device, "type"),
        protocol: string_at(device, "protocol"),
        model_family: string_at(Some(&value), "model_family"),
        nvme_pci_vendor_id: u64_at(root.get("nvme_pci_vendor"), "id")
            .and_then(|id| u16::try_from(id).ok()),
        model_name: string_at(Some(&value), "model_name"),
        serial: string_at(Some(&value), "serial_number"),
        firmware: string_at(Some(&value), "firmware_version"),
        capacity_bytes: u64_at(root.get("user_capacity"), "bytes")
            .or_else(|| u64_at(Some(&value), "nvme_total_capacity")),
        logical_block_size: u32_at(Some(&value), "logical_block_size"),
        physical_block_size: u32_at(Some(&value), "physical_block_size"),
        rotation_rate: u32_at(Some(&value), "rotation_rate"),
        form_factor: string_at(root.get("form_factor"), "name"),
        trim: root
            .get("trim")
            .and_then(Value::as_object)
            .map(|trim| TrimSupport {
                supported: trim.get("supported").and_then(Value::as_bool),
                deterministic: trim.get("deterministic").and_then(Value::as_bool),
                zeroed: trim.get("zeroed").and_then(Value::as_bool),
            }),
        interface_speed_current_gbps: interface_speed
            .and_then(|speed| speed.get("current"))
            .and_then(link_speed_gbps),
        interface_speed_max_gbps: interface_speed
            .and_then(|speed| speed.get("max"))
            .and_then(link_speed_gbps),
        temperature_c: root
            .get("temperature")
            .and_then(|t| t.get("current"))
            .and_then(finite_f64),
        power_on_hours: u64_at(root.get("power_on_time"), "hours"),
        power_cycle_count: u64_at(Some(&value), "power_cycle_count"),
        smart_available: root
            .get("smart_support")
            .and_then(|support| support.get("available"))
            .and_then(Value::as_bool),
        smart_passed: root
            .get("smart_status")
            .and_then(|status| status.get("passed"))
            .and_then(Value::as_bool),
        nvme_health: root
            .get("nvme_smart_health_information_log")
            .filter(|log| log.is_object())
            .map(nvme_health_log),
        ata_attributes: root
            .get("ata_smart_attributes")
            .and_then(|attributes| attributes.get("table"))
            .and_then(Value::as_array)
            .map(|table| table.iter().filter_map(ata_attribute).collect())
            .unwrap_or_default(),
        failed_self_tests: super::self_test::failed_self_tests(&value),
    })
}

fn version_pair(value: &Value) -> Option<(u64, u64)> {
    let parts = value.as_array()?;
    let major = parts.first()?.as_u64()?;
    let minor = parts.get(1).and_then(Value::as_u64).unwrap_or(0);
    Some((major, minor))
}

fn messages(smartctl: &Map<String, Value>) -> Vec<String> {
    let Some(list) = smartctl.get("messages").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|message| {
            let text = message.get("string")?.as_str()?.trim();
            match message.get("severity").and_then(Value::as_str) {
                Some(severity) if severity != "information" => Some(format!("{severity}: {text}")),
                _ => Some(text.to_owned()),
            }
        })
        .collect()
}

/// A non-empty, trimmed string at `parent.key`.
fn string_at(parent: Option<&Value>, key: &str) -> Option<String> {
    let text = parent?.get(key)?.as_str()?.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// An unsigned counter at `parent.key`, preferring smartctl's exact `key_s` string.
///
/// Integers beyond `u64` (only possible through `key_s` or hostile input) saturate.
fn u64_at(parent: Option<&Value>, key: &str) -> Option<u64> {
    let parent = parent?;
    let exact = parent
        .get(format!("{key}_s").as_str())
        .and_then(Value::as_str)
        .and_then(|text| text.trim().parse::<u128>().ok())
        .map(|wide| u64::try_from(wide).unwrap_or(u64::MAX));
    exact.or_else(|| parent.get(key).and_then(unsigned))
}

fn unsigned(value: &Value) -> Option<u64> {
    if let Some(exact) = value.as_u64() {
        return Some(exact);
    }
    // serde_json turns integers beyond u64 into doubles; those only come from hostile or
    // exotic input, and saturating keeps "a very large count" rather than dropping it.
    let float = value.as_f64()?;
    (float.is_finite() && float >= 0.0 && float.fract() == 0.0).then_some(float as u64)
}

fn u32_at(parent: Option<&Value>, key: &str) -> Option<u32> {
    u64_at(parent, key).and_then(|value| u32::try_from(value).ok())
}

fn u8_at(parent: Option<&Value>, key: &str) -> Option<u8> {
    u64_at(parent, key).and_then(|value| u8::try_from(value).ok())
}

fn finite_f64(value: &Value) -> Option<f64> {
    value.as_f64().filter(|float| float.is_finite())
}

/// A SATA link speed object: `units_per_second` x `bits_per_unit` when present (exact), else
/// the leading number of `string` (`6.0 Gb/s`).
fn link_speed_gbps(speed: &Value) -> Option<f64> {
    let units = speed.get("units_per_second").and_then(Value::as_u64);
    let bits = speed.get("bits_per_unit").and_then(Value::as_u64);
    if let (Some(units), Some(bits)) = (units, bits) {
        let bits_per_second = units.checked_mul(bits)?;
        if bits_per_second > 0 {
            return Some(bits_per_second as f64 / 1e9);
        }
    }
    let text = speed.get("string")?.as_str()?;
    let number: String = text
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number
        .parse::<f64>()
        .ok()
        .filter(|gbps| gbps.is_finite() && *gbps > 0.0)
}

fn nvme_health_log(log: &Value) -> NvmeHealthLog {
    let log = Some(log);
    NvmeHealthLog {
        critical_warning: u8_at(log, "critical_warning"),
        temperature_c: log
            .and_then(|log| log.get("temperature"))
            .and_then(finite_f64),
        available_spare: u8_at(log, "available_spare"),
        available_spare_threshold: u8_at(log, "available_spare_threshold"),
        percentage_used: u8_at(log, "percentage_used"),
        data_units_read: u64_at(log, "data_units_read"),
        data_units_written: u64_at(log, "data_units_written"),
        host_reads: u64_at(log, "host_reads"),
        host_writes: u64_at(log, "host_writes"),
        controller_busy_time: u64_at(log, "controller_busy_time"),
        power_cycles: u64_at(log, "power_cycles"),
        power_on_hours: u64_at(log, "power_on_hours"),
        unsafe_shutdowns: u64_at(log, "unsafe_shutdowns"),
        media_errors: u64_at(log, "media_errors"),
        num_err_log_entries: u64_at(log, "num_err_log_entries"),
        warning_temp_time: u32_at(log, "warning_temp_time"),
        critical_comp_time: u32_at(log, "critical_comp_time"),
        temperature_sensors: log
            .and_then(|log| log.get("temperature_sensors"))
            .and_then(Value::as_array)
            .map(|sensors| sensors.iter().take(8).map(finite_f64).collect())
            .unwrap_or_default(),
    }
}

fn ata_attribute(row: &Value) -> Option<AtaAttribute> {
    let id = u8::try_from(row.get("id")?.as_u64()?).ok()?;
    let raw = row.get("raw");
    Some(AtaAttribute {
        id,
        name: string_at(Some(row), "name").unwrap_or_default(),
        value: u8_at(Some(row), "value"),
        worst: u8_at(Some(row), "worst"),
        thresh: u8_at(Some(row), "thresh"),
        raw_value: u64_at(raw, "value"),
        raw_string: string_at(raw, "string"),
        when_failed: string_at(Some(row), "when_failed"),
        prefailure: row
            .get("flags")
            .and_then(|flags| flags.get("prefailure"))
            .and_then(Value::as_bool),
    })
}
