//! The warp-level memory-access model: groups each warp's global accesses per instruction, counts the
//! distinct transactions (32-byte sectors on 5.0+, 128-byte lines on 2.x/3.x) they touch, and gives
//! nvprof's gld/gst efficiency, transactions and transactions per request from the kernel's own
//! address function, without a GPU.

use crate::kernels::{Access, AccessKind, Kernel, Thread};
use crate::spec::Dim3;

/// Accesses the model walks per configuration, about; beyond that it samples whole blocks spread over
/// the grid and scales the counts up. (A kernel
/// with many accesses per thread, like a 31x31 convolution, gets fewer blocks.)
pub const SAMPLE_ACCESSES: u64 = 1 << 18;

/// Counts for one direction (loads or stores).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Warp-level instructions with at least one active thread.
    pub requests: f64,
    /// Distinct transactions (sectors or lines) those requests touch.
    pub transactions: f64,
    /// Bytes the active threads asked for.
    pub requested_bytes: f64,
    /// Runs of adjacent 128-byte lines per request, summed: the L1 passes ("wavefronts") the time model
    /// charges one cycle each. A request scattered over 32 rows takes 32; a contiguous span of lines, as
    /// an array of structures or interleaved RGB reads it, one (docs/MODEL.md: fitted on the matmul
    /// mappings, and a line per cycle would make gaussian-smooth and the AoS sum 1.2-1.9x slower than
    /// measured).
    pub wavefronts: f64,
}

/// The model's result for one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemStats {
    /// Global loads.
    pub loads: Traffic,
    /// Global stores.
    pub stores: Traffic,
    /// Bytes per transaction (32 or 128).
    pub txn_bytes: u32,
    /// Blocks walked.
    pub sampled_blocks: u64,
    /// Blocks in the grid.
    pub total_blocks: u64,
}

impl Traffic {
    /// Bytes the transactions move.
    pub fn transferred_bytes(&self, txn_bytes: u32) -> f64 {
        self.transactions * txn_bytes as f64
    }

    /// requested / transferred bytes, percent; `None` without accesses.
    pub fn efficiency_pct(&self, txn_bytes: u32) -> Option<f64> {
        (self.transactions > 0.0).then(|| 100.0 * self.requested_bytes / self.transferred_bytes(txn_bytes))
    }

    /// Transactions per request; `None` without accesses.
    pub fn per_request(&self) -> Option<f64> {
        (self.requests > 0.0).then(|| self.transactions / self.requests)
    }
}

/// Bytes of an L1 cache line: one tag lookup serves the sectors of one line.
const LINE_BYTES: u64 = 128;

/// Base address of buffer `i`: far apart and 256-byte aligned, as cudaMalloc returns them.
fn base(buffer: u8) -> u64 {
    (buffer as u64 + 1) << 40
}

