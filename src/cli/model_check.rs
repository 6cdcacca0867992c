//! `warpscope model-check`: the time model against measured sweeps, one row per kernel and problem
//! (median |error|, Spearman, spread, regret of the model's pick) with issue 14's targets.

use std::path::PathBuf;

use clap::Args;

use warpscope::Outcome;
use warpscope::model::arch;
use warpscope::model::check::{self, KernelFit, Predictor};
use warpscope::report::listings::{ModelFits, ModelTerms};
use warpscope::{Result, report};

use super::{ListFormat, print_listing, usage};

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
    /// Predict a kernel file's sweep again (it implies --repredict): each record's configuration rebuilt
    /// from FILE (docs/KERNEL-FILE.md) with the record's sizes and parameters, traced from its PTX (a
    /// `.cu` through NVRTC) as `sweep --model` traces it.
    #[arg(long, value_name = "FILE")]
    kernel_file: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
    /// Exit 1 when a kernel misses a target.
    #[arg(long)]
    strict: bool,
    /// One row per measured configuration instead of per kernel: the measured time, this binary's
    /// prediction on the run's device (or `--gpu`'s card) and every term of the time model, the largest
    /// being the bound (docs/MODEL.md section 4).
    #[arg(long, conflicts_with = "strict")]
    terms: bool,
}

pub fn run(a: &ModelCheckArgs) -> Result<Outcome> {
    let how = match &a.gpu {
        Some(name) => Predictor::Card(arch::find_card(name).map_err(usage)?),
        None if a.repredict || a.kernel_file.is_some() => Predictor::Device,
        None => Predictor::Stored,
    };
    // A kernel file's records, rebuilt from it; why any is not modelled, said once per reason.
    let own = |path: &std::path::Path, report: &warpscope::record::Report| -> Result<Vec<Option<check::Rebuilt>>> {
        let Some(kf) = &a.kernel_file else { return Ok(Vec::new()) };
        let own = warpscope::userkernel::repredict::rebuild(kf, path, report, super::flag)?;
        let mut said: Vec<&str> = Vec::new();
        for why in own.iter().flatten().filter_map(|k| k.as_ref().err()) {
            if !said.contains(&why.as_str()) {
                said.push(why);
                let n = own.iter().flatten().filter(|k| k.as_ref().err() == Some(why)).count();
                crate::output::note(&format!("model: {why} ({n} configurations)"));
            }
        }
        Ok(own)
    };
    if a.terms {
        // The predictions a report carries have no terms: predict again on the run's device.
        let how = if let Predictor::Stored = how { Predictor::Device } else { how };
        let mut rows = Vec::new();
        for path in &a.files {
            let report = report::read(path)?;
            let found = check::terms(&report, &how, &own(path, &report)?)?;
            if found.is_empty() {
                return Err(usage(format!("{}: no measured configuration", path.display())));
            }
            rows.extend(found);
        }
        print_listing(&ModelTerms(rows), a.format)?;
        return Ok(Outcome::Ok);
    }
    let mut fits: Vec<KernelFit> = Vec::new();
    // A file without a prediction (a kernel the model could not follow) is passed over with a note when
    // other files have some; alone, or when none has any, it is the error.
    let mut empty = Vec::new();
    for path in &a.files {
        let report = report::read(path)?;
        let predicted = check::predictions(&report, &how, &own(path, &report)?)?;
        let found = check::fits(&report.records, &predicted);
        if found.is_empty() {
            empty.push(path);
        }
        fits.extend(found);
    }
    let why = match how {
        Predictor::Stored => {
            "no configuration with both a measured time and a predicted_time (run the sweep with --model, or use \
             --repredict or --gpu)"
        }
        _ if a.kernel_file.is_some() => {
            "no configuration of its kernel file could be predicted again (the notes say why)"
        }
        _ => "no measured configuration",
    };
    match empty.first() {
        Some(path) if fits.is_empty() => return Err(usage(format!("{}: {why}", path.display()))),
        _ => empty.iter().for_each(|p| crate::output::note(&format!("{}: passed over: {why}", p.display()))),
    }
    let fits = ModelFits(fits);
    print_listing(&fits, a.format)?;
    Ok(if a.strict && fits.meeting_targets() < fits.0.len() { Outcome::CheckFailed } else { Outcome::Ok })
}
