//! nvprof's number formats, read off its real outputs: times scaled per value to a fixed width
//! (`960ns`, `13.792us`, `185.27ms`, `34.1759s`), sizes in binary units (`38.147MB`, `0B`), throughputs
//! to ten characters (`5.8163GB/s`, `0.00000B/s`), percentages with two decimals in text and `%f` in CSV,
//! and one unit per column in CSV (the largest value's).

use crate::metrics;

/// A time unit for output columns (`-u/--normalized-time-unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
}

impl TimeUnit {
    /// Nanoseconds per unit.
    pub fn ns(self) -> f64 {
        match self {
            TimeUnit::S => 1e9,
            TimeUnit::Ms => 1e6,
            TimeUnit::Us => 1e3,
            TimeUnit::Ns => 1.0,
        }
    }

    /// How nvprof wrote the unit.
    pub fn suffix(self) -> &'static str {
        match self {
            TimeUnit::S => "s",
            TimeUnit::Ms => "ms",
            TimeUnit::Us => "us",
            TimeUnit::Ns => "ns",
        }
    }

    /// The unit nvprof picks for a value (or a column's largest value) of `ns` nanoseconds.
    pub fn for_value(ns: f64) -> Self {
        let a = ns.abs();
        if a >= 1e9 {
            TimeUnit::S
        } else if a >= 1e6 {
            TimeUnit::Ms
        } else if a >= 1e3 {
            TimeUnit::Us
        } else {
            TimeUnit::Ns
        }
    }

    fn larger(self) -> Option<Self> {
        match self {
            TimeUnit::Ns => Some(TimeUnit::Us),
            TimeUnit::Us => Some(TimeUnit::Ms),
            TimeUnit::Ms => Some(TimeUnit::S),
            TimeUnit::S => None,
        }
    }
}

/// How the time columns are written: nvprof's `-u` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Times {
    /// Each value in its own unit (text default).
    #[default]
    Auto,
    /// One unit per column, the largest value's (CSV default).
    Column,
    /// This unit everywhere.
    Fixed(TimeUnit),
}

/// `v` in at most `width` characters with as many decimals as fit (none when the integer part alone
/// fills it); `None` when it does not fit, or when rounding carries into a new digit (999.996 ->
/// 1000.00), which nvprof shows in the next unit.
pub fn fit(v: f64, width: usize) -> Option<String> {
    let s = fit_loose(v, width)?;
    let digits = |s: &str| s.trim_start_matches('-').split('.').next().map_or(0, str::len);
    (digits(&s) == digits(&format!("{:.0}", v.trunc()))).then_some(s)
}

/// As [`fit`], but a carry costs a decimal instead (for the largest unit, which has no next one).
fn fit_loose(v: f64, width: usize) -> Option<String> {
    let int_digits = if v.abs() < 1.0 { 1 } else { (v.abs().log10().floor() as usize) + 1 } + usize::from(v < 0.0);
    let decimals = width.saturating_sub(int_digits + 1);
    let s = if decimals == 0 { format!("{v:.0}") } else { format!("{v:.decimals$}") };
    let s = if s.len() > width && decimals > 0 { format!("{v:.*}", decimals - 1) } else { s };
    (s.len() <= width).then_some(s)
}

/// `value` (in base units) on a unit ladder (`units[i]` is `base^i` base units) in `width` characters
/// with the unit, starting at the rung that leaves it under `base`.
fn scaled(value: f64, base: f64, units: &[&str], width: usize) -> String {
    let mut i = rung(value, base, units.len() - 1);
    loop {
        let v = value / base.powi(i as i32);
        let w = width - units[i].len();
        let last = i + 1 == units.len();
        // A value that rounds up to the next unit is shown in it (1023.99 KB -> 1.0000MB).
        let s = if last { fit_loose(v, w) } else { fit(v, w).filter(|s| s.parse::<f64>().is_ok_and(|x| x < base)) };
        match s {
            Some(s) => return format!("{s}{}", units[i]),
            None if !last => i += 1,
            None => return format!("{}{}", exp(v), units[i]),
        }
    }
}

/// C's `%.1e` (`2.4e+03`), nvprof's way out when a value does not fit its column.
fn exp(v: f64) -> String {
    let s = format!("{v:.1e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let n: i32 = e.parse().unwrap_or(0);
            format!("{m}e{}{:02}", if n < 0 { '-' } else { '+' }, n.abs())
        }
        None => s,
    }
}

