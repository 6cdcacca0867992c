//! Reading figures back, as a viewer sees them: every text of an SVG with the box it covers (font size,
//! anchor, baseline shift and rotation applied; widths measured in DejaVu Sans, the font the figures
//! name first), for the check that no two overlap; and the values that a chart's bars, diamonds and
//! heatmap cells stand for, read through its tick labels, for the check against the JSON.

#![allow(dead_code)]

use warpscope::report::plot::{TICK_COLOR, si, text::width_exact};

/// One text element and the box it covers.
#[derive(Clone, Debug)]
pub struct TextBox {
    /// Its text.
    pub text: String,
    /// Anchor point.
    pub x: f64,
    /// Anchor point.
    pub y: f64,
    /// `start`, `middle`, `end`.
    pub anchor: String,
    /// Rotation, degrees.
    pub rotate: f64,
    /// Fill colour, upper case `#RRGGBB`.
    pub fill: String,
    /// Covered box: x0, y0, x1, y1.
    pub bbox: (f64, f64, f64, f64),
}

fn attr(n: roxmltree::Node<'_, '_>, name: &str) -> Option<String> {
    n.attribute(name).map(str::to_string)
}

fn num(n: roxmltree::Node<'_, '_>, name: &str) -> f64 {
    n.attribute(name).and_then(|v| v.parse().ok()).unwrap_or(0.0)
}

/// DejaVu Sans: x-height and ascender/descender, in em.
const X_HEIGHT: f64 = 1120.0 / 2048.0;
const ASCENT: f64 = 0.76;
const DESCENT: f64 = 0.24;

fn text_box(n: roxmltree::Node<'_, '_>) -> Option<TextBox> {
    let text: String = n.descendants().filter(|d| d.is_text()).filter_map(|d| d.text()).collect();
    let text = text.trim().to_string();
    if text.is_empty() {
        return None;
    }
    let (x, y, size) = (num(n, "x"), num(n, "y"), num(n, "font-size"));
    let dy = match n.attribute("dy").unwrap_or("0") {
        "0.76em" => 0.76 * size,
        "0.5ex" => 0.5 * X_HEIGHT * size,
        "-0.5ex" => -0.5 * X_HEIGHT * size,
        other => other.trim_end_matches("px").parse().unwrap_or(0.0),
    };
    let w = width_exact(&text, size);
    let anchor = n.attribute("text-anchor").unwrap_or("start").to_string();
    let x0 = match anchor.as_str() {
        "middle" => x - w / 2.0,
        "end" => x - w,
        _ => x,
    };
    let base = y + dy;
    let corners = [
        (x0, base - ASCENT * size),
        (x0 + w, base - ASCENT * size),
        (x0, base + DESCENT * size),
        (x0 + w, base + DESCENT * size),
    ];
    // rotate(a, cx, cy): about the anchor point, clockwise on screen.
    let (rotate, cx, cy) = match n.attribute("transform") {
        Some(t) if t.starts_with("rotate(") => {
            let v: Vec<f64> = t
                .trim_start_matches("rotate(")
                .trim_end_matches(')')
                .split(',')
                .map(|s| s.trim().parse().unwrap_or(0.0))
                .collect();
            (v[0], v.get(1).copied().unwrap_or(0.0), v.get(2).copied().unwrap_or(0.0))
        }
        _ => (0.0, 0.0, 0.0),
    };
    let (s, c) = rotate.to_radians().sin_cos();
    let pts: Vec<(f64, f64)> = corners
        .iter()
        .map(|&(px, py)| (cx + (px - cx) * c - (py - cy) * s, cy + (px - cx) * s + (py - cy) * c))
        .collect();
    let bbox = pts.iter().fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |b, p| {
        (b.0.min(p.0), b.1.min(p.1), b.2.max(p.0), b.3.max(p.1))
    });
    Some(TextBox {
        text,
        x,
        y,
        anchor,
        rotate: rotate.rem_euclid(360.0),
        fill: attr(n, "fill").unwrap_or_default().to_uppercase(),
        bbox,
    })
}

/// Every `<svg>` of a document (an SVG file or an HTML page), as the text boxes of each.
pub fn svg_texts(doc: &str) -> Vec<Vec<TextBox>> {
    let doc = roxmltree::Document::parse_with_options(
        doc,
        roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() },
    )
    .expect("well-formed");
    doc.descendants()
        .filter(|n| n.tag_name().name() == "svg")
        .map(|svg| svg.descendants().filter(|n| n.tag_name().name() == "text").filter_map(text_box).collect())
        .collect()
}

