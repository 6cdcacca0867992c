//! nvprof's output, line for line, from a [`Process`]: the `==PID==` lines, the summary ("GPU
//! activities" / "API calls"), the GPU trace with its footnote, the "Event result:" and "Metric result:"
//! tables, the same in `--csv`, and `--query-metrics` / `--query-events`. Column widths, number formats
//! and wording come from real nvprof outputs (tests/fixtures/nvprof/README.md lists them).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::events::EVENTS;
use super::format::{self, Times};
use super::names;
use super::options::{Counters, Options};
use super::process::Process;
use crate::metrics;
use crate::record::{ActivityKind, Record};

/// What a process's block is rendered from.
#[derive(Clone, Copy)]
pub struct View<'a> {
    /// The options.
    pub opts: &'a Options,
    /// The parsed metrics and events.
    pub counters: &'a Counters,
}

/// `==PID==`.
fn tag(pid: u32) -> String {
    format!("=={pid}==")
}

/// The line nvprof printed when it attached to a process.
pub fn banner(pid: u32, command: &str) -> String {
    format!("{} NVPROF is profiling process {pid}, command: {command}\n", tag(pid))
}

/// A notice as nvprof printed it.
pub fn notice(pid: u32, text: &str) -> String {
    format!("{} Warning: {text}\n", tag(pid))
}

/// An error as nvprof printed it.
pub fn error(pid: u32, text: &str) -> String {
    format!("{} Error: {text}\n", tag(pid))
}

/// nvprof's last word when no process used CUDA.
pub const NO_APPLICATION: &str = "======== Warning: No CUDA application was profiled, exiting\n";

/// What nvprof printed for a process after it ended: with `live` false (a log file) also the lines it
/// printed while the process ran.
pub fn process(p: &Process, v: View, live: bool) -> String {
    let t = tag(p.pid);
    let mut out = String::new();
    if !live {
        out.push_str(&banner(p.pid, &p.command));
        for n in &p.notices {
            out.push_str(&notice(p.pid, n));
        }
        for e in &p.errors {
            out.push_str(&error(p.pid, e));
        }
    }
    if p.dropped > 0 {
        out.push_str(&notice(p.pid, &format!("{} records were dropped due to insufficient buffer space", p.dropped)));
    }
    let _ = writeln!(out, "{t} Profiling application: {}", p.command);
    let _ = writeln!(out, "{t} Profiling result:");
    let show = v.opts.show;
    if show.gpu_trace {
        out.push_str(&trace(p, v));
    }
    if show.gpu_summary || show.api_summary {
        out.push_str(&summary(p, v));
    }
    if !show.gpu_trace && v.counters.any() {
        if p.profiled().next().is_none() {
            out.push_str("No events/metrics were profiled.\n");
        } else {
            if !v.counters.events.is_empty() {
                let _ = writeln!(out, "{t} Event result:");
                out.push_str(&events(p, v));
            }
            if !v.counters.metrics.is_empty() {
                if !v.counters.events.is_empty() {
                    out.push('\n');
                }
                let _ = writeln!(out, "{t} Metric result:");
                out.push_str(&metrics_table(p, v));
            }
        }
    }
    out
}

/// A CSV line: nvprof quoted its text fields (and the context and stream ids) but not its numbers, and
/// left missing values empty, a choice per field that a CSV writer's single quoting style cannot make.
#[derive(Clone, Debug)]
enum Cell {
    Num(String),
    Text(String),
    Empty,
}

fn csv_line(cells: &[Cell]) -> String {
    let mut s = cells
        .iter()
        .map(|c| match c {
            Cell::Num(n) => n.clone(),
            Cell::Text(t) => format!("\"{}\"", t.replace('"', "\"\"")),
            Cell::Empty => String::new(),
        })
        .collect::<Vec<_>>()
        .join(",");
    s.push('\n');
    s
}

fn header(names: &[&str]) -> String {
    csv_line(&names.iter().map(|n| Cell::Text(n.to_string())).collect::<Vec<_>>())
}

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

