//! The kernels warpscope runs: each family says, in one place, which PTX entry it launches, its buffers and
//! arguments, how to fill its inputs, its CPU reference, the work it does, and where each thread's loads and
//! stores land (for the memory model and the mock). Nothing else knows a kernel's details.

mod blur;
mod frames;
mod patterns;
mod peak;
mod registry;
mod sum_matrix;
mod sum_matrix_mix;
mod traced;
mod transpose;

pub use blur::{Blur, Gaussian, STAGES as BLUR_STAGES, Stage as BlurStage, error as blur_error, gaussian_f64};
pub use frames::{Frames, GaussianSmooth, Resize, RgbToGray};
pub use patterns::{Diverge, Layout, MatMul};
pub use peak::{Copy, CopyKind, MAD_COUNTS, Mad};
pub use registry::{Entry, Param, Problem, Sizes, all, find, from_record, lookup, names};
pub use sum_matrix::SumMatrix;
pub use sum_matrix_mix::SumMatrixMix;
pub use traced::{Launchable, Traced};
pub use transpose::{Transpose, VARIANTS as TRANSPOSES, Variant as TransposeVariant};

use rayon::prelude::*;

use std::borrow::Cow;

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
    /// The kernel's parameter name (`A`, `B`, `C`; a user's kernel names its own).
    pub name: Cow<'static, str>,
    /// Number of f32 elements.
    pub len: usize,
    /// Input or output.
    pub role: Role,
}

impl Buffer {
    /// An input buffer of `len` elements.
    pub fn input(name: impl Into<Cow<'static, str>>, len: usize) -> Self {
        Buffer { name: name.into(), len, role: Role::Input }
    }

    /// An output buffer of `len` elements.
    pub fn output(name: impl Into<Cow<'static, str>>, len: usize) -> Self {
        Buffer { name: name.into(), len, role: Role::Output }
    }
}

/// Where a kernel's code comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Module<'a> {
    /// A module built from `kernels/*.cu` and embedded in the binary, by its file stem ([`crate::ptx::module`]).
    Embedded(&'static str),
    /// PTX text given at run time (a user's `.ptx` file, or NVRTC's output), with a name that tells it
    /// apart in caches and messages.
    Ptx {
        /// Its name (a file name, or a source hash with its defines).
        name: &'a str,
        /// The PTX.
        text: &'a str,
    },
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
    /// A global atomic (`atom`, `red`): a read-modify-write that L2 performs, moving through L1 and the
    /// crossbar as a store does; counted with the stores' traffic and apart from them in the metrics
    /// (nvprof's `gst_*` leave atomics out).
    Atomic,
    /// A global atomic that ptxas folds across a warp's lanes where they share its address (`add`,
    /// `and`, `or`, `xor`, `min`, `max` on 32-bit integers: `VOTEU.ANY` + `REDUX` + one lane's `REDG`,
    /// sm_80 and newer): otherwise as [`AccessKind::Atomic`].
    AtomicFold,
    /// A shared-memory load (`index` is a 4-byte word offset in the block's shared memory).
    SharedLoad,
    /// A shared-memory store (`index` as for [`AccessKind::SharedLoad`]).
    SharedStore,
}

impl AccessKind {
    /// A global atomic, folded by ptxas or not.
    pub fn is_atomic(self) -> bool {
        matches!(self, AccessKind::Atomic | AccessKind::AtomicFold)
    }
}

/// One memory access of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The instruction it belongs to (accesses of one warp with the same `insn` and kind form one request):
    /// a thread's accesses in order, numbered from 0 (ids up to 2^32, past any thread's access count).
    pub insn: u32,
    /// Load or store, global or shared.
    pub kind: AccessKind,
    /// Buffer index in [`Kernel::buffers`] (0 for shared memory).
    pub buffer: u8,
    /// Element index in that buffer; for shared memory, the 4-byte word offset from the start of the
    /// block's shared memory (static arrays first, then the dynamic one, as ptxas lays them out), which
    /// decides the bank.
    pub index: u64,
    /// The byte within that word where an access narrower than a word starts (a `char` or `short`
    /// lane's; 0 otherwise): lanes on different bytes of one word ask for bytes of their own.
    pub byte: u8,
    /// Bytes accessed (4 for a float, 16 for a float4).
    pub bytes: u8,
}

