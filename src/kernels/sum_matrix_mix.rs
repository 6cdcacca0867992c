//! sumMatrixOnGPUMix (the course of source 001): C = A + B over an NX x NY matrix, a 2D grid of 1D
//! blocks: block.x threads along a row, one grid row per matrix row.

use super::{Access, Arg, Buffer, Entry, Kernel, Module, Param, Sizes, SumMatrix, Thread, Tolerance, Work};
use crate::error::Result;
use crate::spec::Dim3;

/// The registry's line.
pub(super) const ENTRIES: &[Entry] = &[Entry {
    name: "sum-matrix-mix",
    entry: "sumMatrixOnGPUMix",
    about: "C = A + B on an nx x ny float matrix, 2D grid of 1D blocks, one grid row per matrix row (source 001's course)",
    params: &[(Param::Nx, 16384.0), (Param::Ny, 16384.0)],
    selftest: &[(Param::Nx, 1000.0), (Param::Ny, 77.0)],
    selftest_blocks: super::SELFTEST_1D,
    build: |s: &Sizes| Ok(Box::new(SumMatrixMix::new(s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
}];

/// The matrix sum with 1D blocks on an `nx` x `ny` matrix of floats.
#[derive(Clone, Debug)]
pub struct SumMatrixMix {
    /// The same problem as sumMatrixOnGPU2D's (sizes, buffers, reference, work).
    sum: SumMatrix,
}

impl SumMatrixMix {
    /// A problem of `nx` x `ny` elements (the limits of [`SumMatrix::new`]).
    pub fn new(nx: u32, ny: u32) -> Result<Self> {
        Ok(SumMatrixMix { sum: SumMatrix::new(nx, ny)? })
    }
}

impl Kernel for SumMatrixMix {
    fn name(&self) -> &str {
        ENTRIES[0].name
    }

    fn entry(&self) -> &str {
        ENTRIES[0].entry
    }

    fn module(&self) -> Module<'_> {
        Module::Embedded("sum_matrix_mix")
    }

    fn problem(&self) -> String {
        self.sum.problem()
    }

    fn buffers(&self) -> Vec<Buffer> {
        self.sum.buffers()
    }

    fn args(&self) -> Vec<Arg> {
        self.sum.args()
    }

    /// `((nx + bx - 1) / bx, ny)`: a grid row per matrix row.
    fn grid(&self, block: Dim3) -> Dim3 {
        let (nx, ny) = self.sum.size();
        Dim3::new(if block.x == 0 { 0 } else { nx.div_ceil(block.x) }, ny, 1)
    }

    fn work(&self) -> Work {
        self.sum.work()
    }

    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        self.sum.reference(inputs)
    }

    fn tolerance(&self) -> Tolerance {
        self.sum.tolerance()
    }

    fn check_block(&self, block: Dim3) -> Option<String> {
        (block.y != 1 || block.z != 1)
            .then(|| format!("invalid configuration: sumMatrixOnGPUMix takes 1D blocks BX x 1, not {block}"))
    }

    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let (nx, ny) = self.sum.size();
        let ix = t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64;
        let iy = t.block.y as u64;
        if ix < nx as u64 && iy < ny as u64 {
            super::sum_matrix::element(iy * nx as u64 + ix, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_grid_row_per_matrix_row() {
        let k = SumMatrixMix::new(1000, 77).unwrap();
        assert_eq!(k.grid(Dim3::new(256, 1, 1)), Dim3::new(4, 77, 1));
        assert!(k.check_block(Dim3::new(32, 2, 1)).is_some());
        assert!(k.check_block(Dim3::new(1000, 1, 1)).is_none());
    }

    #[test]
    fn each_thread_of_a_row_block_touches_its_element() {
        let k = SumMatrixMix::new(100, 10).unwrap();
        let mut v = Vec::new();
        // Block (1, 3) of 64 threads: thread 5 is element (69, 3).
        let t = Thread { block: Dim3::new(1, 3, 1), thread: Dim3::new(5, 0, 1), dim: Dim3::new(64, 1, 1) };
        k.accesses(&t, &mut v);
        assert_eq!(v.len(), 3);
        assert!(v.iter().all(|a| a.index == 3 * 100 + 69));
        // Thread 40 of block 1 is column 104: past the row's end, it touches nothing.
        v.clear();
        let t = Thread { thread: Dim3::new(40, 0, 1), ..t };
        k.accesses(&t, &mut v);
        assert!(v.is_empty());
    }

    #[test]
    fn the_whole_matrix_is_covered_once() {
        let k = SumMatrixMix::new(300, 7).unwrap();
        let block = Dim3::new(128, 1, 1);
        let grid = k.grid(block);
        let mut hits = vec![0u32; 300 * 7];
        let mut v = Vec::new();
        for by in 0..grid.y {
            for bx in 0..grid.x {
                for tx in 0..block.x {
                    v.clear();
                    let t = Thread { block: Dim3::new(bx, by, 0), thread: Dim3::new(tx, 0, 0), dim: block };
                    k.accesses(&t, &mut v);
                    if let Some(a) = v.first() {
                        hits[a.index as usize] += 1;
                    }
                }
            }
        }
        assert!(hits.iter().all(|&h| h == 1));
    }
}
