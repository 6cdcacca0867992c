//! nvprof's own words for the metrics of the catalogue ([`crate::metrics`]): the short description its
//! result tables print ("Metric Description") and the longer one of `nvprof --query-metrics`. Raw
//! Nsight Compute metrics, which nvprof did not have, are described by their own name.

use crate::metrics::{self, CATALOGUE, Requested};

/// (nvprof name, "Metric Description" column, `--query-metrics` description), as nvprof printed them.
const NVPROF: &[(&str, &str, &str)] = &[
    (
        "achieved_occupancy",
        "Achieved Occupancy",
        "Ratio of the average active warps per active cycle to the maximum number of warps supported on a multiprocessor",
    ),
    (
        "sm_efficiency",
        "Multiprocessor Activity",
        "The percentage of time at least one warp is active on a specific multiprocessor",
    ),
    ("gld_throughput", "Global Load Throughput", "Global memory load throughput"),
    ("gst_throughput", "Global Store Throughput", "Global memory store throughput"),
    (
        "gld_efficiency",
        "Global Memory Load Efficiency",
        "Ratio of requested global memory load throughput to required global memory load throughput expressed as percentage.",
    ),
    (
        "gst_efficiency",
        "Global Memory Store Efficiency",
        "Ratio of requested global memory store throughput to required global memory store throughput expressed as percentage.",
    ),
    ("gld_transactions", "Global Load Transactions", "Number of global memory load transactions"),
    ("gst_transactions", "Global Store Transactions", "Number of global memory store transactions"),
    (
        "gld_transactions_per_request",
        "Global Load Transactions Per Request",
        "Average number of global memory load transactions performed for each global memory load.",
    ),
    ("dram_read_throughput", "Device Memory Read Throughput", "Device memory read throughput"),
    ("dram_write_throughput", "Device Memory Write Throughput", "Device memory write throughput"),
    ("l2_read_throughput", "L2 Throughput (Reads)", "Memory read throughput seen at L2 cache for all read requests"),
    (
        "shared_load_transactions_per_request",
        "Shared Memory Load Transactions Per Request",
        "Average number of shared memory load transactions performed for each shared memory load",
    ),
    (
        "shared_efficiency",
        "Shared Memory Efficiency",
        "Ratio of requested shared memory throughput to required shared memory throughput expressed as percentage",
    ),
    (
        "branch_efficiency",
        "Branch Efficiency",
        "Ratio of non-divergent branches to total branches expressed as percentage",
    ),
    (
        "warp_execution_efficiency",
        "Warp Execution Efficiency",
        "Ratio of the average active threads per warp to the maximum number of threads per warp supported on a multiprocessor",
    ),
    ("inst_executed", "Instructions Executed", "The number of instructions executed"),
    // warpscope's own, which nvprof did not have.
    ("duration", "Duration", "Kernel duration measured by the GPU's own timer (Nsight Compute's gpu__time_duration)"),
];

/// The "Metric Description" column of a metric: nvprof's words, else the catalogue's first clause,
/// else (a raw Nsight Compute metric) its name.
pub fn short(name: &str) -> String {
    if let Some((_, s, _)) = NVPROF.iter().find(|(n, _, _)| *n == name) {
        return s.to_string();
    }
    match metrics::lookup(name) {
        Some(d) => d.description.split(':').next().unwrap_or(d.description).to_string(),
        None => name.to_string(),
    }
}

/// The `--query-metrics` description of a metric.
pub fn long(name: &str) -> String {
    if let Some((_, _, l)) = NVPROF.iter().find(|(n, _, _)| *n == name) {
        return l.to_string();
    }
    metrics::lookup(name).map(|d| d.description.to_string()).unwrap_or_else(|| name.to_string())
}

/// The metrics `--query-metrics` lists: every counter-backed metric of the catalogue.
pub fn queryable() -> Vec<&'static str> {
    CATALOGUE.iter().filter(|d| !d.counters.is_empty()).map(|d| d.name).collect()
}

/// Whether a requested metric is one of nvprof's (else a raw Nsight Compute metric).
pub fn is_nvprof(r: &Requested) -> bool {
    metrics::lookup(&r.name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measurable_metric_has_nvprof_words() {
        for name in queryable() {
            assert!(NVPROF.iter().any(|(n, _, _)| *n == name), "{name}: add nvprof's descriptions to names.rs");
        }
    }

    #[test]
    fn descriptions_fall_back() {
        assert_eq!(short("achieved_occupancy"), "Achieved Occupancy");
        assert_eq!(short("gld_efficiency"), "Global Memory Load Efficiency");
        assert_eq!(short("eff_bandwidth"), "Effective bandwidth");
        let raw = "sm__warps_active.avg.pct_of_peak_sustained_active";
        assert_eq!(short(raw), raw);
        assert_eq!(long(raw), raw);
    }
}
