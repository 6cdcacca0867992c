//! Side by side: warpscope's records against another tool's (ncu, nvprof) or another warpscope run,
//! matched by kernel, grid and block, with the difference of every shared metric.

use serde::Serialize;

use crate::import::base_name;
use crate::metrics;
use crate::record::{Metric, Record, Report, Source};
use crate::spec::Dim3;
use crate::stats::median;

/// Which of warpscope's values to hold against the other file's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Measured values (CUPTI counters, CUDA events); the model's where nothing was measured.
    Measured,
    /// The model's estimates.
    Estimated,
}

/// One metric of one matched configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Kernel.
    pub kernel: String,
    /// Grid.
    pub grid: Dim3,
    /// Block.
    pub block: Dim3,
    /// Metric (nvprof name where one exists).
    pub metric: String,
    /// Unit of both values.
    pub unit: String,
    /// warpscope's value.
    pub ours: f64,
    /// Where warpscope's value came from (`measured`, `estimated`, `events` for the event-timed median).
    pub ours_source: String,
    /// The other file's value (median over its launches of this configuration).
    pub theirs: f64,
    /// Launches of this configuration in the other file.
    pub launches: usize,
    /// ours - theirs, in the unit (percentage points for % and occupancy).
    pub abs_delta: f64,
    /// 100 * (ours - theirs) / |theirs|; `None` when theirs is 0.
    pub rel_delta_pct: Option<f64>,
    /// What `--fail-above` judges: percentage points for percentages and occupancy, else the relative %.
    pub delta: f64,
}

/// The whole comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Comparison {
    /// Matched metrics.
    pub rows: Vec<Row>,
    /// Configurations of the other file with no warpscope record (and why).
    pub unmatched: Vec<String>,
}

impl Comparison {
    /// The rows whose delta exceeds `limit`.
    pub fn above(&self, limit: f64) -> Vec<&Row> {
        self.rows.iter().filter(|r| r.delta.is_nan() || r.delta.abs() > limit).collect()
    }
}

fn is_points(name: &str, unit: &str) -> bool {
    unit == metrics::PCT || (unit == metrics::RATIO && name.ends_with("occupancy"))
}

/// A value in percentage points when it is a ratio of occupancy, else as it is.
fn display(name: &str, unit: &str, v: f64) -> f64 {
    if unit == metrics::RATIO && name.ends_with("occupancy") { 100.0 * v } else { v }
}

/// warpscope's value of `name` in `r`.
fn ours<'a>(r: &'a Record, name: &str, pick: Pick) -> Option<(f64, String, &'a str)> {
    let find = |s: Source| r.metrics.iter().find(|m| m.name == name && m.source == s);
    let m: Option<&Metric> = match pick {
        Pick::Measured => find(Source::Measured).or_else(|| find(Source::Mock)).or_else(|| find(Source::Estimated)),
        Pick::Estimated => find(Source::Estimated),
    };
    match m {
        Some(m) => Some((m.value, m.unit.clone(), m.source.as_str())),
        // The kernel duration: CUDA events' median when CUPTI's `duration` was not collected.
        None if name == metrics::DURATION && pick == Pick::Measured => {
            r.time_ms.as_ref().map(|t| (t.median, metrics::MS.to_string(), "events"))
        }
        None => None,
    }
}

/// Compares `ours` with `theirs`: every configuration of `theirs` is matched to warpscope's record of
/// the same kernel, block and grid (a file without launch shapes, like nvprof's metric summary,
/// matches a kernel run once); every metric both have becomes a row.
pub fn compare(ours_report: &Report, theirs: &Report, pick: Pick) -> Comparison {
    let mut out = Comparison::default();
    // Group the other file's launches per configuration, in file order.
    let mut groups: Vec<(String, Dim3, Dim3, Vec<&Record>)> = Vec::new();
    for r in &theirs.records {
        let k = base_name(&r.kernel);
        match groups.iter_mut().find(|g| g.0 == k && g.1 == r.grid && g.2 == r.block) {
            Some(g) => g.3.push(r),
            None => groups.push((k, r.grid, r.block, vec![r])),
        }
    }
    let ok: Vec<&Record> =
        ours_report.records.iter().filter(|r| r.time_ms.is_some() || !r.metrics.is_empty()).collect();
    for (kernel, grid, block, launches) in groups {
        let shape_known = block.volume() > 0;
        let candidates: Vec<&&Record> = ok
            .iter()
            .filter(|r| base_name(&r.kernel) == kernel)
            .filter(|r| !shape_known || (r.block == block && (grid.volume() == 0 || r.grid == grid)))
            .collect();
        let mine = match candidates.as_slice() {
            [one] => *one,
            [] => {
                out.unmatched.push(format!("{kernel} {} {}: no warpscope record", grid.paren(), block.paren()));
                continue;
            }
            _ => {
                out.unmatched.push(format!(
                    "{kernel}: {} warpscope records and no launch shape in the other file",
                    candidates.len()
                ));
                continue;
            }
        };
        let mut names: Vec<&str> = Vec::new();
        for m in launches.iter().flat_map(|l| &l.metrics) {
            if !names.contains(&m.name.as_str()) {
                names.push(&m.name);
            }
        }
        for name in names {
            let values: Vec<f64> =
                launches.iter().filter_map(|l| l.metrics.iter().find(|m| m.name == name)).map(|m| m.value).collect();
            let unit = launches
                .iter()
                .flat_map(|l| &l.metrics)
                .find(|m| m.name == name)
                .map(|m| m.unit.clone())
                .unwrap_or_default();
            let (Some(theirs_v), Some((ours_v, ours_unit, src))) = (median(&values), ours(mine, name, pick)) else {
                continue;
            };
            if ours_unit != unit {
                continue; // same name, different unit: not comparable (a raw counter against a converted one)
            }
            let (a, b) = (display(name, &unit, ours_v), display(name, &unit, theirs_v));
            let abs_delta = a - b;
            let rel = (b != 0.0).then(|| 100.0 * abs_delta / b.abs());
            let delta = if is_points(name, &unit) {
                abs_delta
            } else {
                rel.unwrap_or(if abs_delta == 0.0 { 0.0 } else { f64::INFINITY })
            };
            out.rows.push(Row {
                kernel: kernel.clone(),
                grid: mine.grid,
                block: mine.block,
                metric: name.to_string(),
                unit: if unit == metrics::RATIO && name.ends_with("occupancy") { "%".into() } else { unit.clone() },
                ours: a,
                ours_source: src.to_string(),
                theirs: b,
                launches: values.len(),
                abs_delta,
                rel_delta_pct: rel,
                delta,
            });
        }
    }
    out
}
