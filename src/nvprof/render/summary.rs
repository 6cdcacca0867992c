//! nvprof's summary (its default output): "GPU activities" and "API calls", one row per kernel, copy,
//! set or API function, longest total first, each row's share of its category's time. Text layout from
//! real summaries (a V100's and a GTX 1070's in tests/fixtures/profilers, a GTX 1080's): `Type` right-
//! aligned in 16 (` GPU activities:`, blank on the category's later rows), `Time(%)` in 9, `Time`,
//! `Calls`, `Avg`, `Min`, `Max` in 10, two spaces, `Name`. Under `-u UNIT` the times are bare numbers
//! under a units row (`%  ms  ms  ms  ms`, the V100's summary and a 2023 `nvprof -u ms` run). CSV from
//! a TITAN Xp's `--csv --print-gpu-summary`: quoted header, a units row giving each column the unit
//! of its largest value (`,%,ms,,us,us,ms,`), numbers `%f`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::super::format::{self, Times};
use super::super::process::Process;
use super::{Cell, View, csv_line, duration_ns, header};

/// One line of the summary.
struct SummaryRow {
    kind: &'static str,
    pct: f64,
    total: f64,
    calls: u64,
    avg: f64,
    min: f64,
    max: f64,
    name: String,
}

const GPU: &str = "GPU activities";
const API: &str = "API calls";

/// The summary's rows: the GPU activities of `device` (`None`: every device) when `gpu`, and the API
/// calls when `api`, each as far as they were asked for.
fn rows(p: &Process, v: View, device: Option<Option<u32>>, (gpu, api): (bool, bool)) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    if gpu && v.opts.show.gpu_summary {
        let mut by: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for r in p.timed().filter(|r| device.is_none_or(|d| r.device == d)) {
            if let Some(d) = duration_ns(r) {
                by.entry(r.full_name()).or_default().push(d);
            }
        }
        rows.extend(group(
            GPU,
            by.into_iter().map(|(n, d)| {
                let min = d.iter().copied().fold(f64::INFINITY, f64::min);
                let max = d.iter().copied().fold(0.0, f64::max);
                (n.to_string(), d.len() as u64, d.iter().sum(), min, max)
            }),
        ));
    }
    if api && v.opts.show.api_summary {
        rows.extend(group(
            API,
            p.api.iter().map(|a| (a.name.clone(), a.calls, a.total_ns as f64, a.min_ns as f64, a.max_ns as f64)),
        ));
    }
    rows
}

/// One category's rows, longest total first, with each row's share of the category's time.
fn group(kind: &'static str, items: impl Iterator<Item = (String, u64, f64, f64, f64)>) -> Vec<SummaryRow> {
    let mut rows: Vec<SummaryRow> = items
        .filter(|(_, calls, ..)| *calls > 0)
        .map(|(name, calls, total, min, max)| SummaryRow {
            kind,
            pct: 0.0,
            total,
            calls,
            avg: total / calls as f64,
            min,
            max,
            name,
        })
        .collect();
    let sum: f64 = rows.iter().map(|r| r.total).sum();
    for r in &mut rows {
        r.pct = if sum > 0.0 { 100.0 * r.total / sum } else { 0.0 };
    }
    rows.sort_by(|a, b| b.total.total_cmp(&a.total).then_with(|| a.name.cmp(&b.name)));
    rows
}

