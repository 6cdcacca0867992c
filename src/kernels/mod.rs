//! The kernels warpscope runs: each family says, in one place, which PTX entry it launches, its buffers and
//! arguments, how to fill its inputs, its CPU reference, the work it does, and where each thread's loads and
//! stores land (for the memory model and the mock). Nothing else knows a kernel's details.

mod blur;
mod frames;
mod patterns;
mod peak;
mod sum_matrix;
mod transpose;

pub use blur::{Blur, Gaussian, STAGES as BLUR_STAGES, Stage as BlurStage, error as blur_error, gaussian_f64};
pub use frames::{Frames, GaussianSmooth, Resize, RgbToGray};
pub use patterns::{Diverge, Layout, MatMul};
pub use peak::{Copy, CopyKind, MAD_COUNTS, Mad};
pub use sum_matrix::SumMatrix;
pub use transpose::{Transpose, VARIANTS as TRANSPOSES, Variant as TransposeVariant};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::spec::Dim3;

/// Whether the kernel reads or writes a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Filled with fresh random values once per problem.
    Input,
    /// Poisoned with NaN before each verified launch, then compared with the CPU reference.
    Output,
}

/// A device buffer of `f32` elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The kernel's parameter name (`A`, `B`, `C`).
    pub name: &'static str,
    /// Number of f32 elements.
    pub len: usize,
    /// Input or output.
    pub role: Role,
}

/// One kernel argument, in parameter order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// The device pointer of buffer `i` of [`Kernel::buffers`].
    Buf(usize),
    /// A 32-bit signed integer.
    I32(i32),
    /// A 32-bit float.
    F32(f32),
}

/// Allowed |gpu - cpu| for an element whose reference is r: `abs + rel * |r|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f32,
    /// Relative part.
    pub rel: f32,
}

impl Tolerance {
    /// Bit-for-bit equal results (operations that round identically on both sides).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// Whether `got` is acceptable for reference `want`; NaN (the poison) never is.
    #[inline]
    pub fn accepts(&self, got: f32, want: f32) -> bool {
        let err = (got - want).abs();
        err <= self.abs + self.rel * want.abs()
    }
}

/// The minimum traffic and arithmetic of one launch: the basis of effective bandwidth and the floors.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Work {
    /// Bytes that must be read from device memory (each input once).
    pub bytes_read: u64,
    /// Bytes that must be written (each output once).
    pub bytes_written: u64,
    /// Floating-point operations.
    pub flops: u64,
}

/// Load or store, to global or shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A global load.
    Load,
    /// A global store.
    Store,
    /// A shared-memory load (`index` is a 4-byte word offset in the block's shared memory).
    SharedLoad,
    /// A shared-memory store (`index` as for [`AccessKind::SharedLoad`]).
    SharedStore,
}

/// One memory access of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The instruction it belongs to (accesses of one warp with the same `insn` and kind form one request).
    pub insn: u16,
    /// Load or store, global or shared.
    pub kind: AccessKind,
    /// Buffer index in [`Kernel::buffers`] (0 for shared memory).
    pub buffer: u8,
    /// Element index in that buffer; for shared memory, the 4-byte word offset from the start of the
    /// block's shared memory (static arrays first, then the dynamic one, as ptxas lays them out), which
    /// decides the bank.
    pub index: u64,
    /// Bytes accessed (4 for a float, 16 for a float4).
    pub bytes: u8,
}

impl Access {
    /// A global load of `bytes` at element `index` of buffer `buffer`.
    pub fn load(insn: usize, buffer: u8, index: u64, bytes: u8) -> Self {
        Access { insn: insn.min(u16::MAX as usize) as u16, kind: AccessKind::Load, buffer, index, bytes }
    }
    /// A global store.
    pub fn store(insn: usize, buffer: u8, index: u64, bytes: u8) -> Self {
        Access { insn: insn.min(u16::MAX as usize) as u16, kind: AccessKind::Store, buffer, index, bytes }
    }
    /// A shared-memory load of `bytes` at word `word`.
    pub fn shared_load(insn: usize, word: u64, bytes: u8) -> Self {
        Access { insn: insn.min(u16::MAX as usize) as u16, kind: AccessKind::SharedLoad, buffer: 0, index: word, bytes }
    }
    /// A shared-memory store.
    pub fn shared_store(insn: usize, word: u64, bytes: u8) -> Self {
        Access {
            insn: insn.min(u16::MAX as usize) as u16,
            kind: AccessKind::SharedStore,
            buffer: 0,
            index: word,
            bytes,
        }
    }
}

