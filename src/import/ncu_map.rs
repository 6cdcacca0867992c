//! Nsight Compute values to warpscope metrics, for every ncu reader (CSV, raw page, text): counters
//! the catalogue maps become their nvprof-named metric in the catalogue's unit; section metrics that
//! mean what an nvprof metric meant (`Duration`, `Achieved Occupancy`) take its name; every other value
//! is kept under its own name, qualified by its section where two sections share the name (`Memory
//! Throughput` is a % in Speed Of Light and a byte/second rate in Memory Workload Analysis).

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use crate::metrics::{self, Formula};

use super::build::Launch;
use super::units::{self, Locale};

/// A unit in base form (see [`units::base`]): the power of ten from the printed unit, and its name.
pub type Unit = (i32, Rc<str>);

/// A printed unit in base form.
pub fn unit(printed: &str) -> Unit {
    let (e, base) = units::base(printed);
    (e, base.into())
}

/// One value of a launch as ncu printed it.
#[derive(Clone, Debug)]
pub struct Value {
    /// Metric name (a section's display name, or a counter such as `dram__bytes.sum`).
    pub name: Rc<str>,
    /// The section it was printed in, where there is one.
    pub section: Option<Rc<str>>,
    /// The value in `unit`.
    pub value: f64,
    /// Its unit in base form.
    pub unit: Rc<str>,
    /// Where the value is printed in another unit than its base, or will be converted (a mapped
    /// name): the printed decimal and the power of ten to `unit`, so conversions round once.
    exact: Option<(units::Decimal, i32)>,
}

impl Value {
    /// The value scaled by 10^`e` from its base unit.
    fn scaled(&self, e: i32) -> f64 {
        match &self.exact {
            Some((d, pe)) => d.scaled(pe + e),
            None if e == 0 => self.value,
            None => self.value * 10f64.powi(e),
        }
    }

    /// A value from its printed form; `None` when the text is not a number (`n/a`, `(!) nan`, text).
    pub fn parse(name: &str, section: Option<&str>, unit: &str, text: &str, locale: Locale) -> Option<Value> {
        let section = section.map(str::trim).filter(|s| !s.is_empty()).map(Rc::from);
        Value::parse_in(&Rc::from(name.trim()), section, &self::unit(unit), text, locale)
    }

    /// [`Value::parse`] with the column's name and unit already made (pages with one of each per
    /// column).
    pub fn parse_in(
        name: &Rc<str>,
        section: Option<Rc<str>>,
        unit: &Unit,
        text: &str,
        locale: Locale,
    ) -> Option<Value> {
        // Instanced metrics print one value per instance (`32.00; 32.00; 4.00`): not one number.
        if text.contains(';') {
            return None;
        }
        let (v, digits, glued) = units::split_in(text, locale)?;
        let (e, base) = if glued.is_empty() { unit.clone() } else { self::unit(glued) };
        let exact = (e != 0 || rescaled(name)).then(|| (units::Decimal::new(digits, locale), e));
        let value = match &exact {
            Some((d, e)) => d.scaled(*e),
            None => v,
        };
        Some(Value { name: name.clone(), section, value, unit: base, exact })
    }
}

/// Whether `name` is converted to another unit when mapped (its printed decimal is kept).
fn rescaled(name: &str) -> bool {
    SECTION_NAMES.iter().any(|s| s.0 == name && s.3 != 0)
        || COUNTER_NAMES.iter().any(|c| c.0 == name && c.2 != 0)
        || metrics::CATALOGUE
            .iter()
            .any(|d| matches!(d.formula, Formula::Scale(f) if f != 1.0) && d.counters.contains(&name))
}

