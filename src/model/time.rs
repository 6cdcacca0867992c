//! The execution-time model: SKE's split (source 004) into computation, communication and
//! synchronization, with latency hidden by resident warps, bounded below by the throughput of every unit
//! a configuration uses (DRAM, L2, the L1/shared-memory data path, the instruction pipes) and by the
//! block scheduler. The machine is described by [`Figures`]: measured on the device at the start of a
//! measured sweep (`calibrate`), or the architecture database's for a card that is not present. The
//! equations and where every constant comes from are in docs/MODEL.md.

use serde::{Deserialize, Serialize};

use super::arch::{Arch, Card};
use crate::ptx::Mix;

/// Achievable fraction of datasheet DRAM bandwidth for a device-to-device copy, used only when no copy
/// was measured (an H200's cuMemcpy moved 4220 of its 4800 GB/s; docs/PERF-NOTES.md).
pub const COPY_EFFICIENCY: f64 = 0.88;
/// Per-launch overhead, ms, where none was measured (a few microseconds on current drivers; source 003
/// says tens on old ones).
pub const LAUNCH_MS: f64 = 0.003;
/// `__syncthreads` cost per warp, cycles (SKE, source 004).
const SYNC_CYCLES_PER_WARP: f64 = 4.0;

/// A device's performance figures, in the units the model uses. Measured by `calibrate` (each a
/// microbenchmark, docs/MODEL.md) or taken from the architecture database for a named card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// DRAM bandwidth of a device-to-device copy (bytes read + written), GB/s.
    pub copy_gbs: f64,
    /// DRAM bandwidth of reads alone (calReadBlocks: the rate between reading 2 and 16 x L2 once), GB/s.
    pub read_gbs: f64,
    /// Latency of one global load that misses L2, on an otherwise idle GPU (a pointer chase), ns.
    pub dram_latency_ns: f64,
    /// DRAM read bandwidth against the bytes in flight per SM, `[bytes per SM, GB/s]`, ascending
    /// (calInflight: one load per thread in flight, 1 to 64 warps per SM): Little's law measured, the
    /// loaded latency being bytes in flight over bandwidth. Shown, not a term: used as the latency
    /// term's shape in place of [`round_trip_s`]'s, it predicted worse (docs/MODEL.md section 12).
    /// Empty for the database's cards and calibrations made before it was measured.
    #[serde(default)]
    pub read_curve: Vec<[f64; 2]>,
    /// DRAM's rate for short runs of contiguous bytes scattered over its pages, over a contiguous
    /// pass's: `[run bytes, reads, writes]`, ascending (calRuns, 32 to 256 bytes); runs as long as the
    /// longest measured or longer move at the contiguous rate. Empty for the database's cards and
    /// calibrations made before it was measured: every run then counts as long.
    #[serde(default)]
    pub run_efficiency: Vec<[f64; 3]>,
    /// How much longer DRAM takes to serve a block's reads when they spread over more matrix rows,
    /// over a one-row block's of the same size, at each measured row pitch (calRows: 1024-thread blocks
    /// of 1024x1 to 16x64, one float each, rows 4 and 64 KiB apart). Empty for the database's cards and
    /// calibrations made before it was measured: no block is slowed.
    #[serde(default)]
    pub row_spreads: Vec<RowSpread>,
    /// Latency of a dependent global load that hits L1, ns (a pointer chase within a few KiB). 0 in
    /// calibrations made before it was measured: the database's then stands in.
    #[serde(default)]
    pub l1_latency_ns: f64,
    /// Latency of a dependent global load that misses L1 and hits L2, ns (a pointer chase over more than
    /// L1 holds and less than L2). 0 where not measured, as above.
    #[serde(default)]
    pub l2_latency_ns: f64,
    /// L2 read bandwidth (a buffer a quarter of L2 re-read with loads that bypass L1), GB/s.
    pub l2_gbs: f64,
    /// Cycles per ns of L2's input port, over all its slices: a request from L1 (one 128-byte line)
    /// takes one, and each 32-byte sector of data a store carries one more. Absent (0) from reports
    /// calibrated before it was measured.
    #[serde(default)]
    pub l2_write_cycles_per_ns: f64,
    /// Sectors per ns one L2 slice's atomic unit completes (calAtomics: one line's words added to by
    /// every warp, all in one slice). 0 where not measured: [`Target::atomic_rate`] then takes one a
    /// clock.
    #[serde(default)]
    pub atomic_sectors_per_ns: f64,
    /// Slices a footprint of atomically updated lines proceeds as if spread over, `[lines, slices]`
    /// ascending (calAtomics at footprints of 1 to 2048 lines: each footprint's rate over the one-line
    /// run's; the slices slow each other from 16 lines on, so this is below the lines' slices there).
    /// Empty where not measured: [`ATOMIC_SPREAD`] then stands in.
    #[serde(default)]
    pub atomic_spread: Vec<[f64; 2]>,
    /// Bytes per clock one SM's L1 delivers to global loads that hit.
    pub l1_bytes_per_clk: f64,
    /// Bytes per clock one SM's shared memory delivers without bank conflicts.
    pub smem_bytes_per_clk: f64,
    /// Blocks per microsecond one SM's scheduler starts (empty blocks).
    pub blocks_per_us_per_sm: f64,
    /// From a block's end to its successor's first instruction on the same SM, ns (calibrated: empty
    /// 1024-thread blocks, a round of them at a time). 0: not measured (calibrations before version 10);
    /// [`Target::block_gap_s`] then takes the arch's figure.
    #[serde(default)]
    pub block_gap_ns: f64,
    /// Kernel launch overhead seen between CUDA events (an empty kernel), ms.
    pub launch_ms: f64,
    /// Where the figures come from: `calibrated on <device> <date>`, `database (<card>)` or `mock`.
    pub source: String,
}

impl Figures {
    /// The database's figures for `card` on `arch` (datasheet bandwidth derated by
    /// [`COPY_EFFICIENCY`]; the arch's documented or assumed latencies and rates).
    pub fn of_card(card: &Card, arch: &Arch) -> Self {
        let mut f = Figures::of_arch(arch, card.clock_mhz, card.mem_bandwidth_gbs * COPY_EFFICIENCY);
        f.source = format!("database ({})", card.name);
        f
    }

    /// The database's figures for a device of `arch` at `clock_mhz` whose copy runs at `copy_gbs`.
    pub fn of_arch(arch: &Arch, clock_mhz: u32, copy_gbs: f64) -> Self {
        let clock_ghz = clock_mhz.max(1) as f64 / 1e3;
        let l2_gbs = arch.l2_bytes_per_clk.map_or(copy_gbs * L2_OVER_DRAM, |b| b as f64 * clock_ghz);
        Figures {
            copy_gbs,
            read_gbs: copy_gbs,
            dram_latency_ns: arch.mem_latency_cycles as f64 / clock_ghz,
            l1_latency_ns: arch.hit_latency_cycles().0 / clock_ghz,
            l2_latency_ns: arch.hit_latency_cycles().1 / clock_ghz,
            read_curve: Vec::new(),
            run_efficiency: Vec::new(),
            row_spreads: Vec::new(),
            l2_gbs,
            // The input port moves a sector per cycle, as the output port does for reads.
            l2_write_cycles_per_ns: l2_gbs / 32.0,
            atomic_sectors_per_ns: 0.0,
            atomic_spread: Vec::new(),
            l1_bytes_per_clk: arch.l1_bytes_per_clk as f64,
            smem_bytes_per_clk: arch.l1_bytes_per_clk as f64,
            blocks_per_us_per_sm: clock_ghz * 1e3 / arch.block_issue_cycles as f64,
            block_gap_ns: arch.block_gap_cycles as f64 / clock_ghz,
            launch_ms: LAUNCH_MS,
            source: format!("database ({})", arch.sm_name()),
        }
    }

    /// DRAM's rates for reads and for writes, GB/s. Reads run at the measured read rate; a copy reads
    /// and writes the same bytes, `2 B / copy = B / read + B / write`, so `1 / write = 2 / copy - 1 /
    /// read`. Both at the copy's rate where reads were not measured apart (the database's cards: read =
    /// copy) or the two do not make a write rate (a read rate under half the copy's).
    pub fn dram_rates_gbs(&self) -> (f64, f64) {
        let per_byte = 2.0 / self.copy_gbs - 1.0 / self.read_gbs;
        if self.read_gbs > 0.0 && per_byte > 0.0 && per_byte.is_finite() {
            (self.read_gbs, 1.0 / per_byte)
        } else {
            (self.copy_gbs, self.copy_gbs)
        }
    }

    /// DRAM's efficiency for traffic in `runs` (bytes each; writes or reads): bytes over the time
    /// the runs take at their lengths' rates, over that at the contiguous rate. A run as long as the
    /// longest measured or longer moves at the contiguous rate (at 256 bytes calRuns's runs already do,
    /// within its noise: 0.96-1.00 on an H100); between two measured lengths on a straight line in log
    /// run length; shorter than the shortest at its rate. 1 without runs or a measured table.
    pub fn run_efficiency_of(&self, runs: &[u64], write: bool) -> f64 {
        let t = &self.run_efficiency;
        let Some(last) = t.last() else {
            return 1.0;
        };
        let col = if write { 2 } else { 1 };
        let at = |run: f64| if run >= last[0] { 1.0 } else { log_interp(t, col, run) };
        if runs.is_empty() {
            return 1.0;
        }
        let bytes: f64 = runs.iter().map(|&r| r as f64).sum();
        let time: f64 = runs.iter().map(|&r| r as f64 / at(r as f64).max(1e-3)).sum();
        (bytes / time).min(1.0)
    }

