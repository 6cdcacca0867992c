//! Numbers and units as the profilers print them, converted exactly (one rounding: powers of ten and
//! two are exact): Nsight Compute's SI prefixes (`Kbyte` = 1000 byte, `usecond`, `cycle/nsecond`,
//! `Ghz`) to their base unit, nvprof's binary byte prefixes (`KB` = 1024 B; its `MB/s` and `GB/s` are
//! 2^20 and 2^30 bytes a second: a GTX 1080 file's byte counts and throughputs agree only with those)
//! to warpscope's decimal GB/s, times to ms.

/// How a file writes numbers: `1,234.5` (the default) or `1.234,5`, as Nsight Compute's details page
/// does under a locale with a decimal comma (Spanish, German, ...: `Duration msecond 9,97`, `Elapsed
/// Cycles cycle 13.490.336`). Only a number with one separator followed by exactly three digits
/// (`1.234`, `1,234`) reads differently under the two; every other form says which it is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Locale {
    /// `1,234.5`
    #[default]
    Point,
    /// `1.234,5`
    Comma,
}

impl Locale {
    /// What a number's text says of its file's locale: `9,97`, `13.490.336` and `1.234,5` say Comma,
    /// `1,234.5` says Point; a number with one separator and three digits after it says nothing.
    pub fn evidence(s: &str) -> Option<Locale> {
        let m = mantissa(s.trim().trim_start_matches("(!)").trim());
        let (dots, commas) = (m.matches('.').count(), m.matches(',').count());
        match (dots, commas) {
            (0, 0) => None,
            (_, 0) if dots > 1 => grouped(m, '.').then_some(Locale::Comma),
            (0, _) if commas > 1 => grouped(m, ',').then_some(Locale::Point),
            (1, 0) | (0, 1) => {
                let after = m.rsplit(['.', ',']).next().unwrap_or("");
                match (after.len(), commas) {
                    (3, _) => None,
                    (_, 1) => Some(Locale::Comma),
                    _ => Some(Locale::Point),
                }
            }
            _ if m.rfind(',') > m.rfind('.') => Some(Locale::Comma),
            _ => Some(Locale::Point),
        }
    }
}

impl Locale {
    /// The locale to read `s` in: what `s` says of itself, else the file's so far (`self`), which
    /// then follows it.
    pub fn follow(&mut self, s: &str) -> Locale {
        if let Some(l) = Locale::evidence(s) {
            *self = l;
        }
        *self
    }
}

/// The digits of a number before its exponent and unit (`-1,234.5` of `-1,234.5e3us`).
fn mantissa(s: &str) -> &str {
    let s = s.trim_start_matches(['+', '-']);
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ',')).unwrap_or(s.len());
    &s[..end]
}

/// Whether the integer part of `m` groups its digits by three with `sep` (`1,234,567`, `13.490.336`).
fn grouped(m: &str, sep: char) -> bool {
    let int = match sep {
        ',' => m.split('.').next(),
        _ => m.split(',').next(),
    }
    .unwrap_or("");
    let mut groups = int.split(sep);
    let first = groups.next().unwrap_or("");
    !first.is_empty()
        && first.len() <= 3
        && first.chars().all(|c| c.is_ascii_digit())
        && groups.all(|g| g.len() == 3 && g.chars().all(|c| c.is_ascii_digit()))
}

/// `s` (a whole number as printed) as Rust reads numbers, without grouping and with a decimal point;
/// `None` where its separators fit neither way of writing (`3,14,1`) or it has no digit.
fn plain(s: &str, locale: Locale) -> Option<String> {
    if !s.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let m = mantissa(s);
    if m.ends_with(['.', ',']) {
        return None;
    }
    let (dots, commas) = (m.matches('.').count(), m.matches(',').count());
    let comma = match Locale::evidence(s) {
        Some(l) => l == Locale::Comma,
        None => locale == Locale::Comma && dots + commas > 0,
    };
    let (group, point) = if comma { ('.', ',') } else { (',', '.') };
    // One decimal separator at most, and the grouping must be by threes.
    let ok = match point {
        ',' => commas <= 1 && (dots == 0 || grouped(m, '.')),
        _ => dots <= 1 && (commas == 0 || grouped(m, ',')),
    };
    // `1.234` under a decimal comma is a thousand and more: the dot groups.
    ok.then(|| s.replace(group, "").replace(point, "."))
}