/// A time as nvprof's text tables printed it: eight characters, its own unit (`960ns`, `2.7689ms`).
pub fn time(ns: f64, times: Times) -> String {
    let mut unit = match times {
        Times::Fixed(u) => u,
        _ => TimeUnit::for_value(ns),
    };
    let fixed = matches!(times, Times::Fixed(_));
    loop {
        let v = ns / unit.ns();
        if unit == TimeUnit::Ns && !fixed {
            if v.round() < 1000.0 {
                return format!("{v:.0}ns");
            }
            unit = TimeUnit::Us;
            continue;
        }
        // A thousand seconds and more: nvprof's exponent (`2.4e+03s`).
        if unit == TimeUnit::S && v.abs() >= 1000.0 {
            return format!("{}s", exp(v));
        }
        let width = 8 - unit.suffix().len();
        let next = unit.larger().filter(|_| !fixed);
        let s = if next.is_some() {
            fit(v, width).filter(|s| s.parse::<f64>().is_ok_and(|x| x < 1000.0))
        } else {
            fit_loose(v, width)
        };
        match (s, next) {
            (Some(s), _) => return format!("{s}{}", unit.suffix()),
            (None, Some(u)) => unit = u,
            (None, None) => return format!("{}{}", exp(v), unit.suffix()),
        }
    }
}

/// A time in CSV: `%f` in the column's unit.
pub fn csv_time(ns: f64, unit: TimeUnit) -> String {
    format!("{:.6}", ns / unit.ns())
}

/// The unit of a CSV time column: the fixed one, else the largest value's.
pub fn column_unit(values_ns: impl IntoIterator<Item = f64>, times: Times) -> TimeUnit {
    match times {
        Times::Fixed(u) => u,
        _ => TimeUnit::for_value(values_ns.into_iter().fold(0.0, f64::max)),
    }
}

const BINARY: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
const DECIMAL_RATE: [&str; 5] = ["B/s", "KB/s", "MB/s", "GB/s", "TB/s"];

/// The index into a unit ladder whose step `base` leaves `v` under `base`.
fn rung(v: f64, base: f64, top: usize) -> usize {
    let mut i = 0;
    let mut x = v.abs();
    while x >= base && i < top {
        x /= base;
        i += 1;
    }
    i
}

/// A size as the GPU trace printed it: binary units, eight characters (`38.147MB`, `4.0000KB`, `0B`).
pub fn size(bytes: f64) -> String {
    if bytes == 0.0 {
        return "0B".into();
    }
    if bytes < 1024.0 {
        return format!("{bytes:.0}B");
    }
    scaled(bytes, 1024.0, &BINARY, 8)
}

/// The unit of a CSV size column (the largest value's) and its divisor.
pub fn size_unit(values: impl IntoIterator<Item = f64>) -> (&'static str, f64) {
    let max = values.into_iter().fold(0.0, f64::max);
    let i = rung(max, 1024.0, BINARY.len() - 1);
    (BINARY[i], 1024f64.powi(i as i32))
}

/// A rate of `per_second` units per second in ten characters with the step `base` (1024 in the GPU
/// trace, 1000 in metrics): `5.8163GB/s`, `0.00000B/s`.
pub fn rate(per_second: f64, base: f64) -> String {
    scaled(per_second, base, &DECIMAL_RATE, 10)
}

/// A rate in a CSV cell, as nvprof wrote metrics there: `%f` with the value's own unit glued on.
pub fn csv_rate(per_second: f64, base: f64) -> String {
    let i = rung(per_second, base, DECIMAL_RATE.len() - 1);
    format!("{:.6}{}", per_second / base.powi(i as i32), DECIMAL_RATE[i])
}

/// A metric value in nvprof's text tables, by the catalogue unit of the value.
pub fn metric(v: f64, unit: &str) -> String {
    match unit {
        metrics::GBPS => rate(v * 1e9, 1000.0),
        metrics::PCT => format!("{v:.2}%"),
        metrics::COUNT => format!("{:.0}", v.round()),
        metrics::MS => time(v * 1e6, Times::Auto),
        "ns" => time(v, Times::Auto),
        metrics::RATIO => format!("{v:.6}"),
        _ => plain(v),
    }
}

/// A metric value in nvprof's CSV, by unit: rates and percentages keep their unit glued on.
pub fn csv_metric(v: f64, unit: &str) -> String {
    match unit {
        metrics::GBPS => csv_rate(v * 1e9, 1000.0),
        metrics::PCT => format!("{v:.6}%"),
        metrics::COUNT => format!("{:.0}", v.round()),
        metrics::MS => format!("{:.6}ms", v),
        "ns" => format!("{:.6}ns", v),
        metrics::RATIO => format!("{v:.6}"),
        _ => plain(v),
    }
}

