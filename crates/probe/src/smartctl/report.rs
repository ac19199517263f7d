//! What the probe keeps of a smartctl report.

use serde::Serialize;

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
    /// NVMe `nvme_pci_vendor.id`: the controller's PCI vendor id (Identify Controller VID).
    pub nvme_pci_vendor_id: Option<u16>,
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
    /// Failed self-tests in the self-test log that a later extended test did not outdate,
    /// one line each (`failed self-test: Short offline, Completed: read failure, ...`).
    pub failed_self_tests: Vec<String>,
}
