//! Per-device calibration: what the microbenchmarks of kernels/calibrate.cu measured (times and sizes,
//! straight from the backend) and how each measurement becomes one of the time model's [`Figures`].
//! Kept apart from the GPU code so that the arithmetic is tested on hand-worked numbers.

use serde::{Deserialize, Serialize};

use super::time::{Figures, RowSpread};

/// The raw results of one calibration run (every time a median of event-timed launches, ms).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    /// SMs of the device.
    pub sms: u32,
    /// SM clock the figures per clock are taken at, MHz.
    pub clock_mhz: u32,
    /// An empty kernel of one block, timed alone (launch overhead as CUDA events see it).
    pub launch_ms: f64,
    /// Empty blocks of 64 threads launched at once, and their time.
    pub empty_blocks: u64,
    /// Time of those blocks.
    pub empty_ms: f64,
    /// Empty blocks of 1024 threads, as many a round as an SM holds, at two lengths (rounds in `steps`
    /// and `more_steps`): the time from one block's end to its successor's start. Absent (zero) from
    /// calibrations made before it was measured (version 10).
    #[serde(default)]
    pub turnover: Chase,
    /// Dependent loads of the pointer chase, and their time.
    pub chase_steps: u64,
    /// Time of the chase.
    pub chase_ms: f64,
    /// The pointer chase within L1 (a few KiB, warm): steps and time at two lengths. Absent (zero) from
    /// calibrations made before it was measured.
    #[serde(default)]
    pub l1_chase: Chase,
    /// The pointer chase within L2 and beyond L1 (warm): steps and time at two lengths, as above.
    #[serde(default)]
    pub l2_chase: Chase,
    /// Bytes the DRAM read loaded from a buffer of 16 x L2, from DRAM (calReadBlocks since calibration
    /// version 9, calRead's one grid-stride wave in version 8, calRead over 4 x L2 before), and its time.
    pub dram_read_bytes: f64,
    /// Time of that read.
    pub dram_read_ms: f64,
    /// Time of the shorter read, of [`Measurements::dram_read_short_bytes`] from the start of the
    /// same buffer (0 in calibrations made before it was measured).
    #[serde(default)]
    pub dram_read_half_ms: f64,
    /// Bytes of that shorter read: an eighth of the buffer (absent, 0, in calibrations before version
    /// 8, whose shorter read was half of it).
    #[serde(default)]
    pub dram_read_short_bytes: f64,
    /// Bytes calL2Read loaded re-reading a quarter of L2 past L1, and its time.
    pub l2_bytes: f64,
    /// Time of that read.
    pub l2_ms: f64,
    /// Bytes calL1Read loaded, and its time.
    pub l1_bytes: f64,
    /// Time of calL1Read.
    pub l1_ms: f64,
    /// Bytes calSmemRead loaded from shared memory, and its time.
    pub smem_bytes: f64,
    /// Time of calSmemRead.
    pub smem_ms: f64,
    /// Stores of calPartialStore (one 4-byte word each, to a sector of its own line), and their time.
    pub partial_stores: f64,
    /// Time of calPartialStore.
    pub partial_ms: f64,
    /// calAtomics's runs: every warp adding to one line's 32 words over footprints of 1 to 2048 lines,
    /// the small ones at several places. Absent (empty) from calibrations made before it was measured.
    #[serde(default)]
    pub atomics: Vec<AtomicsPass>,
    /// calInflight's runs: DRAM reads with 1 to 64 warps per SM, one 512-byte warp load each in flight.
    /// Absent (empty) from calibrations made before it was measured.
    #[serde(default)]
    pub inflight: Vec<InflightRun>,
    /// calRuns's passes: a buffer read or written in runs of 32 to 256 bytes far apart, and whole.
    /// Absent (empty) from calibrations made before it was measured.
    #[serde(default)]
    pub runs: Vec<RunsPass>,
    /// calRows's reads: one matrix read by 1024-thread blocks of one row to 64, L2 flushed before each.
    /// Absent (empty) from calibrations made before it was measured.
    #[serde(default)]
    pub rows: Vec<RowsPass>,
    /// Bytes a device-to-device copy read and wrote, and its time.
    pub copy_bytes: f64,
    /// Time of the copy.
    pub copy_ms: f64,
    /// Wall time of the whole calibration, kernels and set-up, ms.
    pub wall_ms: f64,
}