/// Section metrics with an nvprof name: (display name, base unit, nvprof name, power of ten, unit).
const SECTION_NAMES: &[(&str, &str, &str, i32, &str)] = &[
    ("Duration", "ns", metrics::DURATION, -6, metrics::MS),
    ("Achieved Occupancy", "%", metrics::ACHIEVED_OCCUPANCY, -2, metrics::RATIO),
    ("Theoretical Occupancy", "%", metrics::THEORETICAL_OCCUPANCY, -2, metrics::RATIO),
    ("Registers Per Thread", "register/thread", REGISTERS, 0, "register/thread"),
    // Launch Statistics' shared memory, per block: the names nvprof's GPU trace gives the same sizes.
    ("Dynamic Shared Memory Per Block", "byte/block", DYNAMIC_SMEM, 0, "byte"),
    ("Static Shared Memory Per Block", "byte/block", STATIC_SMEM, 0, "byte"),
    ("Block Size", "", BLOCK_SIZE, 0, "thread"),
    ("Grid Size", "", GRID_SIZE, 0, "block"),
    // Compute Workload Analysis and Memory Workload Analysis (ncu's full set): the same counters as
    // nvprof's metrics of these names (sm__inst_executed.avg.per_cycle_active and so on).
    ("Executed Ipc Active", "inst/cycle", "ipc", 0, metrics::RATIO),
    ("Issued Ipc Active", "inst/cycle", "issued_ipc", 0, metrics::RATIO),
    ("L1/TEX Hit Rate", "%", "tex_cache_hit_rate", 0, metrics::PCT),
    ("L2 Hit Rate", "%", "l2_tex_hit_rate", 0, metrics::PCT),
];

/// Counters with a name of their own (the raw page's launch attributes, old spellings).
const COUNTER_NAMES: &[(&str, &str, i32, &str)] = &[
    ("gpu__time_duration", metrics::DURATION, -6, metrics::MS),
    ("launch__block_size", BLOCK_SIZE, 0, "thread"),
    ("launch__grid_size", GRID_SIZE, 0, "block"),
    ("launch__registers_per_thread", REGISTERS, 0, "register/thread"),
    ("launch__shared_mem_per_block_dynamic", DYNAMIC_SMEM, 0, "byte"),
    ("launch__shared_mem_per_block_static", STATIC_SMEM, 0, "byte"),
    ("sm__maximum_warps_per_active_cycle_pct", metrics::THEORETICAL_OCCUPANCY, -2, metrics::RATIO),
];

/// Threads per block of a launch whose shape the file gives only as a count.
pub const BLOCK_SIZE: &str = "block_size";
/// Blocks in the grid, likewise.
pub const GRID_SIZE: &str = "grid_size";
/// Registers per thread.
pub const REGISTERS: &str = "registers_per_thread";
/// Dynamic shared memory of a launch, bytes per block (nvprof's trace: `DSMem`).
pub const DYNAMIC_SMEM: &str = "dynamic_shared_memory";
/// Static shared memory of a launch, bytes per block (nvprof's trace: `SSMem`).
pub const STATIC_SMEM: &str = "static_shared_memory";

/// The SM count Launch Statistics states (`# SMs`), a fact about the device.
pub fn sms(values: &[Value]) -> Option<u32> {
    values.iter().find(|v| &*v.name == "# SMs").map(|v| v.value as u32)
}

/// A kernel duration (a section's `Duration`, `gpu__time_duration.sum`) in milliseconds.
pub fn duration_ms(v: &Value) -> Option<f64> {
    let name = v.name.strip_suffix(".sum").unwrap_or(&v.name);
    (["Duration", "gpu__time_duration"].contains(&name) && &*v.unit == "ns").then(|| v.scaled(-6))
}

