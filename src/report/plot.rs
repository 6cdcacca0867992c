//! Plots (SVG, through plotters): curves of one value against another, drawn to a file.

use std::path::Path;

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
pub struct Labels<'a> {
    /// Chart title.
    pub title: &'a str,
    /// x axis.
    pub x: &'a str,
    /// y axis.
    pub y: &'a str,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// One chart: its labels and curves.
pub struct Panel<'a> {
    /// Title and axis titles.
    pub labels: Labels<'a>,
    /// The curves.
    pub series: Vec<Series>,
}

/// Draws `series` as lines with markers into an SVG file at `path`.
pub fn lines(path: &Path, labels: &Labels<'_>, series: &[Series]) -> Result<()> {
    let series = series.iter().map(|s| Series { label: s.label.clone(), points: s.points.clone() }).collect();
    panels(path, &[Panel { labels: Labels { title: labels.title, x: labels.x, y: labels.y }, series }])
}

/// Draws the panels one above the other into an SVG file at `path`.
pub fn panels(path: &Path, panels: &[Panel<'_>]) -> Result<()> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => {}
        _ => return Err(Error::usage(format!("cannot plot to {}: use a .svg file name", path.display()))),
    }
    if panels.iter().all(|p| p.series.iter().all(|s| s.points.is_empty())) {
        return Err(Error::usage("nothing to plot"));
    }
    let err = |e: String| Error::Output(format!("{}: {e}", path.display()));
    let root = SVGBackend::new(path, (900, 540 * panels.len() as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    for (area, panel) in root.split_evenly((panels.len(), 1)).iter().zip(panels) {
        draw(area, panel).map_err(err)?;
    }
    root.present().map_err(|e| err(e.to_string()))
}

fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel<'_>,
) -> std::result::Result<(), String> {
    let pts = || panel.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y1 = pts().fold(0f64, |a, p| a.max(p.1));
    if !x0.is_finite() || x0 > x1 {
        return Ok(());
    }
    let pad = ((x1 - x0) * 0.02).max(0.5);
    let mut chart = ChartBuilder::on(area)
        .caption(panel.labels.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0f64..(y1 * 1.08).max(1e-9))
        .map_err(|e| e.to_string())?;
    chart.configure_mesh().x_desc(panel.labels.x).y_desc(panel.labels.y).draw().map_err(|e| e.to_string())?;
    for (i, s) in panel.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_an_svg_with_its_labels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.svg");
        let s = Series { label: "occupancy".into(), points: vec![(32.0, 50.0), (64.0, 100.0)] };
        lines(&path, &Labels { title: "t", x: "block size", y: "%" }, &[s]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("block size") && svg.contains("occupancy"));
        assert!(lines(&dir.path().join("p.png"), &Labels { title: "t", x: "x", y: "y" }, &[]).is_err());
    }
}