/// A pointer chase timed at two lengths: `steps` dependent loads in `ms`, `more_steps` in `more_ms`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chase {
    /// Steps of the shorter run.
    pub steps: u64,
    /// Its time.
    pub ms: f64,
    /// Steps of the longer run.
    pub more_steps: u64,
    /// Its time.
    pub more_ms: f64,
}

/// A chase's time per step, ns: between its two lengths (the launch and the first pass's misses left
/// out); 0 when it was not measured or the longer run was not longer.
fn hop_ns(c: &Chase) -> f64 {
    if c.more_steps > c.steps && c.more_ms > c.ms {
        (c.more_ms - c.ms) * 1e6 / (c.more_steps - c.steps) as f64
    } else {
        0.0
    }
}

/// One run of calInflight: `bytes` read from DRAM in `ms`, and `more_bytes` in `more_ms`, with
/// `bytes_per_sm` in flight on every SM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InflightRun {
    /// Bytes in flight per SM (warps per SM x 512).
    pub bytes_per_sm: f64,
    /// Bytes read.
    pub bytes: f64,
    /// Time of the run.
    pub ms: f64,
    /// Bytes of the longer run (0 in calibrations made before it was measured).
    #[serde(default)]
    pub more_bytes: f64,
    /// Time of the longer run.
    #[serde(default)]
    pub more_ms: f64,
}

/// One run of calAtomics: `sectors` of atomic adds over a footprint of `lines` 128-byte lines, in `ms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AtomicsPass {
    /// Lines of the footprint.
    pub lines: f64,
    /// Where it starts in calAtomics's buffer, bytes.
    #[serde(default)]
    pub offset_bytes: f64,
    /// Sectors the adds update (4 per warp's add to a line's 32 words).
    pub sectors: f64,
    /// Time of the run.
    pub ms: f64,
}

/// The atomic unit's rate in one slice, sectors per ns, and the slices each footprint's atomics
/// proceed as if spread over, `[lines, slices]`: a footprint of one line sits in one slice, so its rate
/// is one slice's; a footprint's rate over that is its slices (where the slices slow each other, as
/// they do from 16 lines on, fewer than hold its lines). A footprint measured at several places takes
/// the median of their rates. `(0, [])` without a one-line run.
fn atomic_figures(passes: &[AtomicsPass], per_s: impl Fn(f64, f64) -> f64) -> (f64, Vec<[f64; 2]>) {
    let mut footprints: Vec<f64> = passes.iter().map(|p| p.lines).collect();
    footprints.sort_by(f64::total_cmp);
    footprints.dedup();
    let rate = |lines: f64| {
        let rates: Vec<f64> = passes.iter().filter(|p| p.lines == lines).map(|p| per_s(p.sectors, p.ms)).collect();
        crate::stats::median(&rates).unwrap_or(0.0)
    };
    let one = rate(1.0);
    if one <= 0.0 {
        return (0.0, Vec::new());
    }
    (one / 1e9, footprints.into_iter().map(|lines| [lines, rate(lines) / one]).collect())
}

/// One pass of calRuns: `bytes` read (or written) in runs of `run_bytes`, in `ms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunsPass {
    /// Bytes of each run (the whole buffer for the contiguous pass).
    pub run_bytes: f64,
    /// Written rather than read.
    pub write: bool,
    /// Bytes moved.
    pub bytes: f64,
    /// Time of the pass.
    pub ms: f64,
}

