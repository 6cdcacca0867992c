//! `warpscope model-check`: the time model against measured sweeps, one row per kernel and problem
//! (median |error|, Spearman, spread, regret of the model's pick) with issue 14's targets.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::Outcome;
use warpscope::model::arch;
use warpscope::model::check::{self, KernelFit, Predictor};
use warpscope::{Error, Result, report};

use super::usage;

/// Arguments of `model-check`.
#[derive(Args, Debug)]
pub struct ModelCheckArgs {
    /// Result files of measured sweeps (JSON reports or JSON Lines), from `sweep --model`.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Predict again with this binary's model on each run's device (its calibration when the report
    /// has one, else the database's figures for its arch) instead of using the predictions it carries.
    #[arg(long, conflicts_with = "gpu")]
    repredict: bool,
    /// Predict again for a card of the database, with its figures (`warpscope archs` lists them): how
    /// the model transfers to a GPU whose measurements it did not see.
    #[arg(long, value_name = "NAME")]
    gpu: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: CheckFormat,
    /// Exit 1 when a kernel misses a target.
    #[arg(long)]
    strict: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    Table,
    Markdown,
    Json,
}

pub fn run(a: &ModelCheckArgs) -> Result<Outcome> {
    let how = match &a.gpu {
        Some(name) => Predictor::Card(arch::find_card(name).map_err(usage)?),
        None if a.repredict => Predictor::Device,
        None => Predictor::Stored,
    };
    let mut fits: Vec<KernelFit> = Vec::new();
    for path in &a.files {
        let report = report::read(path)?;
        let predicted = check::predictions(&report, &how)?;
        let found = check::fits(&report.records, &predicted);
        if found.is_empty() {
            let why = match how {
                Predictor::Stored => {
                    "no configuration with both a measured time and a predicted_time (run the sweep \
                                      with --model, or use --repredict or --gpu)"
                }
                _ => "no measured configuration",
            };
            return Err(usage(format!("{}: {why}", path.display())));
        }
        fits.extend(found);
    }
    let met = fits.iter().filter(|f| f.misses().is_empty()).count();
    match a.format {
        CheckFormat::Json => {
            let rows: Vec<serde_json::Value> = fits
                .iter()
                .map(|f| {
                    let mut v = serde_json::to_value(f).unwrap_or_default();
                    v["misses"] = serde_json::json!(f.misses());
                    v
                })
                .collect();
            let out = serde_json::json!({ "kernels": rows, "meeting_targets": met });
            outln!("{}", serde_json::to_string_pretty(&out).map_err(|e| Error::Output(e.to_string()))?)?;
        }
        CheckFormat::Table | CheckFormat::Markdown => {
            let mut b = Builder::default();
            b.push_record([
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
            for f in &fits {
                let misses = f.misses();
                b.push_record([
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
            let mut t = b.build();
            if a.format == CheckFormat::Markdown {
                t.with(Style::markdown());
            } else {
                t.with(Style::psql());
            }
            outln!("{t}")?;
            outln!(
                "{met} of {} kernels meet the targets (median |error| <= {}%, Spearman >= {} where the measured times \
                 spread more than {}%, regret of the model's pick <= {}%)",
                fits.len(),
                check::TARGET_MEDIAN_ERROR_PCT,
                check::TARGET_SPEARMAN,
                check::SPREAD_PCT,
                check::TARGET_REGRET_PCT
            )?;
        }
    }
    Ok(if a.strict && met < fits.len() { Outcome::CheckFailed } else { Outcome::Ok })
}
