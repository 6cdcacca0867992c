//! The analytical side of warpscope: architecture database, occupancy, memory-access model, time model,
//! and [`evaluate`], which combines them for one configuration — used both beside measurements (sweep)
//! and alone (estimate).

pub mod arch;
pub mod calibration;
pub mod check;
pub mod memory;
pub mod occupancy;
pub mod resources;
pub mod runs;
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
    /// Warp instructions the launch executes.
    pub instructions: f64,
}

/// The compiled code of an entry: its instructions once, and per multiply-add of its hot loop.
#[derive(Clone, Copy, Debug)]
struct Code {
    straight: crate::ptx::Mix,
    per_fma: Option<crate::ptx::Mix>,
    /// The code up to the first, second, ... barrier: a block's set-up ([`Kernel::setup_barriers`]).
    setups: [Option<crate::ptx::Mix>; 4],
    /// A barrier with no global load after it: the block's warps leave together
    /// ([`crate::ptx::leaves_together`]).
    leaves_together: bool,
}

/// The code of every embedded entry, parsed once.
fn code(module: &str, entry: &str) -> Code {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static TABLE: OnceLock<HashMap<(&'static str, &'static str), Code>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        crate::ptx::modules()
            .flat_map(|m| crate::ptx::entries(m).into_iter().map(move |e| (m, e)))
            .map(|(m, e)| {
                let straight = crate::ptx::straight_mix(m, e).unwrap_or_default();
                let setups = std::array::from_fn(|i| crate::ptx::setup_mix(m, e, i + 1));
                let leaves_together = crate::ptx::leaves_together(m, e).unwrap_or(false);
                ((m, e), Code { straight, per_fma: crate::ptx::loop_mix_per_fma(m, e), setups, leaves_together })
            })
            .collect()
    });
    table.get(&(module, entry)).copied().unwrap_or(Code {
        straight: Default::default(),
        per_fma: None,
        setups: [None; 4],
        leaves_together: false,
    })
}

/// Every embedded entry's program, parsed once.
fn program<'a>(module: &'a str, entry: &'a str) -> Option<&'a crate::ptx::run::Program> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    type Programs = HashMap<(&'static str, &'static str), Option<crate::ptx::run::Program>>;
    static TABLE: OnceLock<Programs> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        crate::ptx::modules()
            .flat_map(|m| crate::ptx::entries(m).into_iter().map(move |e| (m, e)))
            .map(|(m, e)| ((m, e), crate::ptx::run::Program::parse(crate::ptx::module(m).unwrap_or(""), e)))
            .collect()
    });
    table.get(&(module, entry))?.as_ref()
}

/// What a block of `launch` executes, from running its PTX for sample threads with the kernel's
/// arguments; `None` where the code cannot be run so (not parsed, or a thread runs too long).
fn executed(
    kernel: &dyn Kernel,
    launch: &Launch,
    lat: &crate::ptx::run::Latencies,
) -> Option<crate::ptx::run::Executed> {
    let args = kernel.args();
    let run = |p: &crate::ptx::run::Program, m: &crate::ptx::mem::Memory| {
        p.execute(&args, m, launch.grid, launch.block, kernel.setup_barriers(), lat)
    };
    if let Some((p, m)) = kernel.program() {
        return run(p, m);
    }
    let none = crate::ptx::mem::Memory::default();
    match kernel.module() {
        crate::kernels::Module::Embedded(m) => run(program(m, kernel.entry())?, &none),
        crate::kernels::Module::Ptx { text, .. } => run(&crate::ptx::run::Program::parse(text, kernel.entry())?, &none),
    }
}

/// The latencies a warp's chain is timed with on `target`, cycles: the pipes' dependent latency, and a
/// global load's: L1's hit latency, or, for the share `miss` of the loads' requests that go on to L2,
/// L2's, and DRAM's for the share `dram` of those that L2 does not hold (its loads go out together,
/// so a chain waits for DRAM once per group, as the compiled code issues them); a shared load's as an
/// L1 hit. Measured by calibration, else the database's.
fn latencies(target: &Target, miss: f64, dram: f64) -> crate::ptx::run::Latencies {
    let (l1, l2) = hit_latencies(target);
    let dram_cycles = target.latency_s() * target.clock_mhz.max(1) as f64 * 1e6;
    let beyond_l1 = (l2 - l1).max(0.0) + dram.clamp(0.0, 1.0) * (dram_cycles - l2).max(0.0);
    crate::ptx::run::Latencies {
        pipe: target.arch.dependent_latency_cycles(),
        global: l1 + miss.clamp(0.0, 1.0) * beyond_l1,
        shared: l1,
    }
}

