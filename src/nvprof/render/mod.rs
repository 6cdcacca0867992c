//! nvprof's output, line for line, from a [`Process`]: the `==PID==` lines, then the summary
//! (`summary`), the GPU trace (`trace`) or the "Event result:" and "Metric result:" tables
//! (`results`), as text or `--csv`, and `--query-metrics` / `--query-events`. Layouts, widths, number
//! formats and wording come from real nvprof outputs; each rule names the files it was read from
//! (tests/fixtures/profilers/README.md and tests/fixtures/nvprof/README.md list them).

mod results;
mod summary;
mod trace;

use std::fmt::Write as _;

use super::events::EVENTS;
use super::names;
use super::options::{Counters, Options};
use super::process::Process;
use crate::metrics;
use crate::record::{Metric, Record};

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

/// The start of nvprof's line about kernel replay.
const REPLAY: &str = "Some kernel(s) will be replayed on device";

/// nvprof's line when a device's kernels are replayed for their metrics.
pub fn replay_notice(device: u32) -> String {
    format!("{REPLAY} {device} in order to collect all events/metrics.")
}

/// A notice as nvprof printed it: `==PID== Warning: TEXT`, except the replay line, which nvprof of CUDA
/// 10 and later printed without `Warning:` (a GTX 1080's `--csv --print-gpu-trace --metrics all` and a
/// GTX 1070's `--metrics` in tests/fixtures/profilers; CUDA 7-9 printed it with, as the K20c's file).
pub fn notice(pid: u32, text: &str) -> String {
    if text.starts_with(REPLAY) { format!("{} {text}\n", tag(pid)) } else { format!("{} Warning: {text}\n", tag(pid)) }
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
        out.push_str(&trace::trace(p, v));
    }
    if show.api_trace {
        out.push_str(&trace::api_trace(p, v.opts.times, v.opts.csv));
    }
    if show.gpu_summary || show.api_summary {
        out.push_str(&summary::summary(p, v));
    }
    if !show.gpu_trace && v.counters.any() {
        out.push_str(&results::results(p, v, &t));
    }
    out
}

/// A CSV cell. nvprof quoted its text fields (and the context and stream ids) but not its numbers, and
/// left missing values empty (`245767.824000,3.264000,1,...,"NVIDIA GeForce GTX 1080 (0)","1","7",...`
/// in a GTX 1080's `--csv --print-gpu-trace`): a choice per field that a CSV writer's single quoting
/// style cannot make.
#[derive(Clone, Debug)]
enum Cell {
    Num(String),
    Text(String),
    Empty,
}

impl Cell {
    /// A metric's value in a CSV cell: bare, but a utilization level quoted, as nvprof wrote it (a
    /// GTX 1080 Ti's `"Low (1)"`).
    fn value(text: String, unit: &str) -> Cell {
        if unit == crate::metrics::LEVEL { Cell::Text(text) } else { Cell::Num(text) }
    }
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

/// A quoted CSV header.
fn header(names: &[&str]) -> String {
    csv_line(&names.iter().map(|n| Cell::Text(n.to_string())).collect::<Vec<_>>())
}

/// A record's GPU duration in ns.
fn duration_ns(r: &Record) -> Option<f64> {
    r.trace
        .as_ref()
        .and_then(|t| t.duration_ns)
        .map(|d| d as f64)
        .or_else(|| r.time_ms.as_ref().map(|t| t.median * 1e6))
}

fn metric_of<'a>(r: &'a Record, name: &str) -> Option<&'a Metric> {
    r.metrics.iter().find(|m| m.name == name)
}

/// The events, then the metrics, asked for: (name, unit).
fn counter_columns(v: View) -> Vec<(String, String)> {
    let mut cols: Vec<(String, String)> =
        v.counters.events.iter().map(|e| (e.name.clone(), metrics::COUNT.to_string())).collect();
    cols.extend(v.counters.metrics.iter().map(|m| (m.name.clone(), m.unit.clone())));
    cols
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
