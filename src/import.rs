//! Readers for other profilers' output: Nsight Compute CSV (`ncu --csv`, default page and `--page raw`)
//! and nvprof CSV (`nvprof --csv --metrics ...`, summary or `--print-gpu-trace`). Lines that are not CSV
//! (`==PROF==`, `==1234==`, the profiled program's own output) are skipped. Values become warpscope
//! records marked `imported`, with Nsight Compute metrics converted to nvprof names where the catalogue
//! maps them.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::gpu::DeviceInfo;
use crate::metrics::{self, Formula};
use crate::model::arch;
use crate::record::{Metric, Record, Report, Source, Status};
use crate::spec::Dim3;

/// Which tool and page a file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ncu --csv` (one row per metric).
    NcuLong,
    /// `ncu --csv --page raw` (one row per launch, a units row under the header).
    NcuRaw,
    /// `nvprof --csv --metrics ...` summary (one row per kernel and metric, no launch shape).
    NvprofSummary,
    /// `nvprof --csv --print-gpu-trace --metrics ...` (one row per launch).
    NvprofTrace,
}

/// The CSV lines of a profiler's output (those starting with a quote), without the tool's and the
/// program's other lines.
fn csv_lines(text: &str) -> String {
    text.lines().filter(|l| l.trim_start().starts_with('"')).collect::<Vec<_>>().join("\n")
}

/// A number as profilers print it: thousands separators, an optional unit glued on (`35.908GB/s`,
/// `100.00%`); `n/a` and empty are `None`.
pub fn parse_number(s: &str) -> Option<(f64, String)> {
    let t = s.trim().replace(',', "");
    if t.is_empty() || t.eq_ignore_ascii_case("n/a") {
        return None;
    }
    let end = t.find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c))).unwrap_or(t.len());
    // "1e" followed by a unit letter is not an exponent: back off to the last digit.
    let (mut num, mut unit) = t.split_at(end);
    while !num.is_empty() && num.parse::<f64>().is_err() {
        let cut = num.len() - 1;
        (num, unit) = t.split_at(cut);
    }
    num.parse::<f64>().ok().map(|v| (v, unit.trim().to_string()))
}

/// Scale of a unit to warpscope's base units (bytes, bytes/s, ns, plain counts, %).
fn unit_scale(unit: &str) -> f64 {
    let u = unit.trim();
    let (mag, rest) = match u.chars().next() {
        Some('K') if u.len() > 1 => (1e3, &u[1..]),
        Some('M') if u.len() > 1 && !u.starts_with("ms") => (1e6, &u[1..]),
        Some('G') if u.len() > 1 => (1e9, &u[1..]),
        Some('T') if u.len() > 1 => (1e12, &u[1..]),
        _ => (1.0, u),
    };
    match rest {
        "ns" | "nsecond" => 1.0,
        "us" | "usecond" => 1e3,
        "ms" | "msecond" => 1e6,
        "s" | "second" => 1e9,
        _ => mag,
    }
}

/// Kernel name without its parameter list or return type: `void foo<int>(float*)` -> `foo<int>`.
pub fn base_name(name: &str) -> String {
    let head = name.split('(').next().unwrap_or(name).trim();
    head.rsplit(' ').next().unwrap_or(head).to_string()
}

/// `(32, 16, 1)` -> Dim3.
fn parse_dim3(s: &str) -> Option<Dim3> {
    let v: Vec<u32> = s
        .trim()
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    match v.as_slice() {
        [x, y, z] => Some(Dim3::new(*x, *y, *z)),
        [x, y] => Some(Dim3::new(*x, *y, 1)),
        [x] => Some(Dim3::new(*x, 1, 1)),
        _ => None,
    }
}

