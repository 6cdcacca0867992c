//! The metric catalogue: nvprof's names, the Nsight Compute metrics NVIDIA maps each to (what CUPTI
//! collects), how their values become nvprof's units (GB/s, %, ratio 0-1 for occupancy), and
//! warpscope's own derived metrics. Also the `--metrics` list parser.

use crate::error::{Error, Input, Result};

mod catalogue;
pub use catalogue::{ALIASES, CATALOGUE, UNAVAILABLE};

/// Ratio 0-1 (nvprof's unit for occupancy; tables show it as %).
pub const RATIO: &str = "ratio";
/// Percent.
pub const PCT: &str = "%";
/// Gigabytes (1e9) per second.
pub const GBPS: &str = "GB/s";
/// A count.
pub const COUNT: &str = "count";
/// Milliseconds.
pub const MS: &str = "ms";
/// Bytes.
pub const BYTES: &str = "byte";
/// nvprof's utilization level, 0 (idle) to 10 (the peak): Nsight Compute's % of peak over ten.
pub const LEVEL: &str = "level";

/// Effective bandwidth: the kernel's minimum bytes (inputs read once, outputs written once) over its median time.
pub const EFF_BANDWIDTH: &str = "eff_bandwidth";
/// Effective bandwidth as a percentage of the device-to-device memcpy bandwidth measured in the same run.
pub const PCT_OF_MEMCPY: &str = "pct_of_memcpy";
/// Theoretical occupancy.
pub const THEORETICAL_OCCUPANCY: &str = "theoretical_occupancy";
/// Achieved occupancy.
pub const ACHIEVED_OCCUPANCY: &str = "achieved_occupancy";
/// Global load throughput.
pub const GLD_THROUGHPUT: &str = "gld_throughput";
/// Global load efficiency.
pub const GLD_EFFICIENCY: &str = "gld_efficiency";
/// Global load transactions.
pub const GLD_TRANSACTIONS: &str = "gld_transactions";
/// Global load transactions per request.
pub const GLD_TRANSACTIONS_PER_REQUEST: &str = "gld_transactions_per_request";
/// Global store efficiency.
pub const GST_EFFICIENCY: &str = "gst_efficiency";
/// Global store transactions.
pub const GST_TRANSACTIONS: &str = "gst_transactions";
/// Global store throughput.
pub const GST_THROUGHPUT: &str = "gst_throughput";
/// Sectors per global atomic instruction (`atom` and `red`).
pub const ATOMIC_TRANSACTIONS_PER_REQUEST: &str = "atomic_transactions_per_request";
/// L1 lookups of global atomic instructions (a line of a round of lanes each).
pub const ATOMIC_TRANSACTIONS: &str = "atomic_transactions";
/// Shared-memory wavefronts per shared load instruction (1 without bank conflicts).
pub const SHARED_LD_PER_REQUEST: &str = "shared_load_transactions_per_request";
/// Warp instructions executed.
pub const INST_EXECUTED: &str = "inst_executed";
/// Kernel duration as the GPU timed it (CUPTI / ncu gpu__time_duration).
pub const DURATION: &str = "duration";
/// The time model's prediction.
pub const PREDICTED_TIME: &str = "predicted_time";
/// (predicted - measured) / measured, percent.
pub const MODEL_ERROR: &str = "model_error";

/// How counter values become the metric's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Formula {
    /// The one counter times a factor (unit conversion).
    Scale(f64),
    /// The first counter over the second (0 when the second is 0).
    Ratio,
    /// The counters weighted and added (`flop_count_sp`: fadd + fmul + 2 ffma).
    Sum(&'static [f64]),
    /// The sum of the first `n` counters over the sum of the rest, times a factor (0 when the rest
    /// sum to 0): hit rates, transactions per request over several kinds of request.
    SumRatio(usize, f64),
    /// Requested bytes (the first counter) over the requested share of the transferred bytes in % (the
    /// second), per nanosecond of the third: the bytes transferred, in GB/s (0 when nothing was
    /// requested). Sector-granular transfers counted from per-instruction (SASS) counters. A fourth and
    /// fifth counter, when given, are a second kind of request's bytes and share, added (none where the
    /// chip lacks them: NaN).
    TransferredPerNs,
    /// Not from counters (derived by warpscope, or the occupancy API).
    None,
}

