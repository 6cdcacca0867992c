//! The self-contained HTML report (`--html FILE`, `warpscope report`): one file with no external
//! resources — the run's device and settings, its figures inline as SVG, a table of every record with
//! the provenance of each value (measured, estimated, imported, mock), each invalid or failed
//! configuration with its reason, and the raw timing samples of each configuration on demand
//! (`<details>`). It reads whole without JavaScript; a small inline script sorts and filters the
//! tables. The markup is also well-formed XML, so that tests read it back with an XML parser.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::baseline::Change;
use crate::compare::Comparison;
use crate::error::Result;
use crate::record::{Record, Report, Source, Status};

use super::figures::{self, Figure};
use super::plot::{self, si};
use super::table::{format_value, metric_columns};

const CSS: &str = include_str!("assets/report.css");
const JS: &str = include_str!("assets/report.js");

/// A node of the page.
enum Node {
    /// An element: name, attributes, children.
    El(&'static str, Vec<(&'static str, String)>, Vec<Node>),
    /// Text (escaped when written).
    Text(String),
    /// Markup written as it is (the SVG figures, the style sheet and the script).
    Raw(String),
}

/// An element.
fn el(name: &'static str, attrs: Vec<(&'static str, String)>, children: Vec<Node>) -> Node {
    Node::El(name, attrs, children)
}

/// An element holding text only.
fn txt(name: &'static str, attrs: Vec<(&'static str, String)>, text: impl Into<String>) -> Node {
    Node::El(name, attrs, vec![Node::Text(text.into())])
}

/// `&`, `<`, `>`, `"` and `'` escaped (text and attribute values alike).
fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// Elements HTML writes without an end tag.
const VOID: &[&str] = &["meta", "input", "br", "hr"];

impl Node {
    fn write(&self, out: &mut String) {
        match self {
            Node::Text(t) => escape(t, out),
            Node::Raw(r) => out.push_str(r),
            Node::El(name, attrs, children) => {
                out.push('<');
                out.push_str(name);
                for (k, v) in attrs {
                    out.push(' ');
                    out.push_str(k);
                    out.push_str("=\"");
                    escape(v, out);
                    out.push('"');
                }
                if VOID.contains(name) {
                    out.push_str("/>");
                    return;
                }
                out.push('>');
                for c in children {
                    c.write(out);
                }
                out.push_str("</");
                out.push_str(name);
                out.push('>');
                if matches!(*name, "tr" | "section" | "figure" | "li" | "div" | "p" | "table" | "thead" | "tbody") {
                    out.push('\n');
                }
            }
        }
    }
}

/// One value of a table cell: what is shown, the number it stands for (sorting, reading back), the
/// source it comes from, and what opens under it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// Text shown.
    pub text: String,
    /// The exact value (`data-value`), for sorting and for reading the page back.
    pub value: Option<f64>,
    /// Where the value comes from (`src-...` class).
    pub source: Option<Source>,
    /// A `<details>` block: summary and body.
    pub details: Option<(String, String)>,
}

impl Cell {
    fn text(t: impl Into<String>) -> Self {
        Cell { text: t.into(), ..Cell::default() }
    }

    fn num(v: f64, text: String, source: Option<Source>) -> Self {
        Cell { text, value: Some(v), source, details: None }
    }
}

/// A table column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Header.
    pub label: String,
    /// A second header line (unit and source).
    pub sub: String,
    /// Numbers, right-aligned.
    pub numeric: bool,
}

fn col(label: &str, sub: &str, numeric: bool) -> Column {
    Column { label: label.into(), sub: sub.into(), numeric }
}

/// A row: its status and provenance (for the filters), and its cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `ok`, `invalid`, `failed` (or a comparison's own words).
    pub status: String,
    /// The sources of its values, space-separated.
    pub provenance: String,
    /// One cell per column.
    pub cells: Vec<Cell>,
}

/// A sortable, filterable table.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows.
    pub rows: Vec<Row>,
}

/// A part of a section.
pub enum Block {
    /// Name-value pairs (device, settings).
    Facts(Vec<(String, String)>),
    /// A paragraph.
    Text(String),
    /// Preformatted text (a command's printed output).
    Pre(String),
    /// Figures: (caption, SVG).
    Figures(Vec<(String, String)>),
    /// A table of records.
    Table(Table),
    /// Configurations that did not run or did not verify: (configuration, status, reason).
    Problems(Vec<(String, String, String)>),
}

