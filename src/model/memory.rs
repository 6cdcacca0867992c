//! The warp-level memory-access model: groups each warp's accesses per instruction and counts, from the
//! kernel's own address function and without a GPU, what the memory pipeline sees: global transactions
//! (32-byte sectors on 5.0+, 128-byte lines on 2.x/3.x) and their efficiency, L1 passes, stores that
//! write part of a sector, the segments that reach L2 once a block's reuse is served by L1, and
//! shared-memory wavefronts (bank conflicts).
//!
//! Its cost does not grow with the grid ([`analyze`]; a grid of at most [`WARP_BUDGET`] warps is walked
//! whole):
//! - blocks fall into strata by position: the last along each axis (where a ragged edge leaves threads
//!   idle) apart, and on short axes (64 blocks or fewer) the first too (where stencils clamp);
//! - a stratum of at most 8 warps is walked whole; from the others, units are drawn along two
//!   golden-ratio sequences with irrational shifts (randomized quasi-Monte Carlo). A unit is a patch of
//!   consecutive blocks spanning one period of their alignment to 32-byte sectors along each axis (read
//!   from how far each buffer's first access moves between neighbouring blocks: 8 blocks at most for
//!   4-byte elements), every warp walked, so that periodic address patterns average out exactly;
//! - warps with the same access pattern relative to their lines (and banks) are counted once (memo);
//! - the spread of the two sequences' means gives a 95 % confidence half-width (Student's t); more
//!   units are drawn where it is largest until it is within [`TARGET_ERROR`] of every main count or
//!   about [`WARP_BUDGET`] warps were walked, and the half-width reached is reported
//!   ([`MemStats::error`]). Strata under a tenth of the blocks get shorter patches when the budget is
//!   short (their bias weighs little).
//!
//! [`analyze_exact`] walks every warp, counting once the blocks whose accesses repeat another's by whole
//! lines (the recursive blurs' 128 warps of 16 k accesses each: 7x faster, the same counts); the tests
//! hold the two together (main counts within the stated half-width or 1.5 %, L1 passes 2 %, L2 segments
//! 40 % on small grids).

use std::collections::HashSet;

use rayon::prelude::*;

use crate::kernels::{Access, AccessKind, Kernel, Thread};
use crate::spec::Dim3;

/// Relative 95 % confidence half-width the fast path stops at, for every main count.
pub const TARGET_ERROR: f64 = 0.02;
/// Accesses walked to measure a block's reuse (the block, or its first warps up to this many).
const REUSE_BUDGET: u64 = 1 << 15;
/// Bytes of an L1 cache line: one tag lookup serves the sectors of one line.
const LINE_BYTES: u64 = 128;
/// Bytes of a sector, the unit L2 and DRAM read and write (every arch warpscope models).
const SECTOR_BYTES: u64 = 32;
/// Shared-memory banks, each 4 bytes wide (CUDA C++ Programming Guide, "Shared Memory", compute
/// capability 2.x and newer).
pub const BANKS: u64 = 32;

/// Counts for one direction of global memory (loads or stores).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Warp-level instructions with at least one active thread.
    pub requests: f64,
    /// Distinct transactions (sectors or lines) those requests touch.
    pub transactions: f64,
    /// Bytes the active threads asked for.
    pub requested_bytes: f64,
    /// L1 data-pipe passes ("wavefronts") per request, summed, which the time model charges one cycle
    /// each: per group of four lines, the most distinct words a bank holds (docs/MODEL.md section 19). A request
    /// scattered over 32 rows of one bank takes 32; a contiguous span, one; every other word, two.
    pub wavefronts: f64,
    /// Distinct 128-byte lines per request, summed: L1 sends L2 one request per line (with the sectors
    /// it carries), so a store scattered over 32 rows is 32 requests at L2, an interleaved RGB store 3.
    pub lines: f64,
    /// Stores: 32-byte sectors a request writes only part of (L2 merges them with a masked write).
    pub partial_sectors: f64,
    /// Transactions that reach L2: for loads, those of a block not already requested by the same block
    /// (served by L1); for stores, every transaction.
    pub l2_transactions: f64,
}

/// Shared-memory counts for one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SharedTraffic {
    /// Warp-level shared-memory instructions with an active thread.
    pub requests: f64,
    /// Passes through the banks: per request, the most distinct 4-byte words any bank must deliver
    /// (threads reading the same word share it), per group of threads that fits in one pass
    /// (32 for 4-byte, 16 for 8-byte, 8 for 16-byte accesses).
    pub wavefronts: f64,
}

impl SharedTraffic {
    /// Wavefronts per request: 1 without bank conflicts, up to 32.
    pub fn per_request(&self) -> Option<f64> {
        (self.requests > 0.0).then(|| self.wavefronts / self.requests)
    }
}

/// The model's result for one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemStats {
    /// Global loads.
    pub loads: Traffic,
    /// Global stores, atomics included (they move as stores do).
    pub stores: Traffic,
    /// Of the stores, the global atomics (`atom`, `red`): requests, transactions, requested bytes and
    /// line requests (a line of a round of lanes each).
    pub atomics: Traffic,
    /// Where the atomics land ([`atomic_spread`]); zero without atomics.
    pub atomic_spread: AtomicSpread,
    /// The atomics' line requests (a line in a round) of a single lane: the one sector of each rides
    /// in its request's cycle at L2's input port, not a cycle of its own.
    pub atomic_lone_requests: f64,
    /// Shared-memory loads.
    pub shared_loads: SharedTraffic,
    /// Shared-memory stores.
    pub shared_stores: SharedTraffic,
    /// Bytes per transaction (32 or 128).
    pub txn_bytes: u32,
    /// Blocks with at least one warp walked.
    pub sampled_blocks: u64,
    /// Blocks in the grid.
    pub total_blocks: u64,
    /// Warps walked (the fast path may walk a warp more than once).
    pub sampled_warps: u64,
    /// Warps in the grid.
    pub total_warps: u64,
    /// 95 % confidence half-width of the main counts, relative (0 when every warp was walked).
    pub error: f64,
}

/// How the grid's global atomics spread over memory: L2 serves them one sector a clock in the slice
/// that holds the line, so the lines they touch decide how many slices share the work (docs/MODEL.md
/// section 37).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AtomicSpread {
    /// Distinct 128-byte lines the grid's atomics touch, estimated from a sample of warps.
    pub lines: f64,
    /// The share of the atomics' lane operations on the busiest of those lines, in the sample.
    pub hottest: f64,
}

impl Traffic {
    /// These counts less `part`'s (the stores without their atomics).
    pub fn less(&self, part: &Traffic) -> Traffic {
        Traffic {
            requests: self.requests - part.requests,
            transactions: self.transactions - part.transactions,
            requested_bytes: self.requested_bytes - part.requested_bytes,
            ..*self
        }
    }

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

/// Base address of global buffer `i`: 64 GiB apart (every buffer is smaller) and aligned, as cudaMalloc
/// returns them; addresses stay under 2^44 for every `u8` buffer index.
fn base(buffer: u8) -> u64 {
    (buffer as u64 + 1) << 36
}

/// A sort key of (instruction, load or store, address or segment): the instruction above bit 50, the
/// direction in bit 49, the rest below (128 bits, so that every instruction id of a thread has its own).
/// An access's rest is its width's log2 in bits 46-48 and its byte address below.
type Key = u128;

fn key(insn: u32, load: bool, low: u64) -> Key {
    ((insn as Key) << 50) | ((load as Key) << 49) | low as Key
}

const LOW: Key = (1 << 49) - 1;

/// The byte address in an access's key.
const ADDRESS: u64 = (1 << 46) - 1;

/// The per-warp counts, in a fixed order, so that strata keep sums and squares of each.
mod c {
    pub const LD_REQ: usize = 0;
    pub const LD_TXN: usize = 1;
    pub const LD_BYTES: usize = 2;
    pub const LD_WF: usize = 3;
    /// Distinct load transactions of the warp over all its load instructions (L1 reuse within a warp).
    pub const LD_DISTINCT: usize = 4;
    pub const ST_REQ: usize = 5;
    pub const ST_TXN: usize = 6;
    pub const ST_BYTES: usize = 7;
    pub const ST_WF: usize = 8;
    pub const ST_PARTIAL: usize = 9;
    pub const SH_LD_REQ: usize = 10;
    pub const SH_LD_WF: usize = 11;
    pub const SH_ST_REQ: usize = 12;
    pub const SH_ST_WF: usize = 13;
    /// Distinct 128-byte lines per request, summed (L1 sends L2 one request per line).
    pub const LD_LINES: usize = 14;
    pub const ST_LINES: usize = 15;
    /// Of the stores, the atomics' requests, transactions and bytes (nvprof counts them apart).
    pub const AT_REQ: usize = 16;
    pub const AT_TXN: usize = 17;
    pub const AT_BYTES: usize = 18;
    /// The atomics' line requests of a single lane (one per line and round).
    pub const AT_LONE: usize = 19;
    /// The atomics' line requests (distinct lines per request and round).
    pub const AT_LINES: usize = 20;
    pub const N: usize = 21;
    /// The counts whose sampling error decides when to stop, each with the count its error is relative
    /// to (partial sectors are a share of the store transactions).
    pub const MAIN: [(usize, usize); 6] = [
        (LD_TXN, LD_TXN),
        (LD_WF, LD_WF),
        (ST_TXN, ST_TXN),
        (ST_PARTIAL, ST_TXN),
        (SH_LD_WF, SH_LD_WF),
        (SH_ST_WF, SH_ST_WF),
    ];
}

type Counts = [f64; c::N];

/// Scratch buffers reused across warps.
#[derive(Default)]
struct Scratch {
    acc: Vec<Access>,
    lanes: Vec<u8>,
    /// Whether the collected warp made shared-memory accesses.
    shared: bool,
    keys: Vec<Key>,
    /// The atomic instructions of the collected warp (sorted), and per request (key order) whether it
    /// is one.
    atomic: Vec<u32>,
    atomic_req: Vec<bool>,
    /// Of those, the ones ptxas folds across lanes on one address (sorted).
    fold: Vec<u32>,
    /// Per key (after [`atomic_rounds`]), its round: 0, or for an atomic's lane on a word an earlier
    /// lane of the instruction accesses, how many did.
    rounds: Vec<u8>,
    /// Per lane of an atomic instruction, its (request, line and round).
    lanes_at: Vec<(u64, u64)>,
    /// (request, segment) and ((request, sector), bytes), the request numbered as in `words`.
    segs: Vec<(u64, u64)>,
    cover: Vec<((u64, u64), u64)>,
    distinct: Vec<u64>,
    shared_acc: Vec<(u32, bool, u8, u8, u64)>,
    banks: Vec<(u64, u64)>,
    /// The 4-byte words a global instruction's lanes read or write, with the instruction: (request, word),
    /// the request numbered in key order from 0, times 2, plus 1 for a load.
    words: Vec<(u64, u64)>,
}

/// `f` with this thread's scratch buffers, taken out while `f` runs: a kernel's run may wait on other
/// cores and meanwhile take up another warp on this thread (which then gets buffers of its own).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut s = SCRATCH.with(|s| s.take());
    let r = f(&mut s);
    SCRATCH.with(|c| c.replace(s));
    r
}

