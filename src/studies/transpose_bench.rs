//! `transpose --bench` (source 000): every transpose variant over sizes (square, or a fixed width and
//! growing heights), each against the fastest copy kernel measured on the same size in the same run (a
//! transpose moves the same bytes as a copy).

use super::Study;
use crate::Outcome;
use crate::error::Result;
use crate::gpu::Backend;
use crate::kernels::{Copy, CopyKind, Kernel, TRANSPOSES, Transpose};
use crate::metrics::{EFF_BANDWIDTH, PCT};
use crate::output::note;
use crate::record::{Metric, Report, Status};
use crate::report::figures;
use crate::spec::{self, Dim3};
use crate::sweep::{self, Event, Options};

/// Effective bandwidth as % of the fastest copy of the same size.
pub const PCT_OF_COPY: &str = "pct_of_copy";

/// The best transpose of one size.
#[derive(Clone, Debug, PartialEq)]
pub struct Best {
    /// Input width.
    pub width: u32,
    /// Input height.
    pub height: u32,
    /// Kernel entry.
    pub kernel: String,
    /// % of the copy.
    pub pct_of_copy: f64,
}

fn eff(r: &crate::record::Record) -> Option<f64> {
    r.metrics.iter().find(|m| m.name == EFF_BANDWIDTH).map(|m| m.value)
}

/// The kernels measured at one size: the two copies, then every transpose that takes this shape.
fn kernels(w: u32, h: u32) -> Result<Vec<Box<dyn Kernel>>> {
    let mut kernels: Vec<Box<dyn Kernel>> =
        vec![Box::new(Copy::new(CopyKind::Float4, w, h)?), Box::new(Copy::new(CopyKind::Float4x4, w, h)?)];
    for &v in TRANSPOSES {
        if let Ok(t) = Transpose::new(v, w, h) {
            kernels.push(Box::new(t));
        }
    }
    Ok(kernels)
}

/// How many configurations [`run`] measures (one record each), for a progress bar.
pub fn count(width: Option<u32>, sizes: &[u32]) -> Result<usize> {
    sizes.iter().map(|&n| Ok(kernels(width.unwrap_or(n), n)?.len())).sum()
}

/// Runs the copy and every variant at each size — `width` x size when a width is given, else size x
/// size — and returns all records and the best variant per size.
pub fn run(
    backend: &mut dyn Backend,
    width: Option<u32>,
    sizes: &[u32],
    opts: &Options,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, Vec<Best>)> {
    let mut report = Report::new(backend.info().clone());
    let mut best = Vec::new();
    for &n in sizes {
        let (w, h) = (width.unwrap_or(n), n);
        let kernels = kernels(w, h)?;
        let mut records = Vec::new();
        for k in &kernels {
            let natural = TRANSPOSES.iter().find(|v| v.name() == k.name()).map(|v| v.natural_block());
            let r = sweep::run(backend, k.as_ref(), &[natural.unwrap_or(Dim3::new(256, 1, 1))], opts, on_event)?;
            report.baselines = r.baselines;
            records.extend(r.records);
        }
        // The fastest copy of this size is the yardstick.
        let ok = |r: &&mut crate::record::Record| r.status == Status::Ok;
        let copy_gbs = records
            .iter_mut()
            .filter(ok)
            .filter(|r| CopyKind::is_copy(&r.kernel))
            .filter_map(|r| eff(r))
            .fold(f64::NAN, f64::max);
        let mut size_best: Option<Best> = None;
        for rec in records.iter_mut().filter(ok) {
            let Some(gbs) = eff(rec) else { continue };
            let pct = 100.0 * gbs / copy_gbs;
            rec.metrics.push(Metric {
                name: PCT_OF_COPY.into(),
                value: pct,
                unit: PCT.into(),
                source: backend.source(),
            });
            if !CopyKind::is_copy(&rec.kernel) && size_best.as_ref().is_none_or(|b| pct > b.pct_of_copy) {
                size_best = Some(Best { width: w, height: h, kernel: rec.kernel.clone(), pct_of_copy: pct });
            }
        }
        report.records.extend(records);
        best.extend(size_best);
    }
    Ok((report, best))
}

