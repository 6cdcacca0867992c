//! The figures of a comparison: per metric, each matched configuration's delta against the other
//! tool's value with the `--fail-above` threshold; and of `compare --baseline`, each configuration's
//! change of median time beside the runs' noise.

use crate::baseline::Change;
use crate::compare::Comparison;
use crate::record::dims;

use super::Figure;
use crate::report::plot::{Bars, CatSeries, Chart, Labels, PALETTE, Style};

/// The figure of a comparison: per metric, the delta of every matched configuration (percentage points
/// for percentages and occupancy, relative % otherwise), with the threshold of `--fail-above`.
pub fn comparison(cmp: &Comparison, threshold: Option<f64>, names: [&str; 2]) -> Figure {
    let [one, other] = names;
    let mut metrics_in_order: Vec<&str> = Vec::new();
    for r in &cmp.rows {
        if !metrics_in_order.contains(&r.metric.as_str()) {
            metrics_in_order.push(&r.metric);
        }
    }
    let kernels = {
        let mut k: Vec<&str> = cmp.rows.iter().map(|r| r.kernel.as_str()).collect();
        k.sort_unstable();
        k.dedup();
        k.len()
    };
    let charts = metrics_in_order
        .iter()
        .map(|&m| {
            let rows: Vec<_> = cmp.rows.iter().filter(|r| r.metric == m).collect();
            let points = rows.iter().any(|r| r.unit == "%");
            let categories = rows
                .iter()
                .map(|r| {
                    let block = dims(r.block);
                    if kernels > 1 { format!("{} {block}", r.kernel) } else { block }
                })
                .collect();
            let beyond = threshold.map(|t| rows.iter().filter(|r| r.delta.abs() > t).count());
            let note = match beyond {
                Some(n) => format!("{n} of {} beyond the threshold", rows.len()),
                None => format!("{} configurations", rows.len()),
            };
            Chart::Bars(Bars {
                labels: Labels::new(
                    format!("{m}: {one} - {other}"),
                    "block",
                    if points { "percentage points" } else { "relative difference" },
                ),
                unit: "%".into(),
                categories,
                series: vec![CatSeries {
                    label: if points { "delta (points)".into() } else { "delta (% of theirs)".into() },
                    color: PALETTE[0],
                    style: Style::Bar,
                    values: rows.iter().map(|r| Some(r.delta).filter(|d| d.is_finite())).collect(),
                }],
                best: None,
                threshold,
                note,
            })
        })
        .collect();
    Figure { title: format!("{one} against {other}: {} deltas", cmp.rows.len()), charts }
}

/// The figure of `compare --baseline`: each configuration's change of median time, with the limit of
/// `--fail-above`.
pub fn baseline(changes: &[Change], limit: Option<f64>) -> Figure {
    let categories = changes.iter().map(|c| dims(c.block)).collect();
    let chart = Chart::Bars(Bars {
        labels: Labels::new("median time against the baseline", "block", "change"),
        unit: "%".into(),
        categories,
        series: vec![
            CatSeries {
                label: "change of the median".into(),
                color: PALETTE[0],
                style: Style::Bar,
                values: changes.iter().map(|c| Some(c.change_pct)).collect(),
            },
            CatSeries {
                label: "noise (spread of the noisier run)".into(),
                color: PALETTE[7],
                style: Style::Diamond,
                values: changes.iter().map(|c| Some(c.noise_pct)).collect(),
            },
        ],
        best: None,
        threshold: limit,
        note: "positive: slower than the baseline".into(),
    });
    let kernel = changes.first().map(|c| format!("{} {}", c.kernel, c.problem)).unwrap_or_default();
    Figure { title: format!("{kernel}: against the baseline"), charts: vec![chart] }
}
