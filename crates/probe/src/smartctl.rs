//! `smartctl -j` (smartmontools >= 7.0) JSON: parsing, merging into a [`Drive`], and running
//! smartctl on a live machine.
//!
//! smartctl's JSON is wide and version dependent, so the parser reads the document as a
//! [`serde_json::Value`] and picks the keys it knows: a key with an unexpected type is treated
//! as absent instead of failing the whole report. What must hold is that the document *is*
//! smartctl output (`json_format_version` and a `smartctl` object), so that another tool's
//! JSON, a truncated file or smartctl's text output are reported as such.
//!
//! Key names follow `docs/sources/linux-storage-facts.md` and smartmontools' `ataprint.cpp` /
//! `nvmeprint.cpp`. 128-bit NVMe counters that do not fit a JSON double exactly also come as
//! `KEY_s` decimal strings, which take precedence here.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::facts::{
    AtaDetails, Drive, Facts, Health, HealthSource, Interface, ModelSource, SCHEMA_VERSION,
};

/// The first smartmontools release with `-j`.
const MIN_SMARTCTL_MAJOR: u64 = 7;
/// The only JSON format major version smartmontools has published.
const SUPPORTED_FORMAT_MAJOR: u64 = 1;
/// One NVMe data unit is 1000 blocks of 512 bytes.
const NVME_DATA_UNIT_BYTES: u64 = 512_000;
/// `smartctl -x` on a drive with long logs prints a few hundred KiB; more means something is
/// wrong, and the cap keeps a runaway process from exhausting memory.
const MAX_OUTPUT_BYTES: usize = 16 << 20;
const MAX_STDERR_BYTES: usize = 8 << 10;
/// Long enough for a drive that is spinning up (HDDs can take ~10 s), short enough that a
/// hung USB bridge does not hang the probe.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why smartctl output could not be used.
#[derive(Debug, Error)]
pub enum SmartctlError {
    #[error("smartctl output is empty")]
    Empty,
    #[error("smartctl {version} is too old: JSON output (-j) needs smartmontools 7.0 or newer")]
    TooOld { version: String },
    #[error("this is smartctl's text output, not JSON: run `smartctl -j -x DEVICE`")]
    TextOutput,
    #[error("smartctl JSON is truncated (ends at line {line}, column {column})")]
    Truncated { line: usize, column: usize },
    #[error("not valid JSON: {source}")]
    InvalidJson {
        #[source]
        source: serde_json::Error,
    },
    #[error("not smartctl output: the JSON document is {found}, expected an object")]
    NotAnObject { found: &'static str },
    #[error("not smartctl output: the JSON object has no `{missing}` key")]
    Foreign { missing: &'static str },
    #[error("unsupported smartctl JSON format version {major}.{minor} (this build reads 1.x)")]
    UnsupportedFormat { major: u64, minor: u64 },
    #[error("`{}` is not installed or not on PATH (install smartmontools >= 7.0)", program.display())]
    NotInstalled { program: PathBuf },
    #[error("cannot run `{}`: {source}", program.display())]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("smartctl on {} did not finish within {} s", device.display(), timeout.as_secs())]
    Timeout { device: PathBuf, timeout: Duration },
    #[error("smartctl on {} printed more than {} MiB", device.display(), MAX_OUTPUT_BYTES >> 20)]
    OutputTooLarge { device: PathBuf },
    #[error("smartctl on {} printed nothing (exit status {status:?}): {stderr}", device.display())]
    NoOutput {
        device: PathBuf,
        status: Option<i32>,
        stderr: String,
    },
}

/// `trim` object (ATA, smartctl 7.2+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct TrimSupport {
    pub supported: Option<bool>,
    /// Deterministic read after TRIM (DRAT).
    pub deterministic: Option<bool>,
    /// Reads after TRIM return zeroes (RZAT).
    pub zeroed: Option<bool>,
}

/// `nvme_smart_health_information_log`, with smartctl's units (temperatures in °C).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct NvmeHealthLog {
    pub critical_warning: Option<u8>,
    pub temperature_c: Option<f64>,
    pub available_spare: Option<u8>,
    pub available_spare_threshold: Option<u8>,
    pub percentage_used: Option<u8>,
    pub data_units_read: Option<u64>,
    pub data_units_written: Option<u64>,
    pub host_reads: Option<u64>,
    pub host_writes: Option<u64>,
    pub controller_busy_time: Option<u64>,
    pub power_cycles: Option<u64>,
    pub power_on_hours: Option<u64>,
    pub unsafe_shutdowns: Option<u64>,
    pub media_errors: Option<u64>,
    pub num_err_log_entries: Option<u64>,
    /// Minutes above the warning composite temperature.
    pub warning_temp_time: Option<u32>,
    /// Minutes above the critical composite temperature.
    pub critical_comp_time: Option<u32>,
    /// Sensors 1-8 in °C, `None` where the sensor is not implemented.
    pub temperature_sensors: Vec<Option<f64>>,
}

