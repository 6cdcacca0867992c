//! `model-check`: the time model against measured sweeps, one row per kernel and problem, with issue 14's
//! targets and what each kernel misses.

use serde::Serialize;

use crate::error::Result;
use crate::model::check::{self, KernelFit};
use crate::report::listing::{Cells, Listing, Part, to_json};

/// The fits of every kernel of the files checked.
pub struct ModelFits(pub Vec<KernelFit>);

impl ModelFits {
    /// How many kernels meet every target.
    pub fn meeting_targets(&self) -> usize {
        self.0.iter().filter(|f| f.misses().is_empty()).count()
    }
}

#[derive(Serialize)]
struct WithMisses<'a> {
    #[serde(flatten)]
    fit: &'a KernelFit,
    misses: Vec<String>,
}

#[derive(Serialize)]
struct Json<'a> {
    kernels: Vec<WithMisses<'a>>,
    meeting_targets: usize,
}

impl Listing for ModelFits {
    fn json(&self) -> Result<String> {
        let kernels = self.0.iter().map(|fit| WithMisses { fit, misses: fit.misses() }).collect();
        to_json(&Json { kernels, meeting_targets: self.meeting_targets() })
    }

    fn text(&self) -> Vec<Part> {
        let mut t = Cells::new(&[
            "kernel",
            "problem",
            "configs",
            "median |error|",
            "Spearman",
            "spread",
            "regret",
            "predicted best",
            "measured best",
            "verdict",
        ]);
        for f in &self.0 {
            let misses = f.misses();
            t.push(vec![
                f.kernel.clone(),
                f.problem.clone(),
                f.configs.to_string(),
                format!("{:.1}%", f.median_abs_error_pct),
                f.spearman.map_or("n/a".into(), |r| format!("{r:.3}")),
                format!("{:.1}%", f.spread_pct),
                format!("{:.1}%", f.regret_pct),
                f.predicted_best.paren(),
                f.measured_best.paren(),
                if misses.is_empty() { "ok".into() } else { misses.join("; ") },
            ]);
        }
        vec![
            Part::Table(t),
            Part::Line(format!(
                "{} of {} kernels meet the targets (median |error| <= {}%, Spearman >= {} where the measured times \
                 spread more than {}%, regret of the model's pick <= {}%)",
                self.meeting_targets(),
                self.0.len(),
                check::TARGET_MEDIAN_ERROR_PCT,
                check::TARGET_SPEARMAN,
                check::SPREAD_PCT,
                check::TARGET_REGRET_PCT
            )),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let mut t = Cells::new(&[
            "kernel",
            "problem",
            "configs",
            "median_abs_error_pct",
            "spearman",
            "spread_pct",
            "regret_pct",
            "predicted_best",
            "measured_best",
            "misses",
        ]);
        for f in &self.0 {
            t.push(vec![
                f.kernel.clone(),
                f.problem.clone(),
                f.configs.to_string(),
                f.median_abs_error_pct.to_string(),
                f.spearman.map(|r| r.to_string()).unwrap_or_default(),
                f.spread_pct.to_string(),
                f.regret_pct.to_string(),
                f.predicted_best.to_string(),
                f.measured_best.to_string(),
                f.misses().join("; "),
            ]);
        }
        Some(t)
    }
}
