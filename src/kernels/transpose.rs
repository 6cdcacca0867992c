//! Transposes (sources 000 and 002): naive, the seed's 16x16 shared-memory tile (`transposeL`) and its
//! diagonal block order (`transposeLS`), padded tiles sized by the block (`transposeShared[Diag]`), and a
//! 64x64 tile with 8-byte accesses (`transposeTile64`). `in` is H rows of W; `out` is W rows of H.

use rayon::prelude::*;

use super::{Access, AccessKind, Arg, Buffer, Entry, Kernel, Module, Param, Thread, Tolerance, Work};
use crate::error::{Error, Result};
use crate::spec::Dim3;

/// The registry's lines: one per variant, on an nx x ny matrix.
pub(super) const ENTRIES: &[Entry] = &[
    Entry {
        name: Variant::Naive.name(),
        entry: Variant::Naive.entry(),
        about: "transpose, one thread per element, strided writes (source 000)",
        selftest_blocks: super::SELFTEST_2D,
        build: |s| Ok(Box::new(Transpose::new(Variant::Naive, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        selftest: &[(Param::Nx, 1000.0), (Param::Ny, 777.0)],
        ..MATRIX
    },
    Entry {
        name: Variant::L.name(),
        entry: Variant::L.entry(),
        about: "transpose through a 16x16 shared-memory tile, blocks 16x16 (source 000's transposeL)",
        selftest_blocks: "16x16",
        build: |s| Ok(Box::new(Transpose::new(Variant::L, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..MATRIX
    },
    Entry {
        name: Variant::LS.name(),
        entry: Variant::LS.entry(),
        about: "transposeL with the diagonal block order (source 000's transposeLS)",
        selftest_blocks: "16x16",
        build: |s| Ok(Box::new(Transpose::new(Variant::LS, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..MATRIX
    },
    Entry {
        name: Variant::Shared.name(),
        entry: Variant::Shared.entry(),
        about: "transpose through a padded blockDim.x-square tile, blockDim.x/blockDim.y rows per thread (32x8 classic)",
        selftest_blocks: "32x8,16x16,32x32,64x4",
        build: |s| Ok(Box::new(Transpose::new(Variant::Shared, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..MATRIX
    },
    Entry {
        name: Variant::SharedDiag.name(),
        entry: Variant::SharedDiag.entry(),
        about: "transpose-shared with the diagonal block order",
        selftest_blocks: "32x8,16x16",
        build: |s| Ok(Box::new(Transpose::new(Variant::SharedDiag, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        ..MATRIX
    },
    Entry {
        name: Variant::Tile64.name(),
        entry: Variant::Tile64.entry(),
        about: "transpose through a 64x64 padded tile, 32x8 threads, float2 accesses; sizes multiples of 64",
        selftest_blocks: "32x8",
        build: |s| Ok(Box::new(Transpose::new(Variant::Tile64, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
        selftest: &[(Param::Nx, 960.0), (Param::Ny, 704.0)],
        ..MATRIX
    },
];

/// What the variants share: an 8192 x 8192 matrix by default.
const MATRIX: Entry = Entry {
    name: "",
    entry: "",
    about: "",
    params: &[(Param::Nx, 8192.0), (Param::Ny, 8192.0)],
    selftest: &[(Param::Nx, 1000.0), (Param::Ny, 777.0)],
    selftest_blocks: "",
    build: |s| Ok(Box::new(Transpose::new(Variant::Naive, s.u32(Param::Nx)?, s.u32(Param::Ny)?)?)),
};

/// The transpose variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// One thread per element; reads coalesced, writes strided by H.
    Naive,
    /// 16x16 tile in shared memory, unpadded.
    L,
    /// `L` with the diagonal block order.
    LS,
    /// A blockDim.x-square padded tile; blockDim.x / blockDim.y rows per thread.
    Shared,
    /// `Shared` with the diagonal block order.
    SharedDiag,
    /// 64x64 padded tile, 32x8 threads, float2 accesses.
    Tile64,
}

/// Every variant, in the order benchmarks show them.
pub const VARIANTS: &[Variant] =
    &[Variant::Naive, Variant::L, Variant::LS, Variant::Shared, Variant::SharedDiag, Variant::Tile64];

impl Variant {
    /// Command-line name.
    pub const fn name(&self) -> &'static str {
        match self {
            Variant::Naive => "transpose-naive",
            Variant::L => "transpose-l",
            Variant::LS => "transpose-ls",
            Variant::Shared => "transpose-shared",
            Variant::SharedDiag => "transpose-shared-diag",
            Variant::Tile64 => "transpose-tile64",
        }
    }

    /// PTX entry.
    pub const fn entry(&self) -> &'static str {
        match self {
            Variant::Naive => "transposeNaive",
            Variant::L => "transposeL",
            Variant::LS => "transposeLS",
            Variant::Shared => "transposeShared",
            Variant::SharedDiag => "transposeSharedDiag",
            Variant::Tile64 => "transposeTile64",
        }
    }

    /// The block each variant is meant for (what `transpose --bench` uses).
    pub fn natural_block(&self) -> Dim3 {
        match self {
            Variant::Naive => Dim3::new(32, 8, 1),
            Variant::L | Variant::LS => Dim3::new(16, 16, 1),
            Variant::Shared | Variant::SharedDiag | Variant::Tile64 => Dim3::new(32, 8, 1),
        }
    }
}

/// A transpose of an `w` x `h` float matrix.
#[derive(Clone, Debug)]
pub struct Transpose {
    variant: Variant,
    w: u32,
    h: u32,
}

impl Transpose {
    /// `w` columns, `h` rows.
    pub fn new(variant: Variant, w: u32, h: u32) -> Result<Self> {
        if w == 0 || h == 0 || w as u64 * h as u64 > (1u64 << 31) {
            return Err(Error::usage(format!("invalid matrix {w}x{h}: 1 to 2^31 elements")));
        }
        if variant == Variant::Tile64 && (!w.is_multiple_of(64) || !h.is_multiple_of(64)) {
            return Err(Error::usage(format!("transpose-tile64 needs sizes that are multiples of 64, not {w}x{h}")));
        }
        Ok(Transpose { variant, w, h })
    }

    /// The tile side and the rows each thread moves.
    fn tile(&self, block: Dim3) -> (u32, u32) {
        match self.variant {
            Variant::Naive => (0, 1),
            Variant::L | Variant::LS => (16, 1),
            Variant::Shared | Variant::SharedDiag => (block.x, block.x / block.y.max(1)),
            Variant::Tile64 => (64, 8),
        }
    }

    fn diagonal(&self) -> bool {
        matches!(self.variant, Variant::LS | Variant::SharedDiag)
    }
}

impl Kernel for Transpose {
    fn name(&self) -> &str {
        self.variant.name()
    }
    fn entry(&self) -> &str {
        self.variant.entry()
    }
    fn module(&self) -> Module<'_> {
        Module::Embedded("transpose")
    }
    fn problem(&self) -> String {
        format!("{}x{}", self.w, self.h)
    }
    fn buffers(&self) -> Vec<Buffer> {
        let n = self.w as usize * self.h as usize;
        vec![Buffer::input("in", n), Buffer::output("out", n)]
    }
    fn args(&self) -> Vec<Arg> {
        vec![Arg::Buf(0), Arg::Buf(1), Arg::I32(self.w as i32), Arg::I32(self.h as i32)]
    }
    fn grid(&self, block: Dim3) -> Dim3 {
        let div = |n: u32, b: u32| if b == 0 { 0 } else { n.div_ceil(b) };
        match self.variant {
            Variant::Naive => Dim3::new(div(self.w, block.x), div(self.h, block.y), 1),
            _ => {
                let t = self.tile(block).0;
                Dim3::new(div(self.w, t), div(self.h, t), 1)
            }
        }
    }
    fn dynamic_smem(&self, block: Dim3) -> u32 {
        match self.variant {
            Variant::Shared | Variant::SharedDiag => {
                block.x.saturating_mul(block.x.saturating_add(1)).saturating_mul(4)
            }
            _ => 0,
        }
    }
    fn check_block(&self, block: Dim3) -> Option<String> {
        let want = |b: Dim3| {
            (block != b)
                .then(|| format!("invalid configuration: {} is written for {b} blocks, not {block}", self.entry()))
        };
        match self.variant {
            Variant::Naive => None,
            Variant::L | Variant::LS => want(Dim3::new(16, 16, 1)),
            Variant::Tile64 => want(Dim3::new(32, 8, 1)),
            Variant::Shared | Variant::SharedDiag => {
                if block.z != 1 || block.y == 0 || !block.x.is_multiple_of(block.y) {
                    Some(format!(
                        "invalid configuration: {} needs block.x a multiple of block.y and block.z = 1, not {block}",
                        self.entry()
                    ))
                } else {
                    None
                }
            }
        }
    }
    fn barriers(&self) -> u32 {
        u32::from(self.variant != Variant::Naive)
    }
    fn serial_loads(&self, block: Dim3) -> f64 {
        // transposeShared[Diag]'s tile loop runs blockDim.x / blockDim.y times and is not unrolled (its
        // trip count is known only at run time; kernels-ptx/transpose.ptx): each iteration stores its
        // load to shared memory before the next loads. The others load once, or unrolled (Tile64).
        match self.variant {
            Variant::Shared | Variant::SharedDiag => self.tile(block).1.max(1) as f64,
            _ => 1.0,
        }
    }
    fn work(&self) -> Work {
        let n = self.w as u64 * self.h as u64;
        Work { bytes_read: 4 * n, bytes_written: 4 * n, flops: 0 }
    }
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        let (w, h) = (self.w as usize, self.h as usize);
        let src = &inputs[0];
        let mut out = vec![0f32; w * h];
        out.par_chunks_mut(h).enumerate().for_each(|(x, row)| {
            for (y, o) in row.iter_mut().enumerate() {
                *o = src[y * w + x];
            }
        });
        vec![out]
    }
    fn tolerance(&self) -> Tolerance {
        Tolerance::EXACT
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        let (w, h) = (self.w as u64, self.h as u64);
        let (tx, ty) = (t.thread.x as u64, t.thread.y as u64);
        if self.variant == Variant::Naive {
            let x = t.block.x as u64 * t.dim.x as u64 + tx;
            let y = t.block.y as u64 * t.dim.y as u64 + ty;
            if x < w && y < h {
                out.push(Access { insn: 0, kind: AccessKind::Load, buffer: 0, index: y * w + x, byte: 0, bytes: 4 });
                out.push(Access { insn: 1, kind: AccessKind::Store, buffer: 1, index: x * h + y, byte: 0, bytes: 4 });
            }
            return;
        }
        // Through shared memory: each thread loads `reps` rows of the tile, stores them to shared
        // memory, and after the barrier reads a column of it and stores that as a row of `out`.
        let (tile, reps) = self.tile(t.dim);
        let (tile, reps) = (tile as u64, reps as u64);
        let grid = self.grid(t.dim);
        let bx = t.block.x as u64;
        let by = if self.diagonal() { (t.block.y as u64 + bx) % grid.y as u64 } else { t.block.y as u64 };
        if self.variant == Variant::Tile64 {
            // 64 x 65 floats (static), float2 global accesses, two 4-byte shared accesses per float2.
            let x = bx * 64 + 2 * tx;
            for k in 0..8 {
                let r = ty + 8 * k;
                out.push(Access::load(k as usize, 0, (by * 64 + r) * w + x, 8));
            }
            for k in 0..8 {
                let r = ty + 8 * k;
                out.push(Access::shared_store(2 * k as usize, r * 65 + 2 * tx, 4));
                out.push(Access::shared_store(2 * k as usize + 1, r * 65 + 2 * tx + 1, 4));
            }
            for k in 0..8 {
                let r = ty + 8 * k;
                out.push(Access::shared_load(2 * k as usize, 2 * tx * 65 + r, 4));
                out.push(Access::shared_load(2 * k as usize + 1, (2 * tx + 1) * 65 + r, 4));
                out.push(Access::store(k as usize, 1, (bx * 64 + r) * h + by * 64 + 2 * tx, 8));
            }
            return;
        }
        // transposeL/LS: a static 16 x 16 tile; transposeShared[Diag]: a dynamic T x (T + 1) one.
        let pitch = if matches!(self.variant, Variant::L | Variant::LS) { tile } else { tile + 1 };
        let step = t.dim.y as u64;
        let x = bx * tile + tx;
        for k in 0..reps {
            let (r, y) = (ty + k * step, by * tile + ty + k * step);
            if x < w && y < h {
                out.push(Access::load(k as usize, 0, y * w + x, 4));
                out.push(Access::shared_store(k as usize, r * pitch + tx, 4));
            }
        }
        let ox = by * tile + tx;
        for k in 0..reps {
            let (r, oy) = (ty + k * step, bx * tile + ty + k * step);
            if ox < h && oy < w {
                out.push(Access::shared_load(k as usize, tx * pitch + r, 4));
                out.push(Access::store((reps + k) as usize, 1, oy * h + ox, 4));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::random_inputs;

    #[test]
    fn tile_loops_wait_for_each_load() {
        // transposeShared at (32,8): a 32 x 32 tile, 4 rows per thread, one load waited for per row;
        // at (16,1), 16. The naive transpose loads once; Tile64's 8 loads are unrolled, issued together.
        let s = Transpose::new(Variant::Shared, 64, 64).unwrap();
        assert_eq!(s.serial_loads(Dim3::new(32, 8, 1)), 4.0);
        assert_eq!(s.serial_loads(Dim3::new(16, 1, 1)), 16.0);
        assert_eq!(s.serial_loads(Dim3::new(64, 64, 1)), 1.0);
        assert_eq!(Transpose::new(Variant::Naive, 64, 64).unwrap().serial_loads(Dim3::new(32, 8, 1)), 1.0);
        assert_eq!(Transpose::new(Variant::Tile64, 64, 64).unwrap().serial_loads(Dim3::new(32, 8, 1)), 1.0);
    }

    #[test]
    fn reference_transposes() {
        let k = Transpose::new(Variant::Naive, 3, 2).unwrap();
        let out = k.reference(&[vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]);
        assert_eq!(out[0], vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }

    #[test]
    fn every_variant_stores_every_output_once() {
        for &v in VARIANTS {
            let (w, h) = if v == Variant::Tile64 { (128, 192) } else { (70, 45) };
            let k = Transpose::new(v, w, h).unwrap();
            let block = v.natural_block();
            assert!(k.check_block(block).is_none(), "{v:?}");
            let g = k.grid(block);
            let mut seen = vec![0u8; (w * h) as usize];
            let mut acc = Vec::new();
            for by in 0..g.y {
                for bx in 0..g.x {
                    for ty in 0..block.y {
                        for tx in 0..block.x {
                            let t = Thread { block: Dim3::new(bx, by, 0), thread: Dim3::new(tx, ty, 0), dim: block };
                            k.accesses(&t, &mut acc);
                        }
                    }
                }
            }
            let input = &random_inputs(&k, 1)[0];
            let reference = &k.reference(&random_inputs(&k, 1))[0];
            for a in acc.iter().filter(|a| a.kind == AccessKind::Store) {
                for e in 0..a.bytes as u64 / 4 {
                    seen[(a.index + e) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{v:?}");
            assert_eq!(reference[1], input[w as usize], "{v:?}: out[0][1] = in[1][0]");
        }
    }

    #[test]
    fn blocks_are_checked_per_variant() {
        let k = Transpose::new(Variant::Shared, 64, 64).unwrap();
        assert!(k.check_block(Dim3::new(32, 8, 1)).is_none());
        assert!(k.check_block(Dim3::new(32, 32, 1)).is_none());
        assert!(k.check_block(Dim3::new(32, 12, 1)).is_some());
        assert_eq!(k.dynamic_smem(Dim3::new(32, 8, 1)), 32 * 33 * 4);
        assert!(Transpose::new(Variant::L, 64, 64).unwrap().check_block(Dim3::new(32, 8, 1)).is_some());
        assert!(Transpose::new(Variant::Tile64, 100, 64).is_err());
    }
}