/// One row of `ata_smart_attributes.table`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct AtaAttribute {
    pub id: u8,
    pub name: String,
    /// Normalized value, worst and threshold (vendor scale, usually 1-253).
    pub value: Option<u8>,
    pub worst: Option<u8>,
    pub thresh: Option<u8>,
    /// The raw 48-bit counter as smartctl decodes it.
    pub raw_value: Option<u64>,
    /// smartctl's rendering of the raw value (`38 (Min/Max 28/39)`).
    pub raw_string: Option<String>,
    /// `now` or `past` when the normalized value fell to the threshold.
    pub when_failed: Option<String>,
    pub prefailure: Option<bool>,
}

/// What nodecheck uses from one `smartctl -j -x` document.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SmartctlReport {
    /// `json_format_version` as `[major, minor]`.
    pub json_format_version: (u64, u64),
    /// `smartctl.version` as `[major, minor]`, when present.
    pub smartctl_version: Option<(u64, u64)>,
    /// `smartctl.exit_status`: smartctl's exit code, a bit mask.
    pub exit_status: Option<u8>,
    /// The exit status bits in words ([`decode_exit_status`]).
    pub status: Vec<String>,
    /// `smartctl.messages[].string`, prefixed with their severity when it is not `information`.
    pub messages: Vec<String>,
    /// `device.name` (`/dev/sda`).
    pub device_name: Option<String>,
    /// `device.type` (`sat`, `nvme`, `scsi`, `usbjmicron`, ...).
    pub device_type: Option<String>,
    /// `device.protocol`: `ATA`, `SCSI` or `NVMe`.
    pub protocol: Option<String>,
    pub model_family: Option<String>,
    pub model_name: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// `user_capacity.bytes`, else NVMe `nvme_total_capacity`.
    pub capacity_bytes: Option<u64>,
    pub logical_block_size: Option<u32>,
    pub physical_block_size: Option<u32>,
    /// ATA `rotation_rate`: 0 = solid state, else rpm.
    pub rotation_rate: Option<u32>,
    /// `form_factor.name` (`2.5 inches`, `M.2`).
    pub form_factor: Option<String>,
    pub trim: Option<TrimSupport>,
    /// Negotiated SATA link speed, Gb/s.
    pub interface_speed_current_gbps: Option<f64>,
    /// Fastest SATA link speed the drive supports, Gb/s.
    pub interface_speed_max_gbps: Option<f64>,
    /// `temperature.current`, °C.
    pub temperature_c: Option<f64>,
    /// `power_on_time.hours`.
    pub power_on_hours: Option<u64>,
    pub power_cycle_count: Option<u64>,
    /// `smart_status.passed`: the drive's overall self-assessment.
    pub smart_passed: Option<bool>,
    /// `smart_support.available`: false for a RAID virtual disk or a bridge that hides SMART.
    pub smart_available: Option<bool>,
    pub nvme_health: Option<NvmeHealthLog>,
    pub ata_attributes: Vec<AtaAttribute>,
}

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

fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
    if slot.is_none() {
        *slot = value;
    }
}

impl SmartctlReport {
    /// The attribute with this id, if the drive reports it.
    pub fn attribute(&self, id: u8) -> Option<&AtaAttribute> {
        self.ata_attributes
            .iter()
            .find(|attribute| attribute.id == id)
    }

    fn attribute_raw(&self, id: u8) -> Option<u64> {
        self.attribute(id).and_then(|attribute| attribute.raw_value)
    }

    pub fn is_nvme(&self) -> bool {
        self.protocol.as_deref() == Some("NVMe") || self.nvme_health.is_some()
    }

    pub fn is_ata(&self) -> bool {
        self.protocol.as_deref() == Some("ATA")
    }

    /// The interface the report implies. smartctl's USB bridge device types (`usbjmicron`,
    /// `usbcypress`, ... for SATA; `sntjmicron`, `sntasmedia`, `sntrealtek` for NVMe) mean
    /// USB whatever the protocol. Otherwise NVMe and ATA are taken at their word; SCSI could
    /// be SAS, USB, virtio-scsi or a cloud volume, so it implies nothing. (`sat` is also used
    /// through USB-SATA bridges; sysfs, which is merged first, knows better.)
    pub fn interface(&self) -> Option<Interface> {
        let device_type = self.device_type.as_deref().unwrap_or_default();
        if device_type.starts_with("usb") || device_type.starts_with("snt") {
            return Some(Interface::Usb);
        }
        match self.protocol.as_deref() {
            Some("NVMe") => Some(Interface::Nvme),
            Some("ATA") => Some(Interface::Sata),
            _ => None,
        }
    }

    /// Host writes in bytes: NVMe data units x 512,000, or ATA attribute 241 scaled by the
    /// unit its name gives (`Total_LBAs_Written` in 512-byte LBAs, `*_GiB`, `*_32MiB`).
    /// `None` when the unit cannot be told.
    pub fn bytes_written(&self) -> Option<u64> {
        if let Some(units) = self
            .nvme_health
            .as_ref()
            .and_then(|log| log.data_units_written)
        {
            return Some(units.saturating_mul(NVME_DATA_UNIT_BYTES));
        }
        let attribute = self.attribute(241)?;
        let raw = attribute.raw_value?;
        let name = attribute.name.as_str();
        let unit: u64 = if name.contains("LBAs") {
            512
        } else if name.ends_with("32MiB") {
            32 << 20
        } else if name.ends_with("GiB") || name.ends_with("_GB") {
            1 << 30
        } else if name.ends_with("MiB") {
            1 << 20
        } else {
            return None;
        };
        Some(raw.saturating_mul(unit))
    }

    /// Whether smartctl read any health data at all: an overall assessment, an NVMe health log
    /// or ATA attributes. A run that failed to open the device or went through a bridge or RAID
    /// controller hiding SMART has none, and its health is unknown, not fine.
    pub fn has_health_data(&self) -> bool {
        self.smart_passed.is_some() || self.nvme_health.is_some() || !self.ata_attributes.is_empty()
    }

    /// Whether the document says anything about a device: identity, capacity or health.
    /// smartctl's output for a device it could not open holds only its own banner and messages.
    pub fn has_device_data(&self) -> bool {
        self.model_name.is_some()
            || self.serial.is_some()
            || self.capacity_bytes.is_some()
            || self.protocol.is_some()
            || self.has_health_data()
    }

    /// smartctl's exit status says the run itself failed (bits 0-2: command line, device
    /// open, device command), as opposed to bits about the drive's condition.
    pub fn run_failed(&self) -> bool {
        self.exit_status.is_some_and(|status| status & 0b111 != 0)
    }

