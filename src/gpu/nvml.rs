//! NVML: what the driver API does not say (driver version, clocks, power limit), and a monitor that
//! samples clocks, temperature, power and throttle reasons while a configuration is timed. Optional:
//! when libnvidia-ml is missing or a query fails, the field stays empty.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};

use crate::record::Conditions;

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

/// The process's NVML, initialised on first use and kept: `nvmlInit` takes tens of milliseconds, and
/// was paid twice per device (its clocks, then its monitor). [`prepare`] starts it early.
fn nvml() -> Option<&'static Nvml> {
    static NVML: std::sync::OnceLock<Option<Nvml>> = std::sync::OnceLock::new();
    NVML.get_or_init(|| Nvml::init().ok()).as_ref()
}

/// Initialises NVML now (on a thread of the caller's), so that the devices' opening finds it ready.
pub fn prepare() {
    let _ = nvml();
}

/// Queries the device at `pci_bus_id` (`00000000:19:00.0`); `None` without NVML.
pub fn query(pci_bus_id: &str) -> Option<NvmlInfo> {
    let nvml = nvml()?;
    let dev = nvml.device_by_pci_bus_id(pci_bus_id).ok()?;
    Some(NvmlInfo {
        driver: nvml.sys_driver_version().ok(),
        max_sm_clock_mhz: dev.max_clock_info(Clock::SM).ok(),
        max_mem_clock_mhz: dev.max_clock_info(Clock::Memory).ok(),
        power_limit_w: dev.enforced_power_limit().ok().map(|mw| mw as f64 / 1000.0),
    })
}

/// The throttle reasons that hold performance down, with their names in records.
const LIMITING: [(ThrottleReasons, &str); 5] = [
    (ThrottleReasons::SW_POWER_CAP, "sw_power_cap"),
    (ThrottleReasons::HW_SLOWDOWN, "hw_slowdown"),
    (ThrottleReasons::SW_THERMAL_SLOWDOWN, "sw_thermal"),
    (ThrottleReasons::HW_THERMAL_SLOWDOWN, "hw_thermal"),
    (ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN, "hw_power_brake"),
];

/// Sampling period of [`Monitor::watch`].
const PERIOD: Duration = Duration::from_millis(5);

/// An open NVML handle on one device.
pub struct Monitor {
    nvml: &'static Nvml,
    pci_bus_id: String,
}

impl Monitor {
    /// NVML on the device at `pci_bus_id`; `None` without NVML or that device.
    pub fn open(pci_bus_id: &str) -> Option<Self> {
        let nvml = nvml()?;
        nvml.device_by_pci_bus_id(pci_bus_id).ok()?;
        Some(Monitor { nvml, pci_bus_id: pci_bus_id.to_string() })
    }

    /// Runs `f` while another thread samples the device (once before `f` starts, then every 5 ms),
    /// and returns `f`'s result with what the samples saw.
    pub fn watch<T>(&self, f: impl FnOnce() -> T) -> (T, Option<Conditions>) {
        let Ok(dev) = self.nvml.device_by_pci_bus_id(self.pci_bus_id.as_str()) else { return (f(), None) };
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            let sampler = s.spawn(|| {
                let mut c = Conditions::default();
                loop {
                    sample(&dev, &mut c);
                    if done.load(Ordering::Acquire) {
                        return c;
                    }
                    // Woken early when the work ends, so that the timing does not wait out a period.
                    std::thread::park_timeout(PERIOD);
                }
            });
            let out = f();
            done.store(true, Ordering::Release);
            sampler.thread().unpark();
            let c = sampler.join().ok();
            (out, c.filter(|c| c.samples > 0))
        })
    }
}

/// Adds one NVML sample to `c` (each query may fail on its own: that field is then left alone).
fn sample(dev: &nvml_wrapper::Device<'_>, c: &mut Conditions) {
    c.samples += 1;
    if let Ok(mhz) = dev.clock_info(Clock::SM) {
        c.sm_clock_mhz = Some(c.sm_clock_mhz.map_or([mhz, mhz], |[lo, hi]| [lo.min(mhz), hi.max(mhz)]));
    }
    if let Ok(mhz) = dev.clock_info(Clock::Memory) {
        c.mem_clock_mhz = Some(c.mem_clock_mhz.map_or(mhz, |m| m.min(mhz)));
    }
    if let Ok(t) = dev.temperature(TemperatureSensor::Gpu) {
        c.temperature_c = Some(c.temperature_c.map_or(t, |m| m.max(t)));
    }
    if let Ok(mw) = dev.power_usage() {
        let w = mw as f64 / 1000.0;
        c.power_w = Some(c.power_w.map_or(w, |m| m.max(w)));
    }
    if let Ok(reasons) = dev.current_throttle_reasons() {
        for (flag, name) in LIMITING {
            if reasons.contains(flag) && !c.throttle.iter().any(|t| t == name) {
                c.throttle.push(name.to_string());
            }
        }
    }
}
