//! What the pages say: a report's device and settings, its figures, the table of every record with the
//! provenance of each value, and its invalid and failed configurations; the pages of `compare`,
//! `compare --baseline`, and of several runs (run-spec's steps, a results folder).

use std::time::SystemTime;

use crate::baseline::Change;
use crate::compare::Comparison;
use crate::error::Result;
use crate::gpu::Origin;
use crate::record::{Record, Report, Source, Status, dims, paren};
use crate::report::figures::{self, Figure};
use crate::report::plot::{self, si};
use crate::report::table::{format_value, metric_columns};

use super::{Block, Cell, Page, Row, Section, Table, col, utc};

/// Where the records' values come from, in words.
fn backend_words(report: &Report) -> String {
    match report.device.backend {
        Origin::Cuda => "measured on the GPU (CUDA events, CUPTI counters)".into(),
        Origin::Mock => "the mock backend (no GPU: every value marked mock)".into(),
        Origin::Model => "warpscope's model (no GPU: every value estimated)".into(),
        other => format!("imported from {other}"),
    }
}

/// The device and the run's settings.
fn facts(report: &Report) -> Vec<(String, String)> {
    let d = &report.device;
    let mut f: Vec<(String, String)> = vec![
        ("device".into(), format!("{} (ordinal {})", d.name, d.ordinal)),
        ("values from".into(), backend_words(report)),
    ];
    let mut add = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            f.push((k.into(), v));
        }
    };
    add("compute capability", d.compute_capability.clone());
    add("SMs", d.sms.map(|n| n.to_string()));
    add("SM clock", d.sm_clock_mhz.map(|c| format!("{c} MHz")));
    add("memory clock", d.mem_clock_mhz.map(|c| format!("{c} MHz")));
    add("memory", d.memory_bytes.map(|b| format!("{} GiB", b / (1 << 30))));
    add("L2", d.l2_bytes.map(|b| format!("{} MiB", b as f64 / (1 << 20) as f64)));
    add("peak DRAM bandwidth", d.peak_bandwidth_gbs.map(|b| si::format(b, "GB/s")));
    add("driver", d.driver.clone());
    add("PCI bus", d.pci_bus_id.clone());
    add("power limit", d.power_limit_w.map(|w| format!("{w:.0} W")));
    add(
        "other devices",
        (!report.devices.is_empty()).then(|| {
            report.devices.iter().map(|d| format!("{} ({})", d.name, d.ordinal)).collect::<Vec<_>>().join(", ")
        }),
    );
    if let Some(t) = &report.timing {
        let mut s = format!("{} warm-up + {} timed launches per configuration", t.warmup, t.iters);
        if let Some(p) = t.until_noise_pct {
            s += &format!(", until the spread is under {p} %");
        }
        if t.cold {
            s += ", L2 flushed before each";
        }
        if t.interleave {
            s += ", configurations interleaved";
        }
        add("timing", Some(s));
    }
    add(
        "device-to-device memcpy",
        report
            .baselines
            .memcpy_dtod_gbs
            .as_ref()
            .map(|m| format!("{} ({})", si::format(m.value, &m.unit), m.source.as_str())),
    );
    add(
        "time model",
        report.model_fit.as_ref().map(|m| {
            let rho = m.spearman.map(|r| format!("{r:.3}")).unwrap_or_else(|| "n/a".into());
            format!(
                "median absolute error {:.1} % over {} configurations, Spearman {rho}",
                m.median_abs_error_pct, m.configs
            )
        }),
    );
    let count = |s: Status| report.records.iter().filter(|r| r.status == s).count();
    f.push((
        "records".into(),
        format!(
            "{} ({} ok, {} invalid, {} failed)",
            report.records.len(),
            count(Status::Ok),
            count(Status::Invalid),
            count(Status::Failed)
        ),
    ));
    f.push(("written by".into(), report.tool.clone()));
    f
}

