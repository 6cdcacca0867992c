//! nvprof's own words for a metric, read from its catalogue entry ([`crate::metrics`]): the short
//! description its result tables print ("Metric Description") and the longer one of `nvprof
//! --query-metrics`. Raw Nsight Compute metrics, which nvprof did not have, are described by their own
//! name.

use crate::metrics::{self, CATALOGUE, MetricDef, Requested};

/// The "Metric Description" column of a metric: nvprof's words, else the catalogue's first clause,
/// else (a raw Nsight Compute metric) its name.
pub fn short(name: &str) -> String {
    match metrics::resolve(name) {
        Some(MetricDef { nvprof: Some((short, _)), .. }) => short.to_string(),
        Some(d) => d.description.split(':').next().unwrap_or(d.description).to_string(),
        None => name.to_string(),
    }
}

/// The `--query-metrics` description of a metric.
pub fn long(name: &str) -> String {
    match metrics::resolve(name) {
        Some(MetricDef { nvprof: Some((_, long)), .. }) => long.to_string(),
        Some(d) => d.description.to_string(),
        None => name.to_string(),
    }
}

/// The metrics `--query-metrics` lists: every counter-backed metric of the catalogue.
pub fn queryable() -> Vec<&'static str> {
    CATALOGUE.iter().filter(|d| !d.counters.is_empty()).map(|d| d.name).collect()
}

/// Whether a requested metric is one of nvprof's (else a raw Nsight Compute metric).
pub fn is_nvprof(r: &Requested) -> bool {
    metrics::resolve(&r.name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measurable_metric_has_nvprof_words() {
        for name in queryable() {
            let d = metrics::lookup(name).unwrap();
            assert!(d.nvprof.is_some(), "{name}: give the catalogue entry nvprof's words");
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