/// `warpscope transpose --bench` once its arguments are checked: measured, the best variant per size and
/// the naive transpose's trend said, the report written and drawn.
pub struct Request<'a> {
    /// Sizes, as a list (`1024,2048` or ranges): square sides, or heights when a width is fixed.
    pub sizes: &'a str,
    /// A fixed width.
    pub width: Option<u32>,
    /// How to measure, and where the report and the figure go.
    pub study: Study<'a>,
}

impl Request<'_> {
    /// Runs the benchmark; `CheckFailed` when a kernel failed verification.
    pub fn run(&self) -> Result<Outcome> {
        let (out, study) = (self.study.to, &self.study);
        study.check()?;
        let sizes = spec::parse_int_list(self.sizes)?;
        let (report, best) = study.measure(
            || count(self.width, &sizes),
            |r| format!("{} {}", r.launch_line(), r.problem),
            |backend, opts, on_event| run(backend, self.width, &sizes, opts, on_event),
        )?;
        out.emit(&report)?;
        if !out.quiet {
            for b in &best {
                note(&format!(
                    "{}x{}: fastest transpose {}, {:.1}% of the fastest copy",
                    b.width, b.height, b.kernel, b.pct_of_copy
                ));
            }
            let naive = naive_series(&report);
            if naive.len() > 1 {
                let list: Vec<String> = naive.iter().map(|(p, g)| format!("{g:.0} ({p})")).collect();
                let falls = naive.windows(2).all(|w| w[1].1 < w[0].1);
                note(&format!(
                    "naive transpose, GB/s: {}: {}",
                    list.join(", "),
                    if falls {
                        "slower at every step, as in the seed"
                    } else {
                        "not monotonically slower (the seed's GPU was)"
                    }
                ));
            }
        }
        if let Some(path) = study.plot {
            figures::transpose_bench(&report, self.width, &sizes, path)?;
            note(&format!("wrote {}", path.display()));
        }
        Ok(Outcome::checked(report.any_failed()))
    }
}

/// The naive transpose's effective bandwidth at each size, in run order: the seed's finding (it slows as
/// the image grows taller) is read off this series.
pub fn naive_series(report: &Report) -> Vec<(String, f64)> {
    report
        .records
        .iter()
        .filter(|r| r.kernel == "transposeNaive" && r.status == Status::Ok)
        .filter_map(|r| Some((r.problem.clone(), eff(r)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::MockBackend;

    #[test]
    fn bench_on_the_mock() {
        let mut b = MockBackend::new(0).unwrap();
        let opts = Options { warmup: 1, iters: 2, seed: 3, ..Default::default() };
        let (report, best) = run(&mut b, None, &[128, 192], &opts, &mut |_| {}).unwrap();
        assert_eq!(report.records.len(), 2 * (2 + TRANSPOSES.len()));
        assert!(report.records.iter().all(|r| r.status == Status::Ok));
        assert_eq!(best.len(), 2);
        let pct = |r: &crate::record::Record| r.metrics.iter().find(|m| m.name == PCT_OF_COPY).unwrap().value;
        let copies: Vec<f64> = report.records[..2].iter().map(pct).collect();
        assert!(copies.iter().any(|&p| (p - 100.0).abs() < 1e-9) && copies.iter().all(|&p| p <= 100.0 + 1e-9));
        let naive = naive_series(&report);
        assert_eq!(naive.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["128x128", "192x192"]);
        // A fixed width: the sizes are heights.
        let (_, best) = run(&mut b, Some(256), &[64, 128], &opts, &mut |_| {}).unwrap();
        assert_eq!(best.iter().map(|b| (b.width, b.height)).collect::<Vec<_>>(), [(256, 64), (256, 128)]);
    }
}
