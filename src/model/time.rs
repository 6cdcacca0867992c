//! The execution-time model: SKE's split (source 004) into computation, communication and
//! synchronization, with latency hidden by resident warps, bounded below by a bandwidth roofline and by
//! the block scheduler's issue rate. The equations and their calibration are in docs/MODEL.md.

use serde::Serialize;

use super::arch::{Arch, Card};

/// Achievable fraction of datasheet DRAM bandwidth for a device-to-device copy (H200 here: 4220 of
/// 4800 GB/s); used only when no copy was measured.
pub const COPY_EFFICIENCY: f64 = 0.88;
/// Per-launch overhead, ms (a few microseconds on current drivers; source 003 says tens on old ones).
pub const LAUNCH_MS: f64 = 0.003;
/// Warp schedulers per SM issuing one instruction per cycle each (SKE's issue width, per SM).
const SCHEDULERS_PER_SM: f64 = 4.0;
/// `__syncthreads` cost per warp, cycles (SKE).
const SYNC_CYCLES_PER_WARP: f64 = 4.0;

/// The machine a prediction is for: an arch plus the sizes of one card (or the measured device).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Target {
    /// Card or device name.
    pub name: String,
    /// Its arch.
    #[serde(skip)]
    pub arch: &'static Arch,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// SM clock, MHz.
    pub clock_mhz: u32,
    /// Achievable DRAM bandwidth (bytes read + written), GB/s.
    pub bandwidth_gbs: f64,
}

impl Target {
    /// A card of the database, its bandwidth derated by [`COPY_EFFICIENCY`].
    pub fn from_card(card: &Card, arch: &'static Arch) -> Self {
        Target {
            name: card.name.to_string(),
            arch,
            sms: card.sms,
            clock_mhz: card.clock_mhz,
            bandwidth_gbs: card.mem_bandwidth_gbs * COPY_EFFICIENCY,
        }
    }

    /// Blocks per second one SM's scheduler can start.
    pub fn block_issue_rate(&self) -> f64 {
        self.clock_mhz as f64 * 1e6 / self.arch.block_issue_cycles as f64
    }

    /// DRAM latency, seconds.
    pub fn latency_s(&self) -> f64 {
        self.arch.mem_latency_cycles as f64 / (self.clock_mhz as f64 * 1e6)
    }
}

/// What limits a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// DRAM bandwidth.
    Bandwidth,
    /// L1 throughput of the load transactions.
    L1,
    /// Too few bytes in flight to cover DRAM latency.
    Latency,
    /// The block scheduler.
    BlockIssue,
    /// Instruction issue.
    Compute,
}

impl Bound {
    /// Name used in outputs.
    pub fn as_str(&self) -> &'static str {
        match self {
            Bound::Bandwidth => "bandwidth",
            Bound::L1 => "l1",
            Bound::Latency => "latency",
            Bound::BlockIssue => "block_issue",
            Bound::Compute => "compute",
        }
    }
}

/// One configuration's workload, as the models see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Workload {
    /// Blocks in the grid.
    pub blocks: u64,
    /// Warps in the grid.
    pub warps: f64,
    /// Bytes DRAM must deliver to the loads: the inputs' footprint (reuse across warps is caught by L2).
    pub dram_read_bytes: f64,
    /// Bytes the stores write, at transaction granularity (partial sectors cost whole ones).
    pub store_bytes: f64,
    /// Bytes the load transactions move through L1 (memory model).
    pub l1_load_bytes: f64,
    /// The loads' L1 tag lookups: distinct 128-byte lines per request (memory model).
    pub l1_wavefronts: f64,
    /// Warp instructions per warp (PTX instructions of the kernel, SKE's n).
    pub insns_per_warp: f64,
    /// Barriers on a warp's path.
    pub barriers: f64,
    /// Resident warps per SM on average (achieved occupancy x max warps), before block-issue limits.
    pub resident_warps: f64,
}

/// The model's time and its terms, ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// Predicted kernel time.
    pub time_ms: f64,
    /// DRAM bytes over achievable bandwidth (the roofline floor).
    pub bandwidth_ms: f64,
    /// Load transactions over L1 throughput.
    pub l1_ms: f64,
    /// Rounds of resident warps, one DRAM latency each (Little's law).
    pub latency_ms: f64,
    /// Blocks over the block scheduler's rate.
    pub issue_ms: f64,
    /// Warp instructions over issue slots (SKE's computation term).
    pub compute_ms: f64,
    /// Barrier cost (SKE's synchronization term).
    pub sync_ms: f64,
    /// The largest term.
    pub bound: Bound,
}

