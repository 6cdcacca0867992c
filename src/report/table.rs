//! The nvprof-like table (and its Markdown twin): one row per configuration, time as median/min/max,
//! one column per metric with its unit and source in the header; values formatted by unit
//! (occupancy ratios as %, as nvprof's tables did).

use std::io::Write;

use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Style};

use crate::error::{Error, Result};
use crate::gpu::Origin;
use crate::metrics::{self, COUNT, GBPS, MS, PCT, RATIO};
use crate::record::{Metric, Report, Source, Status, paren};

/// Text or Markdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flavor {
    Text,
    Markdown,
}

/// One metric column: a name and where its values come from (a measured and an estimated
/// `achieved_occupancy` are two columns, side by side).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Column {
    /// Metric name.
    pub name: String,
    /// Source of every value in the column.
    pub source: Source,
    /// Whether the same name also appears with another source (then CSV headers carry the source).
    pub shared: bool,
}

impl Column {
    /// The metric of this column in `r`.
    pub fn of<'a>(&self, r: &'a crate::record::Record) -> Option<&'a Metric> {
        r.metrics.iter().find(|m| m.name == self.name && m.source == self.source)
    }
}

fn source_rank(s: Source) -> u8 {
    match s {
        Source::Measured => 0,
        Source::Imported => 1,
        Source::Mock => 2,
        Source::Estimated => 3,
    }
}

/// The report's metric columns: catalogue order (unknown names after, in order of appearance), measured
/// before estimated.
pub(super) fn metric_columns(report: &Report) -> Vec<Column> {
    let mut cols = columns_as_found(report);
    let rank = |n: &str| metrics::CATALOGUE.iter().position(|d| d.name == n).unwrap_or(usize::MAX);
    cols.sort_by_key(|c| (rank(&c.name), source_rank(c.source))); // stable: unknown names keep their order
    cols
}

/// The report's metric columns in the order the records first name them (the order CSV keeps, so a
/// record reads back with its metrics in its own order).
pub(super) fn columns_as_found(report: &Report) -> Vec<Column> {
    let mut cols: Vec<(String, Source)> = Vec::new();
    let mut seen: std::collections::HashSet<(&str, Source)> = std::collections::HashSet::new();
    let mut sources: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in &report.records {
        for m in &r.metrics {
            if seen.insert((&m.name, m.source)) {
                cols.push((m.name.clone(), m.source));
                *sources.entry(&m.name).or_default() += 1;
            }
        }
    }
    let shared = |n: &str| sources.get(n).is_some_and(|&k| k > 1);
    cols.iter().map(|(n, s)| Column { name: n.clone(), source: *s, shared: shared(n) }).collect()
}

/// A value in its display unit: ratios as %, GB/s with one decimal, counts whole.
pub fn format_value(m: &Metric) -> String {
    match m.unit.as_str() {
        RATIO if is_occupancy(&m.name) => format!("{:.1}%", 100.0 * m.value),
        PCT => format!("{:.2}%", m.value),
        GBPS => format!("{:.1}", m.value),
        MS => format!("{:.3}", m.value),
        COUNT | metrics::LEVEL | metrics::BYTES => format!("{:.0}", m.value),
        _ => format!("{:.3}", m.value),
    }
}

fn is_occupancy(name: &str) -> bool {
    name.ends_with("occupancy")
}

fn unit_label(name: &str, unit: &str) -> String {
    match unit {
        RATIO if is_occupancy(name) => "%".to_string(),
        COUNT => String::new(),
        u => u.to_string(),
    }
}

fn source_tag(s: Source) -> &'static str {
    match s {
        Source::Measured => "measured",
        Source::Estimated => "est",
        Source::Mock => "mock",
        Source::Imported => "imported",
    }
}

/// The line above the table: device, problem and the copy baseline.
pub fn seed_header(report: &Report) -> String {
    let d = &report.device;
    let name = if d.name.is_empty() { format!("{} device", d.backend) } else { d.name.clone() };
    let mut s = format!("==warpscope== Device \"{name} ({})\"", d.ordinal);
    if let Some(cc) = &d.compute_capability {
        s.push_str(&format!(" sm_{}", cc.replace('.', "")));
    }
    if let Some(sms) = d.sms.filter(|&n| n > 0) {
        s.push_str(&format!(" {sms} SMs"));
    }
    if let Some(r) = report.records.first().filter(|r| report.records.iter().all(|x| x.kernel == r.kernel)) {
        s.push_str(format!(", kernel {} {}", r.kernel, r.problem).trim_end());
    }
    if let Some(m) = &report.baselines.memcpy_dtod_gbs {
        s.push_str(&format!(", memcpy DtoD {:.1} GB/s ({})", m.value, m.source.as_str()));
    }
    s
}

