//! Figures through plotters, as SVG or PNG by the file name, or as SVG text for the HTML report: small
//! multiples in a grid that fits a screen, of four kinds of chart — values per configuration (block
//! shapes as categories, bars and points, the best one marked, a threshold drawn), curves over a
//! numeric axis (with shaded regions and marked points), and heatmaps over block.x x block.y.
//!
//! Every text is placed by measuring it in the embedded font ([`text`]): tick labels that would not fit
//! side by side are turned, thinned or shortened, titles wrapped, so that no two texts overlap. Numbers
//! are written with SI prefixes ([`si`]).

mod draw;
mod frame;
pub mod si;
pub mod text;

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{Error, Result};

/// Matplotlib's tab10: ten colours told apart easily.
pub const PALETTE: [RGBColor; 10] = [
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

/// Colour of tick labels (and of nothing else: a reader of the SVG finds the axes' labels by it).
pub const TICK_COLOR: RGBColor = RGBColor(64, 64, 64);
/// Background of the best configuration's column.
pub const BEST_FILL: RGBColor = RGBColor(255, 240, 170);
/// Values beyond a threshold.
pub const ALERT: RGBColor = RGBColor(214, 39, 40);
/// Cells and values that are not there (invalid configurations).
pub const MISSING: RGBColor = RGBColor(225, 225, 225);

/// One named curve over a numeric axis.
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

/// One chart of curves, the simple form: over a numeric x, or over named positions 0, 1, ... (then drawn
/// as points per category). The y title doubles as the unit of the tick labels where it is one (`ms`,
/// `GB/s`, `%`).
pub struct Panel {
    /// Title and axis titles.
    pub labels: Labels,
    /// The curves.
    pub series: Vec<Series>,
    /// Names of the integer x positions 0, 1, ... (block shapes, sizes), for an axis of categories.
    pub x_names: Option<Vec<String>>,
}

/// How a series of values per category is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Bars from zero (several bar series stand side by side in a category).
    Bar,
    /// A filled circle.
    Dot,
    /// A hollow diamond over the bars (the model's estimates).
    Diamond,
}

/// Values per category of one source or kind.
pub struct CatSeries {
    /// Legend label: says which (measured, estimated, ...).
    pub label: String,
    /// Colour.
    pub color: RGBColor,
    /// Bars or points.
    pub style: Style,
    /// One value per category; `None` where the category has none.
    pub values: Vec<Option<f64>>,
}

/// Values of one quantity per category (configuration), several sources in one panel.
pub struct Bars {
    /// Title; x title (what the categories are); y title (the quantity, with its unit where the tick
    /// labels do not carry it).
    pub labels: Labels,
    /// Unit of the values: tick labels are written in it with SI prefixes.
    pub unit: String,
    /// Category names, left to right.
    pub categories: Vec<String>,
    /// The series.
    pub series: Vec<CatSeries>,
    /// The category marked best (a star and a shaded column).
    pub best: Option<usize>,
    /// Lines at +threshold and -threshold; bars beyond them drawn in [`ALERT`].
    pub threshold: Option<f64>,
    /// A line under the title (the best configuration, what was left out).
    pub note: String,
}

/// A shaded stretch of the x axis, named in the legend (the resource limiting occupancy there).
pub struct Band {
    /// Start, in x units.
    pub from: f64,
    /// End, in x units.
    pub to: f64,
    /// Legend label (bands of one label share one legend entry).
    pub label: String,
    /// Colour (drawn pale).
    pub color: RGBColor,
}

/// A point marked on a curve (the current configuration), named in the legend.
pub struct Marked {
    /// Where.
    pub at: (f64, f64),
    /// Legend label.
    pub label: String,
}

/// Curves over a numeric x axis, with shaded stretches and marked points.
pub struct Curve {
    /// Title and axis titles.
    pub labels: Labels,
    /// Unit of x (SI tick labels), unless `x_ticks` are given.
    pub x_unit: String,
    /// Unit of y.
    pub y_unit: String,
    /// The curves (lines with a marker per point when they have few points).
    pub series: Vec<Series>,
    /// Shaded stretches.
    pub bands: Vec<Band>,
    /// Marked points.
    pub marks: Vec<Marked>,
    /// Tick positions and labels of x, where round decimal ticks do not suit (block sizes, KiB).
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// Fixed y range (occupancy 0-100 %), else from the data and zero.
    pub y_range: Option<(f64, f64)>,
    /// A line under the title.
    pub note: String,
    /// Points joined by lines (false: points alone, where an x repeats).
    pub joined: bool,
    /// A colour per series (by source), else the palette in order.
    pub colors: Vec<RGBColor>,
}

impl Curve {
    /// The colour of series `i`.
    fn color(&self, i: usize) -> RGBColor {
        self.colors.get(i).copied().unwrap_or(PALETTE[i % PALETTE.len()])
    }
}

/// A value over a grid of block.x (columns) and block.y (rows); `None` cells are drawn empty.
pub struct Heatmap {
    /// Chart title.
    pub title: String,
    /// Column names (block.x values).
    pub columns: Vec<String>,
    /// Row names (block.y values), bottom to top.
    pub rows: Vec<String>,
    /// values[row][column].
    pub values: Vec<Vec<Option<f64>>>,
    /// Unit of the values (cell labels and the colour scale, with SI prefixes).
    pub unit: String,
    /// The cell of the best configuration (outlined), as (row, column).
    pub best: Option<(usize, usize)>,
    /// Whether low values are good (time: blue is fast) or high ones (occupancy, efficiency).
    pub low_is_good: bool,
}

