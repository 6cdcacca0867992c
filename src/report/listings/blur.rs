//! `blur --bench` and `blur --estimate`: each Gaussian blur algorithm's memory I/O, flops, the seed's
//! estimate and (measured) its rate and error.

use crate::error::Result;
use crate::report::listing::{Cells, Listing, Part, to_json};
use crate::studies::blur_pipelines::BlurRow;

/// The rows of the copy and every algorithm.
pub struct BlurTable<'a>(pub &'a [BlurRow]);

impl Listing for BlurTable<'_> {
    fn json(&self) -> Result<String> {
        to_json(self.0)
    }

    fn text(&self) -> Vec<Part> {
        let opt = |v: Option<f64>, p: usize| v.map(|v| format!("{v:.p$}")).unwrap_or_else(|| "-".into());
        let sci = |v: Option<f64>| v.map(|v| format!("{v:.1e}")).unwrap_or_else(|| "-".into());
        let mut t = Cells::new(&[
            "algorithm",
            "I/O per pixel",
            "flops per pixel",
            "C/M",
            "estimate MP/s",
            "measured MP/s",
            "% of estimate",
            "max |err|",
            "rel L2 err",
        ]);
        for r in self.0 {
            t.push(vec![
                r.algorithm.clone(),
                format!("{}", r.io_per_pixel),
                format!("{}", r.flops_per_pixel),
                format!("{:.1}", r.cm_ratio),
                format!("{:.1}", r.estimate_mps),
                opt(r.measured_mps, 0),
                opt(r.pct_of_estimate, 1),
                sci(r.max_abs_error),
                sci(r.rel_l2_error),
            ]);
        }
        vec![
            Part::Table(t),
            Part::Line(
                "estimate = copy MP/s x 2 / (I/O per pixel) (source 000); errors against a float64 Gaussian on a random image in [-1, 1)"
                    .into(),
            ),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let o = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let mut t = Cells::new(&[
            "algorithm",
            "io_per_pixel",
            "flops_per_pixel",
            "cm_ratio",
            "estimate_mps",
            "measured_mps",
            "pct_of_estimate",
            "max_abs_error",
            "rel_l2_error",
        ]);
        for r in self.0 {
            t.push(vec![
                r.algorithm.clone(),
                r.io_per_pixel.to_string(),
                r.flops_per_pixel.to_string(),
                r.cm_ratio.to_string(),
                r.estimate_mps.to_string(),
                o(r.measured_mps),
                o(r.pct_of_estimate),
                o(r.max_abs_error),
                o(r.rel_l2_error),
            ]);
        }
        Some(t)
    }
}
