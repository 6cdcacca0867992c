//! `nvprof --csv`: the time summary, `--metrics` / `--events` tables (one row per kernel and value;
//! an events block before a metrics block merges per kernel), `--print-gpu-trace` (one row per
//! launch, a units row under the header), and the trace with metric columns; the Unified Memory
//! summary for the device it names. Headers are quoted, values may be bare
//! (`3,"flop_count_sp",...,9889546240`); a units row may give each column its own (`,%,ms,,us,us,ms,`).
//! A summary saved without any quotes (`Time(%),Time,...,Name` over `47.79%,542.36ms,...`) reads too:
//! a kernel name's commas are joined back into its column.

use crate::error::Result;
use crate::metrics;
use crate::record::Report;

use super::build::{Builder, Launch, dim};
use super::csvline;
use super::nvprof_values as nv;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Summary,
    Metrics,
    Events,
    Trace,
    MetricTrace,
    /// The Unified Memory summary: read for the device it names.
    UnifiedMemory,
}

fn kind<S: AsRef<str>>(h: &[S]) -> Option<Kind> {
    let h: Vec<&str> = h.iter().map(|s| s.as_ref()).collect();
    let tail = |p: &[&str]| h.ends_with(p) || h.starts_with(p);
    match h.as_slice() {
        ["Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"]
        | ["Time(%)", "Time", "Calls", "Avg", "Min", "Max", "Name"] => Some(Kind::Summary),
        ["Device", "Kernel", "Invocations", "Metric Name", "Metric Description", "Min", "Max", "Avg"] => {
            Some(Kind::Metrics)
        }
        ["Device", "Kernel", "Invocations", "Event Name", "Min", "Max", "Avg", ..] => Some(Kind::Events),
        ["Start", "Duration", ..] if h.contains(&"Name") => Some(Kind::Trace),
        ["Device", "Context", "Stream", "Kernel", ..] if tail(&["Device", "Context", "Stream", "Kernel"]) => {
            Some(Kind::MetricTrace)
        }
        ["Device", "Count", "Avg Size", "Min Size", "Max Size", ..] => Some(Kind::UnifiedMemory),
        _ => None,
    }
}

/// Whether `fields` is one of nvprof's CSV headers.
pub fn is_header<S: AsRef<str>>(fields: &[S]) -> bool {
    kind(fields).is_some()
}

/// Columns of the trace with metrics that name the launch rather than measure it.
const TRACE_IDS: &[&str] = &["Device", "Context", "Stream", "Kernel", "Correlation_ID"];