/// A thread's coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Thread {
    /// blockIdx.
    pub block: Dim3,
    /// threadIdx.
    pub thread: Dim3,
    /// blockDim.
    pub dim: Dim3,
}

/// A kernel family bound to a problem size.
pub trait Kernel: Send + Sync {
    /// Name on the command line (`sum-matrix`).
    fn name(&self) -> &'static str;
    /// PTX entry point, also the name profilers print (`sumMatrixOnGPU2D`).
    fn entry(&self) -> &'static str;
    /// PTX module (the kernels/*.cu file stem).
    fn module(&self) -> &'static str;
    /// The problem size as shown in reports (`16384x16384`).
    fn problem(&self) -> String;
    /// Buffers in a fixed order; [`Arg::Buf`] indexes this list.
    fn buffers(&self) -> Vec<Buffer>;
    /// Launch arguments.
    fn args(&self) -> Vec<Arg>;
    /// Grid for a block shape (the seed's rounding-up division).
    fn grid(&self, block: Dim3) -> Dim3;
    /// Dynamic shared memory per block, in bytes.
    fn dynamic_smem(&self, _block: Dim3) -> u32 {
        0
    }
    /// Minimum bytes and flops of one launch.
    fn work(&self) -> Work;
    /// The outputs computed on the CPU from the inputs (one vector per output buffer, in buffer order).
    fn reference(&self, inputs: &[Vec<f32>]) -> Vec<Vec<f32>>;
    /// How far a GPU result may be from the CPU reference.
    fn tolerance(&self) -> Tolerance {
        Tolerance { abs: 0.0, rel: 1e-6 }
    }
    /// Why a block shape does not suit this kernel (e.g. a 1D kernel given a 2D block), if it does not.
    fn check_block(&self, _block: Dim3) -> Option<String> {
        None
    }
    /// `__syncthreads` barriers on one thread's path (SKE's synchronization term).
    fn barriers(&self) -> u32 {
        0
    }
    /// Appends the memory accesses of one thread, in program order: global loads and stores, and the
    /// shared-memory ones whose banks matter.
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>);
    /// How many loads each listed load stands for: a kernel whose [`Kernel::accesses`] lists only the
    /// first iterations of a long loop (the pattern repeats) gives trips / listed iterations.
    fn load_repeat(&self) -> f64 {
        1.0
    }
    /// Multiply-adds one warp executes in loops, per thread (a divergent branch's two sides both
    /// counted): the time model prices each at the compiled loop body's instructions per FMA.
    fn loop_fmas(&self) -> f64 {
        0.0
    }
}

/// A kernel of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelInfo {
    /// Command-line name.
    pub name: &'static str,
    /// PTX entry.
    pub entry: &'static str,
    /// What it computes and its problem options.
    pub about: &'static str,
    /// A small, odd-sized problem for `selftest` (bounds checks and partial blocks exercised).
    pub selftest: Problem,
    /// Block shapes `selftest` runs it with.
    pub selftest_blocks: &'static str,
}

const BLOCKS_2D: &str = "32x8,16x16,128x1,1x64";
const BLOCKS_1D: &str = "256,128,1000,1";

const SMALL_FRAMES: Problem = Problem { nx: Some(100), ny: Some(77), frames: Some(3), n: None, sigma: None };
const SMALL_T: Problem = Problem { nx: Some(1000), ny: Some(777), frames: None, n: None, sigma: None };
const SMALL_BLUR: Problem = Problem { nx: Some(300), ny: Some(577), frames: None, n: None, sigma: Some(3.0) };
const SMALL_MM: Problem = Problem { nx: Some(200), ny: None, frames: None, n: None, sigma: None };
const SMALL_1D: Problem = Problem { nx: Some(1000), ny: Some(772), frames: None, n: None, sigma: None };

