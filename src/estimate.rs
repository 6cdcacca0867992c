//! Offline estimates: every metric of the sweep table from the models alone, for an arch or a named
//! card, as the same records `sweep` produces (every value marked `estimated`).

use rayon::prelude::*;

use crate::Outcome;
use crate::error::{Error, Input, Names, Result};
use crate::gpu::{DeviceInfo, KernelAttrs};
use crate::kernels::{Kernel, Problem};
use crate::metrics::{self as m, GBPS};
use crate::model::arch::{self, Arch, Card};
use crate::model::occupancy;
use crate::model::time::Target;
use crate::model::{self, resources};
use crate::output::note;
use crate::plan;
use crate::record::{Metric, Record, Report, Source, Status};
use crate::report::{Destination, Visuals};
use crate::spec::{BlockLists, Dim3};

/// `warpscope estimate` once its arguments are taken: a kernel, its problem and block shapes, and the
/// machine to model, as given.
pub struct Request<'a> {
    /// The built-in kernel's name (`None`: none was named, as when a kernel file is given).
    pub kernel: Option<&'a str>,
    /// Its problem size.
    pub problem: Problem,
    /// The block shapes.
    pub blocks: &'a BlockLists,
    /// A card to model by name.
    pub gpu: Option<&'a str>,
    /// A compute capability to model (with its first listed card's sizes).
    pub arch: Option<&'a str>,
    /// Where the report goes.
    pub to: &'a Destination,
    /// The figure and page drawn from it.
    pub visuals: &'a Visuals,
    /// The front end's names of the inputs, for the messages that name them.
    pub names: Names,
    /// A kernel file to estimate instead of a built-in kernel.
    pub kernel_file: Option<FileRequest<'a>>,
}

/// A kernel file to estimate, with its `--size`, `--define` and `--registers` values as given.
pub struct FileRequest<'a> {
    /// The kernel file.
    pub path: &'a std::path::Path,
    /// `NAME=VALUE` sizes.
    pub sizes: &'a [String],
    /// `NAME=VALUES` compile-time parameter values.
    pub defines: &'a [String],
    /// Registers per thread (ptxas's figure), if given.
    pub registers: Option<u32>,
}

impl Request<'_> {
    /// Estimates, says what was modelled, writes the report and draws it.
    pub fn run(&self) -> Result<Outcome> {
        let name = self.names;
        self.to.check()?;
        self.visuals.check()?;
        let Some(kernel) = self.kernel else {
            return self.kernel_file();
        };
        let blocks = self.blocks.shapes()?;
        let kernel = crate::kernels::lookup(kernel, self.problem)?;
        let target = target(self.gpu, self.arch, name)?;
        let (_, regs_from) = attrs(kernel.as_ref(), &target);
        if !self.to.quiet {
            note(&format!(
                "{} {}: {} config{} modelled on {} ({}, {} SMs, {} MHz, {:.0} GB/s achievable), registers from ptxas {regs_from}",
                kernel.name(),
                kernel.problem(),
                blocks.len(),
                if blocks.len() == 1 { "" } else { "s" },
                target.name,
                target.arch.sm_name(),
                target.sms,
                target.clock_mhz,
                target.figures.copy_gbs
            ));
        }
        let report = in_steps(kernel.as_ref(), &blocks, &target, self.to.progress(blocks.len()));
        self.to.emit(&report)?;
        self.visuals.emit(&report)?;
        Ok(Outcome::Ok)
    }

    /// `estimate --kernel-file`: the file's configurations from their PTX (docs/KERNEL-FILE.md).
    fn kernel_file(&self) -> Result<Outcome> {
        let name = self.names;
        let Some(f) = &self.kernel_file else {
            return Err(Error::usage(format!("name a built-in kernel or give {}", name(Input::KernelFile))));
        };
        let sizes = f.sizes.iter().map(|s| crate::userkernel::parse_size(s)).collect::<Result<Vec<_>>>()?;
        let defines = f.defines.iter().map(|d| crate::userkernel::parse_define(d)).collect::<Result<Vec<_>>>()?;
        let file = crate::userkernel::KernelFile::load(f.path, &sizes)?;
        let target = target(self.gpu, self.arch, name)?;
        let blocks = self.blocks.given()?;
        let (report, line) =
            crate::userkernel::estimate::estimate(&file, blocks.as_deref(), &defines, &target, f.registers, name)?;
        if !self.to.quiet {
            note(&line);
        }
        self.to.emit(&report)?;
        self.visuals.emit(&report)?;
        Ok(Outcome::Ok)
    }
}