/// Every source a record's values come from.
fn provenance(report: &Report, r: &Record) -> Vec<Source> {
    let mut s: Vec<Source> = Vec::new();
    let time = r.time_ms.as_ref().and_then(|_| figures::time_source(report, r));
    for src in time.into_iter().chain(r.metrics.iter().map(|m| m.source)) {
        if !s.contains(&src) {
            s.push(src);
        }
    }
    s
}

/// What opens under a record: its samples, the verification, the conditions it was timed in.
fn record_details(r: &Record) -> Option<(String, String)> {
    let mut body = Vec::new();
    let mut summary = String::new();
    if let Some(t) = r.time_ms.as_ref().filter(|t| !t.samples.is_empty()) {
        summary = format!("{} samples", t.samples.len());
        body.push(format!("samples (ms): {}", t.samples.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" ")));
        body.push(format!(
            "mean {} ms, stdev {} ms, q1 {} ms, q3 {} ms, spread {:.2} %",
            t.mean,
            t.stdev,
            t.q1,
            t.q3,
            t.iqr_pct()
        ));
    }
    if let Some(v) = &r.verification {
        body.push(format!("verification: {}, max |error| {}", v.summary(), v.max_abs_error));
    }
    if let Some(c) = &r.conditions {
        let mut s = format!("NVML: {} samples", c.samples);
        if let Some([lo, hi]) = c.sm_clock_mhz {
            s += &format!(", SM clock {lo}-{hi} MHz");
        }
        if let Some(t) = c.temperature_c {
            s += &format!(", up to {t} C");
        }
        if let Some(p) = c.power_w {
            s += &format!(", up to {p:.0} W");
        }
        if c.throttled() {
            s += &format!(", THROTTLED ({})", c.throttle.join(", "));
        }
        body.push(s);
    }
    if let Some(b) = &r.bound {
        body.push(format!("time model: {}-bound", b.replace('_', "-")));
    }
    if body.is_empty() {
        return None;
    }
    if summary.is_empty() {
        summary = "details".into();
    }
    Some((summary, body.join("\n")))
}

/// The table of every record of `report`: identity, status, provenance, time, each metric (a column per
/// name and source, as in the text table), reason and details.
pub fn records_table(report: &Report) -> Table {
    let columns_m = metric_columns(report);
    let timed = report.records.iter().any(|r| r.time_ms.is_some());
    let multi = report.records.iter().any(|r| r.device != report.records.first().and_then(|f| f.device));
    let mut columns =
        vec![col("#", "", true), col("kernel", "", false), col("problem", "", false), col("grid", "", false)];
    columns.push(col("block", "threads", true));
    if multi {
        columns.push(col("device", "", true));
    }
    columns.extend([col("status", "", false), col("provenance", "", false)]);
    if timed {
        let src = report.records.iter().find_map(|r| figures::time_source(report, r)).map(|s| s.as_str()).unwrap_or("");
        for what in ["median", "min", "max"] {
            columns.push(col(&format!("{what} time"), &format!("ms, {src}"), true));
        }
        columns.push(col("spread", "IQR, % of median", true));
    }
    for c in &columns_m {
        let unit = report.records.iter().find_map(|r| c.of(r)).map(figures::shown_unit).unwrap_or_default();
        let sub = if unit.is_empty() || unit == "count" {
            c.source.as_str().to_string()
        } else {
            format!("{unit}, {}", c.source.as_str())
        };
        columns.push(col(&c.name, &sub, true));
    }
    columns.extend([col("reason", "", false), col("details", "", false)]);

    let rows = report
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let prov = provenance(report, r);
            let mut cells = vec![
                Cell::num(r.index.map_or(i as f64, f64::from), r.index.map_or(i, |x| x as usize).to_string(), None),
                Cell::text(&r.kernel),
                Cell::text(&r.problem),
                Cell::text(paren(r.grid)),
                Cell::block(r.block),
            ];
            if multi {
                cells.push(r.device.map_or_else(|| Cell::text("-"), |d| Cell::num(d as f64, d.to_string(), None)));
            }
            cells.push(Cell::text(r.status.as_str()));
            cells.push(Cell::text(prov.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")));
            if timed {
                let src = figures::time_source(report, r);
                let t = r.time_ms.as_ref();
                let ms = |v: Option<f64>| match v {
                    Some(v) => Cell::num(v, format!("{v:.4}"), src),
                    None => Cell::text("-"),
                };
                cells.push(ms(t.map(|t| t.median)));
                cells.push(ms(t.map(|t| t.min)));
                cells.push(ms(t.map(|t| t.max)));
                cells.push(match t.filter(|t| t.q3 > 0.0) {
                    Some(t) => Cell::num(t.iqr_pct(), format!("{:.2}", t.iqr_pct()), src),
                    None => Cell::text("-"),
                });
            }
            for c in &columns_m {
                cells.push(match c.of(r) {
                    Some(m) => Cell::num(m.value, format_value(m), Some(m.source)),
                    None => Cell::text("-"),
                });
            }
            let reason = match (r.status, &r.reason, &r.verification) {
                (Status::Ok, _, Some(v)) => format!("verified: {}", v.summary()),
                (_, Some(why), _) => why.clone(),
                (s, None, _) => s.as_str().to_string(),
            };
            cells.push(Cell::text(reason));
            cells.push(Cell {
                details: record_details(r),
                ..Cell::text(if record_details(r).is_none() { "-" } else { "" })
            });
            Row {
                status: r.status.as_str().into(),
                provenance: prov.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "),
                cells,
            }
        })
        .collect();
    Table { columns, rows }
}