/// Walks the (sampled) grid of `kernel` with `block` and counts transactions of `txn_bytes`.
pub fn analyze(kernel: &dyn Kernel, grid: Dim3, block: Dim3, txn_bytes: u32) -> MemStats {
    let total_blocks = grid.volume();
    let threads_per_block = block.volume();
    let mut stats =
        MemStats { loads: Traffic::default(), stores: Traffic::default(), txn_bytes, sampled_blocks: 0, total_blocks };
    if total_blocks == 0 || threads_per_block == 0 || txn_bytes == 0 {
        return stats;
    }
    // Size the sample from the accesses of one block.
    let mut probe = Vec::new();
    for t in 0..threads_per_block {
        let thread = Dim3::new(
            (t % block.x as u64) as u32,
            ((t / block.x as u64) % block.y as u64) as u32,
            (t / (block.x as u64 * block.y as u64)) as u32,
        );
        kernel.accesses(&Thread { block: Dim3::new(0, 0, 0), thread, dim: block }, &mut probe);
    }
    let per_block = (probe.len() as u64).max(threads_per_block);
    let want = (SAMPLE_ACCESSES / per_block).clamp(1, total_blocks);
    // Every block when they fit; otherwise a golden-ratio (low-discrepancy) sequence over the grid, which
    // no period of the grid can alias with: evenly spaced picks can all land on the ragged last row of
    // blocks (32x11 blocks over 270-row frames did) and undercount.
    let pick = |k: u64| {
        if want == total_blocks {
            k
        } else {
            let x = (0.5 + k as f64 * 0.618_033_988_749_894_9).fract();
            ((x * total_blocks as f64) as u64).min(total_blocks - 1)
        }
    };

    let mut warp: Vec<Access> = Vec::with_capacity(32 * 8);
    let mut keys: Vec<(u16, bool, u64)> = Vec::with_capacity(32 * 8);
    let mut seen = std::collections::HashSet::new();
    for k in 0..want {
        let linear = pick(k);
        if !seen.insert(linear) {
            continue;
        }
        stats.sampled_blocks += 1;
        let b = Dim3::new(
            (linear % grid.x as u64) as u32,
            ((linear / grid.x as u64) % grid.y as u64) as u32,
            (linear / (grid.x as u64 * grid.y as u64)) as u32,
        );
        for t in 0..threads_per_block {
            let thread = Dim3::new(
                (t % block.x as u64) as u32,
                ((t / block.x as u64) % block.y as u64) as u32,
                (t / (block.x as u64 * block.y as u64)) as u32,
            );
            kernel.accesses(&Thread { block: b, thread, dim: block }, &mut warp);
            if t % 32 == 31 || t + 1 == threads_per_block {
                count_warp(&mut warp, &mut keys, txn_bytes, &mut stats);
            }
        }
    }
    let scale = total_blocks as f64 / stats.sampled_blocks as f64;
    for (t, s) in [(&mut stats.loads, scale * kernel.load_repeat()), (&mut stats.stores, scale)] {
        t.requests *= s;
        t.transactions *= s;
        t.requested_bytes *= s;
        t.wavefronts *= s;
    }
    stats
}