/// One catalogue entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricDef {
    /// nvprof name (or warpscope's, for derived metrics).
    pub name: &'static str,
    /// The Nsight Compute metrics NVIDIA gives as the equivalent, with rollups: what CUPTI collects.
    pub counters: &'static [&'static str],
    /// From counter values to `unit`.
    pub formula: Formula,
    /// What warpscope collects instead of `counters` where that differs: counters that give the same
    /// value by definition at a fraction of the profiling cost (checked against `counters` on a GPU,
    /// docs/PERF-NOTES.md), with their formula.
    pub collected: Option<(&'static [&'static str], Formula)>,
    /// Unit of the value in records.
    pub unit: &'static str,
    /// What it means.
    pub description: &'static str,
    /// nvprof's own words, where it is an nvprof metric: its "Metric Description" column and its
    /// `--query-metrics` text.
    pub nvprof: Option<(&'static str, &'static str)>,
}

impl MetricDef {
    /// The ncu metric shown in the catalogue: the counter, or the formula of several.
    pub fn ncu(&self) -> String {
        let sum = |cs: &[&str], ws: &[f64]| {
            let terms: Vec<String> = cs
                .iter()
                .zip(ws.iter().chain(std::iter::repeat(&1.0)))
                .map(|(c, w)| if *w == 1.0 { c.to_string() } else { format!("{w} * {c}") })
                .collect();
            terms.join(" + ")
        };
        match (self.formula, self.counters) {
            (Formula::Ratio, [a, b]) => format!("{a} / {b}"),
            (Formula::Sum(w), cs) => sum(cs, w),
            (Formula::SumRatio(n, _), cs) if n < cs.len() => {
                format!("({}) / ({})", sum(&cs[..n], &[]), sum(&cs[n..], &[]))
            }
            (_, [a, ..]) => a.to_string(),
            _ => "-".into(),
        }
    }
}

/// The catalogue entry of `name`.
pub fn lookup(name: &str) -> Option<&'static MetricDef> {
    CATALOGUE.iter().find(|m| m.name == name)
}

/// The catalogue entry of `name`, or of the metric an older GPU's nvprof name ([`ALIASES`]) stands for.
pub fn resolve(name: &str) -> Option<&'static MetricDef> {
    lookup(name).or_else(|| ALIASES.iter().find(|(old, _)| *old == name).and_then(|(_, new)| lookup(new)))
}

/// Effective bandwidth, GB/s: `bytes` (the minimum a kernel must read and write) over `ms`.
pub fn eff_bandwidth_gbs(bytes: u64, ms: f64) -> f64 {
    bytes as f64 / (ms * 1e-3) / 1e9
}

/// Metrics the sweep table shows by default.
pub const DEFAULT_SWEEP: &[&str] =
    &[EFF_BANDWIDTH, PCT_OF_MEMCPY, THEORETICAL_OCCUPANCY, ACHIEVED_OCCUPANCY, GLD_THROUGHPUT, GLD_EFFICIENCY];

/// A metric to measure with counters.
#[derive(Clone, Debug, PartialEq)]
pub struct Requested {
    /// nvprof name, or the raw ncu name asked for.
    pub name: String,
    /// Counters it needs.
    pub counters: Vec<String>,
    /// How to combine them.
    pub formula: Formula,
    /// Unit of the result.
    pub unit: String,
}