/// Reads nvprof's CSV output.
pub fn read(lines: &mut dyn Iterator<Item = Result<String>>) -> Result<Report> {
    let mut b = Builder::new(crate::gpu::Origin::Nvprof);
    let mut header: Option<(Kind, Vec<String>)> = None;
    // Whether the header came without quotes: then a name's commas split it into fields of its own.
    let mut bare = false;
    let mut units: Vec<String> = Vec::new();
    let mut pid = String::new();
    let mut sums = nv::Summaries::default();
    // Whether a trace without a grid column (the API trace) was read.
    let mut api_trace = false;
    // The device a per-GPU summary's next table is of (`--print-summary-per-gpu`).
    let mut summary_device: Option<u32> = None;
    for line in lines {
        let line = line?;
        if let Some(rest) = line.trim().strip_prefix("==")
            && let Some((id, msg)) = rest.split_once("==")
        {
            if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) {
                pid = id.to_string();
            }
            if msg.contains("Profiling result") {
                summary_device = None;
            }
            continue;
        }
        if let Some((name, ord)) = nv::device_line(line.trim()) {
            b.device(ord, &name, None);
            summary_device = Some(ord);
            continue;
        }
        if !line.contains(',') {
            continue;
        }
        let mut f = csvline::fields(&line);
        if let Some(k) = kind(&f) {
            api_trace |= k == Kind::Trace && !f.iter().any(|c| c == "Grid X");
            bare = !csvline::is_quoted(&line);
            header = Some((k, f));
            units.clear();
            continue;
        }
        let Some((k, h)) = &header else { continue };
        if bare && f.len() > h.len() {
            // An unquoted kernel name with commas in it (`red_sor(float*, float*, int)`): its pieces
            // join again in the name's column.
            let Some(at) = h.iter().position(|c| c == "Name" || c == "Kernel") else { continue };
            let extra = f.len() - h.len();
            let name = f.drain(at..=at + extra).collect::<Vec<_>>().join(",");
            f.insert(at, name);
        }
        if f.len() != h.len() {
            continue; // program output with commas
        }
        let at = |n: &str| h.iter().position(|c| c == n).map(|i| f[i].trim()).unwrap_or("");
        let unit = |n: &str| h.iter().position(|c| c == n).and_then(|i| units.get(i)).map(|s| s.trim()).unwrap_or("");
        // The units row: the column naming the row is empty.
        let id_col = match k {
            Kind::Summary | Kind::Trace => "Name",
            Kind::UnifiedMemory => "Device",
            _ => "Kernel",
        };
        if at(id_col).is_empty() {
            if units.is_empty() {
                units = f.clone();
            }
            continue;
        }
        match k {
            Kind::Summary => {
                if at("Type").to_ascii_lowercase().contains("api") || at("Name").starts_with('[') {
                    continue;
                }
                let t = |n: &str| nv::ms(at(n), unit(n));
                let (Some(total), Some(avg), Some(min), Some(max), Ok(calls)) =
                    (t("Time"), t("Avg"), t("Min"), t("Max"), at("Calls").parse::<u64>())
                else {
                    continue;
                };
                let pct = super::units::number(at("Time(%)")).map(|(p, _)| p);
                nv::add_times(sums.get(&pid, at("Name"), summary_device, calls), total, avg, min, max, pct);
            }
            Kind::Metrics | Kind::Events => {
                let (name, ord) = nv::device(at("Device"));
                if let Some(o) = ord {
                    b.device(o, &name, None);
                }
                let Ok(inv) = at("Invocations").parse::<u64>() else { continue };
                let metric = if *k == Kind::Metrics { at("Metric Name") } else { at("Event Name") };
                nv::add(sums.get(&pid, at("Kernel"), ord, inv), metric, at("Avg"), "", *k == Kind::Events);
            }
            Kind::Trace => {
                let n = |c: &str| at(c).parse::<u32>().ok();
                let (Some(gx), Some(bx)) = (n("Grid X"), n("Block X")) else { continue };
                let (name, ord) = nv::device(at("Device"));
                if !name.is_empty() {
                    b.device(ord.unwrap_or(0), &name, None);
                }
                let mut l = Launch {
                    name: nv::kernel_name(at("Name")).to_string(),
                    grid: dim(gx, n("Grid Y").unwrap_or(1), n("Grid Z").unwrap_or(1)),
                    block: dim(bx, n("Block Y").unwrap_or(1), n("Block Z").unwrap_or(1)),
                    device: ord,
                    ..Default::default()
                };
                if let Some(ms) = nv::ms(at("Duration"), unit("Duration")) {
                    l.add(metrics::DURATION, ms, metrics::MS);
                }
                if let Some((regs, _)) = super::units::number(at("Registers Per Thread")) {
                    l.add(super::ncu_map::REGISTERS, regs, "register/thread");
                }
                for (col, name) in
                    [("Static SMem", super::ncu_map::STATIC_SMEM), ("Dynamic SMem", super::ncu_map::DYNAMIC_SMEM)]
                {
                    if let Some(v) = nv::bytes(at(col), unit(col)) {
                        l.add(name, v, "byte");
                    }
                }
                b.push(l);
            }
            Kind::UnifiedMemory => {
                if let (name, Some(ord)) = nv::device(at("Device")) {
                    b.device(ord, &name, None);
                }
            }
            Kind::MetricTrace => {
                let (name, ord) = nv::device(at("Device"));
                if !name.is_empty() {
                    b.device(ord.unwrap_or(0), &name, None);
                }
                let mut l = Launch { name: at("Kernel").to_string(), device: ord, ..Default::default() };
                for (i, col) in h.iter().enumerate().filter(|(_, c)| !TRACE_IDS.contains(&c.as_str())) {
                    nv::add(&mut l, col, &f[i], units.get(i).map_or("", |u| u.as_str()), false);
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
    b.finish("nvprof CSV")
}