/// A decimal number as printed, without thousands separators: scaling it by a power of ten moves
/// its exponent, so the result is the double nearest the exact decimal (`5.089` us is 0.005089 ms).
#[derive(Clone, Debug, PartialEq)]
pub struct Decimal(String);

impl Decimal {
    /// A decimal from its digits as printed in a file of `locale` (separators made plain).
    pub fn new(digits: &str, locale: Locale) -> Decimal {
        Decimal(plain(digits, locale).unwrap_or_else(|| digits.to_string()))
    }

    /// The value.
    pub fn value(&self) -> f64 {
        self.0.parse().unwrap_or(f64::NAN)
    }

    /// The value times 10^`e`, exactly rounded.
    pub fn scaled(&self, e: i32) -> f64 {
        if e == 0 {
            return self.value();
        }
        let (m, x) = match self.0.split_once(['e', 'E']) {
            Some((m, x)) => (m, x.parse::<i32>().unwrap_or(0)),
            None => (self.0.as_str(), 0),
        };
        format!("{m}e{}", x + e).parse().unwrap_or(f64::NAN)
    }
}

/// A number as profilers print it: thousands separators (`1,227,008`), an exponent (`1.47e-03`), a
/// unit glued on (`35.908GB/s`, `100.00%`), ncu's `(!)` warning mark, a decimal comma where the
/// number says so (`9,97`, `13.490.336`; [`Locale`]). `None` for `n/a`, `nan`, `-`, empty, text,
/// and separators that fit no locale (`3,14,1`).
pub fn decimal(s: &str) -> Option<(Decimal, String)> {
    let (_, digits, unit) = split(s)?;
    Some((Decimal::new(digits, Locale::Point), unit.to_string()))
}

/// [`decimal`]'s value, the number's text and the unit, without allocating.
pub fn split(s: &str) -> Option<(f64, &str, &str)> {
    split_in(s, Locale::Point)
}

/// [`split`] in a file of `locale` (which decides only `1.234` and `1,234`).
pub fn split_in(s: &str, locale: Locale) -> Option<(f64, &str, &str)> {
    let t = s.trim();
    let t = t.strip_prefix("(!)").map(str::trim).unwrap_or(t);
    let run = t.find(|c: char| !(c.is_ascii_digit() || "+-.,eE".contains(c))).unwrap_or(t.len());
    let mut end = run;
    // `2e` before a unit letter, `1.` before a `.`: back off to the longest prefix that parses.
    while end > 0 {
        let cand = &t[..end];
        match plain(cand, locale) {
            Some(p) => {
                if let Ok(v) = p.parse::<f64>() {
                    return v.is_finite().then(|| (v, cand, t[end..].trim()));
                }
            }
            // Separators that fit no way of writing numbers: not a shorter number either.
            None if cand.ends_with(char::is_numeric) && cand.contains([',', '.']) => return None,
            None => {}
        }
        end -= 1;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
    }
    None
}

/// [`decimal`] as a value.
pub fn number(s: &str) -> Option<(f64, String)> {
    split(s).map(|(v, _, u)| (v, u.to_string()))
}

/// The time units both tools print, as powers of ten of a nanosecond.
fn time_ns(word: &str) -> Option<i32> {
    Some(match word {
        "ns" | "nsecond" | "nsec" => 0,
        "us" | "usecond" | "usec" => 3,
        "ms" | "msecond" | "msec" => 6,
        "s" | "second" | "sec" => 9,
        _ => return None,
    })
}