/// The machine to model: a named card (and its arch, which `arch` when given must be), or an arch with
/// its first listed card's sizes.
pub fn target(gpu: Option<&str>, arch: Option<&str>, name: Names) -> Result<Target> {
    let (card, a): (&Card, &'static Arch) = match (gpu, arch) {
        (Some(g), _) => {
            let card = arch::find_card(g).map_err(Error::usage)?;
            let a = arch::arch(card.cc).ok_or_else(|| Error::usage(format!("{} has no arch row", card.name)))?;
            if let Some(want) = arch {
                let w = arch::parse_arch(want).map_err(Error::usage)?;
                if w.cc != a.cc {
                    return Err(Error::usage(format!(
                        "{} {} is {}, not {}",
                        name(Input::Gpu),
                        card.name,
                        a.sm_name(),
                        w.sm_name()
                    )));
                }
            }
            (card, a)
        }
        (None, Some(s)) => {
            let a = arch::parse_arch(s).map_err(Error::usage)?;
            let card = arch::default_card(a.cc)
                .ok_or_else(|| Error::usage(format!("no card modelled for {}", a.sm_name())))?;
            (card, a)
        }
        (None, None) => {
            return Err(Error::usage(format!(
                "say what to model: {} sm_90 or {} H200 (see `warpscope archs`)",
                name(Input::Arch),
                name(Input::Gpu)
            )));
        }
    };
    Ok(Target::from_card(card, a))
}

