//! `warpscope merge`: the result files of one sweep's slices (`--shard`, `--devices`, resumed runs)
//! joined into one report in the sweep's order.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use warpscope::{Result, report};

use super::{OutputArgs, exit_for};

/// Arguments of `merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Result files (JSON reports or JSON Lines), e.g. one per shard.
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn run(a: &MergeArgs) -> Result<ExitCode> {
    a.out.check()?;
    let reports = a.files.iter().map(|f| report::read(f)).collect::<Result<Vec<_>>>()?;
    let merged = warpscope::merge::merge(reports)?;
    if !a.out.quiet {
        eprintln!("merged {} records from {} files", merged.records.len(), a.files.len());
    }
    a.out.emit(&merged)?;
    Ok(exit_for(&merged))
}