/// The share of a warp's loads that wait for more than L1: the share of the sectors they touch that a
/// block has not had before (L1 serves the rest). Where a request spreads over many lines, its lanes
/// miss together or not at all (rgH's 32 threads walk 32 rows a float at a time: a request finds its
/// 32 sectors new once every eight floats along the rows, and all in L1 otherwise), so the share of
/// sectors is the share of requests that wait.
fn beyond_l1(mem: &memory::MemStats) -> f64 {
    if mem.loads.transactions > 0.0 { (mem.loads.l2_transactions / mem.loads.transactions).min(1.0) } else { 0.0 }
}

/// L1's and L2's hit latencies on `target`, cycles: measured by calibration, else the database's.
fn hit_latencies(target: &Target) -> (f64, f64) {
    let f = &target.figures;
    let ghz = target.clock_mhz.max(1) as f64 / 1e3;
    let (l1_db, l2_db) = target.arch.hit_latency_cycles();
    let l1 = if f.l1_latency_ns > 0.0 { f.l1_latency_ns * ghz } else { l1_db };
    let l2 = if f.l2_latency_ns > 0.0 { f.l2_latency_ns * ghz } else { l2_db };
    (l1, l2)
}

/// The share of the bytes loads take from L2 that DRAM delivers: each input once where the blocks
/// resident at once (their loads and stores) fit in L2; where they do not, the reuse L2 misses in the
/// proportion by which they overflow it. A transaction's bytes beyond those its threads asked for
/// (half of each 128-byte line a 16-wide warp loads on Fermi) are another block's at the same
/// instruction: its neighbour in the grid, running at the same time, whose request for the line
/// meets the first one's fetch from DRAM in flight and waits as long. So only the bytes asked for
/// more than once count as L2's (the reuse of stencils and matmul): the input over the fewer of the
/// bytes the loads ask for and those their transactions take from L2.
fn dram_share(target: &Target, kernel: &dyn Kernel, mem: &memory::MemStats, active_blocks: u32) -> f64 {
    let txn = mem.txn_bytes as f64;
    let l2_read_bytes = mem.loads.l2_transactions * txn;
    if l2_read_bytes <= 0.0 {
        return 1.0;
    }
    let asked = l2_read_bytes.min(mem.loads.requested_bytes.max(0.0));
    let once = if asked > 0.0 { (kernel.work().bytes_read as f64 / asked).min(1.0) } else { 1.0 };
    let blocks = mem.total_blocks.max(1) as f64;
    let resident = blocks.min(target.sms as f64 * active_blocks as f64);
    let working_set = resident * (l2_read_bytes + mem.stores.transactions * txn) / blocks;
    let lost = if target.l2_bytes > 0 { (1.0 - target.l2_bytes as f64 / working_set).max(0.0) } else { 0.0 };
    once + (1.0 - once) * lost
}

/// The latency of each serial round trip after a warp's first, seconds: the loads that wait one after
/// another ([`Kernel::serial_loads`]) each fetch a line the warp has not had (a tile's next row, a
/// line's next sample): L2's latency, and DRAM's for the share `dram` of them that L2 does not hold.
fn serial_latency_s(target: &Target, dram: f64) -> f64 {
    let l2 = hit_latencies(target).1 / (target.clock_mhz.max(1) as f64 * 1e6);
    l2 + dram.clamp(0.0, 1.0) * (target.latency_s() - l2).max(0.0)
}

/// How much longer a block's DRAM round trips take for its loads' spread over rows: calRows's factor
/// at the block's mean run per row over that at a one-row block's run, at its rows' pitch
/// ([`time::Figures::row_stretch`]; docs/MODEL.md section 18). 1 where the table was not measured (the
/// database's cards), for one-row blocks and for blocks that load nothing.
fn dram_latency_factor(target: &Target, kernel: &dyn Kernel, launch: &Launch) -> f64 {
    if target.figures.row_spreads.is_empty() {
        return 1.0;
    }
    runs::block_rows(kernel, launch.grid, launch.block)
        .map_or(1.0, |r| target.figures.row_stretch(r.run, r.one_row, r.pitch))
}

