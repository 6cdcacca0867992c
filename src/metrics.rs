//! The metric catalogue: nvprof's names, the Nsight Compute metric NVIDIA maps each to, the unit
//! (nvprof's: GB/s, %, ratio 0-1 for occupancy) and a description; plus warpscope's own derived metrics.

/// One catalogue entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricDef {
    /// nvprof name (or warpscope's, for derived metrics).
    pub name: &'static str,
    /// The Nsight Compute metric NVIDIA gives as the equivalent; `None` for derived or model-only ones.
    pub ncu: Option<&'static str>,
    /// Unit of the value in records.
    pub unit: &'static str,
    /// What it means.
    pub description: &'static str,
}

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

/// The time model's prediction.
pub const PREDICTED_TIME: &str = "predicted_time";
/// (predicted - measured) / measured, percent.
pub const MODEL_ERROR: &str = "model_error";

/// Every metric warpscope knows, in the order tables show them.
pub static CATALOGUE: &[MetricDef] = &[
    MetricDef {
        name: PREDICTED_TIME,
        ncu: None,
        unit: MS,
        description: "Kernel time predicted by warpscope's model (SKE terms, roofline, block issue)",
    },
    MetricDef { name: MODEL_ERROR, ncu: None, unit: PCT, description: "Predicted minus measured time, % of measured" },
    MetricDef {
        name: EFF_BANDWIDTH,
        ncu: None,
        unit: GBPS,
        description: "Effective bandwidth: minimum bytes read + written over the median kernel time",
    },
    MetricDef {
        name: PCT_OF_MEMCPY,
        ncu: None,
        unit: PCT,
        description: "Effective bandwidth as % of device-to-device cuMemcpy bandwidth measured in the same run",
    },
    MetricDef {
        name: THEORETICAL_OCCUPANCY,
        ncu: Some("sm__maximum_warps_per_active_cycle_pct"),
        unit: RATIO,
        description: "Theoretical Occupancy: resident warps per SM the launch allows over the SM's maximum",
    },
    MetricDef {
        name: ACHIEVED_OCCUPANCY,
        ncu: Some("sm__warps_active.avg.pct_of_peak_sustained_active"),
        unit: RATIO,
        description: "Achieved Occupancy: average active warps per active cycle over the SM's maximum",
    },
    MetricDef {
        name: GLD_THROUGHPUT,
        ncu: Some("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second"),
        unit: GBPS,
        description: "Global Load Throughput",
    },
    MetricDef {
        name: GLD_EFFICIENCY,
        ncu: Some("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"),
        unit: PCT,
        description: "Global Memory Load Efficiency: requested over transferred bytes",
    },
    MetricDef {
        name: GLD_TRANSACTIONS,
        ncu: Some("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
        unit: COUNT,
        description: "Global Load Transactions",
    },
    MetricDef {
        name: GLD_TRANSACTIONS_PER_REQUEST,
        ncu: Some("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"),
        unit: "ratio",
        description: "Global Load Transactions Per Request",
    },
    MetricDef {
        name: GST_THROUGHPUT,
        ncu: Some("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second"),
        unit: GBPS,
        description: "Global Store Throughput",
    },
    MetricDef {
        name: GST_EFFICIENCY,
        ncu: Some("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"),
        unit: PCT,
        description: "Global Memory Store Efficiency: requested over transferred bytes",
    },
    MetricDef {
        name: GST_TRANSACTIONS,
        ncu: Some("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
        unit: COUNT,
        description: "Global Store Transactions",
    },
];

/// The catalogue entry of `name`.
pub fn lookup(name: &str) -> Option<&'static MetricDef> {
    CATALOGUE.iter().find(|m| m.name == name)
}

/// Metrics the sweep table shows by default.
pub const DEFAULT_SWEEP: &[&str] =
    &[EFF_BANDWIDTH, PCT_OF_MEMCPY, THEORETICAL_OCCUPANCY, ACHIEVED_OCCUPANCY, GLD_THROUGHPUT, GLD_EFFICIENCY];

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
            assert!([RATIO, PCT, GBPS, COUNT, MS].contains(&m.unit), "{}", m.name);
        }
        for d in DEFAULT_SWEEP {
            assert!(lookup(d).is_some());
        }
    }

    #[test]
    fn seed_metrics_map_to_ncu() {
        assert_eq!(lookup(ACHIEVED_OCCUPANCY).unwrap().ncu, Some("sm__warps_active.avg.pct_of_peak_sustained_active"));
        assert_eq!(lookup(GLD_EFFICIENCY).unwrap().unit, PCT);
        assert_eq!(lookup(ACHIEVED_OCCUPANCY).unwrap().unit, RATIO);
    }
}
