//! `ncu --csv --page raw`: one row per launch, one column per counter, and a row of units under the
//! header. Device attributes (`device__attribute_*`) describe the device; launch attributes and
//! counters become metrics.

use crate::error::Result;
use crate::record::Report;

use super::build::{Builder, Launch, parse_dim};
use super::csvline;
use super::ncu_map::{self, Value};
use super::units::{self, Locale};

/// Columns that name the launch rather than measure it.
const IDENTITY: &[&str] = &[
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
];

/// Counter families that are not measurements of the kernel.
const NOT_METRICS: &[&str] = &["device__", "profiler__", "nvlink__", "numa__", "c2clink__", "pmsampling:"];

/// Whether `fields` is a raw-page header.
pub fn is_header<S: AsRef<str>>(fields: &[S]) -> bool {
    let has = |n: &str| fields.iter().any(|f| f.as_ref() == n);
    fields.first().is_some_and(|f| f.as_ref() == "ID") && has("Kernel Name") && !has("Metric Name")
}

/// Reads the raw page.
pub fn read(lines: &mut dyn Iterator<Item = Result<String>>) -> Result<Report> {
    let mut b = Builder::new(crate::gpu::Origin::Ncu);
    let mut header: Option<Vec<String>> = None;
    let mut units: Vec<ncu_map::Unit> = Vec::new();
    let mut names: Vec<std::rc::Rc<str>> = Vec::new();
    // Numbers as the file writes them (a decimal comma under some locales), from its values so far.
    let mut locale = Locale::default();
    for line in csvline::quoted(lines) {
        let line = line?;
        let f = csvline::split(&line);
        if is_header(&f) {
            names = f.iter().map(|n| std::rc::Rc::from(n.trim())).collect();
            header = Some(f.iter().map(|c| c.to_string()).collect());
            units.clear();
            continue;
        }
        let Some(h) = &header else { continue };
        let at = |n: &str| h.iter().position(|c| c == n).and_then(|i| f.get(i)).map(|s| s.trim()).unwrap_or("");
        // The units row: no ID, and the first row under the header.
        if at("ID").is_empty() {
            if units.is_empty() {
                units = f.iter().map(|u| ncu_map::unit(u)).collect();
            }
            continue;
        }
        let num = |n: &str| units::number(at(n)).map(|(v, _)| v);
        let device = at("Device").parse::<u32>().ok();
        let ordinal = device.unwrap_or(0);
        let cc = match (
            num("device__attribute_compute_capability_major"),
            num("device__attribute_compute_capability_minor"),
        ) {
            (Some(ma), Some(mi)) => Some(format!("{ma}.{mi}")),
            _ => Some(at("CC").to_string()),
        };
        let d = b.device(ordinal, at("device__attribute_display_name"), cc);
        let whole = |v: Option<f64>| v.filter(|v| *v >= 0.0).map(|v| v as u64);
        d.sms = d.sms.or(whole(num("device__attribute_multiprocessor_count")).map(|v| v as u32));
        d.l2_bytes = d.l2_bytes.or(whole(num("device__attribute_l2_cache_size")));
        d.memory_bytes = d.memory_bytes.or(whole(num("device__attribute_total_memory")));
        d.mem_bus_width_bits =
            d.mem_bus_width_bits.or(whole(num("device__attribute_global_memory_bus_width")).map(|v| v as u32));
        // The driver's clock rates are in kHz.
        d.sm_clock_mhz = d.sm_clock_mhz.or(whole(num("device__attribute_clock_rate")).map(|k| (k / 1000) as u32));
        d.mem_clock_mhz =
            d.mem_clock_mhz.or(whole(num("device__attribute_memory_clock_rate")).map(|k| (k / 1000) as u32));
        let mut launch = Launch {
            name: at("Kernel Name").to_string(),
            grid: parse_dim(at("Grid Size")),
            block: parse_dim(at("Block Size")),
            device,
            ..Default::default()
        };
        let none: ncu_map::Unit = (0, "".into());
        let values: Vec<Value> = names
            .iter()
            .zip(&f)
            .enumerate()
            .filter(|(_, (name, _))| !IDENTITY.contains(&&***name) && !NOT_METRICS.iter().any(|p| name.starts_with(p)))
            .filter_map(|(i, (name, v))| {
                Value::parse_in(name, None, units.get(i).unwrap_or(&none), v, locale.follow(v))
            })
            .collect();
        ncu_map::add_metrics(&values, &mut launch);
        b.push(launch);
    }
    b.finish("ncu raw CSV")
}
