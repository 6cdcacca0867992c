//! The frame of one chart: title, note and legend on top, then the axes — ticks, tick labels and axis
//! titles — around the plotting rectangle. Every size comes from measured text: category labels that
//! do not fit side by side are turned on end, then thinned out, then shortened; titles are wrapped or
//! shortened; the number of ticks follows the room there is. Nothing drawn here overlaps.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::text::{self, Anchor, Label};
use super::{TICK_COLOR, si};

/// Space around a chart.
pub(super) const PAD: i32 = 10;
/// Chart title.
pub(super) const TITLE_PX: f64 = 14.0;
/// The line under the title.
pub(super) const NOTE_PX: f64 = 11.0;
/// Legend entries.
pub(super) const LEGEND_PX: f64 = 11.0;
/// Axis titles.
pub(super) const AXIS_PX: f64 = 11.5;
/// Tick labels.
pub(super) const TICK_PX: f64 = 10.5;
const TICK_LEN: i32 = 4;
const GAP: i32 = 4;
/// Width of a legend swatch.
const SWATCH: i32 = 14;

type Res<T> = std::result::Result<T, String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// What a legend entry's swatch looks like.
#[derive(Clone, Copy, Debug)]
pub(super) enum Swatch {
    /// A filled square (bars, cells).
    Fill(RGBColor),
    /// A filled circle.
    Dot(RGBColor),
    /// A hollow diamond.
    Diamond(RGBColor),
    /// A short line (a curve).
    Line(RGBColor),
    /// A dashed line (a threshold).
    Dashed(RGBColor),
    /// A pale square (a shaded stretch).
    Pale(RGBColor),
    /// A star (the best configuration).
    Star,
    /// A black outline (the best cell).
    Outline,
    /// A triangle (a marked point).
    Triangle(RGBColor),
}

/// One legend entry.
pub(super) struct Entry {
    /// The swatch.
    pub swatch: Swatch,
    /// What it stands for.
    pub text: String,
}

/// Draws a closed outline through `points` (plotters' SVG rectangles have no stroke width).
pub(super) fn outline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[(i32, i32)],
    style: ShapeStyle,
) -> Res<()> {
    let mut p = points.to_vec();
    p.push(points[0]);
    area.draw(&PathElement::new(p, style)).map_err(err)
}

/// A five-pointed star of outer radius `r` centred on `c`.
pub(super) fn star(c: (i32, i32), r: f64) -> Vec<(i32, i32)> {
    (0..10)
        .map(|k| {
            let a = std::f64::consts::PI * (k as f64 / 5.0 - 0.5);
            let rr = if k % 2 == 0 { r } else { r * 0.45 };
            ((c.0 as f64 + rr * a.cos()).round() as i32, (c.1 as f64 + rr * a.sin()).round() as i32)
        })
        .collect()
}

/// A diamond of half-width `r` centred on `c`.
pub(super) fn diamond(c: (i32, i32), r: i32) -> Vec<(i32, i32)> {
    vec![(c.0, c.1 - r), (c.0 + r, c.1), (c.0, c.1 + r), (c.0 - r, c.1)]
}

/// An upward triangle of half-width `r` centred on `c`.
pub(super) fn triangle(c: (i32, i32), r: i32) -> Vec<(i32, i32)> {
    vec![(c.0, c.1 - r), (c.0 + r, c.1 + r), (c.0 - r, c.1 + r)]
}

