//! Occupancy: the exact theoretical calculation (what `cuOccupancyMaxActiveBlocksPerMultiprocessor` and
//! NVIDIA's `cuda_occupancy.h` compute, for any arch of the database), and the model of achieved occupancy
//! that nvprof's `achieved_occupancy` measures.

use serde::Serialize;

use super::arch::{Arch, RegAlloc};

/// What one kernel launch asks of an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Threads per block.
    pub block_size: u32,
    /// Registers per thread (from ptxas or the function's attributes).
    pub regs_per_thread: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u32,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u32,
}

/// The resource that caps resident blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// Resident warps per SM.
    Warps,
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Resident blocks per SM.
    Blocks,
}

impl Limiter {
    /// The name used in every output.
    pub fn as_str(&self) -> &'static str {
        match self {
            Limiter::Warps => "warps",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared_memory",
            Limiter::Blocks => "blocks",
        }
    }
}

/// Blocks per SM that each resource allows; `None` where the resource sets no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResourceLimits {
    /// By resident warps.
    pub warps: Option<u32>,
    /// By registers.
    pub registers: Option<u32>,
    /// By shared memory.
    pub shared_memory: Option<u32>,
    /// By the resident-block limit.
    pub blocks: Option<u32>,
}

/// The theoretical occupancy of one request on one arch (the JSON of `warpscope occupancy`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Occupancy {
    /// `sm_90` style.
    pub arch: String,
    /// Threads per block.
    pub block_size: u32,
    /// Registers per thread.
    pub regs_per_thread: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u32,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u32,
    /// Resident blocks per SM.
    pub active_blocks_per_sm: u32,
    /// Resident warps per SM.
    pub active_warps_per_sm: u32,
    /// The SM's warp capacity.
    pub max_warps_per_sm: u32,
    /// active / max warps, percent.
    pub occupancy_pct: f64,
    /// The smallest of `limits` (ties: warps, registers, shared_memory, blocks).
    pub limiter: Limiter,
    /// Blocks per SM each resource allows.
    pub limits: ResourceLimits,
    /// Whether the block can launch at all.
    pub launchable: bool,
    /// Why not, when it cannot.
    pub reason: Option<String>,
}

fn round_up(x: u64, unit: u64) -> u64 {
    if unit == 0 { x } else { x.div_ceil(unit) * unit }
}

/// Fermi's register allocation unit depends on the register count (cuda_occupancy.h).
fn reg_unit(arch: &Arch, regs: u32) -> u32 {
    if arch.cc.0 == 2 && matches!(regs, 21 | 22 | 29 | 30 | 37 | 38 | 45 | 46) { 128 } else { arch.reg_alloc_unit }
}

/// Blocks per SM allowed by the register file, or `Err(reason)` when one block cannot fit.
fn register_limit(arch: &Arch, req: &Request, warps_per_block: u32) -> Result<Option<u32>, String> {
    let regs = req.regs_per_thread;
    if regs == 0 {
        return Ok(None);
    }
    match arch.reg_alloc {
        RegAlloc::Block => {
            // 1.x: threads rounded up to two warps, then the block's registers to the allocation unit.
            let per_block = round_up(round_up(req.block_size as u64, 64) * regs as u64, arch.reg_alloc_unit as u64);
            if per_block > arch.regs_per_block as u64 {
                return Err(format!(
                    "{regs} registers x {} threads = {per_block} > {} registers per block",
                    req.block_size, arch.regs_per_block
                ));
            }
            Ok(Some((arch.regs_per_sm as u64 / per_block) as u32))
        }
        RegAlloc::Warp => {
            let per_warp = round_up(regs as u64 * 32, reg_unit(arch, regs) as u64);
            let per_block = per_warp * warps_per_block as u64;
            // The hardware check assumes warps spread over every sub-partition.
            let assumed = per_warp * round_up(warps_per_block as u64, arch.sub_partitions as u64);
            if per_block > arch.regs_per_block as u64 || assumed > arch.regs_per_block as u64 {
                return Err(format!(
                    "{regs} registers x {} threads needs {} > {} registers per block",
                    req.block_size,
                    per_block.max(assumed),
                    arch.regs_per_block
                ));
            }
            let per_sub = arch.regs_per_sm as u64 / arch.sub_partitions as u64;
            let warps_per_sm = (per_sub / per_warp) * arch.sub_partitions as u64;
            Ok(Some((warps_per_sm / warps_per_block as u64) as u32))
        }
    }
}

