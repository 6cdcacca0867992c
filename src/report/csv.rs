//! CSV: one row per configuration; grid and block split per axis; for every metric a value column
//! (in the JSON's unit), a `_unit` and a `_source` column, so a spreadsheet never loses where a value
//! came from. A metric both measured and estimated gets two groups, `name_measured` and `name_estimated`.

use std::io::Write;

use crate::error::{Error, Result};
use crate::record::Report;

pub(super) fn write(report: &Report, w: &mut dyn Write) -> Result<()> {
    let columns = super::table::metric_columns(report);
    let mut out = csv::Writer::from_writer(w);
    let err = |e: csv::Error| Error::Output(e.to_string());
    let mut header: Vec<String> = [
        "kernel",
        "problem",
        "grid_x",
        "grid_y",
        "grid_z",
        "block_x",
        "block_y",
        "block_z",
        "status",
        "reason",
        "time_median_ms",
        "time_min_ms",
        "time_max_ms",
        "time_mean_ms",
        "time_stdev_ms",
        "time_q1_ms",
        "time_q3_ms",
        "iters",
        "verified_elements",
        "mismatches",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for c in &columns {
        let n = if c.shared { format!("{}_{}", c.name, c.source.as_str()) } else { c.name.clone() };
        header.extend([n.clone(), format!("{n}_unit"), format!("{n}_source")]);
    }
    out.write_record(&header).map_err(err)?;
    for r in &report.records {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let t = r.time_ms.as_ref();
        let v = r.verification.as_ref();
        let mut row = vec![
            r.kernel.clone(),
            r.problem.clone(),
            r.grid.x.to_string(),
            r.grid.y.to_string(),
            r.grid.z.to_string(),
            r.block.x.to_string(),
            r.block.y.to_string(),
            r.block.z.to_string(),
            r.status.as_str().to_string(),
            opt(r.reason.clone()),
            opt(t.map(|t| t.median.to_string())),
            opt(t.map(|t| t.min.to_string())),
            opt(t.map(|t| t.max.to_string())),
            opt(t.map(|t| t.mean.to_string())),
            opt(t.map(|t| t.stdev.to_string())),
            opt(t.map(|t| t.q1.to_string())),
            opt(t.map(|t| t.q3.to_string())),
            opt(t.map(|t| t.iters.to_string())),
            opt(v.map(|v| v.checked.to_string())),
            opt(v.map(|v| v.mismatches.to_string())),
        ];
        for c in &columns {
            match c.of(r) {
                Some(m) => row.extend([m.value.to_string(), m.unit.clone(), m.source.as_str().to_string()]),
                None => row.extend([String::new(), String::new(), String::new()]),
            }
        }
        out.write_record(&row).map_err(err)?;
    }
    out.flush().map_err(|e| Error::Output(e.to_string()))
}