/// Instructions every warp runs that its PTX does not show: the stack pointer's load that opens every
/// kernel (`LDC R1, c[0x0][0x28]` on sm_90), and, on sm_80 and newer, where the kernel touches global
/// memory, the load of the memory descriptor its loads and stores name (`ULDC.64 UR4, c[0x0][0x208]`:
/// `desc[UR4]`), once per kernel. Every built-in kernel's SASS (ptxas 13.0, sm_90, cuobjdump) has both,
/// once each.
fn prologue(arch: &arch::Arch, global: bool) -> f64 {
    if global && arch.cc >= (8, 0) { 2.0 } else { 1.0 }
}

/// The instruction mix per warp, and the block's set-up, from the PTX counted once per line: the loops'
/// multiply-adds ([`Kernel::loop_fmas`]) at their body's mix per FMA. Code given at run time: none.
fn static_mix(kernel: &dyn Kernel) -> (crate::ptx::Mix, Option<crate::ptx::Mix>) {
    let code = match kernel.module() {
        crate::kernels::Module::Embedded(module) => code(module, kernel.entry()),
        crate::kernels::Module::Ptx { .. } => return Default::default(),
    };
    let per_fma = code.per_fma.unwrap_or(crate::ptx::Mix { fp32: 1.0, ..Default::default() });
    // A block's set-up runs once per block (on its first warp), not once per warp: out of the warps'
    // straight-line code, into its own term.
    let setup = (kernel.setup_barriers() as usize).checked_sub(1).and_then(|i| code.setups.get(i).copied().flatten());
    let straight = setup.map_or(code.straight, |s| code.straight.add_scaled(&s, -1.0));
    (straight.add_scaled(&per_fma, kernel.loop_fmas()), setup)
}

