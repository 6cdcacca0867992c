//! CSV: one row per configuration; grid and block split per axis; for every metric, in the order the
//! records name them, a value column (in the JSON's unit), a `_unit` and a `_source` column, so a
//! spreadsheet never loses where a value came from. A metric both measured and estimated gets two groups, `name_measured` and `name_estimated`.
//! Columns the records have no value for (NVML conditions, imports' signatures ...) are left out; every
//! other part of a record has a column, so [`parse`] reads a written file back to the same records.

use std::collections::HashMap;
use std::io::Write;

use crate::error::{Error, Result};
use crate::record::{
    ActivityKind, Conditions, Metric, Mismatch, Record, Report, Source, Status, TimeStats, Trace, Verification,
};
use crate::spec::Dim3;

/// A column beyond the fixed ones, written only when some record has a value for it.
struct Optional {
    name: &'static str,
    get: fn(&Record) -> Option<String>,
}

fn s<T: ToString>(v: Option<T>) -> Option<String> {
    v.map(|v| v.to_string())
}

/// The optional columns, in file order.
const OPTIONAL: &[Optional] = &[
    Optional { name: "max_abs_error", get: |r| s(r.verification.as_ref().map(|v| v.max_abs_error)) },
    Optional {
        name: "first_mismatch_buffer",
        get: |r| r.verification.as_ref().and_then(|v| v.first_mismatch.as_ref()).map(|m| m.buffer.clone()),
    },
    Optional {
        name: "first_mismatch_index",
        get: |r| s(r.verification.as_ref().and_then(|v| v.first_mismatch.as_ref()).map(|m| m.index)),
    },
    Optional {
        name: "first_mismatch_got",
        get: |r| s(r.verification.as_ref().and_then(|v| v.first_mismatch.as_ref()).map(|m| m.got)),
    },
    Optional {
        name: "first_mismatch_expected",
        get: |r| s(r.verification.as_ref().and_then(|v| v.first_mismatch.as_ref()).map(|m| m.expected)),
    },
    Optional {
        name: "time_samples_ms",
        get: |r| {
            r.time_ms.as_ref().filter(|t| !t.samples.is_empty()).map(|t| join(t.samples.iter().map(f64::to_string)))
        },
    },
    Optional { name: "device", get: |r| s(r.device) },
    Optional { name: "index", get: |r| s(r.index) },
    Optional { name: "sweep_size", get: |r| s(r.sweep_size) },
    Optional { name: "bound", get: |r| r.bound.clone() },
    Optional { name: "nvml_samples", get: |r| s(r.conditions.as_ref().map(|c| c.samples)) },
    Optional { name: "sm_clock_min_mhz", get: |r| s(r.conditions.as_ref().and_then(|c| c.sm_clock_mhz).map(|c| c[0])) },
    Optional { name: "sm_clock_max_mhz", get: |r| s(r.conditions.as_ref().and_then(|c| c.sm_clock_mhz).map(|c| c[1])) },
    Optional { name: "mem_clock_mhz", get: |r| s(r.conditions.as_ref().and_then(|c| c.mem_clock_mhz)) },
    Optional { name: "temperature_c", get: |r| s(r.conditions.as_ref().and_then(|c| c.temperature_c)) },
    Optional { name: "power_w", get: |r| s(r.conditions.as_ref().and_then(|c| c.power_w)) },
    Optional {
        name: "throttle",
        get: |r| r.conditions.as_ref().filter(|c| !c.throttle.is_empty()).map(|c| c.throttle.join(";")),
    },
    Optional { name: "params", get: |r| r.params.as_ref().map(|_| r.params_label().replace(", ", ";")) },
    Optional { name: "signature", get: |r| r.signature.clone() },
    Optional { name: "invocation", get: |r| s(r.invocation) },
    Optional { name: "summary_of", get: |r| s(r.summary_of) },
    // A profiled program's GPU activity (`warpscope nvprof`): the JSON's `trace`, field by field.
    Optional { name: "trace_kind", get: |r| r.trace.as_ref().map(|t| t.kind.as_str().to_string()) },
    Optional { name: "trace_pid", get: |r| s(r.trace.as_ref().map(|t| t.pid)) },
    Optional { name: "trace_start_ns", get: |r| s(r.trace.as_ref().and_then(|t| t.start_ns)) },
    Optional { name: "trace_duration_ns", get: |r| s(r.trace.as_ref().and_then(|t| t.duration_ns)) },
    Optional { name: "trace_context", get: |r| s(r.trace.as_ref().map(|t| t.context)) },
    Optional { name: "trace_stream", get: |r| s(r.trace.as_ref().map(|t| t.stream)) },
    Optional { name: "trace_correlation", get: |r| s(r.trace.as_ref().map(|t| t.correlation)) },
    Optional { name: "trace_registers", get: |r| s(r.trace.as_ref().and_then(|t| t.registers)) },
    Optional { name: "trace_static_smem", get: |r| s(r.trace.as_ref().and_then(|t| t.static_smem)) },
    Optional { name: "trace_dynamic_smem", get: |r| s(r.trace.as_ref().and_then(|t| t.dynamic_smem)) },
    Optional { name: "trace_bytes", get: |r| s(r.trace.as_ref().and_then(|t| t.bytes)) },
    Optional { name: "trace_src_kind", get: |r| r.trace.as_ref().and_then(|t| t.src_kind.clone()) },
    Optional { name: "trace_dst_kind", get: |r| r.trace.as_ref().and_then(|t| t.dst_kind.clone()) },
    Optional { name: "trace_symbol", get: |r| r.trace.as_ref().and_then(|t| t.symbol.clone()) },
    Optional { name: "trace_graph_node", get: |r| s(r.trace.as_ref().and_then(|t| t.graph_node)) },
];

