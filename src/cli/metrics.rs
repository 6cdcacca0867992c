//! `warpscope metrics`: the catalogue — nvprof name, the Nsight Compute metric behind it, unit, meaning.

use clap::{Args, ValueEnum};
use serde::Serialize;
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::Outcome;
use warpscope::metrics::{CATALOGUE, Formula};
use warpscope::{Error, Result};

/// Arguments of `metrics`.
#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: CatalogueFormat,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CatalogueFormat {
    Table,
    Json,
}

#[derive(Serialize)]
struct Entry {
    name: &'static str,
    ncu: String,
    counters: &'static [&'static str],
    /// The counters warpscope collects instead, for the same value at less cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    collected: Option<&'static [&'static str]>,
    unit: &'static str,
    measured_by: &'static str,
    description: &'static str,
}

pub fn run(a: &MetricsArgs) -> Result<Outcome> {
    let entries: Vec<Entry> = CATALOGUE
        .iter()
        .map(|d| Entry {
            name: d.name,
            ncu: d.ncu(),
            counters: d.counters,
            collected: d.collected.map(|(c, _)| c),
            unit: d.unit,
            measured_by: match (d.formula, d.collected) {
                (Formula::None, _) => "warpscope",
                (_, Some(_)) => "CUPTI counters (SASS, same value)",
                _ => "CUPTI counters",
            },
            description: d.description,
        })
        .collect();
    match a.format {
        CatalogueFormat::Json => {
            outln!("{}", serde_json::to_string_pretty(&entries).map_err(|e| Error::Output(e.to_string()))?)?
        }
        CatalogueFormat::Table => {
            let mut t = Builder::default();
            t.push_record(["nvprof name", "Nsight Compute metric", "unit", "from", "description"]);
            for e in &entries {
                t.push_record([e.name, &e.ncu, e.unit, e.measured_by, e.description]);
            }
            outln!("{}", t.build().with(Style::psql()))?;
            outln!(
                "--metrics takes these names, raw Nsight Compute metric names, or all; occupancy is a ratio 0-1 in JSON/CSV, % in tables"
            )?;
        }
    }
    Ok(Outcome::Ok)
}