impl Access {
    /// A global load of `bytes` at element `index` of buffer `buffer`.
    pub fn load(insn: usize, buffer: u8, index: u64, bytes: u8) -> Self {
        Access { insn: insn as u32, kind: AccessKind::Load, buffer, index, byte: 0, bytes }
    }
    /// A global store.
    pub fn store(insn: usize, buffer: u8, index: u64, bytes: u8) -> Self {
        Access { insn: insn as u32, kind: AccessKind::Store, buffer, index, byte: 0, bytes }
    }
    /// A global atomic.
    pub fn atomic(insn: usize, buffer: u8, index: u64, bytes: u8) -> Self {
        Access { insn: insn as u32, kind: AccessKind::Atomic, buffer, index, byte: 0, bytes }
    }
    /// A global atomic ptxas folds across the lanes that share its address ([`AccessKind::AtomicFold`]).
    pub fn atomic_fold(insn: usize, buffer: u8, index: u64, bytes: u8) -> Self {
        Access { insn: insn as u32, kind: AccessKind::AtomicFold, buffer, index, byte: 0, bytes }
    }
    /// A shared-memory load of `bytes` at word `word`.
    pub fn shared_load(insn: usize, word: u64, bytes: u8) -> Self {
        Access { insn: insn as u32, kind: AccessKind::SharedLoad, buffer: 0, index: word, byte: 0, bytes }
    }
    /// A shared-memory store.
    pub fn shared_store(insn: usize, word: u64, bytes: u8) -> Self {
        Access { insn: insn as u32, kind: AccessKind::SharedStore, buffer: 0, index: word, byte: 0, bytes }
    }
    /// Its first byte from its buffer's start (a global access's; words for shared memory's).
    pub fn offset(&self) -> u64 {
        self.index * 4 + self.byte as u64
    }
    /// The same access at byte address `addr`: where in its word it starts (kept only for accesses
    /// narrower than a word, which are aligned to their size).
    pub fn at_byte(self, addr: u64) -> Self {
        Access { byte: if self.bytes < 4 { (addr % 4) as u8 } else { 0 }, ..self }
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
    /// Name on the command line and in reports (`sum-matrix`).
    fn name(&self) -> &str;
    /// PTX entry point, also the name profilers print (`sumMatrixOnGPU2D`).
    fn entry(&self) -> &str;
    /// The module its entry is in.
    fn module(&self) -> Module<'_>;
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
    /// Its entry's parsed PTX and what the launch's read-only buffers hold, where the kernel keeps them
    /// (a traced kernel), so that the model runs that code on that memory without parsing
    /// [`Kernel::module`] again.
    fn program(&self) -> Option<(&crate::ptx::run::Program, &crate::ptx::mem::Memory)> {
        None
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
    /// Global loads a thread of a `block`-shaped launch waits for one after another: a loop the
    /// compiled code does not unroll, whose body uses its load before the next iteration loads (the
    /// time model charges each a DRAM round trip). 1 when the loads are issued together.
    fn serial_loads(&self, _block: Dim3) -> f64 {
        1.0
    }
    /// Barriers that close the block's set-up, if it has one: work each block does once before its
    /// threads' own, by its first warp while the others wait (a table in shared memory). The time
    /// model prices the code up to the last of them once per block instead of once per warp. 0: none
    /// (the model reads set-ups closed by up to 4 barriers).
    fn setup_barriers(&self) -> u32 {
        0
    }
}

/// Block shapes `selftest` runs the 2D kernels with.
const SELFTEST_2D: &str = "32x8,16x16,128x1,1x64";
/// Block shapes `selftest` runs the 1D kernels with.
const SELFTEST_1D: &str = "256,128,1000,1";

/// What the 1D kernels of source 000 and 002 share (`..FLAT_1D` in their entries): nx x ny elements,
/// 8192 x 8192 by default, 1D selftest blocks. A template, not a kernel: its own fields are blank.
const FLAT_1D: Entry = Entry {
    name: "",
    entry: "",
    about: "",
    params: &[(Param::Nx, 8192.0), (Param::Ny, 8192.0)],
    selftest: &[(Param::Nx, 1000.0), (Param::Ny, 772.0)],
    selftest_blocks: SELFTEST_1D,
    build: |_| Err(crate::Error::internal("a registry template was built as a kernel")),
};

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
    fn seed_grids() {
        assert_eq!(grid_2d(1 << 14, 1 << 14, Dim3::new(32, 16, 1)), Dim3::new(512, 1024, 1));
        assert_eq!(grid_2d(100, 10, Dim3::new(32, 3, 1)), Dim3::new(4, 4, 1));
        assert_eq!(grid_2d(100, 10, Dim3::new(0, 3, 1)).x, 0);
    }
}
