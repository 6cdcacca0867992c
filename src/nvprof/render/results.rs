//! nvprof's "Event result:" and "Metric result:" tables: one row per (device, kernel, counter) with the
//! number of profiled launches and the minimum, maximum and average over them. Text layout from real
//! outputs (tests/fixtures/profilers: a GTX 1070's `--metrics`; a GTX 1080's, a V100's, a GTX 1050's
//! and a GTX 1070's `pyrup` run found in public repositories; a GTX 1060's and a GT 1030's `--events`):
//! `Invocations` (11), the name and the description right-aligned in 42 characters or, when the longest
//! is longer, in 3 more than it (`Shared Memory Load Transactions Per Request`, 43: 46), the values in 12;
//! `Device "NAME (N)"` and `    Kernel: NAME` lines where they change; the event table ends with a
//! `Total` column (nvprof 8 and later; the GTX 980's of CUDA 7 has none). CSV from a K20c's and a K40c's
//! `--csv --metrics` / `--events`: quoted names, values as in [`format::csv_metric`].

use std::fmt::Write as _;

use super::super::format;
use super::super::names;
use super::super::process::Process;
use super::{Cell, View, csv_line, header, metric_of};
use crate::record::Record;

/// The event table, then the metric table (after a blank line), under their `==PID==` headings `t`.
pub(super) fn results(p: &Process, v: View, t: &str) -> String {
    let mut out = String::new();
    if p.profiled().next().is_none() {
        out.push_str("No events/metrics were profiled.\n");
        return out;
    }
    let groups = by_kernel(p);
    if !v.counters.events.is_empty() {
        let _ = writeln!(out, "{t} Event result:");
        out.push_str(&events(p, v, &groups));
    }
    if !v.counters.metrics.is_empty() {
        if !v.counters.events.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "{t} Metric result:");
        out.push_str(&metrics(p, v, &groups));
    }
    out
}

/// The profiled launches of one kernel on one device: (device, kernel name), launches.
type KernelLaunches<'a> = ((Option<u32>, String), Vec<&'a Record>);

/// The launches of each (device, kernel), in first-launch order.
fn by_kernel(p: &Process) -> Vec<KernelLaunches<'_>> {
    let mut out: Vec<KernelLaunches> = Vec::new();
    for r in p.profiled() {
        let key = (r.device, r.full_name().to_string());
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => out.push((key, vec![r])),
        }
    }
    // Devices in first-use order, kernels within each.
    let mut devices: Vec<Option<u32>> = Vec::new();
    for ((d, _), _) in &out {
        if !devices.contains(d) {
            devices.push(*d);
        }
    }
    out.sort_by_key(|((d, _), _)| devices.iter().position(|x| x == d));
    out
}

/// One counter over some launches: how many have it, min, max, average, sum.
struct Stats {
    n: usize,
    min: f64,
    max: f64,
    avg: f64,
    sum: f64,
}

fn stats(launches: &[&Record], name: &str) -> Option<Stats> {
    let vals: Vec<f64> = launches.iter().filter_map(|r| metric_of(r, name)).map(|m| m.value).collect();
    if vals.is_empty() {
        return None;
    }
    let sum: f64 = vals.iter().sum();
    Some(Stats {
        n: vals.len(),
        min: vals.iter().copied().fold(f64::INFINITY, f64::min),
        max: vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        avg: sum / vals.len() as f64,
        sum,
    })
}

/// Width of a name column: 42, or 3 more than the longest name (the pyrup, GTX 1050 and GTX 1080 files).
fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names.map(|n| n.len() + 3).max().unwrap_or(0).max(42)
}

/// Width of the value columns: 12, or 2 more than the longest value.
fn value_width<'a>(values: impl Iterator<Item = &'a String>) -> usize {
    values.map(|s| s.len() + 2).max().unwrap_or(0).max(12)
}

