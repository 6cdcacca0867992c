//! nvprof's number formats, read off its real outputs (each rule names the files it comes from): times
//! scaled per value to a fixed width (`960ns`, `13.792us`, `185.27ms`, `34.1759s`) or, under `-u`, bare
//! numbers under a units row; sizes and throughputs in binary units (`38.147MB`, `5.8163GB/s`,
//! `0.00000B/s`); percentages with two decimals in text and `%f` in CSV; counts whole, `%.4e` past ten
//! digits in text; and one unit per column in CSV (the largest value's).

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

/// C's `%.1e` (`2.4e+03`), nvprof's way out when a time or size does not fit its column.
fn exp(v: f64) -> String {
    exp_with(v, 1)
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

/// nvprof's byte units: binary prefixes (`KB` is 1024 bytes). Every size and throughput of a real nvprof
/// file of CUDA 8 and later agrees only with these: in GPU traces, `1.0000MB` in 87.904us at `11.109GB/s`,
/// `256.00KB` in 23.136us at `10.552GB/s` (P100), `762.94MB` (8e8 bytes) in 239.76ms at `3.1075GB/s`
/// (K20m), `140B` in 1.4400us at `92.718MB/s` (GTX 980), `1B` in 1.2800us at `762.94KB/s` (GTX 1060),
/// the V100 and GTX 1080 fixtures (tests/fixtures/profilers); in metrics, a GTX 1080's
/// `l2_global_load_bytes` 832 at `452.628083MB/s` and `dram_read_bytes` 7136 at `3.791168GB/s` (one
/// duration only with MB = 2^20, GB = 2^30 B), and a V100's 1812095770 `dram_read_transactions` (32 B)
/// at `95.021GB/s` against 160 `sysmem_write_bytes` at `281.000B/s` (the same 0.568 s only with
/// GB = 2^30 B). Older nvprof (CUDA 5, a GT 640M: `409.60KB` for 409600 bytes) was decimal.
const BYTES: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
/// Throughputs stop at GB/s: a GTX 1080's `2779.5GB/s`, a V100's `2503.3GB/s` (never `TB/s`).
const RATES: [&str; 4] = ["B/s", "KB/s", "MB/s", "GB/s"];

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
    scaled(bytes, 1024.0, &BYTES, 8)
}

/// The unit of a CSV size column (the largest value's) and its divisor.
pub fn size_unit(values: impl IntoIterator<Item = f64>) -> (&'static str, f64) {
    let max = values.into_iter().fold(0.0, f64::max);
    let i = rung(max, 1024.0, BYTES.len() - 1);
    (BYTES[i], 1024f64.powi(i as i32))
}

/// A CSV size cell in its column's unit: whole bytes as integers (`400`, `0` under `B` in a GTX 1080's
/// `--csv --print-gpu-trace`), other units `%f`.
pub fn csv_size(bytes: f64, divisor: f64) -> String {
    if divisor == 1.0 { format!("{bytes:.0}") } else { format!("{:.6}", bytes / divisor) }
}

/// A throughput of `bytes_per_second` in ten characters, binary units up to GB/s: `5.8163GB/s`,
/// `865.08MB/s`, `0.00000B/s`, `2779.5GB/s`.
pub fn rate(bytes_per_second: f64) -> String {
    scaled(bytes_per_second, 1024.0, &RATES, 10)
}

/// The unit of a CSV throughput column (the largest value's: `MB/s` in a GTX 1080's trace) and its divisor.
pub fn rate_unit(values: impl IntoIterator<Item = f64>) -> (&'static str, f64) {
    let max = values.into_iter().fold(0.0, f64::max);
    let i = rung(max, 1024.0, RATES.len() - 1);
    (RATES[i], 1024f64.powi(i as i32))
}

