//! `compare --baseline`: two warpscope runs of the same configurations, time against time, each change
//! judged against the runs' own noise, so that a regression check says "slower" only when it is.

use serde::Serialize;

use crate::record::{Record, Report, TimeStats};
use crate::spec::Dim3;

/// What happened to one configuration's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Faster beyond the noise: the new interquartile range lies wholly under the old one.
    Faster,
    /// Slower beyond the noise.
    Slower,
    /// Within the noise.
    Same,
}

impl Verdict {
    /// Name used in outputs.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Same => "same",
        }
    }
}

/// One configuration in both runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// Kernel entry.
    pub kernel: String,
    /// Problem.
    pub problem: String,
    /// Block.
    pub block: Option<Dim3>,
    /// Median in the baseline, ms.
    pub baseline_ms: f64,
    /// Median in the new run, ms.
    pub new_ms: f64,
    /// 100 * (new - baseline) / baseline.
    pub change_pct: f64,
    /// The larger of the two runs' spreads (IQR / median, percent).
    pub noise_pct: f64,
    /// The judgement.
    pub verdict: Verdict,
}

/// The interquartile range, or min-max for records written before quartiles were kept.
fn spread(t: &TimeStats) -> (f64, f64) {
    if t.q3 > 0.0 { (t.q1, t.q3) } else { (t.min, t.max) }
}

fn noise(t: &TimeStats) -> f64 {
    let (lo, hi) = spread(t);
    if t.median > 0.0 { 100.0 * (hi - lo) / t.median } else { 0.0 }
}

fn key(r: &Record) -> (&str, &str, Option<Dim3>) {
    (&r.kernel, &r.problem, r.block)
}

/// Every configuration timed in both runs, in the new run's order, and the new run's configurations
/// with no timed counterpart in the baseline.
pub fn diff(baseline: &Report, new: &Report) -> (Vec<Change>, Vec<String>) {
    let (mut changes, mut unmatched) = (Vec::new(), Vec::new());
    for r in new.records.iter().filter(|r| r.time_ms.is_some()) {
        let t = r.time_ms.as_ref().expect("filtered");
        let Some(b) = baseline.records.iter().filter(|b| key(b) == key(r)).find_map(|b| b.time_ms.as_ref()) else {
            unmatched.push(format!("{} {} {}", r.kernel, r.problem, crate::record::dims(r.block)));
            continue;
        };
        let change_pct = 100.0 * (t.median - b.median) / b.median;
        let noise_pct = noise(t).max(noise(b));
        let ((blo, bhi), (nlo, nhi)) = (spread(b), spread(t));
        let verdict = if change_pct.abs() <= noise_pct {
            Verdict::Same
        } else if nhi < blo {
            Verdict::Faster
        } else if nlo > bhi {
            Verdict::Slower
        } else {
            Verdict::Same
        };
        changes.push(Change {
            kernel: r.kernel.clone(),
            problem: r.problem.clone(),
            block: r.block,
            baseline_ms: b.median,
            new_ms: t.median,
            change_pct,
            noise_pct,
            verdict,
        });
    }
    (changes, unmatched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::DeviceInfo;
    use crate::record::Status;

    fn run(times: &[(u32, &[f64])]) -> Report {
        let mut r = Report::new(DeviceInfo::unknown());
        for (bx, samples) in times {
            let mut rec = Record::invalid("k", "p", Dim3::new(1, 1, 1), Dim3::new(*bx, 1, 1), String::new());
            rec.status = Status::Ok;
            rec.time_ms = TimeStats::from_samples(samples);
            r.records.push(rec);
        }
        r
    }

    #[test]
    fn verdicts_respect_the_noise() {
        let old =
            run(&[(32, &[1.00, 1.01, 1.02, 1.01]), (64, &[1.0, 1.01, 1.02]), (128, &[1.0, 1.5, 2.0]), (256, &[1.0])]);
        let new =
            run(&[(32, &[0.80, 0.81, 0.80, 0.82]), (64, &[1.2, 1.21, 1.22]), (128, &[1.2, 1.6, 2.0]), (512, &[1.0])]);
        let (c, unmatched) = diff(&old, &new);
        let v: Vec<Verdict> = c.iter().map(|c| c.verdict).collect();
        assert_eq!(v, [Verdict::Faster, Verdict::Slower, Verdict::Same]);
        assert!((c[0].change_pct - (-20.3)).abs() < 0.5, "{}", c[0].change_pct);
        assert!((c[2].noise_pct - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(unmatched, ["k p 512x1"]);
    }
}