    /// The factor by which DRAM's latency stretches for a block whose loads run `run` bytes along each
    /// row they touch, rows `pitch` bytes apart, against a one-row block of its size whose loads would
    /// run `one_row` bytes: at each measured pitch, the spread at `run` over that at `one_row` (never
    /// below 1); between two measured pitches on a straight line in log pitch, beyond them the nearest's.
    /// Runs between two measured ones on a straight line in log run length, beyond them the nearest's.
    /// 1 without a measured table.
    pub fn row_stretch(&self, run: f64, one_row: f64, pitch: f64) -> f64 {
        let mut at: Vec<[f64; 2]> = self
            .row_spreads
            .iter()
            .filter(|r| !r.factors.is_empty())
            .map(|r| {
                let spread = |x| log_interp(&r.factors, 1, x);
                [r.pitch_bytes, (spread(run) / spread(one_row).max(1e-9)).max(1.0)]
            })
            .collect();
        if at.is_empty() {
            return 1.0;
        }
        at.sort_by(|a, b| a[0].total_cmp(&b[0]));
        log_interp(&at, 1, pitch)
    }
}

/// calRows's slow-down at one row pitch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowSpread {
    /// Bytes from one matrix row to the next.
    pub pitch_bytes: f64,
    /// `[bytes a block reads per row, its read time over a one-row block's]`, ascending (the one-row
    /// blocks' factor 1).
    pub factors: Vec<[f64; 2]>,
}

/// Column `col` of a table ascending in its first column, at `x`: on a straight line in log x between
/// two rows, the first row's value below it and the last's above it. `t` must not be empty.
fn log_interp<const N: usize>(t: &[[f64; N]], col: usize, x: f64) -> f64 {
    let i = t.iter().position(|p| p[0] >= x).unwrap_or(t.len());
    if i == 0 || i == t.len() {
        return t[i.min(t.len() - 1)][col];
    }
    let (a, b) = (t[i - 1], t[i]);
    let s = (x / a[0]).ln() / (b[0] / a[0]).ln();
    a[col] + (b[col] - a[col]) * s
}

/// L2 bandwidth over DRAM bandwidth assumed where the database has no documented L2 figure.
pub const L2_OVER_DRAM: f64 = 3.0;

/// The machine a prediction is for: an arch plus the sizes and figures of one card (or the measured
/// device).
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
    /// L2's size, bytes (0: not known).
    pub l2_bytes: u64,
    /// Its performance figures.
    pub figures: Figures,
}

impl Target {
    /// A card of the database, with the database's figures.
    pub fn from_card(card: &Card, arch: &'static Arch) -> Self {
        Target {
            name: card.name.to_string(),
            arch,
            sms: card.sms,
            clock_mhz: card.clock_mhz,
            l2_bytes: card.l2_kib as u64 * 1024,
            figures: Figures::of_card(card, arch),
        }
    }

    /// Blocks per second one SM's scheduler can start.
    pub fn block_issue_rate(&self) -> f64 {
        self.figures.blocks_per_us_per_sm * 1e6
    }

    /// DRAM latency of an idle GPU, seconds.
    pub fn latency_s(&self) -> f64 {
        self.figures.dram_latency_ns * 1e-9
    }

    fn clock_hz(&self) -> f64 {
        self.clock_mhz as f64 * 1e6
    }

    /// Sectors per second one L2 slice's atomic unit completes: the calibrated figure, else one per SM
    /// clock (L2 has its own clock, which the database does not hold: an H100's ran at 1.71 GHz to its
    /// SMs' 1.98, so this is 16 % fast there).
    pub fn atomic_rate(&self) -> f64 {
        if self.figures.atomic_sectors_per_ns > 0.0 {
            self.figures.atomic_sectors_per_ns * 1e9
        } else {
            self.clock_hz()
        }
    }

    /// L2 slices a footprint of `lines` atomically updated 128-byte lines proceeds as if spread over:
    /// the calibrated table within its footprints, past its end its last value grown as
    /// [`ATOMIC_SPREAD`] grows from there; uncalibrated, [`ATOMIC_SPREAD`]. Interpolated on log
    /// scales, the end's value past either end of a table.
    pub fn atomic_slices(&self, lines: f64) -> f64 {
        let lines = lines.max(1.0);
        let database = |x: f64| interpolate_log(&ATOMIC_SPREAD, x);
        let slices = match self.figures.atomic_spread.last() {
            Some(end) if lines <= end[0] => interpolate_log(&self.figures.atomic_spread, lines),
            Some(end) => end[1] * database(lines) / database(end[0]),
            None => database(lines),
        };
        slices.max(1.0)
    }

    /// From a block's end to its successor's first instruction, s: the calibrated figure, else the
    /// arch's (calibrations before version 10 did not measure it).
    pub fn block_gap_s(&self) -> f64 {
        if self.figures.block_gap_ns > 0.0 {
            self.figures.block_gap_ns * 1e-9
        } else {
            self.arch.block_gap_cycles as f64 / self.clock_hz()
        }
    }
}

/// Slices of L2 a footprint of atomically updated lines spreads over, `[lines, slices]`, measured on
/// an H100 (docs/results/atomics-2026-12-07/h100, atoms.cu: every warp adding to one line's 32 words
/// in turn over footprints of 1 to 32768 lines; slices = the atomic unit's busy cycles over all slices
/// over the busiest's). L2's address hash keeps 2 neighbouring lines in one slice and 1 KiB in two;
/// from 2 KiB on a footprint takes a slice per 512 bytes, up to 64 slices at 64 KiB and 79 (of 80) at
/// 4 MiB. histogram_wide's bins on the same card, elsewhere in memory, took 2.0, 31.9 and 63.7 slices
/// at 8, 128 and 2048 lines. The database's figure for every card (the hash of other GPUs is not
/// measured). Where many slices are busy each serves fewer than a sector a clock (0.64 at 32 and 64
/// slices there), which only a calibration sees.
pub const ATOMIC_SPREAD: [[f64; 2]; 11] = [
    [1.0, 1.0],
    [2.0, 1.0],
    [4.0, 2.0],
    [8.0, 2.0],
    [16.0, 4.0],
    [32.0, 8.0],
    [64.0, 16.0],
    [128.0, 32.0],
    [512.0, 64.0],
    [2048.0, 64.0],
    [32768.0, 78.8],
];

/// `table`'s value at `x` (`[x, y]` ascending in x), interpolated linearly in log x and log y; the
/// end's value past either end.
fn interpolate_log(table: &[[f64; 2]], x: f64) -> f64 {
    let (Some(first), Some(last)) = (table.first(), table.last()) else { return 1.0 };
    if x <= first[0] {
        return first[1];
    }
    if x >= last[0] {
        return last[1];
    }
    let i = table.partition_point(|p| p[0] <= x);
    let ([x0, y0], [x1, y1]) = (table[i - 1], table[i]);
    let t = (x.ln() - x0.ln()) / (x1.ln() - x0.ln());
    (y0.ln() + t * (y1.ln() - y0.ln())).exp()
}

/// What limits a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// DRAM bandwidth.
    Bandwidth,
    /// L2's input port (line requests and the stores' sectors).
    L2,
    /// The L1 / shared-memory data path (global L1 passes and bytes, shared-memory wavefronts).
    L1,
    /// Too few bytes in flight to cover DRAM latency.
    Latency,
    /// The block scheduler.
    BlockIssue,
    /// Instruction issue (a pipe, or the schedulers).
    Compute,
}

impl Bound {
    /// Name used in outputs.
    pub fn as_str(&self) -> &'static str {
        match self {
            Bound::Bandwidth => "bandwidth",
            Bound::L2 => "l2",
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
    /// Bytes DRAM must deliver to the loads: the inputs' footprint (reuse across blocks is caught by L2).
    pub dram_read_bytes: f64,
    /// Bytes the stores write to DRAM: each output once (L2 is write-back: the stores that write parts
    /// of one sector merge there before it is written), at most the stores' transactions.
    pub store_bytes: f64,
    /// DRAM's efficiency for the runs the loads read and the stores write (1: long runs; calRuns's
    /// table over the runs of [`crate::model::runs::dram_runs`]).
    pub read_efficiency: f64,
    /// The same for the stores.
    pub write_efficiency: f64,
    /// The loads' line requests to L2 (one per 128-byte line of a load instruction that misses L1,
    /// after a block's reuse there).
    pub l2_read_requests: f64,
    /// The stores' line requests to L2: one per 128-byte line a store instruction writes.
    pub store_lines: f64,
    /// The 32-byte sectors the stores carry to L2 (in full or in part), less those of atomics' line
    /// requests of one lane, whose data rides in the request's cycle.
    pub store_sectors: f64,
    /// Of the atomics' sectors (one per sector of a round of lanes), those the busiest L2 slice serves:
    /// their share of the slices their lines spread over ([`Target::atomic_slices`]), or the hottest
    /// line's share where that is more.
    pub atomic_sectors: f64,
    /// Bytes the load transactions move through L1.
    pub l1_load_bytes: f64,
    /// The loads' and stores' L1 data-pipe passes ([`crate::model::memory::Traffic::wavefronts`]: bank
    /// passes over each group of four lines; docs/MODEL.md sections 19 and 41).
    pub l1_wavefronts: f64,
    /// Shared-memory wavefronts (bank passes), loads and stores.
    pub smem_wavefronts: f64,
    /// Warp instructions per warp, per pipe (the compiled code's mix).
    pub insns: Mix,
    /// Barriers on a warp's path.
    pub barriers: f64,
    /// Resident warps per SM on average (achieved occupancy x max warps), before block-issue limits.
    pub resident_warps: f64,
    /// Whether the kernel loads from global memory at all (a warp then waits one round trip).
    pub loads_global: bool,
    /// Seconds one warp's instructions take alone, each issued when its operands are ready (the PTX
    /// run's chain): no warp lives shorter. 0 where the code was not run.
    pub chain_s: f64,
    /// Round trips a warp waits for one after another (loads in a loop that uses each before the
    /// next): 1 when its loads are issued together.
    pub serial_loads: f64,
    /// Seconds each of those round trips after the first waits: L2's latency, and DRAM's for the share
    /// of the lines L2 does not hold (0: DRAM's).
    pub serial_latency_s: f64,
    /// How much longer than an idle GPU's a block's DRAM round trips take because its loads spread
    /// over several matrix rows ([`Figures::row_stretch`]): 1 for a one-row block.
    pub dram_latency_factor: f64,
    /// Warp instructions of the block's set-up, run once per block by its first warp
    /// ([`crate::kernels::Kernel::setup_barriers`]).
    pub setup: Option<Mix>,
    /// Blocks resident per SM (the occupancy calculator's).
    pub resident_blocks: f64,
}

/// The model's time and its terms, ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// Predicted kernel time.
    pub time_ms: f64,
    /// DRAM bytes over achievable bandwidth (the roofline floor).
    pub bandwidth_ms: f64,
    /// L2's input port (line requests and the stores' sectors over its rate) or its busiest slice's
    /// atomic unit, whichever takes longer.
    pub l2_ms: f64,
    /// L1 passes, L1 bytes and shared-memory wavefronts over the data path's rate, or L1's request port
    /// to L2, whichever is busier.
    pub l1_ms: f64,
    /// Rounds of resident warps, one round trip each (Little's law; see [`round_trip_s`]).
    pub latency_ms: f64,
    /// Blocks over the block scheduler's rate.
    pub issue_ms: f64,
    /// Warp instructions over the busiest pipe's rate or the schedulers' issue slots, plus the memory
    /// latency of each round of resident warps that issue does not cover.
    pub compute_ms: f64,
    /// Barrier cost (SKE's synchronization term).
    pub sync_ms: f64,
    /// The largest term.
    pub bound: Bound,
}

