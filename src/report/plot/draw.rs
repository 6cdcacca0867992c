//! Drawing each kind of chart inside its frame: bars and points per category (the best one starred, a
//! threshold dashed), curves with shaded stretches and marked points, heatmaps with a colour scale.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::{self, Entry, Swatch, XSpec, YSpec};
use super::text::{self, Anchor, Label};
use super::{ALERT, BEST_FILL, Bars, CatSeries, Chart, Curve, Heatmap, MISSING, PALETTE, Panel, Style, si};

type Res<T> = std::result::Result<T, String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Draws `chart` filling `area`.
pub(super) fn chart<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &Chart) -> Res<()> {
    match chart {
        Chart::Lines(p) => panel(area, p),
        Chart::Bars(b) => bars(area, b),
        Chart::Curve(c) => curve(area, c),
        Chart::Heat(h) => heat(area, h),
    }
}

/// The simple form: categories as points, a numeric x as curves.
fn panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel) -> Res<()> {
    let labels = super::Labels::new(p.labels.title.clone(), p.labels.x.clone(), p.labels.y.clone());
    match &p.x_names {
        Some(names) => {
            let series = p
                .series
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let mut values = vec![None; names.len()];
                    for &(x, y) in &s.points {
                        let k = x.round();
                        if k >= 0.0 && (k as usize) < names.len() && y.is_finite() {
                            values[k as usize] = Some(y);
                        }
                    }
                    CatSeries { label: s.label.clone(), color: PALETTE[i % PALETTE.len()], style: Style::Dot, values }
                })
                .collect();
            let unit = p.labels.y.clone();
            bars(
                area,
                &Bars {
                    labels,
                    unit,
                    categories: names.clone(),
                    series,
                    best: None,
                    threshold: None,
                    note: String::new(),
                },
            )
        }
        None => {
            let series =
                p.series.iter().map(|s| super::Series { label: s.label.clone(), points: s.points.clone() }).collect();
            let c = Curve {
                labels,
                x_unit: String::new(),
                y_unit: p.labels.y.clone(),
                series,
                bands: Vec::new(),
                marks: Vec::new(),
                x_ticks: None,
                y_range: None,
                note: String::new(),
                joined: true,
                colors: Vec::new(),
            };
            curve(area, &c)
        }
    }
}

