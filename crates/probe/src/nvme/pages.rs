//! Byte-level parsers (and, for tests and fixtures, encoders) of the NVMe Identify Controller
//! data structure and the SMART / Health Information log page.
//!
//! Layouts follow the NVM Express Base Specification as summarised in
//! `docs/sources/linux-storage-facts.md`. All multi-byte fields are little endian. The parsers
//! read only fixed offsets inside a length-checked buffer, so no input can make them panic.

use thiserror::Error;

use crate::ata::decode_ascii_field;
use crate::facts::{Health, HealthSource, NvmeIdentify};

/// Length of the Identify Controller data structure (CNS 01h).
pub const IDENTIFY_PAGE_LEN: usize = 4096;
/// Length of the SMART / Health Information log page (log identifier 02h).
pub const SMART_LOG_LEN: usize = 512;

/// One NVMe data unit in the SMART log is 1000 blocks of 512 bytes.
const DATA_UNIT_BYTES: u64 = 512_000;

/// Kelvin offset used to turn NVMe temperatures into degrees Celsius.
const KELVIN_OFFSET: f64 = 273.15;

// Identify Controller offsets.
const ID_VID: usize = 0;
const ID_SN: std::ops::Range<usize> = 4..24;
const ID_MN: std::ops::Range<usize> = 24..64;
const ID_FR: std::ops::Range<usize> = 64..72;
const ID_WCTEMP: usize = 266;
const ID_CCTEMP: usize = 268;
const ID_HMPRE: usize = 272;
const ID_HMMIN: usize = 276;
const ID_TNVMCAP: usize = 280;
const ID_ONCS: usize = 520;
const ID_VWC: usize = 525;

const ONCS_DATASET_MANAGEMENT: u16 = 1 << 2;
const ONCS_WRITE_ZEROES: u16 = 1 << 3;
const VWC_PRESENT: u8 = 1 << 0;

// SMART / Health log offsets.
const SL_CRITICAL_WARNING: usize = 0;
const SL_TEMPERATURE: usize = 1;
const SL_AVAILABLE_SPARE: usize = 3;
const SL_SPARE_THRESHOLD: usize = 4;
const SL_PERCENTAGE_USED: usize = 5;
const SL_ENDURANCE_GROUP_WARNING: usize = 6;
const SL_DATA_UNITS_READ: usize = 32;
const SL_DATA_UNITS_WRITTEN: usize = 48;
const SL_HOST_READS: usize = 64;
const SL_HOST_WRITES: usize = 80;
const SL_CONTROLLER_BUSY: usize = 96;
const SL_POWER_CYCLES: usize = 112;
const SL_POWER_ON_HOURS: usize = 128;
const SL_UNSAFE_SHUTDOWNS: usize = 144;
const SL_MEDIA_ERRORS: usize = 160;
const SL_ERROR_LOG_ENTRIES: usize = 176;
const SL_WARNING_TEMP_TIME: usize = 192;
const SL_CRITICAL_TEMP_TIME: usize = 196;
const SL_SENSORS: usize = 200;
const SL_T1_TRANSITIONS: usize = 216;
const SL_T2_TRANSITIONS: usize = 220;
const SL_T1_TOTAL_TIME: usize = 224;
const SL_T2_TOTAL_TIME: usize = 228;

/// A page buffer that cannot be the structure it claims to be.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PageError {
    #[error("{what} needs {expected} bytes, got {actual}")]
    Truncated {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
}

fn check_len(page: &[u8], expected: usize, what: &'static str) -> Result<(), PageError> {
    if page.len() < expected {
        return Err(PageError::Truncated {
            what,
            expected,
            actual: page.len(),
        });
    }
    Ok(())
}

// The readers below are only called after `check_len`, with constant offsets that lie inside
// the checked length; the array conversions therefore cannot fail, but they still go through
// `get` so that a future offset mistake yields zero instead of a panic.
fn read_array<const N: usize>(page: &[u8], offset: usize) -> [u8; N] {
    page.get(offset..offset + N)
        .and_then(|bytes| <[u8; N]>::try_from(bytes).ok())
        .unwrap_or([0; N])
}

fn read_u8(page: &[u8], offset: usize) -> u8 {
    page.get(offset).copied().unwrap_or(0)
}

fn read_u16(page: &[u8], offset: usize) -> u16 {
    u16::from_le_bytes(read_array(page, offset))
}

fn read_u32(page: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(read_array(page, offset))
}

