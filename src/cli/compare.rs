//! `warpscope compare` and `warpscope import`: other profilers' CSV beside warpscope's records.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::compare::{self, Comparison, Pick};
use warpscope::record::Report;
use warpscope::{Error, Result, import};

use super::{OutputArgs, usage};

/// Arguments of `compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// warpscope's results (`sweep ... --format json -o FILE`).
    results: PathBuf,
    /// The other tool's output: `ncu --csv` (default or `--page raw`), `nvprof --csv --metrics`, or
    /// another warpscope JSON.
    other: PathBuf,
    /// Exit 1 when any delta exceeds PCT: percentage points for percentages and occupancy, relative %
    /// for everything else.
    #[arg(long, value_name = "PCT")]
    fail_above: Option<f64>,
    /// Which of warpscope's values to compare: measured (the model's where nothing was measured) or the
    /// model's estimates.
    #[arg(long, value_enum, default_value = "measured")]
    source: PickArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: CompareFormat,
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

/// A warpscope JSON report or another tool's CSV.
fn read_any(path: &PathBuf) -> Result<Report> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    let text = String::from_utf8_lossy(&bytes);
    if text.trim_start().starts_with('{') {
        serde_json::from_str(&text).map_err(|e| usage(format!("{}: not a warpscope JSON report: {e}", path.display())))
    } else {
        import::parse(&text).map(|(_, r)| r).map_err(|e| usage(format!("{}: {e}", path.display())))
    }
}

pub fn compare(a: &CompareArgs) -> Result<ExitCode> {
    if let Some(limit) = a.fail_above
        && !(limit.is_finite() && limit >= 0.0)
    {
        return Err(usage(format!("--fail-above {limit}: a percentage of 0 or more")));
    }
    let ours = read_any(&a.results)?;
    let theirs = read_any(&a.other)?;
    let pick = match a.source {
        PickArg::Measured => Pick::Measured,
        PickArg::Estimated => Pick::Estimated,
    };
    let cmp = compare::compare(&ours, &theirs, pick);
    for u in &cmp.unmatched {
        eprintln!("unmatched: {u}");
    }
    if cmp.rows.is_empty() {
        return Err(usage(format!(
            "nothing to compare: no configuration of {} matches a record of {} with a common metric",
            a.other.display(),
            a.results.display()
        )));
    }
    print(&cmp, a.format, &theirs.device.backend)?;
    Ok(match a.fail_above {
        Some(limit) => {
            let bad = cmp.above(limit);
            if bad.is_empty() {
                eprintln!("all {} deltas within {limit}", cmp.rows.len());
                ExitCode::SUCCESS
            } else {
                eprintln!("{} of {} deltas above {limit}", bad.len(), cmp.rows.len());
                ExitCode::from(1)
            }
        }
        None => ExitCode::SUCCESS,
    })
}

fn print(cmp: &Comparison, format: CompareFormat, other: &str) -> Result<()> {
    let err = |e: String| Error::Output(e);
    match format {
        CompareFormat::Json => println!("{}", serde_json::to_string_pretty(cmp).map_err(|e| err(e.to_string()))?),
        CompareFormat::Csv => {
            let mut w = csv::Writer::from_writer(std::io::stdout().lock());
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
            w.flush().map_err(|e| err(e.to_string()))?;
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
            println!("{}", t.build().with(Style::psql()));
            println!("delta = warpscope - {other}; percentages and occupancy in percentage points");
        }
    }
    Ok(())
}

pub fn import(a: &ImportArgs) -> Result<ExitCode> {
    a.out.check()?;
    let (kind, report) = import::read_file(&a.file)?;
    if !a.out.quiet {
        eprintln!("{}: {kind:?}, {} records", a.file.display(), report.records.len());
    }
    a.out.emit(&report)?;
    Ok(ExitCode::SUCCESS)
}
