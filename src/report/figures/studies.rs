//! The figures of `peak` (the MAD curve) and `transpose --bench` (each variant's % of the fastest copy,
//! and the naive transpose's GB/s, against the size).

use std::path::Path;

use crate::error::Result;
use crate::kernels::MAD_COUNTS;
use crate::record::Report;
use crate::report::plot::{self, Labels, Panel, Series};
use crate::studies::peak::{FLOP_RATE, PIXEL_RATE};
use crate::studies::transpose_bench::{self, PCT_OF_COPY};

/// Draws `peak`'s MAD curve from its report to `path`: GP/s and GFLOP/s against N.
pub fn peak(report: &Report, path: &Path) -> Result<()> {
    let curve = |metric: &str| -> Vec<(f64, f64)> {
        MAD_COUNTS
            .iter()
            .filter_map(|&n| {
                let r = report.records.iter().find(|r| r.kernel == format!("mad{n}"))?;
                Some((n as f64, r.metrics.iter().find(|m| m.name == metric)?.value))
            })
            .collect()
    };
    let name = &report.device.name;
    let rate = format!("MAD-N on {name}: pixels per second");
    let flops = format!("MAD-N on {name}: arithmetic");
    plot::panels(
        path,
        vec![
            Panel {
                labels: Labels::new(rate, "multiply-adds per pixel (N)", "GP/s"),
                series: vec![Series { label: "GP/s".into(), points: curve(PIXEL_RATE) }],
                x_names: None,
            },
            Panel {
                labels: Labels::new(flops, "multiply-adds per pixel (N)", "GFLOP/s"),
                series: vec![Series { label: "GFLOP/s".into(), points: curve(FLOP_RATE) }],
                x_names: None,
            },
        ],
    )
}

/// Draws `transpose --bench`'s report (`sizes`, at `width` when one was fixed) to `path`.
pub fn transpose_bench(report: &Report, width: Option<u32>, sizes: &[u32], path: &Path) -> Result<()> {
    let x_names: Vec<String> = sizes.iter().map(|&n| format!("{}x{n}", width.unwrap_or(n))).collect();
    let mut variants: Vec<&str> = Vec::new();
    for r in &report.records {
        if !variants.contains(&r.kernel.as_str()) {
            variants.push(&r.kernel);
        }
    }
    let pct = variants
        .iter()
        .map(|v| Series {
            label: v.to_string(),
            points: report
                .records
                .iter()
                .filter(|r| r.kernel == *v)
                .filter_map(|r| {
                    let i = x_names.iter().position(|n| *n == r.problem)?;
                    Some((i as f64, r.metric(PCT_OF_COPY)?.value))
                })
                .collect(),
        })
        .collect();
    let naive = transpose_bench::naive_series(report);
    let naive = Series {
        label: "transposeNaive".into(),
        points: naive.iter().filter_map(|(p, g)| Some((x_names.iter().position(|n| n == p)? as f64, *g))).collect(),
    };
    let device = &report.device.name;
    plot::panels(
        path,
        vec![
            Panel {
                labels: Labels::new(format!("Transposes on {device}: % of the fastest copy"), "size", "% of copy"),
                series: pct,
                x_names: Some(x_names.clone()),
            },
            Panel {
                labels: Labels::new(format!("The naive transpose on {device}"), "size", "GB/s"),
                series: vec![naive],
                x_names: Some(x_names),
            },
        ],
    )
}
