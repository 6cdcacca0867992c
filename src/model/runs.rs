//! DRAM runs: the stretches of contiguous memory that the blocks running together read and write. DRAM
//! moves long runs at its full rate and short ones, scattered over its pages, more slowly (on an H100,
//! 64-byte runs of writes at 55 % of it: `calRuns`, docs/MODEL.md section 13). A transpose through a
//! 16-wide tile writes 64-byte runs; the blocks of a stream continue each other's runs.

use crate::kernels::{Access, AccessKind, Kernel, Thread};
use crate::model::memory::{block_of, thread_of};
use crate::spec::Dim3;

/// Threads walked at least: whole blocks, consecutive in the order the block scheduler starts them
/// (linear index, x fastest), from the start of the grid's middle row; two blocks at least, so that a
/// run one block leaves short can be seen continued by the next.
pub const THREADS: u64 = 1024;

/// Run lengths, bytes, of the sectors the walked blocks load and store; none where the runs are longer
/// than the walked blocks can show (they grow with the window).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Runs {
    /// Runs of loaded sectors.
    pub loads: Vec<u64>,
    /// Runs of stored sectors.
    pub stores: Vec<u64>,
}

/// The runs of `kernel`'s global traffic on `grid` x `block`.
pub fn dram_runs(kernel: &dyn Kernel, grid: Dim3, block: Dim3) -> Runs {
    let (total, threads) = (grid.volume(), block.volume());
    if total == 0 || threads == 0 {
        return Runs::default();
    }
    let window = THREADS.div_ceil(threads).max(2).min(total);
    let start = middle(grid, window);
    // Sectors per direction, and how many of them the first half of the blocks touched.
    let mut sectors: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut half = [0; 2];
    let mut acc = Vec::new();
    for b in start..start + window {
        if b == start + window.div_ceil(2) {
            half = [sectors[0].len(), sectors[1].len()];
        }
        let at = block_of(b, grid);
        for t in 0..threads {
            acc.clear();
            kernel.accesses(&Thread { block: at, thread: thread_of(t, block), dim: block }, &mut acc);
            for a in &acc {
                let dir = match a.kind {
                    AccessKind::Load => 0,
                    AccessKind::Store | AccessKind::Atomic | AccessKind::AtomicFold => 1,
                    _ => continue,
                };
                sectors[dir].extend(sectors_of(a));
            }
        }
    }
    // Runs that grow with the window are the window's, not the kernel's: the blocks after it continue
    // them (a stream's), and they count as long.
    let [loads, stores] = [0, 1].map(|d| {
        let first = runs_of(sectors[d][..half[d]].to_vec());
        let all = runs_of(std::mem::take(&mut sectors[d]));
        if mean(&all) > 1.25 * mean(&first) { Vec::new() } else { all }
    });
    Runs { loads, stores }
}

/// The first of `window` blocks from the first block of the grid's middle row (a run is not cut at the
/// row's end).
fn middle(grid: Dim3, window: u64) -> u64 {
    let (total, row) = (grid.volume(), grid.x.max(1) as u64);
    (total / row / 2 * row).min(total.saturating_sub(window))
}

/// How one block's loads lie along the rows of what they read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockRows {
    /// The mean run, bytes, of the sectors the block loads, its own (other blocks do not continue
    /// them): a 32x32 block reading one float per thread of a matrix runs 128 bytes along 32 rows.
    pub run: f64,
    /// The run a one-row block of its threads would load: threads x the mean bytes of a load.
    pub one_row: f64,
    /// Bytes from the start of one run to the next in the same buffer (the rows' pitch), the median
    /// over the block's runs; infinite where each buffer's loads make one run.
    pub pitch: f64,
}

/// The loads of the first block of the grid's middle row, for a block of more than one row (a one-row
/// block is calRows's yardstick); none for one that loads nothing from global memory.
pub fn block_rows(kernel: &dyn Kernel, grid: Dim3, block: Dim3) -> Option<BlockRows> {
    if block.y * block.z <= 1 || grid.volume() == 0 {
        return None;
    }
    let at = block_of(middle(grid, 1), grid);
    let (mut sectors, mut acc, mut bytes, mut loads) = (Vec::new(), Vec::new(), 0u64, 0u64);
    for t in 0..block.volume() {
        acc.clear();
        kernel.accesses(&Thread { block: at, thread: thread_of(t, block), dim: block }, &mut acc);
        for a in acc.iter().filter(|a| a.kind == AccessKind::Load) {
            sectors.extend(sectors_of(a));
            bytes += (a.bytes as u64).max(1);
            loads += 1;
        }
    }
    let runs = runs_at(sectors);
    let lengths: Vec<u64> = runs.iter().map(|r| r.1).collect();
    // Runs of one buffer (sector numbers share the bits above the buffer's offset).
    let mut gaps: Vec<u64> =
        runs.windows(2).filter(|w| w[0].0 >> 35 == w[1].0 >> 35).map(|w| (w[1].0 - w[0].0) * 32).collect();
    gaps.sort_unstable();
    (loads > 0).then(|| BlockRows {
        run: mean(&lengths),
        one_row: block.volume() as f64 * bytes as f64 / loads as f64,
        pitch: gaps.get(gaps.len() / 2).map_or(f64::INFINITY, |&g| g as f64),
    })
}

