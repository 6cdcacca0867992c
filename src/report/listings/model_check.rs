//! `model-check`: the time model against measured sweeps, one row per kernel and problem, with issue 14's
//! targets and what each kernel misses.

use serde::Serialize;

use crate::error::Result;
use crate::model::check::{self, KernelFit, Terms};
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
                with_params(f.predicted_best, &f.predicted_best_params),
                with_params(f.measured_best, &f.measured_best_params),
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
            "predicted_best_params",
            "measured_best_params",
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
                f.predicted_best_params.clone().unwrap_or_default(),
                f.measured_best_params.clone().unwrap_or_default(),
            ]);
        }
        Some(t)
    }
}

/// A block shape as the table shows it, with its configuration's parameters where there are any.
fn with_params(block: crate::spec::Dim3, params: &Option<String>) -> String {
    match params {
        Some(p) => format!("{} {p}", block.paren()),
        None => block.paren(),
    }
}

/// Every measured configuration of the files checked, with the model's terms (`model-check --terms`).
pub struct ModelTerms(pub Vec<Terms>);

/// The time model's terms, ms, in the columns' order: dram, l2, l1, latency, issue, compute, sync.
fn term_values(t: &Terms) -> [f64; 7] {
    let p = &t.predicted;
    [p.bandwidth_ms, p.l2_ms, p.l1_ms, p.latency_ms, p.issue_ms, p.compute_ms, p.sync_ms]
}

/// One configuration's row: `time` writes the measured and predicted times and the terms, `pct` the
/// prediction's error.
fn cells(r: &Terms, time: impl Fn(f64) -> String, pct: impl Fn(f64) -> String) -> Vec<String> {
    let p = &r.predicted;
    let mut row = vec![
        r.kernel.clone(),
        r.problem.clone(),
        r.block.to_string(),
        time(r.measured_ms),
        time(p.time_ms),
        pct((p.time_ms / r.measured_ms - 1.0) * 100.0),
        p.bound.as_str().to_string(),
    ];
    row.extend(term_values(r).map(time));
    row
}

impl Listing for ModelTerms {
    fn json(&self) -> Result<String> {
        to_json(&self.0)
    }

    fn text(&self) -> Vec<Part> {
        let mut head = vec!["kernel", "problem", "block", "measured ms", "predicted ms", "error", "bound"];
        head.extend(["dram ms", "l2 ms", "l1 ms", "latency ms", "issue ms", "compute ms", "sync ms"]);
        let mut t = Cells::new(&head);
        for r in &self.0 {
            t.push(cells(r, |v| format!("{v:.4}"), |e| format!("{e:+.1}%")));
        }
        vec![
            Part::Table(t),
            Part::Line(
                "predicted = the largest of dram, l2, l1, latency, issue and compute (the bound), plus sync and \
                 the launch overhead; compute is instruction issue plus each round's memory latency that no warp \
                 covers (docs/MODEL.md sections 4 and 16)"
                    .into(),
            ),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let mut head = vec!["kernel", "problem", "block", "measured_ms", "predicted_ms", "error_pct", "bound"];
        head.extend(["dram_ms", "l2_ms", "l1_ms", "latency_ms", "issue_ms", "compute_ms", "sync_ms"]);
        let mut t = Cells::new(&head);
        for r in &self.0 {
            t.push(cells(r, |v| v.to_string(), |e| e.to_string()));
        }
        Some(t)
    }
}