/// The estimates in steps of about 1 % of the shapes, so that a long estimate shows a progress bar on a
/// terminal and stops at the next step on Ctrl-C (or SIGTERM, SIGHUP) with what finished.
fn in_steps(kernel: &dyn Kernel, blocks: &[Dim3], target: &Target, bar: indicatif::ProgressBar) -> Report {
    let step = blocks.len().div_ceil(100).max(1);
    let mut report = run(kernel, &blocks[..0], target);
    for (k, chunk) in blocks.chunks(step).enumerate() {
        if crate::signals::stop_requested() {
            break;
        }
        let first = (k * step) as u32;
        report.records.extend(run(kernel, chunk, target).records.into_iter().map(|mut r| {
            r.index = r.index.map(|i| i + first);
            r
        }));
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    report
}

/// The modelled device, for the report's `device` object.
pub fn device(target: &Target) -> DeviceInfo {
    let a = target.arch;
    DeviceInfo {
        sms: Some(target.sms),
        sm_clock_mhz: Some(target.clock_mhz),
        peak_bandwidth_gbs: Some(target.figures.copy_gbs),
        ..DeviceInfo::offline(
            format!("{} (model)", target.name),
            format!("{}.{}", a.cc.0, a.cc.1),
            crate::gpu::Origin::Model,
            a,
        )
    }
}

/// The kernel's compiled resources on the target's arch (ptxas, kernels-ptx/resources.json); the
/// nearest recorded arch stands in for older ones. The second value names the arch used.
pub fn attrs(kernel: &dyn Kernel, target: &Target) -> (KernelAttrs, String) {
    let a = target.arch;
    match resources::nearest(kernel.entry(), a.cc) {
        Some((sm, r)) => (r.attrs(a.max_threads_per_block), sm),
        None => (
            KernelAttrs {
                registers: 32,
                static_smem: 0,
                local_bytes: 0,
                max_threads_per_block: a.max_threads_per_block,
            },
            "assumed".into(),
        ),
    }
}

/// Estimates every block of `blocks` for `kernel` on `target`, the configurations in parallel.
pub fn run(kernel: &dyn Kernel, blocks: &[Dim3], target: &Target) -> Report {
    let mut report = Report::new(device(target));
    let (attrs, _) = attrs(kernel, target);
    let limits = crate::gpu::DeviceLimits::from_arch(target.arch);
    let planned = plan::plan(kernel, blocks, &limits, &attrs);
    report.records = planned
        .into_par_iter()
        .enumerate()
        .map(|(index, p)| {
            let mut r = estimate_one(kernel, target, &attrs, &p);
            r.index = Some(index as u32);
            r
        })
        .collect();
    report
}

/// The theoretical occupancy of a launch of a kernel with these attributes on the target's arch.
pub fn occupancy_of(target: &Target, attrs: &KernelAttrs, launch: &crate::gpu::Launch) -> occupancy::Occupancy {
    occupancy::theoretical(
        target.arch,
        &occupancy::Request {
            block_size: launch.block.volume().min(u32::MAX as u64) as u32,
            regs_per_thread: attrs.registers,
            static_smem: attrs.static_smem,
            dynamic_smem: launch.dynamic_smem,
        },
    )
}

/// One configuration's record: invalid with its reason, or every metric the models give.
pub(crate) fn estimate_one(kernel: &dyn Kernel, target: &Target, attrs: &KernelAttrs, p: &plan::Planned) -> Record {
    let (grid, block) = (p.launch.grid, p.launch.block);
    let occ = occupancy_of(target, attrs, &p.launch);
    let invalid = p
        .invalid
        .clone()
        .or_else(|| occ.reason.clone().map(|r| format!("too many resources requested for launch: {r}")));
    if let Some(reason) = invalid {
        return Record::invalid(kernel.entry(), &kernel.problem(), grid, block, reason);
    }
    let ev = model::evaluate(target, kernel, &p.launch, occ.active_blocks_per_sm, None);
    let t = ev.prediction.time_ms;
    let work = kernel.work();
    let mut metrics = ev.metrics(t, Source::Estimated);
    let eff = crate::metrics::eff_bandwidth_gbs(work.bytes_read + work.bytes_written, t);
    metrics
        .insert(1, Metric { name: m::EFF_BANDWIDTH.into(), value: eff, unit: GBPS.into(), source: Source::Estimated });
    Record {
        metrics,
        bound: Some(ev.prediction.bound.as_str().to_string()),
        ..Record::new(kernel.entry(), &kernel.problem(), grid, block, Status::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SumMatrix;
    use crate::model::arch::{arch, default_card};
    use crate::spec::parse_block_list;

    fn target(cc: (u32, u32)) -> Target {
        Target::from_card(default_card(cc).unwrap(), arch(cc).unwrap())
    }

    fn gld_eff(r: &Record) -> f64 {
        r.metric(m::GLD_EFFICIENCY).unwrap().value
    }

    #[test]
    fn seed_sweep_1_gld_efficiency_on_fermi_and_hopper() {
        let k = SumMatrix::new(1 << 14, 1 << 14).unwrap();
        let blocks = parse_block_list("32x32,32x16,16x32,16x16").unwrap();
        let fermi = run(&k, &blocks, &target((2, 0)));
        assert_eq!(fermi.records.iter().map(gld_eff).collect::<Vec<_>>(), vec![100.0, 100.0, 50.0, 50.0]);
        let hopper = run(&k, &blocks, &target((9, 0)));
        assert!(hopper.records.iter().all(|r| gld_eff(r) == 100.0));
        for r in fermi.records.iter().chain(&hopper.records) {
            assert!(r.metrics.iter().all(|m| m.source == Source::Estimated));
            assert!(r.metric(m::PREDICTED_TIME).unwrap().value > 0.0);
        }
        assert_eq!(fermi.device.backend, crate::gpu::Origin::Model);
    }

    #[test]
    fn fermi_rejects_what_the_seed_saw_rejected() {
        let k = SumMatrix::new(1 << 14, 1 << 14).unwrap();
        let r = run(&k, &parse_block_list("256x8,64x2").unwrap(), &target((2, 0)));
        assert_eq!(r.records[0].status, Status::Invalid);
        assert_eq!(
            r.records[0].reason.as_deref(),
            Some("invalid configuration: 2048 threads per block > 1024 (device limit)")
        );
        // (64,2) on Fermi: the 8-block limit caps theoretical occupancy at 32 of 48 warps.
        let occ = r.records[1].metric(m::THEORETICAL_OCCUPANCY).unwrap().value;
        assert!((occ - 2.0 / 3.0).abs() < 1e-9);
    }
}