fn swatch<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, s: Swatch, (x, y): (i32, i32)) -> Res<()> {
    let c = (x + SWATCH / 2, y);
    match s {
        Swatch::Fill(col) => area.draw(&Rectangle::new([(x + 1, y - 5), (x + SWATCH - 1, y + 5)], col.filled())),
        Swatch::Pale(col) => {
            area.draw(&Rectangle::new([(x + 1, y - 5), (x + SWATCH - 1, y + 5)], col.mix(0.35).filled()))
        }
        Swatch::Dot(col) => area.draw(&Circle::new(c, 4, col.filled())),
        Swatch::Diamond(col) => return outline(area, &diamond(c, 5), col.stroke_width(2)),
        Swatch::Line(col) => area.draw(&PathElement::new(vec![(x, y), (x + SWATCH, y)], col.stroke_width(2))),
        Swatch::Dashed(col) => {
            for k in 0..3 {
                area.draw(&PathElement::new(vec![(x + 5 * k, y), (x + 5 * k + 3, y)], col.stroke_width(2)))
                    .map_err(err)?;
            }
            Ok(())
        }
        Swatch::Star => area.draw(&Polygon::new(star(c, 6.5), BLACK.filled())),
        Swatch::Outline => {
            return outline(
                area,
                &[(x + 1, y - 5), (x + SWATCH - 1, y - 5), (x + SWATCH - 1, y + 5), (x + 1, y + 5)],
                BLACK.stroke_width(2),
            );
        }
        Swatch::Triangle(col) => area.draw(&Polygon::new(triangle(c, 5), col.filled())),
    }
    .map_err(err)
}

/// Draws the title (wrapped to two lines), the note and the legend (entries flowing into rows) across
/// the top of `area`; returns the y below them.
pub(super) fn header<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    note: &str,
    legend: &[Entry],
) -> Res<i32> {
    let w = area.dim_in_pixel().0 as i32;
    let room = (w - 2 * PAD) as f64;
    let mut y = PAD;
    for line in text::wrap(title, TITLE_PX, room, 2) {
        let h = text::line(TITLE_PX) as i32;
        Label::new(line, (w / 2, y + h / 2), TITLE_PX, Anchor::Middle).draw(area)?;
        y += h;
    }
    for line in text::wrap(note, NOTE_PX, room, 2) {
        let h = text::line(NOTE_PX) as i32;
        Label::new(line, (w / 2, y + h / 2), NOTE_PX, Anchor::Middle).colored(RGBColor(60, 60, 60)).draw(area)?;
        y += h;
    }
    if legend.is_empty() {
        return Ok(y + 2);
    }
    y += 3;
    let row = text::line(LEGEND_PX) as i32 + 3;
    let mut x = PAD;
    let mut rows = 1;
    for e in legend {
        let label = text::fit(&e.text, LEGEND_PX, room - (SWATCH + 5) as f64);
        let need = SWATCH + 5 + text::width(&label, LEGEND_PX).ceil() as i32;
        if x > PAD && x + need > w - PAD {
            x = PAD;
            rows += 1;
        }
        let yc = y + (rows - 1) * row + row / 2;
        swatch(area, e.swatch, (x, yc))?;
        Label::new(label, (x + SWATCH + 5, yc), LEGEND_PX, Anchor::Start).draw(area)?;
        x += need + 16;
    }
    Ok(y + rows * row + 2)
}

/// What the x axis shows.
pub(super) enum XSpec<'a> {
    /// Named categories, left to right.
    Categories(&'a [String]),
    /// A numeric range in `unit`, with round ticks, or the `fixed` ones.
    Numeric { lo: f64, hi: f64, unit: &'a str, fixed: Option<&'a [(f64, String)]> },
}

