//! nvprof's `--print-gpu-trace`: one row per kernel, copy and set in time order, and, with `--metrics`
//! or `--events`, the metric trace instead (one row per profiled kernel launch with a column per
//! counter).
//!
//! The GPU trace, text, from real traces (tests/fixtures/profilers: a V100's; others of a P100, K20m,
//! T4, GTX 980/1030/1060, Quadro M4000/M1000M found in public repositories): `Start` 8, `Duration` 10,
//! `Grid Size` 21 and `Block Size` 16 as `(x y z)`, `Regs*`, `SSMem*`, `DSMem*` 10, then only when the
//! trace has copies or sets `Size` 10, `Throughput` 12, `SrcMemType`, `DstMemType` 12 (a GTX TITAN's
//! kernels-only trace has none), `Device` 17 (the name and ordinal cut to 15: `GeForce GTX 107`,
//! `Quadro M1000M (`), `Context`, `Stream` 10, two spaces, the name with the launch's correlation id
//! in brackets; `-` where a column does not apply; the footnotes after a blank line. CSV from a GTX
//! 1080's `--csv --print-gpu-trace`: a units row (`us,us,,,,,,,,B,B,B,MB/s,,,,,,,`) with one unit
//! per column, the largest value's; whole bytes as integers; device, context and stream quoted.
//!
//! The metric trace, CSV, from a GTX 1080's `--csv --print-gpu-trace --metrics all`: `Device`,
//! `Context`, `Stream`, `Kernel`, `Correlation_ID`, then one column per metric, a units row (`%`,
//! `MB/s`, ... over each column) and bare values. Its text layout is not in any real output found: the
//! same columns, aligned as the GPU trace's, the kernel last as there.

use std::fmt::Write as _;

use super::super::format::{self, TimeUnit, Times};
use super::super::process::Process;
use super::{Cell, View, counter_columns, csv_line, duration_ns, header, metric_of};
use crate::record::{ActivityKind, Record, Trace};

/// The GPU trace's CSV columns, as nvprof wrote them.
const COLUMNS: [&str; 20] = [
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
    "Name",
    "Correlation_ID",
];

/// The metric trace's CSV columns before the counters'.
const METRIC_COLUMNS: [&str; 5] = ["Device", "Context", "Stream", "Kernel", "Correlation_ID"];

const NOTE_KERNEL: &str = "Regs: Number of registers used per CUDA thread. This number includes registers used internally by the CUDA driver and/or tools and can be more than what the compiler shows.\nSSMem: Static shared memory allocated per CUDA block.\nDSMem: Dynamic shared memory allocated per CUDA block.\n";
const NOTE_COPY: &str = "SrcMemType: The type of source memory accessed by memory operation/copy\nDstMemType: The type of destination memory accessed by memory operation/copy\n";

/// The trace of `p`: the metric trace when counters were asked for, else the GPU trace.
pub(super) fn trace(p: &Process, v: View) -> String {
    if v.counters.any() {
        return metric_trace(p, v);
    }
    let rows: Vec<&Record> = p.timed().collect();
    if rows.is_empty() {
        return "No kernels were profiled.\n".into();
    }
    if v.opts.csv { csv(p, &rows, v.opts.times) } else { text(p, &rows, v.opts.times) }
}

fn is_kernel(t: &Trace) -> bool {
    t.kind == ActivityKind::Kernel
}

/// A copy's or set's throughput, bytes per second.
fn throughput(r: &Record) -> Option<f64> {
    let t = r.trace.as_ref().filter(|t| !is_kernel(t))?;
    Some(t.bytes? as f64 / (duration_ns(r).filter(|d| *d > 0.0)? * 1e-9))
}

/// A device as a text trace shows it: name and ordinal cut to 15 characters.
fn device_cell(p: &Process, r: &Record) -> String {
    p.device_name(r.device).chars().take(15).collect()
}

/// A kernel's name with its launch's correlation id, as the text trace's Name column shows it.
fn name_cell(r: &Record, t: &Trace) -> String {
    if is_kernel(t) { format!("{} [{}]", r.full_name(), t.correlation) } else { r.full_name().to_string() }
}