/// Ratios and raw values: `%f`, or an integer when the value is one.
fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 && !v.is_nan() { format!("{v:.0}") } else { format!("{v:.6}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_nvprof_printed_them() {
        // Values and spellings from real nvprof summaries (tests/fixtures/nvprof/README.md).
        for (ns, text) in [
            (34_175_900_000.0, "34.1759s"),
            (5_286_700_000.0, "5.28670s"),
            (2_768_900.0, "2.7689ms"),
            (160_190_000.0, "160.19ms"),
            (861_800.0, "861.80us"),
            (4_949.0, "4.9490us"),
            (13_792.0, "13.792us"),
            (960.0, "960ns"),
            (358.0, "358ns"),
            (2_400_760_000_000.0, "2.4e+03s"),
        ] {
            assert_eq!(time(ns, Times::Auto), text, "{ns}");
        }
        // Rounding up into the next unit.
        assert_eq!(time(999_999.6, Times::Auto), "1.0000ms");
        assert_eq!(time(2_768_900.0, Times::Fixed(TimeUnit::Us)), "2768.9us");
        assert_eq!(time(5.0, Times::Fixed(TimeUnit::Ms)), "0.0000ms");
        assert_eq!(time(999.7, Times::Auto), "0.9997us");
        assert_eq!(size(1023.9 * 1024.0), "1023.9KB");
        assert_eq!(size(1023.999 * 1024.0), "1.0000MB");
    }

    #[test]
    fn sizes_and_rates() {
        assert_eq!(size(40_000_000.0), "38.147MB");
        assert_eq!(size(128.0 * 1024.0 * 1024.0), "128.00MB");
        assert_eq!(size(4096.0), "4.0000KB");
        assert_eq!(size(720_005.0), "703.13KB");
        assert_eq!(size(0.0), "0B");
        assert_eq!(size(512.0), "512B");
        // GPU trace throughputs are binary: 40e6 B in 6.4049 ms is 5.8163 GiB/s.
        assert_eq!(rate(40_000_000.0 / 6.4049e-3, 1024.0), "5.8163GB/s");
        assert_eq!(rate(262_144.0 / 23.298e-6, 1024.0), "10.479GB/s");
        assert_eq!(rate(0.0, 1000.0), "0.00000B/s");
        assert_eq!(rate(704.77e6, 1000.0), "704.77MB/s");
        assert_eq!(rate(988.69e3, 1000.0), "988.69KB/s");
        assert_eq!(csv_rate(154.670076e9, 1000.0), "154.670076GB/s");
        assert_eq!(csv_rate(715.782047e6, 1000.0), "715.782047MB/s");
    }

    #[test]
    fn metrics_by_unit() {
        assert_eq!(metric(35.908, metrics::GBPS), "35.908GB/s");
        assert_eq!(metric(100.0, metrics::PCT), "100.00%");
        assert_eq!(metric(49.96, metrics::PCT), "49.96%");
        assert_eq!(metric(0.501071, metrics::RATIO), "0.501071");
        assert_eq!(metric(4_194_304.0, metrics::COUNT), "4194304");
        assert_eq!(metric(4.0, metrics::RATIO), "4.000000");
        assert_eq!(csv_metric(93.715659, metrics::PCT), "93.715659%");
        assert_eq!(csv_metric(0.917697, metrics::RATIO), "0.917697");
        assert_eq!(csv_metric(3_611_549_214.0, metrics::COUNT), "3611549214");
    }

    #[test]
    fn csv_columns_take_the_largest_values_unit() {
        assert_eq!(column_unit([1_888.0, 4_643_346.0], Times::Column), TimeUnit::Ms);
        assert_eq!(column_unit([1_888.0, 4_643_346.0], Times::Fixed(TimeUnit::Us)), TimeUnit::Us);
        assert_eq!(column_unit([], Times::Column), TimeUnit::Ns);
        assert_eq!(csv_time(4_643_346.0, TimeUnit::Us), "4643.346000");
        assert_eq!(size_unit([0.0, 0.0]), ("B", 1.0));
        assert_eq!(size_unit([1024.0, 4096.0]), ("KB", 1024.0));
        assert_eq!(size_unit([40e6]).0, "MB");
    }
}
