//! nvprof's text output: the summary (`GPU activities` / `API calls`, with or without a Type column,
//! values with units or under a units row), `--metrics` and `--events` tables (event and metric
//! blocks of one run merge per kernel; utilization levels such as `Low (2)` kept), and
//! `--print-gpu-trace` (columns found from the header, one record per launch). `==PID==` lines and
//! the program's own output between them are skipped.

use std::collections::HashMap;

use crate::error::Result;
use crate::metrics;
use crate::record::Report;

use super::build::{Builder, Launch, parse_dim};
use super::nvprof_values as nv;

/// Which table the lines belong to.
enum Table {
    None,
    /// The time summary; `api` once the rows are API calls; `unit` from a units row.
    Summary {
        typed: bool,
        api: bool,
        unit: Option<String>,
        rows: usize,
    },
    /// `Invocations ...` tables of events (`total`: with a Total column) or metrics.
    Results {
        events: bool,
        total: bool,
    },
    /// The GPU trace: each column's label and the byte range its values end in.
    Trace {
        cols: Vec<(String, usize, usize)>,
    },
}

fn tokens(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// The summary header, with or without its Type column.
fn summary_header(line: &str) -> Option<bool> {
    let t = tokens(line);
    match t.as_slice() {
        ["Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"] => Some(true),
        ["Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"] => Some(false),
        _ => None,
    }
}

/// `Invocations Metric Name ...` (false) or `Invocations Event Name ...` (true, and whether it has
/// a Total column).
fn results_header(line: &str) -> Option<(bool, bool)> {
    let t = tokens(line);
    match t.as_slice() {
        ["Invocations", "Metric", "Name", "Metric", "Description", "Min", "Max", "Avg"] => Some((false, false)),
        ["Invocations", "Event", "Name", "Min", "Max", "Avg"] => Some((true, false)),
        ["Invocations", "Event", "Name", "Min", "Max", "Avg", "Total"] => Some((true, true)),
        _ => None,
    }
}

/// The GPU trace's columns: labels separated by two spaces or more, each with where its values end
/// (values are right-aligned under their label; the last, Name, is left-aligned).
fn trace_header(line: &str) -> Option<Vec<(String, usize, usize)>> {
    let t = line.trim();
    if !(t.starts_with("Start") && t.contains("Duration") && t.ends_with("Name")) {
        return None;
    }
    let mut cols = Vec::new();
    let mut start: Option<usize> = None;
    let bytes = line.as_bytes();
    for i in 0..=bytes.len() {
        let end = i == bytes.len() || (bytes[i] == b' ' && bytes.get(i + 1).is_none_or(|&c| c == b' '));
        match (start, end) {
            (None, false) if bytes[i] != b' ' => start = Some(i),
            (Some(s), true) => {
                cols.push((line[s..i].to_string(), s, i));
                start = None;
            }
            _ => {}
        }
    }
    Some(cols)
}

/// Whether `line` starts an nvprof text table.
pub fn is_header(line: &str) -> bool {
    summary_header(line).is_some() || results_header(line).is_some() || trace_header(line).is_some()
}

/// A value token from the end of `t`: `Low (2)` is one value.
fn pop_value(t: &mut Vec<&str>) -> Option<String> {
    let last = t.pop()?;
    if last.starts_with('(') && last.ends_with(')') && t.len() > 2 {
        let word = t.pop()?;
        return Some(format!("{word} {last}"));
    }
    Some(last.to_string())
}

/// Reads nvprof's text output.
pub fn read(lines: &mut dyn Iterator<Item = Result<String>>) -> Result<Report> {
    let mut b = Builder::new(crate::gpu::Origin::Nvprof);
    let mut table = Table::None;
    let mut pid = String::new();
    let mut device: Option<u32> = None;
    let mut kernel: Option<String> = None;
    let mut sums = nv::Summaries::default();
    let mut api_heading = false;
    // Whether a trace without a grid column (the API trace) was read.
    let mut api_trace = false;
    // The device a per-GPU summary's next table is of (`--print-summary-per-gpu`).
    let mut summary_device: Option<u32> = None;
    for line in lines {
        let line = line?;
        let t = line.trim();
        if t.is_empty() {
            table = Table::None;
            continue;
        }
        if let Some(rest) = t.strip_prefix("==")
            && let Some((id, msg)) = rest.split_once("==")
        {
            if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) {
                pid = id.to_string();
            }
            if msg.contains("Profiling result") {
                summary_device = None;
            }
            // Old nvprof heads its API table with a line of its own, before its header or in place of it.
            api_heading = msg.contains("API calls");
            table = match table {
                Table::Summary { typed, unit, rows, .. } if msg.contains("API calls") => {
                    Table::Summary { typed, api: true, unit, rows }
                }
                _ => Table::None,
            };
            continue;
        }
        if let Some(typed) = summary_header(&line) {
            table = Table::Summary { typed, api: std::mem::take(&mut api_heading), unit: None, rows: 0 };
            continue;
        }
        if !matches!(table, Table::Results { .. })
            && let Some((name, ord)) = nv::device_line(t)
        {
            b.device(ord, &name, None);
            summary_device = Some(ord);
            table = Table::None;
            continue;
        }
        if let Some((events, total)) = results_header(&line) {
            table = Table::Results { events, total };
            kernel = None;
            continue;
        }
        if let Some(cols) = trace_header(&line) {
            api_trace |= !cols.iter().any(|c| c.0 == "Grid Size");
            table = Table::Trace { cols };
            continue;
        }
        match &mut table {
            Table::None => {}
            Table::Summary { typed, api, unit, rows } => {
                let mut tok = tokens(&line);
                // A units row under the header: `%  ms  ms  ms  ms`.
                if *rows == 0 && tok.iter().all(|u| *u == "%" || nv::ms("1", u).is_some()) {
                    *unit = tok.iter().find(|u| **u != "%").map(|u| u.to_string());
                    continue;
                }
                *rows += 1;
                let mut skip = 0;
                if *typed && let Some(colon) = t.find(':').filter(|&c| !t[..c].chars().any(|ch| ch.is_ascii_digit())) {
                    *api = !t[..colon].trim().eq_ignore_ascii_case("GPU activities");
                    skip = t[..colon].split_whitespace().count();
                }
                if *api || tok.len() < skip + 7 {
                    continue;
                }
                tok.drain(..skip);
                // The name is the rest of the line after the six values (it may hold spaces).
                let name_at = line.find(tok[0]).unwrap_or(0);
                let mut after = &line[name_at..];
                for v in &tok[..6] {
                    after = after.find(v).and_then(|at| after.get(at + v.len()..)).unwrap_or("").trim_start();
                }
                let name = after.trim();
                let u = unit.as_deref().unwrap_or("");
                let (Some(total), Some(avg), Some(min), Some(max), Ok(calls)) =
                    (nv::ms(tok[1], u), nv::ms(tok[3], u), nv::ms(tok[4], u), nv::ms(tok[5], u), tok[2].parse::<u64>())
                else {
                    continue;
                };
                if name.starts_with('[') {
                    continue; // [CUDA memcpy HtoD], [CUDA memset]: not kernels
                }
                let pct = super::units::number(tok[0]).map(|(p, _)| p);
                nv::add_times(sums.get(&pid, name, summary_device, calls), total, avg, min, max, pct);
            }
            Table::Results { events, total } => {
                let mut rest = t;
                if let Some(d) = rest.strip_prefix("Device \"")
                    && let Some((name, after)) = d.split_once('"')
                {
                    let (name, ord) = nv::device(name);
                    let ord = ord.unwrap_or(0);
                    b.device(ord, &name, None);
                    device = Some(ord);
                    kernel = None;
                    rest = after.trim();
                }
                if let Some(k) = rest.strip_prefix("Kernel:") {
                    kernel = Some(k.trim().to_string());
                    continue;
                }
                let (Some(k), mut tok) = (&kernel, tokens(rest)) else { continue };
                let Some(Ok(inv)) = tok.first().map(|i| i.parse::<u64>()) else { continue };
                if tok.len() < 2 + 3 {
                    continue;
                }
                let name = tok[1].to_string();
                if *total {
                    tok.pop();
                }
                let Some(avg) = pop_value(&mut tok) else { continue };
                nv::add(sums.get(&pid, k, device, inv), &name, &avg, "", *events);
            }
            Table::Trace { cols } => {
                let Some(&(_, name_at, _)) = cols.last() else { continue };
                if line.len() <= name_at {
                    continue;
                }
                let mut prev = 0;
                let mut cell: HashMap<&str, &str> = HashMap::new();
                for (label, _, end) in &cols[..cols.len() - 1] {
                    cell.insert(label.as_str(), line.get(prev..(*end).min(line.len())).unwrap_or("").trim());
                    prev = *end;
                }
                let get = |k: &str| cell.get(k).copied().unwrap_or("");
                let (Some(grid), Some(block)) = (parse_dim(get("Grid Size")), parse_dim(get("Block Size"))) else {
                    continue; // memcpy, memset, unified-memory rows
                };
                let dev = get("Device");
                if !dev.is_empty() && dev != "-" {
                    let (name, ord) = nv::device(dev);
                    b.device(ord.unwrap_or(0), &name, None);
                }
                let mut l = Launch {
                    name: nv::kernel_name(line.get(name_at..).unwrap_or("")).to_string(),
                    grid: Some(grid),
                    block: Some(block),
                    ..Default::default()
                };
                if let Some(ms) = nv::ms(get("Duration"), "") {
                    l.add(metrics::DURATION, ms, metrics::MS);
                }
                if let Some((regs, _)) = super::units::number(get("Regs*")).or(super::units::number(get("Regs"))) {
                    l.add(super::ncu_map::REGISTERS, regs, "register/thread");
                }
                for (col, name) in [("SSMem*", super::ncu_map::STATIC_SMEM), ("DSMem*", super::ncu_map::DYNAMIC_SMEM)] {
                    if let Some(v) = nv::bytes(get(col), "").or(nv::bytes(get(col.trim_end_matches('*')), "")) {
                        l.add(name, v, "byte");
                    }
                }
                b.push(l);
            }
        }
    }
    for l in sums.into_launches() {
        b.push(l);
    }
    if api_trace && b.is_empty() {
        return Err(nv::api_trace_only());
    }
    b.finish("nvprof output")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        assert_eq!(
            summary_header("            Type  Time(%)      Time     Calls       Avg       Min       Max  Name"),
            Some(true)
        );
        assert_eq!(summary_header("Time(%)      Time     Calls       Avg       Min       Max  Name"), Some(false));
        assert_eq!(
            results_header(
                "Invocations                                Event Name         Min         Max         Avg       Total"
            ),
            Some((true, true))
        );
        let cols = trace_header("   Start  Duration            Grid Size      Block Size     Regs*  Name").unwrap();
        let labels: Vec<&str> = cols.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(labels, ["Start", "Duration", "Grid Size", "Block Size", "Regs*", "Name"]);
        let mut v = vec!["1", "shared_utilization", "Shared", "Memory", "Utilization", "Low", "(1)", "Low", "(1)"];
        assert_eq!(pop_value(&mut v).as_deref(), Some("Low (1)"));
    }
}