/// A record's GPU duration in ns.
fn duration_ns(r: &Record) -> Option<f64> {
    r.trace
        .as_ref()
        .and_then(|t| t.duration_ns)
        .map(|d| d as f64)
        .or_else(|| r.time_ms.as_ref().map(|t| t.median * 1e6))
}

fn display_name(r: &Record) -> String {
    r.trace.as_ref().map(|t| t.name.clone()).filter(|n| !n.is_empty()).unwrap_or_else(|| r.kernel.clone())
}

fn summary_rows(p: &Process, v: View) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    if v.opts.show.gpu_summary {
        let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for r in p.timed() {
            if let Some(d) = duration_ns(r) {
                by.entry(display_name(r)).or_default().push(d);
            }
        }
        rows.extend(group(
            "GPU activities",
            by.into_iter().map(|(n, d)| (n, d.len() as u64, d.iter().sum(), fold_min(&d), fold_max(&d))),
        ));
    }
    if v.opts.show.api_summary {
        rows.extend(group(
            "API calls",
            p.api.iter().map(|a| (a.name.clone(), a.calls, a.total_ns as f64, a.min_ns as f64, a.max_ns as f64)),
        ));
    }
    rows
}

fn fold_min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn fold_max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
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

fn summary(p: &Process, v: View) -> String {
    let rows = summary_rows(p, v);
    let mut out = String::new();
    let has_gpu = rows.iter().any(|r| r.kind == "GPU activities");
    if v.opts.show.gpu_summary && !has_gpu {
        out.push_str("No kernels were profiled.\n");
    } else if !v.opts.show.gpu_summary && rows.is_empty() {
        out.push_str("No API activities were profiled.\n");
    }
    if rows.is_empty() {
        return out;
    }
    let times = v.opts.times;
    if v.opts.csv {
        out.push_str(&header(&["Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"]));
        let csv_times = if times == Times::Auto { Times::Column } else { times };
        let unit = |f: &dyn Fn(&SummaryRow) -> f64| format::column_unit(rows.iter().map(f), csv_times);
        let units = [unit(&|r| r.total), unit(&|r| r.avg), unit(&|r| r.min), unit(&|r| r.max)];
        let _ = writeln!(
            out,
            ",%,{},,{},{},{},",
            units[0].suffix(),
            units[1].suffix(),
            units[2].suffix(),
            units[3].suffix()
        );
        for r in &rows {
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
        return out;
    }
    let line = |kind: &str, pct: &str, t: &str, c: &str, a: &str, mi: &str, ma: &str, n: &str| {
        format!("{kind:>16}{pct:>9}{t:>10}{c:>10}{a:>10}{mi:>10}{ma:>10}  {n}\n")
    };
    out.push_str(&line("Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"));
    let mut last = "";
    for r in &rows {
        let kind = if r.kind == last { String::new() } else { format!("{}:", r.kind) };
        last = r.kind;
        out.push_str(&line(
            &kind,
            &format!("{:.2}%", r.pct),
            &format::time(r.total, times),
            &r.calls.to_string(),
            &format::time(r.avg, times),
            &format::time(r.min, times),
            &format::time(r.max, times),
            &r.name,
        ));
    }
    out
}

/// The GPU trace's CSV columns before the metric columns and `Name`, `Correlation_ID`, as nvprof wrote them.
pub const TRACE_COLUMNS: [&str; 18] = [
    "Start",
    "Duration",
    "Grid X",
    "Grid Y",
    "Grid Z",
    "Block X",
    "Block Y",
    "Block Z",
    "Registers Per Thread",
    "Static SMem",
    "Dynamic SMem",
    "Size",
    "Throughput",
    "SrcMemType",
    "DstMemType",
    "Device",
    "Context",
    "Stream",
];

const TRACE_NOTE_KERNEL: &str = "Regs: Number of registers used per CUDA thread. This number includes registers used internally by the CUDA driver and/or tools and can be more than what the compiler shows.\nSSMem: Static shared memory allocated per CUDA block.\nDSMem: Dynamic shared memory allocated per CUDA block.\n";
const TRACE_NOTE_COPY: &str = "SrcMemType: The type of source memory accessed by memory operation/copy\nDstMemType: The type of destination memory accessed by memory operation/copy\n";

/// The metric and event columns of the GPU trace: (name, unit).
fn counter_columns(v: View) -> Vec<(String, String)> {
    let mut cols: Vec<(String, String)> =
        v.counters.events.iter().map(|e| (e.name.clone(), metrics::COUNT.to_string())).collect();
    cols.extend(v.counters.metrics.iter().map(|m| (m.name.clone(), m.unit.clone())));
    cols
}

fn metric_of<'a>(r: &'a Record, name: &str) -> Option<&'a crate::record::Metric> {
    r.metrics.iter().find(|m| m.name == name)
}