fn csv(p: &Process, rows: &[&Record], times: Times) -> String {
    let csv_times = if times == Times::Auto { Times::Column } else { times };
    let trace = |r: &&Record| r.trace.clone();
    let traces: Vec<Trace> = rows.iter().filter_map(trace).collect();
    let start_unit = format::column_unit(traces.iter().filter_map(|t| t.start_ns).map(|s| s as f64), csv_times);
    let dur_unit = format::column_unit(rows.iter().filter_map(|r| duration_ns(r)), csv_times);
    let kernels = || traces.iter().filter(|t| is_kernel(t));
    let (ss_unit, ss_div) = format::size_unit(kernels().filter_map(|t| t.static_smem).map(f64::from));
    let (ds_unit, ds_div) = format::size_unit(kernels().filter_map(|t| t.dynamic_smem).map(f64::from));
    let (size_unit, size_div) =
        format::size_unit(traces.iter().filter(|t| !is_kernel(t)).filter_map(|t| t.bytes).map(|b| b as f64));
    let (rate_unit, rate_div) = format::rate_unit(rows.iter().filter_map(|r| throughput(r)));
    let mut out = header(&COLUMNS);
    let mut units = vec![""; COLUMNS.len()];
    units[0] = start_unit.suffix();
    units[1] = dur_unit.suffix();
    units[9] = ss_unit;
    units[10] = ds_unit;
    units[11] = size_unit;
    units[12] = rate_unit;
    let _ = writeln!(out, "{}", units.join(","));
    for r in rows {
        let Some(t) = r.trace.as_ref() else { continue };
        let kernel = is_kernel(t);
        let num = |v: Option<String>| v.map(Cell::Num).unwrap_or(Cell::Empty);
        let text = |v: Option<String>| v.map(Cell::Text).unwrap_or(Cell::Empty);
        let dim = |d: Option<u32>| num(d.filter(|_| kernel).map(|d| d.to_string()));
        let (g, b) = (r.grid, r.block);
        out.push_str(&csv_line(&[
            num(t.start_ns.map(|s| format::csv_time(s as f64, start_unit))),
            num(duration_ns(r).map(|d| format::csv_time(d, dur_unit))),
            dim(g.map(|d| d.x)),
            dim(g.map(|d| d.y)),
            dim(g.map(|d| d.z)),
            dim(b.map(|d| d.x)),
            dim(b.map(|d| d.y)),
            dim(b.map(|d| d.z)),
            num(t.registers.filter(|_| kernel).map(|x| x.to_string())),
            num(t.static_smem.filter(|_| kernel).map(|x| format::csv_size(x.into(), ss_div))),
            num(t.dynamic_smem.filter(|_| kernel).map(|x| format::csv_size(x.into(), ds_div))),
            num(t.bytes.filter(|_| !kernel).map(|b| format::csv_size(b as f64, size_div))),
            num(throughput(r).map(|x| format!("{:.6}", x / rate_div))),
            text(t.src_kind.clone().filter(|_| !kernel)),
            text(t.dst_kind.clone().filter(|_| !kernel)),
            Cell::Text(p.device_name(r.device)),
            Cell::Text(t.context.to_string()),
            Cell::Text(t.stream.to_string()),
            Cell::Text(r.full_name().to_string()),
            Cell::Num(t.correlation.to_string()),
        ]));
    }
    out
}

/// A time cell of a text trace: nvprof's own unit per value, or (`-u`) a bare number in the fixed one.
fn time_cell(ns: f64, times: Times) -> String {
    match times {
        Times::Fixed(u) => format::bare(ns / u.ns()),
        _ => format::time(ns, times),
    }
}

/// The units row under a text header whose time columns are fixed (`-u`), as under the summary's:
/// each unit right-aligned under its column, nothing after the last.
fn units_row(unit: TimeUnit, widths: &[(usize, bool)]) -> String {
    let mut s = String::new();
    for &(w, timed) in widths {
        let _ = write!(s, "{:>w$}", if timed { unit.suffix() } else { "" });
    }
    format!("{}\n", s.trim_end())
}

