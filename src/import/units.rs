//! Numbers and units as the profilers print them, converted exactly (one rounding: powers of ten and
//! two are exact): Nsight Compute's SI prefixes (`Kbyte` = 1000 byte, `usecond`, `cycle/nsecond`,
//! `Ghz`) to their base unit, nvprof's binary byte prefixes (`KB` = 1024 B; its `MB/s` and `GB/s` are
//! 2^20 and 2^30 bytes a second: a GTX 1080 file's byte counts and throughputs agree only with those)
//! to warpscope's decimal GB/s, times to ms.

/// A decimal number as printed, without thousands separators: scaling it by a power of ten moves
/// its exponent, so the result is the double nearest the exact decimal (`5.089` us is 0.005089 ms).
#[derive(Clone, Debug, PartialEq)]
pub struct Decimal(String);

impl Decimal {
    /// A decimal from its digits (thousands separators are dropped).
    pub fn new(digits: &str) -> Decimal {
        Decimal(digits.replace(',', ""))
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
/// unit glued on (`35.908GB/s`, `100.00%`), ncu's `(!)` warning mark. `None` for `n/a`, `nan`, `-`,
/// empty, text, and for a comma that is not a thousands separator (`3,14` is not guessed at).
pub fn decimal(s: &str) -> Option<(Decimal, String)> {
    let (_, digits, unit) = split(s)?;
    Some((Decimal(digits.replace(',', "")), unit.to_string()))
}

/// [`decimal`]'s value, the number's text and the unit, without allocating.
pub fn split(s: &str) -> Option<(f64, &str, &str)> {
    let t = s.trim();
    let t = t.strip_prefix("(!)").map(str::trim).unwrap_or(t);
    let run = t.find(|c: char| !(c.is_ascii_digit() || "+-.,eE".contains(c))).unwrap_or(t.len());
    let mut end = run;
    // `2e` before a unit letter, `1.` before a `.`: back off to the longest prefix that parses.
    while end > 0 {
        let cand = &t[..end];
        if let Some(v) = parse_plain(cand) {
            return v.is_finite().then(|| (v, cand, t[end..].trim()));
        }
        if cand.contains(',') && !cand.ends_with(',') && !thousands(cand) {
            return None;
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

/// `1,234,567.5` style: digit groups of three after the first.
fn thousands(s: &str) -> bool {
    let s = s.trim_start_matches(['+', '-']);
    let int = s.split(['.', 'e', 'E']).next().unwrap_or("");
    let mut groups = int.split(',');
    let first = groups.next().unwrap_or("");
    !first.is_empty()
        && first.len() <= 3
        && first.chars().all(|c| c.is_ascii_digit())
        && groups.all(|g| g.len() == 3 && g.chars().all(|c| c.is_ascii_digit()))
}

fn parse_plain(s: &str) -> Option<f64> {
    if s.contains(',') {
        return if thousands(s) { s.replace(',', "").parse().ok() } else { None };
    }
    if !s.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
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
        for none in ["n/a", "", "-", "(!) nan", "nan", "abc", "3,14", "cudaFuncCachePreferNone"] {
            assert_eq!(n(none), None, "{none}");
        }
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