/// The atomics' sectors the busiest L2 slice serves: an even share of the slices their footprint
/// spreads over, or the hottest line's share where that is more (a line sits in one slice).
fn busiest_atomic_sectors(target: &Target, mem: &memory::MemStats) -> f64 {
    let sectors = mem.atomics.transactions * mem.txn_bytes as f64 / 32.0;
    if sectors <= 0.0 {
        return 0.0;
    }
    let spread = &mem.atomic_spread;
    sectors * (1.0 / target.atomic_slices(spread.lines)).max(spread.hottest)
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
    let mem = memory::analyze(kernel, launch.grid, launch.block, a.global_txn_bytes);
    // DRAM's runs matter only where they were measured (a calibrated device).
    let runs = if target.figures.run_efficiency.is_empty() {
        runs::Runs::default()
    } else {
        runs::dram_runs(kernel, launch.grid, launch.block)
    };
    let warps = shape.blocks as f64 * warps_per_block as f64;
    let txn = mem.txn_bytes as f64;
    let l2_read_requests = if mem.loads.transactions > 0.0 {
        mem.loads.l2_transactions * mem.loads.lines / mem.loads.transactions
    } else {
        0.0
    };
    let dram_share = dram_share(target, kernel, &mem, active_blocks);
    let lat = latencies(target, beyond_l1(&mem), dram_share);
    // The code run for sample threads of a block (loops by their trip counts, each warp's chain); where
    // that fails, the straight-line instructions once plus the loops' multiply-adds at their body's mix
    // per FMA, and no chain.
    let (mut insns, setup, chain_cycles) = match executed(kernel, launch, &lat) {
        // The set-up is priced per block (issue_cycles adds it back): out of the per-warp mix.
        Some(run) => (
            run.per_warp.add_scaled(&run.setup.unwrap_or_default(), -1.0 / warps_per_block as f64),
            run.setup,
            run.chain_cycles,
        ),
        None => {
            let (insns, setup) = static_mix(kernel);
            (insns, setup, 0.0)
        }
    };
    insns.other += prologue(a, mem.loads.requests + mem.stores.requests > 0.0);
    let mut workload = Workload {
        blocks: shape.blocks,
        warps,
        dram_read_bytes: kernel.work().bytes_read as f64,
        store_bytes: mem.stores.transferred_bytes(mem.txn_bytes).min(kernel.work().bytes_written as f64),
        read_efficiency: target.figures.run_efficiency_of(&runs.loads, false),
        write_efficiency: target.figures.run_efficiency_of(&runs.stores, true),
        l2_read_requests,
        store_lines: mem.stores.lines,
        store_sectors: mem.stores.transactions * txn / 32.0 - mem.atomic_lone_requests,
        atomic_sectors: busiest_atomic_sectors(target, &mem),
        l1_load_bytes: mem.loads.requested_bytes,
        l1_wavefronts: mem.loads.wavefronts + mem.stores.wavefronts,
        smem_wavefronts: mem.shared_loads.wavefronts + mem.shared_stores.wavefronts,
        insns,
        barriers: kernel.barriers() as f64,
        resident_warps: 0.0,
        loads_global: mem.loads.requests > 0.0,
        serial_loads: kernel.serial_loads(launch.block),
        serial_latency_s: serial_latency_s(target, dram_share),
        dram_latency_factor: dram_latency_factor(target, kernel, launch),
        chain_s: chain_cycles / (target.clock_mhz.max(1) as f64 * 1e6),
        setup,
        resident_blocks: active_blocks as f64,
    };
    // A block's warps end apart by the spread of one memory round trip (model 2's drain); a warp that
    // lives longer than one round trip (more loads, a loop, compute, DRAM's queue) spreads no more in
    // absolute terms, so relatively less. Its life comes from the time predicted with the full spread
    // (Little's law: a warp stays time x resident warps per SM / warps per SM), and the occupancy and
    // the prediction are taken again with the spread scaled by round trip over life. Warps that meet
    // at a barrier and load nothing after it leave together: no spread.
    let base_full = occupancy::achieved(&shape, a.warp_spread, None);
    workload.resident_warps = base_full * a.max_warps_per_sm as f64;
    let first = time::predict(target, &workload);
    let leaves_together = match kernel.module() {
        crate::kernels::Module::Embedded(module) => code(module, kernel.entry()).leaves_together,
        crate::kernels::Module::Ptx { .. } => false,
    };
    let spread = if leaves_together { 0.0 } else { a.warp_spread * time::round_trip_share(target, &workload, &first) };
    let base = occupancy::achieved(&shape, spread, None);
    workload.resident_warps = base * a.max_warps_per_sm as f64;
    let prediction = time::predict(target, &workload);
    // Block-issue bound: the scheduler's term clearly dominates the model's others, and (when the time
    // was measured) blocks really did finish at about the scheduler's rate.
    let p = &prediction;
    let others = p.bandwidth_ms.max(p.l2_ms).max(p.l1_ms).max(p.latency_ms).max(p.compute_ms);
    let issue_bound =
        p.issue_ms > 1.1 * others && measured_ms.is_none_or(|ms| time::issue_bound_at(target, shape.blocks, ms));
    let achieved = if issue_bound {
        occupancy::achieved(&shape, spread, Some(time::issue_resident_blocks(target, &workload)))
    } else {
        base
    };
    let instructions = insns.total() * warps + setup.map_or(0.0, |m| m.total()) * shape.blocks as f64;
    Evaluation { theoretical, achieved, mem, prediction, issue_bound, instructions }
}

impl Evaluation {
    /// Every metric the models give, throughput over `time_ms` (measured, or the predicted time).
    pub fn metrics(&self, time_ms: f64, source: Source) -> Vec<Metric> {
        let metric =
            |name: &str, value: f64, unit: &str| Metric { name: name.into(), value, unit: unit.into(), source };
        let txn = self.mem.txn_bytes;
        let secs = time_ms * 1e-3;
        // nvprof's store metrics leave the atomics out; they move as stores in the model's traffic.
        let (ld, st, at) = (&self.mem.loads, &self.mem.stores.less(&self.mem.atomics), &self.mem.atomics);
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
        // nvprof's atomic_transactions are L1's tag lookups for them: a line of a round each.
        if at.requests > 0.0 {
            out.push(metric(m::ATOMIC_TRANSACTIONS, at.lines.round(), COUNT));
        }
        out.extend(at.per_request().map(|r| metric(m::ATOMIC_TRANSACTIONS_PER_REQUEST, r, RATIO)));
        out.extend(self.mem.shared_loads.per_request().map(|r| metric(m::SHARED_LD_PER_REQUEST, r, RATIO)));
        out.push(metric(m::INST_EXECUTED, self.instructions.round(), COUNT));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Diverge, Layout, MatMul, SumMatrix, Transpose, TransposeVariant};
    use crate::model::arch::{arch, find_card};
    use crate::spec::Dim3;