/// The columns every file has, before the optional ones.
const FIXED: [&str; 20] = [
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
];

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(";")
}

fn axes(d: Option<Dim3>) -> [String; 3] {
    match d {
        Some(d) => [d.x.to_string(), d.y.to_string(), d.z.to_string()],
        None => Default::default(),
    }
}

pub(super) fn write(report: &Report, w: &mut dyn Write) -> Result<()> {
    let columns = super::table::columns_as_found(report);
    let optional: Vec<&Optional> =
        OPTIONAL.iter().filter(|c| report.records.iter().any(|r| (c.get)(r).is_some())).collect();
    let mut out = csv::Writer::from_writer(w);
    let err = |e: csv::Error| Error::Output(e.to_string());
    let mut header: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
    header.extend(optional.iter().map(|c| c.name.to_string()));
    for c in &columns {
        let n = if c.shared { format!("{}_{}", c.name, c.source.as_str()) } else { c.name.clone() };
        header.extend([n.clone(), format!("{n}_unit"), format!("{n}_source")]);
    }
    out.write_record(&header).map_err(err)?;
    for r in &report.records {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let t = r.time_ms.as_ref();
        let v = r.verification.as_ref();
        let mut row = vec![r.kernel.clone(), r.problem.clone()];
        row.extend(axes(r.grid));
        row.extend(axes(r.block));
        row.extend([
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
        ]);
        row.extend(optional.iter().map(|c| opt((c.get)(r))));
        let by_column: HashMap<(&str, Source), &Metric> =
            r.metrics.iter().map(|m| ((m.name.as_str(), m.source), m)).collect();
        for c in &columns {
            match by_column.get(&(c.name.as_str(), c.source)) {
                Some(m) => row.extend([m.value.to_string(), m.unit.clone(), m.source.as_str().to_string()]),
                None => row.extend([String::new(), String::new(), String::new()]),
            }
        }
        out.write_record(&row).map_err(err)?;
    }
    out.flush().map_err(|e| Error::Output(e.to_string()))
}

/// Whether `header` is the first line of a file [`write`] produced.
pub fn is_header<S: AsRef<str>>(fields: &[S]) -> bool {
    fields.len() >= FIXED.len() && fields.iter().zip(FIXED).all(|(a, b)| a.as_ref() == b)
}

/// One row of a warpscope CSV, its cells by column name.
struct Row<'a> {
    cells: &'a csv::StringRecord,
    at: &'a HashMap<&'a str, usize>,
    line: usize,
}

impl Row<'_> {
    fn text(&self, name: &str) -> Option<&str> {
        self.at.get(name).and_then(|&i| self.cells.get(i)).filter(|v| !v.is_empty())
    }

    fn num<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>> {
        self.text(name)
            .map(|v| v.parse().map_err(|_| Error::usage(format!("line {}: {name} '{v}' is not a number", self.line))))
            .transpose()
    }

    fn dim(&self, axis: &str) -> Result<Option<Dim3>> {
        let get = |c: &str| self.num::<u32>(&format!("{axis}_{c}"));
        Ok(match (get("x")?, get("y")?, get("z")?) {
            (Some(x), Some(y), Some(z)) => Some(Dim3::new(x, y, z)),
            _ => None,
        })
    }
}