/// Adds the metrics of `values` to `launch`.
pub fn add_metrics(values: &[Value], launch: &mut Launch) {
    // Names printed in more than one section are qualified by it.
    let mut sections: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    if values.iter().any(|v| v.section.is_some()) {
        for v in values {
            sections.entry(&v.name).or_default().insert(v.section.as_deref().unwrap_or(""));
        }
    }
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let find = |c: &str| values.iter().find(|v| &*v.name == c);
    for d in metrics::CATALOGUE.iter().filter(|d| d.formula != Formula::None) {
        let got: Option<Vec<f64>> = d.counters.iter().map(|c| find(c).map(|v| v.value)).collect();
        let Some(got) = got else { continue };
        // A power-of-ten scale is applied to the printed value in one rounding.
        let value = match (d.formula, d.counters) {
            (Formula::Scale(f), [c]) if f > 0.0 && format!("1e{}", f.log10().round()).parse() == Ok(f) => {
                find(c).map_or(f64::NAN, |v| v.scaled(f.log10().round() as i32))
            }
            _ => {
                let req = metrics::Requested {
                    name: d.name.into(),
                    counters: Vec::new(),
                    formula: d.formula,
                    unit: d.unit.into(),
                };
                req.value(&got)
            }
        };
        launch.add(d.name, value, d.unit);
        used.extend(d.counters.iter().copied());
    }
    for v in values.iter().filter(|v| !used.contains(&*v.name)) {
        let shared = sections.get(&*v.name).is_some_and(|s| s.len() > 1);
        if !shared
            && let Some(&(_, _, name, e, unit)) = SECTION_NAMES.iter().find(|s| s.0 == &*v.name && s.1 == &*v.unit)
        {
            launch.add(name, v.scaled(e), unit);
        } else if let Some(&(_, name, e, unit)) = COUNTER_NAMES.iter().find(|c| c.0 == &*v.name) {
            launch.add(name, v.scaled(e), unit);
        } else if shared {
            let section = v.section.as_deref().unwrap_or("no section");
            launch.add(&format!("{} ({section})", v.name), v.value, &v.unit);
        } else {
            launch.add(&v.name, v.value, &v.unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(name: &str, section: &str, unit: &str, text: &str) -> Value {
        Value::parse(name, Some(section), unit, text, Locale::Point).unwrap()
    }

    #[test]
    fn sections_map_to_nvprof_names_and_collisions_are_qualified() {
        let values = [
            v("Duration", "GPU Speed Of Light Throughput", "usecond", "6.75"),
            v("Memory Throughput", "GPU Speed Of Light Throughput", "%", "45.70"),
            v("Memory Throughput", "Memory Workload Analysis", "Gbyte/second", "1.50"),
            v("Achieved Occupancy", "Occupancy", "%", "97.95"),
            v("Elapsed Cycles", "GPU Speed Of Light Throughput", "cycle", "56,344,784"),
            v("Executed Ipc Active", "Compute Workload Analysis", "inst/cycle", "2.41"),
            v("L2 Hit Rate", "Memory Workload Analysis", "%", "65.12"),
            v("Dynamic Shared Memory Per Block", "Launch Statistics", "Kbyte/block", "4.10"),
            v("gpu__time_duration.sum", "Command line profiler metrics", "msecond", "1.25"),
        ];
        let mut l = Launch::default();
        add_metrics(&values, &mut l);
        let get = |n: &str| l.metrics.iter().find(|m| m.name == n).map(|m| (m.value, m.unit.clone()));
        // The counter and the section give one duration: the first found (the catalogue's) stands.
        let (ms, unit) = get("duration").unwrap();
        assert!((ms - 1.25).abs() < 1e-12 && unit == "ms", "{ms} {unit}");
        assert_eq!(get("achieved_occupancy").unwrap().1, "ratio");
        assert!((get("achieved_occupancy").unwrap().0 - 0.9795).abs() < 1e-12);
        assert_eq!(get("Memory Throughput (GPU Speed Of Light Throughput)"), Some((45.7, "%".into())));
        let (rate, unit) = get("Memory Throughput (Memory Workload Analysis)").unwrap();
        assert!((rate - 1.5e9).abs() < 1e-3 && unit == "byte/second");
        assert_eq!(get("Elapsed Cycles"), Some((56_344_784.0, "cycle".into())));
        // The sections' names for counters of nvprof metrics take nvprof's names.
        assert_eq!(get("ipc"), Some((2.41, "ratio".into())));
        assert_eq!(get("l2_tex_hit_rate"), Some((65.12, "%".into())));
        assert!(get("Executed Ipc Active").is_none());
        assert_eq!(get("dynamic_shared_memory"), Some((4100.0, "byte".into())));
        assert!(get("Duration").is_none());
    }
}