/// Predicts one configuration's time on `t`.
pub fn predict(t: &Target, w: &Workload) -> Prediction {
    let s = t.sms as f64;
    let clock = t.clock_mhz as f64 * 1e6;
    let bandwidth = (w.dram_read_bytes + w.store_bytes) / (t.bandwidth_gbs * 1e9);
    // L1: its data bandwidth, or one line looked up per cycle, whichever is slower.
    let l1 = (w.l1_load_bytes / t.arch.l1_bytes_per_clk as f64).max(w.l1_wavefronts) / (s * clock);
    // Each warp waits one DRAM round trip for its (independent) loads; resident warps overlap theirs.
    let latency = if w.resident_warps > 0.0 && w.dram_read_bytes > 0.0 {
        w.warps / (s * w.resident_warps) * t.latency_s()
    } else {
        0.0
    };
    let issue = w.blocks as f64 / (s * t.block_issue_rate());
    let compute = w.warps * w.insns_per_warp / (s * SCHEDULERS_PER_SM * clock);
    let sync = w.warps * w.barriers * SYNC_CYCLES_PER_WARP / (s * SCHEDULERS_PER_SM * clock);
    let terms = [
        (Bound::Bandwidth, bandwidth),
        (Bound::L1, l1),
        (Bound::Latency, latency),
        (Bound::BlockIssue, issue),
        (Bound::Compute, compute),
    ];
    let (bound, longest) = terms.iter().copied().fold((Bound::Bandwidth, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let ms = 1e3;
    Prediction {
        time_ms: (longest + sync) * ms + LAUNCH_MS,
        bandwidth_ms: bandwidth * ms,
        l1_ms: l1 * ms,
        latency_ms: latency * ms,
        issue_ms: issue * ms,
        compute_ms: compute * ms,
        sync_ms: sync * ms,
        bound,
    }
}

/// Resident blocks per SM the block scheduler sustains when it is the bottleneck: its rate times a
/// block's shortest life (one DRAM round trip), by Little's law.
pub fn issue_resident_blocks(t: &Target) -> f64 {
    t.block_issue_rate() * t.latency_s()
}

/// Whether a measured time shows a block-issue-bound launch: blocks finished per SM per second within
/// 15 % of the scheduler's rate.
pub fn issue_bound_at(t: &Target, blocks: u64, time_ms: f64) -> bool {
    let rate = blocks as f64 / (t.sms as f64 * time_ms * 1e-3);
    rate >= 0.85 * t.block_issue_rate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::arch::{arch, find_card};

    fn h200() -> Target {
        let mut t = Target::from_card(find_card("H200").unwrap(), arch((9, 0)).unwrap());
        t.bandwidth_gbs = 4220.0; // the copy measured on the test machine
        t
    }

    fn sum_matrix(blocks: u64, warps_per_block: f64, resident_warps: f64) -> Workload {
        let n = (1u64 << 28) as f64;
        Workload {
            blocks,
            warps: blocks as f64 * warps_per_block,
            dram_read_bytes: 8.0 * n,
            store_bytes: 4.0 * n,
            l1_load_bytes: 8.0 * n,
            l1_wavefronts: 2.0 * n / 32.0,
            insns_per_warp: 20.0,
            barriers: 0.0,
            resident_warps,
        }
    }

    #[test]
    fn the_h200_calibration_points() {
        let t = h200();
        assert!((t.block_issue_rate() / 1e6 - 12.53).abs() < 0.05);
        assert!((t.latency_s() * 1e9 - 798.0).abs() < 1.0);
        // (64,1): 4.19 M blocks, measured 2.525 ms, block-issue bound.
        let p = predict(&t, &sum_matrix(1 << 22, 2.0, 64.0 * 0.85));
        assert_eq!(p.bound, Bound::BlockIssue);
        assert!((p.time_ms - 2.525).abs() / 2.525 < 0.03, "{p:?}");
        assert!(issue_bound_at(&t, 1 << 22, 2.525));
        // (256,1): 1 M blocks, 72 % achieved occupancy, measured 0.958 ms: latency bound. The model is
        // 15 % slow here, its worst point on the seed sweep (docs/MODEL.md: median error 6.7 %).
        let p = predict(&t, &sum_matrix(1 << 20, 8.0, 64.0 * 0.721));
        assert_eq!(p.bound, Bound::Latency);
        assert!((p.time_ms - 0.958) / 0.958 > 0.0 && (p.time_ms - 0.958) / 0.958 < 0.16, "{p:?}");
        assert!(!issue_bound_at(&t, 1 << 20, 0.958));
        // The roofline floor: 3.22 GB at 4220 GB/s.
        assert!((p.bandwidth_ms - 0.763).abs() < 0.001);
    }

    #[test]
    fn issue_residency_matches_ncu() {
        // ncu: (64,1) 27.2 % achieved = ~10 two-warp blocks resident of 32.
        let r = issue_resident_blocks(&h200());
        assert!((r - 10.0).abs() < 0.5, "{r}");
    }
}