/// Memoised patterns kept per thread at most (the memo is cleared when full).
const MEMO_PATTERNS: usize = 1 << 16;

/// Memoised block patterns of the exact walk kept per thread at most.
const BLOCK_PATTERNS: usize = 1 << 12;

thread_local! {
    /// Each thread's scratch buffers, kept from one warp to the next (a long loop's warp fills them
    /// with millions of entries).
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
    /// The counts and distinct load segments of every block pattern the exact walk has seen on this
    /// thread ([`analyze_exact`]): a block's accesses relative to its own anchors decide both.
    static BLOCK_MEMO: std::cell::RefCell<rustc_hash::FxHashMap<u64, (Counts, f64)>> = Default::default();
    /// The counts of every warp pattern this thread has seen (see [`count_warp_memo`]): warps with the
    /// same pattern have the same counts, in any configuration or kernel.
    static MEMO: std::cell::RefCell<rustc_hash::FxHashMap<u64, Counts>> = Default::default();
}

/// The counts of the collected warp, from the memo when a warp with the same pattern was counted. The
/// pattern is each access relative to an anchor: the first address of its buffer down to a 128-byte
/// line (the first shared word down to a row of banks), so that sectors, lines and banks are kept; with
/// the transaction size it is hashed to 64 bits, which stands for it (a collision among the patterns a
/// memo holds has odds of about 2^-30).
fn count_warp_memo(s: &mut Scratch, txn_bytes: u64) -> Counts {
    let mut anchors = [u64::MAX; 4];
    let h = pattern_hash(s, &mut anchors, 0x243f_6a88_85a3_08d3u64 ^ txn_bytes);
    if let Some(c) = MEMO.with(|m| m.borrow().get(&h).copied()) {
        return c;
    }
    let counts = count_warp(s, txn_bytes, None);
    MEMO.with(|m| remember(&mut m.borrow_mut(), h, counts, MEMO_PATTERNS));
    counts
}

/// Keeps `value` under `key` in a memo of at most `cap` patterns (cleared when full).
fn remember<V>(m: &mut rustc_hash::FxHashMap<u64, V>, key: u64, value: V, cap: usize) {
    if m.len() >= cap {
        m.clear();
    }
    m.insert(key, value);
}

