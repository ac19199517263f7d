//! A [`SmartctlReport`] as the probe's facts: merged into a probed [`Drive`], or standing
//! alone for a saved report without a machine.

use super::{AtaAttribute, SmartctlReport};
use crate::facts::{
    AtaDetails, Drive, Facts, Health, HealthSource, Interface, ModelSource, NvmeDetails,
    SCHEMA_VERSION,
};

/// One NVMe data unit is 1000 blocks of 512 bytes.
const NVME_DATA_UNIT_BYTES: u64 = 512_000;

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
            smartctl_status: self
                .status
                .iter()
                .chain(&self.failed_self_tests)
                .cloned()
                .collect(),
            crc_errors: self.attribute_raw(199),
            reported_uncorrectable: self.attribute_raw(187),
        }
    }

    /// The firmware revision: the probe's, unless it is the SAT INQUIRY view of smartctl's.
    /// A SAT layer (a USB bridge, libata) answers INQUIRY with only the last four characters
    /// of the drive's revision (libata: "From SAT, use last 2 words from fw rev"), `2B6Q` of
    /// `SVT02B6Q`; firmware advisories match the whole one, which smartctl's pass-through reads.
    fn merge_firmware(&self, drive: &mut Drive) {
        let whole = self.firmware.as_deref().map(str::trim);
        match (drive.firmware.as_deref().map(str::trim), whole) {
            (Some(tail), Some(whole))
                if !tail.is_empty() && whole.len() > tail.len() && whole.ends_with(tail) =>
            {
                drive.firmware = Some(whole.to_owned());
            }
            _ => fill(&mut drive.firmware, self.firmware.clone()),
        }
    }

    /// Adds what smartctl knows to `drive`, keeping every value the probe already found
    /// (sysfs and ioctls are read directly; smartctl goes through bridges and heuristics).
    /// Health is merged field by field the same way, and smartctl's overall verdict and exit
    /// status bits are always added.
    pub fn merge_into(&self, drive: &mut Drive) {
        self.merge_model(drive);
        self.merge_firmware(drive);
        fill(&mut drive.serial, self.serial.clone());
        fill(&mut drive.model_family, self.model_family.clone());
        if let Some(vendor) = self.nvme_pci_vendor_id {
            let nvme = drive.nvme.get_or_insert_with(NvmeDetails::default);
            fill(&mut nvme.pci_vendor_id, Some(format!("0x{vendor:04x}")));
        }
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

/// Fills what the probe's own health record lacks from smartctl's. `ours` is taken apart
/// field by field, so a field added to [`Health`] does not compile until it is merged here.
fn merge_health(theirs: &mut Health, ours: Health) {
    macro_rules! fill_missing {
        ($($field:ident),+ $(,)?) => {
            let Health { source: _, smartctl_status, $($field),+ } = ours;
            $(fill(&mut theirs.$field, $field);)+
            for status in smartctl_status {
                if !theirs.smartctl_status.contains(&status) {
                    theirs.smartctl_status.push(status);
                }
            }
        };
    }
    fill_missing!(
        passed,
        critical_warning,
        available_spare_pct,
        available_spare_threshold_pct,
        percentage_used,
        media_errors,
        data_units_written,
        bytes_written,
        power_on_hours,
        unsafe_shutdowns,
        warning_temp_minutes,
        critical_temp_minutes,
        thermal_throttle_t1_transitions,
        thermal_throttle_t2_transitions,
        reallocated_sectors,
        pending_sectors,
        uncorrectable_sectors,
        crc_errors,
        reported_uncorrectable,
    );
}
