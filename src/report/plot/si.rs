//! Numbers as a reader takes them in at a glance: SI prefixes with their unit (16 M, 1.2 ms, 2.4 TB/s,
//! 75 %) and axis ticks at round values. Every axis, cell label and legend of the figures, and the
//! HTML report's cells, write their numbers through here.

/// How the values of a unit are written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Seconds (s, ms, µs, ns); the factor turns a value in the unit into seconds.
    Time(f64),
    /// Bytes per second (B/s, kB/s, ... TB/s); the factor turns a value into bytes per second.
    Rate(f64),
    /// Percent: `75 %`.
    Percent,
    /// A plain number, with k, M, G, T, P, E for large ones: `16 M`.
    Plain,
}

impl Scale {
    /// The scale of a metric unit as warpscope and the profilers write them (`ms`, `GB/s`, `%`, `count`,
    /// `nsecond`, ...); anything else is plain.
    pub fn of(unit: &str) -> Scale {
        match unit.trim() {
            "s" | "second" | "seconds" => Scale::Time(1.0),
            "ms" | "msecond" => Scale::Time(1e-3),
            "us" | "usecond" | "µs" => Scale::Time(1e-6),
            "ns" | "nsecond" => Scale::Time(1e-9),
            "%" => Scale::Percent,
            "B/s" | "byte/s" | "byte/second" => Scale::Rate(1.0),
            "KB/s" | "kB/s" => Scale::Rate(1e3),
            "MB/s" => Scale::Rate(1e6),
            "GB/s" => Scale::Rate(1e9),
            "TB/s" => Scale::Rate(1e12),
            _ => Scale::Plain,
        }
    }

    /// Whether tick labels carry the unit themselves (time, rates, percent), so that an axis title
    /// need not repeat it.
    pub fn labels_carry_unit(&self) -> bool {
        !matches!(self, Scale::Plain)
    }

    /// The value in the scale's base unit (seconds, bytes per second; others unchanged).
    fn base(&self, v: f64) -> f64 {
        match self {
            Scale::Time(f) | Scale::Rate(f) => v * f,
            _ => v,
        }
    }