    /// Health as the probe reports it (source `smartctl`).
    pub fn health(&self) -> Health {
        let nvme = self.nvme_health.as_ref();
        let ata_unsafe_shutdowns = self
            .ata_attributes
            .iter()
            .find(|a| a.name == "Unsafe_Shutdown_Count" || a.name == "Unexpect_Power_Loss_Ct")
            .and_then(|a| a.raw_value);
        Health {
            source: HealthSource::Smartctl,
            passed: self.smart_passed,
            critical_warning: nvme.and_then(|log| log.critical_warning),
            available_spare_pct: nvme.and_then(|log| log.available_spare),
            available_spare_threshold_pct: nvme.and_then(|log| log.available_spare_threshold),
            percentage_used: nvme.and_then(|log| log.percentage_used),
            media_errors: nvme.and_then(|log| log.media_errors),
            data_units_written: nvme.and_then(|log| log.data_units_written),
            bytes_written: self.bytes_written(),
            power_on_hours: self
                .power_on_hours
                .or_else(|| nvme.and_then(|log| log.power_on_hours)),
            unsafe_shutdowns: nvme
                .and_then(|log| log.unsafe_shutdowns)
                .or(ata_unsafe_shutdowns),
            warning_temp_minutes: nvme.and_then(|log| log.warning_temp_time),
            critical_temp_minutes: nvme.and_then(|log| log.critical_comp_time),
            // smartctl 7.x prints the thermal management counters as text only.
            thermal_throttle_t1_transitions: None,
            thermal_throttle_t2_transitions: None,
            reallocated_sectors: self.attribute_raw(5),
            pending_sectors: self.attribute_raw(197),
            uncorrectable_sectors: self.attribute_raw(198),
            smartctl_status: self.status.clone(),
            crc_errors: self.attribute_raw(199),
            reported_uncorrectable: self.attribute_raw(187),
        }
    }

    /// Adds what smartctl knows to `drive`, keeping every value the probe already found
    /// (sysfs and ioctls are read directly; smartctl goes through bridges and heuristics).
    /// Health is merged field by field the same way, and smartctl's overall verdict and exit
    /// status bits are always added.
    pub fn merge_into(&self, drive: &mut Drive) {
        self.merge_model(drive);
        fill(&mut drive.firmware, self.firmware.clone());
        fill(&mut drive.serial, self.serial.clone());
        fill(&mut drive.model_family, self.model_family.clone());
        fill(&mut drive.capacity_bytes, self.capacity_bytes);
        fill(&mut drive.interface, self.interface());
        if drive.rotation_rate_rpm.is_none() {
            if let Some(rpm) = self.rotation_rate {
                // The drive's own rotation rate outranks the kernel's flag already in `rotational`.
                drive.rotation_rate_rpm = Some(rpm);
                drive.rotational = Some(rpm != 0);
            }
        }
        fill(&mut drive.logical_block_size, self.logical_block_size);
        fill(&mut drive.physical_block_size, self.physical_block_size);
        fill(
            &mut drive.trim_supported,
            self.trim.and_then(|trim| trim.supported),
        );
        fill(&mut drive.sata_link_gbps, self.interface_speed_current_gbps);
        fill(&mut drive.sata_link_max_gbps, self.interface_speed_max_gbps);
        if drive.temperature_c.is_none() {
            if let Some(celsius) = self.temperature_c {
                drive.temperature_c = Some(celsius);
                drive.temperature_source = Some(HealthSource::Smartctl);
            }
        }
        if let Some(deterministic) = self.trim.and_then(|trim| trim.deterministic) {
            if self.is_ata() || drive.ata.is_some() {
                let ata = drive.ata.get_or_insert_with(AtaDetails::default);
                fill(&mut ata.deterministic_read_after_trim, Some(deterministic));
            }
        }
        // Without health data an empty record would read as "nothing wrong": leave the
        // drive's health as the probe found it (unknown, or the NVMe log read by ioctl).
        if !self.has_health_data() {
            return;
        }
        let ours = self.health();
        match drive.health.as_mut() {
            None => drive.health = Some(ours),
            Some(theirs) => merge_health(theirs, ours),
        }
    }