/// The kernels `sweep`, `run` and `estimate` accept.
pub const CATALOGUE: &[KernelInfo] = &[
    KernelInfo {
        name: "sum-matrix",
        entry: "sumMatrixOnGPU2D",
        about: "C = A + B on an nx x ny float matrix (source 001); default 16384 x 16384",
        selftest: Problem { nx: Some(1000), ny: Some(777), frames: None, n: None, sigma: None },
        selftest_blocks: BLOCKS_2D,
    },
    KernelInfo {
        name: "rgb-to-gray",
        entry: "rgbToGray",
        about: "luma of float RGB frames (source 004); default 480 x 270, 64 frames",
        selftest: SMALL_FRAMES,
        selftest_blocks: BLOCKS_2D,
    },
    KernelInfo {
        name: "resize",
        entry: "resizeBilinear",
        about: "bilinear 2x upscale of float RGB frames (source 004); default 480 x 270, 64 frames",
        selftest: SMALL_FRAMES,
        selftest_blocks: BLOCKS_2D,
    },
    KernelInfo {
        name: "gaussian-smooth",
        entry: "gaussianSmooth",
        about: "5x5 Gaussian on float RGB frames (source 004); default 480 x 270, 64 frames",
        selftest: SMALL_FRAMES,
        selftest_blocks: BLOCKS_2D,
    },
    KernelInfo {
        name: "transpose-naive",
        entry: "transposeNaive",
        about: "transpose, one thread per element, strided writes (source 000); default 8192 x 8192",
        selftest: SMALL_T,
        selftest_blocks: BLOCKS_2D,
    },
    KernelInfo {
        name: "transpose-l",
        entry: "transposeL",
        about: "transpose through a 16x16 shared-memory tile, blocks 16x16 (source 000's transposeL)",
        selftest: SMALL_T,
        selftest_blocks: "16x16",
    },
    KernelInfo {
        name: "transpose-ls",
        entry: "transposeLS",
        about: "transposeL with the diagonal block order (source 000's transposeLS)",
        selftest: SMALL_T,
        selftest_blocks: "16x16",
    },
    KernelInfo {
        name: "transpose-shared",
        entry: "transposeShared",
        about: "transpose through a padded blockDim.x-square tile, blockDim.x/blockDim.y rows per thread (32x8 classic)",
        selftest: SMALL_T,
        selftest_blocks: "32x8,16x16,32x32,64x4",
    },
    KernelInfo {
        name: "transpose-shared-diag",
        entry: "transposeSharedDiag",
        about: "transpose-shared with the diagonal block order",
        selftest: SMALL_T,
        selftest_blocks: "32x8,16x16",
    },
    KernelInfo {
        name: "transpose-tile64",
        entry: "transposeTile64",
        about: "transpose through a 64x64 padded tile, 32x8 threads, float2 accesses; sizes multiples of 64",
        selftest: Problem { nx: Some(960), ny: Some(704), frames: None, n: None, sigma: None },
        selftest_blocks: "32x8",
    },
    KernelInfo {
        name: "blur-direct",
        entry: "blurDirect",
        about: "Gaussian blur, 2D convolution, (2R+1)^2 taps (source 000); --sigma (5); default 4096 x 4096",
        selftest: SMALL_BLUR,
        selftest_blocks: "32x8,16x16",
    },
    KernelInfo {
        name: "blur-rows",
        entry: "blurRows",
        about: "Gaussian blur, horizontal pass of the separable filter",
        selftest: SMALL_BLUR,
        selftest_blocks: "32x8,128x1",
    },
    KernelInfo {
        name: "blur-cols",
        entry: "blurCols",
        about: "Gaussian blur, vertical pass of the separable filter",
        selftest: SMALL_BLUR,
        selftest_blocks: "32x8,128x1",
    },
    KernelInfo {
        name: "blur-rows-tiled",
        entry: "blurRowsTiled",
        about: "horizontal pass with the neighbourhood staged in shared memory",
        selftest: SMALL_BLUR,
        selftest_blocks: "32x8,64x4",
    },
    KernelInfo {
        name: "blur-cols-tiled",
        entry: "blurColsTiled",
        about: "vertical pass with the neighbourhood staged in shared memory",
        selftest: SMALL_BLUR,
        selftest_blocks: "32x8,64x4",
    },
    KernelInfo {
        name: "blur-rgv",
        entry: "rgV",
        about: "recursive Gaussian (Deriche, 4th order), one thread per column (source 000's rgV)",
        selftest: SMALL_BLUR,
        selftest_blocks: "64,32",
    },
    KernelInfo {
        name: "blur-rgh",
        entry: "rgH",
        about: "recursive Gaussian, one thread per row (source 000's rgH)",
        selftest: SMALL_BLUR,
        selftest_blocks: "64,32",
    },
    KernelInfo {
        name: "blur-rgv-seg",
        entry: "rgVSeg",
        about: "recursive Gaussian, columns cut in 32-row segments, each recursion started 8 sigma early",
        selftest: SMALL_BLUR,
        selftest_blocks: "32x4,64x1",
    },
    KernelInfo {
        name: "copy",
        entry: "copyFloat",
        about: "copy, one float per thread (source 000's peak); 1D blocks; default 8192 x 8192 floats",
        selftest: SMALL_1D,
        selftest_blocks: BLOCKS_1D,
    },
    KernelInfo {
        name: "copy-float4",
        entry: "copyFloat4",
        about: "copy, one float4 per thread; 1D blocks; default 8192 x 8192 floats",
        selftest: SMALL_1D,
        selftest_blocks: BLOCKS_1D,
    },
    KernelInfo {
        name: "copy-float4x4",
        entry: "copyFloat4x4",
        about: "copy, four float4 per thread in flight; 1D blocks; default 8192 x 8192 floats",
        selftest: SMALL_1D,
        selftest_blocks: BLOCKS_1D,
    },
    KernelInfo {
        name: "mad",
        entry: "mad24",
        about: "copy + N dependent multiply-adds per element, --n 0|3|6|12|24|48|96 (source 000); default N = 24",
        selftest: Problem { nx: Some(1000), ny: Some(772), frames: None, n: Some(24), sigma: None },
        selftest_blocks: BLOCKS_1D,
    },
    KernelInfo {
        name: "matmul-coalesced",
        entry: "matmulCoalesced",
        about: "C = A B, consecutive threads on consecutive columns (source 002); --nx N (1024)",
        selftest: SMALL_MM,
        selftest_blocks: "32x8,16x16",
    },
    KernelInfo {
        name: "matmul-strided",
        entry: "matmulStrided",
        about: "C = A B, consecutive threads on consecutive rows: the slow mapping (source 002)",
        selftest: SMALL_MM,
        selftest_blocks: "32x8,16x16",
    },
    KernelInfo {
        name: "diverge-odd-even",
        entry: "divergeOddEven",
        about: "branch on i % 2: both 64-FMA paths in every warp (source 002); 1D blocks",
        selftest: SMALL_1D,
        selftest_blocks: BLOCKS_1D,
    },
    KernelInfo {
        name: "diverge-warp",
        entry: "divergeWarp",
        about: "branch on i / 32 % 2: no warp diverges (source 002); 1D blocks",
        selftest: SMALL_1D,
        selftest_blocks: BLOCKS_1D,
    },
    KernelInfo {
        name: "aos",
        entry: "aosSum",
        about: "sum of a 40-byte struct per thread, array of structures (source 003); default 4096 x 4096 structs",
        selftest: SMALL_1D,
        selftest_blocks: BLOCKS_1D,
    },
    KernelInfo {
        name: "soa",
        entry: "soaSum",
        about: "the same sums, structure of arrays (source 003)",
        selftest: SMALL_1D,
        selftest_blocks: BLOCKS_1D,
    },
];

