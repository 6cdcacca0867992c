//! `compare --baseline`: each configuration's change of median time, judged against the runs' noise.

use crate::baseline::Change;
use crate::error::Result;
use crate::record::{dims, paren};
use crate::report::listing::{Cells, Listing, Part, to_json};

/// The changes between two runs of the same configurations.
pub struct Changes<'a>(pub &'a [Change]);

impl Listing for Changes<'_> {
    fn json(&self) -> Result<String> {
        to_json(&self.0)
    }

    fn text(&self) -> Vec<Part> {
        let mut t = Cells::new(&["Kernel", "Problem", "Block", "baseline ms", "new ms", "change", "noise", "verdict"]);
        for c in self.0 {
            t.push(vec![
                c.kernel.clone(),
                c.problem.clone(),
                paren(c.block),
                format!("{:.4}", c.baseline_ms),
                format!("{:.4}", c.new_ms),
                format!("{:+.2}%", c.change_pct),
                format!("{:.2}%", c.noise_pct),
                c.verdict.as_str().to_string(),
            ]);
        }
        vec![
            Part::Table(t),
            Part::Line("noise = the larger interquartile range of the two runs, % of the median".into()),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let mut t =
            Cells::new(&["kernel", "problem", "block", "baseline_ms", "new_ms", "change_pct", "noise_pct", "verdict"]);
        for c in self.0 {
            t.push(vec![
                c.kernel.clone(),
                c.problem.clone(),
                dims(c.block),
                c.baseline_ms.to_string(),
                c.new_ms.to_string(),
                c.change_pct.to_string(),
                c.noise_pct.to_string(),
                c.verdict.as_str().to_string(),
            ]);
        }
        Some(t)
    }
}