/// A throughput in a metrics CSV cell: `%f` with the value's own unit glued on (`9.982896GB/s`,
/// `0.000000B/s` in a K40c's `--csv --metrics`).
pub fn csv_rate(bytes_per_second: f64) -> String {
    let (unit, div) = rate_unit([bytes_per_second]);
    format!("{:.6}{unit}", bytes_per_second / div)
}

/// C's `%.{decimals}e` (`1.5992e+11`, `4.75e-03`).
fn exp_with(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let n: i32 = e.parse().unwrap_or(0);
            format!("{m}e{}{:02}", if n < 0 { '-' } else { '+' }, n.abs())
        }
        None => s,
    }
}

/// A number in a metric table's text cell: as it is when it fits ten characters, else C's `%.4e` (a
/// V100's `inst_executed` `1.5992e+11` beside `9877961505` and `8313747974`; a GTX 1080's
/// `1.7182e+10`).
fn within_ten(s: String, v: f64) -> String {
    if s.len() <= 10 { s } else { exp_with(v, 4) }
}

/// A count in a text table: an integer, or `%.4e` past ten digits.
pub fn count(v: f64) -> String {
    within_ten(format!("{:.0}", v.round()), v)
}

/// A metric value in nvprof's text tables, by the catalogue unit of the value: throughputs as
/// [`rate`], percentages `100.00%`, counts as [`count`], ratios `%f` (`0.660726`; past ten characters
/// `%.4e`, as counts).
pub fn metric(v: f64, unit: &str) -> String {
    match unit {
        metrics::GBPS => rate(v * 1e9),
        metrics::PCT => format!("{v:.2}%"),
        metrics::COUNT => count(v),
        metrics::MS => time(v * 1e6, Times::Auto),
        "ns" => time(v, Times::Auto),
        metrics::RATIO => within_ten(format!("{v:.6}"), v),
        metrics::BYTES => count(v),
        metrics::LEVEL => level(v),
        _ => within_ten(plain(v), v),
    }
}

/// A utilization level as nvprof printed it: the nearest whole level with its word, `Idle (0)`, `Low
/// (1)`-`(3)`, `Mid (4)`-`(6)`, `High (7)`-`(9)`, `Max (10)`.
pub fn level(v: f64) -> String {
    if v.is_nan() {
        return "n/a".into();
    }
    let n = v.round().clamp(0.0, 10.0) as u32;
    let word = match n {
        0 => "Idle",
        1..=3 => "Low",
        4..=6 => "Mid",
        7..=9 => "High",
        _ => "Max",
    };
    format!("{word} ({n})")
}

/// A metric value in nvprof's `--csv --metrics`, by unit: throughputs and percentages keep their unit
/// glued on (`154.670076GB/s`, `93.715659%`), counts are whole numbers however long (a K20c's
/// `50258116400`), ratios `%f`.
pub fn csv_metric(v: f64, unit: &str) -> String {
    match unit {
        metrics::GBPS => csv_rate(v * 1e9),
        metrics::PCT => format!("{v:.6}%"),
        metrics::COUNT => format!("{:.0}", v.round()),
        metrics::MS => format!("{v:.6}ms"),
        "ns" => format!("{v:.6}ns"),
        metrics::RATIO => format!("{v:.6}"),
        metrics::BYTES => format!("{:.0}", v.round()),
        metrics::LEVEL => level(v),
        _ => plain(v),
    }
}

/// A metric's unit in the units row of a CSV trace with metric columns (a GTX 1080's `--csv
/// --print-gpu-trace --metrics all`: `%` over percentages, `MB/s` over a throughput column, nothing
/// over counts and ratios), with the divisor its values are written in.
pub fn csv_column_unit(unit: &str, values: impl IntoIterator<Item = f64>) -> (String, f64) {
    match unit {
        metrics::GBPS => {
            let (u, div) = rate_unit(values.into_iter().map(|v| v * 1e9));
            (u.to_string(), div / 1e9)
        }
        metrics::PCT => ("%".into(), 1.0),
        metrics::MS | "ns" => (unit.to_string(), 1.0),
        _ => (String::new(), 1.0),
    }
}