/// What the y axis shows.
pub(super) enum YSpec<'a> {
    /// A numeric range in `unit` (the axis ends on round ticks enclosing it).
    Numeric { lo: f64, hi: f64, unit: &'a str },
    /// Named categories, bottom to top.
    Categories(&'a [String]),
}

/// How values map to pixels along one axis.
#[derive(Clone, Copy, Debug)]
enum Map {
    Linear { lo: f64, hi: f64 },
    Bands { n: usize },
}

/// The plotting rectangle and its two scales.
pub(super) struct Frame {
    /// Left edge, pixels.
    pub left: i32,
    /// Top edge.
    pub top: i32,
    /// Right edge.
    pub right: i32,
    /// Bottom edge.
    pub bottom: i32,
    x: Map,
    y: Map,
}

impl Frame {
    /// Pixel x of a value (numeric axis) or of a category's centre (its index).
    pub fn x(&self, v: f64) -> i32 {
        let w = (self.right - self.left) as f64;
        let p = match self.x {
            Map::Linear { lo, hi } => (v - lo) / (hi - lo) * w,
            Map::Bands { n } => (v + 0.5) * w / n as f64,
        };
        self.left + p.round() as i32
    }

    /// Pixel y of a value (numeric axis) or of a category's centre.
    pub fn y(&self, v: f64) -> i32 {
        let h = (self.bottom - self.top) as f64;
        let p = match self.y {
            Map::Linear { lo, hi } => (v - lo) / (hi - lo) * h,
            Map::Bands { n } => (v + 0.5) * h / n as f64,
        };
        self.bottom - p.round() as i32
    }

    /// Pixel extent of category `i` along x: (left, right).
    pub fn band_x(&self, i: usize) -> (i32, i32) {
        let n = match self.x {
            Map::Bands { n } => n,
            Map::Linear { .. } => 1,
        };
        let w = (self.right - self.left) as f64 / n as f64;
        (self.left + (i as f64 * w).round() as i32, self.left + ((i + 1) as f64 * w).round() as i32)
    }

    /// Pixel extent of category `i` along y: (top, bottom).
    pub fn band_y(&self, i: usize) -> (i32, i32) {
        let n = match self.y {
            Map::Bands { n } => n,
            Map::Linear { .. } => 1,
        };
        let h = (self.bottom - self.top) as f64 / n as f64;
        (self.bottom - ((i + 1) as f64 * h).round() as i32, self.bottom - (i as f64 * h).round() as i32)
    }

    /// The y axis range (numeric axes).
    pub fn y_range(&self) -> (f64, f64) {
        match self.y {
            Map::Linear { lo, hi } => (lo, hi),
            Map::Bands { n } => (0.0, n as f64),
        }
    }
}

/// Tick positions and labels of a numeric axis in `unit` with about `n` ticks.
fn numeric_ticks(lo: f64, hi: f64, unit: &str, n: usize) -> Vec<(f64, String)> {
    let t = si::ticks(lo, hi, n);
    let labels = si::tick_labels(&t, unit);
    t.into_iter().zip(labels).collect()
}

fn widest(labels: &[String], px: f64) -> f64 {
    labels.iter().map(|l| text::width(l, px)).fold(0.0, f64::max)
}

/// How category labels are set along x.
struct XLabels {
    /// Labels (shortened where needed; empty where thinned out).
    text: Vec<String>,
    /// Turned on end (reading upwards).
    turned: bool,
    /// Height they take below the axis.
    height: i32,
}

/// Category labels along a band `band` pixels wide per category, in at most `max_h` pixels of height.
fn category_labels(names: &[String], band: f64, max_h: f64) -> XLabels {
    let line = text::line(TICK_PX);
    let w = widest(names, TICK_PX);
    if w + 6.0 <= band {
        return XLabels { text: names.to_vec(), turned: false, height: line as i32 };
    }
    // On end: one line of text per category; every k-th when even that does not fit.
    let stride = ((line + 2.0) / band).ceil().max(1.0) as usize;
    let len = w.min(max_h);
    let text = names
        .iter()
        .enumerate()
        .map(|(i, n)| if i % stride == 0 { text::fit(n, TICK_PX, len) } else { String::new() })
        .collect::<Vec<_>>();
    let height = widest(&text, TICK_PX).ceil() as i32;
    XLabels { text, turned: true, height }
}

/// Lays out and draws the axes below `top`, leaving `right_reserve` pixels on the right (a colour
/// scale); returns the plotting rectangle with its scales.
pub(super) fn axes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    top: i32,
    right_reserve: i32,
    x: &XSpec<'_>,
    y: &YSpec<'_>,
    titles: (&str, &str),
) -> Res<Frame> {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let line_tick = text::line(TICK_PX);
    let line_axis = text::line(AXIS_PX) as i32;
    // The top tick label is centred on the top edge: half a line of room above it.
    let top = top + (line_tick / 2.0).ceil() as i32 + 2;
    let (x_title, y_title) = titles;

    // y tick labels first (their width sets the left edge), for the room the plot will roughly have.
    let rough_h = (h - top - PAD - 3 * line_axis).max(40) as f64;
    let mut y_ticks: Vec<(f64, String)> = match y {
        YSpec::Numeric { lo, hi, unit } => {
            numeric_ticks(*lo, *hi, unit, (rough_h / (line_tick * 2.2)).clamp(2.0, 8.0) as usize)
        }
        YSpec::Categories(names) => names.iter().enumerate().map(|(i, n)| (i as f64, n.clone())).collect(),
    };
    let y_labels: Vec<String> = y_ticks.iter().map(|t| t.1.clone()).collect();
    let y_label_w = widest(&y_labels, TICK_PX).ceil() as i32;
    let title_col = if y_title.is_empty() { 0 } else { line_axis + GAP };
    let left = PAD + title_col + y_label_w + GAP + TICK_LEN;

    // x labels: their height sets the bottom edge.
    let mut right = w - PAD - right_reserve;
    let bottom_room = (h - top - PAD) as f64;
    let (x_labels, x_ticks): (XLabels, Vec<(f64, String)>) = match x {
        XSpec::Categories(names) => {
            let band = (right - left) as f64 / names.len().max(1) as f64;
            (category_labels(names, band, bottom_room * 0.4), Vec::new())
        }
        XSpec::Numeric { lo, hi, unit, fixed } => {
            let ticks = match fixed {
                Some(t) => t.to_vec(),
                None => numeric_ticks(*lo, *hi, unit, 10),
            };
            let last = ticks.last().map(|t| text::width(&t.1, TICK_PX)).unwrap_or(0.0);
            right = right.min(w - PAD - (last / 2.0).ceil() as i32);
            (XLabels { text: Vec::new(), turned: false, height: line_tick as i32 }, ticks)
        }
    };
    let x_title_h = if x_title.is_empty() { 0 } else { line_axis + GAP };
    let bottom = (h - PAD - x_title_h - x_labels.height - GAP - TICK_LEN).max(top + 20);

    // Numeric x: as many round ticks as fit side by side.
    let x_ticks: Vec<(f64, String)> = match x {
        XSpec::Numeric { lo, hi, unit, fixed } => {
            let span = (right - left) as f64;
            let fits = |t: &[(f64, String)]| {
                let (a, b) = (t.first().map_or(0.0, |v| v.0), t.last().map_or(1.0, |v| v.0));
                let labels: Vec<String> = t.iter().map(|v| v.1.clone()).collect();
                t.len() < 2 || span * (t[1].0 - t[0].0) / (b - a) >= widest(&labels, TICK_PX) + 10.0
            };
            match fixed {
                Some(_) => {
                    // Given ticks: keep every k-th until they fit.
                    let mut k = 1;
                    loop {
                        let kept: Vec<(f64, String)> = x_ticks.iter().step_by(k).cloned().collect();
                        if fits(&kept) || kept.len() <= 2 {
                            break kept;
                        }
                        k += 1;
                    }
                }
                None => (2..=10)
                    .rev()
                    .map(|n| numeric_ticks(*lo, *hi, unit, n))
                    .find(|t| fits(t))
                    .unwrap_or_else(|| numeric_ticks(*lo, *hi, unit, 2)),
            }
        }
        XSpec::Categories(_) => x_ticks,
    };

    // Numeric y: fewer ticks if the plot came out shorter than guessed (labels only get narrower).
    if let YSpec::Numeric { lo, hi, unit } = y {
        let fit = ((bottom - top) as f64 / (line_tick * 1.6)).floor().clamp(2.0, 8.0) as usize;
        if y_ticks.len() > fit {
            y_ticks = numeric_ticks(*lo, *hi, unit, fit);
        }
    }

    let xmap = match x {
        XSpec::Categories(names) => Map::Bands { n: names.len().max(1) },
        XSpec::Numeric { lo, hi, .. } => {
            let a = x_ticks.first().map_or(*lo, |t| t.0.min(*lo));
            let b = x_ticks.last().map_or(*hi, |t| t.0.max(*hi));
            Map::Linear { lo: a, hi: if b > a { b } else { a + 1.0 } }
        }
    };
    let ymap = match y {
        YSpec::Categories(names) => Map::Bands { n: names.len().max(1) },
        YSpec::Numeric { .. } => {
            let (a, b) = (y_ticks.first().map_or(0.0, |t| t.0), y_ticks.last().map_or(1.0, |t| t.0));
            Map::Linear { lo: a, hi: if b > a { b } else { a + 1.0 } }
        }
    };
    let frame = Frame { left, top, right, bottom, x: xmap, y: ymap };

    // Grid lines and the frame.
    let grid = RGBColor(225, 225, 225);
    if let YSpec::Numeric { .. } = y {
        for (v, _) in &y_ticks {
            let py = frame.y(*v);
            area.draw(&PathElement::new(vec![(left, py), (right, py)], grid.stroke_width(1))).map_err(err)?;
        }
    }
    outline(
        area,
        &[(left, top), (right, top), (right, bottom), (left, bottom)],
        RGBColor(150, 150, 150).stroke_width(1),
    )?;

    // y ticks and labels; category rows that cannot all be labelled one above the other get every k-th.
    let axis = RGBColor(90, 90, 90);
    let stride = match y {
        YSpec::Categories(names) => {
            let band = (bottom - top) as f64 / names.len().max(1) as f64;
            ((line_tick + 1.0) / band).ceil().max(1.0) as usize
        }
        YSpec::Numeric { .. } => 1,
    };
    for (i, (v, label)) in y_ticks.iter().enumerate() {
        let py = frame.y(*v);
        if i % stride == 0 {
            area.draw(&PathElement::new(vec![(left - TICK_LEN, py), (left, py)], axis.stroke_width(1))).map_err(err)?;
            Label::new(label.clone(), (left - TICK_LEN - GAP, py), TICK_PX, Anchor::End)
                .colored(TICK_COLOR)
                .draw(area)?;
        }
    }

    // x ticks and labels.
    let label_top = bottom + TICK_LEN + GAP;
    match x {
        XSpec::Categories(_) => {
            let thinned = x_labels.text.iter().any(String::is_empty);
            for (i, label) in x_labels.text.iter().enumerate() {
                let px = frame.x(i as f64);
                // Thinned out: a tick only where a label is.
                if !(thinned && label.is_empty()) {
                    area.draw(&PathElement::new(vec![(px, bottom), (px, bottom + TICK_LEN)], axis.stroke_width(1)))
                        .map_err(err)?;
                }
                if x_labels.turned {
                    Label::new(label.clone(), (px, label_top), TICK_PX, Anchor::End)
                        .rotated(270)
                        .colored(TICK_COLOR)
                        .draw(area)?;
                } else {
                    Label::new(label.clone(), (px, label_top + line_tick as i32 / 2), TICK_PX, Anchor::Middle)
                        .colored(TICK_COLOR)
                        .draw(area)?;
                }
            }
        }
        XSpec::Numeric { .. } => {
            for (v, label) in &x_ticks {
                let px = frame.x(*v);
                area.draw(&PathElement::new(vec![(px, bottom), (px, bottom + TICK_LEN)], axis.stroke_width(1)))
                    .map_err(err)?;
                Label::new(label.clone(), (px, label_top + line_tick as i32 / 2), TICK_PX, Anchor::Middle)
                    .colored(TICK_COLOR)
                    .draw(area)?;
            }
        }
    }

    // Axis titles: x under its labels, y turned along the left edge.
    if !x_title.is_empty() {
        let t = text::fit(x_title, AXIS_PX, (w - 2 * PAD) as f64);
        let half = (text::width(&t, AXIS_PX) / 2.0).ceil() as i32;
        let cx = ((left + right) / 2).clamp(PAD + half, (w - PAD - half).max(PAD + half));
        Label::new(t, (cx, h - PAD - line_axis / 2), AXIS_PX, Anchor::Middle).draw(area)?;
    }
    if !y_title.is_empty() {
        let t = text::fit(y_title, AXIS_PX, (bottom - top) as f64);
        Label::new(t, (PAD + line_axis / 2, (top + bottom) / 2), AXIS_PX, Anchor::Middle).rotated(270).draw(area)?;
    }
    Ok(frame)
}