/// The exact theoretical occupancy of `req` on `arch`, with the default shared-memory carve-out
/// (the largest, as the driver's occupancy API assumes).
pub fn theoretical(arch: &Arch, req: &Request) -> Occupancy {
    let warps_per_block = req.block_size.div_ceil(32);
    let mut reason = None;
    if req.block_size == 0 {
        reason = Some("block size 0".to_string());
    } else if req.block_size > arch.max_threads_per_block {
        reason = Some(format!(
            "{} threads per block > {} ({} limit)",
            req.block_size,
            arch.max_threads_per_block,
            arch.sm_name()
        ));
    } else if req.regs_per_thread > arch.max_regs_per_thread {
        reason = Some(format!(
            "{} registers per thread > {} ({} limit)",
            req.regs_per_thread,
            arch.max_regs_per_thread,
            arch.sm_name()
        ));
    }
    let smem = req.static_smem as u64 + req.dynamic_smem as u64;
    if reason.is_none() && smem > arch.smem_per_block_optin as u64 {
        reason = Some(format!(
            "{smem} B shared memory per block > {} B ({} limit)",
            arch.smem_per_block_optin,
            arch.sm_name()
        ));
    }

    let warps = (warps_per_block > 0).then(|| arch.max_warps_per_sm / warps_per_block);
    let blocks = Some(arch.max_blocks_per_sm);
    let registers = match register_limit(arch, req, warps_per_block.max(1)) {
        Ok(l) => l,
        Err(why) => {
            reason.get_or_insert(why);
            Some(0)
        }
    };
    let smem_alloc = round_up(smem + arch.reserved_smem_per_block as u64, arch.smem_alloc_unit as u64);
    let shared_memory = (arch.smem_per_sm as u64).checked_div(smem_alloc).map(|v| v.min(u32::MAX as u64) as u32);
    let limits = ResourceLimits { warps, registers, shared_memory, blocks };

    let candidates = [
        (Limiter::Warps, warps),
        (Limiter::Registers, registers),
        (Limiter::SharedMemory, shared_memory),
        (Limiter::Blocks, blocks),
    ];
    let (limiter, active) = candidates
        .iter()
        .filter_map(|(l, v)| v.map(|v| (*l, v)))
        .min_by_key(|(_, v)| *v)
        .unwrap_or((Limiter::Blocks, arch.max_blocks_per_sm));
    let active = if reason.is_some() { 0 } else { active };
    if active == 0 && reason.is_none() {
        reason = Some(format!("no block fits on an SM (limited by {})", limiter.as_str()));
    }
    let active_warps = active * warps_per_block;
    Occupancy {
        arch: arch.sm_name(),
        block_size: req.block_size,
        regs_per_thread: req.regs_per_thread,
        static_smem: req.static_smem,
        dynamic_smem: req.dynamic_smem,
        active_blocks_per_sm: active,
        active_warps_per_sm: active_warps,
        max_warps_per_sm: arch.max_warps_per_sm,
        occupancy_pct: 100.0 * active_warps as f64 / arch.max_warps_per_sm as f64,
        limiter,
        limits,
        launchable: active > 0,
        reason,
    }
}

/// One answer of the driver's occupancy calculator, for comparison with [`theoretical`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriverCase {
    /// Kernel entry.
    pub entry: String,
    /// The request (registers and static shared memory as the driver compiled the kernel).
    pub block_size: u32,
    /// Registers per thread.
    pub regs_per_thread: u32,
    /// Static shared memory, bytes.
    pub static_smem: u32,
    /// Dynamic shared memory, bytes.
    pub dynamic_smem: u32,
    /// cuOccupancyMaxActiveBlocksPerMultiprocessor.
    pub driver_blocks: u32,
}

/// [`theoretical`]'s blocks per SM on `arch` for the request of a driver case.
pub fn blocks_for(arch: &Arch, c: &DriverCase) -> u32 {
    let req = Request {
        block_size: c.block_size,
        regs_per_thread: c.regs_per_thread,
        static_smem: c.static_smem,
        dynamic_smem: c.dynamic_smem,
    };
    theoretical(arch, &req).active_blocks_per_sm
}

/// Cases where [`theoretical`] on `arch` disagrees with the driver, with warpscope's answer.
pub fn disagreements<'a>(arch: &Arch, cases: &'a [DriverCase]) -> Vec<(&'a DriverCase, u32)> {
    cases
        .iter()
        .filter_map(|c| {
            let ours = blocks_for(arch, c);
            (ours != c.driver_blocks).then_some((c, ours))
        })
        .collect()
}

/// Inputs of the achieved-occupancy model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchShape {
    /// Blocks in the grid.
    pub blocks: u64,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Resident blocks per SM (theoretical).
    pub active_blocks_per_sm: u32,
    /// The SM's warp capacity.
    pub max_warps_per_sm: u32,
    /// SMs on the device.
    pub sms: u32,
}