/// The power of ten of an SI prefix (`K`, `M`, `G`, `T`, `P`) in front of a lower-case unit word.
fn si_prefix(word: &str) -> (i32, &str) {
    let mut chars = word.chars();
    let e = match chars.next() {
        Some('K') => 3,
        Some('M') => 6,
        Some('G') => 9,
        Some('T') => 12,
        Some('P') => 15,
        _ => return (0, word),
    };
    let rest = chars.as_str();
    if rest.len() >= 2 && rest.chars().all(|c| c.is_ascii_lowercase()) { (e, rest) } else { (0, word) }
}

/// An Nsight Compute unit in its base unit: the power of ten to scale values by ([`Decimal::scaled`]), and
/// the base unit's name. Times become `ns` (CUPTI's unit for durations), rates stay per second
/// (`cycle/nsecond` -> `cycle/second`), prefixed counts lose their prefix (`Msector` -> `sector`);
/// `%`, unknown and compound units without prefixes are left as printed.
pub fn base(unit: &str) -> (i32, String) {
    let unit = unit.trim();
    let (num, den) = match unit.split_once('/') {
        Some((n, d)) => (n, Some(d)),
        None => (unit, None),
    };
    let (ne, nbase) = match (time_ns(num), den) {
        (Some(e), None) => (e, "ns".to_string()),
        (Some(e), Some(_)) => (e - 9, "second".to_string()),
        (None, _) => {
            let (e, w) = si_prefix(num);
            (e, w.to_string())
        }
    };
    match den {
        None => (ne, nbase),
        Some(d) => {
            let (de, dbase) = match time_ns(d) {
                Some(e) => (e - 9, "second".to_string()),
                None => {
                    let (e, w) = si_prefix(d);
                    (e, w.to_string())
                }
            };
            (ne - de, format!("{nbase}/{dbase}"))
        }
    }
}

/// `v` in `unit` (a time) in milliseconds.
pub fn to_ms(v: &Decimal, unit: &str) -> Option<f64> {
    time_ns(unit.trim()).map(|e| v.scaled(e - 6))
}

/// Power of 1024 of nvprof's byte units (`B`, `KB`, `MB`, `GB`, `TB`; binary prefixes).
fn nvprof_k(unit: &str) -> Option<i32> {
    Some(match unit.trim() {
        "B" => 0,
        "KB" => 1,
        "MB" => 2,
        "GB" => 3,
        "TB" => 4,
        _ => return None,
    })
}

/// `v` in one of nvprof's byte units, in bytes.
pub fn nvprof_bytes(v: f64, unit: &str) -> Option<f64> {
    nvprof_k(unit).map(|k| v * 1024f64.powi(k))
}