/// A value under such a units row: bare, `%f` in the column's unit, counts whole.
pub fn csv_column_value(v: f64, unit: &str, divisor: f64) -> String {
    match unit {
        metrics::COUNT | metrics::BYTES => format!("{:.0}", v.round()),
        metrics::LEVEL => level(v),
        metrics::GBPS | metrics::PCT | metrics::MS | "ns" | metrics::RATIO => format!("{:.6}", v / divisor),
        _ => plain(v),
    }
}

/// Ratios and raw values: `%f`, or an integer when the value is one.
fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 && !v.is_nan() { format!("{v:.0}") } else { format!("{v:.6}") }
}

/// A value under a fixed time unit (`-u ms`) in a text table: a bare number in eight characters, C's
/// `%.2e` under 0.01 and from 1000 on. From real `nvprof -u ms` summaries: `0.341204`, `270.1498`,
/// `916.6507`, `4.75e-03`, `9.01e-04`, `1.83e+03` (under a units row `%  ms ... ms`).
pub fn bare(v: f64) -> String {
    if v.abs() < 0.01 || v.abs() >= 1000.0 {
        return exp_with(v, 2);
    }
    fit(v, 8).unwrap_or_else(|| exp_with(v, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_nvprof_printed_them() {
        // Values and spellings from real nvprof summaries and traces (tests/fixtures/nvprof/README.md).
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
            (154_623_000_000.0, "154.623s"),
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
    fn sizes_and_rates_are_binary() {
        assert_eq!(size(40_000_000.0), "38.147MB");
        assert_eq!(size(128.0 * 1024.0 * 1024.0), "128.00MB");
        assert_eq!(size(4096.0), "4.0000KB");
        assert_eq!(size(720_005.0), "703.13KB");
        assert_eq!(size(0.0), "0B");
        assert_eq!(size(512.0), "512B");
        // Real GPU-trace rows: size, duration, throughput as nvprof printed them.
        for (bytes, secs, text) in [
            (40_000_000.0, 6.4049e-3, "5.8163GB/s"), // GT 650M, 38.147MB
            (1_048_576.0, 87.904e-6, "11.109GB/s"),  // 1.0000MB
            (262_144.0, 23.136e-6, "10.552GB/s"),    // P100, 256.00KB
            (8e8, 239.76e-3, "3.1075GB/s"),          // K20m, 762.94MB
            (140.0, 1.44e-6, "92.718MB/s"),          // GTX 980, 140B
            (1.0, 1.28e-6, "762.94KB/s"),            // GTX 1060, 1B
            (80.0, 1.248e-6, "61.133MB/s"),          // M1000M, 80B
        ] {
            assert_eq!(rate(bytes / secs), text, "{bytes} B in {secs} s");
        }
        assert_eq!(rate(0.0), "0.00000B/s");
        assert_eq!(rate(865.08 * 1_048_576.0), "865.08MB/s");
        // No TB/s: a GTX 1080's shared memory at 2779.5GB/s.
        assert_eq!(rate(2779.5 * 1_073_741_824.0), "2779.5GB/s");
        assert_eq!(rate(64.0), "64.0000B/s");
        assert_eq!(csv_rate(9.982896 * 1_073_741_824.0), "9.982896GB/s");
        assert_eq!(csv_rate(0.0), "0.000000B/s");
        assert_eq!(csv_size(400.0, 1.0), "400");
        assert_eq!(csv_size(41_840.0, 1024.0), "40.859375");
    }

    #[test]
    fn metrics_by_unit() {
        // A metric in decimal GB/s is printed in nvprof's binary units: 1 GiB/s is 1.073741824 GB/s.
        assert_eq!(metric(1.073741824 * 35.908, metrics::GBPS), "35.908GB/s");
        assert_eq!(metric(100.0, metrics::PCT), "100.00%");
        assert_eq!(metric(49.96, metrics::PCT), "49.96%");
        assert_eq!(metric(0.501071, metrics::RATIO), "0.501071");
        assert_eq!(metric(0.0, metrics::RATIO), "0.000000");
        assert_eq!(metric(4_194_304.0, metrics::COUNT), "4194304");
        assert_eq!(metric(9_877_961_505.0, metrics::COUNT), "9877961505");
        assert_eq!(metric(159_920_000_000.0, metrics::COUNT), "1.5992e+11");
        assert_eq!(metric(17_182_000_000.0, metrics::COUNT), "1.7182e+10");
        assert_eq!(metric(4.0, metrics::RATIO), "4.000000");
        // Utilization levels with nvprof's word for each (a V100's `Idle (0)`, `Low (3)`, `Mid (6)`, `High (7)`).
        assert_eq!(metric(0.2, metrics::LEVEL), "Idle (0)");
        assert_eq!(metric(1.6, metrics::LEVEL), "Low (2)");
        assert_eq!(metric(5.0, metrics::LEVEL), "Mid (5)");
        assert_eq!(metric(7.04, metrics::LEVEL), "High (7)");
        assert_eq!(metric(9.96, metrics::LEVEL), "Max (10)");
        assert_eq!(csv_metric(3.4, metrics::LEVEL), "Low (3)");
        assert_eq!(csv_column_value(0.0, metrics::LEVEL, 1.0), "Idle (0)");
        assert_eq!(metric(134_217_728.0, metrics::BYTES), "134217728");
        assert_eq!(csv_metric(93.715659, metrics::PCT), "93.715659%");
        assert_eq!(csv_metric(0.917697, metrics::RATIO), "0.917697");
        assert_eq!(csv_metric(50_258_116_400.0, metrics::COUNT), "50258116400");
        assert_eq!(csv_metric(43.996615 * 1.073741824, metrics::GBPS), "43.996615GB/s");
    }

    #[test]
    fn trace_metric_columns_put_units_in_their_row() {
        // A GTX 1080's `--csv --print-gpu-trace --metrics all`: `MB/s` over 452.628083, `%` over
        // 100.000000, nothing over 0.186047 or 106.
        let gld = 452.628083 * 1_048_576.0 / 1e9;
        let (u, div) = csv_column_unit(metrics::GBPS, [gld]);
        assert_eq!((u.as_str(), csv_column_value(gld, metrics::GBPS, div)), ("MB/s", "452.628083".to_string()));
        let (u, div) = csv_column_unit(metrics::PCT, [100.0]);
        assert_eq!((u.as_str(), csv_column_value(100.0, metrics::PCT, div)), ("%", "100.000000".to_string()));
        assert_eq!(csv_column_unit(metrics::RATIO, [0.186047]).0, "");
        assert_eq!(csv_column_value(0.186047, metrics::RATIO, 1.0), "0.186047");
        assert_eq!(csv_column_value(106.0, metrics::COUNT, 1.0), "106");
    }

    #[test]
    fn fixed_units_print_bare_numbers() {
        // `nvprof -u ms` summaries (a V100 and a 2023 run): 0.341204, 270.1498, 916.6507, 9.059401,
        // 16.30650, 4.75e-03, 9.01e-04, 1.83e+03, 1.17e+03.
        for (v, text) in [
            (0.341204, "0.341204"),
            (270.1498, "270.1498"),
            (916.6507, "916.6507"),
            (9.059401, "9.059401"),
            (16.3065, "16.30650"),
            (0.011106, "0.011106"),
            (0.00475, "4.75e-03"),
            (0.000901, "9.01e-04"),
            (1830.0, "1.83e+03"),
            (1170.4, "1.17e+03"),
        ] {
            assert_eq!(bare(v), text, "{v}");
        }
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