/// The pairs of texts whose boxes overlap by more than half a pixel both ways.
pub fn overlapping(boxes: &[TextBox]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            let w = a.bbox.2.min(b.bbox.2) - a.bbox.0.max(b.bbox.0);
            let h = a.bbox.3.min(b.bbox.3) - a.bbox.1.max(b.bbox.1);
            if w > 0.5 && h > 0.5 {
                out.push((a.text.clone(), b.text.clone()));
            }
        }
    }
    out
}

/// `#RRGGBB` of a colour.
pub fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// A filled rectangle.
#[derive(Clone, Debug)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub fill: String,
}

/// One chart read back.
pub struct Chart {
    pub texts: Vec<TextBox>,
    pub rects: Vec<Rect>,
    /// Closed or open polylines: stroke colour and points.
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
}

/// Every chart (each `<svg>`) of a document.
pub fn charts(doc: &str) -> Vec<Chart> {
    let parsed = roxmltree::Document::parse_with_options(
        doc,
        roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() },
    )
    .expect("well-formed");
    parsed
        .descendants()
        .filter(|n| n.tag_name().name() == "svg")
        .map(|svg| {
            let all = || svg.descendants();
            Chart {
                texts: all().filter(|n| n.tag_name().name() == "text").filter_map(text_box).collect(),
                rects: all()
                    .filter(|n| n.tag_name().name() == "rect" && n.attribute("fill") != Some("none"))
                    .map(|n| Rect {
                        x: num(n, "x"),
                        y: num(n, "y"),
                        w: num(n, "width"),
                        h: num(n, "height"),
                        fill: attr(n, "fill").unwrap_or_default().to_uppercase(),
                    })
                    .collect(),
                lines: all()
                    .filter(|n| n.tag_name().name() == "polyline")
                    .map(|n| {
                        let pts = n
                            .attribute("points")
                            .unwrap_or("")
                            .split_whitespace()
                            .filter_map(|p| {
                                let (a, b) = p.split_once(',')?;
                                Some((a.parse().ok()?, b.parse().ok()?))
                            })
                            .collect();
                        (attr(n, "stroke").unwrap_or_default().to_uppercase(), pts)
                    })
                    .collect(),
            }
        })
        .collect()
}

impl Chart {
    /// The part of a figure's grid inside a rectangle (one chart): texts by their anchor, shapes by
    /// their first point.
    pub fn region(&self, (x0, y0, x1, y1): (f64, f64, f64, f64)) -> Chart {
        let inside = |x: f64, y: f64| x >= x0 && x < x1 && y >= y0 && y < y1;
        Chart {
            texts: self.texts.iter().filter(|t| inside(t.x, t.y)).cloned().collect(),
            rects: self.rects.iter().filter(|r| inside(r.x, r.y)).cloned().collect(),
            lines: self.lines.iter().filter(|l| l.1.first().is_some_and(|p| inside(p.0, p.1))).cloned().collect(),
        }
    }

    /// Pixel x to a value in `unit`, through the outermost numeric x tick labels.
    pub fn x_scale(&self, unit: &str) -> impl Fn(f64) -> f64 {
        let t: Vec<(f64, f64)> =
            self.x_labels().into_iter().filter_map(|(px, label)| Some((px, si::parse(&label, unit)?))).collect();
        let (a, b) = (t[0], t[t.len() - 1]);
        move |px: f64| a.1 + (px - a.0) * (b.1 - a.1) / (b.0 - a.0)
    }

    /// The points of the longest line drawn in `stroke` (a curve; legend swatches have two points), as
    /// values through the tick labels.
    pub fn curve(&self, stroke: &str, x_unit: &str, y_unit: &str) -> Vec<(f64, f64)> {
        let (fx, (fy, _)) = (self.x_scale(x_unit), self.y_scale(y_unit));
        let line = self.lines.iter().filter(|(s, _)| s == stroke).max_by_key(|(_, p)| p.len()).expect("a curve");
        line.1.iter().map(|&(x, y)| (fx(x), fy(y))).collect()
    }

    /// The chart's title: the first text drawn.
    pub fn title(&self) -> &str {
        &self.texts[0].text
    }

    fn ticks(&self) -> impl Iterator<Item = &TextBox> {
        let c = hex(TICK_COLOR);
        self.texts.iter().filter(move |t| t.fill == c)
    }

    /// The y tick labels, top to bottom: (pixel y, text).
    pub fn y_ticks(&self) -> Vec<(f64, String)> {
        let mut t: Vec<(f64, String)> =
            self.ticks().filter(|t| t.anchor == "end" && t.rotate == 0.0).map(|t| (t.y, t.text.clone())).collect();
        t.sort_by(|a, b| a.0.total_cmp(&b.0));
        t
    }