    /// Model 2's drain applies to warps that end one memory round trip apart: a tile kernel's warps meet
    /// at its last barrier and leave together; a loop's warps live many round trips, so spread less.
    #[test]
    fn warps_that_meet_or_live_long_drain_less() {
        let t = Target::from_card(find_card("H100").unwrap(), arch((9, 0)).unwrap());
        let a = t.arch;
        let launch = |k: &dyn Kernel, b: Dim3| Launch { grid: k.grid(b), block: b, dynamic_smem: k.dynamic_smem(b) };
        // transposeShared at (32,8) over 8192 x 8192: 65,536 blocks of 8 warps, 8 per SM. 496 or 497
        // blocks per SM (64 SMs get 497) run in 62 or 63 rounds: fill = 65536 / ((68 x 62 + 64 x 63) x 8)
        // = 0.99321, and no drain.
        let tr = Transpose::new(TransposeVariant::Shared, 8192, 8192).unwrap();
        let e = evaluate(&t, &tr, &launch(&tr, Dim3::new(32, 8, 1)), 8, None);
        assert!((e.achieved - 65536.0 / (8248.0 * 8.0)).abs() < 1e-9, "{}", e.achieved);
        // sumMatrix's warps live one round trip (latency-bound): model 2 as it was.
        let sm = SumMatrix::new(16384, 16384).unwrap();
        let l = launch(&sm, Dim3::new(32, 32, 1));
        let e = evaluate(&t, &sm, &l, 2, None);
        let shape = occupancy::LaunchShape {
            blocks: l.grid.volume(),
            warps_per_block: 32,
            active_blocks_per_sm: 2,
            max_warps_per_sm: a.max_warps_per_sm,
            sms: t.sms,
        };
        assert_eq!(e.achieved, occupancy::achieved(&shape, a.warp_spread, None));
        // The strided matmul's warps loop over 1024 products: between model 2's drain and none.
        let mm = MatMul::new(false, 1024).unwrap();
        let l = launch(&mm, Dim3::new(32, 8, 1));
        let e = evaluate(&t, &mm, &l, 8, None);
        let shape = occupancy::LaunchShape { warps_per_block: 8, active_blocks_per_sm: 8, ..shape };
        let shape = occupancy::LaunchShape { blocks: l.grid.volume(), ..shape };
        assert!(e.achieved > occupancy::achieved(&shape, a.warp_spread, None) + 0.1, "{}", e.achieved);
        assert!(e.achieved < occupancy::achieved(&shape, 0.0, None), "{}", e.achieved);
    }

    /// The model against times measured on an H200 (scripts/device-check.sh, 2026-11-22, docs/MODEL.md):
    /// the loops and the L1 passes, which the straight-line kernels of the seeds do not exercise.
    #[test]
    fn loops_and_l1_passes_against_the_h200() {
        let mut t = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        t.figures.copy_gbs = 4160.0;
        // (kernel, block, resident blocks, measured ms, bound, largest error): the array of structures
        // keeps 7.8 MB in flight, above DRAM's bandwidth-delay product, where the round-trip term
        // (latency + transfer) is known to run 15 % slow (docs/MODEL.md).
        type Case = (Box<dyn Kernel>, Dim3, u32, f64, time::Bound, f64);
        let cases: [Case; 5] = [
            (Box::new(MatMul::new(false, 1024).unwrap()), Dim3::new(32, 8, 1), 8, 4.440, time::Bound::L1, 0.1),
            (Box::new(MatMul::new(true, 1024).unwrap()), Dim3::new(16, 16, 1), 8, 0.421, time::Bound::L1, 0.1),
            (
                Box::new(Diverge::new(true, 8192, 8192).unwrap()),
                Dim3::new(256, 1, 1),
                8,
                1.129,
                time::Bound::Compute,
                0.1,
            ),
            (
                // Issue alone would be 0.57 ms: this kernel hides most of the round's latency that the
                // exposed-latency term charges (docs/MODEL.md section 16), as its odd-even twin does not.
                Box::new(Diverge::new(false, 8192, 8192).unwrap()),
                Dim3::new(256, 1, 1),
                8,
                0.595,
                time::Bound::Compute,
                0.2,
            ),
            (
                Box::new(Layout::new(true, 4096, 4096).unwrap()),
                Dim3::new(256, 1, 1),
                8,
                0.171,
                time::Bound::Latency,
                0.2,
            ),
        ];
        for (k, block, active, measured, bound, within) in cases {
            let launch = Launch { grid: k.grid(block), block, dynamic_smem: 0 };
            let p = evaluate(&t, k.as_ref(), &launch, active, None).prediction;
            let err = (p.time_ms - measured) / measured;
            assert!(err.abs() < within, "{} {block}: {} ms predicted, {measured} measured", k.name(), p.time_ms);
            assert_eq!(p.bound, bound, "{}", k.name());
        }
    }

