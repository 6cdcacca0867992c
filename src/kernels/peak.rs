//! Source 000's peak benchmarks: copy kernels (one float per thread, one float4, four float4 in flight)
//! and MAD-N kernels (the copy plus N dependent multiply-adds per element). 1D: block BX x 1.

use rayon::prelude::*;

use super::{Access, AccessKind, Arg, Buffer, Entry, Kernel, Module, Param, Thread, Tolerance, Work};
use crate::error::{Error, Result};
use crate::spec::Dim3;

/// The registry's lines: the copies and the MAD kernel, on nx x ny floats (1D blocks).
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        name: "copy",
        entry: "copyFloat",
        about: "copy, one float per thread (source 000's peak); 1D blocks",
        build: |s| Ok(Box::new(Copy::new(CopyKind::Float, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
    Entry {
        name: "copy-float4",
        entry: "copyFloat4",
        about: "copy, one float4 per thread; 1D blocks",
        build: |s| Ok(Box::new(Copy::new(CopyKind::Float4, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
    Entry {
        name: "copy-float4x4",
        entry: "copyFloat4x4",
        about: "copy, four float4 per thread in flight; 1D blocks",
        build: |s| Ok(Box::new(Copy::new(CopyKind::Float4x4, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
    Entry {
        name: "mad",
        entry: "mad24",
        about: "copy + N dependent multiply-adds per element, --n 0|3|6|12|24|48|96 (source 000)",
        params: &[(Param::Nx, 8192.0), (Param::Ny, 8192.0), (Param::N, 24.0)],
        selftest: &[(Param::Nx, 1000.0), (Param::Ny, 772.0), (Param::N, 24.0)],
        build: |s| Ok(Box::new(Mad::new(s.u32(Param::N)?, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
];

/// The copy variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyKind {
    /// `copyFloat`: one float per thread.
    Float,
    /// `copyFloat4`: one float4 per thread.
    Float4,
    /// `copyFloat4x4`: four float4 per thread, strided by the grid.
    Float4x4,
}

/// MAD counts the seed's peak benchmark uses (and kernels/peak.cu instantiates).
pub const MAD_COUNTS: &[u32] = &[0, 3, 6, 12, 24, 48, 96];
/// The MAD constants (exact in binary: the CPU and GPU results match bit for bit with FMA).
const MAD_A: f32 = 0.999_023_44;
const MAD_B: f32 = 0.000_976_562_5;

fn check_n(nx: u32, ny: u32, multiple: u64) -> Result<u64> {
    let n = nx as u64 * ny as u64;
    if n == 0 || n > i32::MAX as u64 {
        return Err(Error::usage(format!("invalid size {nx}x{ny}: 1 to 2^31-1 elements (the kernels index with int)")));
    }
    if !n.is_multiple_of(multiple) {
        return Err(Error::usage(format!("invalid size {nx}x{ny}: the float4 copies need a multiple of 4 elements")));
    }
    Ok(n)
}

fn one_d(block: Dim3) -> Option<String> {
    (block.y != 1 || block.z != 1)
        .then(|| format!("invalid configuration: a 1D kernel takes blocks BX x 1, not {block}"))
}

fn io(n: usize) -> Vec<Buffer> {
    vec![Buffer::input("in", n), Buffer::output("out", n)]
}

/// A copy of `n` floats.
#[derive(Clone, Debug)]
pub struct Copy {
    kind: CopyKind,
    nx: u32,
    ny: u32,
    n: u64,
}

impl Copy {
    /// A copy of an `nx` x `ny` image of floats.
    pub fn new(kind: CopyKind, nx: u32, ny: u32) -> Result<Self> {
        let n = check_n(nx, ny, if kind == CopyKind::Float { 1 } else { 4 })?;
        Ok(Copy { kind, nx, ny, n })
    }

    /// Units (floats or float4s) the kernel indexes.
    fn units(&self) -> u64 {
        if self.kind == CopyKind::Float { self.n } else { self.n / 4 }
    }
}

impl CopyKind {
    /// Every copy kernel.
    pub const ALL: [CopyKind; 3] = [CopyKind::Float, CopyKind::Float4, CopyKind::Float4x4];

    /// Its PTX entry (what records name it by).
    pub fn entry(self) -> &'static str {
        match self {
            CopyKind::Float => "copyFloat",
            CopyKind::Float4 => "copyFloat4",
            CopyKind::Float4x4 => "copyFloat4x4",
        }
    }

    /// Whether a record's kernel (`entry`) is one of the copy kernels: the yardstick of `peak` and
    /// `transpose --bench`.
    pub fn is_copy(entry: &str) -> bool {
        CopyKind::ALL.iter().any(|k| k.entry() == entry)
    }
}

impl Kernel for Copy {
    fn name(&self) -> &str {
        match self.kind {
            CopyKind::Float => "copy",
            CopyKind::Float4 => "copy-float4",
            CopyKind::Float4x4 => "copy-float4x4",
        }
    }
    fn entry(&self) -> &str {
        self.kind.entry()
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("peak")
    }
    fn problem(&self) -> String {
        format!("{}x{}", self.nx, self.ny)
    }
    fn buffers(&self) -> Vec<Buffer> {
        io(self.n as usize)
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.units() as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        let per_thread = if self.kind == CopyKind::Float4x4 { 4 } else { 1 };
        let x = if block.x == 0 { 0 } else { self.units().div_ceil(block.x as u64 * per_thread) };
        Dim3::new(x.min(u32::MAX as u64) as u32, 1, 1)
    }
    fn check_block(&self, block: Dim3) -> Option<String> {
        one_d(block)
    }
    fn work(&self) -> Work {
        Work { bytes_read: 4 * self.n, bytes_written: 4 * self.n, flops: 0 }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        vec![inputs[0].clone()]
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance::EXACT
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let i = t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64;
        let (bytes, width) = if self.kind == CopyKind::Float { (4, 1) } else { (16, 4) };
        let reps = if self.kind == CopyKind::Float4x4 { 4 } else { 1 };
        let stride = self.grid(t.dim).x as u64 * t.dim.x as u64;
        for (phase, kind, buffer) in [(0u32, AccessKind::Load, 0u8), (reps as u32, AccessKind::Store, 1)] {
            for k in 0..reps {
                let u = i + k as u64 * stride;
                if u < self.units() {
                    out.push(Access { insn: phase + k as u32, kind, buffer, index: u * width, byte: 0, bytes });
                }
            }
        }
    }
}

/// `madN`: the copy plus N dependent FFMAs per element.
#[derive(Clone, Debug)]
pub struct Mad {
    count: u32,
    nx: u32,
    ny: u32,
    n: u64,
}

impl Mad {
    /// MAD-`count` on an `nx` x `ny` image; `count` must be one of [`MAD_COUNTS`].
    pub fn new(count: u32, nx: u32, ny: u32) -> Result<Self> {
        if !MAD_COUNTS.contains(&count) {
            return Err(Error::usage(format!(
                "mad takes --n {MAD_COUNTS:?} (the counts kernels/peak.cu instantiates), not {count}"
            )));
        }
        Ok(Mad { count, nx, ny, n: check_n(nx, ny, 1)? })
    }
}

impl Kernel for Mad {
    fn name(&self) -> &str {
        "mad"
    }
    fn entry(&self) -> &str {
        match self.count {
            0 => "mad0",
            3 => "mad3",
            6 => "mad6",
            12 => "mad12",
            24 => "mad24",
            48 => "mad48",
            _ => "mad96",
        }
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("peak")
    }
    fn problem(&self) -> String {
        format!("{}x{}, {} MADs per element", self.nx, self.ny, self.count)
    }
    fn buffers(&self) -> Vec<Buffer> {
        io(self.n as usize)
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.n as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        let x = if block.x == 0 { 0 } else { self.n.div_ceil(block.x as u64) };
        Dim3::new(x.min(u32::MAX as u64) as u32, 1, 1)
    }
    fn check_block(&self, block: Dim3) -> Option<String> {
        one_d(block)
    }
    fn work(&self) -> Work {
        Work { bytes_read: 4 * self.n, bytes_written: 4 * self.n, flops: 2 * self.count as u64 * self.n }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let mut out = inputs[0].clone();
        out.par_iter_mut().for_each(|x| {
            for _ in 0..self.count {
                *x = x.mul_add(MAD_A, MAD_B);
            }
        });
        vec![out]
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance::EXACT // FFMA on the GPU, mul_add (one rounding) on the CPU
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let i = t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64;
        if i < self.n {
            out.push(Access { insn: 0, kind: AccessKind::Load, buffer: 0, index: i, byte: 0, bytes: 4 });
            out.push(Access { insn: 1, kind: AccessKind::Store, buffer: 1, index: i, byte: 0, bytes: 4 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mad_constants_are_the_ptx_ones() {
        assert_eq!(MAD_A.to_bits(), 0x3F7F_C000);
        assert_eq!(MAD_B.to_bits(), 0x3A80_0000);
        let text = crate::ptx::module("peak").unwrap();
        assert!(text.contains("0f3F7FC000, 0f3A800000"));
        for &n in MAD_COUNTS {
            let k = Mad::new(n, 64, 64).unwrap();
            assert_eq!(text.matches(&format!(".entry {}(", k.entry())).count(), 1);
        }
        assert!(Mad::new(5, 64, 64).is_err());
    }

    #[test]
    fn grids_and_1d_blocks() {
        let c = Copy::new(CopyKind::Float4x4, 1024, 1024).unwrap();
        assert_eq!(c.grid(Dim3::new(256, 1, 1)).x, 256); // 2^18 float4 / (4 x 256)
        assert!(c.check_block(Dim3::new(32, 8, 1)).unwrap().contains("1D kernel"));
        assert!(Copy::new(CopyKind::Float4, 3, 3).is_err());
        assert_eq!(Copy::new(CopyKind::Float, 3, 3).unwrap().grid(Dim3::new(4, 1, 1)).x, 3);
    }

    #[test]
    fn strided_copy_covers_every_float4_once() {
        let c = Copy::new(CopyKind::Float4x4, 100, 4).unwrap(); // 100 float4s
        let block = Dim3::new(8, 1, 1);
        let g = c.grid(block);
        let mut stored = vec![0; 400];
        let mut acc = Vec::new();
        for b in 0..g.x {
            for t in 0..8 {
                c.accesses(&Thread { block: Dim3::new(b, 0, 0), thread: Dim3::new(t, 0, 0), dim: block }, &mut acc);
            }
        }
        for a in acc.iter().filter(|a| a.kind == AccessKind::Store) {
            stored[a.index as usize] += 1;
        }
        assert!(stored.iter().step_by(4).all(|&c| c == 1));
    }
}