/// A row's `trace_*` columns, where it has a `trace_kind`.
fn trace(row: &Row) -> Result<Option<Trace>> {
    let Some(kind) = row.text("trace_kind") else { return Ok(None) };
    let kind = [ActivityKind::Kernel, ActivityKind::Memcpy, ActivityKind::Memset]
        .into_iter()
        .find(|k| k.as_str() == kind)
        .ok_or_else(|| Error::usage(format!("line {}: unknown trace_kind '{kind}'", row.line)))?;
    Ok(Some(Trace {
        kind,
        pid: row.num("trace_pid")?.unwrap_or_default(),
        start_ns: row.num("trace_start_ns")?,
        duration_ns: row.num("trace_duration_ns")?,
        context: row.num("trace_context")?.unwrap_or_default(),
        stream: row.num("trace_stream")?.unwrap_or_default(),
        correlation: row.num("trace_correlation")?.unwrap_or_default(),
        registers: row.num("trace_registers")?,
        static_smem: row.num("trace_static_smem")?,
        dynamic_smem: row.num("trace_dynamic_smem")?,
        bytes: row.num("trace_bytes")?,
        src_kind: row.text("trace_src_kind").map(String::from),
        dst_kind: row.text("trace_dst_kind").map(String::from),
        symbol: row.text("trace_symbol").map(String::from),
        graph_node: row.num("trace_graph_node")?,
    }))
}

fn status(s: &str) -> Option<Status> {
    [Status::Ok, Status::Invalid, Status::Failed].into_iter().find(|x| x.as_str() == s)
}

fn source(s: &str) -> Option<Source> {
    [Source::Measured, Source::Estimated, Source::Mock, Source::Imported].into_iter().find(|x| x.as_str() == s)
}