/// A titled part of the page, with its own parts nested under it.
pub struct Section {
    /// Heading.
    pub heading: String,
    /// Contents.
    pub blocks: Vec<Block>,
    /// Subsections.
    pub sub: Vec<Section>,
}

/// A whole page.
pub struct Page {
    /// Title (and first heading).
    pub title: String,
    /// The line under it.
    pub subtitle: String,
    /// Sections.
    pub sections: Vec<Section>,
}

/// `YYYY-MM-DD HH:MM UTC` of a time (the civil calendar from days since 1970, proleptic Gregorian).
pub fn utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}

/// Where the records' values come from, in words.
fn backend_words(report: &Report) -> String {
    match report.device.backend.as_str() {
        "cuda" => "measured on the GPU (CUDA events, CUPTI counters)".into(),
        "mock" => "the mock backend (no GPU: every value marked mock)".into(),
        "model" => "warpscope's model (no GPU: every value estimated)".into(),
        other => format!("imported from {other}"),
    }
}

/// The device and the run's settings.
fn facts(report: &Report) -> Vec<(String, String)> {
    let d = &report.device;
    let mut f: Vec<(String, String)> = vec![
        ("device".into(), format!("{} (ordinal {})", d.name, d.ordinal)),
        ("compute capability".into(), d.compute_capability.clone()),
        ("values from".into(), backend_words(report)),
    ];
    let mut add = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            f.push((k.into(), v));
        }
    };
    add("SMs", (d.sms > 0).then(|| d.sms.to_string()));
    add("SM clock", d.sm_clock_mhz.map(|c| format!("{c} MHz")));
    add("memory clock", d.mem_clock_mhz.map(|c| format!("{c} MHz")));
    add("memory", (d.memory_bytes > 0).then(|| format!("{} GiB", d.memory_bytes / (1 << 30))));
    add("L2", (d.l2_bytes > 0).then(|| format!("{} MiB", d.l2_bytes as f64 / (1 << 20) as f64)));
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
                Cell::text(r.grid.paren()),
                Cell::num(r.block.volume() as f64, r.block.to_string(), None),
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
                format!("{} {} {}", r.kernel, r.block, r.problem).trim_end().to_string(),
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