/// One read of calRows: blocks whose loads run `run_bytes` along each matrix row they touch (the
/// block's width x 4 bytes), rows `pitch_bytes` apart, the read taking `ms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowsPass {
    /// Bytes from one matrix row to the next.
    pub pitch_bytes: f64,
    /// Bytes of each row a block reads (its width x 4).
    pub run_bytes: f64,
    /// Time of the read.
    pub ms: f64,
}

/// At each pitch, the time of each calRows read over the one-row blocks' (the widest), less the
/// launch; none for a pitch whose one-row read took no time.
fn row_spreads(rows: &[RowsPass], work_s: impl Fn(f64) -> f64) -> Vec<RowSpread> {
    let mut pitches: Vec<f64> = rows.iter().map(|r| r.pitch_bytes).collect();
    pitches.sort_by(f64::total_cmp);
    pitches.dedup();
    pitches
        .into_iter()
        .filter_map(|pitch| {
            let at: Vec<&RowsPass> = rows.iter().filter(|r| r.pitch_bytes == pitch).collect();
            let widest = at.iter().max_by(|a, b| a.run_bytes.total_cmp(&b.run_bytes))?;
            if widest.ms <= 0.0 {
                return None;
            }
            let base = work_s(widest.ms);
            let mut factors: Vec<[f64; 2]> = at.iter().map(|r| [r.run_bytes, work_s(r.ms) / base]).collect();
            factors.sort_by(|a, b| a[0].total_cmp(&b[0]));
            Some(RowSpread { pitch_bytes: pitch, factors })
        })
        .collect()
}

/// DRAM's rate for runs of each length over a contiguous pass's, reads and writes:
/// `[run bytes, read, write]`, ascending, from calRuns's passes (the longest run is the contiguous pass,
/// the yardstick, not a row).
fn run_efficiency(passes: &[RunsPass], per_s: impl Fn(f64, f64) -> f64) -> Vec<[f64; 3]> {
    let rate = |write: bool, run: f64| {
        passes.iter().find(|p| p.write == write && p.run_bytes == run).map(|p| per_s(p.bytes, p.ms))
    };
    let longest = passes.iter().map(|p| p.run_bytes).fold(0.0, f64::max);
    let mut runs: Vec<f64> = passes.iter().map(|p| p.run_bytes).collect();
    runs.sort_by(f64::total_cmp);
    runs.dedup();
    runs.iter()
        .filter(|&&run| run < longest)
        .filter_map(|&run| {
            let ratio = |w| Some(rate(w, run)? / rate(w, longest)?);
            Some([run, ratio(false)?, ratio(true)?])
        })
        .collect()
}