/// `h` mixed with the collected warp's accesses, each relative to its slot's anchor in `anchors` (set
/// where still unset: the first address of each global buffer down to a 128-byte line, the first shared
/// word down to a row of banks), so that sectors, lines and banks are kept (see [`count_warp_memo`]).
fn pattern_hash(s: &Scratch, anchors: &mut [u64; 4], h: u64) -> u64 {
    // Four chains, each access into one in turn, so that the multiplications overlap (a long loop's
    // warp has millions of accesses), folded into one at the end.
    let mix = |h: u64, x: u64| (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(27);
    let mut hs = [h, h ^ 0x5851_f42d_4c95_7f2d, h ^ 0x1405_7b7e_f767_814f, h ^ 0x2545_f491_4f6c_dd1d];
    for (i, (a, &lane)) in s.acc.iter().zip(&s.lanes).enumerate() {
        let (slot, addr, unit) = match a.kind {
            AccessKind::SharedLoad | AccessKind::SharedStore => (3, a.index, BANKS),
            _ => ((a.buffer as usize).min(2), base(a.buffer) + a.offset(), LINE_BYTES),
        };
        if anchors[slot] == u64::MAX {
            anchors[slot] = addr / unit * unit;
        }
        // The access in one word: the instruction's low 22 bits above the lane, its high 10 at the top.
        let insn = a.insn as u64;
        let tag = (insn >> 22) << 54 | (a.kind as u64) << 46 | (a.buffer as u64) << 38 | (a.bytes as u64) << 30;
        let h = &mut hs[i & 3];
        *h = mix(mix(*h, tag | (insn & 0x3f_ffff) << 8 | lane as u64), addr.wrapping_sub(anchors[slot]));
    }
    hs.into_iter().fold(s.acc.len() as u64, mix)
}

/// The thread of linear index `t` in `block`.
pub(crate) fn thread_of(t: u64, block: Dim3) -> Dim3 {
    Dim3::new(
        (t % block.x as u64) as u32,
        ((t / block.x as u64) % block.y as u64) as u32,
        (t / (block.x as u64 * block.y as u64)) as u32,
    )
}

/// The block of linear index `b` in `grid`.
pub(crate) fn block_of(b: u64, grid: Dim3) -> Dim3 {
    Dim3::new(
        (b % grid.x as u64) as u32,
        ((b / grid.x as u64) % grid.y as u64) as u32,
        (b / (grid.x as u64 * grid.y as u64)) as u32,
    )
}

/// Collects warp `warp` of block `b` into the scratch (accesses and each one's lane); returns the
/// number of accesses.
fn collect(kernel: &dyn Kernel, b: Dim3, block: Dim3, warp: u64, s: &mut Scratch) -> u64 {
    s.acc.clear();
    s.lanes.clear();
    let threads = block.volume();
    let first = warp * 32;
    let mut t = thread_of(first, block);
    for lane in 0..(threads - first).min(32) {
        kernel.accesses(&Thread { block: b, thread: t, dim: block }, &mut s.acc);
        s.lanes.resize(s.acc.len(), lane as u8);
        // The next thread, x fastest.
        t.x += 1;
        if t.x == block.x {
            t.x = 0;
            t.y += 1;
            if t.y == block.y {
                t.y = 0;
                t.z += 1;
            }
        }
    }
    s.shared = s.acc.iter().any(|a| matches!(a.kind, AccessKind::SharedLoad | AccessKind::SharedStore));
    s.acc.len() as u64
}

/// The first address of each global buffer (slots 0-2, later buffers share slot 2) and the first
/// shared word (slot 3) in the collected warp; `u64::MAX` where there is none.
fn firsts(s: &Scratch) -> [u64; 4] {
    let mut f = [u64::MAX; 4];
    for a in &s.acc {
        let (slot, addr) = match a.kind {
            AccessKind::SharedLoad | AccessKind::SharedStore => (3, a.index * 4),
            _ => ((a.buffer as usize).min(2), base(a.buffer) + a.offset()),
        };
        if f[slot] == u64::MAX {
            f[slot] = addr;
        }
    }
    f
}

/// Counts one collected warp. Global load transactions of the warp are appended to `block_txns` when
/// given (to measure reuse across the block's warps).
fn count_warp(s: &mut Scratch, txn_bytes: u64, block_txns: Option<&mut Vec<u64>>) -> Counts {
    let mut out = [0.0; c::N];
    if s.shared {
        count_shared(s, &mut out);
    }
    // Global: each address once per instruction (a broadcast requests its word once). A key holds the
    // instruction, the direction, the access width (log2 bytes) and the 4-byte word address.
    s.keys.clear();
    s.atomic.clear();
    s.fold.clear();
    for a in &s.acc {
        let load = match a.kind {
            AccessKind::Load => true,
            AccessKind::Store => false,
            AccessKind::Atomic | AccessKind::AtomicFold => {
                s.atomic.push(a.insn);
                if a.kind == AccessKind::AtomicFold {
                    s.fold.push(a.insn);
                }
                false
            }
            _ => continue,
        };
        let width = (a.bytes.max(1) as u64).ilog2() as u64;
        s.keys.push(key(a.insn, load, width << 46 | (base(a.buffer) + a.offset())));
    }
    s.keys.sort_unstable();
    s.atomic.sort_unstable();
    s.atomic.dedup();
    s.fold.sort_unstable();
    s.fold.dedup();
    atomic_rounds(s);
    s.atomic_req.clear();
    s.segs.clear();
    s.cover.clear();
    s.distinct.clear();
    s.words.clear();
    s.lanes_at.clear();
    // Requests numbered in key order (each instruction and direction one), times 2, plus 1 for a load.
    let (mut request, mut prev) = (0u64, None);
    for (i, &k) in s.keys.iter().enumerate() {
        // An atomic's later rounds (lanes on a word already served) are lines and sectors of their own.
        let round = s.rounds.get(i).map_or(0, |&r| r as u64);
        let load = k >> 49 & 1 == 1;
        let instruction = k & !LOW;
        if prev.is_some_and(|p| p != instruction) {
            request += 2;
        }
        if prev != Some(instruction) {
            let insn = (k >> 50) as u32;
            s.atomic_req.push(!load && !s.atomic.is_empty() && s.atomic.binary_search(&insn).is_ok());
        }
        prev = Some(instruction);
        let bytes = 1u64 << (k >> 46 & 7);
        out[if load { c::LD_BYTES } else { c::ST_BYTES }] += bytes as f64;
        let first = k as u64 & ADDRESS;
        if s.atomic_req[(request / 2) as usize] {
            out[c::AT_BYTES] += bytes as f64;
            s.lanes_at.push((request, (first / LINE_BYTES) | (round << ROUND_SHIFT)));
        }
        let last = first + bytes - 1;
        let head = request | load as u64;
        s.words.extend((first / 4..=last / 4).map(|w| (head | round << 56, w)));
        for seg in first / txn_bytes..=last / txn_bytes {
            s.segs.push((head, seg | round << ROUND_SHIFT));
            if load {
                s.distinct.push(seg);
            }
        }
        if !load {
            for sector in first / SECTOR_BYTES..=last / SECTOR_BYTES {
                let lo = first.max(sector * SECTOR_BYTES);
                let hi = (last + 1).min((sector + 1) * SECTOR_BYTES);
                s.cover.push(((head, sector | round << ROUND_SHIFT), hi - lo));
            }
        }
    }
    // Sorted already unless one instruction mixes access widths or an atomic has rounds.
    if !s.segs.is_sorted() {
        s.segs.sort_unstable();
        s.cover.sort_unstable();
    } else if !s.atomic.is_empty() && !s.cover.is_sorted() {
        s.cover.sort_unstable();
    }
    s.segs.dedup();
    let per_line = (LINE_BYTES / txn_bytes).max(1);
    let (mut prev_head, mut prev_line) = (u64::MAX, None);
    for &(head, seg) in &s.segs {
        let load = head & 1 == 1;
        let (req, txn, lines) =
            if load { (c::LD_REQ, c::LD_TXN, c::LD_LINES) } else { (c::ST_REQ, c::ST_TXN, c::ST_LINES) };
        out[txn] += 1.0;
        let atomic = s.atomic_req[(head / 2) as usize];
        if atomic {
            out[c::AT_TXN] += 1.0;
        }
        if head != prev_head {
            out[req] += 1.0;
            if atomic {
                out[c::AT_REQ] += 1.0;
            }
            prev_head = head;
            prev_line = None;
        }
        let line = seg / per_line;
        if prev_line != Some(line) {
            out[lines] += 1.0;
        }
        prev_line = Some(line);
    }
    // An atomic's line requests of one lane: the lane's data rides in the request's cycle at L2's
    // input port (ncu on an H100, docs/results/atomics-2026-12-07/h100/xbar: 32 lanes on one word
    // take 32 cycles for 32 requests and sectors; a warp on one line's 32 words 5 for 1 and 4).
    // Each (request, line and round) of them is a line request, and a lone lane's one of its own.
    s.lanes_at.sort_unstable();
    for lanes in s.lanes_at.chunk_by(|a, b| a == b) {
        out[c::AT_LINES] += 1.0;
        out[c::AT_LONE] += (lanes.len() == 1) as u8 as f64;
    }
    let (load_passes, store_passes) = l1_passes(&mut s.words, &mut s.banks);
    out[c::LD_WF] += load_passes;
    out[c::ST_WF] += store_passes;
    // Partial sectors: a store instruction's bytes per sector, under 32.
    let mut i = 0;
    while i < s.cover.len() {
        let sector = s.cover[i].0;
        let mut bytes = 0;
        while i < s.cover.len() && s.cover[i].0 == sector {
            bytes += s.cover[i].1;
            i += 1;
        }
        if bytes < SECTOR_BYTES {
            out[c::ST_PARTIAL] += 1.0;
        }
    }
    s.distinct.sort_unstable();
    s.distinct.dedup();
    out[c::LD_DISTINCT] = s.distinct.len() as f64;
    if let Some(t) = block_txns {
        t.extend_from_slice(&s.distinct);
    }
    out
}

/// Where a key's round goes in a segment or sector number (above every address: buffers sit below
/// 2^45 bytes), so that an atomic's rounds touch lines and sectors of their own (in `words` it goes
/// above the request, each round its own L1 passes).
const ROUND_SHIFT: u32 = 50;

/// Drops the repeated keys of the collected warp (a word two lanes of one instruction access is
/// requested once), except an atomic's: lanes of one atomic instruction on the same word are served
/// in turn, one lane per word a round, each round a request to L2 with sectors of its own (ncu on an
/// H100, docs/results/atomics-2026-12-07/h100: 32 lanes adding to one word make 32 L2 requests and 32
/// sectors, `lts__t_requests_srcunit_tex_op_red` and `lts__t_sectors_srcunit_tex_op_red`; docs/MODEL.md
/// section 37). An atomic ptxas folds ([`AccessKind::AtomicFold`]: an integer operation at an address
/// the PTX shows the same across the warp, a kernel argument's or a block's) whose lanes all share one
/// word is one lane's (the H100: `atomicAdd(out, x[i])`, 4 Mi adds in 0.10 ms, one `REDG` a warp).
/// Sets `s.rounds`, each kept key's round from 0 (empty without atomics: every round 0); `s.atomic`
/// and `s.fold` must be sorted.
fn atomic_rounds(s: &mut Scratch) {
    s.rounds.clear();
    if s.atomic.is_empty() {
        // No atomic: every word once, all in round 0 (`s.rounds` left empty: the common case, kept
        // to one pass).
        s.keys.dedup();
        return;
    }
    let (mut kept, mut start) = (0, 0);
    while start < s.keys.len() {
        let instruction = s.keys[start] & !LOW;
        let end = start + s.keys[start..].iter().take_while(|&&k| k & !LOW == instruction).count();
        let insn = (instruction >> 50) as u32;
        let atomic = instruction >> 49 & 1 == 0 && s.atomic.binary_search(&insn).is_ok();
        let folded = atomic && s.keys[start] == s.keys[end - 1] && s.fold.binary_search(&insn).is_ok();
        let (mut prev, mut round) = (None, 0u8);
        for i in start..end {
            let k = s.keys[i];
            if prev == Some(k) {
                if !atomic || folded {
                    continue;
                }
                round = round.saturating_add(1);
            } else {
                round = 0;
            }
            prev = Some(k);
            s.keys[kept] = k;
            s.rounds.push(round);
            kept += 1;
        }
        start = end;
    }
    s.keys.truncate(kept);
}

/// L1 data-pipe wavefronts of a warp's global instructions, loads and stores, from `words` (request x 2,
/// plus 1 for a load; 4-byte word): each instruction's distinct lines, in address order, are taken four
/// at a time, and a group costs as many wavefronts as the most distinct words any of the 32 four-byte
/// banks holds in it. Measured with ncu (scripts/l1-wavefronts.sh: 383 patterns of one load or store per warp,
/// lanes `s` words apart for `s` from 0 to 1024 at seven offsets, and 2, 4 or 8 rows of lanes at six
/// pitches; docs/MODEL.md section 19): on an H100 within 25 % on 347 loads and 319 stores, mean |log
/// error| 0.11 and 0.12, where one pass per run of adjacent lines (the count before) was off by 0.89
/// and 0.90 — a stride of 2 words takes 2 passes, 12 words 6, an array of 40-byte structures 3 to 4.
/// A store takes its passes too, not a cycle for each line and sector it hands the crossbar (ncu's
/// write wavefronts on an H100: 32.3 a request for rgH's 32 rows on one bank, 16.1 and 32.2 for the naive
/// transpose's 16 and 32 lines, 1.08 for a coalesced copy; docs/MODEL.md section 41). Returns the loads'
/// passes and the stores'.
fn l1_passes(words: &mut Vec<(u64, u64)>, banks: &mut Vec<(u64, u64)>) -> (f64, f64) {
    const LINES_PER_PASS: usize = 4;
    const WORDS_PER_LINE: u64 = LINE_BYTES / 4;
    words.sort_unstable();
    words.dedup();
    let (mut loads, mut stores) = (0.0, 0.0);
    for request in words.chunk_by(|a, b| a.0 == b.0) {
        let total = if request[0].0 & 1 == 1 { &mut loads } else { &mut stores };
        let mut lines = request.chunk_by(|a, b| a.1 / WORDS_PER_LINE == b.1 / WORDS_PER_LINE).peekable();
        while lines.peek().is_some() {
            banks.clear();
            for line in lines.by_ref().take(LINES_PER_PASS) {
                banks.extend(line.iter().map(|&(_, w)| (w % BANKS, w)));
            }
            *total += busiest_bank(banks) as f64;
        }
    }
    (loads, stores)
}

/// Adds the warp's shared-memory requests and their bank passes to `out`.
fn count_shared(s: &mut Scratch, out: &mut Counts) {
    s.shared_acc.clear();
    for (a, &lane) in s.acc.iter().zip(&s.lanes) {
        if matches!(a.kind, AccessKind::SharedLoad | AccessKind::SharedStore) {
            s.shared_acc.push((a.insn, a.kind == AccessKind::SharedLoad, a.bytes.max(4), lane, a.index));
        }
    }
    s.shared_acc.sort_unstable_by_key(|&(insn, load, bytes, lane, _)| (insn, load, bytes, lane));
    let shared = &s.shared_acc;
    let mut i = 0;
    while i < shared.len() {
        let (insn, load, bytes) = (shared[i].0, shared[i].1, shared[i].2);
        let mut j = i;
        while j < shared.len() && (shared[j].0, shared[j].1, shared[j].2) == (insn, load, bytes) {
            j += 1;
        }
        let wavefronts = bank_wavefronts(&shared[i..j], &mut s.banks);
        let (req, wf) = if load { (c::SH_LD_REQ, c::SH_LD_WF) } else { (c::SH_ST_REQ, c::SH_ST_WF) };
        out[req] += 1.0;
        out[wf] += wavefronts;
        i = j;
    }
}

/// Bank passes of one shared-memory request: `group` holds (insn, load, bytes, lane, word) of its
/// active threads, sorted by lane. Threads are served in groups that move 128 bytes at most per pass
/// (32 lanes of 4 bytes, 16 of 8, 8 of 16); in each, the bank with the most distinct words sets the
/// passes.
fn bank_wavefronts(group: &[(u32, bool, u8, u8, u64)], banks: &mut Vec<(u64, u64)>) -> f64 {
    let bytes = group[0].2 as u64;
    let lanes_per_pass = (BANKS * 4 / bytes).max(1);
    let mut total = 0.0;
    let mut i = 0;
    while i < group.len() {
        let pass = group[i].3 as u64 / lanes_per_pass;
        banks.clear();
        while i < group.len() && group[i].3 as u64 / lanes_per_pass == pass {
            for w in group[i].4..group[i].4 + bytes / 4 {
                banks.push((w % BANKS, w));
            }
            i += 1;
        }
        total += busiest_bank(banks) as f64;
    }
    total
}

/// The most distinct words one bank holds among `banks`' (bank, word) pairs (sorted here): the passes
/// a shared-memory group or an L1 group of lines takes.
fn busiest_bank(banks: &mut Vec<(u64, u64)>) -> usize {
    banks.sort_unstable();
    banks.dedup();
    banks.chunk_by(|a, b| a.0 == b.0).map(<[_]>::len).max().unwrap_or(0)
}

/// Interleaved golden-ratio sequences per stratum (randomized quasi-Monte Carlo): the spread of their
/// means is the sampling error.
const REPLICATES: usize = 2;
/// Student's t for 95 % with `REPLICATES - 1` degrees of freedom.
const T95: f64 = 12.706;
const GOLDEN: f64 = 0.618_033_988_749_894_9;
/// Blocks of a sampling unit along an axis at most: a block of 4-byte elements repeats its alignment
/// to a 32-byte sector every 8 blocks at most.
const RUN: u64 = 8;
/// Warps the fast path walks per configuration, about (the largest stratum's first runs are always
/// walked; the edge strata's runs are shortened to fit).
pub const WARP_BUDGET: u64 = 128;

/// One stratum of blocks: a range along each axis.
struct Stratum {
    lo: [u64; 3],
    len: [u64; 3],
    /// Blocks per unit along each axis at most.
    run: u64,
    /// Walked whole (few warps): `sum[0]` is its exact total.
    exhaustive: bool,
    /// Units drawn per replicate so far.
    n: u64,
    /// Per replicate, the sum over its units of each unit's counts per block.
    sum: [Counts; REPLICATES],
}

impl Stratum {
    fn blocks(&self) -> u64 {
        self.len.iter().product()
    }

    /// The stratum's `k`-th block, x fastest.
    fn block(&self, k: u64) -> [u64; 3] {
        [k % self.len[0], (k / self.len[0]) % self.len[1], k / (self.len[0] * self.len[1])]
    }

    /// The first block of unit `k` of replicate `r`: on the replicate's golden-ratio sequence over the
    /// stratum (stratum coordinates).
    fn start(&self, r: usize, k: u64) -> [u64; 3] {
        // Replicate shifts at multiples of an irrational (the plastic number's inverse), so that no
        // period of the grid lines the sequences up.
        let u = (0.5 + r as f64 * 0.754_877_666_246_692_7 + k as f64 * GOLDEN).fract();
        self.block(((u * self.blocks() as f64) as u64).min(self.blocks() - 1))
    }

    /// The grid block `d` away from stratum coordinates `c` (which stays within the stratum).
    fn at(&self, c: [u64; 3], d: [u64; 3]) -> Dim3 {
        let v = |a: usize| (self.lo[a] + c[a] + d[a]) as u32;
        Dim3::new(v(0), v(1), v(2))
    }

    /// The estimated total of count `i` and its variance (from the spread of the replicates' means).
    fn total(&self, i: usize) -> (f64, f64) {
        if self.exhaustive {
            return (self.sum[0][i], 0.0);
        }
        if self.n == 0 {
            return (0.0, 0.0);
        }
        let means: Vec<f64> = self.sum.iter().map(|s| s[i] / self.n as f64).collect();
        let mean = means.iter().sum::<f64>() / REPLICATES as f64;
        let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (REPLICATES - 1) as f64;
        let n = self.blocks() as f64;
        (n * mean, n * n * var / REPLICATES as f64)
    }
}

/// The classes of positions along an axis of `g` blocks: the last (where a ragged edge leaves threads
/// idle) apart from the others, and on a short axis the first too.
fn axis_classes(g: u64) -> Vec<(u64, u64)> {
    match g {
        0 => Vec::new(),
        1 => vec![(0, 1)],
        2 => vec![(0, 1), (1, 1)],
        // On a short axis the first blocks (where stencils clamp) weigh enough for a stratum of their own.
        3..=64 => vec![(0, 1), (1, g - 2), (g - 1, 1)],
        _ => vec![(0, g - 1), (g - 1, 1)],
    }
}

/// Walks a sample of `kernel`'s warps on `grid` x `block` and counts transactions of `txn_bytes`
/// (see the module's documentation for the sampling and its error).
pub fn analyze(kernel: &dyn Kernel, grid: Dim3, block: Dim3, txn_bytes: u32) -> MemStats {
    let mut stats = empty(grid, block, txn_bytes);
    let threads = block.volume();
    if stats.total_blocks == 0 || threads == 0 || txn_bytes == 0 {
        return stats;
    }
    if stats.total_warps <= WARP_BUDGET {
        return analyze_exact(kernel, grid, block, txn_bytes);
    }
    let wpb = threads.div_ceil(32);
    let mut strata: Vec<Stratum> = Vec::new();
    for (zl, zn) in axis_classes(grid.z as u64) {
        for (yl, yn) in axis_classes(grid.y as u64) {
            for (xl, xn) in axis_classes(grid.x as u64) {
                let len = [xn, yn, zn];
                let blocks: u64 = len.iter().product();
                strata.push(Stratum {
                    lo: [xl, yl, zl],
                    len,
                    run: 1,
                    exhaustive: blocks * wpb <= RUN,
                    n: 0,
                    sum: [[0.0; c::N]; REPLICATES],
                });
            }
        }
    }
    // Patches of a whole period (up to RUN blocks along an axis) in the strata that hold a tenth of the
    // blocks or more; the lighter ones (edges of a large grid) share what the budget leaves.
    let total_blocks = stats.total_blocks;
    let heavy = |h: &Stratum| 10 * h.blocks() >= total_blocks;
    let first_pass = strata.iter().filter(|h| heavy(h) && !h.exhaustive).count() as u64 * REPLICATES as u64 * RUN * wpb;
    let light = strata.iter().filter(|h| !heavy(h) && !h.exhaustive).count() as u64;
    let share = WARP_BUDGET.saturating_sub(first_pass) / (light.max(1) * REPLICATES as u64 * wpb);
    for h in strata.iter_mut() {
        h.run = if heavy(h) { RUN } else { share.clamp(1, RUN) };
    }
    let big = (0..strata.len()).max_by_key(|&i| strata[i].blocks()).expect("a non-empty grid has a stratum");
    let mut sampled = 0u64;
    let mut blocks_seen = HashSet::new();
    // The counts of each block of `bs` (every warp), in order; every warp of the patch side by side,
    // not only its blocks: a patch may be one block whose warps each run a long loop. Their counts are
    // whole numbers, added in order: the result does not depend on the cores.
    let walk = |bs: &[Dim3]| -> Vec<Counts> {
        let warps: Vec<Counts> = (0..bs.len() as u64 * wpb)
            .into_par_iter()
            .map(|i| {
                with_scratch(|s| {
                    collect(kernel, bs[(i / wpb) as usize], block, i % wpb, s);
                    count_warp_memo(s, txn_bytes as u64)
                })
            })
            .collect();
        warps
            .chunks(wpb as usize)
            .map(|ws| {
                let mut sum = [0.0; c::N];
                ws.iter().for_each(|w| add(&mut sum, w));
                sum
            })
            .collect()
    };
    // The first addresses of a block's first warp.
    let probe = |b: Dim3| {
        with_scratch(|s| {
            collect(kernel, b, block, 0, s);
            firsts(s)
        })
    };
    let mut seen = |bs: &[Dim3]| {
        blocks_seen.extend(bs.iter().map(|b| (b.x, b.y, b.z)));
        sampled += wpb * bs.len() as u64;
    };
    // Exhaustive strata are walked whole; the others get one unit per replicate, then more (doubling)
    // where the error is, until it is small enough or the budget is spent.
    for h in strata.iter_mut() {
        if h.exhaustive {
            let bs: Vec<Dim3> = (0..h.blocks())
                .map(|k| {
                    let [x, y, z] = h.block(k);
                    Dim3::new((h.lo[0] + x) as u32, (h.lo[1] + y) as u32, (h.lo[2] + z) as u32)
                })
                .collect();
            seen(&bs);
            for counts in walk(&bs) {
                add(&mut h.sum[0], &counts);
            }
        } else {
            draw(h, 1, &walk, &probe, &mut seen);
        }
    }
    loop {
        let (error, worst) = relative_error(&strata);
        stats.error = error;
        let spent = strata.iter().map(|h| h.n * REPLICATES as u64 * h.run * wpb).sum::<u64>();
        if error <= TARGET_ERROR || spent >= WARP_BUDGET {
            break;
        }
        let Some(h) = worst else { break };
        let more = strata[h].n;
        draw(&mut strata[h], more, &walk, &probe, &mut seen);
    }
    let mut total = [0.0; c::N];
    for h in &strata {
        for (i, t) in total.iter_mut().enumerate() {
            *t += h.total(i).0;
        }
    }
    // Reuse across the warps of a block: measured on one block of the largest stratum.
    let first = strata[big].at(strata[big].start(0, 0), [0, 0, 0]);
    let reuse = block_reuse(kernel, first, block, txn_bytes as u64);
    stats.sampled_warps = sampled;
    stats.sampled_blocks = blocks_seen.len() as u64;
    fill(&mut stats, &total, total[c::LD_DISTINCT] * reuse, kernel.load_repeat());
    if stats.atomics.requests > 0.0 {
        stats.atomic_spread = atomic_spread(kernel, grid, block);
    }
    stats
}

fn add(sum: &mut Counts, counts: &Counts) {
    for (t, v) in sum.iter_mut().zip(counts) {
        *t += v;
    }
}

/// Draws `more` units per replicate from stratum `h`, each the mean counts per block over a patch of
/// blocks (see [`Stratum::patch`]). `walk` counts a block; `probe` gives the first addresses of a
/// block's first warp; `seen` is told each patch walked. The units are walked side by side and added
/// in order.
fn draw(
    h: &mut Stratum,
    more: u64,
    walk: &(dyn Fn(&[Dim3]) -> Vec<Counts> + Sync),
    probe: &(dyn Fn(Dim3) -> [u64; 4] + Sync),
    seen: &mut dyn FnMut(&[Dim3]),
) {
    let units: Vec<(u64, usize)> = (h.n..h.n + more).flat_map(|k| (0..REPLICATES).map(move |r| (k, r))).collect();
    let stratum = &*h;
    let walked: Vec<(usize, Vec<Dim3>, Counts)> = units
        .par_iter()
        .map(|&(k, r)| {
            let bs = stratum.patch(r, k, probe);
            let mut unit = [0.0; c::N];
            for counts in walk(&bs) {
                add(&mut unit, &counts);
            }
            (r, bs, unit)
        })
        .collect();
    for (r, bs, unit) in walked {
        seen(&bs);
        let blocks = bs.len() as f64;
        for (t, v) in h.sum[r].iter_mut().zip(unit) {
            *t += v / blocks;
        }
    }
    h.n += more;
}

impl Stratum {
    /// The blocks of unit `k` of replicate `r`: a patch that spans one period of their alignment to
    /// 32-byte sectors along every axis. The period is read from how far the first access to each
    /// buffer moves from the patch's first block to the next along the axis (`32 / gcd(32, step)`
    /// blocks: one where blocks are a multiple of 32 bytes apart, 8 at most for 4-byte elements),
    /// capped at the stratum's `run`; `probe` gives the first addresses of a block's first warp.
    fn patch(&self, r: usize, k: u64, probe: &(dyn Fn(Dim3) -> [u64; 4] + Sync)) -> Vec<Dim3> {
        let h = self;
        let c = h.start(r, k);
        // The first block and its neighbour along each axis (inside the stratum), probed side by side.
        let mut points = vec![h.at(c, [0, 0, 0])];
        for a in 0..3 {
            if h.len[a] >= 2 {
                let mut n = c;
                n[a] = if c[a] + 1 < h.len[a] { c[a] + 1 } else { c[a] - 1 };
                points.push(h.at(n, [0, 0, 0]));
            }
        }
        let firsts: Vec<[u64; 4]> = points.par_iter().map(|&p| probe(p)).collect();
        let origin = firsts[0];
        let mut next = firsts[1..].iter();
        let mut patch = [1u64; 3];
        for (a, p) in patch.iter_mut().enumerate() {
            if h.len[a] < 2 {
                continue;
            }
            let neighbour = next.next().expect("a probe per axis of two blocks or more");
            let period = origin
                .iter()
                .zip(neighbour)
                .filter(|(x, y)| **x != u64::MAX && **y != u64::MAX)
                .map(|(x, y)| SECTOR_BYTES / gcd(SECTOR_BYTES, y.wrapping_sub(*x) % SECTOR_BYTES))
                .fold(1, lcm);
            *p = period.min(h.run).min(h.len[a]);
        }
        // A short axis (two patches or less) is covered whole where the patch stays small: no
        // remainder of a period is left out.
        for a in 0..3 {
            let others: u64 = (0..3).filter(|&b| b != a).map(|b| patch[b]).product();
            if h.len[a] <= 2 * RUN && h.run == RUN && others * h.len[a] <= RUN * RUN {
                patch[a] = h.len[a];
            }
        }
        // Consecutive blocks, not wrapping: a wrapped patch would miss part of the period.
        let c = [0, 1, 2].map(|a| c[a].min(h.len[a] - patch[a]));
        let mut bs = Vec::new();
        for dz in 0..patch[2] {
            for dy in 0..patch[1] {
                for dx in 0..patch[0] {
                    bs.push(h.at(c, [dx, dy, dz]));
                }
            }
        }
        bs
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

/// The same counts from every warp of the grid (tests, and the reference the fast path is held to).
pub fn analyze_exact(kernel: &dyn Kernel, grid: Dim3, block: Dim3, txn_bytes: u32) -> MemStats {
    let mut stats = empty(grid, block, txn_bytes);
    let threads = block.volume();
    if stats.total_blocks == 0 || threads == 0 || txn_bytes == 0 {
        return stats;
    }
    // Blocks in parallel, and each block's warps (a few long threads, as the recursive blurs', are as
    // costly as a large grid); every count is a whole number, so the sums do not depend on the order.
    let warps = threads.div_ceil(32);
    let per_block = (0..stats.total_blocks).into_par_iter().map(|b| {
        let at = block_of(b, grid);
        // A block whose accesses are another's moved by whole lines (per buffer) has its counts: the
        // pattern is hashed first (a cheap walk of the addresses), and only a new one is counted. Each
        // warp's pattern is taken relative to its own anchors, and the block's is those patterns with
        // each warp's anchors relative to the block's (the first warp's to touch each buffer): the
        // same information as every access relative to the block's anchors.
        let hashed: Vec<(u64, [u64; 4])> = (0..warps)
            .into_par_iter()
            .map(|w| {
                with_scratch(|s| {
                    collect(kernel, at, block, w, s);
                    let mut anchors = [u64::MAX; 4];
                    (pattern_hash(s, &mut anchors, 0x1319_8a2e_0370_7344u64 ^ w), anchors)
                })
            })
            .collect();
        let mut own = [u64::MAX; 4];
        for (slot, o) in own.iter_mut().enumerate() {
            *o = hashed.iter().map(|(_, a)| a[slot]).find(|&a| a != u64::MAX).unwrap_or(u64::MAX);
        }
        let mut h = txn_bytes as u64;
        for (hw, anchors) in &hashed {
            for x in std::iter::once(*hw).chain((0..4).map(|i| anchors[i].wrapping_sub(own[i]))) {
                h = (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(27);
            }
        }
        if let Some(known) = BLOCK_MEMO.with(|m| m.borrow().get(&h).copied()) {
            return known;
        }
        let counted: Vec<(Counts, Vec<u64>)> = (0..warps)
            .into_par_iter()
            .map(|w| {
                with_scratch(|s| {
                    collect(kernel, at, block, w, s);
                    let mut txns = Vec::new();
                    (count_warp(s, txn_bytes as u64, Some(&mut txns)), txns)
                })
            })
            .collect();
        let mut sum = [0.0; c::N];
        let mut txns = Vec::new();
        for (c, t) in counted {
            add(&mut sum, &c);
            txns.extend(t);
        }
        txns.sort_unstable();
        txns.dedup();
        let counted = (sum, txns.len() as f64);
        BLOCK_MEMO.with(|m| remember(&mut m.borrow_mut(), h, counted, BLOCK_PATTERNS));
        counted
    });
    let (total, l2) = per_block.reduce(
        || ([0.0; c::N], 0.0),
        |(mut a, la), (b, lb)| {
            add(&mut a, &b);
            (a, la + lb)
        },
    );
    stats.sampled_blocks = stats.total_blocks;
    stats.sampled_warps = stats.total_warps;
    fill(&mut stats, &total, l2, kernel.load_repeat());
    if stats.atomics.requests > 0.0 {
        stats.atomic_spread = atomic_spread(kernel, grid, block);
    }
    stats
}

/// Warps [`atomic_spread`] walks at most.
const SPREAD_WARPS: u64 = 64;

/// Where the grid's global atomics land: every warp of a grid of at most `SPREAD_WARPS` (64), else that
/// many warps spread over it on a golden-ratio sequence, each counted once per line it touches. The
/// grid's distinct lines are estimated from the sample's with Chao's incidence estimator (Chao 1987,
/// "Estimating the population size for capture-recapture data with unequal catchability"): the lines
/// seen in one sampled warp only (`q1`) and in exactly two (`q2`) tell how many were missed, `d + q1^2
/// / (2 q2)` (`d + q1 (q1 - 1) / 2` without a `q2`); at most the sample's lines scaled to the grid. A
/// histogram's few bins, hit by every warp, come out as exactly those; lines each warp has to itself
/// as the sample's times the grid's warps over the sample's.
pub fn atomic_spread(kernel: &dyn Kernel, grid: Dim3, block: Dim3) -> AtomicSpread {
    let wpb = block.volume().div_ceil(32);
    let total = grid.volume() * wpb;
    let picks: Vec<u64> = if total <= SPREAD_WARPS {
        (0..total).collect()
    } else {
        let mut p: Vec<u64> = (0..SPREAD_WARPS)
            .map(|k| (((0.5 + k as f64 * GOLDEN).fract() * total as f64) as u64).min(total - 1))
            .collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    // Per sampled warp, its atomics' lines with the lane operations on each.
    let per_warp: Vec<Vec<(u64, u64)>> = picks
        .par_iter()
        .map(|&w| {
            with_scratch(|s| {
                collect(kernel, block_of(w / wpb, grid), block, w % wpb, s);
                let mut lines: Vec<u64> = s
                    .acc
                    .iter()
                    .filter(|a| a.kind.is_atomic())
                    .map(|a| (base(a.buffer) + a.offset()) / LINE_BYTES)
                    .collect();
                lines.sort_unstable();
                lines.chunk_by(|a, b| a == b).map(|r| (r[0], r.len() as u64)).collect()
            })
        })
        .collect();
    // Per line: the sampled warps that touch it and the lane operations on it.
    let mut lines: rustc_hash::FxHashMap<u64, (u64, u64)> = Default::default();
    for warp in &per_warp {
        for &(line, ops) in warp {
            let e = lines.entry(line).or_default();
            e.0 += 1;
            e.1 += ops;
        }
    }
    let ops: u64 = lines.values().map(|e| e.1).sum();
    if ops == 0 {
        return AtomicSpread::default();
    }
    let d = lines.len() as f64;
    let q1 = lines.values().filter(|e| e.0 == 1).count() as f64;
    let q2 = lines.values().filter(|e| e.0 == 2).count() as f64;
    let missed = if q2 > 0.0 { q1 * q1 / (2.0 * q2) } else { q1 * (q1 - 1.0).max(0.0) / 2.0 };
    let scaled = d * total as f64 / picks.len() as f64;
    AtomicSpread {
        lines: (d + missed).min(scaled).max(d),
        hottest: lines.values().map(|e| e.1).max().unwrap_or(0) as f64 / ops as f64,
    }
}

fn empty(grid: Dim3, block: Dim3, txn_bytes: u32) -> MemStats {
    MemStats {
        loads: Traffic::default(),
        stores: Traffic::default(),
        atomics: Traffic::default(),
        atomic_spread: AtomicSpread::default(),
        atomic_lone_requests: 0.0,
        shared_loads: SharedTraffic::default(),
        shared_stores: SharedTraffic::default(),
        txn_bytes,
        sampled_blocks: 0,
        total_blocks: grid.volume(),
        sampled_warps: 0,
        total_warps: grid.volume() * block.volume().div_ceil(32),
        error: 0.0,
    }
}

/// The largest relative 95 % half-width over the main counts, and the stratum contributing most to it
/// (`None` when the worst count's error comes from no stratum that can be sampled further).
fn relative_error(strata: &[Stratum]) -> (f64, Option<usize>) {
    let mut worst = (0.0, None);
    for &(i, of) in &c::MAIN {
        let v: f64 = strata.iter().map(|h| h.total(i).1).sum();
        let t: f64 = strata.iter().map(|h| h.total(of).0).sum();
        if t <= 0.0 || v <= 0.0 {
            continue;
        }
        let rel = T95 * v.sqrt() / t;
        if rel > worst.0 {
            let h = strata
                .iter()
                .enumerate()
                .filter(|(_, h)| !h.exhaustive && h.n * (REPLICATES as u64) < h.blocks())
                .max_by(|a, b| a.1.total(i).1.total_cmp(&b.1.total(i).1))
                .map(|(k, _)| k);
            worst = (rel, h);
        }
    }
    worst
}

/// Distinct load transactions of one block over the sum of its warps' own distinct ones: the share of
/// a block's per-warp load transactions that L1 does not serve from another warp's request. A block of
/// more than [`REUSE_BUDGET`] accesses is measured on its first warps (a lower bound on the reuse).
fn block_reuse(kernel: &dyn Kernel, b: Dim3, block: Dim3, txn_bytes: u64) -> f64 {
    let mut txns = Vec::new();
    let (mut per_warp, mut walked) = (0.0, 0);
    let warps = block.volume().div_ceil(32);
    // The first warp alone, then as many side by side as the budget's rest may take at its size; the
    // warps are added in order, up to where the budget is spent, as one at a time would.
    let (mut next, mut batch) = (0, 1);
    'walk: while next < warps {
        let end = (next + batch).min(warps);
        let counted: Vec<(u64, Counts, Vec<u64>)> = (next..end)
            .into_par_iter()
            .map(|w| {
                with_scratch(|s| {
                    let n = collect(kernel, b, block, w, s);
                    let mut t = Vec::new();
                    (n, count_warp(s, txn_bytes, Some(&mut t)), t)
                })
            })
            .collect();
        for (n, c, t) in counted {
            walked += n;
            per_warp += c[c::LD_DISTINCT];
            txns.extend(t);
            if walked >= REUSE_BUDGET {
                break 'walk;
            }
        }
        let per = walked.div_ceil(end).max(1);
        batch = (REUSE_BUDGET - walked).div_ceil(per).clamp(1, rayon::current_num_threads().max(1) as u64);
        next = end;
    }
    txns.sort_unstable();
    txns.dedup();
    if per_warp > 0.0 { txns.len() as f64 / per_warp } else { 1.0 }
}

/// Fills the report's counts from grid totals; `l2_loads` is the load transactions reaching L2.
fn fill(stats: &mut MemStats, t: &Counts, l2_loads: f64, repeat: f64) {
    stats.loads = Traffic {
        requests: t[c::LD_REQ] * repeat,
        transactions: t[c::LD_TXN] * repeat,
        requested_bytes: t[c::LD_BYTES] * repeat,
        wavefronts: t[c::LD_WF] * repeat,
        lines: t[c::LD_LINES] * repeat,
        partial_sectors: 0.0,
        l2_transactions: l2_loads * repeat,
    };
    stats.stores = Traffic {
        requests: t[c::ST_REQ],
        transactions: t[c::ST_TXN],
        requested_bytes: t[c::ST_BYTES],
        wavefronts: t[c::ST_WF],
        lines: t[c::ST_LINES],
        partial_sectors: t[c::ST_PARTIAL],
        l2_transactions: t[c::ST_TXN],
    };
    stats.atomics = Traffic {
        requests: t[c::AT_REQ],
        transactions: t[c::AT_TXN],
        requested_bytes: t[c::AT_BYTES],
        lines: t[c::AT_LINES],
        ..Traffic::default()
    };
    stats.atomic_lone_requests = t[c::AT_LONE];
    stats.shared_loads = SharedTraffic { requests: t[c::SH_LD_REQ], wavefronts: t[c::SH_LD_WF] };
    stats.shared_stores = SharedTraffic { requests: t[c::SH_ST_REQ], wavefronts: t[c::SH_ST_WF] };
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
        assert_eq!(s.stores.partial_sectors, 0.0);
        assert!(s.sampled_blocks < s.total_blocks);
        assert!(s.sampled_warps < 200, "{} warps walked", s.sampled_warps);
        assert_eq!(s.error, 0.0, "identical warps: no sampling error");
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
        // L1 reuse: the 8 warps of a 32x8 block read the same row of B (4 sectors per k) and each its
        // own row of A (1 sector per k... 8 of A's words share a sector, and the warp's 8 listed k
        // fall in one sector): per block and 8 listed k, 8 x 1 + 8 x 4 = 40 sectors reach L2 of the
        // 8 x (8 x 1 + 8 x 4) = 320 requested, scaled to the loop.
        assert!((mc.loads.l2_transactions / (warps / 8.0) - (8.0 + 32.0) * n as f64 / 8.0).abs() < 1e-6);
        // Strided: A's 32 rows are 32 scattered lines, B one broadcast word.
        let ms = analyze(&s, s.grid(b), b, 32);
        assert_eq!(ms.loads.wavefronts, warps * 33.0 * n as f64);
        assert_eq!(ms.stores.transactions, warps * 32.0);
    }

    /// The exact walk with its block memo gives what counting every warp of every block gives, exactly:
    /// blocks that repeat another's pattern by whole lines (the recursive blurs' rows, interior tiles)
    /// and edge blocks that do not, on odd and even problems.
    #[test]
    fn the_block_memo_changes_no_count() {
        use crate::kernels::{Problem, lookup};
        let small = |nx, ny| Problem { nx: Some(nx), ny: Some(ny), ..Default::default() };
        let kernels = [
            ("blur-rgh", Problem { sigma: Some(2.0), ..small(64, 300) }),
            ("blur-rgv", Problem { sigma: Some(2.0), ..small(300, 64) }),
            ("transpose-shared", small(300, 217)),
            ("blur-rows-tiled", Problem { sigma: Some(2.0), ..small(150, 97) }),
            ("matmul-coalesced", Problem { nx: Some(96), ..Default::default() }),
        ];
        for (name, problem) in kernels {
            let k = lookup(name, problem).unwrap();
            for b in [Dim3::new(32, 1, 1), Dim3::new(64, 1, 1), Dim3::new(16, 16, 1), Dim3::new(13, 5, 1)] {
                if k.check_block(b).is_some() {
                    continue;
                }
                let grid = k.grid(b);
                let (mut sum, mut l2, mut s, mut txns) = ([0.0; c::N], 0.0, Scratch::default(), Vec::new());
                for blk in 0..grid.volume() {
                    txns.clear();
                    for w in 0..b.volume().div_ceil(32) {
                        collect(k.as_ref(), block_of(blk, grid), b, w, &mut s);
                        add(&mut sum, &count_warp(&mut s, 32, Some(&mut txns)));
                    }
                    txns.sort_unstable();
                    txns.dedup();
                    l2 += txns.len() as f64;
                }
                let mut walked = empty(grid, b, 32);
                fill(&mut walked, &sum, l2, k.load_repeat());
                walked.sampled_blocks = walked.total_blocks;
                walked.sampled_warps = walked.total_warps;
                // Twice: the second time every block comes from the memo.
                for _ in 0..2 {
                    assert_eq!(
                        format!("{:?}", analyze_exact(k.as_ref(), grid, b, 32)),
                        format!("{walked:?}"),
                        "{name} {b}"
                    );
                }
            }
        }
    }

    /// The fast path against every warp, on problems small enough to walk whole: every main count within
    /// the half-width the fast path states, or 1.5 % (for odd block widths the period patches leave a
    /// remainder at the end of an axis; L1 passes, whose period is the 128-byte line's, 2 %); partial
    /// sectors likewise as a share of the store transactions; the L2 segments (a block's reuse measured
    /// on one block, the edges of these small grids weighing much) within 40 %.
    #[test]
    fn fast_path_agrees_with_the_exact_walk() {
        use crate::kernels::{Problem, lookup};
        let small = |nx, ny| Problem { nx: Some(nx), ny: Some(ny), ..Default::default() };
        let kernels = [
            ("sum-matrix", small(300, 217)),
            ("transpose-naive", small(300, 217)),
            ("transpose-shared", small(300, 217)),
            ("blur-rows-tiled", Problem { sigma: Some(2.0), ..small(150, 97) }),
            ("blur-cols", Problem { sigma: Some(2.0), ..small(150, 97) }),
            ("gaussian-smooth", Problem { frames: Some(2), ..small(90, 47) }),
            ("resize", Problem { frames: Some(2), ..small(90, 47) }),
            ("matmul-coalesced", Problem { nx: Some(96), ..Default::default() }),
        ];
        let shapes = [(32, 8), (16, 16), (256, 1), (7, 13), (13, 5), (48, 4), (3, 32), (100, 2), (32, 32)];
        let mut checked = 0;
        for (name, problem) in kernels {
            let k = lookup(name, problem).unwrap();
            for (bx, by) in shapes {
                let b = Dim3::new(bx, by, 1);
                if k.check_block(b).is_some() {
                    continue;
                }
                checked += 1;
                let (f, e) = (analyze(k.as_ref(), k.grid(b), b, 32), analyze_exact(k.as_ref(), k.grid(b), b, 32));
                let shared = |m: &MemStats| m.shared_loads.wavefronts + m.shared_stores.wavefronts;
                // L1 passes repeat with the 128-byte line, up to 32 blocks, beyond the patches: 2 %.
                for (what, fast, exact, of, floor) in [
                    ("load requests", f.loads.requests, e.loads.requests, e.loads.requests, 0.015),
                    ("load sectors", f.loads.transactions, e.loads.transactions, e.loads.transactions, 0.015),
                    ("load passes", f.loads.wavefronts, e.loads.wavefronts, e.loads.wavefronts, 0.02),
                    ("store sectors", f.stores.transactions, e.stores.transactions, e.stores.transactions, 0.015),
                    (
                        "partial sectors",
                        f.stores.partial_sectors,
                        e.stores.partial_sectors,
                        e.stores.transactions,
                        0.015,
                    ),
                    ("shared wavefronts", shared(&f), shared(&e), shared(&e), 0.015),
                ] {
                    let off = if of > 0.0 { (fast - exact).abs() / of } else { fast.abs() };
                    let bound = f.error.max(floor) + 1e-9;
                    assert!(
                        off <= bound,
                        "{name} {b}: {what} {fast} against {exact} (off {off:.4}, stated {:.4})",
                        f.error
                    );
                }
                let l2 = f.loads.l2_transactions / e.loads.l2_transactions;
                assert!((0.7..1.4).contains(&l2), "{name} {b}: L2 segments {l2:.3} of exact");
            }
        }
        assert!(checked > 50, "{checked}");
    }

    /// Bank conflicts worked by hand (32 banks of 4 bytes; a warp's 4-byte accesses take one pass per
    /// distinct word in the busiest bank), on one block of each transpose.
    #[test]
    fn shared_memory_bank_conflicts() {
        use crate::kernels::{Transpose, TransposeVariant as V};
        let one_block = |v: V| {
            let k = Transpose::new(v, 256, 256).unwrap();
            analyze_exact(&k, Dim3::new(1, 1, 1), v.natural_block(), 32)
        };
        // transposeL, 16x16 unpadded: warp w is rows ty = 2w, 2w + 1 of 16 threads. Storing tile[ty][tx]
        // writes words 16 ty + tx: 32 consecutive words, one pass. Reading tile[tx][ty] reads words
        // 16 tx + ty: tx even -> bank ty, tx odd -> bank 16 + ty, so 4 banks get 8 distinct words each:
        // 8 passes. 8 warps, one store and one read each.
        let l = one_block(V::L);
        assert_eq!((l.shared_stores.requests, l.shared_stores.wavefronts), (8.0, 8.0));
        assert_eq!((l.shared_loads.requests, l.shared_loads.wavefronts), (8.0, 64.0));
        assert_eq!(l.shared_loads.per_request(), Some(8.0));
        // transposeShared 32x8 reads its 32 x 33 tile down a column: words 33 tx + r fall in banks
        // (tx + r) mod 32, all different: one pass per read, as the padding intends (8 warps x 4 reads).
        let p = one_block(V::Shared);
        assert_eq!((p.shared_loads.requests, p.shared_loads.wavefronts), (32.0, 32.0));
        // transposeTile64 reads tile[2 tx][r] of a 64 x 65 tile: words 130 tx + r, banks (2 tx + r) mod 32:
        // 16 banks with 2 words each, 2 passes per read; 8 warps x 16 reads (8 rows, .x and .y).
        let t = one_block(V::Tile64);
        assert_eq!((t.shared_loads.requests, t.shared_loads.wavefronts), (128.0, 256.0));
        // Its stores tile[r][2 tx] (and + 1): words 65 r + 2 tx: 2 words per bank: 2 passes each.
        assert_eq!((t.shared_stores.requests, t.shared_stores.wavefronts), (128.0, 256.0));
    }

    /// Partial-sector stores worked by hand.
    #[test]
    fn strided_stores_write_part_of_every_sector() {
        use crate::kernels::{Transpose, TransposeVariant as V};
        // The naive transpose of a 64 x 64 matrix with 32 x 8 blocks: a warp stores out[x * 64 + y] for
        // 32 consecutive x: 32 floats 256 bytes apart, each 4 of the 32 bytes of its own sector. 128
        // warps x 1 store: 4096 sectors, every one partial, 32 per request; its loads are whole rows.
        let k = Transpose::new(V::Naive, 64, 64).unwrap();
        let b = Dim3::new(32, 8, 1);
        let s = analyze_exact(&k, k.grid(b), b, 32);
        assert_eq!(s.stores.requests, 128.0);
        assert_eq!((s.stores.transactions, s.stores.partial_sectors), (4096.0, 4096.0));
        assert_eq!(s.stores.per_request(), Some(32.0));
        assert_eq!((s.loads.transactions, s.loads.per_request()), (512.0, Some(4.0)));
        // L2 sees one request per line of an instruction: 32 per store, 1 per load (a 128-byte row).
        assert_eq!((s.stores.lines, s.loads.lines), (4096.0, 128.0));
        // Through the padded tile the same transpose stores whole rows: no partial sector.
        let k = Transpose::new(V::Shared, 64, 64).unwrap();
        let s = analyze_exact(&k, k.grid(b), b, 32);
        assert_eq!((s.stores.transactions, s.stores.partial_sectors), (512.0, 0.0));
        assert_eq!(s.stores.lines, 128.0);
    }

    #[test]
    fn an_atomic_serves_lanes_on_one_word_in_rounds() {
        // One `red.add.u32` of a warp: lanes 0-15 on word 0, 16-23 on word 8 (sector 1 of line 0),
        // 24-31 on words 64-71 (sector 8, line 2). Rounds: the first takes words 0, 8 and 64-71 (3
        // sectors, 2 lines, 2 of them partial; L1 passes: banks 0-7 hold words 64-71 and bank 0 word 0
        // too, so 2); rounds 2-8 words 0 and 8 (2 partial sectors of line 0, 1 pass); rounds 9-16 word 0
        // (1 sector, 1 pass). In all 1 request, 3 + 7 x 2 + 8 = 25 sectors, 2 + 7 + 8 = 17 lines, 24
        // partial, 2 + 7 + 8 = 17 passes, 128 bytes asked for.
        let word = |lane: u64| match lane {
            0..16 => 0,
            16..24 => 8,
            _ => 64 + lane - 24,
        };
        let mut s = Scratch::default();
        for lane in 0..32u64 {
            s.acc.push(Access::atomic(0, 0, word(lane), 4));
            s.lanes.push(lane as u8);
        }
        let c = count_warp(&mut s, 32, None);
        assert_eq!((c[c::ST_REQ], c[c::ST_TXN], c[c::ST_LINES], c[c::ST_PARTIAL]), (1.0, 25.0, 17.0, 24.0));
        assert_eq!((c[c::ST_WF], c[c::ST_BYTES]), (17.0, 128.0));
        assert_eq!((c[c::AT_REQ], c[c::AT_TXN], c[c::AT_BYTES]), (1.0, 25.0, 128.0));
        // Lone lanes: rounds 9-16 are word 0 alone (8); the others hold two words or more.
        assert_eq!((c[c::AT_LONE], c[c::AT_LINES]), (8.0, 17.0));
        // The same lanes as a plain store: each word once, 3 sectors, 2 lines, 2 passes.
        for a in &mut s.acc {
            a.kind = AccessKind::Store;
        }
        let c = count_warp(&mut s, 32, None);
        assert_eq!((c[c::ST_REQ], c[c::ST_TXN], c[c::ST_LINES], c[c::ST_WF]), (1.0, 3.0, 2.0, 2.0));
        assert_eq!((c[c::ST_BYTES], c[c::AT_TXN]), (40.0, 0.0));
        // 32 lanes on one word (atoms.cu's mode 1): 32 rounds, 32 sectors and lines (ncu: 32 L2
        // requests and sectors per instruction).
        for a in &mut s.acc {
            *a = Access::atomic(0, 0, 5, 4);
        }
        let c = count_warp(&mut s, 32, None);
        assert_eq!((c[c::AT_REQ], c[c::AT_TXN], c[c::ST_LINES], c[c::ST_WF]), (1.0, 32.0, 32.0, 32.0));
        assert_eq!(c[c::AT_LONE], 32.0);
        // The same as an integer add ptxas folds: one lane's atomic, 1 sector (the H100's sum by
        // atomicAdd(out, x[i]): one REDG a warp). Folded only where every lane shares the word: on
        // two words the lanes go in rounds as before (16 lanes each: 16 rounds of 2 words, 1 line).
        for a in &mut s.acc {
            a.kind = AccessKind::AtomicFold;
        }
        let c = count_warp(&mut s, 32, None);
        assert_eq!((c[c::AT_REQ], c[c::AT_TXN], c[c::ST_LINES], c[c::ST_WF]), (1.0, 1.0, 1.0, 1.0));
        for (lane, a) in s.acc.iter_mut().enumerate() {
            a.index = 5 + (lane as u64 & 1);
        }
        let c = count_warp(&mut s, 32, None);
        assert_eq!((c[c::AT_REQ], c[c::AT_TXN], c[c::ST_LINES]), (1.0, 16.0, 16.0));
    }

    /// A kernel of `blocks` 1D blocks whose thread of linear index `i` makes the accesses `each(i)` gives.
    struct Linear<F> {
        blocks: u32,
        each: F,
    }

    impl<F: Fn(u64, &mut Vec<Access>) + Send + Sync> Kernel for Linear<F> {
        fn name(&self) -> &str {
            "linear"
        }
        fn entry(&self) -> &str {
            "linear"
        }
        fn module(&self) -> crate::kernels::Module<'_> {
            crate::kernels::Module::Embedded("none")
        }
        fn problem(&self) -> String {
            String::new()
        }
        fn buffers(&self) -> Vec<crate::kernels::Buffer> {
            Vec::new()
        }
        fn args(&self) -> Vec<crate::kernels::Arg> {
            Vec::new()
        }
        fn grid(&self, _block: Dim3) -> Dim3 {
            Dim3::new(self.blocks, 1, 1)
        }
        fn work(&self) -> crate::kernels::Work {
            crate::kernels::Work { bytes_read: 0, bytes_written: 0, flops: 0 }
        }
        fn reference(&self, _inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
            Vec::new()
        }
        fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
            (self.each)(t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64, out);
        }
    }

    /// Threads that each make one global atomic on the word `word` gives (none where it gives `None`).
    fn atomics(blocks: u32, word: fn(u64) -> Option<u64>) -> Linear<impl Fn(u64, &mut Vec<Access>) + Send + Sync> {
        Linear { blocks, each: move |i, out: &mut Vec<Access>| out.extend(word(i).map(|w| Access::atomic(0, 0, w, 4))) }
    }

    /// Threads whose `i`-th loads `width` bytes at byte `i x stride` of buffer 0 and stores them at the
    /// same place of buffer 1 (a `char` or `short` per lane).
    fn narrow(blocks: u32, width: u8, stride: u64) -> Linear<impl Fn(u64, &mut Vec<Access>) + Send + Sync> {
        Linear {
            blocks,
            each: move |i, out: &mut Vec<Access>| {
                let at = i * stride;
                out.push(Access::load(0, 0, at / 4, width).at_byte(at));
                out.push(Access::store(1, 1, at / 4, width).at_byte(at));
            },
        }
    }

    #[test]
    fn lanes_on_the_bytes_of_one_word_each_ask_for_their_own() {
        let b = Dim3::new(256, 1, 1);
        // 32 chars side by side: one sector a warp, all 32 of its bytes asked for (100 %), and the
        // store's sector written whole, not in part.
        let chars = narrow(64, 1, 1);
        let s = analyze_exact(&chars, chars.grid(b), b, 32);
        assert_eq!(s.loads.requests, 64.0 * 8.0);
        assert_eq!(s.loads.per_request(), Some(1.0));
        assert_eq!(s.loads.efficiency_pct(32), Some(100.0));
        assert_eq!((s.stores.per_request(), s.stores.partial_sectors), (Some(1.0), 0.0));
        // shorts: two sectors a warp, whole.
        let shorts = narrow(64, 2, 2);
        let s = analyze_exact(&shorts, shorts.grid(b), b, 32);
        assert_eq!((s.loads.per_request(), s.loads.efficiency_pct(32)), (Some(2.0), Some(100.0)));
        assert_eq!(s.stores.partial_sectors, 0.0);
        // Every other char: 64 bytes, two sectors of which half is asked for and half written, each in part.
        let sparse = narrow(64, 1, 2);
        let s = analyze_exact(&sparse, sparse.grid(b), b, 32);
        assert_eq!((s.loads.per_request(), s.loads.efficiency_pct(32)), (Some(2.0), Some(50.0)));
        assert_eq!(s.stores.partial_sectors, 2.0 * s.stores.requests);
        // Four lanes on the same char ask for it once (a broadcast), as lanes on one word do.
        let same = narrow(64, 1, 0);
        assert_eq!(analyze_exact(&same, same.grid(b), b, 32).loads.requested_bytes, 64.0 * 8.0);
    }

    #[test]
    fn atomics_spread_over_the_lines_they_touch() {
        let b = Dim3::new(256, 1, 1);
        // A 256-bin histogram (8 lines), every warp on all of them: the sample sees every bin line in
        // every warp, so none is missed: 8 lines, each 1/8 of the adds.
        let hist = atomics(4096, |i| Some(i.wrapping_mul(2_654_435_761) % 256));
        let s = analyze(&hist, hist.grid(b), b, 32).atomic_spread;
        assert_eq!(s.lines, 8.0);
        assert!((s.hottest - 1.0 / 8.0).abs() < 0.02, "{}", s.hottest);
        // Each thread on its own word: 32768 warps, each its own line; the 64 sampled warps' 64 lines
        // are each seen once (q1 = 64, q2 = 0), so Chao's estimate is 64 + 64 x 63 / 2 = 2080 lines,
        // under the sample scaled to the grid (64 x 32768 / 64).
        let own = atomics(4096, Some);
        let s = analyze(&own, own.grid(b), b, 32).atomic_spread;
        assert_eq!((s.lines, s.hottest), (2080.0, 1.0 / 64.0));
        // A small grid (16 warps, each its own line) is walked whole: q1 = 16, so 16 + 120 = 136 is
        // estimated, but no more lines than the sample's scaled to the grid (the sample is the grid): 16.
        let small = atomics(2, Some);
        assert_eq!(analyze(&small, small.grid(b), b, 32).atomic_spread.lines, 16.0);
        // One word a block (thread 0 of each): 4096 words in 128 lines; no atomics elsewhere.
        let one = atomics(4096, |i| (i % 256 == 0).then_some(i / 256));
        let s = analyze(&one, one.grid(b), b, 32);
        assert_eq!(s.atomics.requests, 4096.0);
        assert!(s.atomic_spread.lines >= 1.0);
        let none = atomics(4096, |_| None);
        assert_eq!(analyze(&none, none.grid(b), b, 32).atomic_spread, AtomicSpread::default());
    }

    #[test]
    fn an_access_takes_a_pass_per_bank_conflict_in_each_group_of_four_lines() {
        let passes = |words: Vec<u64>| {
            let mut w: Vec<(u64, u64)> = words.into_iter().map(|x| (15, x)).collect();
            l1_passes(&mut w, &mut Vec::new()).0
        };
        let lanes = |f: &dyn Fn(u64) -> u64| (0..32).map(f).collect::<Vec<u64>>();
        // A broadcast and a coalesced row: one pass (ncu: 1.0 and 1.2).
        assert_eq!(passes(lanes(&|_| 5)), 1.0);
        assert_eq!(passes(lanes(&|i| 64 + i)), 1.0);
        // Every other word: 2 lines, banks 0, 2, ..., 30 twice each (ncu 2.4).
        assert_eq!(passes(lanes(&|i| 2 * i)), 2.0);
        // 12 words apart: 12 lines in 3 groups. Group 1 holds lanes 0-10, banks 0, 12, 24, 4, 16, 28, 8,
        // 20, 0, 12, 24: two words in banks 0, 12 and 24, so 2 passes; the others alike, 6 in all (ncu 6.4).
        assert_eq!(passes(lanes(&|i| 12 * i)), 6.0);
        // An array of 40-byte structures (10 words apart): 10 lines, groups of 13, 13 and 6 lanes on
        // distinct banks: 3 (ncu: aosSum's 3, the probe's 3.5).
        assert_eq!(passes(lanes(&|i| 10 * i + 3)), 3.0);
        // 8 rows of 4 lanes: at a pitch of 4096 words every row is on banks 0-3: 4 words a bank in each
        // group of 4 rows, 8 in all (ncu 8.3); at 4099 the rows shift by 3 banks and overlap by one, 2
        // passes a group (ncu 4.3).
        assert_eq!(passes(lanes(&|i| i / 4 * 4096 + i % 4)), 8.0);
        assert_eq!(passes(lanes(&|i| i / 4 * 4099 + i % 4)), 4.0);
        // Each lane on its own row at a power-of-two pitch: 32 lines, one bank: 32 (rgH, ncu 32.0).
        assert_eq!(passes(lanes(&|i| i * 4096)), 32.0);
        // Two instructions are counted apart, and a store as a load.
        let (load, store) = (1, 2);
        let mut two: Vec<(u64, u64)> = (0..32).map(|i| (load, 2 * i)).chain((0..32).map(|i| (store, 12 * i))).collect();
        assert_eq!(l1_passes(&mut two, &mut Vec::new()), (2.0, 6.0));
    }

    #[test]
    fn a_store_takes_its_passes_not_a_cycle_for_each_line_and_sector() {
        // ncu's write wavefronts on an H100 (docs/MODEL.md section 41) are the stores' passes, not the
        // lines and sectors L1 hands the crossbar (which the L1 and L2 terms count apart).
        let store = |words: Vec<u64>| {
            let mut w: Vec<(u64, u64)> = words.into_iter().map(|x| (0, x)).collect();
            l1_passes(&mut w, &mut Vec::new())
        };
        let lanes = |f: &dyn Fn(u64) -> u64| (0..32).map(f).collect::<Vec<u64>>();
        // A coalesced row: one line, one pass (ncu: 1.08 for the copy's stores), not 1 + 4 sectors.
        assert_eq!(store(lanes(&|i| 64 + i)), (0.0, 1.0));
        // rgH's store at a pitch of 4096 floats: 32 lines on bank 0, 32 passes (ncu: 32.3), not 64.
        assert_eq!(store(lanes(&|i| i * 4096)), (0.0, 32.0));
        // At 4104 (8 words more a row) each group's four rows fall on banks 0, 8, 16 and 24: a pass a
        // group, 8 groups.
        assert_eq!(store(lanes(&|i| i * 4104)), (0.0, 8.0));
        // An interleaved RGB channel, 3 words apart: lanes on 32 distinct banks (3 is odd) over 3 lines
        // of one group, one pass.
        assert_eq!(store(lanes(&|i| 3 * i)), (0.0, 1.0));
        // The naive transpose's 16-wide warp: 16 lines 8192 words apart, two adjacent words each;
        // groups of four lines put their 8 words on banks 0 and 1, 4 a bank: 4 groups of 4 passes.
        assert_eq!(store(lanes(&|i| (i % 16) * 8192 + i / 16)), (0.0, 16.0));
    }

    #[test]
    fn a_thread_of_more_than_65536_accesses_keeps_its_requests_apart() {
        use crate::kernels::{Blur, BlurStage as Stage, Gaussian};
        // rgH over rows of 16,384 pixels: each thread makes 5 x 16,384 + 2 accesses, one pixel of its
        // own row each, and a warp's 32 rows are 64 KiB apart: every request takes 32 sectors on 32
        // lines, 3 x 16,384 + 2 load requests and 2 x 16,384 store requests per warp. (Instruction ids
        // that wrapped at 65,536 put accesses 65,536 apart into one request: 36 sectors a load request.)
        let k = Blur::new(Stage::RgH, 16384, 32, Gaussian::new(5.0).unwrap()).unwrap();
        let b = Dim3::new(32, 1, 1);
        let s = analyze_exact(&k, k.grid(b), b, 32);
        assert_eq!(s.loads.requests, 3.0 * 16384.0 + 2.0);
        assert_eq!(s.stores.requests, 2.0 * 16384.0);
        assert_eq!(s.loads.transactions, 32.0 * s.loads.requests);
        assert_eq!(s.stores.transactions, 32.0 * s.stores.requests);
        // The rows are on one bank: 32 passes a request, loads and stores alike (ncu: 32.1 and 32.3).
        assert_eq!((s.loads.wavefronts, s.stores.wavefronts), (32.0 * s.loads.requests, 32.0 * s.stores.requests));
    }

    #[test]
    fn structures_of_ten_floats_take_three_passes_a_field() {
        use crate::kernels::Layout;
        // aosSum: each thread reads the 10 fields of its 40-byte structure, one instruction a field.
        let k = Layout::new(true, 1 << 12, 1).unwrap();
        let b = Dim3::new(256, 1, 1);
        let s = analyze_exact(&k, k.grid(b), b, 32);
        assert_eq!(s.loads.wavefronts / s.loads.requests, 3.0);
    }

    #[test]
    fn interleaved_rgb_stores_are_three_line_requests() {
        use crate::kernels::{Frames, Resize};
        // resizeBilinear of 16 x 4 pixels to 32 x 8 with 32 x 1 blocks: a warp writes one output row of
        // 32 RGB pixels (384 bytes, 3 lines, from a 128-byte boundary) in 3 instructions (R, G, B),
        // each float 12 bytes after the last: every instruction touches all 12 sectors of the 3 lines,
        // each in part. 8 warps: 24 store requests, 72 line requests, 288 partial sectors.
        let k = Resize(Frames::new(16, 4, 1).unwrap());
        let b = Dim3::new(32, 1, 1);
        let s = analyze_exact(&k, k.grid(b), b, 32);
        assert_eq!(s.stores.requests, 24.0);
        assert_eq!((s.stores.lines, s.stores.transactions, s.stores.partial_sectors), (72.0, 288.0, 288.0));
        // One run of adjacent lines per request: one L1 pass each.
        assert_eq!(s.stores.wavefronts, 24.0);
    }

    #[test]
    fn ragged_edges_count_only_active_threads() {
        let k = SumMatrix::new(33, 1).unwrap();
        let s = analyze(&k, k.grid(Dim3::new(32, 1, 1)), Dim3::new(32, 1, 1), 32);
        assert_eq!(s.sampled_blocks, 2);
        assert_eq!(s.loads.requests, 4.0); // 2 blocks x 2 load instructions
        assert_eq!(s.loads.requested_bytes, 2.0 * 33.0 * 4.0);
        assert_eq!(s.loads.transactions, 2.0 * (4.0 + 1.0));
        // The last block's store writes 4 of the 32 bytes of its sector.
        assert_eq!(s.stores.partial_sectors, 1.0);
    }
}
