//! The lectures' patterns (sources 002 and 003): matrix multiply with the two thread mappings, a branch
//! that diverges within warps or only between them, and a 40-byte struct read as an array of structures
//! or a structure of arrays.

use rayon::prelude::*;

use super::{Access, AccessKind, Arg, Buffer, Entry, Kernel, Module, Param, Thread, Tolerance, Work};
use crate::error::{Error, Result};
use crate::spec::Dim3;

/// The registry's lines.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        name: "matmul-coalesced",
        entry: "matmulCoalesced",
        about: "C = A B on N x N floats (--nx N), consecutive threads on consecutive columns (source 002)",
        params: &[(Param::Nx, 1024.0)],
        selftest: &[(Param::Nx, 200.0)],
        selftest_blocks: "32x8,16x16",
        build: |s| Ok(Box::new(MatMul::new(true, s.u32(Param::Nx)?)?)),
    },
    Entry {
        name: "matmul-strided",
        entry: "matmulStrided",
        about: "C = A B, consecutive threads on consecutive rows: the slow mapping (source 002)",
        params: &[(Param::Nx, 1024.0)],
        selftest: &[(Param::Nx, 200.0)],
        selftest_blocks: "32x8,16x16",
        build: |s| Ok(Box::new(MatMul::new(false, s.u32(Param::Nx)?)?)),
    },
    Entry {
        name: "diverge-odd-even",
        entry: "divergeOddEven",
        about: "branch on i % 2: both 64-FMA paths in every warp (source 002); 1D blocks",
        build: |s| Ok(Box::new(Diverge::new(true, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
    Entry {
        name: "diverge-warp",
        entry: "divergeWarp",
        about: "branch on i / 32 % 2: no warp diverges (source 002); 1D blocks",
        build: |s| Ok(Box::new(Diverge::new(false, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
    Entry {
        name: "aos",
        entry: "aosSum",
        about: "sum of a 40-byte struct per thread, array of structures (source 003); nx x ny structs",
        params: &[(Param::Nx, 4096.0), (Param::Ny, 4096.0)],
        build: |s| Ok(Box::new(Layout::new(true, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
    Entry {
        name: "soa",
        entry: "soaSum",
        about: "the same sums, structure of arrays (source 003)",
        params: &[(Param::Nx, 4096.0), (Param::Ny, 4096.0)],
        build: |s| Ok(Box::new(Layout::new(false, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..super::FLAT_1D
    },
];

fn one_d(block: Dim3) -> Option<String> {
    (block.y != 1 || block.z != 1)
        .then(|| format!("invalid configuration: a 1D kernel takes blocks BX x 1, not {block}"))
}

fn grid_1d(n: u64, block: Dim3) -> Dim3 {
    Dim3::new(if block.x == 0 { 0 } else { n.div_ceil(block.x as u64).min(u32::MAX as u64) as u32 }, 1, 1)
}

/// C = A B on N x N floats.
#[derive(Clone, Debug)]
pub struct MatMul {
    /// Consecutive threads on consecutive columns (true) or rows (false).
    pub coalesced: bool,
    n: u32,
}

impl MatMul {
    /// N x N matrices, N up to 16384.
    pub fn new(coalesced: bool, n: u32) -> Result<Self> {
        if n == 0 || n > 16384 {
            return Err(Error::usage(format!("invalid matrix size {n}: 1 to 16384")));
        }
        Ok(MatMul { coalesced, n })
    }
}

impl Kernel for MatMul {
    fn name(&self) -> &str {
        if self.coalesced { "matmul-coalesced" } else { "matmul-strided" }
    }
    fn entry(&self) -> &str {
        if self.coalesced { "matmulCoalesced" } else { "matmulStrided" }
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("patterns")
    }
    fn problem(&self) -> String {
        format!("{0}x{0}", self.n)
    }
    fn buffers(&self) -> Vec<Buffer> {
        let n2 = self.n as usize * self.n as usize;
        vec![Buffer::input("A", n2), Buffer::input("B", n2), Buffer::output("C", n2)]
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::I32(self.n as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        let div = |b: u32| if b == 0 { 0 } else { self.n.div_ceil(b) };
        Dim3::new(div(block.x), div(block.y), 1)
    }
    fn work(&self) -> Work {
        let n = self.n as u64;
        Work { bytes_read: 8 * n * n, bytes_written: 4 * n * n, flops: 2 * n * n * n }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let n = self.n as usize;
        let (a, b) = (&inputs[0], &inputs[1]);
        let mut c = vec![0f32; n * n];
        c.par_chunks_mut(n).enumerate().for_each(|(row, out)| {
            for (col, o) in out.iter_mut().enumerate() {
                *o = (0..n).fold(0f32, |acc, k| a[row * n + k].mul_add(b[k * n + col], acc));
            }
        });
        vec![c]
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance { abs: 1e-5, rel: 1e-5 }
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let n = self.n as u64;
        let fast = t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64;
        let slow = t.block.y as u64 * t.dim.y as u64 + t.thread.y as u64;
        let (row, col) = if self.coalesced { (slow, fast) } else { (fast, slow) };
        if row >= n || col >= n {
            return;
        }
        // The first eight iterations of k stand for the loop (the pattern repeats).
        for k in 0..n.min(8) {
            out.push(Access {
                insn: (2 * k) as u32,
                kind: AccessKind::Load,
                buffer: 0,
                index: row * n + k,
                byte: 0,
                bytes: 4,
            });
            out.push(Access {
                insn: (2 * k + 1) as u32,
                kind: AccessKind::Load,
                buffer: 1,
                index: k * n + col,
                byte: 0,
                bytes: 4,
            });
        }
        out.push(Access { insn: 100, kind: AccessKind::Store, buffer: 2, index: row * n + col, byte: 0, bytes: 4 });
    }
    fn load_repeat(&self) -> f64 {
        self.n as f64 / self.n.min(8) as f64
    }
    fn loop_fmas(&self) -> f64 {
        self.n as f64
    }
}

/// The two paths of the divergence kernels: 64 dependent FMAs each, different constants.
fn path(x: f32, a: bool) -> f32 {
    let (m, c) = if a { (0.999_023_44f32, 0.000_976_562_5f32) } else { (1.000_976_6f32, -0.000_976_562_5f32) };
    (0..64).fold(x, |x, _| x.mul_add(m, c))
}

/// A branch per element: on i % 2 (every warp runs both paths) or on i / 32 % 2 (no warp diverges).
#[derive(Clone, Debug)]
pub struct Diverge {
    /// Branch within warps (true) or between them (false).
    pub within_warps: bool,
    n: u64,
}

impl Diverge {
    /// `nx` x `ny` elements.
    pub fn new(within_warps: bool, nx: u32, ny: u32) -> Result<Self> {
        let n = nx as u64 * ny as u64;
        if n == 0 || n > i32::MAX as u64 {
            return Err(Error::usage(format!("invalid size {nx}x{ny}: 1 to 2^31-1 elements")));
        }
        Ok(Diverge { within_warps, n })
    }

    fn takes_a(&self, i: u64) -> bool {
        if self.within_warps { i.is_multiple_of(2) } else { (i / 32).is_multiple_of(2) }
    }
}

impl Kernel for Diverge {
    fn name(&self) -> &str {
        if self.within_warps { "diverge-odd-even" } else { "diverge-warp" }
    }
    fn entry(&self) -> &str {
        if self.within_warps { "divergeOddEven" } else { "divergeWarp" }
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("patterns")
    }
    fn problem(&self) -> String {
        format!("{} elements", self.n)
    }
    fn buffers(&self) -> Vec<Buffer> {
        vec![Buffer::input("in", self.n as usize), Buffer::output("out", self.n as usize)]
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.n as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        grid_1d(self.n, block)
    }
    fn check_block(&self, block: Dim3) -> Option<String> {
        one_d(block)
    }
    fn work(&self) -> Work {
        Work { bytes_read: 4 * self.n, bytes_written: 4 * self.n, flops: 128 * self.n }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let mut out = inputs[0].clone();
        out.par_iter_mut().enumerate().for_each(|(i, x)| *x = path(*x, self.takes_a(i as u64)));
        vec![out]
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance::EXACT
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let i = t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64;
        if i < self.n {
            out.push(Access { insn: 0, kind: AccessKind::Load, buffer: 0, index: i, byte: 0, bytes: 4 });
            out.push(Access { insn: 1, kind: AccessKind::Store, buffer: 1, index: i, byte: 0, bytes: 4 });
        }
    }
    fn loop_fmas(&self) -> f64 {
        // 64 per path; a warp split by i % 2 runs both paths one after the other.
        if self.within_warps { 128.0 } else { 64.0 }
    }
}

/// Fields of the struct (10 floats = 40 bytes, source 003's example).
pub const FIELDS: u64 = 10;

/// Sum of the 10 fields of element i, read as an array of structures or a structure of arrays.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Array of structures (true) or structure of arrays (false).
    pub aos: bool,
    n: u64,
}

impl Layout {
    /// `nx` x `ny` structs.
    pub fn new(aos: bool, nx: u32, ny: u32) -> Result<Self> {
        let n = nx as u64 * ny as u64;
        if n == 0 || n * FIELDS > i32::MAX as u64 {
            return Err(Error::usage(format!("invalid size {nx}x{ny}: 1 to 2^31/10 structs")));
        }
        Ok(Layout { aos, n })
    }

    fn at(&self, i: u64, f: u64) -> u64 {
        if self.aos { i * FIELDS + f } else { f * self.n + i }
    }
}

impl Kernel for Layout {
    fn name(&self) -> &str {
        if self.aos { "aos" } else { "soa" }
    }
    fn entry(&self) -> &str {
        if self.aos { "aosSum" } else { "soaSum" }
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("patterns")
    }
    fn problem(&self) -> String {
        format!("{} structs of 40 bytes", self.n)
    }
    fn buffers(&self) -> Vec<Buffer> {
        vec![Buffer::input("s", (self.n * FIELDS) as usize), Buffer::output("out", self.n as usize)]
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.n as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        grid_1d(self.n, block)
    }
    fn check_block(&self, block: Dim3) -> Option<String> {
        one_d(block)
    }
    fn work(&self) -> Work {
        Work { bytes_read: 4 * FIELDS * self.n, bytes_written: 4 * self.n, flops: (FIELDS - 1) * self.n }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let s = &inputs[0];
        let mut out = vec![0f32; self.n as usize];
        out.par_iter_mut()
            .enumerate()
            .for_each(|(i, o)| *o = (0..FIELDS).fold(0f32, |acc, f| acc + s[self.at(i as u64, f) as usize]));
        vec![out]
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance::EXACT
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let i = t.block.x as u64 * t.dim.x as u64 + t.thread.x as u64;
        if i < self.n {
            for f in 0..FIELDS {
                out.push(Access {
                    insn: f as u32,
                    kind: AccessKind::Load,
                    buffer: 0,
                    index: self.at(i, f),
                    byte: 0,
                    bytes: 4,
                });
            }
            out.push(Access { insn: FIELDS as u32, kind: AccessKind::Store, buffer: 1, index: i, byte: 0, bytes: 4 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::analyze;

    #[test]
    fn the_40_byte_struct_of_source_003() {
        // A warp reading one field of 32 consecutive 40-byte structs spans 1280 bytes for 128 useful:
        // 10 lines of 128 bytes (10 %, the article's figure), or 32 sectors of 32 bytes (12.5 %).
        let aos = Layout::new(true, 1 << 12, 1).unwrap();
        let b = Dim3::new(256, 1, 1);
        for (txn, want) in [(128, 10.0), (32, 12.5)] {
            let e = analyze(&aos, aos.grid(b), b, txn).loads.efficiency_pct(txn).unwrap();
            assert!((e - want).abs() < 0.5, "{txn}: {e}");
        }
        let soa = Layout::new(false, 1 << 12, 1).unwrap();
        assert_eq!(analyze(&soa, soa.grid(b), b, 32).loads.efficiency_pct(32), Some(100.0));
        // 40 * 32 / (128 * 3 * 32): the article's arithmetic.
        assert!((40.0f64 * 32.0 / (128.0 * 3.0 * 32.0) - 0.104).abs() < 0.001);
    }

    #[test]
    fn the_two_mappings_of_source_002() {
        let b = Dim3::new(32, 8, 1);
        let eff = |coalesced| {
            let k = MatMul::new(coalesced, 256).unwrap();
            analyze(&k, k.grid(b), b, 32).loads.efficiency_pct(32).unwrap()
        };
        assert!(eff(true) > 50.0, "row broadcast + B coalesced");
        assert!(eff(false) < 20.0, "B strided");
        let k = MatMul::new(true, 3).unwrap();
        let c = k.reference(&[(1..=9).map(|v| v as f32).collect(), vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]]);
        assert_eq!(c[0], (1..=9).map(|v| v as f32).collect::<Vec<_>>());
    }

    #[test]
    fn divergence_paths_differ_by_element() {
        let k = Diverge::new(true, 64, 1).unwrap();
        let out = &k.reference(&[vec![0.5; 64]])[0];
        assert_ne!(out[0], out[1]);
        let w = Diverge::new(false, 64, 1).unwrap();
        let out = &w.reference(&[vec![0.5; 64]])[0];
        assert_eq!(out[0], out[31]);
        assert_ne!(out[31], out[32]);
    }
}