    #[test]
    fn every_warp_runs_the_prologue_its_sass_opens_with() {
        // ptxas 13.0's SASS for sm_90 (cuobjdump of kernels-ptx/peak.ptx and sum_matrix.ptx): copyFloat
        // runs 16 instructions a warp (LDC R1 for the stack pointer; S2R, S2UR, LDC, IMAD, ULDC, ISETP,
        // EXIT; ULDC.64 of the memory descriptor, two LDC.64 and two IMAD.WIDE, LDG, STG, EXIT), as
        // CUPTI counted on an H100 and an H200 (33,554,432 for 8192 x 8192); sumMatrixOnGPU2D runs 26
        // (CUPTI: 218,103,808 for 16384 x 16384, 8,388,608 warps; the PTX alone prices 24).
        let h100 = Target::from_card(find_card("H100").unwrap(), arch((9, 0)).unwrap());
        let per_warp = |t: &Target, k: &dyn Kernel, block: Dim3| {
            let l = Launch { grid: k.grid(block), block, dynamic_smem: 0 };
            let e = evaluate(t, k, &l, 8, None);
            e.instructions / (l.grid.volume() * block.volume().div_ceil(32)) as f64
        };
        let copy = crate::kernels::Copy::new(crate::kernels::CopyKind::Float, 8192, 8192).unwrap();
        assert_eq!(per_warp(&h100, &copy, Dim3::new(256, 1, 1)), 16.0);
        let sm = SumMatrix::new(16384, 16384).unwrap();
        assert_eq!(per_warp(&h100, &sm, Dim3::new(32, 8, 1)), 26.0);
        // Before sm_80 no memory descriptor: the stack pointer's load alone.
        let v100 = Target::from_card(find_card("V100").unwrap(), arch((7, 0)).unwrap());
        assert_eq!(per_warp(&v100, &copy, Dim3::new(256, 1, 1)), 15.0);
        assert_eq!(prologue(arch((9, 0)).unwrap(), false), 1.0);
    }

    #[test]
    fn a_calibrated_row_spread_slows_blocks_of_many_rows_only() {
        // sum-matrix on the H200, with and without a measured table (rows 32 KiB apart or more: 64 bytes
        // a row 1.2, 128 bytes 1.1, 4 KiB 1): 32x32 blocks wait 1.1 x DRAM's latency, 1024x1 blocks as
        // before.
        let t = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        let mut spread = t.clone();
        let factors = vec![[64.0, 1.2], [128.0, 1.1], [4096.0, 1.0]];
        spread.figures.row_spreads = vec![time::RowSpread { pitch_bytes: 32768.0, factors }];
        let k = SumMatrix::new(8192, 8192).unwrap();
        let launch = |block: Dim3| Launch { grid: k.grid(block), block, dynamic_smem: 0 };
        let predict = |t: &Target, block: Dim3| evaluate(t, &k, &launch(block), 2, None).prediction;
        let square = Dim3::new(32, 32, 1);
        assert_eq!(dram_latency_factor(&t, &k, &launch(square)), 1.0);
        let f = dram_latency_factor(&spread, &k, &launch(square));
        assert!((f - 1.1).abs() < 1e-12, "{f}");
        let (before, after) = (predict(&t, square), predict(&spread, square));
        assert!(after.latency_ms > before.latency_ms, "{before:?} {after:?}");
        let row = Dim3::new(1024, 1, 1);
        assert_eq!(predict(&t, row), predict(&spread, row));
    }