    /// smartctl's model wins over a SCSI INQUIRY product it extends: the INQUIRY field holds
    /// only the first 16 characters (`Samsung SSD 870` of `Samsung SSD 870 EVO 2TB`), while
    /// smartctl read the ATA IDENTIFY model through the pass-through.
    fn merge_model(&self, drive: &mut Drive) {
        let Some(theirs) = self.model_name.as_deref().map(str::trim) else {
            return;
        };
        if theirs.is_empty() {
            return;
        }
        let replace = match drive.model.as_deref().map(str::trim) {
            None | Some("") => true,
            Some(ours) => {
                drive.model_source == Some(ModelSource::ScsiInquiry)
                    && theirs.len() > ours.len()
                    && theirs
                        .get(..ours.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(ours))
            }
        };
        if replace {
            drive.model = Some(theirs.to_owned());
            drive.model_source = Some(ModelSource::Smartctl);
        }
    }

    /// A [`Drive`] from this report alone (for `nodecheck triage FILE`).
    pub fn to_drive(&self) -> Drive {
        let name = self
            .device_name
            .as_deref()
            .map(|name| name.strip_prefix("/dev/").unwrap_or(name).to_owned())
            .unwrap_or_default();
        let mut drive = Drive {
            name,
            ..Drive::default()
        };
        self.merge_into(&mut drive);
        drive
    }

    /// A [`Facts`] document holding just this drive, as read from a saved report: not live,
    /// no mount, no stack. `origin` (the file name) becomes the document's `path` and `root`
    /// (what it was replayed from), and the drive's name when smartctl named no device;
    /// smartctl's messages become warnings.
    pub fn to_facts(&self, origin: &str) -> Facts {
        let mut drive = self.to_drive();
        if drive.name.is_empty() {
            drive.name = origin.to_owned();
        }
        Facts {
            schema_version: SCHEMA_VERSION,
            probe_version: env!("CARGO_PKG_VERSION").to_owned(),
            root: origin.to_owned(),
            live: false,
            privileged: false,
            path: origin.to_owned(),
            drives: vec![drive],
            warnings: self
                .messages
                .iter()
                .map(|message| format!("smartctl: {message}"))
                .collect(),
            ..Facts::default()
        }
    }
}

fn merge_health(theirs: &mut Health, ours: Health) {
    fill(&mut theirs.passed, ours.passed);
    fill(&mut theirs.critical_warning, ours.critical_warning);
    fill(&mut theirs.available_spare_pct, ours.available_spare_pct);
    fill(
        &mut theirs.available_spare_threshold_pct,
        ours.available_spare_threshold_pct,
    );
    fill(&mut theirs.percentage_used, ours.percentage_used);
    fill(&mut theirs.media_errors, ours.media_errors);
    fill(&mut theirs.data_units_written, ours.data_units_written);
    fill(&mut theirs.bytes_written, ours.bytes_written);
    fill(&mut theirs.power_on_hours, ours.power_on_hours);
    fill(&mut theirs.unsafe_shutdowns, ours.unsafe_shutdowns);
    fill(&mut theirs.warning_temp_minutes, ours.warning_temp_minutes);
    fill(
        &mut theirs.critical_temp_minutes,
        ours.critical_temp_minutes,
    );
    fill(
        &mut theirs.thermal_throttle_t1_transitions,
        ours.thermal_throttle_t1_transitions,
    );
    fill(
        &mut theirs.thermal_throttle_t2_transitions,
        ours.thermal_throttle_t2_transitions,
    );
    fill(&mut theirs.reallocated_sectors, ours.reallocated_sectors);
    fill(&mut theirs.pending_sectors, ours.pending_sectors);
    fill(
        &mut theirs.uncorrectable_sectors,
        ours.uncorrectable_sectors,
    );
    fill(&mut theirs.crc_errors, ours.crc_errors);
    fill(
        &mut theirs.reported_uncorrectable,
        ours.reported_uncorrectable,
    );
    for status in ours.smartctl_status {
        if !theirs.smartctl_status.contains(&status) {
            theirs.smartctl_status.push(status);
        }
    }
}

