//! The one font of every figure (DejaVu Sans, embedded) and the size of a text set in it, so that
//! layouts are computed from the glyphs that will be drawn, never guessed; and the one way text is
//! drawn, so that its anchor, size and rotation are what the layout assumed.

use std::sync::{Once, OnceLock};

use ab_glyph::{Font, FontRef, ScaleFont};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The font family written into SVG files: DejaVu Sans (the font measured here and drawn into PNGs),
/// then the closest common substitutes.
pub const FAMILY: &str = "DejaVu Sans, Verdana, sans-serif";

/// Registers the embedded font under [`FAMILY`] (once).
pub fn register() {
    static FONT: Once = Once::new();
    FONT.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            let _ = plotters::style::register_font(FAMILY, style, dejavu::sans::regular());
        }
    });
}

fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(dejavu::sans::regular()).expect("the embedded DejaVu Sans parses"))
}

/// plotters writes an SVG font size of its own size / 1.24 and draws bitmaps with ab_glyph at its size
/// as the font's full height (ascent - descent): set sizes are SVG pixels, converted here.
const PLOTTERS_PER_SVG_PX: f64 = 1.24;

/// The width of `text` at `px` (SVG font-size, pixels), as drawn into an SVG by a browser that has
/// DejaVu Sans.
pub fn width_exact(text: &str, px: f64) -> f64 {
    let f = font();
    let upem = f.units_per_em().unwrap_or(2048.0) as f64;
    let scale = (px * f.height_unscaled() as f64 / upem) as f32;
    let scaled = f.as_scaled(scale);
    let mut w = 0f32;
    let mut prev = None;
    for c in text.chars() {
        let g = scaled.glyph_id(c);
        if let Some(p) = prev {
            w += scaled.kern(p, g);
        }
        w += scaled.h_advance(g);
        prev = Some(g);
    }
    w as f64
}

/// The width layouts reserve for `text` at `px`: the widest of the SVG and the PNG rendering (plotters'
/// bitmap text comes out about 7 % larger than its SVG text), plus a pixel.
pub fn width(text: &str, px: f64) -> f64 {
    let f = font();
    let upem = f.units_per_em().unwrap_or(2048.0) as f64;
    let bitmap = PLOTTERS_PER_SVG_PX * upem / f.height_unscaled() as f64;
    width_exact(text, px) * bitmap.max(1.0) + 1.0
}

/// The height layouts reserve for a line of text at `px`.
pub fn line(px: f64) -> f64 {
    (px * 1.25).ceil()
}

/// `text` cut to at most `max` pixels wide at `px`, with an ellipsis where it was cut.
pub fn fit(text: &str, px: f64, max: f64) -> String {
    if width(text, px) <= max {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    for n in (0..chars.len()).rev() {
        let s: String = chars[..n].iter().collect::<String>() + "…";
        if width(&s, px) <= max {
            return s;
        }
    }
    String::new()
}

/// `text` broken into lines at most `max` pixels wide at `px` (at spaces; a word wider than a line is
/// cut), at most `lines` of them, the last ending in an ellipsis if text was left over.
pub fn wrap(text: &str, px: f64, max: f64, lines: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let next = if cur.is_empty() { word.to_string() } else { format!("{cur} {word}") };
        if width(&next, px) <= max || cur.is_empty() {
            cur = next;
        } else {
            out.push(std::mem::take(&mut cur));
            cur = word.to_string();
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    if out.len() > lines {
        let rest = out[lines - 1..].join(" ");
        out.truncate(lines - 1);
        out.push(rest);
        let last = out.len() - 1;
        // Left over: the last line ends in an ellipsis.
        out[last] = fit(&(out[last].clone() + " …"), px, max);
    }
    out.into_iter().map(|l| fit(&l, px, max)).collect()
}

/// Horizontal anchor of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The point is the text's start.
    Start,
    /// The point is the text's middle.
    Middle,
    /// The point is the text's end.
    End,
}

/// A text to draw: where, how large, anchored how, and whether turned a quarter left (reading upwards,
/// as y-axis titles) or right (reading downwards).
#[derive(Clone, Debug)]
pub struct Label {
    /// The text.
    pub text: String,
    /// Anchor point, pixels.
    pub at: (i32, i32),
    /// SVG font size, pixels.
    pub px: f64,
    /// Horizontal anchor (along the text's own direction).
    pub anchor: Anchor,
    /// 0: upright; 90: turned right (reads downwards); 270: turned left (reads upwards).
    pub rotate: u16,
    /// Colour.
    pub color: RGBColor,
}

impl Label {
    /// An upright, vertically centred black text.
    pub fn new(text: impl Into<String>, at: (i32, i32), px: f64, anchor: Anchor) -> Self {
        Label { text: text.into(), at, px, anchor, rotate: 0, color: BLACK }
    }

    /// The same text turned by `deg` (90 or 270).
    pub fn rotated(mut self, deg: u16) -> Self {
        self.rotate = deg;
        self
    }

    /// The same text in `color`.
    pub fn colored(mut self, color: RGBColor) -> Self {
        self.color = color;
        self
    }

    /// Draws the text, vertically centred on its anchor point.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        if self.text.is_empty() {
            return Ok(());
        }
        let h = match self.anchor {
            Anchor::Start => HPos::Left,
            Anchor::Middle => HPos::Center,
            Anchor::End => HPos::Right,
        };
        let mut font = (FAMILY, self.px * PLOTTERS_PER_SVG_PX).into_font();
        font = match self.rotate {
            90 => font.transform(FontTransform::Rotate90),
            270 => font.transform(FontTransform::Rotate270),
            _ => font,
        };
        let style = font.color(&self.color).pos(Pos::new(h, VPos::Center));
        area.draw(&Text::new(self.text.clone(), self.at, style)).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_and_fits() {
        let w = width_exact("sumMatrixOnGPU2D", 12.0);
        // DejaVu Sans is a wide face: about 0.6 em per character here.
        assert!(w > 90.0 && w < 125.0, "{w}");
        assert!(width("ms", 12.0) > width_exact("ms", 12.0));
        assert!(width_exact("iiii", 12.0) < width_exact("MMMM", 12.0));
        let cut = fit("a long axis title that does not fit", 12.0, 80.0);
        assert!(cut.ends_with('…') && width(&cut, 12.0) <= 80.0, "{cut}");
        let lines = wrap("one two three four five six seven eight nine ten", 12.0, 90.0, 2);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| width(l, 12.0) <= 90.0), "{lines:?}");
        assert!(lines[1].ends_with('…'));
        assert_eq!(wrap("short", 12.0, 90.0, 2), ["short"]);
    }
}