    /// A sigma-5 blur stage of a `w` x `h` image and its memory counts at 32x1 blocks.
    fn blur_of_32x1(stage: crate::kernels::BlurStage, w: u32, h: u32) -> (crate::kernels::Blur, memory::MemStats) {
        let k = crate::kernels::Blur::new(stage, w, h, crate::kernels::Gaussian::new(5.0).unwrap()).unwrap();
        let block = Dim3::new(32, 1, 1);
        let mem = memory::analyze(&k, k.grid(block), block, 32);
        (k, mem)
    }

    #[test]
    fn serial_loads_wait_for_l2_where_it_holds_their_lines() {
        let t = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        let l2 = t.arch.hit_latency_cycles().1 / (t.clock_mhz as f64 * 1e6);
        let dram = t.latency_s();
        // Every line new to L2 (a transpose reads each input once): DRAM's latency; all in L2: L2's.
        assert!((serial_latency_s(&t, 1.0) - dram).abs() < 1e-15);
        assert!((serial_latency_s(&t, 0.0) - l2).abs() < 1e-15);
        // The column blur's 32x1 blocks read 1 + 2 x 15 rows each: L2 delivers every row 31 times, DRAM
        // once, while the blocks resident at once fit in L2.
        let (k, mem) = blur_of_32x1(crate::kernels::BlurStage::ColsTiled, 4096, 4096);
        let once = k.work().bytes_read as f64 / (mem.loads.l2_transactions * 32.0);
        assert!((once - 1.0 / 31.0).abs() < 2e-3, "{once}");
        assert!((dram_share(&t, &k, &mem, 32) - once).abs() < 1e-12);
        // An L2 of half what they touch misses half the reuse too.
        let resident = (t.sms * 32) as f64;
        let touched = resident * (mem.loads.l2_transactions + mem.stores.transactions) * 32.0 / mem.total_blocks as f64;
        let half = Target { l2_bytes: (touched / 2.0) as u64, ..t.clone() };
        let share = dram_share(&half, &k, &mem, 32);
        assert!((share - (once + (1.0 - once) * 0.5)).abs() < 1e-6, "{share}");
        // Unknown L2 size: the reuse is taken as caught.
        assert!((dram_share(&Target { l2_bytes: 0, ..t }, &k, &mem, 32) - once).abs() < 1e-12);
    }

    #[test]
    fn a_chains_load_waits_where_its_line_comes_from() {
        // The H200's database latencies: L1 and L2 hits (Jia et al.'s Turing figures for sm_80 and
        // newer) and DRAM's 800 cycles at the card's clock.
        let t = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        let (l1, l2) = t.arch.hit_latency_cycles();
        let dram = t.latency_s() * t.clock_mhz as f64 * 1e6;
        assert!((dram - 800.0).abs() < 1e-6, "{dram}");
        // Every load an L1 hit; every one on to L2 and held there; every one on to DRAM.
        assert!((latencies(&t, 0.0, 1.0).global - l1).abs() < 1e-9);
        assert!((latencies(&t, 1.0, 0.0).global - l2).abs() < 1e-9);
        assert!((latencies(&t, 1.0, 1.0).global - dram).abs() < 1e-9);
        // Half the requests go on to L2, and L2 holds three quarters of their lines: 1/2 (L2 - L1) +
        // 1/2 x 1/4 (DRAM - L2) over L1's.
        let by_hand = l1 + 0.5 * (l2 - l1) + 0.125 * (dram - l2);
        assert!((latencies(&t, 0.5, 0.25).global - by_hand).abs() < 1e-9);
        assert_eq!(latencies(&t, 0.5, 0.25).shared, l1);
    }