pub(super) fn write(report: &Report, flavor: Flavor, w: &mut dyn Write) -> Result<()> {
    let columns = metric_columns(report);
    let nl = if flavor == Flavor::Markdown { " " } else { "\n" };

    let mut b = Builder::default();
    // Estimates have no measured time: their table drops the three time columns.
    let timed = report.records.iter().any(|r| r.time_ms.is_some());
    // A kernel file's compile-time parameters, in a column after the block.
    let params = report.records.iter().any(|r| r.params.is_some());
    let mut lead: Vec<&str> = vec!["Kernel", "Grid", "Block"];
    if params {
        lead.push("Params");
    }
    if timed {
        lead.extend(["Median ms", "Min ms", "Max ms"]);
    }
    let mut header: Vec<String> = lead.iter().map(|s| s.to_string()).collect();
    for c in &columns {
        let unit =
            report.records.iter().find_map(|r| c.of(r)).map(|m| unit_label(&c.name, &m.unit)).unwrap_or_default();
        let tag = source_tag(c.source);
        let label = if unit.is_empty() { tag.to_string() } else { format!("{unit}, {tag}") };
        header.push(format!("{}{nl}({label})", c.name));
    }
    header.push("Status".into());
    b.push_record(header);

    for r in &report.records {
        let t = r.time_ms.as_ref();
        let time =
            |f: fn(&crate::record::TimeStats) -> f64| t.map(|t| format!("{:.3}", f(t))).unwrap_or_else(|| "-".into());
        let mut row = vec![r.kernel.clone(), paren(r.grid), paren(r.block)];
        if params {
            row.push(r.params_label());
        }
        if timed {
            row.extend([time(|t| t.median), time(|t| t.min), time(|t| t.max)]);
        }
        for c in &columns {
            row.push(c.of(r).map(format_value).unwrap_or_else(|| "-".into()));
        }
        let bound = r.bound.as_deref().map(|b| format!(", {}-bound", b.replace('_', "-"))).unwrap_or_default();
        let throttled = r
            .conditions
            .as_ref()
            .filter(|c| c.throttled())
            .map(|c| format!(", THROTTLED ({})", c.throttle.join(", ")))
            .unwrap_or_default();
        row.push(match (r.status, &r.reason) {
            (Status::Ok, _) if r.verification.is_some() => format!("ok (verified){bound}{throttled}"),
            // Measured but not compared: the run that gave the expected outputs (a kernel file's
            // same-as-first verification) says so.
            (Status::Ok, Some(why)) if r.time_ms.is_some() => format!("ok ({why}){throttled}"),
            (Status::Ok, _) if report.device.backend == Origin::Model => format!("estimated{bound}"),
            (Status::Ok, _) if r.summary_of.is_some() => {
                format!("summary of {} launches ({})", r.summary_of.unwrap_or(0), report.device.backend)
            }
            (Status::Ok, _) => format!("imported from {}", report.device.backend),
            (Status::Failed, Some(why)) => format!("FAILED: {why}"),
            (_, Some(why)) => why.clone(),
            (s, None) => s.as_str().to_string(),
        });
        b.push_record(row);
    }

    let mut table = b.build();
    let ncols = columns.len() + lead.len() + 1;
    match flavor {
        Flavor::Text => table.with(Style::psql()),
        Flavor::Markdown => table.with(Style::markdown()),
    };
    table.modify(Columns::new(3 + usize::from(params)..ncols - 1), Alignment::right());
    let io = |e: std::io::Error| Error::Output(e.to_string());
    if flavor == Flavor::Text {
        writeln!(w, "{}", seed_header(report)).map_err(io)?;
    }
    let text = table.to_string();
    let text = if flavor == Flavor::Markdown { text.replace("\\|", "|") } else { text };
    writeln!(w, "{text}").map_err(io)?;
    if let Some(fit) = &report.model_fit {
        let rho = fit.spearman.map(|r| format!("{r:.3}")).unwrap_or_else(|| "n/a".into());
        let regret = fit.regret_pct.map(|r| format!(", regret of its pick {r:.1}%")).unwrap_or_default();
        writeln!(
            w,
            "time model over {} configs: median absolute error {:.1}%, Spearman {rho}{regret}",
            fit.configs, fit.median_abs_error_pct
        )
        .map_err(io)?;
    }
    let legend = legend(&columns.iter().map(|c| c.source).collect::<Vec<_>>());
    if !legend.is_empty() {
        let prefix = if flavor == Flavor::Markdown { "\n" } else { "" };
        writeln!(w, "{prefix}{legend}").map_err(io)?;
    }
    Ok(())
}

fn legend(sources: &[Source]) -> String {
    let mut parts = Vec::new();
    if sources.contains(&Source::Estimated) {
        parts.push("est = estimated by warpscope's model (not a hardware counter)");
    }
    if sources.contains(&Source::Measured) {
        parts.push("measured = from CUDA events or hardware counters");
    }
    if sources.contains(&Source::Imported) {
        parts.push("imported = read from another profiler's output");
    }
    if sources.contains(&Source::Mock) {
        parts.push("mock = produced by the mock backend, not a GPU");
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str, value: f64, unit: &str) -> Metric {
        Metric { name: name.into(), value, unit: unit.into(), source: Source::Estimated }
    }

    #[test]
    fn values_format_by_unit() {
        assert_eq!(format_value(&m("achieved_occupancy", 0.5011, RATIO)), "50.1%");
        assert_eq!(format_value(&m("gld_efficiency", 49.96, PCT)), "49.96%");
        assert_eq!(format_value(&m("gld_throughput", 35.908, GBPS)), "35.9");
        assert_eq!(format_value(&m("gld_transactions", 1234.0, COUNT)), "1234");
        assert_eq!(format_value(&m("gld_transactions_per_request", 4.0, RATIO)), "4.000");
    }
}