/// The figures `m` gives; `source` says where they come from.
///
/// - launch overhead is the empty kernel's time. Every other microbenchmark's time less one launch
///   is its work's (the time model adds the launch back to every prediction); a time less than twice
///   the launch is halved instead, so that a figure never comes from noise around the launch;
/// - bandwidths are bytes over that time; DRAM's read bandwidth, and each point of the read curve, is
///   the rate between two lengths of the same read (the extra bytes over the extra time), so that
///   neither the launch nor the ramp at either end counts (docs/MODEL.md section 14); the block rate
///   is the empty blocks per SM over it; L2's input rate counts two cycles per store of
///   calPartialStore (a line request and its one sector);
/// - the DRAM latency is the chase's time per step;
/// - a block slot's turnover (its block's end to its successor's start) is the empty 1024-thread
///   blocks' time per round between two lengths;
/// - the read curve is calInflight's bandwidth at each number of bytes in flight per SM;
/// - the run efficiencies are calRuns's rates over its contiguous pass's, per direction;
/// - the row spread is each calRows read's time over the one-row blocks' at its pitch (both less the
///   launch);
/// - the atomic unit's rate is calAtomics's sectors over the one-line run's time (one slice), and
///   a footprint's slices its run's rate over that;
/// - per-clock figures divide by SMs and the clock;
/// - the copy bandwidth is the copy's bytes over its whole time, as the sweep's copy yardstick.
pub fn figures(m: &Measurements, source: String) -> Figures {
    let work_s = |ms: f64| (ms - m.launch_ms).max(ms * 0.5) * 1e-3;
    let per_s = |bytes: f64, ms: f64| if ms > 0.0 { bytes / work_s(ms) } else { 0.0 };
    // Between two lengths of a read, when both were measured and the longer took longer.
    let between = |bytes: f64, ms: f64, more_bytes: f64, more_ms: f64| {
        if more_bytes > bytes && more_ms > ms && ms > 0.0 {
            (more_bytes - bytes) / ((more_ms - ms) * 1e-3)
        } else {
            per_s(bytes.max(more_bytes), if more_bytes > bytes { more_ms } else { ms })
        }
    };
    let sms = m.sms.max(1) as f64;
    let clock = m.clock_mhz.max(1) as f64 * 1e6;
    let block_secs = work_s(m.empty_ms);
    let (atomic_sectors_per_ns, atomic_spread) = atomic_figures(&m.atomics, per_s);
    let short_read = if m.dram_read_short_bytes > 0.0 { m.dram_read_short_bytes } else { m.dram_read_bytes / 2.0 };
    Figures {
        copy_gbs: if m.copy_ms > 0.0 { m.copy_bytes / (m.copy_ms * 1e-3) / 1e9 } else { 0.0 },
        read_gbs: between(short_read, m.dram_read_half_ms, m.dram_read_bytes, m.dram_read_ms) / 1e9,
        dram_latency_ns: if m.chase_steps > 0 { work_s(m.chase_ms) * 1e9 / m.chase_steps as f64 } else { 0.0 },
        l1_latency_ns: hop_ns(&m.l1_chase),
        l2_latency_ns: hop_ns(&m.l2_chase),
        read_curve: m
            .inflight
            .iter()
            .map(|r| [r.bytes_per_sm, between(r.bytes, r.ms, r.more_bytes, r.more_ms) / 1e9])
            .collect(),
        run_efficiency: run_efficiency(&m.runs, per_s),
        row_spreads: row_spreads(&m.rows, work_s),
        l2_gbs: per_s(m.l2_bytes, m.l2_ms) / 1e9,
        // Each store is a line request carrying one sector: two cycles of L2's input port.
        l2_write_cycles_per_ns: 2.0 * per_s(m.partial_stores, m.partial_ms) / 1e9,
        atomic_sectors_per_ns,
        atomic_spread,
        l1_bytes_per_clk: per_s(m.l1_bytes, m.l1_ms) / (sms * clock),
        smem_bytes_per_clk: per_s(m.smem_bytes, m.smem_ms) / (sms * clock),
        blocks_per_us_per_sm: if block_secs > 0.0 { m.empty_blocks as f64 / sms / (block_secs * 1e6) } else { 0.0 },
        block_gap_ns: hop_ns(&m.turnover),
        launch_ms: m.launch_ms,
        source,
    }
}