fn trace(p: &Process, v: View) -> String {
    let rows: Vec<&Record> = p.timed().collect();
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("No kernels were profiled.\n");
        return out;
    }
    let cols = counter_columns(v);
    let times = v.opts.times;
    let is = |r: &Record, k: ActivityKind| r.trace.as_ref().is_some_and(|t| t.kind == k);
    let copies = rows.iter().any(|r| !is(r, ActivityKind::Kernel));
    if v.opts.csv {
        let csv_times = if times == Times::Auto { Times::Column } else { times };
        let starts = rows.iter().filter_map(|r| r.trace.as_ref().and_then(|t| t.start_ns).map(|s| s as f64));
        let start_unit = format::column_unit(starts, csv_times);
        let dur_unit = format::column_unit(rows.iter().filter_map(|r| duration_ns(r)), csv_times);
        let smem = |f: &dyn Fn(&crate::record::Trace) -> Option<u32>| {
            format::size_unit(rows.iter().filter_map(|r| r.trace.as_ref().and_then(f)).map(f64::from))
        };
        let (ss_unit, ss_div) = smem(&|t| t.static_smem);
        let (ds_unit, ds_div) = smem(&|t| t.dynamic_smem);
        let (size_unit, size_div) =
            format::size_unit(rows.iter().filter_map(|r| r.trace.as_ref().and_then(|t| t.bytes)).map(|b| b as f64));
        let rate = |r: &Record| Some(r.trace.as_ref()?.bytes? as f64 / (duration_ns(r)? * 1e-9));
        let max_rate = rows.iter().filter_map(|r| rate(r)).fold(0.0, f64::max);
        let (rate_unit, rate_div) = {
            let (u, d) = format::size_unit([max_rate]);
            (format!("{u}/s"), d)
        };
        let mut names: Vec<&str> = TRACE_COLUMNS.to_vec();
        names.extend(cols.iter().map(|(n, _)| n.as_str()));
        names.extend(["Name", "Correlation_ID"]);
        out.push_str(&header(&names));
        let mut units = vec![
            start_unit.suffix().to_string(),
            dur_unit.suffix().to_string(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            ss_unit.to_string(),
            ds_unit.to_string(),
            size_unit.to_string(),
            rate_unit,
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ];
        units.extend(cols.iter().map(|(_, u)| csv_unit(u)));
        units.extend([String::new(), String::new()]);
        out.push_str(&units.join(","));
        out.push('\n');
        for r in rows {
            let Some(t) = r.trace.as_ref() else { continue };
            let kernel = t.kind == ActivityKind::Kernel;
            let num = |v: Option<String>| v.map(Cell::Num).unwrap_or(Cell::Empty);
            let dim = |d: Option<u32>| d.filter(|_| kernel).map_or(Cell::Empty, |d| Cell::Num(d.to_string()));
            let (g, b) = (r.grid, r.block);
            let mut cells = vec![
                num(t.start_ns.map(|s| format::csv_time(s as f64, start_unit))),
                num(duration_ns(r).map(|d| format::csv_time(d, dur_unit))),
                dim(g.map(|d| d.x)),
                dim(g.map(|d| d.y)),
                dim(g.map(|d| d.z)),
                dim(b.map(|d| d.x)),
                dim(b.map(|d| d.y)),
                dim(b.map(|d| d.z)),
                num(t.registers.filter(|_| kernel).map(|x| x.to_string())),
                num(t.static_smem.filter(|_| kernel).map(|x| format!("{:.6}", x as f64 / ss_div))),
                num(t.dynamic_smem.filter(|_| kernel).map(|x| format!("{:.6}", x as f64 / ds_div))),
                num(t.bytes.filter(|_| !kernel).map(|b| format!("{:.6}", b as f64 / size_div))),
                num(rate(r).filter(|_| !kernel).map(|x| format!("{:.6}", x / rate_div))),
                t.src_kind.clone().filter(|_| !kernel).map(Cell::Text).unwrap_or(Cell::Empty),
                t.dst_kind.clone().filter(|_| !kernel).map(Cell::Text).unwrap_or(Cell::Empty),
                Cell::Text(p.device_name(r.device)),
                Cell::Text(t.context.to_string()),
                Cell::Text(t.stream.to_string()),
            ];
            for (name, unit) in &cols {
                cells.push(num(metric_of(r, name).map(|m| csv_number(m.value, unit))));
            }
            cells.push(Cell::Text(t.name.clone()));
            cells.push(Cell::Num(t.correlation.to_string()));
            out.push_str(&csv_line(&cells));
        }
        return out;
    }
    let widths: Vec<usize> = cols
        .iter()
        .map(|(n, u)| {
            let longest = rows
                .iter()
                .filter_map(|r| metric_of(r, n))
                .map(|m| format::metric(m.value, u).len())
                .max()
                .unwrap_or(0);
            n.len().max(longest) + 2
        })
        .collect();
    let mut head = format!(
        "{:>8}{:>10}{:>21}{:>16}{:>10}{:>10}{:>10}",
        "Start", "Duration", "Grid Size", "Block Size", "Regs*", "SSMem*", "DSMem*"
    );
    if copies {
        let _ = write!(head, "{:>10}{:>12}{:>12}{:>12}", "Size", "Throughput", "SrcMemType", "DstMemType");
    }
    let _ = write!(head, "{:>17}{:>10}{:>10}", "Device", "Context", "Stream");
    for ((n, _), w) in cols.iter().zip(&widths) {
        let _ = write!(head, "{n:>w$}");
    }
    head.push_str("  Name\n");
    out.push_str(&head);
    for r in rows {
        let Some(t) = r.trace.as_ref() else { continue };
        let kernel = t.kind == ActivityKind::Kernel;
        let dash = || "-".to_string();
        let k = |s: String| if kernel { s } else { dash() };
        let c = |s: Option<String>| s.filter(|_| !kernel).unwrap_or_else(dash);
        let dev: String = p.device_name(r.device).chars().take(15).collect();
        let mut line = format!(
            "{:>8}{:>10}{:>21}{:>16}{:>10}{:>10}{:>10}",
            t.start_ns.map(|s| format::time(s as f64, times)).unwrap_or_else(dash),
            duration_ns(r).map(|d| format::time(d, times)).unwrap_or_else(dash),
            k(r.grid.map_or_else(dash, |d| format!("({} {} {})", d.x, d.y, d.z))),
            k(r.block.map_or_else(dash, |d| format!("({} {} {})", d.x, d.y, d.z))),
            k(t.registers.map(|x| x.to_string()).unwrap_or_else(dash)),
            k(t.static_smem.map(|x| format::size(x as f64)).unwrap_or_else(dash)),
            k(t.dynamic_smem.map(|x| format::size(x as f64)).unwrap_or_else(dash)),
        );
        if copies {
            let rate = t
                .bytes
                .zip(duration_ns(r))
                .filter(|(_, d)| *d > 0.0)
                .map(|(b, d)| format::rate(b as f64 / (d * 1e-9), 1024.0));
            let _ = write!(
                line,
                "{:>10}{:>12}{:>12}{:>12}",
                c(t.bytes.map(|b| format::size(b as f64))),
                c(rate),
                c(t.src_kind.clone()),
                c(t.dst_kind.clone()),
            );
        }
        let _ = write!(line, "{dev:>17}{:>10}{:>10}", t.context, t.stream);
        for ((n, u), w) in cols.iter().zip(&widths) {
            let val = metric_of(r, n).map(|m| format::metric(m.value, u)).unwrap_or_else(dash);
            let _ = write!(line, "{val:>w$}");
        }
        let name = if kernel { format!("{} [{}]", t.name, t.correlation) } else { t.name.clone() };
        let _ = writeln!(line, "  {name}");
        out.push_str(&line);
    }
    out.push('\n');
    out.push_str(TRACE_NOTE_KERNEL);
    if copies {
        out.push_str(TRACE_NOTE_COPY);
    }
    out
}