/// Turns Nsight Compute counter values (base units) into metrics: catalogue entries whose counters are
/// all present become nvprof-named metrics; every other counter is kept under its own name.
fn ncu_metrics(values: &Values) -> Vec<Metric> {
    let mut out = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for d in metrics::CATALOGUE.iter().filter(|d| d.formula != Formula::None) {
        let got: Option<Vec<f64>> = d.counters.iter().map(|c| values.get(*c).map(|v| v.0)).collect();
        if let Some(got) = got {
            let req = metrics::Requested {
                name: d.name.into(),
                counters: Vec::new(),
                formula: d.formula,
                unit: d.unit.into(),
            };
            out.push(Metric {
                name: d.name.into(),
                value: req.value(&got),
                unit: d.unit.into(),
                source: Source::Imported,
            });
            used.extend(d.counters.iter().map(|c| c.to_string()));
        }
    }
    if let Some((v, _)) = values.get("sm__maximum_warps_per_active_cycle_pct") {
        out.push(Metric {
            name: metrics::THEORETICAL_OCCUPANCY.into(),
            value: v / 100.0,
            unit: metrics::RATIO.into(),
            source: Source::Imported,
        });
        used.insert("sm__maximum_warps_per_active_cycle_pct".into());
    }
    for (name, (v, unit)) in values {
        if !used.contains(name) {
            out.push(Metric { name: name.clone(), value: *v, unit: unit.clone(), source: Source::Imported });
        }
    }
    out
}

fn record(kernel: &str, grid: Dim3, block: Dim3, metrics: Vec<Metric>) -> Record {
    Record { metrics, ..Record::new(&base_name(kernel), "", grid, block, Status::Ok) }
}

fn device(tool: &str, name: &str, cc: Option<&str>) -> DeviceInfo {
    let a = cc.and_then(|c| arch::parse_arch(c).ok()).unwrap_or(&arch::ARCHS[0]);
    let name = if name.is_empty() { format!("{tool} import") } else { name.to_string() };
    DeviceInfo::offline(name, cc.unwrap_or("0.0").to_string(), tool, a)
}

type Rows = Vec<BTreeMap<String, String>>;
/// Counter values of one launch: name -> (value in base units, unit as printed).
type Values = BTreeMap<String, (f64, String)>;

/// Parses one CSV line into fields.
fn fields(line: &str) -> Option<Vec<String>> {
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).from_reader(line.as_bytes());
    rdr.records().next()?.ok().map(|r| r.iter().map(String::from).collect())
}

/// The header (the first quoted line a format is recognised in) and the rows under it: quoted lines
/// with the header's field count; anything else (tool banners, the program's output) is skipped.
fn read_rows(text: &str) -> Result<(Vec<String>, Kind, Rows)> {
    let lines = csv_lines(text);
    let mut it = lines.lines();
    let mut first_seen: Option<Vec<String>> = None;
    let (header, kind) = loop {
        let Some(line) = it.next() else {
            let seen = first_seen
                .map(|h| format!(" (first quoted line: {:?})", h.iter().take(6).collect::<Vec<_>>()))
                .unwrap_or_default();
            return Err(Error::usage(format!("no ncu --csv (default or raw page) or nvprof --csv header found{seen}")));
        };
        if let Some(h) = fields(line) {
            if let Ok(kind) = detect(&h) {
                break (h, kind);
            }
            first_seen.get_or_insert(h);
        }
    };
    // Concatenated files repeat their header: those rows are not data.
    let rows = it
        .filter_map(fields)
        .filter(|f| f.len() == header.len() && *f != header)
        .map(|f| header.iter().cloned().zip(f).collect())
        .collect();
    Ok((header, kind, rows))
}

/// Which format `header` is.
fn detect(header: &[String]) -> std::result::Result<Kind, ()> {
    let has = |c: &str| header.iter().any(|h| h == c);
    if has("Metric Name") && has("Metric Value") && has("Kernel Name") {
        Ok(Kind::NcuLong)
    } else if has("Kernel Name") && has("Block Size") && has("Grid Size") {
        Ok(Kind::NcuRaw)
    } else if has("Metric Name") && has("Avg") && has("Kernel") {
        Ok(Kind::NvprofSummary)
    } else if has("Grid X") && has("Block X") && has("Name") {
        Ok(Kind::NvprofTrace)
    } else {
        Err(())
    }
}