impl Requested {
    /// The metric's value from its counters' values (in `counters` order).
    pub fn value(&self, values: &[f64]) -> f64 {
        match self.formula {
            Formula::Scale(k) => values.first().copied().unwrap_or(f64::NAN) * k,
            Formula::Ratio => match values {
                [_, b] if *b == 0.0 => 0.0,
                [a, b] => a / b,
                _ => f64::NAN,
            },
            Formula::Sum(w) if values.len() == w.len() => values.iter().zip(w).map(|(v, w)| v * w).sum(),
            Formula::SumRatio(n, k) if n < values.len() => {
                let (over, under) = values.split_at(n);
                let under: f64 = under.iter().sum();
                if under == 0.0 { 0.0 } else { over.iter().sum::<f64>() / under * k }
            }
            Formula::Sum(_) | Formula::SumRatio(..) => f64::NAN,
            Formula::TransferredPerNs => {
                // Bytes moved for `requested` bytes of which `pct` % were asked for: 0 where none were
                // asked (or the chip lacks the optional counters: NaN), unknown without a share.
                let moved = |requested: f64, pct: f64, optional: bool| match (requested, pct) {
                    (r, _) if r == 0.0 || (optional && r.is_nan()) => Some(0.0),
                    (r, p) if p > 0.0 => Some(r * 100.0 / p),
                    _ => None,
                };
                let (first, ns, second) = match values {
                    [r, p, ns] => (moved(*r, *p, false), *ns, Some(0.0)),
                    [r, p, ns, r2, p2] => (moved(*r, *p, false), *ns, moved(*r2, *p2, true)),
                    _ => (None, f64::NAN, None),
                };
                match (first, second) {
                    (Some(a), Some(b)) if a + b == 0.0 => 0.0,
                    (Some(a), Some(b)) if ns > 0.0 => (a + b) / ns,
                    _ => f64::NAN,
                }
            }
            Formula::None => f64::NAN,
        }
    }
}

/// The unit of a raw ncu metric, from its name.
fn raw_unit(name: &str) -> &'static str {
    if name.ends_with(".per_second") {
        "1/s"
    } else if name.contains("pct") {
        PCT
    } else if name.ends_with(".ratio") {
        "ratio"
    } else if name.starts_with("gpu__time_duration") {
        "ns"
    } else {
        "raw"
    }
}

/// Whether `counter` exists on the chip CUPTI names `chip` (`gh100`, `tu102` ...): the counters of
/// LDGSTS (global loads straight to shared memory) from Ampere on; every other one everywhere (CUPTI
/// refuses a list with one it does not know).
pub fn on_chip(counter: &str, chip: &str) -> bool {
    let chip = chip.to_ascii_lowercase();
    let before_ampere = ["gm", "gp", "gv", "tu"].iter().any(|p| chip.starts_with(p));
    !(before_ampere && counter.contains("ldgsts"))
}

/// Parses `--metrics`: nvprof names of the catalogue, raw ncu names (`unit__counter.rollup...`), or
/// `all` (every counter-backed metric). Metrics without counters (derived ones) are shown anyway and
/// are accepted without measuring.
pub fn parse_requested(spec: &str) -> Result<Vec<Requested>> {
    let mut out: Vec<Requested> = Vec::new();
    let mut push = |r: Requested| {
        if !out.iter().any(|o| o.name == r.name) {
            out.push(r);
        }
    };
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item == "all" {
            for d in CATALOGUE.iter().filter(|d| !d.counters.is_empty()) {
                push(from_def(d));
            }
        } else if let Some(d) = resolve(item) {
            // An older name keeps the name it was asked by.
            if !d.counters.is_empty() {
                push(Requested { name: item.into(), ..from_def(d) });
            }
        } else if let Some((_, why)) = UNAVAILABLE.iter().find(|(n, _)| *n == item) {
            return Err(Error::usage(format!("metric '{item}' is unavailable: {why}")));
        } else if item.contains("__") && item.chars().all(|c| c.is_ascii_alphanumeric() || "_.".contains(c)) {
            push(Requested {
                name: item.into(),
                counters: vec![item.into()],
                formula: Formula::Scale(1.0),
                unit: raw_unit(item).into(),
            });
        } else {
            return Err(Error::usage(format!(
                "unknown metric '{item}': use an nvprof name (`warpscope metrics` lists them), a Nsight Compute metric such as sm__warps_active.avg.pct_of_peak_sustained_active, or all"
            )));
        }
    }
    if out.is_empty() && !spec.split(',').any(|s| resolve(s.trim()).is_some()) {
        return Err(Error::input(Input::Metrics, Some(format!("'{spec}'")), "names no metric"));
    }
    Ok(out)
}

fn from_def(d: &MetricDef) -> Requested {
    let (counters, formula) = d.collected.unwrap_or((d.counters, d.formula));
    Requested {
        name: d.name.into(),
        counters: counters.iter().map(|s| s.to_string()).collect(),
        formula,
        unit: d.unit.into(),
    }
}

