//! `warpscope merge`: the result files of one sweep's slices (`--shard`, `--devices`, resumed runs)
//! joined into one report in the sweep's order.

use std::path::PathBuf;

use clap::Args;

use warpscope::Outcome;
use warpscope::output::{self, Named};
use warpscope::{Result, merge, report};

use super::{OutputArgs, exit_for, usage};

/// Arguments of `merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Result files (JSON reports or JSON Lines), e.g. one per shard.
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// Write what the files hold even when configurations of a sweep are missing from all of them (a
    /// slice not given); each gap is still named on standard error.
    #[arg(long)]
    allow_partial: bool,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn run(a: &MergeArgs) -> Result<Outcome> {
    let inputs: Vec<Named<'_>> = a.files.iter().map(|f| Named { what: "FILE", path: f }).collect();
    let to = a.out.to();
    output::check_distinct(&inputs, &[Named { what: "-o", path: to.dest() }])?;
    to.check()?;
    let mut reports = Vec::new();
    for f in &a.files {
        let r = report::read(f)?;
        merge::check_input(f, &r)?;
        reports.push(r);
    }
    let merged = merge::merge(reports)?;
    let gaps = merge::missing(&merged.records)?;
    if !gaps.is_empty() {
        let list: Vec<String> = gaps.iter().map(ToString::to_string).collect();
        if !a.allow_partial {
            return Err(usage(format!("{}: give every slice, or --allow-partial", list.join("; "))));
        }
        for g in &list {
            errln!("warning: {g}");
        }
    }
    if !a.out.quiet {
        errln!("merged {} records from {} files", merged.records.len(), a.files.len());
    }
    to.emit(&merged)?;
    Ok(exit_for(&merged))
}