/// A metric's unit in a CSV units row (rates and percentages carry theirs in the value instead).
fn csv_unit(unit: &str) -> String {
    match unit {
        metrics::GBPS | metrics::PCT | metrics::RATIO | metrics::COUNT | "raw" => String::new(),
        u => u.to_string(),
    }
}

fn csv_number(v: f64, unit: &str) -> String {
    format::csv_metric(v, unit)
}

/// The profiled launches of one kernel on one device: (device, kernel name), launches.
type KernelLaunches<'a> = ((Option<u32>, String), Vec<&'a Record>);

/// The launches of each (device, kernel), in first-launch order.
fn by_kernel(p: &Process) -> Vec<KernelLaunches<'_>> {
    let mut out: Vec<KernelLaunches> = Vec::new();
    for r in p.profiled() {
        let key = (r.device, display_name(r));
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

/// (min, max, avg) of one metric over launches.
fn stats(launches: &[&Record], name: &str) -> Option<(usize, f64, f64, f64)> {
    let vals: Vec<f64> = launches.iter().filter_map(|r| metric_of(r, name)).map(|m| m.value).collect();
    if vals.is_empty() {
        return None;
    }
    let avg = vals.iter().sum::<f64>() / vals.len() as f64;
    Some((vals.len(), fold_min(&vals), vals.iter().copied().fold(f64::NEG_INFINITY, f64::max), avg))
}

fn metrics_table(p: &Process, v: View) -> String {
    let groups = by_kernel(p);
    let mut out = String::new();
    let ms = &v.counters.metrics;
    if v.opts.csv {
        out.push_str(&header(&[
            "Device",
            "Kernel",
            "Invocations",
            "Metric Name",
            "Metric Description",
            "Min",
            "Max",
            "Avg",
        ]));
        for ((dev, kernel), launches) in &groups {
            for m in ms {
                let Some((n, min, max, avg)) = stats(launches, &m.name) else { continue };
                out.push_str(&csv_line(&[
                    Cell::Text(p.device_name(*dev)),
                    Cell::Text(kernel.clone()),
                    Cell::Num(n.to_string()),
                    Cell::Text(m.name.clone()),
                    Cell::Text(names::short(&m.name)),
                    Cell::Num(format::csv_metric(min, &m.unit)),
                    Cell::Num(format::csv_metric(max, &m.unit)),
                    Cell::Num(format::csv_metric(avg, &m.unit)),
                ]));
            }
        }
        return out;
    }
    let name_w = ms.iter().map(|m| m.name.len() + 2).max().unwrap_or(0).max(42);
    let desc_w = ms.iter().map(|m| names::short(&m.name).len() + 2).max().unwrap_or(0).max(42);
    let mut rows = Vec::new();
    for ((dev, kernel), launches) in &groups {
        for m in ms {
            if let Some((n, min, max, avg)) = stats(launches, &m.name) {
                rows.push((dev, kernel, n, m, [min, max, avg].map(|x| format::metric(x, &m.unit))));
            }
        }
    }
    let val_w = rows.iter().flat_map(|r| r.4.iter().map(|s| s.len() + 2)).max().unwrap_or(0).max(12);
    let _ = writeln!(
        out,
        "Invocations{:>w1$}{:>w2$}{:>vw$}{:>vw$}{:>vw$}",
        "Metric Name",
        "Metric Description",
        "Min",
        "Max",
        "Avg",
        w1 = name_w,
        w2 = desc_w,
        vw = val_w
    );
    let lines = rows.into_iter().map(|(dev, kernel, n, m, vals)| {
        let line = format!(
            "{n:>11}{:>name_w$}{:>desc_w$}{:>val_w$}{:>val_w$}{:>val_w$}",
            m.name,
            names::short(&m.name),
            vals[0],
            vals[1],
            vals[2]
        );
        (*dev, kernel, line)
    });
    out.push_str(&under_headings(p, lines));
    out
}

/// Table lines under nvprof's `Device "NAME (N)"` and `    Kernel: NAME` lines, each written when it changes.
fn under_headings<'a>(p: &Process, lines: impl Iterator<Item = (Option<u32>, &'a String, String)>) -> String {
    let mut out = String::new();
    let mut last: (Option<Option<u32>>, Option<&String>) = (None, None);
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

fn events(p: &Process, v: View) -> String {
    let groups = by_kernel(p);
    let es = &v.counters.events;
    let mut out = String::new();
    let int = |x: f64| format!("{:.0}", x.round());
    if v.opts.csv {
        out.push_str(&header(&["Device", "Kernel", "Invocations", "Event Name", "Min", "Max", "Avg", "Total"]));
        for ((dev, kernel), launches) in &groups {
            for e in es {
                let Some((n, min, max, avg)) = stats(launches, &e.name) else { continue };
                out.push_str(&csv_line(&[
                    Cell::Text(p.device_name(*dev)),
                    Cell::Text(kernel.clone()),
                    Cell::Num(n.to_string()),
                    Cell::Text(e.name.clone()),
                    Cell::Num(int(min)),
                    Cell::Num(int(max)),
                    Cell::Num(int(avg)),
                    Cell::Num(int(avg * n as f64)),
                ]));
            }
        }
        return out;
    }
    let name_w = es.iter().map(|e| e.name.len() + 2).max().unwrap_or(0).max(42);
    let mut rows = Vec::new();
    for ((dev, kernel), launches) in &groups {
        for e in es {
            if let Some((n, min, max, avg)) = stats(launches, &e.name) {
                rows.push((dev, kernel, n, &e.name, [min, max, avg, avg * n as f64].map(int)));
            }
        }
    }
    let val_w = rows.iter().flat_map(|r| r.4.iter().map(|s| s.len() + 2)).max().unwrap_or(0).max(12);
    let _ = writeln!(
        out,
        "Invocations{:>name_w$}{:>val_w$}{:>val_w$}{:>val_w$}{:>val_w$}",
        "Event Name", "Min", "Max", "Avg", "Total"
    );
    let lines = rows.into_iter().map(|(dev, kernel, n, name, vals)| {
        let line = format!(
            "{n:>11}{name:>name_w$}{:>val_w$}{:>val_w$}{:>val_w$}{:>val_w$}",
            vals[0], vals[1], vals[2], vals[3]
        );
        (*dev, kernel, line)
    });
    out.push_str(&under_headings(p, lines));
    out
}

/// `--query-metrics`: every measurable metric with nvprof's description, per device (`(ordinal, name)`).
pub fn query_metrics(devices: &[(u32, String)]) -> String {
    let mut out = String::from("Available Metrics:\n                            Name   Description\n");
    for (ordinal, name) in devices {
        let _ = writeln!(out, "Device {ordinal} ({name}):");
        for m in names::queryable() {
            let _ = write!(out, "{m:>32}:  {}\n\n", names::long(m));
        }
    }
    out
}

/// `--query-events`: every nvprof event, the counter that measures it or why none does, per device.
pub fn query_events(devices: &[(u32, String)]) -> String {
    let mut out = String::from("Available Events:\n                            Name   Description\n");
    for (ordinal, name) in devices {
        let _ = writeln!(out, "Device {ordinal} ({name}):");
        for e in EVENTS {
            let what = match e.counter {
                Some(c) => format!("{} ({c})", e.description),
                None => e.description.to_string(),
            };
            let _ = write!(out, "{:>32}:  {what}\n\n", e.name);
        }
    }
    out
}