/// `v` in one of nvprof's throughput units (`B/s` .. `TB/s`, binary prefixes), in warpscope's GB/s
/// (1e9 bytes/s).
pub fn nvprof_gbs(v: f64, unit: &str) -> Option<f64> {
    let k = nvprof_k(unit.trim().strip_suffix("/s")?)?;
    Some(v * 1024f64.powi(k) / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Option<(f64, String)> {
        number(s)
    }

    #[test]
    fn numbers_as_profilers_print_them() {
        assert_eq!(n("1,227,008"), Some((1_227_008.0, String::new())));
        assert_eq!(n("9,347,227,582.66"), Some((9_347_227_582.66, String::new())));
        assert_eq!(n("35.908GB/s"), Some((35.908, "GB/s".into())));
        assert_eq!(n("100.00%"), Some((100.0, "%".into())));
        assert_eq!(n("1.47e-03"), Some((1.47e-3, String::new())));
        assert_eq!(n("2.048000e+03"), Some((2048.0, String::new())));
        assert_eq!(n("995.02us"), Some((995.02, "us".into())));
        assert_eq!(n("8.43532s"), Some((8.43532, "s".into())));
        assert_eq!(n("0.00000B/s"), Some((0.0, "B/s".into())));
        assert_eq!(n("-5"), Some((-5.0, String::new())));
        assert_eq!(n("2e"), Some((2.0, "e".into())));
        for none in ["n/a", "", "-", "(!) nan", "nan", "abc", "3,14,1", "1.2.3", "cudaFuncCachePreferNone"] {
            assert_eq!(n(none), None, "{none}");
        }
    }

    #[test]
    fn a_decimal_comma_where_the_number_or_its_file_says_so() {
        let at = |s: &str, l: Locale| split_in(s, l).map(|(v, _, u)| (v, u.to_string()));
        // Nsight Compute's details page under a Spanish locale (a course's notes, 2023).
        for (s, want) in [("9,97", 9.97), ("13.490.336", 13_490_336.0), ("9.420.231,80", 9_420_231.8), ("44,19", 44.19)]
        {
            assert_eq!(Locale::evidence(s), Some(Locale::Comma), "{s}");
            assert_eq!(at(s, Locale::Point), Some((want, String::new())), "{s}: says so itself");
        }
        for s in ["1,227,008", "9,347,227,582.66", "6.701347", "0.5"] {
            assert_eq!(Locale::evidence(s), Some(Locale::Point), "{s}");
        }
        // One separator and three digits: the file decides.
        for s in ["1.234", "1,234", "5", "35.908GB/s"] {
            assert_eq!(Locale::evidence(s), None, "{s}");
        }
        assert_eq!(at("1.234", Locale::Point), Some((1.234, String::new())));
        assert_eq!(at("1.234", Locale::Comma), Some((1234.0, String::new())));
        assert_eq!(at("1,234", Locale::Comma), Some((1.234, String::new())));
        assert_eq!(at("1,234", Locale::Point), Some((1234.0, String::new())));
        assert_eq!(Decimal::new("9.420.231,80", Locale::Point).scaled(-3), 9_420.231_8);
        // A trailing separator is not part of the number.
        assert_eq!(at("256,", Locale::Comma), Some((256.0, ",".to_string())));
        let mut file = Locale::default();
        assert_eq!(file.follow("6,72"), Locale::Comma);
        assert_eq!(file.follow("4.478"), Locale::Comma, "an ambiguous number keeps the file's");
        assert_eq!(file.follow("6.701347"), Locale::Point);
    }

    #[test]
    fn ncu_units_to_their_base() {
        assert_eq!(base("usecond"), (3, "ns".into()));
        assert_eq!(base("msecond"), (6, "ns".into()));
        assert_eq!(base("ns"), (0, "ns".into()));
        assert_eq!(base("Kbyte"), (3, "byte".into()));
        assert_eq!(base("Gbyte/second"), (9, "byte/second".into()));
        assert_eq!(base("Tbyte/s"), (12, "byte/second".into()));
        assert_eq!(base("cycle/nsecond"), (9, "cycle/second".into()));
        assert_eq!(base("cycle/usecond"), (6, "cycle/second".into()));
        assert_eq!(base("Ghz"), (9, "hz".into()));
        assert_eq!(base("Msector"), (6, "sector".into()));
        assert_eq!(base("Kbyte/block"), (3, "byte/block".into()));
        assert_eq!(base("register/thread"), (0, "register/thread".into()));
        assert_eq!(base("%"), (0, "%".into()));
        assert_eq!(base("SM"), (0, "SM".into()));
        assert_eq!(base(""), (0, String::new()));
        let d = |s: &str| decimal(s).unwrap().0;
        assert_eq!(d("5.98").scaled(9), 5.98e9);
        assert_eq!(d("659.26").scaled(-3), 0.65926);
        assert_eq!(d("1.47e-03").scaled(3), 1.47);
        assert_eq!(d("1,024.00").scaled(-3), 1.024);
    }

    #[test]
    fn nvprof_units_are_binary() {
        assert_eq!(nvprof_bytes(4.0, "KB"), Some(4096.0));
        assert_eq!(nvprof_gbs(1.0, "GB/s"), Some(1.073741824));
        assert_eq!(nvprof_gbs(1.0, "MB/s"), Some(0.001048576));
        assert_eq!(nvprof_gbs(1.0, "%"), None);
        assert_eq!(to_ms(&decimal("5.089").unwrap().0, "us"), Some(0.005089));
        assert_eq!(to_ms(&decimal("1.5").unwrap().0, "s"), Some(1500.0));
    }
}