/// The kernel names.
pub fn names() -> Vec<&'static str> {
    CATALOGUE.iter().map(|k| k.name).collect()
}

/// Problem-size options; `None` takes the kernel's default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Problem {
    /// Elements (or pixels) along x.
    pub nx: Option<u32>,
    /// Elements (or pixels) along y.
    pub ny: Option<u32>,
    /// Frames per launch (image kernels).
    pub frames: Option<u32>,
    /// The kernel's own parameter (`mad`: multiply-adds per element).
    pub n: Option<u32>,
    /// Gaussian sigma (blur kernels).
    pub sigma: Option<f32>,
}

impl Problem {
    /// A problem of `nx` x `ny` with the default frame count.
    pub fn sized(nx: u32, ny: u32) -> Self {
        Problem { nx: Some(nx), ny: Some(ny), frames: None, n: None, sigma: None }
    }
}

fn unknown(name: &str) -> Error {
    Error::usage(format!("unknown kernel '{name}' (known: {})", names().join(", ")))
}

/// The kernel called `name` (or its entry name), bound to `problem`.
pub fn lookup(name: &str, p: Problem) -> Result<Box<dyn Kernel>> {
    let frames = || Frames::new(p.nx.unwrap_or(480), p.ny.unwrap_or(270), p.frames.unwrap_or(64));
    let name = CATALOGUE.iter().find(|k| k.entry == name).map(|k| k.name).unwrap_or(name);
    let image = ["rgb-to-gray", "resize", "gaussian-smooth"].contains(&name);
    if p.frames.is_some() && !image {
        return Err(Error::usage(format!("--frames applies to the image kernels, not {name}")));
    }
    if p.n.is_some() && name != "mad" {
        return Err(Error::usage(format!("--n applies to mad, not {name}")));
    }
    if p.sigma.is_some() && !name.starts_with("blur-") {
        return Err(Error::usage(format!("--sigma applies to the blur kernels, not {name}")));
    }
    let (nx, ny) = (p.nx.unwrap_or(8192), p.ny.unwrap_or(8192));
    Ok(match name {
        "sum-matrix" => Box::new(SumMatrix::new(p.nx.unwrap_or(1 << 14), p.ny.unwrap_or(1 << 14))?),
        "rgb-to-gray" => Box::new(RgbToGray(frames()?)),
        "resize" => Box::new(Resize(frames()?)),
        "gaussian-smooth" => Box::new(GaussianSmooth(frames()?)),
        "copy" => Box::new(Copy::new(CopyKind::Float, nx, ny)?),
        b if b.starts_with("blur-") => {
            let stage = BLUR_STAGES.iter().find(|s| s.name() == b).ok_or_else(|| unknown(name))?;
            let g = Gaussian::new(p.sigma.unwrap_or(5.0))?;
            Box::new(Blur::new(*stage, p.nx.unwrap_or(4096), p.ny.unwrap_or(4096), g)?)
        }
        t if t.starts_with("transpose-") => {
            let v = TRANSPOSES.iter().find(|v| v.name() == t).ok_or_else(|| unknown(name))?;
            Box::new(Transpose::new(*v, nx, ny)?)
        }
        "copy-float4" => Box::new(Copy::new(CopyKind::Float4, nx, ny)?),
        "copy-float4x4" => Box::new(Copy::new(CopyKind::Float4x4, nx, ny)?),
        "mad" => Box::new(Mad::new(p.n.unwrap_or(24), nx, ny)?),
        "matmul-coalesced" | "matmul-strided" => {
            Box::new(MatMul::new(name == "matmul-coalesced", p.nx.unwrap_or(1024))?)
        }
        "diverge-odd-even" | "diverge-warp" => Box::new(Diverge::new(name == "diverge-odd-even", nx, ny)?),
        "aos" | "soa" => Box::new(Layout::new(name == "aos", p.nx.unwrap_or(4096), p.ny.unwrap_or(4096))?),
        _ => return Err(unknown(name)),
    })
}