fn text(p: &Process, rows: &[&Record], times: Times) -> String {
    let copies = rows.iter().any(|r| r.trace.as_ref().is_some_and(|t| !is_kernel(t)));
    let mut out = format!(
        "{:>8}{:>10}{:>21}{:>16}{:>10}{:>10}{:>10}",
        "Start", "Duration", "Grid Size", "Block Size", "Regs*", "SSMem*", "DSMem*"
    );
    if copies {
        let _ = write!(out, "{:>10}{:>12}{:>12}{:>12}", "Size", "Throughput", "SrcMemType", "DstMemType");
    }
    let _ = writeln!(out, "{:>17}{:>10}{:>10}  Name", "Device", "Context", "Stream");
    if let Times::Fixed(u) = times {
        out.push_str(&units_row(u, &[(8, true), (10, true)]));
    }
    for r in rows {
        let Some(t) = r.trace.as_ref() else { continue };
        let kernel = is_kernel(t);
        let dash = || "-".to_string();
        let k = |s: Option<String>| s.filter(|_| kernel).unwrap_or_else(dash);
        let c = |s: Option<String>| s.filter(|_| !kernel).unwrap_or_else(dash);
        let dim = |d: Option<crate::spec::Dim3>| d.map(|d| format!("({} {} {})", d.x, d.y, d.z));
        let _ = write!(
            out,
            "{:>8}{:>10}{:>21}{:>16}{:>10}{:>10}{:>10}",
            t.start_ns.map(|s| time_cell(s as f64, times)).unwrap_or_else(dash),
            duration_ns(r).map(|d| time_cell(d, times)).unwrap_or_else(dash),
            k(dim(r.grid)),
            k(dim(r.block)),
            k(t.registers.map(|x| x.to_string())),
            k(t.static_smem.map(|x| format::size(x.into()))),
            k(t.dynamic_smem.map(|x| format::size(x.into()))),
        );
        if copies {
            let _ = write!(
                out,
                "{:>10}{:>12}{:>12}{:>12}",
                c(t.bytes.map(|b| format::size(b as f64))),
                c(throughput(r).map(format::rate)),
                c(t.src_kind.clone()),
                c(t.dst_kind.clone()),
            );
        }
        let _ = writeln!(out, "{:>17}{:>10}{:>10}  {}", device_cell(p, r), t.context, t.stream, name_cell(r, t));
    }
    out.push('\n');
    out.push_str(NOTE_KERNEL);
    if copies {
        out.push_str(NOTE_COPY);
    }
    out
}

/// The metric trace: one row per profiled launch, in launch order.
fn metric_trace(p: &Process, v: View) -> String {
    let mut rows: Vec<&Record> = p.profiled().collect();
    if rows.is_empty() {
        return "No events/metrics were profiled.\n".into();
    }
    rows.sort_by_key(|r| r.trace.as_ref().map(|t| t.correlation));
    let cols = counter_columns(v);
    let values = |name: &str| rows.iter().filter_map(|r| metric_of(r, name)).map(|m| m.value).collect::<Vec<f64>>();
    if v.opts.csv {
        let mut names: Vec<&str> = METRIC_COLUMNS.to_vec();
        names.extend(cols.iter().map(|(n, _)| n.as_str()));
        let mut out = header(&names);
        let units: Vec<(String, f64)> = cols.iter().map(|(n, u)| format::csv_column_unit(u, values(n))).collect();
        let mut row = vec![String::new(); METRIC_COLUMNS.len()];
        row.extend(units.iter().map(|(u, _)| u.clone()));
        let _ = writeln!(out, "{}", row.join(","));
        for r in &rows {
            let Some(t) = r.trace.as_ref() else { continue };
            let mut cells = vec![
                Cell::Text(p.device_name(r.device)),
                Cell::Text(t.context.to_string()),
                Cell::Text(t.stream.to_string()),
                // nvprof's metric trace names a kernel by its symbol (mangled for C++).
                Cell::Text(t.symbol.clone().unwrap_or_else(|| r.full_name().to_string())),
                Cell::Num(t.correlation.to_string()),
            ];
            for ((name, unit), (_, div)) in cols.iter().zip(&units) {
                let cell = metric_of(r, name).map(|m| Cell::value(format::csv_column_value(m.value, unit, *div), unit));
                cells.push(cell.unwrap_or(Cell::Empty));
            }
            out.push_str(&csv_line(&cells));
        }
        return out;
    }
    let texts: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|(n, u)| metric_of(r, n).map_or_else(|| "-".to_string(), |m| format::metric(m.value, u)))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, (n, _))| texts.iter().map(|t| t[i].len()).max().unwrap_or(0).max(n.len()) + 2)
        .collect();
    let mut out = format!("{:>17}{:>10}{:>10}", "Device", "Context", "Stream");
    for ((n, _), w) in cols.iter().zip(&widths) {
        let _ = write!(out, "{n:>w$}");
    }
    out.push_str("  Kernel\n");
    for (r, vals) in rows.iter().zip(&texts) {
        let Some(t) = r.trace.as_ref() else { continue };
        let _ = write!(out, "{:>17}{:>10}{:>10}", device_cell(p, r), t.context, t.stream);
        for (val, w) in vals.iter().zip(&widths) {
            let _ = write!(out, "{val:>w$}");
        }
        let _ = writeln!(out, "  {}", name_cell(r, t));
    }
    out
}

