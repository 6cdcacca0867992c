//! Plots through plotters, as SVG or PNG by the file name: curves of values against a numeric axis or
//! against configurations (block shapes), and heatmaps of a value over block.x x block.y. The font
//! (DejaVu Sans) is embedded, so PNGs render the same on a machine without fonts.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{Error, Result};

/// One named curve.
pub struct Series {
    /// Legend label.
    pub label: String,
    /// (x, y) points in order.
    pub points: Vec<(f64, f64)>,
}

/// Axis titles and the chart's title.
pub struct Labels {
    /// Chart title.
    pub title: String,
    /// x axis.
    pub x: String,
    /// y axis.
    pub y: String,
}

impl Labels {
    /// Labels from anything string-like.
    pub fn new(title: impl Into<String>, x: impl Into<String>, y: impl Into<String>) -> Self {
        Labels { title: title.into(), x: x.into(), y: y.into() }
    }
}

/// Matplotlib's tab10: ten colours told apart easily.
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Width kept right of the plot for the legend when there are many curves.
const LEGEND_WIDTH: u32 = 230;

/// One chart of curves.
pub struct Panel {
    /// Title and axis titles.
    pub labels: Labels,
    /// The curves.
    pub series: Vec<Series>,
    /// Names of the integer x positions 0, 1, ... (block shapes), for an axis of configurations.
    pub x_names: Option<Vec<String>>,
}

/// A value over a grid of block.x (columns) and block.y (rows); `None` cells are drawn empty.
pub struct Heatmap {
    /// Chart title.
    pub title: String,
    /// Column names (block.x values).
    pub columns: Vec<String>,
    /// Row names (block.y values).
    pub rows: Vec<String>,
    /// values[row][column].
    pub values: Vec<Vec<Option<f64>>>,
    /// Unit of the values, for the cell labels' legend.
    pub unit: String,
}

/// A chart of a figure.
pub enum Chart {
    /// Curves.
    Lines(Panel),
    /// A heatmap.
    Heat(Heatmap),
}

/// Draws `series` as lines with markers into `path` (.svg or .png).
pub fn lines(path: &Path, labels: Labels, series: Vec<Series>) -> Result<()> {
    panels(path, vec![Panel { labels, series, x_names: None }])
}

/// Draws the panels one above the other into `path` (.svg or .png).
pub fn panels(path: &Path, panels: Vec<Panel>) -> Result<()> {
    figure(path, panels.into_iter().map(Chart::Lines).collect())
}

/// Draws the charts one above the other into `path`: SVG or PNG by its extension.
pub fn figure(path: &Path, charts: Vec<Chart>) -> Result<()> {
    let empty = |c: &Chart| match c {
        Chart::Lines(p) => p.series.iter().all(|s| s.points.is_empty()),
        Chart::Heat(h) => h.values.iter().flatten().all(Option::is_none),
    };
    if charts.iter().all(empty) {
        return Err(Error::usage("nothing to plot"));
    }
    let charts: Vec<Chart> = charts.into_iter().filter(|c| !empty(c)).collect();
    let size = (1000, 520 * charts.len() as u32);
    let err = |e: String| Error::Output(format!("{}: {e}", path.display()));
    register_font();
    // Drawn whole or not at all: a reader never sees half a figure.
    let out = crate::outfile::OutFile::new(path);
    let tmp = out.target().to_path_buf();
    let drawn = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg") => draw_all(SVGBackend::new(&tmp, size).into_drawing_area(), &charts).map_err(err),
        Some("png") => draw_all(BitMapBackend::new(&tmp, size).into_drawing_area(), &charts).map_err(err),
        _ => return Err(Error::usage(format!("cannot plot to {}: use a .svg or .png file name", path.display()))),
    };
    out.finish(drawn)
}

fn register_font() {
    static FONT: Once = Once::new();
    FONT.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            let _ = plotters::style::register_font("sans-serif", style, dejavu::sans::regular());
        }
    });
}

fn draw_all<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, charts: &[Chart]) -> std::result::Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    for (area, chart) in root.split_evenly((charts.len(), 1)).iter().zip(charts) {
        match chart {
            Chart::Lines(p) => draw_lines(area, p)?,
            Chart::Heat(h) => draw_heat(area, h)?,
        }
    }
    root.present().map_err(|e| e.to_string())
}