fn read_u128(page: &[u8], offset: usize) -> u128 {
    u128::from_le_bytes(read_array(page, offset))
}

fn saturate_u64(value: u128) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// Parses an Identify Controller data structure (4096 bytes; longer buffers are accepted and
/// the tail ignored).
pub fn parse_identify_controller(page: &[u8]) -> Result<NvmeIdentify, PageError> {
    check_len(page, IDENTIFY_PAGE_LEN, "NVMe Identify Controller")?;
    let oncs = read_u16(page, ID_ONCS);
    Ok(NvmeIdentify {
        vendor_id: read_u16(page, ID_VID),
        serial: decode_ascii_field(&page[ID_SN]),
        model: decode_ascii_field(&page[ID_MN]),
        firmware: decode_ascii_field(&page[ID_FR]),
        wctemp_k: read_u16(page, ID_WCTEMP),
        cctemp_k: read_u16(page, ID_CCTEMP),
        hmpre_4k: read_u32(page, ID_HMPRE),
        hmmin_4k: read_u32(page, ID_HMMIN),
        total_capacity_bytes: saturate_u64(read_u128(page, ID_TNVMCAP)),
        dataset_management: oncs & ONCS_DATASET_MANAGEMENT != 0,
        write_zeroes: oncs & ONCS_WRITE_ZEROES != 0,
        volatile_write_cache: read_u8(page, ID_VWC) & VWC_PRESENT != 0,
        power: super::power::parse(page),
    })
}

/// Every field of the SMART / Health Information log page (NVMe 1.4 layout).
///
/// 128-bit counters are kept at full width here; [`SmartLog::health`] saturates them into the
/// `u64` fields of [`Health`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SmartLog {
    /// Bit 0 spare below threshold, bit 1 temperature, bit 2 reliability degraded,
    /// bit 3 read-only, bit 4 volatile memory backup failed.
    pub critical_warning: u8,
    /// Composite temperature in Kelvin; 0 means not reported.
    pub composite_temperature_k: u16,
    pub available_spare_pct: u8,
    pub available_spare_threshold_pct: u8,
    /// May exceed 100 once the rated endurance is used up.
    pub percentage_used: u8,
    pub endurance_group_critical_warning: u8,
    /// Data units of 512,000 bytes read by the host.
    pub data_units_read: u128,
    /// Data units of 512,000 bytes written by the host.
    pub data_units_written: u128,
    pub host_read_commands: u128,
    pub host_write_commands: u128,
    /// Minutes the controller was busy with I/O.
    pub controller_busy_minutes: u128,
    pub power_cycles: u128,
    pub power_on_hours: u128,
    pub unsafe_shutdowns: u128,
    pub media_errors: u128,
    pub error_log_entries: u128,
    /// Minutes spent above the warning composite temperature threshold (WCTEMP).
    pub warning_temp_minutes: u32,
    /// Minutes spent above the critical composite temperature threshold (CCTEMP).
    pub critical_temp_minutes: u32,
    /// Temperature sensors 1-8 in Kelvin; 0 means the sensor is not implemented.
    pub temperature_sensors_k: [u16; 8],
    /// Times the controller entered thermal management level 1 (light throttling).
    pub thermal_t1_transitions: u32,
    /// Times the controller entered thermal management level 2 (heavy throttling).
    pub thermal_t2_transitions: u32,
    /// Seconds spent in thermal management level 1.
    pub thermal_t1_seconds: u32,
    /// Seconds spent in thermal management level 2.
    pub thermal_t2_seconds: u32,
}

