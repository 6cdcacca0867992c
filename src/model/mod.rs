//! The analytical side of warpscope: architecture database, occupancy, memory-access model, time model,
//! and [`evaluate`], which combines them for one configuration — used both beside measurements (sweep)
//! and alone (estimate).

pub mod arch;
pub mod memory;
pub mod occupancy;
pub mod resources;
pub mod time;

use crate::gpu::Launch;
use crate::kernels::Kernel;
use crate::metrics::{self as m, COUNT, GBPS, MS, PCT, RATIO};
use crate::record::{Metric, Source};
use memory::MemStats;
use occupancy::LaunchShape;
use time::{Prediction, Target, Workload};

/// Everything the models say about one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Theoretical occupancy, ratio 0-1.
    pub theoretical: f64,
    /// Modelled achieved occupancy, ratio 0-1.
    pub achieved: f64,
    /// The memory-access model's counts.
    pub mem: MemStats,
    /// The time model's prediction.
    pub prediction: Prediction,
    /// Whether the launch is block-issue bound (from the measured time when there is one).
    pub issue_bound: bool,
}

/// Evaluates `launch` of `kernel` on `target` with `active_blocks` resident blocks per SM (from the
/// driver or the occupancy calculator); `measured_ms`, when given, decides whether the block
/// scheduler was the bottleneck.
pub fn evaluate(
    target: &Target,
    kernel: &dyn Kernel,
    launch: &Launch,
    active_blocks: u32,
    measured_ms: Option<f64>,
) -> Evaluation {
    let a = target.arch;
    let warps_per_block = launch.block.volume().div_ceil(32) as u32;
    let shape = LaunchShape {
        blocks: launch.grid.volume(),
        warps_per_block,
        active_blocks_per_sm: active_blocks,
        max_warps_per_sm: a.max_warps_per_sm,
        sms: target.sms,
    };
    let theoretical = (active_blocks * warps_per_block) as f64 / a.max_warps_per_sm as f64;
    let base = occupancy::achieved(&shape, a.warp_spread, None);
    let mem = memory::analyze(kernel, launch.grid, launch.block, a.global_txn_bytes);
    let warps = shape.blocks as f64 * warps_per_block as f64;
    let insns = crate::ptx::instruction_count(kernel.module(), kernel.entry()).unwrap_or(0) as f64;
    let workload = Workload {
        blocks: shape.blocks,
        warps,
        dram_read_bytes: kernel.work().bytes_read as f64,
        store_bytes: mem.stores.transferred_bytes(mem.txn_bytes),
        l1_load_bytes: mem.loads.transferred_bytes(mem.txn_bytes),
        insns_per_warp: insns,
        barriers: kernel.barriers() as f64,
        resident_warps: base * a.max_warps_per_sm as f64,
    };
    let prediction = time::predict(target, &workload);
    // Block-issue bound: the scheduler's term clearly dominates the model's others, and (when the time
    // was measured) blocks really did finish at about the scheduler's rate.
    let p = &prediction;
    let others = p.bandwidth_ms.max(p.l1_ms).max(p.latency_ms).max(p.compute_ms);
    let issue_bound =
        p.issue_ms > 1.1 * others && measured_ms.is_none_or(|ms| time::issue_bound_at(target, shape.blocks, ms));
    let achieved = if issue_bound {
        occupancy::achieved(&shape, a.warp_spread, Some(time::issue_resident_blocks(target)))
    } else {
        base
    };
    Evaluation { theoretical, achieved, mem, prediction, issue_bound }
}

impl Evaluation {
    /// Every metric the models give, throughput over `time_ms` (measured, or the predicted time).
    pub fn metrics(&self, time_ms: f64, source: Source) -> Vec<Metric> {
        let metric =
            |name: &str, value: f64, unit: &str| Metric { name: name.into(), value, unit: unit.into(), source };
        let txn = self.mem.txn_bytes;
        let secs = time_ms * 1e-3;
        let (ld, st) = (&self.mem.loads, &self.mem.stores);
        let mut out = vec![
            metric(m::PREDICTED_TIME, self.prediction.time_ms, MS),
            metric(m::THEORETICAL_OCCUPANCY, self.theoretical, RATIO),
            metric(m::ACHIEVED_OCCUPANCY, self.achieved, RATIO),
            metric(m::GLD_THROUGHPUT, ld.transferred_bytes(txn) / secs / 1e9, GBPS),
        ];
        out.extend(ld.efficiency_pct(txn).map(|e| metric(m::GLD_EFFICIENCY, e, PCT)));
        out.push(metric(m::GLD_TRANSACTIONS, ld.transactions.round(), COUNT));
        out.extend(ld.per_request().map(|r| metric(m::GLD_TRANSACTIONS_PER_REQUEST, r, RATIO)));
        out.push(metric(m::GST_THROUGHPUT, st.transferred_bytes(txn) / secs / 1e9, GBPS));
        out.extend(st.efficiency_pct(txn).map(|e| metric(m::GST_EFFICIENCY, e, PCT)));
        out.push(metric(m::GST_TRANSACTIONS, st.transactions.round(), COUNT));
        out
    }
}
