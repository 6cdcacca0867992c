//! `warpscope compare` and `warpscope import`: any two result files side by side, and any profiler's
//! output read into warpscope's records.

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};

use warpscope::compare::Pick;
use warpscope::compare::run::Request;
use warpscope::import::{self, Format};
use warpscope::{Outcome, Result, output};

use super::report::command_line;
use super::{ListFormat, OutputArgs, usage};

/// `--from`: one of the formats' names, listed in the help as clap's possible values.
fn format_arg() -> impl TypedValueParser<Value = Format> {
    clap::builder::PossibleValuesParser::new(Format::ALL.map(Format::name))
        .try_map(|s| s.parse::<Format>().map_err(|e| e.to_string()))
}

/// Arguments of `compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The first file: warpscope's results (JSON, JSON Lines, CSV) or any profiler output `import` reads.
    results: PathBuf,
    /// The second file, of any of those formats: `ncu --csv` (details or `--page raw`), ncu's text
    /// output, nvprof's (text or `--csv`), another warpscope run.
    #[arg(required_unless_present = "baseline", conflicts_with = "baseline")]
    other: Option<PathBuf>,
    /// Compare times with an earlier warpscope run of the same configurations instead: each change is
    /// `faster` or `slower` only beyond both runs' noise (interquartile ranges), else `same`.
    #[arg(long, value_name = "OLD")]
    baseline: Option<PathBuf>,
    #[arg(long, value_name = "PCT", value_parser = super::ranges::PCT.parser(), help = super::ranges::PCT.help(
        "Exit 1 when any delta exceeds PCT: percentage points for percentages and occupancy, relative % for \
         everything else; with --baseline, when a configuration is slower by more than PCT %"
    ))]
    fail_above: Option<f64>,
    /// Which of warpscope's values to compare: measured (the model's where nothing was measured) or the
    /// model's estimates.
    #[arg(long, value_enum, default_value = "measured")]
    source: PickArg,
    /// Read the second file as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = format_arg())]
    from: Option<Format>,
    /// Show kernels' full signatures instead of their short names.
    #[arg(long)]
    full_names: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
    /// Draw the deltas to FILE (.svg or .png): a panel per metric, a bar per configuration, the
    /// --fail-above threshold drawn (with --baseline: each configuration's change of median time).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Write a self-contained HTML report of the comparison to FILE: the deltas' figure, the matched
    /// metrics and both sides' records in sortable, filterable tables.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum PickArg {
    Measured,
    Estimated,
}

/// Arguments of `import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Any profiler output: nvprof's text or `--csv` output (summary, `--metrics`, `--events`,
    /// `--print-gpu-trace`), `ncu --csv` (details page, `--page raw`, `--print-summary per-kernel`),
    /// ncu's text output, or a warpscope JSON, JSON Lines or CSV report.
    file: PathBuf,
    /// Read the file as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = format_arg())]
    from: Option<Format>,
    /// Show kernels' full signatures instead of their short names (table and markdown).
    #[arg(long)]
    full_names: bool,
    #[command(flatten)]
    out: OutputArgs,
}

/// Refuses, before any work, figure and page files that could not be written, or that are one of the
/// inputs or one another.
fn check_files(a: &CompareArgs) -> Result<()> {
    let inputs: Vec<output::Named<'_>> =
        [("RESULTS", Some(&a.results)), ("OTHER", a.other.as_ref()), ("--baseline", a.baseline.as_ref())]
            .into_iter()
            .filter_map(|(what, p)| Some(output::Named { what, path: p? }))
            .collect();
    let outputs: Vec<output::Named<'_>> = [("--plot", a.plot.as_ref()), ("--html", a.html.as_ref())]
        .into_iter()
        .filter_map(|(what, p)| Some(output::Named { what, path: p? }))
        .collect();
    output::check_distinct(&inputs, &outputs)?;
    warpscope::report::check_plot(a.plot.as_deref())?;
    match &a.html {
        Some(p) => output::check_writable(p),
        None => Ok(()),
    }
}

pub fn compare(a: &CompareArgs) -> Result<Outcome> {
    check_files(a)?;
    if a.baseline.is_none() && a.other.is_none() {
        return Err(usage("compare needs the other tool's file, or --baseline OLD"));
    }
    Request {
        results: &a.results,
        other: a.other.as_deref(),
        baseline: a.baseline.as_deref(),
        from: a.from,
        pick: match a.source {
            PickArg::Measured => Pick::Measured,
            PickArg::Estimated => Pick::Estimated,
        },
        fail_above: a.fail_above,
        full_names: a.full_names,
        format: a.format.into(),
        plot: a.plot.as_deref(),
        html: a.html.as_deref(),
        command_line: &command_line(),
        names: super::flag,
    }
    .run()
}

pub fn import(a: &ImportArgs) -> Result<Outcome> {
    super::check_outputs(&[("FILE", &a.file)], &a.out, &[])?;
    import::import(&a.file, a.from, a.full_names, &a.out.to())
}