fn metrics(p: &Process, v: View, groups: &[KernelLaunches]) -> String {
    let ms = &v.counters.metrics;
    let cells = |dev: &Option<u32>, kernel: &String, launches: &[&Record]| {
        ms.iter()
            .filter_map(move |m| stats(launches, &m.name).map(|s| (*dev, kernel.clone(), m, s)))
            .collect::<Vec<_>>()
    };
    let rows: Vec<_> = groups.iter().flat_map(|((dev, kernel), launches)| cells(dev, kernel, launches)).collect();
    if v.opts.csv {
        let mut out =
            header(&["Device", "Kernel", "Invocations", "Metric Name", "Metric Description", "Min", "Max", "Avg"]);
        for (dev, kernel, m, s) in &rows {
            out.push_str(&csv_line(&[
                Cell::Text(p.device_name(*dev)),
                Cell::Text(kernel.clone()),
                Cell::Num(s.n.to_string()),
                Cell::Text(m.name.clone()),
                Cell::Text(names::short(&m.name)),
                Cell::value(format::csv_metric(s.min, &m.unit), &m.unit),
                Cell::value(format::csv_metric(s.max, &m.unit), &m.unit),
                Cell::value(format::csv_metric(s.avg, &m.unit), &m.unit),
            ]));
        }
        return out;
    }
    let descs: Vec<String> = ms.iter().map(|m| names::short(&m.name)).collect();
    let name_w = name_width(ms.iter().map(|m| m.name.as_str()));
    let desc_w = name_width(descs.iter().map(String::as_str));
    let texts: Vec<[String; 3]> =
        rows.iter().map(|(_, _, m, s)| [s.min, s.max, s.avg].map(|x| format::metric(x, &m.unit))).collect();
    let val_w = value_width(texts.iter().flatten());
    let mut out = format!(
        "Invocations{:>name_w$}{:>desc_w$}{:>val_w$}{:>val_w$}{:>val_w$}\n",
        "Metric Name", "Metric Description", "Min", "Max", "Avg"
    );
    let lines = rows.iter().zip(&texts).map(|((dev, kernel, m, s), vals)| {
        let line = format!(
            "{:>11}{:>name_w$}{:>desc_w$}{:>val_w$}{:>val_w$}{:>val_w$}",
            s.n,
            m.name,
            names::short(&m.name),
            vals[0],
            vals[1],
            vals[2]
        );
        (*dev, kernel.as_str(), line)
    });
    out.push_str(&under_headings(p, lines));
    out
}

fn events(p: &Process, v: View, groups: &[KernelLaunches]) -> String {
    let es = &v.counters.events;
    let rows: Vec<_> = groups
        .iter()
        .flat_map(|((dev, kernel), launches)| {
            es.iter().filter_map(move |e| stats(launches, &e.name).map(|s| (*dev, kernel, &e.name, s)))
        })
        .collect();
    let whole = |x: f64| format!("{:.0}", x.round());
    if v.opts.csv {
        // Total as in the text table of the same nvprof versions (the one real events CSV, a K40c's
        // of an older nvprof, has neither).
        let mut out = header(&["Device", "Kernel", "Invocations", "Event Name", "Min", "Max", "Avg", "Total"]);
        for (dev, kernel, name, s) in &rows {
            out.push_str(&csv_line(&[
                Cell::Text(p.device_name(*dev)),
                Cell::Text(kernel.to_string()),
                Cell::Num(s.n.to_string()),
                Cell::Text(name.to_string()),
                Cell::Num(whole(s.min)),
                Cell::Num(whole(s.max)),
                Cell::Num(whole(s.avg)),
                Cell::Num(whole(s.sum)),
            ]));
        }
        return out;
    }
    let name_w = name_width(es.iter().map(|e| e.name.as_str()));
    let texts: Vec<[String; 4]> = rows.iter().map(|(.., s)| [s.min, s.max, s.avg, s.sum].map(format::count)).collect();
    let val_w = value_width(texts.iter().flatten());
    let mut out = format!(
        "Invocations{:>name_w$}{:>val_w$}{:>val_w$}{:>val_w$}{:>val_w$}\n",
        "Event Name", "Min", "Max", "Avg", "Total"
    );
    let lines = rows.iter().zip(&texts).map(|((dev, kernel, name, s), vals)| {
        let line = format!(
            "{:>11}{name:>name_w$}{:>val_w$}{:>val_w$}{:>val_w$}{:>val_w$}",
            s.n, vals[0], vals[1], vals[2], vals[3]
        );
        (*dev, kernel.as_str(), line)
    });
    out.push_str(&under_headings(p, lines));
    out
}

/// Table lines under nvprof's `Device "NAME (N)"` and `    Kernel: NAME` lines, each written when it
/// changes (four spaces before `Kernel:` since CUDA 8; the GTX 980's CUDA 7 output has a tab).
fn under_headings<'a>(p: &Process, lines: impl Iterator<Item = (Option<u32>, &'a str, String)>) -> String {
    let mut out = String::new();
    let mut last: (Option<Option<u32>>, Option<&str>) = (None, None);
    for (dev, kernel, line) in lines {
        if last.0 != Some(dev) {
            let _ = writeln!(out, "Device \"{}\"", p.device_name(dev));
            last = (Some(dev), None);
        }
        if last.1 != Some(kernel) {
            let _ = writeln!(out, "    Kernel: {kernel}");
            last.1 = Some(kernel);
        }
        let _ = writeln!(out, "{line}");
    }
    out
}