    /// Prefixes from the largest down: (factor, text written after the number).
    fn prefixes(&self) -> &'static [(f64, &'static str)] {
        match self {
            Scale::Time(_) => &[(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")],
            Scale::Rate(_) => {
                &[(1e15, "PB/s"), (1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s"), (1.0, "B/s")]
            }
            Scale::Percent => &[(1.0, "%")],
            Scale::Plain => &[(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")],
        }
    }

    /// The prefix for a magnitude (in base units): the largest not above it, else the smallest.
    fn prefix(&self, magnitude: f64) -> (f64, &'static str) {
        let p = self.prefixes();
        p.iter().copied().find(|(f, _)| magnitude >= *f * (1.0 - 1e-9)).unwrap_or(p[p.len() - 1])
    }
}

/// `number unit` with a space, or the number alone when there is no unit text.
fn join(number: String, unit: &str) -> String {
    if unit.is_empty() { number } else { format!("{number} {unit}") }
}

/// `x` to three significant digits, trailing zeros dropped.
fn sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() { "0".into() } else { format!("{x}") };
    }
    let digits = x.abs().log10().floor() as i32 + 1;
    let decimals = (3 - digits).clamp(0, 12) as usize;
    trim(format!("{x:.decimals$}"))
}

/// `1.50` -> `1.5`, `2.00` -> `2`.
fn trim(s: String) -> String {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A value of `unit` to three significant digits with an SI prefix: `format(1.234, "ms")` is `1.23 ms`,
/// `format(16e6, "count")` is `16 M`, `format(75.0, "%")` is `75 %`.
pub fn format(v: f64, unit: &str) -> String {
    let scale = Scale::of(unit);
    if !v.is_finite() {
        return format!("{v}");
    }
    let b = scale.base(v);
    if b == 0.0 {
        return join("0".into(), scale.prefix(1.0).1);
    }
    let (mut f, mut text) = scale.prefix(b.abs());
    // Rounding may carry into the next prefix: 999.7 k is 1 M.
    if (b / f).abs() >= 999.5
        && let Some(&(g, t)) = scale.prefixes().iter().rev().find(|(g, _)| *g > f)
    {
        (f, text) = (g, t);
    }
    join(sig3(b / f), text)
}

/// Round tick positions covering `lo..=hi`, about `max` of them at most: steps of 1, 2 or 5 times a
/// power of ten, in the unit's own values. Returns the ticks, first and last enclosing the range.
pub fn ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    let (lo, hi) = if hi - lo > f64::EPSILON * hi.abs().max(1e-300) {
        (lo, hi)
    } else if lo == 0.0 {
        (0.0, 1.0)
    } else {
        (lo.min(0.0), hi.max(0.0) + (lo.abs() * 1e-9).max(f64::MIN_POSITIVE))
    };
    let step = step(hi - lo, max.max(2) - 1);
    // A bound within rounding of a tick is that tick.
    let first = (lo / step + 1e-9).floor() as i64;
    let last = (hi / step - 1e-9).ceil() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A round step dividing `span` into at most `n` parts.
fn step(span: f64, n: usize) -> f64 {
    let raw = span / n as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let nice = [1.0, 2.0, 5.0, 10.0].into_iter().find(|&s| s >= norm * (1.0 - 1e-9)).unwrap_or(10.0);
    nice * mag
}

/// Labels of evenly spaced ticks in `unit`: one prefix for the axis (by its largest tick) and the
/// decimals the step needs, so that every label is distinct: `0`, `0.5 ms`, `1 ms`, `1.5 ms`.
pub fn tick_labels(ticks: &[f64], unit: &str) -> Vec<String> {
    let scale = Scale::of(unit);
    let base: Vec<f64> = ticks.iter().map(|&t| scale.base(t)).collect();
    let largest = base.iter().fold(0f64, |m, t| m.max(t.abs()));
    let (f, text) = scale.prefix(largest);
    let step = base.windows(2).map(|w| (w[1] - w[0]).abs()).fold(f64::INFINITY, f64::min);
    let decimals = if step.is_finite() && step > 0.0 {
        (0..=6).find(|&d| {
            // The step, shown with d decimals, is a whole number of the last digit.
            let s = step / f * 10f64.powi(d);
            s >= 1.0 - 1e-9 && (s - s.round()).abs() < 1e-6 * s
        })
    } else {
        Some(3)
    };
    // Steps too fine for six decimals (plain numbers far under one): exponent notation.
    let Some(decimals) = decimals.map(|d| d as usize) else {
        let digits = (-(step.log10().floor()) + largest.log10().floor()).clamp(0.0, 12.0) as usize;
        return base.iter().map(|&t| if t == 0.0 { "0".into() } else { format!("{t:.digits$e}") }).collect();
    };
    base.iter()
        .map(|&t| {
            let v = t / f;
            if v.abs() < 1e-12 * largest.max(1e-300) / f {
                "0".to_string()
            } else {
                join(format!("{v:.decimals$}"), text)
            }
        })
        .collect()
}

/// Parses a label written by [`format`](fn@format) or [`tick_labels`] back into a value of `unit` (for tests
/// reading figures back): `1.2 ms` in `ms` is 1.2, `16 M` is 16e6.
pub fn parse(text: &str, unit: &str) -> Option<f64> {
    let scale = Scale::of(unit);
    let text = text.trim();
    let (number, suffix) = match text.split_once(' ') {
        Some((n, s)) => (n, s.trim()),
        None => (text, ""),
    };
    let n: f64 = number.parse().ok()?;
    let factor = if suffix.is_empty() && n == 0.0 {
        1.0
    } else {
        scale.prefixes().iter().find(|(_, t)| *t == suffix).map(|(f, _)| *f)?
    };
    let base = n * factor;
    Some(match scale {
        Scale::Time(f) | Scale::Rate(f) => base / f,
        _ => base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_with_prefixes() {
        assert_eq!(format(1.234, "ms"), "1.23 ms");
        assert_eq!(format(0.85, "ms"), "850 µs");
        assert_eq!(format(1200.0, "ms"), "1.2 s");
        assert_eq!(format(16e6, "count"), "16 M");
        assert_eq!(format(16_384.0, ""), "16.4 k");
        assert_eq!(format(75.0, "%"), "75 %");
        assert_eq!(format(99.94, "%"), "99.9 %");
        assert_eq!(format(2400.0, "GB/s"), "2.4 TB/s");
        assert_eq!(format(850.0, "GB/s"), "850 GB/s");
        assert_eq!(format(999.7e3, "count"), "1 M");
        assert_eq!(format(0.75, "ratio"), "0.75");
        assert_eq!(format(0.0, "ms"), "0 s");
        assert_eq!(format(-3.5, "%"), "-3.5 %");
        assert_eq!(format(1500.0, "nsecond"), "1.5 µs");
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 1.0, 6), [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
        let t = ticks(0.0, 16.7e6, 6);
        assert_eq!((t[0], *t.last().unwrap()), (0.0, 20e6));
        assert_eq!(tick_labels(&t, "count"), ["0", "5 M", "10 M", "15 M", "20 M"]);
        let t = ticks(0.0, 1.09, 6);
        assert_eq!(tick_labels(&t, "ms"), ["0", "0.5 ms", "1.0 ms", "1.5 ms"]);
        let t = ticks(0.0, 2.3, 6);
        assert_eq!(tick_labels(&t, "ms"), ["0", "0.5 ms", "1.0 ms", "1.5 ms", "2.0 ms", "2.5 ms"]);
        assert_eq!(tick_labels(&ticks(0.0, 100.0, 6), "%"), ["0", "20 %", "40 %", "60 %", "80 %", "100 %"]);
        let t = ticks(-12.0, 7.0, 6);
        assert!(t[0] <= -12.0 && *t.last().unwrap() >= 7.0 && t.contains(&0.0), "{t:?}");
        // A flat series still gets an axis.
        assert!(ticks(5.0, 5.0, 6).len() >= 2);
        assert_eq!(ticks(0.0, 0.0, 6), [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
    }

    #[test]
    fn labels_parse_back() {
        for (v, unit) in [(1.234, "ms"), (16e6, "count"), (75.0, "%"), (2400.0, "GB/s"), (0.0, "ms")] {
            let back = parse(&format(v, unit), unit).unwrap();
            assert!((back - v).abs() <= 0.005 * v.abs(), "{v} {unit}: {back}");
        }
        assert!((parse("850 µs", "ms").unwrap() - 0.85).abs() < 1e-12);
        assert_eq!(parse("5 X", "count"), None);
        // Plain numbers far under one: exponents, still distinct, still read back.
        let t = ticks(0.0, 3e-9, 6);
        let labels = tick_labels(&t, "ratio");
        assert_eq!(labels, ["0", "1e-9", "2e-9", "3e-9"]);
        assert_eq!(parse(&labels[2], "ratio"), Some(2e-9));
    }
}