/// The records of a file [`write`] produced (any other CSV is an error naming the line).
pub fn parse(text: &str) -> Result<Vec<Record>> {
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut rows = rdr.records();
    let bad = |line: usize, why: String| Error::usage(format!("line {line}: {why}"));
    let header: Vec<String> = match rows.next() {
        Some(h) => h.map_err(|e| bad(1, e.to_string()))?.iter().map(String::from).collect(),
        None => return Err(bad(1, "empty file".into())),
    };
    if !is_header(&header) {
        return Err(bad(1, "not a warpscope CSV header".into()));
    }
    let at: HashMap<&str, usize> = header.iter().enumerate().map(|(i, h)| (h.as_str(), i)).collect();
    // Metric groups: a column followed by its `_unit` and `_source` columns.
    let groups: Vec<(usize, &str)> = (0..header.len().saturating_sub(2))
        .filter(|&i| header[i + 1] == format!("{}_unit", header[i]) && header[i + 2] == format!("{}_source", header[i]))
        .map(|i| (i, header[i].as_str()))
        .collect();
    let mut out = Vec::new();
    for (n, cells) in rows.enumerate() {
        let line = n + 2;
        let cells = cells.map_err(|e| bad(line, e.to_string()))?;
        if cells.len() != header.len() {
            return Err(bad(line, format!("{} fields, the header has {}", cells.len(), header.len())));
        }
        let row = Row { cells: &cells, at: &at, line };
        let st = row.text("status").unwrap_or("");
        let mut r = Record::unshaped(
            row.text("kernel").unwrap_or(""),
            row.text("problem").unwrap_or(""),
            status(st).ok_or_else(|| bad(line, format!("unknown status '{st}'")))?,
        );
        r.grid = row.dim("grid")?;
        r.block = row.dim("block")?;
        r.reason = row.text("reason").map(String::from);
        if let Some(p) = row.text("params") {
            let pair = |kv: &str| {
                let (k, v) =
                    kv.split_once('=').ok_or_else(|| bad(line, format!("params '{p}': expected NAME=VALUE;...")))?;
                let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
                Ok((k.to_string(), value))
            };
            r.params = Some(p.split(';').map(pair).collect::<Result<_>>()?);
        }
        if let Some(median) = row.num::<f64>("time_median_ms")? {
            let f = |c: &str| row.num::<f64>(c).map(Option::unwrap_or_default);
            r.time_ms = Some(TimeStats {
                median,
                min: f("time_min_ms")?,
                max: f("time_max_ms")?,
                iters: row.num("iters")?.unwrap_or_default(),
                mean: f("time_mean_ms")?,
                stdev: f("time_stdev_ms")?,
                q1: f("time_q1_ms")?,
                q3: f("time_q3_ms")?,
                samples: match row.text("time_samples_ms") {
                    Some(v) => v
                        .split(';')
                        .map(|x| x.parse().map_err(|_| bad(line, format!("time sample '{x}' is not a number"))))
                        .collect::<Result<_>>()?,
                    None => Vec::new(),
                },
            });
        }
        if let Some(checked) = row.num("verified_elements")? {
            let first_mismatch = match row.text("first_mismatch_buffer") {
                Some(buffer) => Some(Mismatch {
                    buffer: buffer.to_string(),
                    index: row.num("first_mismatch_index")?.unwrap_or_default(),
                    got: row.num("first_mismatch_got")?.unwrap_or_default(),
                    expected: row.num("first_mismatch_expected")?.unwrap_or_default(),
                }),
                None => None,
            };
            r.verification = Some(Verification {
                checked,
                mismatches: row.num("mismatches")?.unwrap_or_default(),
                max_abs_error: row.num("max_abs_error")?.unwrap_or_default(),
                first_mismatch,
            });
        }
        r.device = row.num("device")?;
        r.index = row.num("index")?;
        r.sweep_size = row.num("sweep_size")?;
        r.bound = row.text("bound").map(String::from);
        if let Some(samples) = row.num("nvml_samples")? {
            r.conditions = Some(Conditions {
                samples,
                sm_clock_mhz: row.num("sm_clock_min_mhz")?.zip(row.num("sm_clock_max_mhz")?).map(|(a, b)| [a, b]),
                mem_clock_mhz: row.num("mem_clock_mhz")?,
                temperature_c: row.num("temperature_c")?,
                power_w: row.num("power_w")?,
                throttle: row.text("throttle").map(|t| t.split(';').map(String::from).collect()).unwrap_or_default(),
            });
        }
        r.signature = row.text("signature").map(String::from);
        r.invocation = row.num("invocation")?;
        r.summary_of = row.num("summary_of")?;
        r.trace = trace(&row)?;
        for &(i, column) in &groups {
            let Some(v) = cells.get(i).filter(|v| !v.is_empty()) else { continue };
            let src = &cells[i + 2];
            let source = source(src).ok_or_else(|| bad(line, format!("{column}: unknown source '{src}'")))?;
            let value = v.parse().map_err(|_| bad(line, format!("{column} '{v}' is not a number")))?;
            // `name_measured` / `name_estimated` when one metric has two sources.
            let shared = |base: &str| {
                groups.iter().filter(|(_, c)| c.strip_prefix(base).is_some_and(|s| s.starts_with('_'))).count() > 1
            };
            let name = column.strip_suffix(&format!("_{src}")).filter(|base| shared(base)).unwrap_or(column);
            r.metrics.push(Metric { name: name.to_string(), value, unit: cells[i + 1].to_string(), source });
        }
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::DeviceInfo;

    #[test]
    fn a_metric_with_two_sources_reads_back_under_its_name() {
        let mut rep = Report::new(DeviceInfo::unknown());
        let mut r = Record::new("k", "p", Dim3::new(2, 1, 1), Dim3::new(32, 4, 1), Status::Ok);
        for (name, source) in [
            ("achieved_occupancy", Source::Measured),
            ("achieved_occupancy", Source::Estimated),
            ("x_mock", Source::Mock),
        ] {
            r.metrics.push(Metric { name: name.into(), value: 0.5, unit: "ratio".into(), source });
        }
        r.signature = Some("void k<1>(int)".into());
        r.summary_of = Some(7);
        rep.records.push(r);
        rep.records.push(Record::unshaped("k", "p", Status::Failed));
        // A profiled program's copy, as `warpscope nvprof` records it.
        let mut copy = Record::unshaped("[CUDA memcpy HtoD]", "", Status::Ok);
        copy.invocation = Some(3);
        copy.trace = Some(Trace {
            kind: ActivityKind::Memcpy,
            pid: 694,
            start_ns: Some(1_200),
            duration_ns: Some(6_404_900),
            context: 1,
            stream: 7,
            correlation: 12,
            bytes: Some(40_000_000),
            src_kind: Some("Pageable".into()),
            dst_kind: Some("Device".into()),
            ..Trace::default()
        });
        rep.records.push(copy);
        let mut out = Vec::new();
        write(&rep, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("kernel,problem,grid_x"));
        assert!(text.lines().next().unwrap().contains(",achieved_occupancy_measured,"));
        assert!(text.lines().next().unwrap().contains(",trace_kind,trace_pid,"), "{text}");
        assert_eq!(parse(&text).unwrap(), rep.records);
        assert!(parse("kernel,problem\n").is_err());
    }
}