/// Modelled achieved occupancy (ratio 0-1, as nvprof printed it), in three factors:
///
/// - **tail**: SMs get `q` or `q+1` blocks and run them in rounds of `active_blocks_per_sm`; an SM counts
///   only while it has work, so the fill is the grid's blocks over the slots of every SM's rounds;
/// - **drain**: warps of a block finish at different times but the slot frees only when the last ends;
///   with completion times spread by `warp_spread` (relative), the expected maximum of n exceeds the mean
///   by about `warp_spread * sqrt(2 ln n)`, so a block's warps are active 1 / (1 + that) of its life;
/// - **block issue**: when the block scheduler, not the SM, is the bottleneck (`issue_resident` given),
///   only that many blocks are resident on average (Little's law: issue rate x block latency).
pub fn achieved(shape: &LaunchShape, warp_spread: f64, issue_resident: Option<f64>) -> f64 {
    let LaunchShape { blocks, warps_per_block, active_blocks_per_sm, max_warps_per_sm, sms } = *shape;
    if blocks == 0 || warps_per_block == 0 || active_blocks_per_sm == 0 || max_warps_per_sm == 0 || sms == 0 {
        return 0.0;
    }
    let nb = active_blocks_per_sm as u64;
    let (q, r) = (blocks / sms as u64, blocks % sms as u64);
    let rounds = |b: u64| b.div_ceil(nb);
    let slot_rounds = (sms as u64 - r) * rounds(q) + r * rounds(q + 1);
    let fill = blocks as f64 / (slot_rounds * nb) as f64;
    let mut resident = nb as f64 * fill;
    if let Some(limit) = issue_resident {
        resident = resident.min(limit);
    }
    resident * warps_per_block as f64 / max_warps_per_sm as f64 * drain(warps_per_block, warp_spread)
}