/// The distinct counters of `reqs`, in first-use order (what CUPTI is configured with).
pub fn counters_of(reqs: &[Requested]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in reqs.iter().flat_map(|r| &r.counters) {
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_units_known() {
        let mut names: Vec<_> = CATALOGUE.iter().map(|m| m.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len());
        for m in CATALOGUE {
            assert!([RATIO, PCT, GBPS, COUNT, MS, BYTES, LEVEL].contains(&m.unit), "{}", m.name);
            match m.formula {
                Formula::Sum(w) => assert_eq!(w.len(), m.counters.len(), "{}", m.name),
                Formula::SumRatio(n, _) => assert!(n > 0 && n < m.counters.len(), "{}", m.name),
                Formula::Ratio => assert_eq!(m.counters.len(), 2, "{}", m.name),
                _ => {}
            }
            assert!(!UNAVAILABLE.iter().any(|(n, _)| *n == m.name), "{} is both measured and unavailable", m.name);
            assert_eq!(m.counters.is_empty(), m.formula == Formula::None, "{}", m.name);
            let collected = m.collected.map_or(&[][..], |(c, _)| c);
            for c in m.counters.iter().chain(collected) {
                assert!(c.contains("__") && c.contains('.'), "{}: counters need a rollup: {c}", m.name);
            }
            if let Some((c, f)) = m.collected {
                assert_eq!(c.len(), if f == Formula::TransferredPerNs { 5 } else { c.len() }, "{}", m.name);
            }
        }
        for d in DEFAULT_SWEEP {
            assert!(lookup(d).is_some());
        }
    }

    #[test]
    fn the_issue_catalogue_is_complete() {
        for n in [
            "achieved_occupancy",
            "sm_efficiency",
            "gld_throughput",
            "gst_throughput",
            "gld_efficiency",
            "gst_efficiency",
            "gld_transactions",
            "gst_transactions",
            "gld_transactions_per_request",
            "dram_read_throughput",
            "dram_write_throughput",
            "l2_read_throughput",
            "shared_load_transactions_per_request",
            "shared_efficiency",
            "branch_efficiency",
            "warp_execution_efficiency",
            "theoretical_occupancy",
            "duration",
        ] {
            assert!(lookup(n).is_some(), "{n}");
        }
    }

    #[test]
    fn units_convert_as_nvprof_printed_them() {
        let r = parse_requested(
            "achieved_occupancy,gld_throughput,warp_execution_efficiency,duration,shared_load_transactions_per_request",
        )
        .unwrap();
        assert_eq!(r[0].value(&[73.5]), 0.735);
        // gld_throughput from the SASS counters: requested bytes, their share of the sectors moved, ns.
        assert!((r[1].value(&[1.0e9, 50.0, 1.0e6]) - 2000.0).abs() < 1e-9);
        assert_eq!(r[1].value(&[0.0, 0.0, 1.0e6]), 0.0);
        assert!(r[1].value(&[1.0e9, 0.0, 1.0e6]).is_nan());
        // Plus the LDGSTS loads: none on a chip without them (NaN), their bytes over their share.
        assert!((r[1].value(&[1.0e9, 50.0, 1.0e6, f64::NAN, f64::NAN]) - 2000.0).abs() < 1e-9);
        assert!((r[1].value(&[1.0e9, 50.0, 1.0e6, 1.0e9, 100.0]) - 3000.0).abs() < 1e-9);
        assert!((r[1].value(&[0.0, 0.0, 1.0e6, 1.0e9, 25.0]) - 4000.0).abs() < 1e-9);
        assert_eq!(r[1].value(&[0.0, 0.0, 1.0e6, 0.0, 0.0]), 0.0);
        assert!(r[1].value(&[0.0, 0.0, 1.0e6, 1.0e9, 0.0]).is_nan());
        assert_eq!(r[2].value(&[32.0]), 100.0);
        assert!((r[3].value(&[1_094_000.0]) - 1.094).abs() < 1e-12);
        assert_eq!(r[4].value(&[64.0, 32.0]), 2.0);
        assert_eq!(r[4].value(&[0.0, 0.0]), 0.0);
    }

    /// Launches measured on an H100 (CUDA 13.0, driver 580) with both counter sets: what warpscope
    /// collects for gld_throughput gives Nsight Compute's L1TEX bytes per second (docs/PERF-NOTES.md).
    #[test]
    fn gld_throughput_from_sass_counters_is_ncus_value() {
        let r = &parse_requested("gld_throughput").unwrap()[0];
        // (SASS requested bytes, their % of the sectors' bytes, ns, ncu's l1tex__t_bytes...ld.sum)
        for (requested, pct, ns, l1tex_bytes) in [
            (2415919104.0, 13.23529411764706, 2270144.0, 18253611008.0), // matmul-strided 16x16
            (64304832512.0, 68.89024178117934, 7545600.0, 93343891456.0), // blur-direct 16x16
            (29359960.0, 82.352913, 38432.0, 35651392.0),                // stencil<3> of a test program
            (2147483648.0, 100.0, 1272000.0, 2147483648.0),              // sumMatrix 128x1
        ] {
            let ncu = l1tex_bytes / ns; // bytes per ns = GB/s
            let ours = r.value(&[requested, pct, ns]);
            assert!((ours - ncu).abs() <= 1e-6 * ncu, "{ours} against {ncu}");
        }
        // Loads straight to shared memory (LDGSTS), ncu of CUDA 13.0 on an H200 (2026-11-27): (LDG
        // bytes, %, LDGSTS bytes, %, ncu's l1tex__t_bytes...ld.sum); the durations are not ncu's, so
        // one per row is made up and both sides use it.
        for (ld, ld_pct, ldgsts, ldgsts_pct, l1tex_bytes) in [
            (0.0, 0.0, 100.66e6, 100.0, 100.66e6), // cuBLAS SGEMM 1024^3 (sm80_xmma ... ffma)
            (0.0, 0.0, 67.11e6, 100.0, 67.11e6),   // asynccopy mode 1: cp.async.cg, 16 bytes (around L1)
            (67.11e6, 100.0, 67.11e6, 100.0, 134.22e6), // asynccopy mode 2: LDG and cp.async.ca
        ] {
            let ns = 1.0e5;
            let ours = r.value(&[ld, ld_pct, ns, ldgsts, ldgsts_pct]);
            assert!((ours - l1tex_bytes / ns).abs() <= 1e-6 * ours, "{ours} against {}", l1tex_bytes / ns);
        }
    }

    #[test]
    fn counters_of_units_a_chip_lacks_are_known() {
        assert!(on_chip("smsp__sass_data_bytes_mem_global_op_ldgsts.sum", "gh100"));
        assert!(on_chip("smsp__sass_data_bytes_mem_global_op_ldgsts.sum", "GA100"));
        assert!(!on_chip("smsp__sass_data_bytes_mem_global_op_ldgsts.sum", "tu102"));
        assert!(!on_chip("smsp__sass_data_bytes_mem_global_op_ldgsts.sum", "gv100"));
        assert!(on_chip("smsp__sass_data_bytes_mem_global_op_ld.sum", "tu102"));
    }

    /// The formulas on hand-worked counter values: a kernel of 1000 threads doing one FADD, one FMUL
    /// and three FFMAs each; hit rates over loads and stores; atomics over two kinds of request.
    #[test]
    fn sums_and_ratios_of_counters() {
        let r =
            parse_requested("flop_count_sp,global_hit_rate,atomic_transactions_per_request,dram_utilization").unwrap();
        assert_eq!(r[0].value(&[1000.0, 1000.0, 3000.0]), 8000.0);
        // Load hits 30 of 100 sectors, store hits 10 of 100, no atomics or reductions: 20 %.
        assert_eq!(r[1].value(&[30.0, 10.0, 0.0, 0.0, 100.0, 100.0, 0.0, 0.0]), 20.0);
        assert_eq!(r[1].value(&[0.0; 8]), 0.0);
        assert!(r[1].value(&[1.0]).is_nan());
        // 96 sectors over 32 atomic and 0 reduction requests.
        assert_eq!(r[2].value(&[64.0, 32.0, 32.0, 0.0]), 3.0);
        // 73 % of DRAM's peak is nvprof's level 7.3, printed High (7).
        assert!((r[3].value(&[73.0]) - 7.3).abs() < 1e-12);
        assert_eq!(r[3].unit, LEVEL);
        let d = lookup("flop_count_sp").unwrap();
        assert_eq!(
            d.ncu(),
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum + smsp__sass_thread_inst_executed_op_fmul_pred_on.sum + 2 * smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
        );
        assert!(
            lookup("local_hit_rate")
                .unwrap()
                .ncu()
                .starts_with("(l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum + ")
        );
    }

    #[test]
    fn older_names_measure_the_metric_they_became() {
        // A Kepler script's names (a GT 650M's and a K40c's nvprof printed these).
        let r = parse_requested("l1_cache_global_hit_rate,stall_data_request,global_hit_rate").unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].name, "l1_cache_global_hit_rate");
        assert_eq!((r[0].counters.clone(), r[0].formula), (r[2].counters.clone(), r[2].formula));
        assert_eq!(r[1].counters, vec!["smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct".to_string()]);
        for (old, new) in ALIASES {
            assert!(lookup(new).is_some_and(|d| !d.counters.is_empty()), "{old} -> {new}");
            assert!(lookup(old).is_none() && !UNAVAILABLE.iter().any(|(n, _)| n == old), "{old}");
        }
        let err = parse_requested("nc_gld_efficiency").unwrap_err().to_string();
        assert!(err.contains("gld_efficiency includes it"), "{err}");
    }

    /// The metric lists of nvprof command lines in public repositories' scripts and notes (a course's
    /// Slurm jobs, benchmark drivers, code comments; 2013-2021), every name accepted.
    #[test]
    fn metric_lists_of_real_nvprof_scripts_parse() {
        for list in [
            "achieved_occupancy",
            "gld_efficiency,shared_efficiency",
            "dram_read_transactions,dram_write_transactions",
            "gld_throughput",
            "branch_efficiency",
            "achieved_occupancy,inst_executed,inst_fp_32,inst_fp_64,inst_integer",
            "flops_sp,gld_throughput,gst_throughput,sm_efficiency,achieved_occupancy",
            "shared_load_transactions_per_request",
            "l2_tex_read_throughput,l2_tex_write_throughput,l2_read_throughput,l2_write_throughput,l2_read_transactions",
            "dram_read_bytes,dram_write_bytes",
            "achieved_occupancy,ipc,sm_efficiency,dram_read_throughput,stall_memory_dependency,flop_count_sp",
            "gld_transactions,gst_transactions",
            "flops_sp,flops_dp",
            "flops_sp_fma",
            "all",
        ] {
            let r = parse_requested(list).unwrap_or_else(|e| panic!("{list}: {e}"));
            assert!(!r.is_empty(), "{list}");
        }
        assert_eq!(parse_requested("flops_dp").unwrap()[0].counters.len(), 3);
    }

    #[test]
    fn unavailable_metrics_say_why() {
        let err = parse_requested("achieved_occupancy,inst_replay_overhead").unwrap_err().to_string();
        assert!(err.contains("'inst_replay_overhead' is unavailable") && err.contains("replayed"), "{err}");
        // `all` is every measurable one, never an unavailable one.
        let all = parse_requested("all").unwrap();
        assert!(all.iter().all(|r| !UNAVAILABLE.iter().any(|(n, _)| *n == r.name)));
        assert!(all.iter().any(|r| r.name == "stall_memory_dependency"));
    }

    #[test]
    fn requests_parse() {
        let all = parse_requested("all").unwrap();
        assert_eq!(all.len(), CATALOGUE.iter().filter(|d| !d.counters.is_empty()).count());
        let raw =
            parse_requested("sm__warps_active.avg.pct_of_peak_sustained_active,gld_efficiency,gld_efficiency").unwrap();
        assert_eq!(raw.len(), 2);
        assert_eq!(raw[0].unit, "%");
        assert_eq!(raw[0].name, "sm__warps_active.avg.pct_of_peak_sustained_active");
        let once = counters_of(&parse_requested("gld_throughput").unwrap());
        assert_eq!(counters_of(&parse_requested("gld_throughput,gld_throughput").unwrap()), once);
        assert_eq!(once.len(), 5);
        // Derived metrics are accepted (always shown) but need no counters.
        assert!(parse_requested("theoretical_occupancy").unwrap().is_empty());
        for bad in ["nope", "foo bar", ","] {
            assert!(parse_requested(bad).is_err(), "{bad}");
        }
    }
}