    #[test]
    fn a_request_over_many_lines_waits_beyond_l1_only_where_its_sectors_are_new() {
        // rgH: a warp's 32 threads walk 32 rows a float at a time, each request one sector in each of
        // 32 lines. Per row of 256 floats: the causal pass loads `in` (256 requests), the anti-causal
        // pass `in` again and `out` (512); the sectors new to the block are `in`'s 32 and `out`'s 32.
        // So 64 of the 768 sectors each lane touches are new: one request in twelve reaches L2
        // (in all 32 lines at once), though every one asks for 32 lines.
        let (_, mem) = blur_of_32x1(crate::kernels::BlurStage::RgH, 256, 64);
        let share = beyond_l1(&mem);
        assert!((share - 1.0 / 12.0).abs() < 1e-3, "{share}");
        // A copy streams: every sector is new.
        let c = crate::kernels::Copy::new(crate::kernels::CopyKind::Float, 1024, 1024).unwrap();
        let mem = memory::analyze(&c, c.grid(Dim3::new(256, 1, 1)), Dim3::new(256, 1, 1), 32);
        assert_eq!(beyond_l1(&mem), 1.0);
    }

    #[test]
    fn partial_sectors_reach_dram_once_merged_in_l2() {
        // The naive transpose of 1024 x 1024 floats writes every output sector in 8 requests of 4
        // bytes; L2 is write-back and merges them, so DRAM writes the 4 MiB output once (ncu on an H100,
        // 8192 x 8192 at 32 x 8: 280 MB written for a 268 MB output), not 8 x 4 MiB of whole sectors.
        // Read 4 MiB + write 4 MiB at 4160 GB/s.
        let mut t = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        t.figures.copy_gbs = 4160.0;
        let k = crate::kernels::Transpose::new(crate::kernels::TransposeVariant::Naive, 1024, 1024).unwrap();
        let block = Dim3::new(32, 8, 1);
        let launch = Launch { grid: k.grid(block), block, dynamic_smem: 0 };
        let e = evaluate(&t, &k, &launch, 8, None);
        assert_eq!(e.mem.stores.transactions * 32.0, 8.0 * 4194304.0);
        let by_hand = 2.0 * 4194304.0 / 4160e9 * 1e3;
        assert!((e.prediction.bandwidth_ms - by_hand).abs() < 1e-12, "{}", e.prediction.bandwidth_ms);
        // Its stores are 32 line requests of one sector each: 2 cycles of L2's input port per float.
        assert_eq!((e.mem.stores.lines, e.mem.stores.transactions), (1048576.0, 1048576.0));
    }

    #[test]
    fn a_lines_unasked_half_waits_for_dram_with_its_neighbour() {
        // sumMatrix on Fermi (128-byte lines): a 16-wide warp's load asks for two half lines, 128 of
        // the 256 bytes its transactions take, and the other halves are the neighbouring block's at
        // the same instruction. L2 delivers twice the input, yet every line is new to it: the second
        // request meets the first's fetch from DRAM in flight. By hand, 1024 x 1024 floats: 8 MiB
        // read; 16x16 blocks take 16 MiB in lines (share 1, not 8 / 16); 32x8 blocks take 8 MiB.
        let t = Target::from_card(find_card("Tesla M2070").unwrap(), arch((2, 0)).unwrap());
        let k = SumMatrix::new(1024, 1024).unwrap();
        for (bx, by, l2_mib) in [(16, 16, 16.0), (32, 8, 8.0)] {
            let block = Dim3::new(bx, by, 1);
            let mem = memory::analyze(&k, k.grid(block), block, 128);
            assert_eq!(mem.loads.l2_transactions * 128.0, l2_mib * 1048576.0, "{bx}x{by}");
            assert_eq!(mem.loads.requested_bytes, 8.0 * 1048576.0);
            assert_eq!(dram_share(&t, &k, &mem, 6), 1.0, "{bx}x{by}");
        }
        // Bytes asked for more than once are L2's: the column blur's 32x1 blocks ask for each row 31
        // times, L1 serves none of it, and L2 the 30 repeats (share 1/31, as before).
        let h200 = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        let (blur, mem) = blur_of_32x1(crate::kernels::BlurStage::ColsTiled, 4096, 4096);
        assert!(mem.loads.requested_bytes >= mem.loads.l2_transactions * 32.0);
        assert!((dram_share(&h200, &blur, &mem, 32) - 1.0 / 31.0).abs() < 2e-3);
    }
}
