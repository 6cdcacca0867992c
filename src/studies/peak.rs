//! `peak` (source 000): before tuning, measure what the machine gives — the device-to-device copy, copy
//! kernels (one float, one float4, four float4 per thread) and the MAD curve (the copy plus N dependent
//! multiply-adds per element), to see where a kernel stops being memory bound.

use serde::Serialize;

use super::Study;
use crate::Outcome;
use crate::error::Result;
use crate::gpu::Backend;
use crate::kernels::{Copy, CopyKind, Kernel, MAD_COUNTS, Mad};
use crate::output::note;
use crate::record::{Metric, Report, Status};
use crate::report::figures;
use crate::spec::Dim3;
use crate::sweep::{self, Event, Options};

/// Pixels (elements) per second, in giga.
pub const PIXEL_RATE: &str = "pixel_rate";
/// Floating-point operations per second, in giga.
pub const FLOP_RATE: &str = "flop_rate";

/// What `peak` concludes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Device-to-device cuMemcpy, GB/s (read + write).
    pub memcpy_gbs: f64,
    /// The fastest copy kernel and its share of the memcpy bandwidth, %.
    pub best_copy: Option<(String, f64)>,
    /// The smallest N whose rate falls under 90 % of MAD-0's: where the kernel turns compute bound.
    pub compute_bound_from: Option<u32>,
}

/// The kernels `peak` runs, in order: the three copies, then MAD-N for each N of [`MAD_COUNTS`].
fn kernels(nx: u32, ny: u32) -> Result<Vec<Box<dyn Kernel>>> {
    let mut kernels: Vec<Box<dyn Kernel>> = vec![
        Box::new(Copy::new(CopyKind::Float, nx, ny)?),
        Box::new(Copy::new(CopyKind::Float4, nx, ny)?),
        Box::new(Copy::new(CopyKind::Float4x4, nx, ny)?),
    ];
    for &n in MAD_COUNTS {
        kernels.push(Box::new(Mad::new(n, nx, ny)?));
    }
    Ok(kernels)
}

/// How many configurations [`run`] measures (one record each), for a progress bar.
pub fn count(nx: u32, ny: u32) -> Result<usize> {
    Ok(kernels(nx, ny)?.len())
}

/// Runs the copies and the MAD curve on an `nx` x `ny` problem with 1D blocks of `block` threads.
pub fn run(
    backend: &mut dyn Backend,
    nx: u32,
    ny: u32,
    block: u32,
    opts: &Options,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, Summary)> {
    let kernels = kernels(nx, ny)?;
    let blocks = [Dim3::new(block, 1, 1)];
    let mut report: Option<Report> = None;
    for k in &kernels {
        let mut r = sweep::run(backend, k.as_ref(), &blocks, opts, on_event)?;
        let pixels = nx as f64 * ny as f64;
        let flops = k.work().flops as f64;
        for rec in r.records.iter_mut() {
            if let (Status::Ok, Some(t)) = (rec.status, &rec.time_ms) {
                let secs = t.median * 1e-3;
                let source = backend.source();
                rec.metrics.push(Metric {
                    name: PIXEL_RATE.into(),
                    value: pixels / secs / 1e9,
                    unit: "GP/s".into(),
                    source,
                });
                rec.metrics.push(Metric {
                    name: FLOP_RATE.into(),
                    value: flops / secs / 1e9,
                    unit: "GFLOP/s".into(),
                    source,
                });
            }
        }
        match &mut report {
            Some(all) => all.records.extend(r.records),
            None => report = Some(r),
        }
    }
    let report = report.expect("at least one kernel");
    let summary = summarize(&report);
    Ok((report, summary))
}

/// `warpscope peak` once its arguments are checked: measured, the conclusions said, the report written
/// and the MAD curve drawn.
pub struct Request<'a> {
    /// Image width (elements).
    pub nx: u32,
    /// Image height (elements).
    pub ny: u32,
    /// Threads per (1D) block.
    pub block: u32,
    /// How to measure, and where the report and the MAD curve go.
    pub study: Study<'a>,
}

impl Request<'_> {
    /// Runs `peak`; `CheckFailed` when a kernel failed verification.
    pub fn run(&self) -> Result<Outcome> {
        let (out, study) = (self.study.to, &self.study);
        study.check()?;
        let (report, summary) = study.measure(
            || count(self.nx, self.ny),
            |r| r.launch_line(),
            |backend, opts, on_event| run(backend, self.nx, self.ny, self.block, opts, on_event),
        )?;
        out.emit(&report)?;
        if !out.quiet {
            note(&format!("device-to-device memcpy: {:.1} GB/s", summary.memcpy_gbs));
            if let Some((name, pct)) = &summary.best_copy {
                note(&format!("fastest copy kernel: {name}, {pct:.1}% of memcpy"));
            }
            note(&match summary.compute_bound_from {
                Some(n) => format!(
                    "MAD curve: memory bound up to the MAD count before {n}; compute bound from {n} MADs (18+ % under MAD-0's rate from there)"
                ),
                None => format!("MAD curve: memory bound for every N up to {}", MAD_COUNTS.last().unwrap_or(&0)),
            });
        }
        if let Some(path) = study.plot {
            figures::peak(&report, path)?;
            note(&format!("wrote {}", path.display()));
        }
        Ok(Outcome::checked(report.any_failed()))
    }
}

fn value(r: &crate::record::Record, name: &str) -> Option<f64> {
    r.metrics.iter().find(|m| m.name == name).map(|m| m.value)
}

/// The conclusions of a peak report.
pub fn summarize(report: &Report) -> Summary {
    let memcpy_gbs = report.baselines.memcpy_dtod_gbs.as_ref().map(|m| m.value).unwrap_or(f64::NAN);
    let best_copy = report
        .records
        .iter()
        .filter(|r| CopyKind::is_copy(&r.kernel))
        .filter_map(|r| Some((r.kernel.clone(), value(r, crate::metrics::PCT_OF_MEMCPY)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let mad = |n: u32| report.records.iter().find(|r| r.kernel == format!("mad{n}")).and_then(|r| value(r, PIXEL_RATE));
    let compute_bound_from =
        mad(0).and_then(|base| MAD_COUNTS.iter().copied().find(|&n| mad(n).is_some_and(|v| v < 0.9 * base)));
    Summary { memcpy_gbs, best_copy, compute_bound_from }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::MockBackend;

    #[test]
    fn peak_on_the_mock() {
        let mut b = MockBackend::new(0).unwrap();
        let opts = Options { warmup: 1, iters: 2, seed: 3, ..Default::default() };
        let (report, summary) = run(&mut b, 256, 64, 128, &opts, &mut |_| {}).unwrap();
        assert_eq!(report.records.len(), 3 + MAD_COUNTS.len());
        assert!(report.records.iter().all(|r| r.status == Status::Ok));
        assert!(summary.best_copy.is_some());
        let mad96 = report.records.iter().find(|r| r.kernel == "mad96").unwrap();
        assert!(value(mad96, FLOP_RATE).unwrap() > 0.0);
    }
}
