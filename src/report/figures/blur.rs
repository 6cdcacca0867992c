//! The figure of `blur --bench`: each algorithm's measured and estimated MP/s, and the % of its
//! estimate it reached.

use std::path::Path;

use crate::error::Result;
use crate::report::plot::{self, Labels, Panel, Series};
use crate::studies::blur_pipelines::{ALGOS, BlurRow};

/// Draws `rows` (the copy, then every algorithm in [`ALGOS`] order) to `path`, titled `title`.
pub fn blur_bench(rows: &[BlurRow], title: &str, path: &Path) -> Result<()> {
    // The algorithms' command-line names fit an axis.
    let names: Vec<String> =
        std::iter::once("copy".to_string()).chain(ALGOS.iter().map(|a| a.name().to_string())).collect();
    let series = |label: &str, f: fn(&BlurRow) -> Option<f64>| Series {
        label: label.into(),
        points: rows.iter().enumerate().filter_map(|(i, r)| Some((i as f64, f(r)?))).collect(),
    };
    plot::panels(
        path,
        vec![
            Panel {
                labels: Labels::new(format!("{title}: rate"), "algorithm", "MP/s"),
                series: vec![series("measured", |r| r.measured_mps), series("estimate", |r| Some(r.estimate_mps))],
                x_names: Some(names.clone()),
            },
            Panel {
                labels: Labels::new(format!("{title}: % of the seed's estimate"), "algorithm", "%"),
                series: vec![series("% of estimate", |r| r.pct_of_estimate)],
                x_names: Some(names),
            },
        ],
    )
}