/// Parses a SMART / Health Information log page (512 bytes; longer buffers are accepted and
/// the tail ignored).
pub fn parse_smart_log(page: &[u8]) -> Result<SmartLog, PageError> {
    check_len(page, SMART_LOG_LEN, "NVMe SMART / Health log")?;
    let mut temperature_sensors_k = [0u16; 8];
    for (index, sensor) in temperature_sensors_k.iter_mut().enumerate() {
        *sensor = read_u16(page, SL_SENSORS + 2 * index);
    }
    Ok(SmartLog {
        critical_warning: read_u8(page, SL_CRITICAL_WARNING),
        composite_temperature_k: read_u16(page, SL_TEMPERATURE),
        available_spare_pct: read_u8(page, SL_AVAILABLE_SPARE),
        available_spare_threshold_pct: read_u8(page, SL_SPARE_THRESHOLD),
        percentage_used: read_u8(page, SL_PERCENTAGE_USED),
        endurance_group_critical_warning: read_u8(page, SL_ENDURANCE_GROUP_WARNING),
        data_units_read: read_u128(page, SL_DATA_UNITS_READ),
        data_units_written: read_u128(page, SL_DATA_UNITS_WRITTEN),
        host_read_commands: read_u128(page, SL_HOST_READS),
        host_write_commands: read_u128(page, SL_HOST_WRITES),
        controller_busy_minutes: read_u128(page, SL_CONTROLLER_BUSY),
        power_cycles: read_u128(page, SL_POWER_CYCLES),
        power_on_hours: read_u128(page, SL_POWER_ON_HOURS),
        unsafe_shutdowns: read_u128(page, SL_UNSAFE_SHUTDOWNS),
        media_errors: read_u128(page, SL_MEDIA_ERRORS),
        error_log_entries: read_u128(page, SL_ERROR_LOG_ENTRIES),
        warning_temp_minutes: read_u32(page, SL_WARNING_TEMP_TIME),
        critical_temp_minutes: read_u32(page, SL_CRITICAL_TEMP_TIME),
        temperature_sensors_k,
        thermal_t1_transitions: read_u32(page, SL_T1_TRANSITIONS),
        thermal_t2_transitions: read_u32(page, SL_T2_TRANSITIONS),
        thermal_t1_seconds: read_u32(page, SL_T1_TOTAL_TIME),
        thermal_t2_seconds: read_u32(page, SL_T2_TOTAL_TIME),
    })
}

fn kelvin_to_celsius(kelvin: u16) -> Option<f64> {
    if kelvin == 0 {
        return None;
    }
    // Round to 0.01 °C so that 308 K reads as 34.85, not 34.850000000000023.
    Some(((f64::from(kelvin) - KELVIN_OFFSET) * 100.0).round() / 100.0)
}

impl SmartLog {
    /// The composite temperature in degrees Celsius, `None` when the drive reports 0 K.
    pub fn temperature_c(&self) -> Option<f64> {
        kelvin_to_celsius(self.composite_temperature_k)
    }

    /// The implemented temperature sensors (1-based index, degrees Celsius).
    pub fn sensor_temperatures_c(&self) -> Vec<(usize, f64)> {
        self.temperature_sensors_k
            .iter()
            .enumerate()
            .filter_map(|(index, &kelvin)| kelvin_to_celsius(kelvin).map(|c| (index + 1, c)))
            .collect()
    }

    /// Host writes in bytes, saturating at `u64::MAX`.
    pub fn bytes_written(&self) -> u64 {
        saturate_u64(self.data_units_written).saturating_mul(DATA_UNIT_BYTES)
    }

    /// The log as the probe's [`Health`] record (source `nvme-smart-log`).
    pub fn health(&self) -> Health {
        Health {
            source: HealthSource::NvmeSmartLog,
            passed: None,
            critical_warning: Some(self.critical_warning),
            available_spare_pct: Some(self.available_spare_pct),
            available_spare_threshold_pct: Some(self.available_spare_threshold_pct),
            percentage_used: Some(self.percentage_used),
            media_errors: Some(saturate_u64(self.media_errors)),
            data_units_written: Some(saturate_u64(self.data_units_written)),
            bytes_written: Some(self.bytes_written()),
            power_on_hours: Some(saturate_u64(self.power_on_hours)),
            unsafe_shutdowns: Some(saturate_u64(self.unsafe_shutdowns)),
            warning_temp_minutes: Some(self.warning_temp_minutes),
            critical_temp_minutes: Some(self.critical_temp_minutes),
            thermal_throttle_t1_transitions: Some(self.thermal_t1_transitions),
            thermal_throttle_t2_transitions: Some(self.thermal_t2_transitions),
            reallocated_sectors: None,
            pending_sectors: None,
            uncorrectable_sectors: None,
            smartctl_status: Vec::new(),
            crc_errors: None,
            reported_uncorrectable: None,
        }
    }
}

/// Copies `text` into a fixed-width, space-padded ASCII field, truncating what does not fit.
fn write_ascii_field(field: &mut [u8], text: &str) {
    field.fill(b' ');
    for (slot, byte) in field.iter_mut().zip(text.bytes()) {
        *slot = byte;
    }
}

/// Writes each little-endian field at its offset.
fn put_fields(page: &mut [u8], fields: &[(usize, &[u8])]) {
    for &(offset, bytes) in fields {
        page[offset..offset + bytes.len()].copy_from_slice(bytes);
    }
}