/// What is wrong with a calibration's figures, if anything (a figure that is not a positive finite
/// number means a microbenchmark did not run as intended; the model then keeps the database's).
pub fn check(f: &Figures) -> Result<(), String> {
    let all = [
        ("copy bandwidth", f.copy_gbs),
        ("DRAM read bandwidth", f.read_gbs),
        ("DRAM latency", f.dram_latency_ns),
        ("L2 bandwidth", f.l2_gbs),
        ("L2 input rate", f.l2_write_cycles_per_ns),
        ("L1 bandwidth", f.l1_bytes_per_clk),
        ("shared-memory bandwidth", f.smem_bytes_per_clk),
        ("block rate", f.blocks_per_us_per_sm),
        ("launch overhead", f.launch_ms),
    ];
    let curve = f.read_curve.iter().map(|p| ("DRAM read bandwidth in flight", p[1]));
    let runs = f.run_efficiency.iter().flat_map(|p| [("DRAM run efficiency", p[1]), ("DRAM run efficiency", p[2])]);
    let rows = f.row_spreads.iter().flat_map(|r| r.factors.iter().map(|p| ("DRAM row spread", p[1])));
    let rows = rows.chain(f.atomic_spread.iter().map(|p| ("L2 atomic spread", p[1])));
    match all.into_iter().chain(curve).chain(runs).chain(rows).find(|(_, v)| !(v.is_finite() && *v > 0.0)) {
        Some((name, v)) => Err(format!("calibration gave a {name} of {v}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figures worked out by hand for a made-up device of 100 SMs at 1000 MHz.
    #[test]
    fn measurements_become_figures() {
        let m = Measurements {
            sms: 100,
            clock_mhz: 1000,
            launch_ms: 0.002,
            // 1,000,000 blocks in 0.102 ms, less 0.002 of launch: 10,000 per SM in 100 us = 100 per us.
            empty_blocks: 1_000_000,
            empty_ms: 0.102,
            // 100 rounds of 1024-thread blocks more in 0.025 ms more: 250 ns from a block's end to its
            // successor's start.
            turnover: Chase { steps: 50, ms: 0.0145, more_steps: 150, more_ms: 0.0395 },
            // Each time below is its work's plus the 0.002 ms launch.
            // 1000 dependent loads in 0.5 ms: 500 ns each.
            chase_steps: 1000,
            chase_ms: 0.502,
            // The hit chases keep the first pass's misses and the launch in both lengths: 4096 more steps
            // in 0.12288 ms more = 30 ns each; 8192 more in 1.6384 ms more = 200 ns each.
            l1_chase: Chase { steps: 4096, ms: 0.150, more_steps: 8192, more_ms: 0.27288 },
            l2_chase: Chase { steps: 8192, ms: 2.0, more_steps: 16384, more_ms: 3.6384 },
            // DRAM reads also pay a ramp (here 0.010 ms) that the rate between two lengths leaves out:
            // 3 GB in 1.012 ms and 1.5 GB in 0.512 ms: 1.5 GB more in 0.5 ms more = 3000 GB/s.
            // (A calibration before version 8, whose shorter read was half the buffer.)
            dram_read_bytes: 3e9,
            dram_read_ms: 1.012,
            dram_read_half_ms: 0.512,
            dram_read_short_bytes: 0.0,
            // 1 GB in 1 ms = 1000 GB/s.
            l2_bytes: 1e9,
            l2_ms: 1.002,
            // 12.8 GB in 1 ms over 100 SMs x 1e9 clocks/s = 128 B per clock per SM.
            l1_bytes: 12.8e9,
            l1_ms: 1.002,
            smem_bytes: 25.6e9,
            smem_ms: 2.002,
            // 3.2e7 stores in 1 ms, each a request and a sector: 64 input cycles per ns.
            partial_stores: 3.2e7,
            partial_ms: 1.002,
            // Atomics: 1e6 sectors in 1 ms over one line (one slice: 1 sector per ns), in 0.125 ms over
            // 128 lines (8 slices).
            // 8 lines at three places: 0.25, 0.5 and 0.25 ms, the median rate 4 slices'.
            atomics: vec![
                AtomicsPass { lines: 8.0, offset_bytes: 0.0, sectors: 1e6, ms: 0.252 },
                AtomicsPass { lines: 8.0, offset_bytes: 131072.0, sectors: 1e6, ms: 0.502 },
                AtomicsPass { lines: 8.0, offset_bytes: 262144.0, sectors: 1e6, ms: 0.252 },
                AtomicsPass { lines: 1.0, offset_bytes: 0.0, sectors: 1e6, ms: 1.002 },
                AtomicsPass { lines: 128.0, offset_bytes: 0.0, sectors: 1e6, ms: 0.127 },
            ],
            // With 512 bytes in flight per SM, 0.2 GB more in 1 ms more = 200 GB/s; with 2048, 800 GB/s.
            inflight: vec![
                InflightRun { bytes_per_sm: 512.0, bytes: 0.2e9, ms: 1.01, more_bytes: 0.4e9, more_ms: 2.01 },
                InflightRun { bytes_per_sm: 2048.0, bytes: 0.8e9, ms: 1.01, more_bytes: 1.6e9, more_ms: 2.01 },
            ],
            // Runs of 64 bytes: read 0.8 GB and written 0.5 GB in 1 ms; the contiguous passes 1 GB each:
            // efficiencies 0.8 and 0.5.
            runs: vec![
                RunsPass { run_bytes: 64.0, write: false, bytes: 0.8e9, ms: 1.002 },
                RunsPass { run_bytes: 64.0, write: true, bytes: 0.5e9, ms: 1.002 },
                RunsPass { run_bytes: 1e9, write: false, bytes: 1e9, ms: 1.002 },
                RunsPass { run_bytes: 1e9, write: true, bytes: 1e9, ms: 1.002 },
            ],
            // A matrix of rows 64 KiB apart read by blocks of 4096, 128 and 64 bytes a row: 1, 1.2 and
            // 1.3 ms of work; of rows 4 KiB apart, by one-row blocks and 64-byte ones: 1 and 1.1.
            rows: vec![
                RowsPass { pitch_bytes: 65536.0, run_bytes: 128.0, ms: 1.202 },
                RowsPass { pitch_bytes: 65536.0, run_bytes: 4096.0, ms: 1.002 },
                RowsPass { pitch_bytes: 65536.0, run_bytes: 64.0, ms: 1.302 },
                RowsPass { pitch_bytes: 4096.0, run_bytes: 4096.0, ms: 1.002 },
                RowsPass { pitch_bytes: 4096.0, run_bytes: 64.0, ms: 1.102 },
            ],
            // The copy is the sweep's yardstick, taken whole: 2 GB in 1 ms.
            copy_bytes: 2e9,
            copy_ms: 1.0,
            wall_ms: 40.0,
        };
        let f = figures(&m, "test".into());
        let close = |got: &[[f64; 2]], want: &[[f64; 2]]| {
            got.len() == want.len()
                && got.iter().zip(want).all(|(g, w)| (g[0] - w[0]).abs() < 1e-12 && (g[1] - w[1]).abs() < 1e-12)
        };
        assert!((f.copy_gbs - 2000.0).abs() < 1e-9);
        assert!((f.read_gbs - 3000.0).abs() < 1e-9);
        assert!((f.l2_gbs - 1000.0).abs() < 1e-9);
        assert!((f.l1_bytes_per_clk - 128.0).abs() < 1e-9);
        assert!((f.smem_bytes_per_clk - 128.0).abs() < 1e-9);
        assert!((f.l2_write_cycles_per_ns - 64.0).abs() < 1e-9);
        assert!((f.blocks_per_us_per_sm - 100.0).abs() < 1e-9);
        assert!((f.dram_latency_ns - 500.0).abs() < 1e-9);
        assert!((f.block_gap_ns - 250.0).abs() < 1e-9, "{}", f.block_gap_ns);
        assert!((f.atomic_sectors_per_ns - 1.0).abs() < 1e-9, "{}", f.atomic_sectors_per_ns);
        assert!(close(&f.atomic_spread, &[[1.0, 1.0], [8.0, 4.0], [128.0, 8.0]]), "{:?}", f.atomic_spread);
        // No one-line run (a calibration before version 11): not measured.
        let no_atomics = Measurements { atomics: m.atomics[..1].to_vec(), ..m.clone() };
        let g = figures(&no_atomics, "test".into());
        assert_eq!((g.atomic_sectors_per_ns, g.atomic_spread.len()), (0.0, 0));
        // A calibration before version 10 has no turnover: 0, which the model reads as the arch's.
        let mut v9 = serde_json::to_value(&m).unwrap();
        v9.as_object_mut().unwrap().remove("turnover");
        let v9: Measurements = serde_json::from_value(v9).unwrap();
        assert_eq!(figures(&v9, "test".into()).block_gap_ns, 0.0);
        assert!((f.l1_latency_ns - 30.0).abs() < 1e-6, "{}", f.l1_latency_ns);
        assert!((f.l2_latency_ns - 200.0).abs() < 1e-6, "{}", f.l2_latency_ns);
        // Not measured (an older calibration), or a longer run that was not longer: 0, the database's.
        assert_eq!(hop_ns(&Chase::default()), 0.0);
        assert_eq!(hop_ns(&Chase { steps: 10, ms: 1.0, more_steps: 20, more_ms: 0.9 }), 0.0);
        assert_eq!(f.read_curve.len(), 2);
        assert!((f.read_curve[0][0] - 512.0).abs() < 1e-9 && (f.read_curve[0][1] - 200.0).abs() < 1e-9);
        assert!((f.read_curve[1][0] - 2048.0).abs() < 1e-9 && (f.read_curve[1][1] - 800.0).abs() < 1e-9);
        assert_eq!(f.run_efficiency.len(), 1);
        assert!((f.run_efficiency[0][1] - 0.8).abs() < 1e-9 && (f.run_efficiency[0][2] - 0.5).abs() < 1e-9);
        assert_eq!(f.row_spreads.len(), 2);
        let (narrow, wide) = (&f.row_spreads[0], &f.row_spreads[1]);
        assert_eq!((narrow.pitch_bytes, wide.pitch_bytes), (4096.0, 65536.0));
        assert!(close(&wide.factors, &[[64.0, 1.3], [128.0, 1.2], [4096.0, 1.0]]), "{wide:?}");
        assert!(close(&narrow.factors, &[[64.0, 1.1], [4096.0, 1.0]]), "{narrow:?}");
        assert!(row_spreads(&[], |ms| ms).is_empty());
        // A report calibrated at version 6 carries one pitch's table as `row_spread`: read, without it.
        let mut v6 = serde_json::to_value(&f).unwrap();
        v6.as_object_mut().unwrap().remove("row_spreads");
        v6["row_spread"] = serde_json::json!([[64.0, 1.2], [4096.0, 1.0]]);
        let read: Figures = serde_json::from_value(v6).unwrap();
        assert!(read.row_spreads.is_empty() && read.copy_gbs == f.copy_gbs);
        assert!(check(&f).is_ok());
        // A time within twice the launch is halved rather than less the launch: 1 GB in 0.003 ms
        // counts as 0.0015 ms.
        let short = figures(&Measurements { l2_ms: 0.003, ..m.clone() }, "test".into());
        assert!((short.l2_gbs - 1e9 / 0.0015e-3 / 1e9).abs() < 1e-6, "{}", short.l2_gbs);
        // A calibration from before the second lengths were measured: the whole read less the launch.
        let old = figures(
            &Measurements {
                dram_read_half_ms: 0.0,
                inflight: vec![InflightRun { more_bytes: 0.0, more_ms: 0.0, ..m.inflight[0].clone() }],
                ..m.clone()
            },
            "test".into(),
        );
        assert!((old.read_gbs - 3e9 / 1.010e-3 / 1e9).abs() < 1e-6, "{}", old.read_gbs);
        // Version 8: an eighth of the buffer, 0.375 GB in 0.137 ms: 2.625 GB more in 0.875 ms more.
        let eighth = figures(
            &Measurements { dram_read_short_bytes: 0.375e9, dram_read_half_ms: 0.137, ..m.clone() },
            "test".into(),
        );
        assert!((eighth.read_gbs - 3000.0).abs() < 1e-6, "{}", eighth.read_gbs);
        assert!((old.read_curve[0][1] - 0.2e9 / 1.008e-3 / 1e9).abs() < 1e-6, "{:?}", old.read_curve);
        let no_run = Figures { read_curve: vec![[512.0, 0.0]], ..f.clone() };
        assert_eq!(check(&no_run).unwrap_err(), "calibration gave a DRAM read bandwidth in flight of 0");
        let bad = Figures { l2_gbs: f64::NAN, ..f };
        assert_eq!(check(&bad).unwrap_err(), "calibration gave a L2 bandwidth of NaN");
    }
}