/// Warp instructions per clock per SM each pipe completes, and the schedulers' issue slots (CUDA C++
/// Programming Guide, "Arithmetic Instructions", per compute capability; arch.rs).
fn compute_cycles_per_sm(a: &Arch, m: &Mix, warps_per_sm: f64) -> f64 {
    let per = |lanes: u32| 32.0 / lanes.max(1) as f64;
    let pipes = [
        m.fp32 * per(a.fp32_lanes_per_sm),
        m.int * per(a.int_lanes_per_sm),
        m.imul * per(a.imul_lanes_per_sm),
        m.sfu * per(a.sfu_lanes_per_sm),
        m.total() / a.schedulers_per_sm.max(1) as f64,
    ];
    warps_per_sm * pipes.iter().copied().fold(0.0, f64::max)
}

/// Predicts one configuration's time on `t`.
pub fn predict(t: &Target, w: &Workload) -> Prediction {
    let f = &t.figures;
    let s = t.sms as f64;
    let busy = busy_sms(t, w);
    let clock = t.clock_hz();
    // Reads at the read rate, writes at the rate a copy leaves them (section 33); those in short runs
    // scattered over DRAM's pages at the share of it calRuns measured for their length.
    let (read_gbs, write_gbs) = f.dram_rates_gbs();
    let bandwidth = w.dram_read_bytes / w.read_efficiency.max(1e-3) / (read_gbs * 1e9)
        + w.store_bytes / w.write_efficiency.max(1e-3) / (write_gbs * 1e9);
    // L2's input port takes a cycle per request (a line of one instruction) and one per sector of store
    // data (ncu on an H100: lts__xbar2lts_cycles_active = write requests + write sectors + read requests
    // within 3 % on transposes, resize and the partial-store microbenchmark; docs/MODEL.md section 11).
    // Its read side is not a term: the sectors loads take from L2 depend on L1 reuse across blocks,
    // which the memory model does not see (matmul's one-row blocks hit L1 for 57 % of B's sectors).
    // Atomics wait for L2's atomic unit, one sector a clock in the slice that holds the line (ncu on
    // an H100, atoms.cu: lts__d_atomic_input_cycles_active = the busiest slice's sectors within 1 %
    // where the atomics were the bound; docs/MODEL.md section 37): the busier of the two.
    let l2 = (crossbar_cycles(w) / (f.l2_write_cycles_per_ns * 1e9)).max(w.atomic_sectors / t.atomic_rate());
    // The L1/shared data path: one pass (a bank pass) per clock, and its bytes; or L1's end of the
    // crossbar to L2, whichever is busier.
    let passes = w.l1_wavefronts + w.smem_wavefronts;
    let l1 = passes
        .max(w.l1_load_bytes / f.l1_bytes_per_clk)
        .max(w.smem_wavefronts * 128.0 / f.smem_bytes_per_clk)
        .max(crossbar_cycles(w))
        / (busy * clock);
    // Rounds of resident warps on each SM (at least one).
    let rounds = if w.resident_warps > 0.0 { (w.warps / (s * w.resident_warps)).max(1.0) } else { 1.0 };
    let issue_s = issue_cycles(t, w) * s / busy / clock;
    // Each warp waits one round trip for its (independent) loads; resident warps overlap theirs, but
    // none waits less than its own, nor lives shorter than its own chain of dependent instructions.
    // The resident blocks queue for DRAM as a closed network ([`dram_network_s`]), with or without
    // barriers: a barrier holds a block's own warps, not the other blocks (docs/MODEL.md section 39).
    let latency = if w.resident_warps > 0.0 && (w.loads_global || w.chain_s > 0.0) {
        if w.loads_global && w.blocks > 0 {
            dram_network_s(t, w, busy, bandwidth, issue_s)
        } else {
            let trip = if w.loads_global { round_trip_s(t, w, w.resident_warps) } else { 0.0 };
            rounds * trip.max(w.chain_s)
        }
    } else {
        0.0
    };
    let issue = w.blocks as f64 / (s * t.block_issue_rate());
    // Issue, plus the latency no other warp covers ([`exposed_s`]): every round's where its warps wait
    // together (barriers: the pessimistic bound of a closed network whose one server, issue, has the
    // memory latency as think time, N D + Z per cycle; Hong & Kim 2009's compute-bound case; docs/MODEL.md
    // section 16), what the other blocks' issue leaves of it where blocks run out of step (section 32).
    let exposed = if w.loads_global { exposed_s(t, w, rounds, busy, issue_s) } else { 0.0 };
    let compute = issue_s + block_waits_s(t, w) + exposed;
    let (compute, l1) = in_turn(w, busy, issue_s, compute, l1);
    let sync = w.warps * w.barriers * SYNC_CYCLES_PER_WARP / (s * t.arch.schedulers_per_sm.max(1) as f64 * clock);
    let terms = [
        (Bound::Bandwidth, bandwidth),
        (Bound::L2, l2),
        (Bound::L1, l1),
        (Bound::Latency, latency),
        (Bound::BlockIssue, issue),
        (Bound::Compute, compute),
    ];
    let (bound, longest) = terms.iter().copied().fold((Bound::Bandwidth, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let ms = 1e3;
    Prediction {
        time_ms: (longest + sync) * ms + f.launch_ms,
        bandwidth_ms: bandwidth * ms,
        l2_ms: l2 * ms,
        l1_ms: l1 * ms,
        latency_ms: latency * ms,
        issue_ms: issue * ms,
        compute_ms: compute * ms,
        sync_ms: sync * ms,
        bound,
    }
}

/// The memory latency instruction issue does not cover, over the kernel. The first round of resident
/// blocks starts together and waits out a warp's latency `Z` ([`exposed_latency_s`]) in full. After
/// it, a kernel with barriers pays `Z` every round: its warps meet at each barrier and wait together
/// (the pessimistic bound of section 16). A kernel without barriers keeps its `b` resident blocks out
/// of step, each slot cycling through its successor's start (`g`, [`Target::block_gap_s`]), the wait
/// and the block's own issue `D`, with the other blocks' issue filling that wait: the cycle of a closed
/// network of `b` customers, one server of demand `D` and think time `Z + g`, whose times do not vary,
/// is `max(b D, D + Z + g)` (Lazowska et al., ch. 5: the asymptotic bounds, which such a network meets
/// after its first cycle). Each later round then adds `max(0, Z + g - (b - 1) D)` to issue: the whole
/// wait and the gap with one block per SM, nothing where the other blocks' issue covers them
/// (docs/MODEL.md section 32).
fn exposed_s(t: &Target, w: &Workload, rounds: f64, busy: f64, issue_s: f64) -> f64 {
    let z = exposed_latency_s(t, w);
    if w.barriers > 0.0 || w.blocks == 0 {
        return rounds * z;
    }
    let b = blocks_per_busy_sm(w, busy);
    let block_issue = issue_s / rounds / b;
    z + (rounds - 1.0).max(0.0) * (z + t.block_gap_s() - (b - 1.0) * block_issue).max(0.0)
}

/// The latency term of a kernel that loads: each busy SM's `b` resident blocks are the customers
/// of a closed network whose one queueing server is DRAM (a block's demand `D`: its reads and writes
/// at the SM's share of DRAM's rates, the DRAM term over the blocks each SM runs) and whose delay is
/// the block's own wait: a warp's latency `Z` ([`exposed_latency_s`], or its chain where longer), the
/// slot's turnover `g` and the block's issue. The first round starts together and pays `Z + b D`;
/// each later one takes the network's cycle, `b / X(b)` by exact mean value analysis. That lies
/// between the asymptotic bounds `max(b D, D + Z + g)` and the sum `b D + Z + g` that a round of warps
/// waiting together pays, nearer the sum where `b` is small against `(D + Z + g) / D` (docs/MODEL.md
/// section 33). Kernels with barriers took that sum until section 39: their blocks meet no one at a
/// barrier but their own warps, so they queue as the others do; what their warps' meeting costs is
/// the compute term's ([`exposed_s`]).
fn dram_network_s(t: &Target, w: &Workload, busy: f64, dram_s: f64, issue_s: f64) -> f64 {
    let b = blocks_per_busy_sm(w, busy);
    let rounds = block_rounds(w, busy).max(1.0);
    let demand = dram_s * busy / w.blocks as f64;
    let wait = exposed_latency_s(t, w).max(w.chain_s);
    let delay = wait + t.block_gap_s() + issue_s / rounds / b;
    let first = wait + b * demand;
    let throughput = closed_network_throughput(b, demand, delay);
    if throughput > 0.0 && throughput.is_finite() { first + (rounds - 1.0) * b / throughput } else { first }
}

/// Throughput of a closed network of `n` customers that cycle through one queueing server of demand
/// `d` and a delay `z`: exact mean value analysis (Reiser and Lavenberg 1980; Lazowska et al.,
/// "Quantitative System Performance", ch. 6), the customers added one at a time; a fractional `n` on a
/// line between its two whole neighbours. 0 where a cycle takes no time.
fn closed_network_throughput(n: f64, d: f64, z: f64) -> f64 {
    if d + z <= 0.0 {
        return 0.0;
    }
    let whole = n.floor().max(1.0) as usize;
    let (mut queue, mut at) = (0.0, Vec::with_capacity(whole + 1));
    for k in 1..=whole + 1 {
        let residence = d * (1.0 + queue);
        let x = k as f64 / (z + residence);
        queue = x * residence;
        at.push(x);
    }
    let part = (n - whole as f64).clamp(0.0, 1.0);
    at[whole - 1] + part * (at[whole] - at[whole - 1])
}

/// Blocks resident on each busy SM at once: the occupancy calculator's, at most the grid's share, at
/// least one.
fn blocks_per_busy_sm(w: &Workload, busy: f64) -> f64 {
    w.resident_blocks.min(w.blocks as f64 / busy).max(1.0)
}

/// Rounds of resident blocks each busy SM runs ([`blocks_per_busy_sm`] at a time).
fn block_rounds(w: &Workload, busy: f64) -> f64 {
    w.blocks as f64 / (busy * blocks_per_busy_sm(w, busy))
}

/// The SMs with a block to run: the SMs' own units (L1, the pipes) work only where a block runs, and
/// a grid of fewer blocks than SMs leaves the rest idle.
fn busy_sms(t: &Target, w: &Workload) -> f64 {
    (t.sms as f64).min(w.blocks.max(1) as f64)
}

/// Cycles the requests from L1 to L2 take at either end of the crossbar: a cycle per request (a line
/// of one instruction: a load's that misses L1, every store's) and one per sector of store data. L2's
/// input port takes them at its calibrated rate over the whole GPU (the L2 term); each SM's L1 sends
/// its own at one a clock, its own limit where a warp's lanes each store to their own line on distinct
/// banks, so that L1's data pipe serves the 32 lines in 8 passes and the port takes 64 clocks (ncu on an
/// H200, `l1tex__m_l1tex2xbar_req_cycles_active`: this count within 2 % on rgH at 4096 and 4104 floats
/// a row, the naive transpose at two shapes, resize's interleaved stores and matmulStrided; the port
/// 92-97 % busy on rgH at 4104; docs/MODEL.md section 27).
fn crossbar_cycles(w: &Workload) -> f64 {
    w.l2_read_requests + w.store_lines + w.store_sectors
}

/// The compute and L1 terms, `(compute, l1)`, where issue (`issue_s` of the compute term) and L1's
/// data path take a warp in turn: an instruction waits for its load's data and a load for the
/// instructions that make its address, and a block's warps start together, so a block alone on its SM
/// takes the sum of its two demands (gaussianSmooth's 32x32 blocks on an H200, one an SM for their 42
/// registers: 6.0 k clocks a block measured against 3.1 k of issue and 3.3 k of wavefronts). With `b`
/// blocks resident, the others' work covers all but 1/b of one block's turns: the larger term gains
/// the smaller of the two demands over `b`, the share [`block_waits_s`] charges a block's waits.
/// Kernels with barriers pay their blocks' serial phases there already and are left as they are
/// (docs/MODEL.md section 30).
fn in_turn(w: &Workload, busy: f64, issue_s: f64, compute: f64, l1: f64) -> (f64, f64) {
    if w.barriers > 0.0 || w.blocks == 0 {
        return (compute, l1);
    }
    let b = blocks_per_busy_sm(w, busy);
    let turns = issue_s.min(l1) / b;
    if compute >= l1 { (compute + turns, l1) } else { (compute, l1 + turns) }
}

/// Instruction issue: every warp's instructions and every block's set-up (once per block) over the
/// busiest pipe or the schedulers' issue slots, cycles per SM.
fn issue_cycles(t: &Target, w: &Workload) -> f64 {
    let per_warp = match w.setup {
        Some(setup) if w.warps > 0.0 => w.insns.add_scaled(&setup, w.blocks as f64 / w.warps),
        _ => w.insns,
    };
    compute_cycles_per_sm(t.arch, &per_warp, w.warps / t.sms as f64)
}

/// A kernel with barriers: a barrier keeps a block's warps together, so they wait together — for
/// the block's set-up (its dependent chain: one warp issuing a dependent instruction every
/// [`Arch::dependent_latency_cycles`]) and for each serial round trip — and while they wait, the
/// block's share of the SM (one of its `b` resident blocks) issues nothing. Per round of resident
/// blocks the SM loses those waits over `b`: all of them with one block per SM, little with many.
fn block_waits_s(t: &Target, w: &Workload) -> f64 {
    if w.barriers <= 0.0 || w.blocks == 0 || w.warps <= 0.0 {
        return 0.0;
    }
    let busy = busy_sms(t, w);
    let b = w.resident_blocks.max(1.0);
    let setup = w.setup.map_or(0.0, |m| m.total() * t.arch.dependent_latency_cycles());
    let waits = if w.loads_global { round_trip_s(t, w, w.resident_warps) * t.clock_hz() } else { 0.0 };
    let rounds = w.blocks as f64 / (busy * b);
    rounds * (setup + waits) / b / t.clock_hz()
}

/// A warp's wait for its loads with `resident_warps` per SM issuing theirs together: `c` =
/// [`Workload::serial_loads`] round trips one after another, each the idle DRAM latency plus the time
/// DRAM takes to deliver the loads in flight ahead of it (that step's bytes of every resident warp at
/// the read bandwidth; no more warps than the grid has): `c L + min(S R, W) (bytes per warp) / read
/// bandwidth`. Over a kernel, rounds x this = rounds x c x latency + bytes read / read bandwidth.
pub fn round_trip_s(t: &Target, w: &Workload, resident_warps: f64) -> f64 {
    let bytes_per_warp = if w.warps > 0.0 { w.dram_read_bytes / w.warps } else { 0.0 };
    let in_flight = (t.sms as f64 * resident_warps).min(w.warps);
    let read_gbs = t.figures.read_gbs * w.read_efficiency.max(1e-3);
    exposed_latency_s(t, w) + in_flight * bytes_per_warp / (read_gbs * 1e9)
}

/// The latency a warp waits out for its loads, alone: DRAM's for the first round trip (stretched by
/// [`Workload::dram_latency_factor`]), then each further one's ([`Workload::serial_latency_s`]).
pub fn exposed_latency_s(t: &Target, w: &Workload) -> f64 {
    let dram = t.latency_s() * w.dram_latency_factor.max(1.0);
    let next = if w.serial_latency_s > 0.0 { w.serial_latency_s } else { dram };
    dram + (w.serial_loads.max(1.0) - 1.0) * next
}

/// One round trip over a warp's life in `p` (at most 1): the life is the predicted time, less the launch
/// and (without barriers) the slots' turnovers between rounds, times the resident warps per SM over the
/// warps each SM runs (Little's law).
pub fn round_trip_share(t: &Target, w: &Workload, p: &Prediction) -> f64 {
    let per_sm = w.warps / t.sms as f64;
    let gaps = if w.barriers <= 0.0 && w.blocks > 0 {
        (block_rounds(w, busy_sms(t, w)) - 1.0).max(0.0) * t.block_gap_s()
    } else {
        0.0
    };
    let secs = ((p.time_ms - t.figures.launch_ms) * 1e-3 - gaps).max(0.0);
    let life = if per_sm > 0.0 { secs * w.resident_warps.min(per_sm) / per_sm } else { 0.0 };
    let trip = round_trip_s(t, w, w.resident_warps);
    if life > trip && life > 0.0 { trip / life } else { 1.0 }
}

/// Resident blocks per SM the block scheduler sustains when it is the bottleneck: its rate times a
/// block's shortest life (one round trip of an SM full of such warps, or its warps' own chain of
/// dependent instructions where that is longer), by Little's law.
pub fn issue_resident_blocks(t: &Target, w: &Workload) -> f64 {
    t.block_issue_rate() * round_trip_s(t, w, t.arch.max_warps_per_sm as f64).max(w.chain_s)
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
        t.figures.copy_gbs = 4220.0; // the copy measured on the test machine
        t.figures.read_gbs = 4220.0; // reads not measured apart: both directions at the copy's rate
        t
    }

    fn sum_matrix(blocks: u64, warps_per_block: f64, resident_warps: f64) -> Workload {
        let n = (1u64 << 28) as f64;
        Workload {
            blocks,
            warps: blocks as f64 * warps_per_block,
            dram_read_bytes: 8.0 * n,
            store_bytes: 4.0 * n,
            read_efficiency: 1.0,
            write_efficiency: 1.0,
            l2_read_requests: 2.0 * n / 32.0,
            store_lines: n / 32.0,
            store_sectors: 4.0 * n / 32.0,
            atomic_sectors: 0.0,
            l1_load_bytes: 8.0 * n,
            l1_wavefronts: 3.0 * n / 32.0,
            smem_wavefronts: 0.0,
            insns: Mix { fp32: 1.0, int: 12.0, imul: 3.0, sfu: 0.0, mem: 3.0, other: 2.0 },
            barriers: 0.0,
            resident_warps,
            loads_global: true,
            serial_loads: 1.0,
            chain_s: 0.0,
            serial_latency_s: 0.0,
            dram_latency_factor: 1.0,
            setup: None,
            resident_blocks: 1.0,
        }
    }

    #[test]
    fn the_h200_figures() {
        let t = h200();
        assert!((t.block_issue_rate() / 1e6 - 12.53).abs() < 0.05);
        // 800 cycles (source 003) at 1980 MHz.
        assert!((t.latency_s() * 1e9 - 404.0).abs() < 1.0);
        // (64,1): 4.19 M blocks, measured 2.525 ms, block-issue bound.
        let p = predict(&t, &Workload { resident_blocks: 32.0, ..sum_matrix(1 << 22, 2.0, 64.0 * 0.85) });
        assert_eq!(p.bound, Bound::BlockIssue);
        assert!((p.time_ms - 2.525).abs() / 2.525 < 0.03, "{p:?}");
        assert!(issue_bound_at(&t, 1 << 22, 2.525));
        // (256,1): 1 M blocks, 8 resident an SM, 75 % achieved occupancy (ncu), measured 0.958 ms:
        // latency bound. A round trip is 404 ns plus 132 SMs x 48 warps x 256 bytes at 4220 GB/s (385
        // ns). Its blocks queue for DRAM as a closed network (section 33), whose cycle the measurement
        // exceeds here: predicted 0.89 ms, 7 % fast.
        let w = Workload { resident_blocks: 8.0, ..sum_matrix(1 << 20, 8.0, 64.0 * 0.752) };
        let round = round_trip_s(&t, &w, w.resident_warps);
        assert!((round * 1e9 - (404.0 + 132.0 * 48.13 * 256.0 / 4220.0)).abs() < 1.0, "{round}");
        let p = predict(&t, &w);
        assert_eq!(p.bound, Bound::Latency);
        assert!((p.time_ms - 0.958).abs() / 0.958 < 0.12, "{p:?}");
        assert!(!issue_bound_at(&t, 1 << 20, 0.958));
        // The roofline floor: 3.22 GB at 4220 GB/s.
        assert!((p.bandwidth_ms - 0.763).abs() < 0.001);
    }

    #[test]
    fn a_closed_network_by_mean_value_analysis() {
        // Two customers, demand 1 and delay 1: one alone cycles in 2 (X = 1/2) and queues 1/2 on the
        // server; the second finds it there, so its residence is 1.5 and X(2) = 2 / 2.5 = 0.8.
        assert!((closed_network_throughput(1.0, 1.0, 1.0) - 0.5).abs() < 1e-12);
        assert!((closed_network_throughput(2.0, 1.0, 1.0) - 0.8).abs() < 1e-12);
        // Half way between one and two customers: half way between their throughputs.
        assert!((closed_network_throughput(1.5, 1.0, 1.0) - 0.65).abs() < 1e-12);
        // Between the asymptotic bounds: never above 1 / d nor n / (d + z), never below n / (n d + z).
        for (n, d, z) in [(2.0, 1.0, 1.0), (8.0, 0.1, 0.7), (2.0, 1.3, 0.7), (32.0, 0.02, 0.5)] {
            let x = closed_network_throughput(n, d, z);
            assert!(x <= (1.0 / d).min(n / (d + z)) + 1e-12 && x >= n / (n * d + z) - 1e-12, "{n} {d} {z}: {x}");
        }
        // Many customers saturate the server.
        assert!((closed_network_throughput(1000.0, 0.1, 0.7) - 10.0).abs() < 1e-6);
        assert_eq!(closed_network_throughput(4.0, 0.0, 0.0), 0.0);
    }

    #[test]
    fn blocks_queue_for_dram_as_a_closed_network_with_or_without_barriers() {
        let t = h200();
        // sumMatrix at 256x1: 2^20 blocks of 8 warps, 8 resident an SM (64 warps).
        let w = Workload { resident_blocks: 8.0, ..sum_matrix(1 << 20, 8.0, 64.0) };
        let p = predict(&t, &w);
        // A block's DRAM demand at its SM's share: 12 bytes of 2^28 elements at 4220 GB/s, over the 7943
        // blocks each of 132 SMs runs: 96.1 ns. Its delay: 800 clocks of latency and 360 of turnover at
        // 1980 MHz (404.0 + 181.8 ns) and its issue.
        let demand = 12.0 * (1u64 << 28) as f64 / 4220e9 * 132.0 / (1u64 << 20) as f64;
        assert!((demand * 1e9 - 96.09).abs() < 0.01, "{demand}");
        let issue_s = issue_cycles(&t, &w) / t.clock_hz();
        let rounds = (1u64 << 20) as f64 / (132.0 * 8.0);
        let delay = 404.04e-9 + 181.82e-9 + issue_s / rounds / 8.0;
        let by_hand = 404.04e-9 + 8.0 * demand + (rounds - 1.0) * 8.0 / closed_network_throughput(8.0, demand, delay);
        assert!(
            (p.latency_ms - by_hand * 1e3).abs() / p.latency_ms < 1e-4,
            "{} against {}",
            p.latency_ms,
            by_hand * 1e3
        );
        // Between the bounds: each later round at least the DRAM the SM's blocks need, at most the sum.
        let cycle = (p.latency_ms * 1e-3 - 404.04e-9 - 8.0 * demand) / (rounds - 1.0);
        assert!(cycle >= 8.0 * demand && cycle <= 8.0 * demand + delay, "{cycle}");
        // A barrier holds a block's own warps, not the other blocks: the same network. Before section
        // 39 such a kernel paid a whole round trip every round of 64 resident warps, 993 rounds of
        // 404 ns and 132 x 64 x 256 bytes at 4220 GB/s (512 ns): 0.910 ms against the network's 0.889.
        let wb = Workload { barriers: 1.0, ..w };
        assert!((predict(&t, &wb).latency_ms - p.latency_ms).abs() < 1e-12);
        let summed = (1u64 << 23) as f64 / (132.0 * 64.0) * round_trip_s(&t, &wb, 64.0) * 1e3;
        assert!((summed - 0.910).abs() < 0.001 && p.latency_ms < summed - 0.015, "{summed} {}", p.latency_ms);
    }

    #[test]
    fn reads_and_writes_at_their_own_rates() {
        let mut t = h200();
        // Not measured apart: the copy's rate both ways.
        assert_eq!(t.figures.dram_rates_gbs(), (4220.0, 4220.0));
        // A copy at 4000 GB/s and reads at 5000: 2 / 4000 = 1 / 5000 + 1 / write, so writes at 3333.3.
        t.figures.copy_gbs = 4000.0;
        t.figures.read_gbs = 5000.0;
        let (read, write) = t.figures.dram_rates_gbs();
        assert_eq!(read, 5000.0);
        assert!((write - 10000.0 / 3.0).abs() < 1e-9, "{write}");
        // A copy of 1 GB each way takes what the copy measured: 2 GB at 4000 GB/s, 0.5 ms.
        let w = Workload { dram_read_bytes: 1e9, store_bytes: 1e9, ..sum_matrix(1 << 18, 8.0, 64.0) };
        assert!((predict(&t, &w).bandwidth_ms - 0.5).abs() < 1e-12);
        // Reads alone at the read rate: 1 GB in 0.2 ms; 2 GB read and 1 GB written: 0.4 + 0.3 ms.
        let w = Workload { store_bytes: 0.0, ..w };
        assert!((predict(&t, &w).bandwidth_ms - 0.2).abs() < 1e-12);
        let w = Workload { dram_read_bytes: 2e9, store_bytes: 1e9, ..w };
        assert!((predict(&t, &w).bandwidth_ms - 0.7).abs() < 1e-12);
        // A read rate under half the copy's makes no write rate: the copy's both ways.
        t.figures.read_gbs = 1900.0;
        assert_eq!(t.figures.dram_rates_gbs(), (4000.0, 4000.0));
    }

    #[test]
    fn short_runs_slow_dram_down() {
        // A made-up table: 32-byte runs read at 0.5 and written at 0.3 of a contiguous pass, 64-byte ones
        // at 0.8 and 0.55, 128-byte ones at 0.9 and 0.95 (and so, as the longest, at full rate).
        let mut t = h200();
        t.figures.run_efficiency = vec![[32.0, 0.5, 0.3], [64.0, 0.8, 0.55], [128.0, 0.9, 0.95]];
        let f = &t.figures;
        assert_eq!(f.run_efficiency_of(&[], true), 1.0);
        assert!((f.run_efficiency_of(&[64; 10], true) - 0.55).abs() < 1e-12);
        // 45 bytes, 0.49 of the way from 32 to 64 in log: 0.5 + 0.3 x 0.49 for reads.
        assert!((f.run_efficiency_of(&[45], false) - (0.5 + 0.3 * (45f64 / 32.0).ln() / 2f64.ln())).abs() < 1e-12);
        // Shorter than the shortest: its rate; as long as the longest or longer: full rate.
        assert!((f.run_efficiency_of(&[16], true) - 0.3).abs() < 1e-12);
        assert_eq!(f.run_efficiency_of(&[128], true), 1.0);
        assert_eq!(f.run_efficiency_of(&[1 << 40], true), 1.0);
        // 96 bytes, 0.585 of the way from 64 to 128 in log: 0.55 + 0.4 x 0.585.
        assert!((f.run_efficiency_of(&[96], true) - (0.55 + 0.4 * 1.5f64.log2())).abs() < 1e-12);
        // 64 bytes of 64-byte runs (0.55) and 128 of long ones: 192 bytes in 64 / 0.55 + 128 byte-times.
        assert!((f.run_efficiency_of(&[64, 128], true) - 192.0 / (64.0 / 0.55 + 128.0)).abs() < 1e-12);
        // transposeL's shape on 8192 x 8192: 256 MiB read in long runs, 256 MiB written in 64-byte ones:
        // 268.4 MB at 4220 GB/s plus 268.4 MB at 0.55 of it = 0.0636 + 0.1157 ms.
        let mi = (1u64 << 20) as f64;
        let w = Workload {
            dram_read_bytes: 256.0 * mi,
            store_bytes: 256.0 * mi,
            write_efficiency: 0.55,
            ..sum_matrix(1 << 18, 8.0, 64.0)
        };
        let p = predict(&t, &w);
        let by_hand = (256.0 * mi + 256.0 * mi / 0.55) / 4220e9 * 1e3;
        assert!((p.bandwidth_ms - by_hand).abs() < 1e-12, "{} against {by_hand}", p.bandwidth_ms);
        assert!((p.bandwidth_ms - 0.1793).abs() < 1e-4, "{}", p.bandwidth_ms);
    }

    #[test]
    fn loads_waited_for_one_after_another() {
        // Blocks of one warp of 32 threads that each load 16 floats in a loop, storing each to shared
        // memory before the next (a 32 x 16 strip, say), 32 blocks resident an SM, 64 rounds of them on
        // 132 SMs. Each block is a customer of the DRAM network (section 33): its demand D is its 2 KiB
        // read and 2 KiB written at the SM's share of 4220 GB/s, 4096 x 132 / 4220 = 128.12 ns; its
        // delay the 16 round trips of 404.04 ns (800 cycles at 1980 MHz) one after another, 6464.6 ns,
        // and the slot's turnover of 360 cycles, 181.8 ns (no instructions to issue). The first round
        // pays Z + 32 D = 10.5645 us. Each later one takes 32 / X(32): by mean value analysis (the
        // recursion worked apart from this code) 6.9332 us, between the asymptotic bound D + Z + g =
        // 6.7746 us and the sum 32 D + Z + g = 10.7463 us. In all 10.5645 + 63 x 6.9332 us = 0.44736 ms.
        let t = h200();
        let warps = 132.0 * 32.0 * 64.0;
        let w = Workload {
            blocks: warps as u64,
            warps,
            dram_read_bytes: warps * 2048.0,
            store_bytes: warps * 2048.0,
            l2_read_requests: 0.0,
            store_lines: 0.0,
            store_sectors: 0.0,
            atomic_sectors: 0.0,
            l1_load_bytes: warps * 2048.0,
            l1_wavefronts: 0.0,
            serial_loads: 16.0,
            chain_s: 0.0,
            serial_latency_s: 0.0,
            dram_latency_factor: 1.0,
            insns: Mix::default(),
            // A barrier between the loads and the stores to shared memory holds the block's one warp:
            // the other blocks go on (section 39).
            barriers: 1.0,
            resident_blocks: 32.0,
            ..sum_matrix(1, 1.0, 32.0)
        };
        let p = predict(&t, &w);
        let (first, cycle) = (10.5645e-6, 6.9332e-6);
        assert!(cycle > 6.7746e-6 && cycle < 10.7463e-6);
        let by_hand = (first + 63.0 * cycle) * 1e3;
        assert!((p.latency_ms - by_hand).abs() < 1e-4 * by_hand, "{} against {by_hand}", p.latency_ms);
        assert!((p.latency_ms - 0.44736).abs() < 1e-4, "{}", p.latency_ms);
        assert_eq!(predict(&t, &Workload { barriers: 0.0, ..w }).latency_ms, p.latency_ms);
        // The same loads issued together wait one round trip: Z = 404.04 ns, and DRAM is the bound,
        // 32 D = 4.0999 us a round after the first's Z + 32 D = 4.5039 us: 0.26279 ms, the 1.107 GB
        // at 4220 GB/s (0.26240 ms) and a round trip.
        let together = predict(&t, &Workload { serial_loads: 1.0, ..w });
        assert!((together.latency_ms - (4.5039 + 63.0 * 4.0999) * 1e-3).abs() < 1e-5, "{}", together.latency_ms);
        assert!(together.latency_ms > together.bandwidth_ms && together.latency_ms < together.bandwidth_ms + 0.0005);
    }

    #[test]
    fn l2_input_port_takes_a_cycle_per_request_and_per_store_sector() {
        // The naive transpose of 8192 x 8192 floats with one-warp-wide blocks: each of its 2 Mi store
        // instructions writes one float into each of 32 lines, so L2 takes 64 Mi line requests of one
        // sector each; its 2 Mi loads are contiguous 128-byte lines, one request each. The input port
        // takes 64 Mi + 64 Mi + 2 Mi = 136,314,880 cycles; at the 119 cycles per ns calibrated on an
        // H100 that is 1.1455 ms (ncu measured 136.3 M such cycles and 1.186 ms on that card).
        let mut t = h200();
        t.figures.l2_write_cycles_per_ns = 119.0;
        let mi = (1u64 << 20) as f64;
        let naive = Workload {
            blocks: 8 * 8192,
            warps: 2.0 * mi,
            dram_read_bytes: 256.0 * mi,
            store_bytes: 256.0 * mi,
            l2_read_requests: 2.0 * mi,
            store_lines: 64.0 * mi,
            store_sectors: 64.0 * mi,
            atomic_sectors: 0.0,
            l1_load_bytes: 256.0 * mi,
            l1_wavefronts: 2.0 * mi + 64.0 * mi,
            insns: Mix::default(),
            ..sum_matrix(1, 1.0, 48.0)
        };
        let p = predict(&t, &naive);
        assert_eq!(p.bound, Bound::L2);
        assert!((p.l2_ms - 136_314_880.0 / 119e9 * 1e3).abs() < 1e-9, "{}", p.l2_ms);
        assert!((p.l2_ms - 1.1455).abs() < 1e-4, "{}", p.l2_ms);
        // Interleaved RGB stores write the same bytes as 3 line requests of 4 sectors per 384 bytes
        // instead of 12 of one: the port's share of the stores falls from 2 to 1.25 cycles per sector.
        let rgb = Workload { store_lines: 64.0 * mi / 4.0, ..naive };
        let q = predict(&t, &rgb);
        assert!((q.l2_ms / p.l2_ms - (2.0 * mi + 16.0 * mi + 64.0 * mi) / (130.0 * mi)).abs() < 1e-12);
    }

    #[test]
    fn atomics_wait_for_the_busiest_slices_atomic_unit() {
        // The database's spread: a 1 KiB histogram (8 lines) in 2 slices, 12 lines between 8 (2
        // slices) and 16 (4) on log scales, 2 x 2^(log2 1.5) = 3; past the table, its end.
        let mut t = h200();
        assert_eq!(t.atomic_slices(8.0), 2.0);
        assert!((t.atomic_slices(12.0) - 3.0).abs() < 1e-12, "{}", t.atomic_slices(12.0));
        assert_eq!((t.atomic_slices(0.5), t.atomic_slices(1e6)), (1.0, 78.8));
        // Uncalibrated, the unit takes a sector an SM clock: 11.86 M sectors over the histogram's 2
        // slices, 5.93 M in the busiest, at 1980 MHz are 2.995 ms, above the input port's share.
        assert_eq!(t.atomic_rate(), t.clock_mhz as f64 * 1e6);
        let w = Workload { atomic_sectors: 11.86e6 / 2.0, insns: Mix::default(), ..sum_matrix(1056, 8.0, 64.0) };
        let p = predict(&t, &w);
        assert_eq!(p.bound, Bound::L2);
        assert!((p.l2_ms - 5.93e6 / (t.clock_mhz as f64 * 1e6) * 1e3).abs() < 1e-9, "{}", p.l2_ms);
        // Calibrated at 1.71 sectors per ns a slice (the H100's L2 clock), with a table to 128 lines
        // of 2 slices at 8 and 16 at 128.
        t.figures.atomic_sectors_per_ns = 1.71;
        t.figures.atomic_spread = vec![[1.0, 1.0], [8.0, 2.0], [128.0, 16.0]];
        assert!((predict(&t, &w).l2_ms - 5.93e6 / 1.71e9 * 1e3).abs() < 1e-9);
        // 32 lines are halfway from 8 to 128 on a log scale: 2 x (16 / 2)^0.5 = 5.657 slices.
        assert!((t.atomic_slices(32.0) - 2.0 * 8.0f64.sqrt()).abs() < 1e-9, "{}", t.atomic_slices(32.0));
        // Past the table's end (16 at 128 lines) as the database's grows: at 256 lines, halfway from
        // 128 (32 slices) to 512 (64) on log scales, 32 x 2^0.5 = 45.25, so 16 x 45.25 / 32 = 22.6;
        // at a million lines 16 x 78.8 / 32.
        assert!((t.atomic_slices(256.0) - 16.0 * 2.0f64.sqrt()).abs() < 1e-9, "{}", t.atomic_slices(256.0));
        assert!((t.atomic_slices(1e6) - 16.0 * 78.8 / 32.0).abs() < 1e-9);
    }

    #[test]
    fn l1_sends_a_request_and_each_store_sector_to_l2_at_one_a_clock() {
        // rgH over rows of 4104 floats with 256x1 blocks: 16 blocks of 8 warps, one SM each. Every
        // thread walks its own row, so each of a warp's 5 x 4104 requests touches 32 lines, 16,416
        // floats apart (banks 8 lane mod 32: 8 L1 passes a request, 21,012,480 in all). Its 2 x 4104
        // stores write 32 lines each: 128 warps x 8208 x 32 = 33,619,968 line requests, and its loads
        // miss L1 for 7,316,000 lines (ncu's figures on an H200 for both). A store line carries one
        // sector: the port takes 7,316,000 + 2 x 33,619,968 = 74,555,936 clocks (ncu: 74,557 k busy)
        // over 16 SMs: 4,659,746 clocks each, 2.3534 ms at 1980 MHz (measured 2.605 ms); the data
        // pipe's passes alone would be 0.663 ms.
        let t = h200();
        let rows = Workload {
            blocks: 16,
            warps: 128.0,
            dram_read_bytes: 64.0 * 4104.0 * 4096.0,
            store_bytes: 64.0 * 4104.0 * 4096.0,
            l2_read_requests: 7_316_000.0,
            store_lines: 33_619_968.0,
            store_sectors: 33_619_968.0,
            atomic_sectors: 0.0,
            l1_load_bytes: 0.0,
            l1_wavefronts: 21_012_480.0,
            insns: Mix::default(),
            loads_global: false,
            ..sum_matrix(16, 8.0, 8.0)
        };
        let p = predict(&t, &rows);
        assert_eq!(p.bound, Bound::L1);
        let by_hand = (7_316_000.0 + 2.0 * 33_619_968.0) / 16.0 / 1.98e9 * 1e3;
        assert!((p.l1_ms - by_hand).abs() < 1e-9, "{} against {by_hand}", p.l1_ms);
        assert!((p.l1_ms - 2.3534).abs() < 1e-4, "{}", p.l1_ms);
        // At 4096 floats a row the 32 lines share one bank: 32 passes a request, and the data pipe is
        // the busier (the port's clocks unchanged).
        let pitched = predict(&t, &Workload { l1_wavefronts: 4.0 * 21_012_480.0, ..rows });
        assert!((pitched.l1_ms - 4.0 * 21_012_480.0 / 16.0 / 1.98e9 * 1e3).abs() < 1e-9, "{}", pitched.l1_ms);
        // Stores of 4 sectors a line (interleaved RGB, each sector in part): 5 clocks a line.
        let wide = predict(&t, &Workload { store_sectors: 4.0 * 33_619_968.0, ..rows });
        let by_hand = (7_316_000.0 + 5.0 * 33_619_968.0) / 16.0 / 1.98e9 * 1e3;
        assert!((wide.l1_ms - by_hand).abs() < 1e-9, "{} against {by_hand}", wide.l1_ms);
    }

    #[test]
    fn a_blocks_waits_idle_its_share_of_the_sm() {
        // 10 rounds of one 32-warp block per SM on 132 SMs; each warp 100 FP32 instructions, each
        // block a 50-instruction set-up, two barriers, no global loads. Issue: per warp 100 FP32 on
        // 128 lanes (25 clocks) or 100 + 50/32 instructions on 4 schedulers (25.39 clocks): 320 warps
        // per SM, 8125 clocks. Each block's set-up chain, 50 x 4 cycles, idles its share of the SM,
        // here all of it: 10 rounds x 200 more, 10,125 clocks at 1980 MHz = 5.114 us.
        let t = h200();
        let w = Workload {
            blocks: 1320,
            warps: 1320.0 * 32.0,
            insns: Mix { fp32: 100.0, ..Mix::default() },
            setup: Some(Mix { other: 50.0, ..Mix::default() }),
            barriers: 2.0,
            loads_global: false,
            resident_blocks: 1.0,
            ..sum_matrix(1, 1.0, 32.0)
        };
        let p = predict(&t, &w);
        assert!((p.compute_ms * 1e3 - 10_125.0 / 1980.0).abs() < 1e-3, "{}", p.compute_ms);
        // Two blocks per SM: 5 rounds, each block's wait idles half the SM: 8125 + 5 x 200 / 2.
        let two_blocks = Workload { resident_blocks: 2.0, ..w };
        let two = predict(&t, &two_blocks);
        assert!((two.compute_ms * 1e3 - 8625.0 / 1980.0).abs() < 1e-3, "{}", two.compute_ms);
        // Without barriers the warps do not wait together: the issue alone.
        let free = predict(&t, &Workload { barriers: 0.0, ..two_blocks });
        assert!((free.compute_ms * 1e3 - 8125.0 / 1980.0).abs() < 1e-3, "{}", free.compute_ms);
        // Without the set-up priced per block, every warp would run it: (150 / 4) x 320 clocks.
        let insns = Mix { fp32: 100.0, other: 50.0, ..Mix::default() };
        let per_warp = predict(&t, &Workload { setup: None, barriers: 0.0, insns, ..two_blocks });
        assert!((per_warp.compute_ms * 1e3 - 12_000.0 / 1980.0).abs() < 1e-3, "{}", per_warp.compute_ms);
    }

    #[test]
    fn a_grid_smaller_than_the_gpu_waits_for_its_own_chains() {
        // rgV's shape: 4 blocks of 32 warps (one thread per column of a 4096-wide image), each thread
        // walking its 4096-row column twice, every sample waiting for its own load (8192 round trips).
        // Only 4 SMs work, each warp waits its whole chain: 8192 x 404.04 ns (800 cycles at 1980 MHz),
        // plus DRAM moving the 128 warps' 64 MiB read and 64 MiB written once at 4220 GB/s (31.8 us), all
        // in one round (a block an SM, no barrier): 3.3417 ms. Its traffic: 2 x 4096 x 4096 floats read
        // (each warp a 128-byte line a request) and 4096 x 4096 written.
        let t = h200();
        let lines = 4096.0 * 4096.0 * 4.0 / 128.0;
        let w = Workload {
            blocks: 4,
            warps: 128.0,
            dram_read_bytes: 4096.0 * 4096.0 * 4.0,
            store_bytes: 4096.0 * 4096.0 * 4.0,
            l2_read_requests: 2.0 * lines,
            store_lines: lines,
            store_sectors: 4.0 * lines,
            atomic_sectors: 0.0,
            l1_load_bytes: 2.0 * 4096.0 * 4096.0 * 4.0,
            l1_wavefronts: 3.0 * lines,
            serial_loads: 8192.0,
            chain_s: 0.0,
            serial_latency_s: 0.0,
            dram_latency_factor: 1.0,
            resident_warps: 32.0,
            ..sum_matrix(1, 1.0, 32.0)
        };
        let p = predict(&t, &w);
        let by_hand = 8192.0 * 800.0 / 1980e6 + 2.0 * 4096.0 * 4096.0 * 4.0 / 4220e9;
        assert_eq!(p.bound, Bound::Latency);
        assert!((p.latency_ms * 1e-3 - by_hand).abs() < 1e-4 * by_hand, "{} against {by_hand}", p.latency_ms);
        // The L1 and the pipes of 4 SMs, not 132: 32 warps per SM take as long as 132 blocks of them
        // on 132 SMs, and the same L1 traffic takes 33 times as long on 4 SMs.
        let spread = predict(&t, &Workload { blocks: 132, warps: 132.0 * 32.0, ..w });
        assert!((p.compute_ms - spread.compute_ms).abs() < 1e-9 && p.compute_ms > 0.0);
        assert!((p.l1_ms - spread.l1_ms * 33.0).abs() < 1e-9 * p.l1_ms, "{} {}", p.l1_ms, spread.l1_ms);
    }

    #[test]
    fn no_warp_lives_shorter_than_its_chain() {
        // 2^20 blocks of 8 warps, 6 (48 warps) resident per SM, with a barrier: 2^23 / (132 x 48) =
        // 1324.0 rounds, each at least a chain of 10 us per warp (longer than a round trip).
        let (t, w) = (h200(), Workload { barriers: 1.0, resident_blocks: 6.0, ..sum_matrix(1 << 20, 8.0, 48.0) });
        let rounds = w.warps / (132.0 * 48.0);
        // Without global loads each round lasts the chain: 1324 x 10 us.
        let p = predict(&t, &Workload { chain_s: 10e-6, loads_global: false, ..w });
        assert!((p.latency_ms - rounds * 10e-3).abs() < 1e-9, "{}", p.latency_ms);
        // With them the chain is each block's wait in the DRAM network, barrier or not (section 39): at
        // least the chain and the slot's turnover every later round, at most those plus the SM's DRAM
        // share (6 blocks of 96 ns) and issue.
        let p = predict(&t, &Workload { chain_s: 10e-6, ..w });
        assert_eq!(p.bound, Bound::Latency);
        let g = t.block_gap_s();
        assert!(p.latency_ms * 1e-3 >= 10e-6 + (rounds - 1.0) * (10e-6 + g), "{}", p.latency_ms);
        assert!(p.latency_ms * 1e-3 <= rounds * (10e-6 + g + 1e-6), "{}", p.latency_ms);
        assert_eq!(predict(&t, &Workload { chain_s: 10e-6, barriers: 0.0, ..w }).latency_ms, p.latency_ms);
    }

    #[test]
    fn a_round_trip_over_a_warps_life() {
        // 2^23 warps of 8 on 132 SMs, 48 resident per SM (with a barrier: no turnover between rounds
        // to leave out): a warp stays time x 48 / (2^23 / 132).
        let (t, w) = (h200(), Workload { barriers: 1.0, resident_blocks: 6.0, ..sum_matrix(1 << 20, 8.0, 48.0) });
        let trip = round_trip_s(&t, &w, 48.0);
        let per_sm = w.warps / t.sms as f64;
        let lasting = |life: f64| Prediction {
            time_ms: life * per_sm / 48.0 * 1e3 + t.figures.launch_ms,
            bandwidth_ms: 0.0,
            l2_ms: 0.0,
            l1_ms: 0.0,
            latency_ms: 0.0,
            issue_ms: 0.0,
            compute_ms: 0.0,
            sync_ms: 0.0,
            bound: Bound::Compute,
        };
        // Four round trips long: a quarter; shorter than one (the latency term's own): 1.
        assert!((round_trip_share(&t, &w, &lasting(4.0 * trip)) - 0.25).abs() < 1e-9);
        assert_eq!(round_trip_share(&t, &w, &lasting(0.5 * trip)), 1.0);
        // Without barriers the slots stand empty for the turnover between rounds (1324 rounds of 6
        // blocks): the warps' life is the time less 1323 turnovers.
        let free = Workload { barriers: 0.0, ..w };
        let rounds = (1u64 << 20) as f64 / (132.0 * 6.0);
        let gaps = (rounds - 1.0) * t.block_gap_s() * 48.0 / per_sm;
        let share = round_trip_share(&t, &free, &lasting(4.0 * trip + gaps));
        assert!((share - 0.25).abs() < 1e-9, "{share}");
    }

    #[test]
    fn issue_residency_matches_ncu() {
        // ncu: (64,1) 27.2 % achieved = ~8.7 two-warp blocks resident of 32. A block lives one round trip
        // of a full SM: 404 ns + 132 x 64 x 256 B / 4220 GB/s = 0.92 us, at 12.5 blocks per us.
        let r = issue_resident_blocks(&h200(), &sum_matrix(1 << 22, 2.0, 54.0));
        assert!((r - 8.7).abs() < 3.0, "{r}");
        // A block whose warps' own chain takes 2 us lives at least that: 12.53 per us x 2 us.
        let long = Workload { chain_s: 2e-6, ..sum_matrix(1 << 22, 2.0, 54.0) };
        let r = issue_resident_blocks(&h200(), &long);
        assert!((r - 2.0 * h200().block_issue_rate() / 1e6).abs() < 1e-9, "{r}");
    }

    #[test]
    fn issue_waits_out_each_rounds_latency() {
        // 132 x 64 x 10 warps, 64 resident per SM: 10 rounds. Each warp issues 1000 FP32 instructions
        // (4 schedulers: 64 x 1000 / 4 = 16,000 clocks a round at 1.98 GHz) and waits 4 serial loads:
        // DRAM's (the database's H200: 404 ns), then 3 of 200 ns each (lines in L2): 1.004 us a round.
        let t = h200();
        let w = Workload {
            insns: Mix { fp32: 1000.0, ..Mix::default() },
            serial_loads: 4.0,
            serial_latency_s: 200e-9,
            ..sum_matrix(132 * 64 * 10 / 8, 8.0, 64.0)
        };
        let round = t.latency_s() + 3.0 * 200e-9;
        assert!((t.latency_s() - 404e-9).abs() < 1e-9);
        assert!((exposed_latency_s(&t, &w) - round).abs() < 1e-15);
        let issue = 10.0 * 16_000.0 / 1.98e9;
        let p = predict(&t, &w);
        // One block an SM: every round after the first also waits the slot's turnover (the database's
        // 360 clocks).
        let gap = 360.0 / 1.98e9;
        assert!((p.compute_ms - (issue + 10.0 * round + 9.0 * gap) * 1e3).abs() < 1e-9, "{}", p.compute_ms);
        // A kernel that loads nothing waits for nothing.
        let alone = predict(&t, &Workload { loads_global: false, ..w });
        assert!((alone.compute_ms - issue * 1e3).abs() < 1e-6, "{}", alone.compute_ms);
        // A block spread over rows waits 1.2 x DRAM's latency for its first load; the next three hit L2.
        let spread = Workload { dram_latency_factor: 1.2, ..w };
        assert!((exposed_latency_s(&t, &spread) - (1.2 * t.latency_s() + 3.0 * 200e-9)).abs() < 1e-15);
        // ... and every one of them where they all go to DRAM.
        let far = Workload { serial_latency_s: 0.0, ..spread };
        assert!((exposed_latency_s(&t, &far) - 4.0 * 1.2 * t.latency_s()).abs() < 1e-15);
    }

    #[test]
    fn blocks_out_of_step_cover_each_others_waits() {
        // 10 rounds of eight 8-warp blocks per SM (64 warps), one load each (the database H200: 404 ns)
        // and a 360-clock turnover (181.8 ns): Z + g = 585.8 ns.
        let t = h200();
        let gap = 360.0 / 1.98e9;
        assert!((t.block_gap_s() - gap).abs() < 1e-15);
        let w = |fp32: f64, barriers: f64| Workload {
            insns: Mix { fp32, ..Mix::default() },
            barriers,
            resident_blocks: 8.0,
            ..sum_matrix(132 * 8 * 10, 8.0, 64.0)
        };
        let (z, rounds) = (t.latency_s(), 10.0);
        // 1000 instructions a warp: 16,000 clocks of issue a round, 2000 (1.01 us) a block; the seven
        // other blocks' 7.07 us cover Z + g: only the first round waits.
        let long = w(1000.0, 0.0);
        let issue = issue_cycles(&t, &long) / 1.98e9;
        assert!((issue - 10.0 * 16_000.0 / 1.98e9).abs() < 1e-12);
        assert!((predict(&t, &long).compute_ms - (issue + z) * 1e3).abs() < 1e-9);
        // 10 instructions a warp: 160 clocks a round, 20 (10.1 ns) a block; each later round waits
        // Z + g less the other seven blocks' 70.7 ns.
        let short = w(10.0, 0.0);
        let issue = 10.0 * 160.0 / 1.98e9;
        let want = issue + z + (rounds - 1.0) * (z + gap - 7.0 * 20.0 / 1.98e9);
        let got = predict(&t, &short).compute_ms;
        assert!((got - want * 1e3).abs() < 1e-9, "{got} against {}", want * 1e3);
        // Barriers keep every round's warps together: each round waits Z, and no turnover is added.
        let met = w(10.0, 1.0);
        let want = issue + block_waits_s(&t, &met) + rounds * z;
        assert!((predict(&t, &met).compute_ms - want * 1e3).abs() < 1e-9);
        // A calibrated turnover replaces the arch's.
        let mut c = t.clone();
        c.figures.block_gap_ns = 250.0;
        assert!((c.block_gap_s() - 250e-9).abs() < 1e-18);
        let want = issue + z + (rounds - 1.0) * (z + 250e-9 - 7.0 * 20.0 / 1.98e9);
        assert!((predict(&c, &short).compute_ms - want * 1e3).abs() < 1e-9);
    }

    #[test]
    fn blocks_spread_over_rows_wait_longer() {
        // A made-up table: with rows 64 KiB apart, blocks reading 64 bytes a row take 1.2 x a one-row
        // block's time, 128 bytes 1.1 x, 4096 bytes (one row of 1024 floats) 1 x; with rows 4 KiB apart,
        // half as much more.
        let mut t = h200();
        assert_eq!(t.figures.row_stretch(64.0, 4096.0, 65536.0), 1.0, "the database has no table");
        let wide = vec![[64.0, 1.2], [128.0, 1.1], [4096.0, 1.0]];
        let narrow = vec![[64.0, 1.1], [128.0, 1.05], [4096.0, 1.0]];
        t.figures.row_spreads =
            vec![RowSpread { pitch_bytes: 65536.0, factors: wide }, RowSpread { pitch_bytes: 4096.0, factors: narrow }];
        let f = &t.figures;
        // A 32x32 block of one float a thread: 128 bytes a row, against 1024 x 4 in one row.
        assert!((f.row_stretch(128.0, 4096.0, 65536.0) - 1.1).abs() < 1e-12);
        assert!((f.row_stretch(128.0, 4096.0, 4096.0) - 1.05).abs() < 1e-12);
        // Rows 16 KiB apart, halfway in log pitch: 1.075.
        assert!((f.row_stretch(128.0, 4096.0, 16384.0) - 1.075).abs() < 1e-12);
        // Closer or farther than measured: the nearest pitch's.
        assert!((f.row_stretch(128.0, 4096.0, 1920.0) - 1.05).abs() < 1e-12);
        assert!((f.row_stretch(128.0, 4096.0, 1e9) - 1.1).abs() < 1e-12);
        // 16x16: 64 bytes a row against 1024 in one row, 1.2 over 1.1 - 0.1 x ln 8 / ln 32 = 1.04.
        let at_1024 = 1.1 - 0.1 * 8f64.ln() / 32f64.ln();
        assert!((f.row_stretch(64.0, 1024.0, 65536.0) - 1.2 / at_1024).abs() < 1e-12);
        // Halfway between 64 and 128 in log: 1.15.
        assert!((f.row_stretch(64.0 * 2f64.sqrt(), 4096.0, 65536.0) - 1.15).abs() < 1e-12);
        // Beyond the table: its ends; never below 1 (a block whose rows are longer than a one-row
        // block's of one float a thread: float4 loads).
        assert!((f.row_stretch(16.0, 1e6, 65536.0) - 1.2).abs() < 1e-12);
        assert_eq!(f.row_stretch(4096.0, 1024.0, 65536.0), 1.0);
    }

    #[test]
    fn a_blocks_warps_take_issue_and_l1_in_turn() {
        // 100 blocks of 32 warps an SM, each warp 400 instructions (100 clocks of the 4 schedulers)
        // and 110 L1 passes: 320,000 clocks of issue and 352,000 of L1 an SM, no other work.
        let t = h200();
        let blocks = 132 * 100;
        let warps = blocks as f64 * 32.0;
        let w = Workload {
            dram_read_bytes: 0.0,
            store_bytes: 0.0,
            l2_read_requests: 0.0,
            store_lines: 0.0,
            store_sectors: 0.0,
            atomic_sectors: 0.0,
            l1_load_bytes: 0.0,
            l1_wavefronts: warps * 110.0,
            insns: Mix { other: 400.0, ..Mix::default() },
            loads_global: false,
            ..sum_matrix(blocks, 32.0, 32.0)
        };
        let us = |cycles: f64| cycles / 1980.0;
        // One block an SM: its warps take the two in turn, so the sum.
        let one = predict(&t, &w);
        assert_eq!(one.bound, Bound::L1);
        assert!((one.l1_ms * 1e3 - us(672_000.0)).abs() < 1e-6, "{one:?}");
        assert!((one.compute_ms * 1e3 - us(320_000.0)).abs() < 1e-6, "{one:?}");
        // Four: the other three cover three quarters of one block's issue.
        let four = predict(&t, &Workload { resident_blocks: 4.0, ..w });
        assert!((four.l1_ms * 1e3 - us(352_000.0 + 80_000.0)).abs() < 1e-6, "{four:?}");
        // No more blocks an SM than the grid has: 2 an SM, whatever the occupancy allows (the same
        // work in 264 blocks of 50 times the instructions and passes).
        let big = Workload {
            blocks: 264,
            warps: 264.0 * 32.0,
            l1_wavefronts: 264.0 * 32.0 * 110.0 * 50.0,
            insns: Mix { other: 400.0 * 50.0, ..Mix::default() },
            resident_blocks: 4.0,
            ..w
        };
        let two = predict(&t, &big);
        assert!((two.l1_ms * 1e3 - us(352_000.0 + 160_000.0)).abs() < 1e-6, "{two:?}");
        // Issue the larger: it gains L1's share.
        let issue = predict(&t, &Workload { l1_wavefronts: warps * 50.0, ..w });
        assert_eq!(issue.bound, Bound::Compute);
        assert!((issue.compute_ms * 1e3 - us(320_000.0 + 160_000.0)).abs() < 1e-6, "{issue:?}");
        // Barriers: block_waits_s prices a block's serial phases; the terms stay apart.
        let synced = predict(&t, &Workload { barriers: 1.0, ..w });
        assert!((synced.l1_ms * 1e3 - us(352_000.0)).abs() < 1e-6, "{synced:?}");
    }

    #[test]
    fn the_busiest_pipe_sets_the_compute_time() {
        // 1000 warps per SM of 10 FP32 instructions on a Fermi SM (32 FP32 lanes: one warp instruction
        // per clock) take 10,000 clocks; with 4 SFU instructions too (4 lanes: 8 clocks each), 32,000.
        let fermi = arch((2, 0)).unwrap();
        let fp = Mix { fp32: 10.0, ..Mix::default() };
        assert_eq!(compute_cycles_per_sm(fermi, &fp, 1000.0), 10_000.0);
        let sfu = Mix { fp32: 10.0, sfu: 4.0, ..Mix::default() };
        assert_eq!(compute_cycles_per_sm(fermi, &sfu, 1000.0), 32_000.0);
        // On sm_90, 128 FP32 lanes take 4 warp instructions a clock, but the 4 schedulers issue 4 in
        // all: 10 FP32 and 10 integer instructions (64 lanes: 2 a clock) need 5 clocks of the integer
        // pipe and 5 issue slots per warp.
        let h = arch((9, 0)).unwrap();
        let mixed = Mix { fp32: 10.0, int: 10.0, ..Mix::default() };
        assert_eq!(compute_cycles_per_sm(h, &mixed, 1.0), 5.0);
    }
}