/// The invalid and failed configurations with their reasons.
fn problems(report: &Report) -> Vec<(String, String, String)> {
    report
        .records
        .iter()
        .filter(|r| r.status != Status::Ok)
        .map(|r| {
            (
                format!("{} {} {}", r.kernel, dims(r.block), r.problem).trim_end().to_string(),
                r.status.as_str().to_string(),
                r.reason.clone().unwrap_or_else(|| "no reason recorded".into()),
            )
        })
        .collect()
}

/// A figure's charts as inline SVG, with their titles as captions.
fn figure_block(fig: Figure) -> Result<Block> {
    let charts: Vec<(String, String)> = fig
        .charts
        .into_iter()
        .filter(|c| !c.is_empty())
        .map(|c| Ok((c.title().to_string(), plot::svg(&c)?)))
        .collect::<Result<_>>()?;
    if charts.is_empty() {
        return Ok(Block::Text(
            "No figure: no configuration has a value to draw (the invalid and failed ones are listed below).".into(),
        ));
    }
    Ok(Block::Figures(charts))
}

/// The sections of one report: device and settings, figures, records, problems.
pub fn report_sections(report: &Report, opts: &figures::Options) -> Result<Vec<Section>> {
    let fig = figures::report(report, opts);
    let mut sections = vec![
        Section { heading: "Device and settings".into(), blocks: vec![Block::Facts(facts(report))], sub: vec![] },
        Section { heading: format!("Figures: {}", fig.title), blocks: vec![figure_block(fig)?], sub: vec![] },
        Section {
            heading: "Records".into(),
            blocks: vec![
                Block::Text(
                    "Every configuration, in sweep order. Each value's source is tagged: measured (CUDA events, \
                     hardware counters), estimated (warpscope's model), imported (another profiler's file) or \
                     mock (the test backend). Open a row's details for its raw timing samples."
                        .into(),
                ),
                Block::Table(records_table(report)),
            ],
            sub: vec![],
        },
    ];
    let bad = problems(report);
    if !bad.is_empty() {
        sections.push(Section {
            heading: "Invalid and failed configurations".into(),
            blocks: vec![Block::Problems(bad)],
            sub: vec![],
        });
    }
    Ok(sections)
}

/// The page of one report: `what` says what ran (the command line).
pub fn report_page(report: &Report, opts: &figures::Options, what: &str) -> Result<Page> {
    Ok(Page {
        title: format!("warpscope: {}", figures::subject(report)),
        subtitle: format!("{what} — written {}", utc(SystemTime::now())),
        sections: report_sections(report, opts)?,
    })
}

