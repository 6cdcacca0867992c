//! sumMatrixOnGPU2D (source 001): C = A + B over an NX x NY matrix, one element per thread.

use rayon::prelude::*;

use super::{Access, AccessKind, Arg, Buffer, Entry, Kernel, Module, Param, Thread, Tolerance, Work, grid_2d};
use crate::error::{Error, Result};
use crate::spec::Dim3;

/// The registry's line.
pub(super) const ENTRIES: &[Entry] = &[Entry {
    name: "sum-matrix",
    entry: "sumMatrixOnGPU2D",
    about: "C = A + B on an nx x ny float matrix (source 001)",
    params: &[(Param::Nx, 16384.0), (Param::Ny, 16384.0)],
    selftest: &[(Param::Nx, 1000.0), (Param::Ny, 777.0)],
    selftest_blocks: super::SELFTEST_2D,
    build: |s| Ok(Box::new(SumMatrix::new(s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
}];

/// The seed's matrix sum on an `nx` x `ny` matrix of floats.
#[derive(Clone, Debug)]
pub struct SumMatrix {
    nx: u32,
    ny: u32,
}

impl SumMatrix {
    /// A problem of `nx` x `ny` elements; the kernel indexes with 32-bit ints, so nx * ny must fit.
    pub fn new(nx: u32, ny: u32) -> Result<Self> {
        if nx == 0 || ny == 0 {
            return Err(Error::usage(format!("invalid matrix {nx}x{ny}: both sides must be at least 1")));
        }
        if nx as u64 * ny as u64 > i32::MAX as u64 || nx > i32::MAX as u32 || ny > i32::MAX as u32 {
            return Err(Error::usage(format!(
                "invalid matrix {nx}x{ny}: sumMatrixOnGPU2D indexes with 32-bit ints, so nx*ny must be < 2^31"
            )));
        }
        Ok(SumMatrix { nx, ny })
    }

    /// (nx, ny).
    pub fn size(&self) -> (u32, u32) {
        (self.nx, self.ny)
    }

    fn len(&self) -> usize {
        self.nx as usize * self.ny as usize
    }
}

impl Kernel for SumMatrix {
    fn name(&self) -> &str {
        "sum-matrix"
    }

    fn entry(&self) -> &str {
        "sumMatrixOnGPU2D"
    }

    fn module(&self) -> Module<'_> {
        Module::Embedded("sum_matrix")
    }

    fn problem(&self) -> String {
        format!("{}x{}", self.nx, self.ny)
    }

    fn buffers(&self) -> Vec<Buffer> {
        let len = self.len();
        vec![Buffer::input("A", len), Buffer::input("B", len), Buffer::output("C", len)]
    }

    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::I32(self.nx as i32), Arg::I32(self.ny as i32)]
    }

    fn grid(&self, block: Dim3) -> Dim3 {
        grid_2d(self.nx, self.ny, block)
    }

    fn work(&self) -> Work {
        let n = self.len() as u64;
        Work { bytes_read: 8 * n, bytes_written: 4 * n, flops: n }
    }

    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let (a, b) = (&inputs[0], &inputs[1]);
        let mut c = vec![0f32; a.len()];
        c.par_iter_mut().zip(a.par_iter().zip(b.par_iter())).for_each(|(c, (a, b))| *c = a + b);
        vec![c]
    }

    fn tolerance(&self) -> Tolerance {
        Tolerance::EXACT // one IEEE add, rounded to nearest on both sides: results are bit-identical
    }

    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let ix = t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64;
        let iy = t.block.y as u64 * t.dim.y as u64 + t.thread.y as u64;
        if ix < self.nx as u64 && iy < self.ny as u64 {
            element(iy * self.nx as u64 + ix, out);
        }
    }
}

/// A thread's accesses at matrix element `index`: A and B loaded, C stored.
pub(super) fn element(index: u64, out: &mut Vec<Access>) {
    for (insn, buffer, kind) in [(0, 0, AccessKind::Load), (1, 1, AccessKind::Load), (2, 2, AccessKind::Store)] {
        out.push(Access { insn, kind, buffer, index, byte: 0, bytes: 4 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_sizes_the_kernel_cannot_index() {
        assert!(SumMatrix::new(0, 4).is_err());
        assert!(SumMatrix::new(1 << 16, 1 << 16).is_err());
        assert!(SumMatrix::new(1 << 14, 1 << 14).is_ok());
    }

    #[test]
    fn reference_adds() {
        let k = SumMatrix::new(2, 2).unwrap();
        let c = k.reference(&[vec![1.0, 2.0, 3.0, 4.0], vec![0.5, 0.5, 0.5, -4.0]]);
        assert_eq!(c, vec![vec![1.5, 2.5, 3.5, 0.0]]);
    }

    #[test]
    fn out_of_range_threads_touch_nothing() {
        let k = SumMatrix::new(10, 10).unwrap();
        let mut v = Vec::new();
        let t = Thread { block: Dim3::new(0, 0, 1), thread: Dim3::new(10, 0, 1), dim: Dim3::new(16, 1, 1) };
        k.accesses(&t, &mut v);
        assert!(v.is_empty());
        let t = Thread { block: Dim3::new(0, 1, 1), thread: Dim3::new(3, 0, 1), dim: Dim3::new(16, 4, 1) };
        k.accesses(&t, &mut v);
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].index, 4 * 10 + 3);
    }
}