/// Low and high of finite values, with zero included.
fn range_with_zero(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.filter(|v| v.is_finite()).fold((0.0, 0.0), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// Categories beyond which bars and markers would be under two pixels wide: each series is then drawn
/// as one line through its values instead.
const DENSE: usize = 300;

fn bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, b: &Bars) -> Res<()> {
    let dense = b.categories.len() > DENSE;
    let mut legend: Vec<Entry> = b
        .series
        .iter()
        .map(|s| Entry {
            swatch: match s.style {
                _ if dense => Swatch::Line(s.color),
                Style::Bar => Swatch::Fill(s.color),
                Style::Dot => Swatch::Dot(s.color),
                Style::Diamond => Swatch::Diamond(s.color),
            },
            text: s.label.clone(),
        })
        .collect();
    if b.best.is_some() {
        legend.push(Entry { swatch: Swatch::Star, text: "best configuration".into() });
    }
    if let Some(t) = b.threshold {
        legend.push(Entry { swatch: Swatch::Dashed(ALERT), text: format!("threshold ±{}", si::format(t, &b.unit)) });
    }
    let top = frame::header(area, &b.labels.title, &b.note, &legend)?;
    let values = || b.series.iter().flat_map(|s| s.values.iter().flatten().copied());
    let (mut lo, mut hi) = range_with_zero(values());
    if let Some(t) = b.threshold {
        (lo, hi) = (lo.min(-t), hi.max(t));
    }
    let f = frame::axes(
        area,
        top,
        0,
        &XSpec::Categories(&b.categories),
        &YSpec::Numeric { lo, hi, unit: &b.unit },
        (&b.labels.x, &b.labels.y),
    )?;
    if let Some(i) = b.best {
        let (x0, x1) = f.band_x(i);
        area.draw(&Rectangle::new([(x0 + 1, f.top + 1), (x1 - 1, f.bottom - 1)], BEST_FILL.filled())).map_err(err)?;
    }
    let zero = f.y(0.0);
    if f.y_range().0 < 0.0 {
        area.draw(&PathElement::new(vec![(f.left, zero), (f.right, zero)], BLACK.stroke_width(1))).map_err(err)?;
    }
    if dense {
        for s in &b.series {
            let points: Vec<(i32, i32)> = s
                .values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.filter(|v| v.is_finite()).map(|v| (f.x(i as f64), f.y(v))))
                .collect();
            area.draw(&PathElement::new(points, s.color.stroke_width(1))).map_err(err)?;
        }
        return threshold_and_star(area, b, &f);
    }
    let bar_series: Vec<&CatSeries> = b.series.iter().filter(|s| s.style == Style::Bar).collect();
    for (k, s) in bar_series.iter().enumerate() {
        for (i, v) in s.values.iter().enumerate() {
            let Some(v) = v.filter(|v| v.is_finite()) else { continue };
            let (x0, x1) = f.band_x(i);
            let group = ((x1 - x0) as f64 * 0.8).max(1.0);
            let w = group / bar_series.len() as f64;
            let start = x0 as f64 + ((x1 - x0) as f64 - group) / 2.0 + k as f64 * w;
            let (a, c) = (start.round() as i32, ((start + w).round() as i32).max(start.round() as i32 + 1));
            let color = if b.threshold.is_some_and(|t| v.abs() > t) { ALERT } else { s.color };
            let y = f.y(v);
            area.draw(&Rectangle::new([(a, y.min(zero)), (c, y.max(zero))], color.filled())).map_err(err)?;
        }
    }
    for s in b.series.iter().filter(|s| s.style != Style::Bar) {
        for (i, v) in s.values.iter().enumerate() {
            let Some(v) = v.filter(|v| v.is_finite()) else { continue };
            let c = (f.x(i as f64), f.y(v));
            match s.style {
                Style::Dot => {
                    // A white ring keeps a dot visible on a bar of its own colour.
                    area.draw(&Circle::new(c, 6, WHITE.filled())).map_err(err)?;
                    area.draw(&Circle::new(c, 4, s.color.filled())).map_err(err)?;
                }
                _ => frame::outline(area, &frame::diamond(c, 5), s.color.stroke_width(2))?,
            }
        }
    }
    threshold_and_star(area, b, &f)
}

/// The threshold's dashed lines and the best configuration's star, over the values.
fn threshold_and_star<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, b: &Bars, f: &frame::Frame) -> Res<()> {
    if let Some(t) = b.threshold {
        for v in [t, -t] {
            let y = f.y(v);
            let mut x = f.left;
            while x < f.right {
                let e = (x + 6).min(f.right);
                area.draw(&PathElement::new(vec![(x, y), (e, y)], ALERT.stroke_width(1))).map_err(err)?;
                x += 10;
            }
        }
    }
    // The best configuration's star, at the top of its shaded column.
    if let Some(i) = b.best {
        area.draw(&Polygon::new(frame::star((f.x(i as f64), f.top + 9), 6.5), BLACK.filled())).map_err(err)?;
    }
    Ok(())
}