/// The summary of `p`, or nvprof's line for an empty one; with `--print-summary-per-gpu`, one
/// summary of GPU activities per device (each after a `Device "NAME (N)"` line, as nvprof's metric
/// tables name theirs; no real per-GPU summary was found to copy), then the API calls on their own.
pub(super) fn summary(p: &Process, v: View) -> String {
    if !v.opts.show.per_gpu || !v.opts.show.gpu_summary {
        return table(v, rows(p, v, None, (true, true)), true);
    }
    let mut devices: Vec<Option<u32>> = Vec::new();
    for r in p.timed() {
        if !devices.contains(&r.device) {
            devices.push(r.device);
        }
    }
    if devices.is_empty() {
        return table(v, rows(p, v, None, (true, true)), true);
    }
    let mut out = String::new();
    for d in &devices {
        let _ = writeln!(out, "Device \"{}\"", p.device_name(*d));
        out.push_str(&table(v, rows(p, v, Some(*d), (true, false)), true));
    }
    // The host's API calls belong to no device: their own table after the devices'.
    let api = rows(p, v, None, (false, true));
    if !api.is_empty() {
        out.push_str(&table(v, api, false));
    }
    out
}

/// One summary table of `rows`, or nvprof's line for an empty one.
fn table(v: View, rows: Vec<SummaryRow>, gpu: bool) -> String {
    let mut out = String::new();
    let has_gpu = rows.iter().any(|r| r.kind == GPU);
    if gpu && v.opts.show.gpu_summary && !has_gpu {
        out.push_str("No kernels were profiled.\n");
    } else if !v.opts.show.gpu_summary && rows.is_empty() {
        out.push_str("No API activities were profiled.\n");
    }
    if rows.is_empty() {
        return out;
    }
    if v.opts.csv {
        out.push_str(&csv(&rows, v.opts.times));
    } else {
        out.push_str(&text(&rows, v.opts.times));
    }
    out
}

fn csv(rows: &[SummaryRow], times: Times) -> String {
    let mut out = header(&["Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"]);
    let csv_times = if times == Times::Auto { Times::Column } else { times };
    let unit = |f: &dyn Fn(&SummaryRow) -> f64| format::column_unit(rows.iter().map(f), csv_times);
    let units = [unit(&|r| r.total), unit(&|r| r.avg), unit(&|r| r.min), unit(&|r| r.max)];
    let _ =
        writeln!(out, ",%,{},,{},{},{},", units[0].suffix(), units[1].suffix(), units[2].suffix(), units[3].suffix());
    for r in rows {
        out.push_str(&csv_line(&[
            Cell::Text(r.kind.into()),
            Cell::Num(format!("{:.6}", r.pct)),
            Cell::Num(format::csv_time(r.total, units[0])),
            Cell::Num(r.calls.to_string()),
            Cell::Num(format::csv_time(r.avg, units[1])),
            Cell::Num(format::csv_time(r.min, units[2])),
            Cell::Num(format::csv_time(r.max, units[3])),
            Cell::Text(r.name.clone()),
        ]));
    }
    out
}

/// One text line (the units row has no name: it ends after `Max`).
#[allow(clippy::too_many_arguments)]
fn line(kind: &str, pct: &str, t: &str, c: &str, a: &str, mi: &str, ma: &str, n: &str) -> String {
    let s = format!("{kind:>16}{pct:>9}{t:>10}{c:>10}{a:>10}{mi:>10}{ma:>10}  {n}");
    format!("{}\n", s.trim_end())
}

fn text(rows: &[SummaryRow], times: Times) -> String {
    let mut out = line("Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name");
    let fixed = match times {
        Times::Fixed(u) => Some(u),
        _ => None,
    };
    if let Some(u) = fixed {
        let s = u.suffix();
        out.push_str(&line("", "%", s, "", s, s, s, ""));
    }
    let t = |ns: f64| match fixed {
        Some(u) => format::bare(ns / u.ns()),
        None => format::time(ns, times),
    };
    let mut last = "";
    for r in rows {
        let kind = if r.kind == last { String::new() } else { format!("{}:", r.kind) };
        last = r.kind;
        let pct = if fixed.is_some() { format!("{:.2}", r.pct) } else { format!("{:.2}%", r.pct) };
        out.push_str(&line(&kind, &pct, &t(r.total), &r.calls.to_string(), &t(r.avg), &t(r.min), &t(r.max), &r.name));
    }
    out
}