    /// The x tick labels, left to right: (pixel x, text).
    pub fn x_labels(&self) -> Vec<(f64, String)> {
        let mut t: Vec<(f64, String)> = self
            .ticks()
            .filter(|t| (t.anchor == "end" && t.rotate == 270.0) || (t.anchor == "middle" && t.rotate == 0.0))
            .map(|t| (t.x, t.text.clone()))
            .collect();
        t.sort_by(|a, b| a.0.total_cmp(&b.0));
        t
    }

    /// Pixel y to a value in `unit`, through the outermost y tick labels; and the value of one pixel.
    pub fn y_scale(&self, unit: &str) -> (impl Fn(f64) -> f64, f64) {
        let t = self.y_ticks();
        let (top, bottom) = (&t[0], &t[t.len() - 1]);
        let (vt, vb) = (si::parse(&top.1, unit).expect("tick label"), si::parse(&bottom.1, unit).expect("tick label"));
        let per_px = (vt - vb) / (bottom.0 - top.0);
        let (y0, v0) = (bottom.0, vb);
        (move |py: f64| v0 + (y0 - py) * per_px, per_px.abs())
    }

    /// The plot's top and bottom pixel rows (the outermost y ticks).
    fn plot_rows(&self) -> (f64, f64) {
        let t = self.y_ticks();
        (t[0].0, t[t.len() - 1].0)
    }

    /// Values of the bars of colour `fill`, left to right (a bar's far end from zero).
    pub fn bars(&self, fill: &str, unit: &str) -> Vec<f64> {
        self.bars_of(&[fill.to_string()], unit)
    }

    /// Values of the bars of any of the colours `fills`, left to right.
    pub fn bars_of(&self, fills: &[String], unit: &str) -> Vec<f64> {
        let (to_value, _) = self.y_scale(unit);
        let (top, bottom) = self.plot_rows();
        let zero = {
            // The pixel of zero: where the scale gives 0.
            let (a, b) = (to_value(top), to_value(bottom));
            top + (bottom - top) * a / (a - b)
        };
        let mut bars: Vec<&Rect> = self
            .rects
            .iter()
            .filter(|r| fills.contains(&r.fill) && r.y >= top - 1.0 && r.y + r.h <= bottom + 1.0)
            .collect();
        bars.sort_by(|a, b| a.x.total_cmp(&b.x));
        // A bar runs from zero: its far end is the one further from the zero line.
        bars.iter()
            .map(|r| if (r.y - zero).abs() > (r.y + r.h - zero).abs() { to_value(r.y) } else { to_value(r.y + r.h) })
            .collect()
    }

    /// Values of the diamonds drawn in `stroke`, left to right.
    pub fn diamonds(&self, stroke: &str, unit: &str) -> Vec<f64> {
        let (to_value, _) = self.y_scale(unit);
        let (top, bottom) = self.plot_rows();
        let mut d: Vec<(f64, f64)> = self
            .lines
            .iter()
            .filter(|(s, p)| s == stroke && p.len() == 5 && p[0] == p[4] && p[0].0 == p[2].0 && p[1].1 == p[3].1)
            .map(|(_, p)| (p[0].0, (p[0].1 + p[2].1) / 2.0))
            .filter(|(_, y)| *y >= top - 1.0 && *y <= bottom + 1.0)
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0));
        d.iter().map(|&(_, y)| to_value(y)).collect()
    }

    /// A heatmap's cell labels: (row label, column label, text), rows named by the y labels and columns
    /// by the x labels nearest the cell's centre.
    pub fn cells(&self) -> Vec<(String, String, String)> {
        let rows = self.y_ticks();
        let cols = self.x_labels();
        let nearest = |v: f64, of: &[(f64, String)]| {
            of.iter()
                .min_by(|a, b| (a.0 - v).abs().total_cmp(&(b.0 - v).abs()))
                .map(|t| t.1.clone())
                .unwrap_or_default()
        };
        let (top, bottom) = (rows[0].0 - 30.0, rows[rows.len() - 1].0 + 30.0);
        self.texts
            .iter()
            .filter(|t| (t.fill == "#000000" || t.fill == "#FFFFFF") && t.anchor == "middle" && t.rotate == 0.0)
            .filter(|t| t.y > top && t.y < bottom && t.x > cols[0].0 - 60.0 && t.x < cols[cols.len() - 1].0 + 60.0)
            .map(|t| (nearest(t.y, &rows), nearest(t.x, &cols), t.text.clone()))
            .collect()
    }
}