/// Reads a profiler's CSV output into a report of imported records.
pub fn parse(text: &str) -> Result<(Kind, Report)> {
    let (_, kind, rows) = read_rows(text)?;
    let mut records = Vec::new();
    let mut dev = device(if matches!(kind, Kind::NcuLong | Kind::NcuRaw) { "ncu" } else { "nvprof" }, "", None);
    let get = |r: &BTreeMap<String, String>, k: &str| r.get(k).cloned().unwrap_or_default();
    match kind {
        Kind::NcuLong => {
            // Group the metric rows of each launch (ID), keeping file order.
            let mut order: Vec<String> = Vec::new();
            let mut by_id: BTreeMap<String, (BTreeMap<String, String>, Values)> = BTreeMap::new();
            for r in &rows {
                // IDs restart in every profiled process: a launch is (process, ID).
                let id = format!("{}/{}", get(r, "Process ID"), get(r, "ID"));
                if !by_id.contains_key(&id) {
                    order.push(id.clone());
                }
                let entry = by_id.entry(id).or_insert_with(|| (r.clone(), BTreeMap::new()));
                if let Some((v, glued)) = parse_number(&get(r, "Metric Value")) {
                    let unit = if glued.is_empty() { get(r, "Metric Unit") } else { glued };
                    entry.1.insert(get(r, "Metric Name"), (v * unit_scale(&unit), unit));
                }
            }
            if let Some(first) = rows.first() {
                dev = device("ncu", "", Some(&get(first, "CC")).filter(|c| !c.is_empty()).map(|s| s.as_str()));
            }
            for id in order {
                let (r, values) = &by_id[&id];
                let (Some(grid), Some(block)) = (parse_dim3(&get(r, "Grid Size")), parse_dim3(&get(r, "Block Size")))
                else {
                    return Err(Error::usage(format!("ncu row {id}: unreadable Grid Size / Block Size")));
                };
                records.push(record(&get(r, "Kernel Name"), grid, block, ncu_metrics(values)));
            }
        }
        Kind::NcuRaw => {
            // The first data row under the header holds the units.
            let (units, data) = match rows.split_first() {
                Some((u, d)) if get(u, "ID").is_empty() => (u.clone(), d),
                _ => (BTreeMap::new(), &rows[..]),
            };
            if let Some(first) = data.first() {
                let name = get(first, "device__attribute_display_name");
                dev = device("ncu", &name, Some(&get(first, "CC")).filter(|c| !c.is_empty()).map(|s| s.as_str()));
            }
            for r in data {
                let mut values = BTreeMap::new();
                // Metric columns only: the raw page also carries device attributes, launch parameters
                // and the profiler's own bookkeeping.
                const NOT_METRICS: [&str; 6] =
                    ["device__", "launch__", "nvlink__", "numa__", "profiler__", "c2clink__"];
                let is_metric = |k: &str| k.contains("__") && !NOT_METRICS.iter().any(|p| k.starts_with(p));
                for (k, v) in r.iter().filter(|(k, _)| is_metric(k)) {
                    if let Some((x, glued)) = parse_number(v) {
                        let unit = if glued.is_empty() { get(&units, k) } else { glued };
                        values.insert(k.clone(), (x * unit_scale(&unit), unit));
                    }
                }
                let (Some(grid), Some(block)) = (parse_dim3(&get(r, "Grid Size")), parse_dim3(&get(r, "Block Size")))
                else {
                    return Err(Error::usage(format!("ncu row {}: unreadable Grid Size / Block Size", get(r, "ID"))));
                };
                records.push(record(&get(r, "Kernel Name"), grid, block, ncu_metrics(&values)));
            }
        }
        Kind::NvprofSummary => {
            let mut order: Vec<String> = Vec::new();
            let mut by_kernel: BTreeMap<String, Vec<Metric>> = BTreeMap::new();
            for r in &rows {
                let k = get(r, "Kernel");
                if !by_kernel.contains_key(&k) {
                    order.push(k.clone());
                }
                dev = device("nvprof", get(r, "Device").trim(), None);
                let name = get(r, "Metric Name");
                if let Some((v, glued)) = parse_number(&get(r, "Avg")) {
                    by_kernel.entry(k).or_default().push(nvprof_metric(&name, v, &glued));
                } else {
                    by_kernel.entry(k).or_default();
                }
            }
            for k in order {
                records.push(record(
                    &k,
                    Dim3::new(0, 0, 0),
                    Dim3::new(0, 0, 0),
                    by_kernel.remove(&k).unwrap_or_default(),
                ));
            }
        }
        Kind::NvprofTrace => {
            let fixed = [
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
                "SM",
            ];
            let (units, data) = match rows.split_first() {
                Some((u, d)) if get(u, "Name").is_empty() => (u.clone(), d),
                _ => (BTreeMap::new(), &rows[..]),
            };
            for r in data.iter().filter(|r| !get(r, "Grid X").is_empty()) {
                let n = |k: &str| get(r, k).trim().parse::<u32>().unwrap_or(0);
                let grid = Dim3::new(n("Grid X"), n("Grid Y"), n("Grid Z"));
                let block = Dim3::new(n("Block X"), n("Block Y"), n("Block Z"));
                dev = device("nvprof", get(r, "Device").trim(), None);
                let mut ms = Vec::new();
                if let Some((v, glued)) = parse_number(&get(r, "Duration")) {
                    let unit = if glued.is_empty() { get(&units, "Duration") } else { glued };
                    ms.push(Metric {
                        name: metrics::DURATION.into(),
                        value: v * unit_scale(&unit) / 1e6,
                        unit: metrics::MS.into(),
                        source: Source::Imported,
                    });
                }
                for (k, v) in r.iter().filter(|(k, _)| !fixed.contains(&k.as_str())) {
                    if let Some((x, glued)) = parse_number(v) {
                        let unit = if glued.is_empty() { get(&units, k) } else { glued };
                        ms.push(nvprof_metric(k, x, &unit));
                    }
                }
                records.push(record(&get(r, "Name"), grid, block, ms));
            }
        }
    }
    if records.is_empty() {
        return Err(Error::usage("the file has a profiler header but no data rows"));
    }
    let mut report = Report::new(dev);
    report.records = records;
    Ok((kind, report))
}