/// A chart of a figure.
pub enum Chart {
    /// Curves, the simple form.
    Lines(Panel),
    /// Values per category.
    Bars(Bars),
    /// Curves with bands and marks.
    Curve(Curve),
    /// A heatmap.
    Heat(Heatmap),
}

impl Chart {
    /// Whether the chart has nothing to draw.
    pub fn is_empty(&self) -> bool {
        match self {
            Chart::Lines(p) => p.series.iter().all(|s| s.points.is_empty()),
            Chart::Bars(b) => b.series.iter().all(|s| s.values.iter().all(Option::is_none)),
            Chart::Curve(c) => c.series.iter().all(|s| s.points.is_empty()),
            Chart::Heat(h) => h.values.iter().flatten().all(Option::is_none),
        }
    }

    /// The chart's title.
    pub fn title(&self) -> &str {
        match self {
            Chart::Lines(p) => &p.labels.title,
            Chart::Bars(b) => &b.labels.title,
            Chart::Curve(c) => &c.labels.title,
            Chart::Heat(h) => &h.title,
        }
    }
}

/// The size of one chart drawn alone (the HTML report's figures), pixels.
pub const CHART_SIZE: (u32, u32) = (600, 420);

/// Columns and the size of each chart for `n` charts: one large chart, two columns up to four, three
/// beyond (1800 pixels wide, a screen's width).
pub fn grid(n: usize) -> (usize, (u32, u32)) {
    match n {
        0 | 1 => (1, (900, 540)),
        2..=4 => (2, (760, 460)),
        _ => (3, CHART_SIZE),
    }
}

/// Height of a figure's title band (above its grid of charts).
pub const FIGURE_TITLE: u32 = 34;

/// Draws `lines` as curves into `path` (.svg or .png).
pub fn lines(path: &Path, labels: Labels, series: Vec<Series>) -> Result<()> {
    panels(path, vec![Panel { labels, series, x_names: None }])
}

/// Draws the panels into `path` (.svg or .png), in a grid.
pub fn panels(path: &Path, panels: Vec<Panel>) -> Result<()> {
    figure(path, None, panels.into_iter().map(Chart::Lines).collect())
}

/// Draws the charts into `path` — SVG or PNG by its extension — as small multiples in a grid, under
/// `title` when given; charts with nothing to draw are left out.
pub fn figure(path: &Path, title: Option<&str>, charts: Vec<Chart>) -> Result<()> {
    let charts: Vec<Chart> = charts.into_iter().filter(|c| !c.is_empty()).collect();
    if charts.is_empty() {
        return Err(Error::usage("nothing to plot"));
    }
    let (cols, (w, h)) = grid(charts.len());
    let rows = charts.len().div_ceil(cols);
    let top = if title.is_some() { FIGURE_TITLE } else { 0 };
    let size = (w * cols as u32, h * rows as u32 + top);
    let err = |e: String| Error::Output(format!("{}: {e}", path.display()));
    text::register();
    // Drawn whole or not at all: a reader never sees half a figure.
    let out = crate::outfile::OutFile::new(path);
    let tmp = out.target().to_path_buf();
    let drawn = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg") => draw_grid(SVGBackend::new(&tmp, size).into_drawing_area(), title, &charts, cols, (w, h)),
        Some("png") => draw_grid(BitMapBackend::new(&tmp, size).into_drawing_area(), title, &charts, cols, (w, h)),
        _ => return Err(Error::usage(format!("cannot plot to {}: use a .svg or .png file name", path.display()))),
    };
    out.finish(drawn.map_err(err))
}

/// One chart alone as SVG text (for the HTML report), at [`CHART_SIZE`].
pub fn svg(chart: &Chart) -> Result<String> {
    text::register();
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, CHART_SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| Error::Output(e.to_string()))?;
        draw::chart(&root, chart).map_err(Error::Output)?;
        root.present().map_err(|e| Error::Output(e.to_string()))?;
    }
    Ok(s)
}

fn draw_grid<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: Option<&str>,
    charts: &[Chart],
    cols: usize,
    (w, h): (u32, u32),
) -> std::result::Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut top = 0;
    if let Some(t) = title {
        let width = root.dim_in_pixel().0 as f64;
        let t = text::fit(t, 17.0, width - 20.0);
        text::Label::new(t, (width as i32 / 2, FIGURE_TITLE as i32 / 2), 17.0, text::Anchor::Middle).draw(&root)?;
        top = FIGURE_TITLE as i32;
    }
    for (i, chart) in charts.iter().enumerate() {
        let (r, c) = ((i / cols) as i32, (i % cols) as i32);
        let x = c * w as i32;
        let y = top + r * h as i32;
        let area = root.clone().shrink((x, y), (w, h));
        draw::chart(&area, chart)?;
    }
    root.present().map_err(|e| e.to_string())
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
            best: Some((0, 0)),
            low_is_good: true,
        };
        let panel = Panel {
            labels: Labels::new("t", "config", "ms"),
            series: vec![s()],
            x_names: Some(vec!["a".into(), "b".into()]),
        };
        figure(&png, Some("two charts"), vec![Chart::Lines(panel), Chart::Heat(heat)]).unwrap();
        let img = image::open(&png).unwrap().to_rgb8();
        let (cols, (w, h)) = grid(2);
        assert_eq!(img.dimensions(), (w * cols as u32, h + FIGURE_TITLE));
        // Not blank: the heatmap's red (slowest) cell is there.
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

    #[test]
    fn grids_fit_a_screen() {
        for n in 1..=20 {
            let (cols, (w, _)) = grid(n);
            assert!(cols as u32 * w <= 1920, "{n} charts");
        }
    }
}