/// One part of a page of several runs (a run-spec's steps, a results folder's files): a heading, what
/// to say first, and the report, if the part has one.
pub struct Part {
    /// Heading (the step or file name).
    pub heading: String,
    /// What comes first (what the step is, its command line, its printed output).
    pub intro: Vec<Block>,
    /// The part's records.
    pub report: Option<Report>,
}

/// A page of several runs, a section each.
pub fn parts_page(title: &str, subtitle: &str, parts: Vec<Part>, opts: &figures::Options) -> Result<Page> {
    let sections = parts
        .into_iter()
        .map(|p| {
            let sub = match &p.report {
                Some(r) => report_sections(r, opts)?,
                None => Vec::new(),
            };
            Ok(Section { heading: p.heading, blocks: p.intro, sub })
        })
        .collect::<Result<_>>()?;
    Ok(Page { title: title.into(), subtitle: subtitle.into(), sections })
}

/// The page of a comparison with another tool's file (or another warpscope run); `threshold_name` is
/// how the command names the threshold.
pub fn comparison_page(
    ours: &Report,
    theirs: &Report,
    cmp: &Comparison,
    (threshold, threshold_name): (Option<f64>, &str),
    names: [&str; 2],
    what: &str,
) -> Result<Page> {
    let [one, other] = names;
    // The second file's values: imported from another tool, or another warpscope run's own.
    let their_src = theirs
        .records
        .iter()
        .find_map(|r| figures::time_source(theirs, r).or_else(|| Some(r.metrics.first()?.source)))
        .unwrap_or(Source::Imported);
    let columns = vec![
        col("kernel", "", false),
        col("grid", "", false),
        col("block", "threads", true),
        col("metric", "", false),
        col("unit", "", false),
        col(one, "", true),
        col(&format!("{one} source"), "", false),
        col(other, their_src.as_str(), true),
        col("launches", "", true),
        col("delta", &format!("{one} - {other}"), true),
        col("delta", "relative %", true),
        col("judged", "points or %", true),
    ];
    let rows = cmp
        .rows
        .iter()
        .map(|r| {
            let src = match r.ours_source.as_str() {
                "estimated" => Some(Source::Estimated),
                "mock" => Some(Source::Mock),
                "imported" => Some(Source::Imported),
                _ => Some(Source::Measured),
            };
            let beyond = threshold.is_some_and(|t| r.delta.is_nan() || r.delta.abs() > t);
            Row {
                status: if beyond { "beyond".into() } else { "within".into() },
                provenance: format!("{} {}", src.map_or("", |s| s.as_str()), their_src.as_str()),
                cells: vec![
                    Cell::text(&r.kernel),
                    Cell::text(paren(r.grid)),
                    Cell::block(r.block),
                    Cell::text(&r.metric),
                    Cell::text(&r.unit),
                    Cell::num(r.ours, format!("{:.4}", r.ours), src),
                    Cell::text(&r.ours_source),
                    Cell::num(r.theirs, format!("{:.4}", r.theirs), Some(their_src)),
                    Cell::num(r.launches as f64, r.launches.to_string(), None),
                    Cell::num(r.abs_delta, format!("{:+.4}", r.abs_delta), None),
                    r.rel_delta_pct.map_or_else(|| Cell::text("-"), |v| Cell::num(v, format!("{v:+.2}"), None)),
                    Cell::num(r.delta, format!("{:+.2}", r.delta), None),
                ],
            }
        })
        .collect();
    let mut intro = vec![Block::Text(format!(
        "delta = {one} - {other}; percentages and occupancy in percentage points, other metrics relative to {other}'s value.{}",
        threshold.map(|t| format!(" Threshold ({threshold_name}): {t}.")).unwrap_or_default()
    ))];
    if !cmp.unmatched.is_empty() {
        intro.push(Block::Problems(
            cmp.unmatched.iter().map(|u| (u.clone(), "unmatched".into(), String::new())).collect(),
        ));
    }
    intro.push(Block::Table(Table { columns, rows }));
    let opts = figures::Options::default();
    let side = |heading: &str, r: &Report| -> Result<Section> {
        Ok(Section { heading: heading.into(), blocks: vec![], sub: report_sections(r, &opts)? })
    };
    Ok(Page {
        title: format!("{one} against {other}"),
        subtitle: format!("{what} — written {}", utc(SystemTime::now())),
        sections: vec![
            Section {
                heading: "Deltas".into(),
                blocks: vec![figure_block(figures::comparison(cmp, threshold, names))?],
                sub: vec![],
            },
            Section { heading: "Matched metrics".into(), blocks: intro, sub: vec![] },
            side(&format!("{one}'s records"), ours)?,
            side(&format!("{other}'s records"), theirs)?,
        ],
    })
}

