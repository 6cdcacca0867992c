//! `warpscope compare` and `warpscope import`: other profilers' CSV beside warpscope's records.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::baseline::{self, Verdict};
use warpscope::compare::{self, Comparison, Pick};
use warpscope::report::{figures, html};
use warpscope::{Error, Result, import, output, report};

use super::report::command_line;
use super::{OutputArgs, usage};

/// Arguments of `compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// warpscope's results (`sweep ... --format json -o FILE`; JSON Lines too).
    results: PathBuf,
    /// The other tool's output: `ncu --csv` (default or `--page raw`), `nvprof --csv --metrics`, or
    /// another warpscope JSON.
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
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: CompareFormat,
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

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CompareFormat {
    Table,
    Json,
    Csv,
}

/// Arguments of `import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// `ncu --csv` (default or `--page raw`) or `nvprof --csv --metrics` output.
    file: PathBuf,
    #[command(flatten)]
    out: OutputArgs,
}

/// `compare --baseline OLD NEW`.
fn against_baseline(a: &CompareArgs, old: &std::path::Path, limit: Option<f64>) -> Result<ExitCode> {
    let (old_report, new_report) = (report::read(old)?, report::read(&a.results)?);
    let (changes, unmatched) = baseline::diff(&old_report, &new_report);
    for u in &unmatched {
        errln!("unmatched: {u} (not timed in {})", old.display());
    }
    if changes.is_empty() {
        return Err(usage(format!(
            "nothing to compare: no timed configuration of {} is timed in {}",
            a.results.display(),
            old.display()
        )));
    }
    let err = |e: String| Error::Output(e);
    match a.format {
        CompareFormat::Json => outln!("{}", serde_json::to_string_pretty(&changes).map_err(|e| err(e.to_string()))?)?,
        CompareFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record([
                "kernel",
                "problem",
                "block",
                "baseline_ms",
                "new_ms",
                "change_pct",
                "noise_pct",
                "verdict",
            ])
            .map_err(|e| err(e.to_string()))?;
            for c in &changes {
                w.write_record([
                    c.kernel.clone(),
                    c.problem.clone(),
                    c.block.to_string(),
                    c.baseline_ms.to_string(),
                    c.new_ms.to_string(),
                    c.change_pct.to_string(),
                    c.noise_pct.to_string(),
                    c.verdict.as_str().to_string(),
                ])
                .map_err(|e| err(e.to_string()))?;
            }
            let text = w.into_inner().map_err(|e| err(e.to_string()))?;
            warpscope::output::print(&String::from_utf8_lossy(&text))?;
        }
        CompareFormat::Table => {
            let mut t = Builder::default();
            t.push_record(["Kernel", "Problem", "Block", "baseline ms", "new ms", "change", "noise", "verdict"]);
            for c in &changes {
                t.push_record([
                    c.kernel.clone(),
                    c.problem.clone(),
                    c.block.paren(),
                    format!("{:.4}", c.baseline_ms),
                    format!("{:.4}", c.new_ms),
                    format!("{:+.2}%", c.change_pct),
                    format!("{:.2}%", c.noise_pct),
                    c.verdict.as_str().to_string(),
                ]);
            }
            outln!("{}", t.build().with(Style::psql()))?;
            outln!("noise = the larger interquartile range of the two runs, % of the median")?;
        }
    }
    let count = |v: Verdict| changes.iter().filter(|c| c.verdict == v).count();
    errln!(
        "{} faster, {} slower, {} within the noise",
        count(Verdict::Faster),
        count(Verdict::Slower),
        count(Verdict::Same)
    );
    if let Some(path) = &a.plot {
        figures::baseline(&changes, limit).draw(path)?;
        errln!("wrote {}", path.display());
    }
    if let Some(path) = &a.html {
        html::write(&html::baseline_page(&old_report, &new_report, &changes, limit, &command_line())?, path)?;
        errln!("wrote {}", path.display());
    }
    let regressed =
        limit.map_or(0, |l| changes.iter().filter(|c| c.verdict == Verdict::Slower && c.change_pct > l).count());
    Ok(if regressed > 0 {
        errln!("{regressed} configuration(s) slower by more than {}%", limit.unwrap_or_default());
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
    super::check_plot(a.plot.as_deref())?;
    match &a.html {
        Some(p) => output::check_writable(p),
        None => Ok(()),
    }
}

pub fn compare(a: &CompareArgs) -> Result<ExitCode> {
    check_files(a)?;
    let other = match (&a.baseline, &a.other) {
        (Some(old), _) => return against_baseline(a, old, a.fail_above),
        (None, Some(other)) => other,
        (None, None) => return Err(usage("compare needs the other tool's file, or --baseline OLD")),
    };
    let ours = report::read_any(&a.results)?;
    let theirs = report::read_any(other)?;
    let pick = match a.source {
        PickArg::Measured => Pick::Measured,
        PickArg::Estimated => Pick::Estimated,
    };
    let cmp = compare::compare(&ours, &theirs, pick);
    for u in &cmp.unmatched {
        errln!("unmatched: {u}");
    }
    if cmp.rows.is_empty() {
        return Err(usage(format!(
            "nothing to compare: no configuration of {} matches a record of {} with a common metric",
            other.display(),
            a.results.display()
        )));
    }
    print(&cmp, a.format, &theirs.device.backend)?;
    let name = theirs.device.backend.as_str();
    if let Some(path) = &a.plot {
        figures::comparison(&cmp, a.fail_above, name).draw(path)?;
        errln!("wrote {}", path.display());
    }
    if let Some(path) = &a.html {
        html::write(&html::comparison_page(&ours, &theirs, &cmp, a.fail_above, name, &command_line())?, path)?;
        errln!("wrote {}", path.display());
    }
    Ok(match a.fail_above {
        Some(limit) => {
            let bad = cmp.above(limit);
            if bad.is_empty() {
                errln!("all {} deltas within {limit}", cmp.rows.len());
                ExitCode::SUCCESS
            } else {
                errln!("{} of {} deltas above {limit}", bad.len(), cmp.rows.len());
                ExitCode::from(1)
            }
        }
        None => ExitCode::SUCCESS,
    })
}

fn print(cmp: &Comparison, format: CompareFormat, other: &str) -> Result<()> {
    let err = |e: String| Error::Output(e);
    match format {
        CompareFormat::Json => outln!("{}", serde_json::to_string_pretty(cmp).map_err(|e| err(e.to_string()))?)?,
        CompareFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record([
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
            ])
            .map_err(|e| err(e.to_string()))?;
            for r in &cmp.rows {
                w.write_record([
                    r.kernel.clone(),
                    r.grid.to_string(),
                    r.block.to_string(),
                    r.metric.clone(),
                    r.unit.clone(),
                    r.ours.to_string(),
                    r.ours_source.clone(),
                    r.theirs.to_string(),
                    r.launches.to_string(),
                    r.abs_delta.to_string(),
                    r.rel_delta_pct.map(|v| v.to_string()).unwrap_or_default(),
                ])
                .map_err(|e| err(e.to_string()))?;
            }
            let text = w.into_inner().map_err(|e| err(e.to_string()))?;
            warpscope::output::print(&String::from_utf8_lossy(&text))?;
        }
        CompareFormat::Table => {
            let mut t = Builder::default();
            t.push_record(["Kernel", "Grid", "Block", "Metric", "warpscope", "source", other, "delta", "delta %"]);
            let fmt = |v: f64| if v.abs() >= 1e5 { format!("{v:.0}") } else { format!("{v:.4}") };
            for r in &cmp.rows {
                t.push_record([
                    r.kernel.clone(),
                    r.grid.paren(),
                    r.block.paren(),
                    format!("{} ({})", r.metric, r.unit),
                    fmt(r.ours),
                    r.ours_source.clone(),
                    fmt(r.theirs),
                    format!("{:+.4}", r.abs_delta),
                    r.rel_delta_pct.map(|v| format!("{v:+.2}%")).unwrap_or_else(|| "-".into()),
                ]);
            }
            outln!("{}", t.build().with(Style::psql()))?;
            outln!("delta = warpscope - {other}; percentages and occupancy in percentage points")?;
        }
    }
    Ok(())
}

pub fn import(a: &ImportArgs) -> Result<ExitCode> {
    super::check_outputs(&[("FILE", &a.file)], &a.out, &[])?;
    a.out.check()?;
    let (kind, report) = import::read_file(&a.file)?;
    if !a.out.quiet {
        errln!("{}: {kind:?}, {} records", a.file.display(), report.records.len());
    }
    a.out.emit(&report)?;
    Ok(ExitCode::SUCCESS)
}
