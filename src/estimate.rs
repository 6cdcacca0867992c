//! Offline estimates: every metric of the sweep table from the models alone, for an arch or a named
//! card, as the same records `sweep` produces (every value marked `estimated`).

use rayon::prelude::*;

use crate::gpu::{DeviceInfo, KernelAttrs};
use crate::kernels::Kernel;
use crate::metrics::{self as m, GBPS};
use crate::model::occupancy::{self, Request};
use crate::model::time::Target;
use crate::model::{self, resources};
use crate::plan;
use crate::record::{Metric, Record, Report, Source, Status};
use crate::spec::Dim3;

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
        &Request {
            block_size: launch.block.volume().min(u32::MAX as u64) as u32,
            regs_per_thread: attrs.registers,
            static_smem: attrs.static_smem,
            dynamic_smem: launch.dynamic_smem,
        },
    )
}

/// One configuration's record: invalid with its reason, or every metric the models give.
fn estimate_one(kernel: &dyn Kernel, target: &Target, attrs: &KernelAttrs, p: &plan::Planned) -> Record {
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
