//! `metrics`: the catalogue — nvprof name, the Nsight Compute metric behind it, unit, meaning.

use serde::Serialize;

use crate::error::Result;
use crate::metrics::{CATALOGUE, Formula};
use crate::report::listing::{Cells, Listing, Part, to_json};

/// One metric of the catalogue as `metrics` shows it.
#[derive(Serialize)]
pub struct Entry {
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

/// The whole catalogue.
pub struct Catalogue(Vec<Entry>);

impl Default for Catalogue {
    fn default() -> Self {
        Catalogue(
            CATALOGUE
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
                .collect(),
        )
    }
}

impl Listing for Catalogue {
    fn json(&self) -> Result<String> {
        to_json(&self.0)
    }

    fn text(&self) -> Vec<Part> {
        let mut t = Cells::new(&["nvprof name", "Nsight Compute metric", "unit", "from", "description"]);
        for e in &self.0 {
            t.push(vec![e.name.into(), e.ncu.clone(), e.unit.into(), e.measured_by.into(), e.description.into()]);
        }
        vec![
            Part::Table(t),
            Part::Line(
                "--metrics takes these names, Kepler's and Maxwell's older names of them (l1_cache_global_hit_rate for global_hit_rate, ...), raw Nsight Compute metric names, or all; occupancy is a ratio 0-1 in JSON/CSV, % in tables"
                    .into(),
            ),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let mut t = Cells::new(&["name", "ncu", "counters", "collected", "unit", "measured_by", "description"]);
        for e in &self.0 {
            t.push(vec![
                e.name.into(),
                e.ncu.clone(),
                e.counters.join(" "),
                e.collected.map(|c| c.join(" ")).unwrap_or_default(),
                e.unit.into(),
                e.measured_by.into(),
                e.description.into(),
            ]);
        }
        Some(t)
    }
}