/// The 32-byte sectors `a` touches, numbered across buffers far apart.
fn sectors_of(a: &Access) -> std::ops::RangeInclusive<u64> {
    let lo = ((a.buffer as u64 + 1) << 40) + a.offset();
    let hi = lo + (a.bytes as u64).max(1) - 1;
    lo / 32..=hi / 32
}

/// Mean of run lengths (0 for none).
fn mean(runs: &[u64]) -> f64 {
    if runs.is_empty() { 0.0 } else { runs.iter().sum::<u64>() as f64 / runs.len() as f64 }
}

/// The lengths, bytes, of the runs of consecutive sectors in `s`.
fn runs_of(s: Vec<u64>) -> Vec<u64> {
    runs_at(s).into_iter().map(|r| r.1).collect()
}

/// The runs of consecutive sectors in `s`, in address order: (first sector, bytes).
fn runs_at(mut s: Vec<u64>) -> Vec<(u64, u64)> {
    s.sort_unstable();
    s.dedup();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let mut j = i + 1;
        while j < s.len() && s[j] == s[j - 1] + 1 {
            j += 1;
        }
        runs.push((s[i], (j - i) as u64 * 32));
        i = j;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{SumMatrix, Transpose, TransposeVariant as Variant};

    fn runs(kernel: &dyn Kernel, block: (u32, u32)) -> Runs {
        let block = Dim3::new(block.0, block.1, 1);
        dram_runs(kernel, kernel.grid(block), block)
    }

    fn transpose(v: Variant) -> Transpose {
        Transpose::new(v, 8192, 8192).unwrap()
    }

    #[test]
    fn a_16_wide_tile_writes_64_byte_runs_and_a_stream_long_ones() {
        // transposeL, 16x16 tiles of 8192 x 8192: four blocks (1024 threads) side by side in x read
        // 16 rows of 4 x 64 bytes, runs that the next blocks continue (two blocks: 128 bytes, four:
        // 256): long. They write 4 x 16 rows of 64 bytes each, every row a different one.
        let t = runs(&transpose(Variant::L), (16, 16));
        assert_eq!(t.loads, Vec::<u64>::new());
        assert_eq!(t.stores, vec![64; 64]);
        // The diagonal order: the blocks that run together read tiles of different rows too.
        let d = runs(&transpose(Variant::LS), (16, 16));
        assert_eq!(d.loads, vec![64; 64]);
        assert_eq!(d.stores, vec![64; 64]);
        // The 64x4 tiles of transposeShared: four blocks of 256 threads write 4 x 64 rows of 256 bytes.
        let s = runs(&transpose(Variant::Shared), (64, 4));
        assert_eq!(s.loads, Vec::<u64>::new());
        assert_eq!(s.stores, vec![256; 256]);
        // sum-matrix at 16x16: blocks side by side continue each other's rows in A, B and C.
        let m = runs(&SumMatrix::new(8192, 8192).unwrap(), (16, 16));
        assert_eq!(m, Runs::default());
    }

    #[test]
    fn a_block_of_many_rows_loads_short_runs() {
        let m = SumMatrix::new(8192, 8192).unwrap();
        let rows = |b: (u32, u32)| {
            let block = Dim3::new(b.0, b.1, 1);
            block_rows(&m, m.grid(block), block)
        };
        // 32x32: A and B each 32 rows of 128 bytes, 8192 floats apart; one row of 1024 threads would read
        // 4 KiB.
        assert_eq!(rows((32, 32)), Some(BlockRows { run: 128.0, one_row: 4096.0, pitch: 32768.0 }));
        // 16x16: 64 bytes a row against 1 KiB.
        assert_eq!(rows((16, 16)), Some(BlockRows { run: 64.0, one_row: 1024.0, pitch: 32768.0 }));
        // A one-row block is the yardstick.
        assert_eq!(rows((1024, 1)), None);
        // transposeShared's 64x4 tiles read 4 rows of 256 bytes (each thread 4 floats down its column).
        let s = transpose(Variant::Shared);
        let block = Dim3::new(64, 4, 1);
        let r = block_rows(&s, s.grid(block), block).unwrap();
        assert_eq!((r.run, r.one_row, r.pitch), (256.0, 1024.0, 32768.0));
        // A block as wide as its matrix: its rows make one run per buffer, and have no pitch.
        let narrow = SumMatrix::new(32, 1024).unwrap();
        let block = Dim3::new(32, 2, 1);
        let r = block_rows(&narrow, narrow.grid(block), block).unwrap();
        assert_eq!((r.run, r.pitch), (256.0, f64::INFINITY));
    }

    #[test]
    fn runs_are_counted_from_sorted_distinct_sectors() {
        assert_eq!(runs_of(vec![7, 3, 4, 5, 5, 9, 10]), vec![96, 32, 64]);
        assert_eq!(runs_of(Vec::new()), Vec::<u64>::new());
    }
}