impl NvmeIdentify {
    /// The Identify Controller page these fields come from, for tests and fixtures: strings
    /// space padded and truncated to their field, ONCS and VWC holding only the bits parsed.
    pub fn to_page(&self) -> Vec<u8> {
        let mut oncs = 0;
        if self.dataset_management {
            oncs |= ONCS_DATASET_MANAGEMENT;
        }
        if self.write_zeroes {
            oncs |= ONCS_WRITE_ZEROES;
        }
        let vwc = if self.volatile_write_cache {
            VWC_PRESENT
        } else {
            0
        };
        let mut page = vec![0u8; IDENTIFY_PAGE_LEN];
        write_ascii_field(&mut page[ID_SN], &self.serial);
        write_ascii_field(&mut page[ID_MN], &self.model);
        write_ascii_field(&mut page[ID_FR], &self.firmware);
        put_fields(
            &mut page,
            &[
                (ID_VID, &self.vendor_id.to_le_bytes()),
                (ID_WCTEMP, &self.wctemp_k.to_le_bytes()),
                (ID_CCTEMP, &self.cctemp_k.to_le_bytes()),
                (ID_HMPRE, &self.hmpre_4k.to_le_bytes()),
                (ID_HMMIN, &self.hmmin_4k.to_le_bytes()),
                (
                    ID_TNVMCAP,
                    &u128::from(self.total_capacity_bytes).to_le_bytes(),
                ),
                (ID_ONCS, &oncs.to_le_bytes()),
                (ID_VWC, &[vwc]),
            ],
        );
        page
    }
}

impl SmartLog {
    /// The log as a raw 512-byte page, for tests and fixtures.
    pub fn to_page(&self) -> Vec<u8> {
        let mut page = vec![0u8; SMART_LOG_LEN];
        put_fields(
            &mut page,
            &[
                (SL_CRITICAL_WARNING, &[self.critical_warning]),
                (SL_TEMPERATURE, &self.composite_temperature_k.to_le_bytes()),
                (SL_AVAILABLE_SPARE, &[self.available_spare_pct]),
                (SL_SPARE_THRESHOLD, &[self.available_spare_threshold_pct]),
                (SL_PERCENTAGE_USED, &[self.percentage_used]),
                (
                    SL_ENDURANCE_GROUP_WARNING,
                    &[self.endurance_group_critical_warning],
                ),
                (SL_DATA_UNITS_READ, &self.data_units_read.to_le_bytes()),
                (
                    SL_DATA_UNITS_WRITTEN,
                    &self.data_units_written.to_le_bytes(),
                ),
                (SL_HOST_READS, &self.host_read_commands.to_le_bytes()),
                (SL_HOST_WRITES, &self.host_write_commands.to_le_bytes()),
                (
                    SL_CONTROLLER_BUSY,
                    &self.controller_busy_minutes.to_le_bytes(),
                ),
                (SL_POWER_CYCLES, &self.power_cycles.to_le_bytes()),
                (SL_POWER_ON_HOURS, &self.power_on_hours.to_le_bytes()),
                (SL_UNSAFE_SHUTDOWNS, &self.unsafe_shutdowns.to_le_bytes()),
                (SL_MEDIA_ERRORS, &self.media_errors.to_le_bytes()),
                (SL_ERROR_LOG_ENTRIES, &self.error_log_entries.to_le_bytes()),
                (
                    SL_WARNING_TEMP_TIME,
                    &self.warning_temp_minutes.to_le_bytes(),
                ),
                (
                    SL_CRITICAL_TEMP_TIME,
                    &self.critical_temp_minutes.to_le_bytes(),
                ),
                (
                    SL_T1_TRANSITIONS,
                    &self.thermal_t1_transitions.to_le_bytes(),
                ),
                (
                    SL_T2_TRANSITIONS,
                    &self.thermal_t2_transitions.to_le_bytes(),
                ),
                (SL_T1_TOTAL_TIME, &self.thermal_t1_seconds.to_le_bytes()),
                (SL_T2_TOTAL_TIME, &self.thermal_t2_seconds.to_le_bytes()),
            ],
        );
        for (index, kelvin) in self.temperature_sensors_k.iter().enumerate() {
            put_fields(
                &mut page,
                &[(SL_SENSORS + 2 * index, &kelvin.to_le_bytes())],
            );
        }
        page
    }
}
