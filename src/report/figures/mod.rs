//! What the figures show, from the records: a report's kernel time and every metric per configuration
//! (block shapes as categories, measured and estimated of a metric in one panel, the fastest
//! configuration starred), occupancy against threads per block, heatmaps of chosen metrics over
//! block.x x block.y; a comparison's deltas per metric and configuration with the threshold; and the
//! occupancy calculator's three views (block size, registers, shared memory). Drawing is
//! [`super::plot`]'s business.

mod blur;
mod calculator;
mod deltas;
mod studies;

pub use blur::blur_bench;
pub use calculator::calculator;
pub use deltas::{baseline, comparison};
pub use studies::{peak, transpose_bench};

use crate::gpu::Origin;
use crate::metrics::{self, RATIO};
use crate::record::{Metric, Record, Report, Source, Status};
use crate::spec::Dim3;

use super::plot::{self, Bars, CatSeries, Chart, Curve, Heatmap, Labels, PALETTE, Series, Style};
use super::table::metric_columns;

/// The order of the configurations along the axes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// As swept (the block list's order).
    #[default]
    Sweep,
    /// Fastest first.
    Time,
}

/// What the figures of a report show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Order of the configurations.
    pub order: Order,
    /// Metrics drawn as block.x x block.y heatmaps when the sweep is a cartesian grid (`time` is the
    /// kernel time).
    pub heatmaps: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options { order: Order::Sweep, heatmaps: vec![TIME.to_string()] }
    }
}

/// The name standing for the kernel time among metric names (`--heatmap time,achieved_occupancy`).
pub const TIME: &str = "time";

/// Charts under one title.
pub struct Figure {
    /// What the figure is of (kernel, problem, device).
    pub title: String,
    /// The charts, in reading order.
    pub charts: Vec<Chart>,
}

impl Figure {
    /// Draws the figure into `path` (.svg or .png).
    pub fn draw(self, path: &std::path::Path) -> crate::Result<()> {
        plot::figure(path, Some(&self.title), self.charts)
    }
}

/// The colour of a source, the same in every chart.
pub fn source_color(s: Source) -> plotters::style::RGBColor {
    match s {
        Source::Measured => PALETTE[0],
        Source::Estimated => PALETTE[1],
        Source::Imported => PALETTE[2],
        Source::Mock => PALETTE[4],
    }
}

/// Value of a metric as shown: occupancy ratios as percentages, like the tables.
pub fn shown(m: &Metric) -> f64 {
    if is_occupancy_ratio(m) { 100.0 * m.value } else { m.value }
}

/// Unit of a metric as shown.
pub fn shown_unit(m: &Metric) -> String {
    if is_occupancy_ratio(m) { "%".into() } else { m.unit.clone() }
}

fn is_occupancy_ratio(m: &Metric) -> bool {
    m.unit == RATIO && m.name.ends_with("occupancy")
}

/// Where a record's time comes from: its events' median (measured, or mock on the mock backend), the
/// GPU's own `duration`, or the model's prediction.
pub fn time_source(report: &Report, r: &Record) -> Option<Source> {
    if r.time_ms.is_some() {
        return Some(match report.device.backend {
            Origin::Mock => Source::Mock,
            Origin::Cuda => Source::Measured,
            Origin::Model => Source::Estimated,
            _ => Source::Imported,
        });
    }
    duration(r).map(|(_, s)| s).or_else(|| r.metric(metrics::PREDICTED_TIME).map(|m| m.source))
}

/// The `duration` metric in ms, with its source.
fn duration(r: &Record) -> Option<(f64, Source)> {
    let m = r.metric(metrics::DURATION)?;
    let ms = match plot::si::Scale::of(&m.unit) {
        plot::si::Scale::Time(f) => m.value * f * 1e3,
        _ => return None,
    };
    Some((ms, m.source))
}

/// The time a record is ranked by, ms: its median, else the GPU's duration, else the prediction.
pub fn time_of(r: &Record) -> Option<f64> {
    r.time_ms
        .as_ref()
        .map(|t| t.median)
        .or_else(|| duration(r).map(|d| d.0))
        .or_else(|| r.metric(metrics::PREDICTED_TIME).map(|m| m.value))
        .filter(|t| t.is_finite())
}