/// Fraction of a block's life its warps are active (see [`achieved`]).
pub fn drain(warps_per_block: u32, warp_spread: f64) -> f64 {
    if warps_per_block > 1 { 1.0 / (1.0 + warp_spread * (2.0 * (warps_per_block as f64).ln()).sqrt()) } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::arch::{arch, parse_arch};

    fn occ(cc: (u32, u32), block: u32, regs: u32, smem: u32) -> Occupancy {
        theoretical(
            arch(cc).unwrap(),
            &Request { block_size: block, regs_per_thread: regs, static_smem: smem, dynamic_smem: 0 },
        )
    }

    #[test]
    fn lecture_worked_examples_on_a_16k_register_sm() {
        // Source 002: 16384 registers per compute unit (GT200-class, cc 1.3).
        assert_eq!(occ((1, 3), 256, 35, 0).active_blocks_per_sm, 1); // 468 work items at most: 1 group of 256
        assert_eq!(occ((1, 3), 128, 35, 0).active_blocks_per_sm, 3); // ... or 3 groups of 128
        assert_eq!(occ((1, 3), 256, 17, 0).active_blocks_per_sm, 3); // 4352 registers per group -> 3 groups
        assert_eq!(occ((1, 3), 256, 16, 0).active_blocks_per_sm, 4); // 16 registers -> 4 groups
        assert_eq!(occ((1, 3), 256, 17, 0).limiter, Limiter::Registers);
    }

    #[test]
    fn fermi_register_budget_of_source_003() {
        // 32K registers for 1536 resident threads leave 21 registers each (32768 / 1536 = 21.3). With
        // Fermi's allocation unit, 20 registers reach all 1536 threads; at 21 the 128-register unit costs a block.
        assert_eq!(32768 / 1536, 21);
        let full = occ((2, 0), 256, 20, 0);
        assert_eq!(full.active_warps_per_sm * 32, 1536);
        assert_eq!(full.occupancy_pct, 100.0);
        assert_eq!(occ((2, 0), 256, 21, 0).active_blocks_per_sm, 5);
        // Over 63 registers does not exist on Fermi (the compiler spills instead).
        assert!(!occ((2, 0), 256, 64, 0).launchable);
    }

    #[test]
    fn seed_001_fermi_configs() {
        // The seed's sweep on sm_20: (32,32) is limited to one 1024-thread block = 32 of 48 warps.
        let o = occ((2, 0), 1024, 10, 0);
        assert_eq!((o.active_blocks_per_sm, o.limiter), (1, Limiter::Warps));
        assert!((o.occupancy_pct - 66.666).abs() < 0.01);
        // (64,2): 128 threads hits the 8-block limit: 32 of 48 warps.
        let o = occ((2, 0), 128, 10, 0);
        assert_eq!((o.active_blocks_per_sm, o.limiter), (8, Limiter::Blocks));
        // (16,16) and (256,1): 6 blocks of 8 warps = 100%.
        assert_eq!(occ((2, 0), 256, 10, 0).occupancy_pct, 100.0);
    }

    #[test]
    fn modern_limits() {
        let h = parse_arch("sm_90").unwrap();
        let o = theoretical(h, &Request { block_size: 256, regs_per_thread: 32, static_smem: 4096, dynamic_smem: 0 });
        assert_eq!(o.active_blocks_per_sm, 8);
        assert_eq!(o.limiter, Limiter::Warps);
        assert_eq!(o.limits.registers, Some(8));
        assert_eq!(o.limits.shared_memory, Some(45)); // 228 KiB / (4 KiB + 1 KiB reserved)
        // 255 registers x 256 threads: 8192 registers per warp -> 2 warps per sub-partition, 8 per SM -> 1 block.
        let o = theoretical(h, &Request { block_size: 256, regs_per_thread: 255, static_smem: 0, dynamic_smem: 0 });
        assert_eq!((o.active_blocks_per_sm, o.limiter), (1, Limiter::Registers));
        // 1024 threads x 128 registers cannot launch.
        let o = theoretical(h, &Request { block_size: 1024, regs_per_thread: 128, static_smem: 0, dynamic_smem: 0 });
        assert!(!o.launchable);
        assert!(o.reason.unwrap().contains("registers per block"));
        // Too much shared memory.
        let o =
            theoretical(h, &Request { block_size: 128, regs_per_thread: 16, static_smem: 0, dynamic_smem: 300_000 });
        assert!(!o.launchable && o.reason.unwrap().contains("shared memory"));
        // Turing has 32 warps per SM.
        assert_eq!(occ((7, 5), 1024, 16, 0).occupancy_pct, 100.0);
        assert!(!occ((9, 0), 2048, 16, 0).launchable);
    }

    #[test]
    fn achieved_model_tracks_the_seed_on_fermi() {
        // (warps per block, blocks per SM, measured achieved_occupancy) from source 001 on a 14/15-SM Fermi.
        let seed = [
            (32, 1, 0.501),
            (16, 3, 0.737),
            (16, 3, 0.766),
            (8, 6, 0.811),
            (4, 8, 0.555),
            (8, 6, 0.799),
            (32, 1, 0.573),
        ];
        for (wpb, nb, measured) in seed {
            let shape = LaunchShape {
                blocks: 262_144,
                warps_per_block: wpb,
                active_blocks_per_sm: nb,
                max_warps_per_sm: 48,
                sms: 15,
            };
            let a = achieved(&shape, arch((2, 0)).unwrap().warp_spread, None);
            assert!((a - measured).abs() < 0.1, "{wpb} warps x {nb}: model {a:.3}, seed {measured}");
        }
    }

    #[test]
    fn achieved_on_hopper_tracks_ncu() {
        // ncu's sm__warps_active on an H200 (docs/PERF-NOTES.md): 8-warp blocks 73-75 %, 16-warp 66-71 %,
        // 32-warp 62-67 %, with every slot filled (theoretical 100 %).
        let h = arch((9, 0)).unwrap();
        for (wpb, lo, hi) in [(8, 0.73, 0.752), (16, 0.662, 0.706), (32, 0.622, 0.673)] {
            let shape = LaunchShape {
                blocks: 1 << 20,
                warps_per_block: wpb,
                active_blocks_per_sm: 64 / wpb,
                max_warps_per_sm: 64,
                sms: 132,
            };
            let a = achieved(&shape, h.warp_spread, None);
            assert!(a > lo - 0.05 && a < hi + 0.05, "{wpb} warps: {a:.3} not near {lo}..{hi}");
        }
    }

    #[test]
    fn achieved_sees_the_tail() {
        let shape = |blocks| LaunchShape {
            blocks,
            warps_per_block: 1,
            active_blocks_per_sm: 2,
            max_warps_per_sm: 64,
            sms: 132,
        };
        let theoretical = 2.0 / 64.0;
        // 264 blocks fill every slot once; 133 leave all but one SM half full.
        assert!((achieved(&shape(264), 0.0, None) - theoretical).abs() < 1e-12);
        assert!((achieved(&shape(133), 0.0, None) - theoretical * 133.0 / 264.0).abs() < 1e-12);
        // Many waves wash the tail out.
        assert!(achieved(&shape(264 * 100 + 1), 0.0, None) > 0.99 * theoretical);
        assert_eq!(achieved(&LaunchShape { blocks: 0, ..shape(1) }, 0.0, None), 0.0);
        // The block scheduler caps residency when it is the bottleneck.
        assert!((achieved(&shape(264 * 100), 0.0, Some(1.0)) - 1.0 / 64.0).abs() < 1e-12);
    }
}