/// Adds one warp's accesses to the counts and empties the buffer.
fn count_warp(warp: &mut Vec<Access>, keys: &mut Vec<(u16, bool, u64)>, txn_bytes: u32, stats: &mut MemStats) {
    keys.clear();
    // Requested bytes count each address once per instruction: threads reading the same word (a
    // broadcast) use one word of the sector, as ncu's bytes-per-sector metrics count them.
    warp.sort_unstable_by_key(|a| (a.insn, a.kind == AccessKind::Load, a.buffer, a.index, a.bytes));
    warp.dedup_by_key(|a| (a.insn, a.kind == AccessKind::Load, a.buffer, a.index, a.bytes));
    for a in warp.iter() {
        let is_load = a.kind == AccessKind::Load;
        let traffic = if is_load { &mut stats.loads } else { &mut stats.stores };
        traffic.requested_bytes += a.bytes as f64;
        let first = base(a.buffer) + a.index * 4;
        let last = first + a.bytes.max(1) as u64 - 1;
        for seg in first / txn_bytes as u64..=last / txn_bytes as u64 {
            keys.push((a.insn, is_load, seg));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let per_line = (LINE_BYTES / txn_bytes as u64).max(1);
    let (mut prev_insn, mut prev_line) = (None, None);
    for &(insn, is_load, seg) in keys.iter() {
        let traffic = if is_load { &mut stats.loads } else { &mut stats.stores };
        traffic.transactions += 1.0;
        if prev_insn != Some((insn, is_load)) {
            traffic.requests += 1.0;
            prev_insn = Some((insn, is_load));
            prev_line = None;
        }
        let line = seg / per_line;
        if prev_line.is_none_or(|p: u64| line > p + 1) {
            traffic.wavefronts += 1.0;
        }
        prev_line = Some(line);
    }
    warp.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SumMatrix;

    fn gld_eff(block: Dim3, txn: u32) -> f64 {
        let k = SumMatrix::new(1 << 14, 1 << 14).unwrap();
        analyze(&k, k.grid(block), block, txn).loads.efficiency_pct(txn).unwrap()
    }

    #[test]
    fn seed_gld_efficiency_on_fermi_lines() {
        // Source 001 on sm_20: 100, 100, 49.96, 49.80 % for (32,32), (32,16), (16,32), (16,16).
        assert_eq!(gld_eff(Dim3::new(32, 32, 1), 128), 100.0);
        assert_eq!(gld_eff(Dim3::new(32, 16, 1), 128), 100.0);
        assert_eq!(gld_eff(Dim3::new(16, 32, 1), 128), 50.0);
        assert_eq!(gld_eff(Dim3::new(16, 16, 1), 128), 50.0);
        assert_eq!(gld_eff(Dim3::new(256, 1, 1), 128), 100.0);
    }

    #[test]
    fn sectors_make_half_warps_whole() {
        for b in [Dim3::new(32, 32, 1), Dim3::new(32, 16, 1), Dim3::new(16, 32, 1), Dim3::new(16, 16, 1)] {
            assert_eq!(gld_eff(b, 32), 100.0, "{b}");
        }
        // 4 floats per row = 16 of 32 bytes per sector.
        assert_eq!(gld_eff(Dim3::new(4, 64, 1), 32), 50.0);
    }

    #[test]
    fn counts_are_exact_for_the_seed_problem() {
        let k = SumMatrix::new(1 << 14, 1 << 14).unwrap();
        let s = analyze(&k, k.grid(Dim3::new(32, 16, 1)), Dim3::new(32, 16, 1), 32);
        let n = (1u64 << 28) as f64;
        assert_eq!(s.loads.requests, 2.0 * n / 32.0);
        assert_eq!(s.loads.transactions, 2.0 * n * 4.0 / 32.0);
        assert_eq!(s.loads.per_request(), Some(4.0));
        assert_eq!(s.stores.transactions, n * 4.0 / 32.0);
        assert!(s.sampled_blocks < s.total_blocks);
    }

    #[test]
    fn loops_listed_in_part_are_scaled_and_lines_counted_per_request() {
        use crate::kernels::MatMul;
        let n = 1024u64;
        let (c, s) = (MatMul::new(true, n as u32).unwrap(), MatMul::new(false, n as u32).unwrap());
        let b = Dim3::new(32, 8, 1);
        let warps = (n * n / 32) as f64;
        // Coalesced: per k, A is one broadcast word (1 sector) and B one 128-byte row (4 sectors).
        let mc = analyze(&c, c.grid(b), b, 32);
        assert_eq!(mc.loads.requests, warps * 2.0 * n as f64);
        assert_eq!(mc.loads.transactions, warps * 5.0 * n as f64);
        assert_eq!(mc.loads.wavefronts, warps * 2.0 * n as f64);
        // Strided: A's 32 rows are 32 scattered lines, B one broadcast word.
        let ms = analyze(&s, s.grid(b), b, 32);
        assert_eq!(ms.loads.wavefronts, warps * 33.0 * n as f64);
        assert_eq!(ms.stores.transactions, warps * 32.0);
    }

    #[test]
    fn ragged_edges_count_only_active_threads() {
        let k = SumMatrix::new(33, 1).unwrap();
        let s = analyze(&k, k.grid(Dim3::new(32, 1, 1)), Dim3::new(32, 1, 1), 32);
        assert_eq!(s.sampled_blocks, 2);
        assert_eq!(s.loads.requests, 4.0); // 2 blocks x 2 load instructions
        assert_eq!(s.loads.requested_bytes, 2.0 * 33.0 * 4.0);
        assert_eq!(s.loads.transactions, 2.0 * (4.0 + 1.0));
    }
}