/// The kernel a record was measured with, from its entry and problem as [`Kernel::problem`] printed
/// them (`sumMatrixOnGPU2D`, `16384x16384`; `rgbToGray`, `480x270 x 64 frames`; `blurRows`,
/// `4096x4096, sigma 5`; `mad24`, `8192x8192, 24 MADs per element`; `divergeWarp`, `67108864
/// elements`): what `model-check` needs to predict a measured configuration again.
pub fn from_record(entry: &str, problem: &str) -> Result<Box<dyn Kernel>> {
    let bad = || Error::usage(format!("cannot tell the problem of {entry} from '{problem}'"));
    let name = match CATALOGUE.iter().find(|k| k.entry == entry) {
        Some(k) => k.name,
        None if entry.starts_with("mad") && entry[3..].parse::<u32>().is_ok() => "mad",
        None => return Err(unknown(entry)),
    };
    let words: Vec<&str> = problem.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let before = |word: &str| {
        words.iter().position(|w| *w == word).and_then(|i| i.checked_sub(1)).and_then(|i| words[i].parse::<u32>().ok())
    };
    let mut p = Problem::default();
    if let Some((x, y)) = words.first().and_then(|w| w.split_once('x')) {
        p.nx = Some(x.parse().map_err(|_| bad())?);
        p.ny = Some(y.parse().map_err(|_| bad())?);
    }
    p.frames = before("frames");
    p.n = before("MADs");
    p.sigma = words.iter().position(|w| *w == "sigma").and_then(|i| words.get(i + 1)).and_then(|w| w.parse().ok());
    if let Some(n) = before("elements").or_else(|| before("structs")) {
        (p.nx, p.ny) = (Some(n), Some(1));
    }
    if name == "matmul-coalesced" || name == "matmul-strided" {
        p.ny = None;
    }
    let k = lookup(name, p)?;
    if k.problem() != problem || k.entry() != entry {
        return Err(bad());
    }
    Ok(k)
}