/// The page of `compare --baseline`.
pub fn baseline_page(old: &Report, new: &Report, changes: &[Change], limit: Option<f64>, what: &str) -> Result<Page> {
    let columns = vec![
        col("kernel", "", false),
        col("problem", "", false),
        col("block", "threads", true),
        col("baseline", "ms", true),
        col("new", "ms", true),
        col("change", "%", true),
        col("noise", "%", true),
        col("verdict", "", false),
    ];
    let src = |r: &Report| figures::time_source(r, r.records.first()?);
    let rows = changes
        .iter()
        .map(|c| Row {
            status: c.verdict.as_str().into(),
            provenance: src(new).map_or(String::new(), |s| s.as_str().to_string()),
            cells: vec![
                Cell::text(&c.kernel),
                Cell::text(&c.problem),
                Cell::block(c.block),
                Cell::num(c.baseline_ms, format!("{:.4}", c.baseline_ms), src(old)),
                Cell::num(c.new_ms, format!("{:.4}", c.new_ms), src(new)),
                Cell::num(c.change_pct, format!("{:+.2}", c.change_pct), None),
                Cell::num(c.noise_pct, format!("{:.2}", c.noise_pct), None),
                Cell::text(c.verdict.as_str()),
            ],
        })
        .collect();
    let opts = figures::Options::default();
    Ok(Page {
        title: "warpscope: against the baseline".into(),
        subtitle: format!("{what} — written {}", utc(SystemTime::now())),
        sections: vec![
            Section {
                heading: "Changes".into(),
                blocks: vec![figure_block(figures::baseline(changes, limit))?, Block::Table(Table { columns, rows })],
                sub: vec![],
            },
            Section { heading: "New run".into(), blocks: vec![], sub: report_sections(new, &opts)? },
            Section { heading: "Baseline".into(), blocks: vec![], sub: report_sections(old, &opts)? },
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mock_sweep_page_has_every_part() {
        use crate::gpu::MockBackend;
        use crate::kernels::SumMatrix;
        let mut b = MockBackend::new(0).unwrap();
        let k = SumMatrix::new(256, 256).unwrap();
        let blocks = crate::spec::blocks_from(None, Some("32,64"), Some("1,32"), None).unwrap();
        let opts = crate::sweep::Options { iters: 4, model: true, ..crate::sweep::Options::default() };
        let report = crate::sweep::run(&mut b, &k, &blocks, &opts, &mut |_| {}).unwrap();
        let html =
            super::super::render(&report_page(&report, &figures::Options::default(), "warpscope sweep ...").unwrap());
        assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg") && html.contains("<details>"));
        // Self-contained: nothing is fetched (the SVG namespace is a name, not a fetch).
        assert!(
            !html.contains(" src=") && !html.contains(" href=") && !html.contains("url(") && !html.contains("<link")
        );
        assert!(html.contains("Invalid and failed configurations") && html.contains("64x32"));
        let prov = html.split("data-provenance=\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or("");
        assert_eq!(prov, "mock", "every value of a mock run is marked mock");
    }
}