/// An nvprof value in nvprof's unit (`35.908GB/s` -> 35.908 GB/s; `100.00%` -> 100 %; plain ratios stay).
fn nvprof_metric(name: &str, v: f64, unit: &str) -> Metric {
    let catalogued = metrics::lookup(name).map(|d| d.unit);
    let (value, unit) = match unit.trim() {
        u if u.ends_with("B/s") => {
            let scale = match u.trim_end_matches("B/s") {
                "K" => 1e3,
                "M" => 1e6,
                "G" => 1e9,
                "T" => 1e12,
                _ => 1.0,
            };
            (v * scale / 1e9, metrics::GBPS.to_string())
        }
        "%" => (v, metrics::PCT.to_string()),
        "" => (v, catalogued.unwrap_or("").to_string()),
        u => (v, u.to_string()),
    };
    Metric { name: name.to_string(), value, unit, source: Source::Imported }
}

/// Reads a file (one-line error naming the file on failure).
pub fn read_file(path: &std::path::Path) -> Result<(Kind, Report)> {
    let text = std::fs::read(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    parse(&String::from_utf8_lossy(&text)).map_err(|e| Error::usage(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_profilers_print_them() {
        assert_eq!(parse_number("1,227,008"), Some((1_227_008.0, String::new())));
        assert_eq!(parse_number("35.908GB/s"), Some((35.908, "GB/s".into())));
        assert_eq!(parse_number("100.00%"), Some((100.0, "%".into())));
        assert_eq!(parse_number("1.5e3"), Some((1500.0, String::new())));
        assert_eq!(parse_number("2e"), Some((2.0, "e".into())));
        assert_eq!(parse_number("n/a"), None);
        assert_eq!(parse_number(""), None);
        assert_eq!(parse_number("abc"), None);
    }

    #[test]
    fn units_scale_to_base() {
        assert_eq!(unit_scale("byte/s"), 1.0);
        assert_eq!(unit_scale("Gbyte/second"), 1e9);
        assert_eq!(unit_scale("Tbyte/s"), 1e12);
        assert_eq!(unit_scale("usecond"), 1e3);
        assert_eq!(unit_scale("ms"), 1e6);
        assert_eq!(unit_scale("msecond"), 1e6);
        assert_eq!(unit_scale("%"), 1.0);
        assert_eq!(unit_scale("Ksector"), 1e3);
    }

    #[test]
    fn kernel_names_lose_their_signatures() {
        assert_eq!(base_name("sumMatrixOnGPU2D(float*, float*, float*, int, int)"), "sumMatrixOnGPU2D");
        assert_eq!(base_name("void transpose<32>(float const*, float*)"), "transpose<32>");
        assert_eq!(base_name("rgbToGray"), "rgbToGray");
    }

    #[test]
    fn nvprof_units_become_warpscope_units() {
        let m = nvprof_metric("gld_throughput", 35.908, "GB/s");
        assert_eq!((m.value, m.unit.as_str()), (35.908, "GB/s"));
        let m = nvprof_metric("gst_throughput", 512.0, "MB/s");
        assert!((m.value - 0.512).abs() < 1e-12);
        assert_eq!(nvprof_metric("gld_efficiency", 49.96, "%").unit, "%");
        assert_eq!(nvprof_metric("achieved_occupancy", 0.5, "").unit, "ratio");
    }
}