fn curve<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, c: &Curve) -> Res<()> {
    let mut legend: Vec<Entry> = c
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let color = c.color(i);
            Entry { swatch: if c.joined { Swatch::Line(color) } else { Swatch::Dot(color) }, text: s.label.clone() }
        })
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    for b in &c.bands {
        if !seen.contains(&b.label.as_str()) {
            seen.push(&b.label);
            legend.push(Entry { swatch: Swatch::Pale(b.color), text: b.label.clone() });
        }
    }
    for m in &c.marks {
        legend.push(Entry { swatch: Swatch::Triangle(BLACK), text: m.label.clone() });
    }
    let top = frame::header(area, &c.labels.title, &c.note, &legend)?;
    let pts = || c.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    if let Some(t) = &c.x_ticks {
        x0 = t.iter().map(|t| t.0).fold(x0, f64::min);
        x1 = t.iter().map(|t| t.0).fold(x1, f64::max);
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    let (lo, hi) = c.y_range.unwrap_or_else(|| range_with_zero(pts().map(|p| p.1)));
    let f = frame::axes(
        area,
        top,
        0,
        &XSpec::Numeric { lo: x0, hi: x1, unit: &c.x_unit, fixed: c.x_ticks.as_deref() },
        &YSpec::Numeric { lo, hi, unit: &c.y_unit },
        (&c.labels.x, &c.labels.y),
    )?;
    for b in &c.bands {
        let (a, z) = (f.x(b.from).max(f.left), f.x(b.to).min(f.right));
        if z > a {
            area.draw(&Rectangle::new([(a, f.top + 1), (z, f.bottom - 1)], b.color.mix(0.25).filled())).map_err(err)?;
        }
    }
    for (i, s) in c.series.iter().enumerate() {
        let color = c.color(i);
        let points: Vec<(i32, i32)> =
            s.points.iter().filter(|p| p.0.is_finite() && p.1.is_finite()).map(|p| (f.x(p.0), f.y(p.1))).collect();
        if c.joined {
            area.draw(&PathElement::new(points.clone(), color.stroke_width(2))).map_err(err)?;
        }
        if points.len() <= 40 || !c.joined {
            for p in points {
                area.draw(&Circle::new(p, 3, color.filled())).map_err(err)?;
            }
        }
    }
    for m in &c.marks {
        let p = (f.x(m.at.0), f.y(m.at.1));
        area.draw(&Polygon::new(frame::triangle(p, 7), BLACK.filled())).map_err(err)?;
        area.draw(&Polygon::new(frame::triangle(p, 4), ALERT.filled())).map_err(err)?;
    }
    Ok(())
}