/// `--print-api-trace`: one row per runtime and driver API call in time order, on the GPU trace's
/// clock. Text from a V100's (tests/fixtures/profilers/nvprof-api-trace-v100-vectoradd.txt): `Start` 8,
/// `Duration` 10, two spaces, the function; a launch names its kernel and the launch's correlation id,
/// `cudaLaunchKernel (vector_add_kernel(float const *, ...) [129])`. CSV (no real one found): the GPU
/// trace's conventions, `Start`, `Duration`, `Name`, `Correlation_ID` under a units row.
pub(super) fn api_trace(p: &Process, times: Times, csv: bool) -> String {
    if p.api_calls.is_empty() {
        return "No API calls were profiled.\n".into();
    }
    // The kernel a call launched: the one kernel of its correlation id (a graph's launch starts several
    // and names none).
    let mut kernels: std::collections::HashMap<u32, Option<&Record>> = std::collections::HashMap::new();
    for r in &p.records {
        if let Some(t) = r.trace.as_ref().filter(|t| is_kernel(t)) {
            kernels.entry(t.correlation).and_modify(|k| *k = None).or_insert(Some(r));
        }
    }
    let name = |a: &crate::nvprof::protocol::ApiEvent| match kernels.get(&a.correlation) {
        Some(Some(k)) => format!("{} ({} [{}])", a.name, k.full_name(), a.correlation),
        _ => a.name.clone(),
    };
    if csv {
        let csv_times = if times == Times::Auto { Times::Column } else { times };
        let start_unit = format::column_unit(p.api_calls.iter().map(|a| a.start_ns as f64), csv_times);
        let dur_unit = format::column_unit(p.api_calls.iter().map(|a| a.duration_ns as f64), csv_times);
        let mut out = header(&["Start", "Duration", "Name", "Correlation_ID"]);
        let _ = writeln!(out, "{},{},,", start_unit.suffix(), dur_unit.suffix());
        for a in &p.api_calls {
            out.push_str(&csv_line(&[
                Cell::Num(format::csv_time(a.start_ns as f64, start_unit)),
                Cell::Num(format::csv_time(a.duration_ns as f64, dur_unit)),
                Cell::Text(name(a)),
                Cell::Num(a.correlation.to_string()),
            ]));
        }
        return out;
    }
    let mut out = format!("{:>8}{:>10}  Name\n", "Start", "Duration");
    if let Times::Fixed(u) = times {
        out.push_str(&units_row(u, &[(8, true), (10, true)]));
    }
    for a in &p.api_calls {
        let _ = writeln!(
            out,
            "{:>8}{:>10}  {}",
            time_cell(a.start_ns as f64, times),
            time_cell(a.duration_ns as f64, times),
            name(a)
        );
    }
    out
}