/// The configurations a report's figures draw (those that ran and verified, or were estimated or
/// imported), in the order asked for.
pub fn drawn(report: &Report, order: Order) -> Vec<&Record> {
    let mut ok: Vec<&Record> = report.records.iter().filter(|r| r.status == Status::Ok).collect();
    if order == Order::Time {
        ok.sort_by(|a, b| match (time_of(a), time_of(b)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    ok
}

/// The fastest of `records` (its index).
fn best(records: &[&Record]) -> Option<usize> {
    records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((i, time_of(r)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The name of each record on an axis: its block, with the kernel where kernels vary or the block is not
/// known (another profiler's summary rows, copies), and the problem or device where those vary; repeats
/// numbered (`32x16 #2`).
pub fn category_names(records: &[&Record]) -> Vec<String> {
    let first = records.first();
    let kernels = records.iter().any(|r| first.is_some_and(|f| f.kernel != r.kernel));
    let problems = records.iter().any(|r| first.is_some_and(|f| f.problem != r.problem));
    let devices = records.iter().any(|r| first.is_some_and(|f| f.device != r.device));
    let mut names: Vec<String> = Vec::new();
    for r in records {
        let mut n = match r.block.filter(|b| b.volume() > 0) {
            Some(b) if kernels => format!("{} {b}", r.kernel),
            Some(b) => b.to_string(),
            None => r.kernel.clone(),
        };
        if problems && !r.problem.is_empty() {
            n = format!("{n} {}", r.problem);
        }
        if let (true, Some(d)) = (devices, r.device) {
            n = format!("{n} @{d}");
        }
        let seen = names.iter().filter(|m| **m == n || m.starts_with(&format!("{n} #"))).count();
        names.push(if seen > 0 { format!("{n} #{}", seen + 1) } else { n });
    }
    names
}

/// What a report's figure is of: kernel and problem (when one), and the device.
pub fn subject(report: &Report) -> String {
    let device = &report.device.name;
    let mut kernels: Vec<&str> = report.records.iter().map(|r| r.kernel.as_str()).collect();
    kernels.sort_unstable();
    kernels.dedup();
    let on = if device.is_empty() { String::new() } else { format!(" on {device}") };
    match (kernels.as_slice(), report.records.first()) {
        ([_], Some(r)) => format!("{} {}{on}", r.kernel, r.problem).replace("  ", " "),
        _ => format!("{} kernels{on}", kernels.len()),
    }
}

/// What was left out of the charts, for their notes.
fn left_out(report: &Report) -> String {
    let count = |s: Status| report.records.iter().filter(|r| r.status == s).count();
    let parts: Vec<String> = [(Status::Invalid, "invalid"), (Status::Failed, "failed")]
        .iter()
        .filter(|(s, _)| count(*s) > 0)
        .map(|(s, name)| format!("{} {name}", count(*s)))
        .collect();
    if parts.is_empty() { String::new() } else { format!("{} not drawn (see the table)", parts.join(", ")) }
}

/// The figure of a report (`sweep`, `estimate`, `report`, imports).
pub fn report(report: &Report, opts: &Options) -> Figure {
    let records = drawn(report, opts.order);
    let title = subject(report);
    let names = category_names(&records);
    // The fastest configuration of one kernel on one problem: across problem sizes the smallest would
    // always win, and different kernels do different work.
    let one_problem =
        records.iter().all(|r| records.first().is_some_and(|f| f.problem == r.problem && f.kernel == r.kernel));
    let best = best(&records).filter(|_| one_problem);
    let axis = match opts.order {
        Order::Sweep => "block",
        Order::Time => "block, fastest first",
    };
    let axis = if names.iter().any(|n| n.contains(' ')) { axis.replace("block", "configuration") } else { axis.into() };
    let skipped = left_out(report);
    let note =
        |extra: String| [extra, skipped.clone()].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join("; ");
    let mut charts = Vec::new();

    // Kernel time: the measured median as bars, the model's prediction as diamonds over them.
    let measured: Vec<Option<f64>> = records.iter().map(|r| r.time_ms.as_ref().map(|t| t.median)).collect();
    let durations: Vec<Option<f64>> = records.iter().map(|r| duration(r).map(|d| d.0)).collect();
    let predicted: Vec<Option<f64>> =
        records.iter().map(|r| r.metric(metrics::PREDICTED_TIME).map(|m| m.value)).collect();
    // The first of the events' median, the GPU's duration and the prediction are bars; the others are
    // points over them (the duration a dot, the prediction a diamond).
    let mut series: Vec<CatSeries> = Vec::new();
    let sources = [
        (measured, "median", records.iter().find_map(|r| r.time_ms.as_ref().and(time_source(report, r))), Style::Dot),
        (durations, "duration", records.iter().find_map(|r| duration(r).map(|d| d.1)), Style::Dot),
        (
            predicted,
            "predicted",
            records.iter().find_map(|r| r.metric(metrics::PREDICTED_TIME).map(|m| m.source)),
            Style::Diamond,
        ),
    ];
    for (values, what, source, style) in sources {
        let Some(src) = source.filter(|_| values.iter().any(Option::is_some)) else { continue };
        series.push(CatSeries {
            label: format!("{what} ({})", src.as_str()),
            color: source_color(src),
            style: if series.is_empty() { Style::Bar } else { style },
            values,
        });
    }
    let best_note = best
        .map(|i| format!("best: {} at {}", names[i], plot::si::format(time_of(records[i]).unwrap_or(0.0), "ms")))
        .unwrap_or_default();
    charts.push(Chart::Bars(Bars {
        labels: Labels::new("kernel time", axis.clone(), "time"),
        unit: "ms".into(),
        categories: names.clone(),
        series,
        best,
        threshold: None,
        note: note(best_note),
    }));

    // Every other metric: one panel each, a series per source.
    let columns = metric_columns(report);
    let mut seen: Vec<&str> = Vec::new();
    for c in &columns {
        let name = c.name.as_str();
        if [metrics::PREDICTED_TIME, metrics::MODEL_ERROR, metrics::DURATION].contains(&name) || seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let cols: Vec<_> = columns.iter().filter(|x| x.name == name).collect();
        let primary_exists = cols.iter().any(|x| x.source != Source::Estimated);
        let mut unit = String::new();
        let mut series = Vec::new();
        for col in cols {
            let values: Vec<Option<f64>> = records.iter().map(|r| col.of(r).map(shown)).collect();
            if let Some(m) = records.iter().find_map(|r| col.of(r)) {
                unit = shown_unit(m);
            }
            let style = if col.source == Source::Estimated && primary_exists { Style::Diamond } else { Style::Bar };
            series.push(CatSeries {
                label: col.source.as_str().to_string(),
                color: source_color(col.source),
                style,
                values,
            });
        }
        let y = if plot::si::Scale::of(&unit).labels_carry_unit() || unit.is_empty() {
            String::new()
        } else {
            unit.clone()
        };
        charts.push(Chart::Bars(Bars {
            labels: Labels::new(name, axis.clone(), y),
            unit,
            categories: names.clone(),
            series,
            best,
            threshold: None,
            note: String::new(),
        }));
    }

    // Occupancy against threads per block.
    let sizes: Vec<u64> = {
        let mut s: Vec<u64> = records.iter().filter_map(|r| Some(r.block?.volume())).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let occ_columns: Vec<_> = columns
        .iter()
        .filter(|c| c.name == metrics::THEORETICAL_OCCUPANCY || c.name == metrics::ACHIEVED_OCCUPANCY)
        .collect();
    // Achieved occupancy in its source's colour; the theoretical (an exact calculation) in grey.
    let colors = occ_columns
        .iter()
        .map(|c| if c.name == metrics::THEORETICAL_OCCUPANCY { PALETTE[7] } else { source_color(c.source) })
        .collect();
    let occ: Vec<Series> = occ_columns
        .iter()
        .map(|c| {
            let mut points: Vec<(f64, f64)> =
                records.iter().filter_map(|r| Some((r.block?.volume() as f64, shown(c.of(r)?)))).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { label: format!("{} ({})", c.name, c.source.as_str()), points }
        })
        .collect();
    if !occ.is_empty() && sizes.len() >= 2 {
        charts.push(Chart::Curve(Curve {
            labels: Labels::new("occupancy against block size", "threads per block", ""),
            x_unit: String::new(),
            y_unit: "%".into(),
            series: occ,
            bands: Vec::new(),
            marks: Vec::new(),
            x_ticks: Some(block_size_ticks(*sizes.last().unwrap_or(&1024) as u32)),
            y_range: Some((0.0, 100.0)),
            note: String::new(),
            // Shapes of one size (32x16, 16x32) stand one above the other, not joined into a zigzag.
            joined: sizes.len() == records.len(),
            colors,
        }));
    }

    for metric in &opts.heatmaps {
        if let Some(h) = heatmap(report, metric, best.map(|i| records[i])) {
            charts.push(Chart::Heat(h));
        }
    }
    Figure { title, charts }
}

/// Ticks for a threads-per-block axis: multiples of a power-of-two step.
pub(super) fn block_size_ticks(max: u32) -> Vec<(f64, String)> {
    let step = [32u32, 64, 128, 256, 512].into_iter().find(|s| max / s <= 8).unwrap_or(1024);
    (0..=max.div_ceil(step)).map(|k| ((k * step) as f64, (k * step).to_string())).collect()
}

/// Whether a lower value of the metric is better (times, transactions, errors).
fn low_is_good(metric: &str) -> bool {
    metric == TIME
        || metric == metrics::DURATION
        || metric == metrics::PREDICTED_TIME
        || metric.contains("transactions")
        || metric.contains("error")
}

/// The value a heatmap shows for a record: the time, or the metric from its best source (measured,
/// imported, mock, then estimated).
fn heat_value(r: &Record, metric: &str) -> Option<(f64, String)> {
    if metric == TIME {
        return time_of(r).map(|t| (t, "ms".to_string()));
    }
    let rank = |s: Source| match s {
        Source::Measured => 0,
        Source::Imported => 1,
        Source::Mock => 2,
        Source::Estimated => 3,
    };
    r.metrics
        .iter()
        .filter(|m| m.name == metric && m.value.is_finite())
        .min_by_key(|m| rank(m.source))
        .map(|m| (shown(m), shown_unit(m)))
}

/// A heatmap of `metric` over block.x x block.y, when the report is one kernel's cartesian sweep with
/// the metric in it.
fn heatmap(report: &Report, metric: &str, best: Option<&Record>) -> Option<Heatmap> {
    let recs = &report.records;
    let first = recs.first()?;
    let blocks: Vec<Dim3> = recs.iter().filter_map(|r| r.block).collect();
    if blocks.len() != recs.len()
        || blocks.iter().any(|b| b.z != 1)
        || recs.iter().any(|r| r.kernel != first.kernel || r.problem != first.problem)
    {
        return None;
    }
    let mut xs: Vec<u32> = blocks.iter().map(|b| b.x).collect();
    let mut ys: Vec<u32> = blocks.iter().map(|b| b.y).collect();
    xs.sort_unstable();
    xs.dedup();
    ys.sort_unstable();
    ys.dedup();
    if xs.len() < 2 || ys.len() < 2 || xs.len() * ys.len() != recs.len() {
        return None;
    }
    let cell = |x: u32, y: u32| recs.iter().find(|r| r.block == Some(Dim3::new(x, y, 1)) && r.status == Status::Ok);
    let mut unit = String::new();
    let values: Vec<Vec<Option<f64>>> = ys
        .iter()
        .map(|&y| {
            xs.iter()
                .map(|&x| {
                    let (v, u) = heat_value(cell(x, y)?, metric)?;
                    unit = u;
                    Some(v)
                })
                .collect()
        })
        .collect();
    if values.iter().flatten().all(Option::is_none) {
        return None;
    }
    let best = best.and_then(|b| {
        let b = b.block?;
        Some((ys.iter().position(|&y| y == b.y)?, xs.iter().position(|&x| x == b.x)?))
    });
    let what = if metric == TIME { "kernel time".to_string() } else { metric.to_string() };
    Some(Heatmap {
        title: format!("{what} over block.x x block.y"),
        columns: xs.iter().map(u32::to_string).collect(),
        rows: ys.iter().map(u32::to_string).collect(),
        values,
        unit,
        best,
        low_is_good: low_is_good(metric),
    })
}

/// The metrics a report can draw as heatmaps: `time` and every metric name in it.
pub fn heatmap_names(report: &Report) -> Vec<String> {
    let mut names = vec![TIME.to_string()];
    for m in report.records.iter().flat_map(|r| &r.metrics) {
        if !names.contains(&m.name) {
            names.push(m.name.clone());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::MockBackend;
    use crate::kernels::SumMatrix;
    use crate::sweep::{self, Options as SweepOptions};

    fn cartesian() -> Report {
        let mut b = MockBackend::new(0).unwrap();
        let k = SumMatrix::new(256, 256).unwrap();
        let blocks = crate::spec::blocks_from(None, Some("32,64"), Some("1,2,32"), None).unwrap();
        let opts = SweepOptions { iters: 3, model: true, ..SweepOptions::default() };
        sweep::run(&mut b, &k, &blocks, &opts, &mut |_| {}).unwrap()
    }

    #[test]
    fn a_cartesian_sweep_gets_every_chart() {
        let report = cartesian();
        let opts = Options { heatmaps: vec![TIME.into(), metrics::ACHIEVED_OCCUPANCY.into()], ..Options::default() };
        let fig = super::report(&report, &opts);
        let titles: Vec<&str> = fig.charts.iter().map(Chart::title).collect();
        for want in [
            "kernel time",
            "achieved_occupancy",
            "gld_efficiency",
            "occupancy against block size",
            "kernel time over block.x x block.y",
            "achieved_occupancy over block.x x block.y",
        ] {
            assert!(titles.contains(&want), "{want}: {titles:?}");
        }
        // 64x32 is invalid: five configurations drawn, the fastest starred, the invalid one noted.
        let Chart::Bars(time) = &fig.charts[0] else { panic!("time first") };
        assert_eq!(time.categories, ["32x1", "32x2", "32x32", "64x1", "64x2"]);
        let fastest = time.series[0].values.iter().enumerate().min_by(|a, b| a.1.unwrap().total_cmp(&b.1.unwrap()));
        assert_eq!(time.best, fastest.map(|f| f.0));
        assert!(time.note.contains("1 invalid not drawn"), "{}", time.note);
        assert_eq!(time.series[0].label, "median (mock)");
        // The mock marks its model's values mock too: the legend says so.
        assert_eq!((time.series[1].label.as_str(), time.series[1].style), ("predicted (mock)", Style::Diamond));
        let Chart::Heat(h) = fig.charts.iter().find(|c| c.title().starts_with("kernel time over")).unwrap() else {
            panic!()
        };
        assert_eq!(
            (h.columns.clone(), h.rows.clone()),
            (vec!["32".to_string(), "64".into()], vec!["1".to_string(), "2".into(), "32".into()])
        );
        assert_eq!(h.values[2][1], None, "64x32 is invalid");
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("s.svg");
        fig.draw(&svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("invalid") && text.contains("32x2") && text.contains("predicted (mock)"));
    }

    #[test]
    fn measured_and_estimated_share_a_panel() {
        // A real H200 run with CUPTI counters beside the model's estimates.
        let report: Report =
            serde_json::from_str(include_str!("../../../tests/fixtures/ws-h200-cupti-metrics.json")).unwrap();
        let fig = super::report(&report, &Options::default());
        let Some(Chart::Bars(occ)) = fig.charts.iter().find(|c| c.title() == metrics::ACHIEVED_OCCUPANCY) else {
            panic!("no occupancy panel")
        };
        let legend: Vec<(&str, Style)> = occ.series.iter().map(|s| (s.label.as_str(), s.style)).collect();
        assert_eq!(legend, [("measured", Style::Bar), ("estimated", Style::Diamond)]);
        assert_eq!(occ.unit, "%");
        let first = &report.records[0];
        let measured = first.metrics.iter().find(|m| m.name == "achieved_occupancy" && m.source == Source::Measured);
        assert_eq!(occ.series[0].values[0], measured.map(|m| 100.0 * m.value));
        // The time panel: the events' median as bars, CUPTI's duration as dots.
        let Chart::Bars(time) = &fig.charts[0] else { panic!() };
        let legend: Vec<&str> = time.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(legend, ["median (measured)", "duration (measured)"]);
        assert!(fig.title.contains("NVIDIA H200"), "{}", fig.title);
    }

    #[test]
    fn sorted_by_time_fastest_first() {
        let report = cartesian();
        let fig = super::report(&report, &Options { order: Order::Time, heatmaps: vec![] });
        let Chart::Bars(time) = &fig.charts[0] else { panic!() };
        let v: Vec<f64> = time.series[0].values.iter().map(|v| v.unwrap()).collect();
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
        assert_eq!(time.best, Some(0));
        assert!(time.labels.x.contains("fastest first"));
    }

    #[test]
    fn categories_name_what_varies() {
        let mut a =
            Record::new("k1", "64x64", crate::spec::Dim3::new(2, 2, 1), crate::spec::Dim3::new(32, 8, 1), Status::Ok);
        let b = Record { kernel: "k2".into(), ..a.clone() };
        assert_eq!(category_names(&[&a, &b]), ["k1 32x8", "k2 32x8"]);
        let c = a.clone();
        assert_eq!(category_names(&[&a, &c]), ["32x8", "32x8 #2"]);
        a.problem = "128x128".into();
        assert_eq!(category_names(&[&a, &c]), ["32x8 128x128", "32x8 64x64"]);
    }
}