fn draw_lines<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, panel: &Panel) -> std::result::Result<(), String> {
    let pts = || panel.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (x0, x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y1 = pts().fold(0f64, |a, p| a.max(p.1));
    if x0 > x1 {
        return Ok(());
    }
    let pad = if panel.x_names.is_some() { 0.5 } else { ((x1 - x0) * 0.02).max(0.5) };
    // Many curves: the legend goes in a column of its own, right of the plot, instead of over the data.
    let side = panel.series.len() > 3;
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.labels.title, ("sans-serif", 22))
        .margin(16)
        .margin_right(if side { LEGEND_WIDTH } else { 16 })
        .x_label_area_size(if panel.x_names.as_ref().is_some_and(|n| n.len() > 16) { 90 } else { 44 })
        .y_label_area_size(80)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0f64..(y1 * 1.1).max(1e-9))
        .map_err(|e| e.to_string())?;
    let names = panel.x_names.clone().unwrap_or_default();
    let name_of = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&panel.labels.x).y_desc(&panel.labels.y);
    if panel.x_names.is_some() {
        // Up to 16 names fit side by side; more are turned on end.
        let font = ("sans-serif", 12).into_font();
        let style = if names.len() > 16 { font.transform(FontTransform::Rotate90) } else { font };
        mesh.x_labels(names.len().max(2) * 2 + 1).x_label_formatter(&name_of).x_label_style(style);
    }
    mesh.draw().map_err(|e| e.to_string())?;
    for (i, s) in panel.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let points: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|e| e.to_string())?;
    }
    if !side {
        return chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(|e| e.to_string());
    }
    // The legend column, drawn on the panel itself (the chart clips to its plotting area).
    let x0 = area.dim_in_pixel().0 as i32 - LEGEND_WIDTH as i32 + 12;
    for (i, s) in panel.series.iter().enumerate() {
        let (color, y) = (COLORS[i % COLORS.len()], 56 + 22 * i as i32);
        area.draw(&PathElement::new(vec![(x0, y), (x0 + 22, y)], color.stroke_width(3))).map_err(|e| e.to_string())?;
        area.draw(&Text::new(s.label.clone(), (x0 + 30, y - 7), ("sans-serif", 13).into_font().color(&BLACK)))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Blue (low) to red (high).
fn heat_color(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(lerp(49.0, 215.0), lerp(130.0, 48.0), lerp(189.0, 39.0))
}

fn draw_heat<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, h: &Heatmap) -> std::result::Result<(), String> {
    let (nc, nr) = (h.columns.len(), h.rows.len());
    let vals = || h.values.iter().flatten().flatten().copied().filter(|v| v.is_finite());
    let (lo, hi) = vals().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let mut chart = ChartBuilder::on(area)
        .caption(&h.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..nc as f64, 0f64..nr as f64)
        .map_err(|e| e.to_string())?;
    let col = |x: &f64| h.columns.get(x.floor() as usize).filter(|_| x.fract() > 0.4).cloned().unwrap_or_default();
    let row = |y: &f64| h.rows.get(y.floor() as usize).filter(|_| y.fract() > 0.4).cloned().unwrap_or_default();
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("block.x")
        .y_desc("block.y")
        .x_labels(nc * 2 + 1)
        .y_labels(nr * 2 + 1)
        .x_label_formatter(&col)
        .y_label_formatter(&row)
        .draw()
        .map_err(|e| e.to_string())?;
    let span = if hi > lo { hi - lo } else { 1.0 };
    for (r, line) in h.values.iter().enumerate() {
        for (c, v) in line.iter().enumerate() {
            let (x, y) = (c as f64, r as f64);
            let fill = match v {
                Some(v) if v.is_finite() => heat_color((v - lo) / span).filled(),
                _ => RGBColor(235, 235, 235).filled(),
            };
            chart.draw_series([Rectangle::new([(x, y), (x + 1.0, y + 1.0)], fill)]).map_err(|e| e.to_string())?;
            chart
                .draw_series([Rectangle::new([(x, y), (x + 1.0, y + 1.0)], WHITE.stroke_width(2))])
                .map_err(|e| e.to_string())?;
            let text = v.map(|v| format!("{v:.3} {}", h.unit)).unwrap_or_else(|| "invalid".into());
            chart
                .draw_series([Text::new(text, (x + 0.08, y + 0.55), ("sans-serif", 14).into_font().color(&BLACK))])
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_svg_and_png_with_their_labels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.svg");
        let s = || Series { label: "occupancy".into(), points: vec![(32.0, 50.0), (64.0, 100.0)] };
        lines(&path, Labels::new("t", "block size", "%"), vec![s()]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("block size") && svg.contains("occupancy"));
        let png = dir.path().join("p.png");
        let heat = Heatmap {
            title: "time".into(),
            columns: vec!["32".into(), "64".into()],
            rows: vec!["1".into(), "2".into()],
            values: vec![vec![Some(1.0), Some(2.0)], vec![None, Some(3.0)]],
            unit: "ms".into(),
        };
        let panel = Panel {
            labels: Labels::new("t", "config", "ms"),
            series: vec![s()],
            x_names: Some(vec!["a".into(), "b".into()]),
        };
        figure(&png, vec![Chart::Lines(panel), Chart::Heat(heat)]).unwrap();
        let img = image::open(&png).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (1000, 1040));
        // Not blank: the heatmap's red (highest) cell is there.
        assert!(img.pixels().any(|p| p.0[0] > 200 && p.0[1] < 80 && p.0[2] < 80));
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["p.png", "p.svg"], "no temporary file is left behind");
        assert!(lines(&dir.path().join("p.gif"), Labels::new("t", "x", "y"), vec![s()]).is_err());
        assert!(lines(&path, Labels::new("t", "x", "y"), vec![]).is_err());
    }
}
