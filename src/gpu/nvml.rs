//! NVML: what the driver API does not say (driver version, clocks, power limit). Optional: when
//! libnvidia-ml is missing or a query fails, the field stays empty.

use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::Clock;

/// The NVML view of one device.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NvmlInfo {
    /// Driver version string (`580.159.04`).
    pub driver: Option<String>,
    /// Largest SM clock, MHz.
    pub max_sm_clock_mhz: Option<u32>,
    /// Largest memory clock, MHz.
    pub max_mem_clock_mhz: Option<u32>,
    /// Enforced power limit, W.
    pub power_limit_w: Option<f64>,
}

/// Queries the device at `pci_bus_id` (`00000000:19:00.0`); `None` without NVML.
pub fn query(pci_bus_id: &str) -> Option<NvmlInfo> {
    let nvml = Nvml::init().ok()?;
    let dev = nvml.device_by_pci_bus_id(pci_bus_id).ok()?;
    Some(NvmlInfo {
        driver: nvml.sys_driver_version().ok(),
        max_sm_clock_mhz: dev.max_clock_info(Clock::SM).ok(),
        max_mem_clock_mhz: dev.max_clock_info(Clock::Memory).ok(),
        power_limit_w: dev.enforced_power_limit().ok().map(|mw| mw as f64 / 1000.0),
    })
}
