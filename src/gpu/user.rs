//! What running a user's kernel (a kernel file) needs from a GPU, at the byte level: a module built at
//! run time, typed buffers moved as bytes, raw argument lists, and telling a kernel that faulted (which
//! leaves its context unusable) from one the driver refused. Only the real GPU implements it: the mock
//! cannot run code it has never seen.

use super::{KernelAttrs, Launch};
use crate::error::Result;
use crate::profile::Unavailable;
use crate::userkernel::compile::Code;
use crate::userkernel::data::ElemType;

/// One launch argument of a user's kernel.
#[derive(Clone, Copy, Debug)]
pub enum UserArg<'a> {
    /// The device pointer of buffer `i` (as given to [`UserGpu::user_buffers`]).
    Buffer(usize),
    /// A value, as the bytes the kernel receives.
    Bytes(&'a [u8]),
}

/// What an expected output is kept from ([`UserGpu::user_expect`]).
#[derive(Clone, Copy, Debug)]
pub enum Expect<'a> {
    /// The contents of buffer `i` now (the first configuration's or the reference kernel's output).
    Buffer(usize),
    /// These bytes (an `.npy` file's).
    Bytes(&'a [u8]),
}

/// How an output is compared with its expected contents on the device: as the CPU's comparison does it
/// ([`crate::userkernel::check`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compare {
    /// The element type.
    pub ty: ElemType,
    /// Integers compared for equality (no tolerance given).
    pub exact: bool,
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
}

/// What a comparison on the device found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Elements that differ.
    pub mismatches: u64,
    /// The largest finite |got - expected|.
    pub max_abs_error: f64,
    /// The first element that differs: its index, what the GPU wrote and what was expected.
    pub first: Option<(u64, f64, f64)>,
}

/// A GPU that runs users' kernels. A launch that faults returns [`crate::Error::KernelFault`]: CUDA then
/// takes no more work from the process (the sweep goes on in a new one).
pub trait UserGpu {
    /// Loads `code` (once per `key`) and makes its `entry` current, allowing it `dynamic_smem` bytes of
    /// dynamic shared memory (above 48 KiB needs the function's opt-in); returns its attributes.
    fn user_load(&mut self, key: &str, code: &Code, entry: &str, dynamic_smem: u32) -> Result<KernelAttrs>;
    /// Fills the current module's `__constant__` (or `__device__`) variable `name` with `data`, which
    /// must fit in it.
    fn user_constant(&mut self, name: &str, data: &[u8]) -> Result<()>;
    /// Resident blocks per SM of the current user kernel (the driver's occupancy calculator).
    fn user_occupancy(&mut self, block_threads: u32, dynamic_smem: u32) -> Result<u32>;
    /// Allocates device buffers of these sizes in bytes, replacing the previous ones.
    fn user_buffers(&mut self, bytes: &[u64]) -> Result<()>;
    /// Copies `data` into buffer `i` (its size).
    fn user_write(&mut self, i: usize, data: &[u8]) -> Result<()>;
    /// Fills buffer `i` with `unit` repeated (an output's poison), on the device where `unit` repeats
    /// every 1, 2 or 4 bytes.
    fn user_fill(&mut self, i: usize, unit: &[u8]) -> Result<()>;
    /// Keeps a device copy of buffer `i`'s contents now (an in/out buffer's initial contents) to restore
    /// it from; `false` (none kept) where the device has no room. Dropped with the buffers.
    fn user_snapshot(&mut self, i: usize) -> Result<bool>;
    /// Restores buffer `i` from its snapshot; `false` where none was kept.
    fn user_restore(&mut self, i: usize) -> Result<bool>;
    /// Copies buffer `i` back.
    fn user_read(&mut self, i: usize) -> Result<Vec<u8>>;
    /// Keeps the expected outputs on the device, slot `k` from `from[k]`, replacing any kept before;
    /// `false` (and none kept) where the device has no room for them all.
    fn user_expect(&mut self, from: &[Expect<'_>]) -> Result<bool>;
    /// Compares the first `n` elements of buffer `i` with expected slot `slot`, on the device.
    fn user_compare(&mut self, i: usize, slot: usize, n: u64, how: &Compare) -> Result<Tally>;
    /// Launches the current user kernel once and waits for it.
    fn user_launch(&mut self, launch: &Launch, args: &[UserArg<'_>]) -> Result<()>;
    /// `warmup` untimed launches, then `iters` launches timed one by one with CUDA events (ms each);
    /// `cold` flushes L2 before each timed launch (outside the events).
    fn user_time(
        &mut self,
        launch: &Launch,
        args: &[UserArg<'_>],
        warmup: u32,
        iters: u32,
        cold: bool,
    ) -> Result<Vec<f64>>;
    /// The counters enabled with [`super::Backend::enable_counters`] over one launch.
    fn user_counters(&mut self, launch: &Launch, args: &[UserArg<'_>]) -> std::result::Result<Vec<f64>, Unavailable>;
}