/// Where distributions install smartctl, for when `PATH` lacks the sbin directories (a
/// root shell entered with `su` without `-`, cron, systemd units with a minimal PATH).
const SBIN_LOCATIONS: [&str; 3] = [
    "/usr/sbin/smartctl",
    "/usr/local/sbin/smartctl",
    "/sbin/smartctl",
];

/// One run of smartctl: the parsed report and the exact bytes smartctl printed, which a
/// snapshot saves so that its replay reads what the live probe read.
#[derive(Debug, Clone)]
pub struct SmartctlRun {
    pub report: SmartctlReport,
    pub output: Vec<u8>,
}

/// Runs `smartctl -j -x DEV` and parses its output. A non-zero exit status is normal (it is
/// a bit mask of findings) and is decoded, not treated as failure. smartctl is looked up on
/// `PATH`, then in the usual sbin directories.
pub fn run_smartctl(dev: &Path) -> Result<SmartctlRun, SmartctlError> {
    match run_smartctl_with(Path::new("smartctl"), dev, DEFAULT_TIMEOUT) {
        Err(SmartctlError::NotInstalled { program }) => {
            match SBIN_LOCATIONS
                .iter()
                .map(Path::new)
                .find(|path| path.is_file())
            {
                Some(path) => run_smartctl_with(path, dev, DEFAULT_TIMEOUT),
                None => Err(SmartctlError::NotInstalled { program }),
            }
        }
        other => other,
    }
}

/// [`run_smartctl`] with an explicit program and timeout (tests use a stand-in script).
pub fn run_smartctl_with(
    program: &Path,
    dev: &Path,
    timeout: Duration,
) -> Result<SmartctlRun, SmartctlError> {
    let mut child = Command::new(program)
        .arg("-j")
        .arg("-x")
        .arg(dev)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                SmartctlError::NotInstalled {
                    program: program.to_path_buf(),
                }
            } else {
                SmartctlError::Spawn {
                    program: program.to_path_buf(),
                    source,
                }
            }
        })?;

    // Both pipes are drained on their own threads so a chatty child never blocks on a full
    // pipe while we wait for it.
    let stdout = child
        .stdout
        .take()
        .map(|pipe| drain(pipe, MAX_OUTPUT_BYTES));
    let stderr = child
        .stderr
        .take()
        .map(|pipe| drain(pipe, MAX_STDERR_BYTES));

    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                // Best effort: the child may have exited in between.
                let _ = child.kill();
                let _ = child.wait();
                // The drain threads are left to finish on their own: a grandchild may still
                // hold the pipes open, and joining them could block past the timeout.
                return Err(SmartctlError::Timeout {
                    device: dev.to_path_buf(),
                    timeout,
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(source) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SmartctlError::Spawn {
                    program: program.to_path_buf(),
                    source,
                });
            }
        }
    };

    let (output, overflowed) = stdout
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default();
    let (error_output, _) = stderr
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default();
    if overflowed {
        return Err(SmartctlError::OutputTooLarge {
            device: dev.to_path_buf(),
        });
    }
    if output.trim_ascii().is_empty() {
        return Err(SmartctlError::NoOutput {
            device: dev.to_path_buf(),
            status: status.code(),
            stderr: String::from_utf8_lossy(error_output.trim_ascii()).into_owned(),
        });
    }
    let report = parse(&output)?;
    Ok(SmartctlRun { report, output })
}

/// Reads a pipe to the end on a thread, keeping at most `limit` bytes; the flag says whether
/// more arrived.
fn drain<R: Read + Send + 'static>(
    mut pipe: R,
    limit: usize,
) -> std::thread::JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut overflowed = false;
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => {
                    let room = limit.saturating_sub(kept.len());
                    if read > room {
                        overflowed = true;
                    }
                    kept.extend_from_slice(&chunk[..read.min(room)]);
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        (kept, overflowed)
    })
}