/// Fresh inputs: uniform in [-1, 1), element `i` of input buffer `b` being [`uniform`]`(seed, b, i)`,
/// generated in parallel. The GPU backend fills its buffers with the same function on the device
/// (kernels/init.cu), so inputs never cross PCIe; these host copies feed the CPU reference.
pub fn random_inputs(kernel: &dyn Kernel, seed: u64) -> Vec<Vec<f32>> {
    kernel
        .buffers()
        .iter()
        .enumerate()
        .filter(|(_, b)| b.role == Role::Input)
        .map(|(stream, b)| {
            let mut v = vec![0f32; b.len];
            v.par_chunks_mut(1 << 16).enumerate().for_each(|(chunk, out)| {
                let first = (chunk << 16) as u64;
                for (k, x) in out.iter_mut().enumerate() {
                    *x = uniform(seed, stream as u32, first + k as u64);
                }
            });
            v
        })
        .collect()
}

/// Element `i` of random stream `stream`: SplitMix64 of a counter, 24 bits mapped exactly to [-1, 1).
/// Must stay bit-identical to `fillUniform` in kernels/init.cu.
pub fn uniform(seed: u64, stream: u32, i: u64) -> f32 {
    let base = seed ^ (stream as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut z = base.wrapping_add((i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 * (1.0 / 16_777_216.0) * 2.0 - 1.0
}

/// The rounding-up grid of the seed: `((nx + bx - 1) / bx, (ny + by - 1) / by, 1)`; a zero block extent gives 0.
pub fn grid_2d(nx: u32, ny: u32, block: Dim3) -> Dim3 {
    let div = |n: u32, b: u32| if b == 0 { 0 } else { n.div_ceil(b) };
    Dim3::new(div(nx, block.x), div(ny, block.y), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_reproducible_and_in_range() {
        let k = SumMatrix::new(300, 200).unwrap();
        let a = random_inputs(&k, 7);
        let b = random_inputs(&k, 7);
        assert_eq!(a, b);
        assert_eq!(a.len(), 2);
        assert!(a[0].iter().all(|x| (-1.0..1.0).contains(x)));
        assert_ne!(a[0], a[1], "A and B draw from different streams");
        assert_ne!(random_inputs(&k, 8)[0], a[0]);
        let mean = a[0].iter().map(|&x| x as f64).sum::<f64>() / a[0].len() as f64;
        assert!(mean.abs() < 0.02, "mean {mean}");
    }

    #[test]
    fn unknown_kernel_is_a_usage_error() {
        let e = lookup("nope", Problem::default()).err().unwrap();
        for name in names() {
            let k = lookup(name, Problem::sized(64, 64)).unwrap();
            assert_eq!(k.name(), name);
            assert!(crate::ptx::module(k.module()).unwrap().contains(&format!(".entry {}(", k.entry())));
        }
        assert_eq!(lookup("sumMatrixOnGPU2D", Problem::default()).unwrap().name(), "sum-matrix");
        assert!(e.to_string().contains("unknown kernel 'nope'"));
    }

    #[test]
    fn kernels_come_back_from_their_records() {
        for info in CATALOGUE {
            let k = lookup(info.name, info.selftest).unwrap();
            let back = from_record(k.entry(), &k.problem()).unwrap();
            assert_eq!((back.entry(), back.problem()), (k.entry(), k.problem()), "{}", info.name);
        }
        let mad = lookup("mad", Problem { n: Some(6), ..Problem::sized(64, 32) }).unwrap();
        assert_eq!(from_record("mad6", &mad.problem()).unwrap().problem(), "64x32, 6 MADs per element");
        assert!(from_record("sumMatrixOnGPU2D", "a few").is_err());
        assert!(from_record("nope", "16x16").is_err());
    }

    #[test]
    fn seed_grids() {
        assert_eq!(grid_2d(1 << 14, 1 << 14, Dim3::new(32, 16, 1)), Dim3::new(512, 1024, 1));
        assert_eq!(grid_2d(100, 10, Dim3::new(32, 3, 1)), Dim3::new(4, 4, 1));
        assert_eq!(grid_2d(100, 10, Dim3::new(0, 3, 1)).x, 0);
    }
}
