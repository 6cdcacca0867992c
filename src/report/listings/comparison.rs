//! `compare`: two files' values of the same kernels and metrics, side by side with their deltas.

use crate::compare::{Comparison, Row};
use crate::error::Result;
use crate::record::paren;
use crate::report::listing::{Cells, Listing, Part, to_json};
use crate::spec::Dim3;

/// A comparison as printed: the two files' labels (tool names) and whether kernels go by full signature.
pub struct ComparisonListing<'a> {
    /// The comparison.
    pub cmp: &'a Comparison,
    /// Column titles of the first and the second file's values.
    pub labels: [&'a str; 2],
    /// Show kernels' full signatures instead of their short names (text only).
    pub full_names: bool,
}

fn kernel(r: &Row, full: bool) -> String {
    if full { r.signature.clone().unwrap_or_else(|| r.kernel.clone()) } else { r.kernel.clone() }
}

/// A dim of the first file, and the second's where it differs: `(64,64) / (128,64)`.
fn both(a: Option<Dim3>, b: Option<Dim3>) -> String {
    match b {
        Some(b) => format!("{} / {}", paren(a), b.paren()),
        None => paren(a),
    }
}

impl Listing for ComparisonListing<'_> {
    fn json(&self) -> Result<String> {
        to_json(self.cmp)
    }

    fn text(&self) -> Vec<Part> {
        let [la, lb] = self.labels;
        let mut t = Cells::new(&["Kernel", "Grid", "Block", "Metric", la, "source", lb, "delta", "delta %"]);
        let fmt = |v: f64| if v.abs() >= 1e5 { format!("{v:.0}") } else { format!("{v:.4}") };
        for r in &self.cmp.rows {
            t.push(vec![
                kernel(r, self.full_names),
                both(r.grid, r.other_grid),
                both(r.block, r.other_block),
                format!("{} ({})", r.metric, r.unit),
                fmt(r.ours),
                r.ours_source.clone(),
                fmt(r.theirs),
                format!("{:+.4}", r.abs_delta),
                r.rel_delta_pct.map(|v| format!("{v:+.2}%")).unwrap_or_else(|| "-".into()),
            ]);
        }
        vec![
            Part::Table(t),
            Part::Line(format!(
                "delta = {la} - {lb}; percentages and occupancy in percentage points; A / B: the shapes differ (paired in launch order)"
            )),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let dim = |d: Option<Dim3>| d.map(|d| d.to_string()).unwrap_or_default();
        let mut t = Cells::new(&[
            "kernel",
            "grid",
            "block",
            "metric",
            "unit",
            "warpscope",
            "warpscope_source",
            "other",
            "launches",
            "abs_delta",
            "rel_delta_pct",
            "other_grid",
            "other_block",
            "matched_by",
            "warpscope_launches",
            "signature",
        ]);
        for r in &self.cmp.rows {
            t.push(vec![
                r.kernel.clone(),
                dim(r.grid),
                dim(r.block),
                r.metric.clone(),
                r.unit.clone(),
                r.ours.to_string(),
                r.ours_source.clone(),
                r.theirs.to_string(),
                r.launches.to_string(),
                r.abs_delta.to_string(),
                r.rel_delta_pct.map(|v| v.to_string()).unwrap_or_default(),
                dim(r.other_grid),
                dim(r.other_block),
                serde_json::to_value(r.matched_by).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
                r.ours_launches.to_string(),
                r.signature.clone().unwrap_or_default(),
            ]);
        }
        Some(t)
    }
}
