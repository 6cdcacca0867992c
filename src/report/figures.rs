//! The figure of a sweep or estimate report (`--plot`): time per configuration (with the model's
//! prediction), each metric per configuration with its measured and estimated values side by side,
//! occupancy against threads per block, and a block.x x block.y heatmap of the time when the sweep is
//! a cartesian grid.

use crate::metrics::{self, RATIO};
use crate::record::{Record, Report, Status};
use crate::spec::Dim3;

use super::plot::{Chart, Heatmap, Labels, Panel, Series};
use super::table::metric_columns;

/// Value of a metric for plotting: occupancy ratios as percentages, like the tables.
fn shown(m: &crate::record::Metric) -> f64 {
    if m.unit == RATIO && m.name.contains("occupancy") { 100.0 * m.value } else { m.value }
}

/// The time a record is placed by: measured median, else the model's prediction.
fn time_of(r: &Record) -> Option<f64> {
    r.time_ms.as_ref().map(|t| t.median).or_else(|| r.metric(metrics::PREDICTED_TIME).map(|m| m.value))
}

/// The charts of `report`, titles naming `what` (kernel, problem, device).
pub fn charts(report: &Report) -> Vec<(String, Chart)> {
    let ok: Vec<&Record> = report.records.iter().filter(|r| r.status == Status::Ok).collect();
    let names: Vec<String> = ok.iter().map(|r| crate::record::dims(r.block)).collect();
    let what = match ok.first() {
        Some(r) => format!("{} {} on {}", r.kernel, r.problem, report.device.name),
        None => report.device.name.clone(),
    };
    let idx = |i: usize| i as f64;
    let mut out = Vec::new();

    // Time per configuration, with the prediction beside it.
    let mut time = Vec::new();
    let measured: Vec<(f64, f64)> =
        ok.iter().enumerate().filter_map(|(i, r)| Some((idx(i), r.time_ms.as_ref()?.median))).collect();
    if !measured.is_empty() {
        let source = if report.device.backend == "mock" { "mock" } else { "measured" };
        time.push(Series { label: format!("median ({source})"), points: measured });
    }
    let predicted: Vec<(f64, f64)> =
        ok.iter().enumerate().filter_map(|(i, r)| Some((idx(i), r.metric(metrics::PREDICTED_TIME)?.value))).collect();
    if !predicted.is_empty() {
        time.push(Series { label: "predicted (est)".into(), points: predicted });
    }
    out.push((format!("{what}: kernel time"), "ms".to_string(), time));

    // Every other metric, one panel each, a series per source.
    let columns = metric_columns(report);
    let mut seen: Vec<&str> = Vec::new();
    for c in &columns {
        if [metrics::PREDICTED_TIME, metrics::MODEL_ERROR].contains(&c.name.as_str()) || seen.contains(&c.name.as_str())
        {
            continue;
        }
        seen.push(&c.name);
        let mut series = Vec::new();
        let mut unit = String::new();
        for col in columns.iter().filter(|x| x.name == c.name) {
            let points: Vec<(f64, f64)> =
                ok.iter().enumerate().filter_map(|(i, r)| col.of(r).map(|m| (idx(i), shown(m)))).collect();
            if let Some(m) = ok.iter().find_map(|r| col.of(r)) {
                unit = if m.unit == RATIO && m.name.contains("occupancy") { "%".into() } else { m.unit.clone() };
            }
            series.push(Series { label: format!("{} ({})", c.name, col.source.as_str()), points });
        }
        out.push((format!("{what}: {}", c.name), unit, series));
    }
    let mut charts: Vec<(String, Chart)> = out
        .into_iter()
        .filter(|(_, _, s)| !s.is_empty())
        .map(|(title, unit, series)| {
            let labels = Labels::new(title.clone(), "block (configuration)", unit);
            (title, Chart::Lines(Panel { labels, series, x_names: Some(names.clone()) }))
        })
        .collect();

    // Occupancy against threads per block.
    let occ: Vec<Series> = columns
        .iter()
        .filter(|c| c.name == metrics::THEORETICAL_OCCUPANCY || c.name == metrics::ACHIEVED_OCCUPANCY)
        .map(|c| {
            let mut points: Vec<(f64, f64)> =
                ok.iter().filter_map(|r| Some((r.block?.volume() as f64, shown(c.of(r)?)))).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { label: format!("{} ({})", c.name, c.source.as_str()), points }
        })
        .collect();
    if !occ.is_empty() {
        let title = format!("{what}: occupancy against block size");
        charts.push((
            title.clone(),
            Chart::Lines(Panel {
                labels: Labels::new(title.clone(), "threads per block", "occupancy (%)"),
                series: occ,
                x_names: None,
            }),
        ));
    }

    // A cartesian sweep: time over block.x x block.y.
    let blocks: Vec<Dim3> = report.records.iter().filter_map(|r| r.block).collect();
    let mut xs: Vec<u32> = blocks.iter().map(|b| b.x).collect();
    let mut ys: Vec<u32> = blocks.iter().map(|b| b.y).collect();
    xs.sort_unstable();
    xs.dedup();
    ys.sort_unstable();
    ys.dedup();
    let flat = blocks.len() == report.records.len() && blocks.iter().all(|b| b.z == 1);
    if flat && xs.len() >= 2 && ys.len() >= 2 && xs.len() * ys.len() == report.records.len() {
        let values = ys
            .iter()
            .map(|&y| {
                xs.iter()
                    .map(|&x| {
                        report
                            .records
                            .iter()
                            .find(|r| r.block == Some(Dim3::new(x, y, 1)) && r.status == Status::Ok)
                            .and_then(time_of)
                    })
                    .collect()
            })
            .collect();
        let kernel = ok.first().map_or("", |r| r.kernel.as_str());
        let title = format!("{kernel}: kernel time (ms) over block.x x block.y");
        charts.push((
            title.clone(),
            Chart::Heat(Heatmap {
                title,
                columns: xs.iter().map(u32::to_string).collect(),
                rows: ys.iter().map(u32::to_string).collect(),
                values,
                unit: "ms".into(),
            }),
        ));
    }
    charts
}

/// Draws the report's figure into `path` (.svg or .png).
pub fn draw(report: &Report, path: &std::path::Path) -> crate::Result<()> {
    super::plot::figure(path, charts(report).into_iter().map(|(_, c)| c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::MockBackend;
    use crate::kernels::SumMatrix;
    use crate::sweep::{self, Options};

    #[test]
    fn a_cartesian_sweep_gets_every_chart() {
        let mut b = MockBackend::new(0).unwrap();
        let k = SumMatrix::new(256, 256).unwrap();
        let blocks = crate::spec::blocks_from(None, Some("32,64"), Some("1,2,32"), None).unwrap();
        let opts = Options { iters: 3, model: true, ..Options::default() };
        let report = sweep::run(&mut b, &k, &blocks, &opts, &mut |_| {}).unwrap();
        let titles: Vec<String> = charts(&report).into_iter().map(|(t, _)| t).collect();
        for want in [
            "kernel time",
            "achieved_occupancy",
            "gld_efficiency",
            "occupancy against block size",
            "over block.x x block.y",
        ] {
            assert!(titles.iter().any(|t| t.contains(want)), "{want}: {titles:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("s.svg");
        draw(&report, &svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        // The invalid 64x32 cell is drawn as such; the configurations name the x axis.
        assert!(text.contains("invalid") && text.contains("32x2") && text.contains("predicted (est)"));
    }
}