/// Blue (good) to red (bad) through pale yellow.
fn heat_color(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let stops = [(49.0, 130.0, 189.0), (255.0, 255.0, 191.0), (215.0, 48.0, 39.0)];
    let (a, b, u) = if t < 0.5 { (stops[0], stops[1], t * 2.0) } else { (stops[1], stops[2], t * 2.0 - 1.0) };
    let lerp = |x: f64, y: f64| (x + (y - x) * u).round() as u8;
    RGBColor(lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
}

/// Whether black or white reads better on `c`.
fn ink_on(c: RGBColor) -> RGBColor {
    let lum = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if lum < 110.0 { WHITE } else { BLACK }
}

/// Width of the colour scale right of a heatmap: the bar and its labels.
const SCALE_BAR: i32 = 12;

fn heat<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, h: &Heatmap) -> Res<()> {
    let vals = || h.values.iter().flatten().flatten().copied().filter(|v| v.is_finite());
    let (lo, hi) = vals().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let (lo, hi) = if lo > hi { (0.0, 1.0) } else { (lo, hi) };
    let mut legend = Vec::new();
    if h.values.iter().flatten().any(Option::is_none) {
        legend.push(Entry { swatch: Swatch::Fill(MISSING), text: "invalid or failed".into() });
    }
    if h.best.is_some() {
        legend.push(Entry { swatch: Swatch::Outline, text: "best configuration".into() });
    }
    let top = frame::header(area, &h.title, "", &legend)?;
    // Values spread over orders of magnitude (the slowest shapes 100x the fastest) get a logarithmic
    // colour scale, so that the fast end is not one colour.
    let log = lo > 0.0 && hi / lo > 20.0;
    let span = if hi > lo { hi - lo } else { 1.0 };
    let to_t = |v: f64| if log { (v / lo).ln() / (hi / lo).ln() } else { (v - lo) / span };
    let from_t = |t: f64| if log { lo * (hi / lo).powf(t) } else { lo + span * t };
    let scale_labels = [si::format(hi, &h.unit), si::format(from_t(0.5), &h.unit), si::format(lo, &h.unit)];
    let label_w = scale_labels.iter().map(|l| text::width(l, frame::TICK_PX)).fold(0.0, f64::max).ceil() as i32;
    let reserve = 10 + SCALE_BAR + 4 + label_w;
    let f = frame::axes(
        area,
        top,
        reserve,
        &XSpec::Categories(&h.columns),
        &YSpec::Categories(&h.rows),
        ("block.x", "block.y"),
    )?;
    let shade = |v: f64| {
        let t = to_t(v);
        heat_color(if h.low_is_good { t } else { 1.0 - t })
    };
    // One size of cell label for every cell, the largest that fits them all; none if 7 px does not.
    let labels: Vec<Vec<String>> = h
        .values
        .iter()
        .map(|row| row.iter().map(|v| v.map(|v| si::format(v, &h.unit)).unwrap_or_else(|| "invalid".into())).collect())
        .collect();
    let (cw, ch) = {
        let (a, b) = f.band_x(0);
        let (c, d) = f.band_y(0);
        ((b - a) as f64, (d - c) as f64)
    };
    let px = [11.0, 10.0, 9.0, 8.0, 7.0]
        .into_iter()
        .find(|&px| text::line(px) <= ch - 2.0 && labels.iter().flatten().all(|l| text::width(l, px) <= cw - 4.0));
    for (r, row) in h.values.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let (x0, x1) = f.band_x(c);
            let (y0, y1) = f.band_y(r);
            let fill = match v {
                Some(v) if v.is_finite() => shade(*v),
                _ => MISSING,
            };
            // A white gap between cells, where cells are wide enough to spare it.
            let (gx, gy) = (i32::from(x1 - x0 >= 6), i32::from(y1 - y0 >= 6));
            area.draw(&Rectangle::new([(x0 + gx, y0 + gy), (x1 - gx, y1 - gy)], fill.filled())).map_err(err)?;
            if let Some(px) = px {
                Label::new(labels[r][c].clone(), ((x0 + x1) / 2, (y0 + y1) / 2), px, Anchor::Middle)
                    .colored(ink_on(fill))
                    .draw(area)?;
            }
        }
    }
    if let Some((r, c)) = h.best {
        let (x0, x1) = f.band_x(c);
        let (y0, y1) = f.band_y(r);
        frame::outline(
            area,
            &[(x0 + 1, y0 + 1), (x1 - 1, y0 + 1), (x1 - 1, y1 - 1), (x0 + 1, y1 - 1)],
            BLACK.stroke_width(3),
        )?;
    }
    // The colour scale: good at the bottom, with its values.
    let x = f.right + 10;
    let steps = 24;
    let hgt = (f.bottom - f.top) as f64;
    for k in 0..steps {
        let ya = f.bottom - (k as f64 * hgt / steps as f64).round() as i32;
        let yb = f.bottom - ((k + 1) as f64 * hgt / steps as f64).round() as i32;
        let t = k as f64 / (steps - 1) as f64;
        let v = from_t(if h.low_is_good { t } else { 1.0 - t });
        area.draw(&Rectangle::new([(x, yb), (x + SCALE_BAR, ya)], shade(v).filled())).map_err(err)?;
    }
    let (good, bad) =
        if h.low_is_good { (&scale_labels[2], &scale_labels[0]) } else { (&scale_labels[0], &scale_labels[2]) };
    // As many of its three labels as fit one above the other.
    let (lx, line) = (x + SCALE_BAR + 4, text::line(frame::TICK_PX) as i32);
    if f.bottom - f.top >= 2 * line + 4 {
        Label::new(bad.clone(), (lx, f.top + line / 2), frame::TICK_PX, Anchor::Start).draw(area)?;
        Label::new(good.clone(), (lx, f.bottom - line / 2), frame::TICK_PX, Anchor::Start).draw(area)?;
    }
    if f.bottom - f.top >= 3 * line + 8 {
        Label::new(scale_labels[1].clone(), (lx, (f.top + f.bottom) / 2), frame::TICK_PX, Anchor::Start).draw(area)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_colours_run_blue_to_red() {
        let (a, b) = (heat_color(0.0), heat_color(1.0));
        assert!(a.2 > a.0 && b.0 > b.2);
        assert_eq!(ink_on(RGBColor(0, 0, 0)), WHITE);
        assert_eq!(ink_on(RGBColor(255, 255, 191)), BLACK);
    }
}