/// The page of a comparison with another tool's file (or another warpscope run).
pub fn comparison_page(
    ours: &Report,
    theirs: &Report,
    cmp: &Comparison,
    threshold: Option<f64>,
    other: &str,
    what: &str,
) -> Result<Page> {
    let columns = vec![
        col("kernel", "", false),
        col("grid", "", false),
        col("block", "threads", true),
        col("metric", "", false),
        col("unit", "", false),
        col("warpscope", "", true),
        col("warpscope source", "", false),
        col(other, "imported", true),
        col("launches", "", true),
        col("delta", "warpscope - other", true),
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
                provenance: format!("{} imported", src.map_or("", |s| s.as_str())),
                cells: vec![
                    Cell::text(&r.kernel),
                    Cell::text(r.grid.paren()),
                    Cell::num(r.block.volume() as f64, r.block.to_string(), None),
                    Cell::text(&r.metric),
                    Cell::text(&r.unit),
                    Cell::num(r.ours, format!("{:.4}", r.ours), src),
                    Cell::text(&r.ours_source),
                    Cell::num(r.theirs, format!("{:.4}", r.theirs), Some(Source::Imported)),
                    Cell::num(r.launches as f64, r.launches.to_string(), None),
                    Cell::num(r.abs_delta, format!("{:+.4}", r.abs_delta), None),
                    r.rel_delta_pct.map_or_else(|| Cell::text("-"), |v| Cell::num(v, format!("{v:+.2}"), None)),
                    Cell::num(r.delta, format!("{:+.2}", r.delta), None),
                ],
            }
        })
        .collect();
    let mut intro = vec![Block::Text(format!(
        "delta = warpscope - {other}; percentages and occupancy in percentage points, other metrics relative to {other}'s value.{}",
        threshold.map(|t| format!(" Threshold (--fail-above): {t}.")).unwrap_or_default()
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
        title: format!("warpscope against {other}"),
        subtitle: format!("{what} — written {}", utc(SystemTime::now())),
        sections: vec![
            Section {
                heading: "Deltas".into(),
                blocks: vec![figure_block(figures::comparison(cmp, threshold, other))?],
                sub: vec![],
            },
            Section { heading: "Matched metrics".into(), blocks: intro, sub: vec![] },
            side("warpscope's records", ours)?,
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
                Cell::num(c.block.volume() as f64, c.block.to_string(), None),
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

/// A `(block, status, reason)` list.
fn problem_list(items: &[(String, String, String)]) -> Node {
    el(
        "ul",
        vec![("class", "problems".into())],
        items
            .iter()
            .map(|(what, status, why)| {
                let mut li = vec![txt("strong", vec![], what.clone()), Node::Text(format!(" {status}"))];
                if !why.is_empty() {
                    li.push(Node::Text(format!(": {why}")));
                }
                el("li", vec![("class", status.clone())], li)
            })
            .collect(),
    )
}

fn number_text(v: f64) -> String {
    // Rust's shortest form that reads back to the same f64.
    format!("{v}")
}

fn table_node(t: &Table, id: &str) -> Vec<Node> {
    let statuses = {
        let mut s: Vec<&str> = t.rows.iter().map(|r| r.status.as_str()).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let sources = {
        let mut s: Vec<&str> = t.rows.iter().flat_map(|r| r.provenance.split_whitespace()).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let select = |class: &str, label: &str, options: &[&str]| {
        let mut opts = vec![txt("option", vec![("value", String::new())], "all")];
        opts.extend(options.iter().map(|o| txt("option", vec![("value", o.to_string())], *o)));
        el("label", vec![], vec![Node::Text(format!("{label} ")), el("select", vec![("class", class.into())], opts)])
    };
    let controls = el(
        "div",
        vec![("class", "controls".into()), ("data-for", id.into()), ("hidden", "hidden".into())],
        vec![
            el(
                "label",
                vec![],
                vec![
                    Node::Text("Filter ".into()),
                    el(
                        "input",
                        vec![
                            ("type", "search".into()),
                            ("class", "filter".into()),
                            ("placeholder", "words that every row shown contains".into()),
                        ],
                        vec![],
                    ),
                ],
            ),
            select("status", "Status", &statuses),
            select("provenance", "Provenance", &sources),
            txt("span", vec![("class", "count".into())], ""),
        ],
    );
    let head = el(
        "tr",
        vec![],
        t.columns
            .iter()
            .map(|c| {
                let mut kids = vec![Node::Text(c.label.clone())];
                if !c.sub.is_empty() {
                    kids.push(txt("small", vec![], c.sub.clone()));
                }
                el("th", vec![("scope", "col".into())], kids)
            })
            .collect(),
    );
    let body: Vec<Node> = t
        .rows
        .iter()
        .map(|r| {
            let cells = r
                .cells
                .iter()
                .zip(&t.columns)
                .map(|(c, column)| {
                    let mut class: Vec<String> = Vec::new();
                    if column.numeric {
                        class.push("num".into());
                    }
                    if let Some(s) = c.source {
                        class.push(format!("src-{}", s.as_str()));
                    }
                    if column.label == "reason" {
                        class.push("reason".into());
                    }
                    if column.label == "details" {
                        class.push("details".into());
                    }
                    let mut attrs = Vec::new();
                    if !class.is_empty() {
                        attrs.push(("class", class.join(" ")));
                    }
                    if let Some(v) = c.value {
                        attrs.push(("data-value", number_text(v)));
                    }
                    let mut kids = Vec::new();
                    if column.label == "provenance" {
                        for s in c.text.split_whitespace() {
                            kids.push(txt("span", vec![("class", format!("tag {s}"))], s));
                        }
                    } else {
                        kids.push(Node::Text(c.text.clone()));
                    }
                    if let Some((summary, body)) = &c.details {
                        kids.push(el(
                            "details",
                            vec![],
                            vec![txt("summary", vec![], summary.clone()), txt("pre", vec![], body.clone())],
                        ));
                    }
                    el("td", attrs, kids)
                })
                .collect();
            el(
                "tr",
                vec![
                    ("class", r.status.clone()),
                    ("data-status", r.status.clone()),
                    ("data-provenance", r.provenance.clone()),
                ],
                cells,
            )
        })
        .collect();
    vec![
        controls,
        el(
            "div",
            vec![("class", "scroll".into())],
            vec![el(
                "table",
                vec![("id", id.into()), ("class", "records".into())],
                vec![el("thead", vec![], vec![head]), el("tbody", vec![], body)],
            )],
        ),
    ]
}

fn section_node(s: &Section, level: usize, ids: &mut usize) -> Node {
    let h = match level {
        0 => "h2",
        1 => "h3",
        _ => "h4",
    };
    let mut kids = vec![txt(h, vec![], s.heading.clone())];
    for b in &s.blocks {
        match b {
            Block::Facts(f) => kids.push(el(
                "dl",
                vec![("class", "facts".into())],
                f.iter().flat_map(|(k, v)| [txt("dt", vec![], k.clone()), txt("dd", vec![], v.clone())]).collect(),
            )),
            Block::Text(t) => kids.push(txt("p", vec![], t.clone())),
            Block::Pre(t) => kids.push(txt("pre", vec![("class", "out".into())], t.clone())),
            Block::Figures(f) => kids.push(el(
                "div",
                vec![("class", "figures".into())],
                f.iter()
                    .map(|(caption, svg)| {
                        el("figure", vec![], vec![Node::Raw(svg.clone()), txt("figcaption", vec![], caption.clone())])
                    })
                    .collect(),
            )),
            Block::Table(t) => {
                *ids += 1;
                kids.extend(table_node(t, &format!("records-{ids}")));
            }
            Block::Problems(p) => kids.push(problem_list(p)),
        }
    }
    for sub in &s.sub {
        kids.push(section_node(sub, level + 1, ids));
    }
    el("section", vec![], kids)
}

/// The page as HTML (also well-formed XML).
pub fn render(page: &Page) -> String {
    let mut ids = 0;
    let sections: Vec<Node> = page.sections.iter().map(|s| section_node(s, 0, &mut ids)).collect();
    let mut body =
        vec![txt("h1", vec![], page.title.clone()), txt("p", vec![("class", "sub".into())], page.subtitle.clone())];
    body.extend(sections);
    body.push(el("script", vec![], vec![Node::Raw(format!("//<![CDATA[\n{JS}//]]>\n"))]));
    let doc = el(
        "html",
        vec![("lang", "en".into())],
        vec![
            el(
                "head",
                vec![],
                vec![
                    el("meta", vec![("charset", "utf-8".into())], vec![]),
                    el(
                        "meta",
                        vec![("name", "viewport".into()), ("content", "width=device-width, initial-scale=1".into())],
                        vec![],
                    ),
                    txt("title", vec![], page.title.clone()),
                    el("style", vec![], vec![Node::Raw(CSS.to_string())]),
                ],
            ),
            el("body", vec![], body),
        ],
    );
    let mut out = String::from("<!DOCTYPE html>\n");
    doc.write(&mut out);
    out.push('\n');
    out
}

/// Writes the page to `path` (`-`: standard output), whole or not at all.
pub fn write(page: &Page, path: &Path) -> Result<()> {
    crate::output::emit(path, render(page).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01 00:00 UTC");
        assert_eq!(utc(UNIX_EPOCH + std::time::Duration::from_secs(1_795_312_800)), "2026-11-22 02:00 UTC");
        assert_eq!(utc(UNIX_EPOCH + std::time::Duration::from_secs(951_782_400)), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn text_is_escaped_and_void_elements_closed() {
        let mut out = String::new();
        el("p", vec![("title", "a \"b\" <c>".into())], vec![Node::Text("x & y < z".into()), el("br", vec![], vec![])])
            .write(&mut out);
        assert_eq!(out, "<p title=\"a &quot;b&quot; &lt;c&gt;\">x &amp; y &lt; z<br/></p>\n");
    }

    #[test]
    fn a_mock_sweep_page_has_every_part() {
        use crate::gpu::MockBackend;
        use crate::kernels::SumMatrix;
        let mut b = MockBackend::new(0).unwrap();
        let k = SumMatrix::new(256, 256).unwrap();
        let blocks = crate::spec::blocks_from(None, Some("32,64"), Some("1,32"), None).unwrap();
        let opts = crate::sweep::Options { iters: 4, model: true, ..crate::sweep::Options::default() };
        let report = crate::sweep::run(&mut b, &k, &blocks, &opts, &mut |_| {}).unwrap();
        let html = render(&report_page(&report, &figures::Options::default(), "warpscope sweep ...").unwrap());
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
