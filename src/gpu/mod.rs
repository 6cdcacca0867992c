//! The GPU behind a small trait: the real CUDA backend (cudarc, driver API, loaded at run time) and a
//! deterministic mock, so the whole pipeline runs end to end in CI without a GPU.

pub mod calibrate;
mod cuda;
pub mod driver_check;
mod mock;
mod nvml;
pub mod probe;
pub mod user;

pub use cuda::{CudaBackend, cache_key};
pub use mock::MockBackend;
pub use user::{Compare, Expect, Tally, UserArg, UserGpu};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::kernels::Kernel;
use crate::model::arch::Arch;
use crate::profile::Unavailable;
use crate::record::{Source, Verification};
use crate::spec::Dim3;

/// The limits a configuration is validated against before launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceLimits {
    /// Threads per warp.
    pub warp_size: u32,
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Block extents.
    pub max_block_dim: [u32; 3],
    /// Grid extents.
    pub max_grid_dim: [u32; 3],
    /// Resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Registers per block.
    pub regs_per_block: u32,
    /// Registers per SM.
    pub regs_per_sm: u32,
    /// Shared memory per block without opt-in, bytes.
    pub smem_per_block: u32,
    /// Shared memory per block with opt-in, bytes.
    pub smem_per_block_optin: u32,
    /// Shared memory per SM, bytes.
    pub smem_per_sm: u32,
    /// Shared memory the driver reserves per block, bytes.
    pub reserved_smem_per_block: u32,
}

impl DeviceLimits {
    /// The limits of an arch of the database.
    pub fn from_arch(a: &Arch) -> Self {
        DeviceLimits {
            warp_size: 32,
            max_threads_per_block: a.max_threads_per_block,
            max_block_dim: a.max_block_dim,
            max_grid_dim: a.max_grid_dim,
            max_threads_per_sm: a.max_threads_per_sm(),
            max_blocks_per_sm: a.max_blocks_per_sm,
            regs_per_block: a.regs_per_block,
            regs_per_sm: a.regs_per_sm,
            smem_per_block: a.smem_per_block,
            smem_per_block_optin: a.smem_per_block_optin,
            smem_per_sm: a.smem_per_sm,
            reserved_smem_per_block: a.reserved_smem_per_block,
        }
    }
}

/// Where a report's device description, and so its values, came from (the `backend` field of the JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Measured on a GPU through the CUDA backend.
    Cuda,
    /// The mock backend (tests, CI): no value is real.
    Mock,
    /// warpscope's model, no GPU (`estimate`).
    Model,
    /// Imported from Nsight Compute output.
    Ncu,
    /// Imported from nvprof output.
    Nvprof,
    /// warpscope records read from JSON Lines, which do not describe the device.
    Jsonl,
    /// warpscope records read from its CSV.
    WarpscopeCsv,
}

impl Origin {
    /// The name every output uses (as in the JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Cuda => "cuda",
            Origin::Mock => "mock",
            Origin::Model => "model",
            Origin::Ncu => "ncu",
            Origin::Nvprof => "nvprof",
            Origin::Jsonl => "jsonl",
            Origin::WarpscopeCsv => "warpscope-csv",
        }
    }

    /// Whether warpscope itself produced the values (not another tool).
    pub fn is_warpscope(self) -> bool {
        !matches!(self, Origin::Ncu | Origin::Nvprof)
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a report says about the device (the `device` object of the JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// CUDA ordinal.
    pub ordinal: u32,
    /// Product name; empty when the source does not name it (an Nsight Compute details page).
    pub name: String,
    /// Compute capability, `9.0`; `null` when the source does not say (nvprof output).
    #[serde(default)]
    pub compute_capability: Option<String>,
    /// Where the description and the values came from.
    pub backend: Origin,
    /// Streaming multiprocessors; `null` when unknown.
    #[serde(default)]
    pub sms: Option<u32>,
    /// Largest SM clock, MHz.
    pub sm_clock_mhz: Option<u32>,
    /// Memory clock, MHz.
    pub mem_clock_mhz: Option<u32>,
    /// Memory bus width, bits.
    pub mem_bus_width_bits: Option<u32>,
    /// Device memory, bytes; `null` when unknown.
    #[serde(default)]
    pub memory_bytes: Option<u64>,
    /// L2 cache, bytes; `null` when unknown.
    #[serde(default)]
    pub l2_bytes: Option<u64>,
    /// Theoretical DRAM bandwidth: 2 x memory clock x bus width, GB/s.
    pub peak_bandwidth_gbs: Option<f64>,
    /// Driver version (NVML) and the CUDA version it supports.
    pub driver: Option<String>,
    /// PCI bus id.
    #[serde(default)]
    pub pci_bus_id: Option<String>,
    /// Power limit (NVML), watts.
    #[serde(default)]
    pub power_limit_w: Option<f64>,
    /// Validation limits; `null` for a device known only from another tool's output.
    #[serde(default)]
    pub limits: Option<DeviceLimits>,
}

impl DeviceInfo {
    /// A device known only by name, compute capability and the backend that describes it (no clocks,
    /// memory or driver: the model, the mock); `limits` from `arch`. Callers fill in what they know
    /// with struct-update syntax.
    pub fn offline(name: String, compute_capability: String, backend: Origin, arch: &crate::model::arch::Arch) -> Self {
        DeviceInfo {
            compute_capability: Some(compute_capability),
            limits: Some(DeviceLimits::from_arch(arch)),
            ..DeviceInfo::described(name, backend)
        }
    }

    /// A device known only as a source describes it: a name (possibly empty) and the tool; every
    /// other field unknown until the caller fills in what the source states.
    pub fn described(name: String, backend: Origin) -> Self {
        DeviceInfo {
            ordinal: 0,
            name,
            compute_capability: None,
            backend,
            sms: None,
            sm_clock_mhz: None,
            mem_clock_mhz: None,
            mem_bus_width_bits: None,
            memory_bytes: None,
            l2_bytes: None,
            peak_bandwidth_gbs: None,
            driver: None,
            pci_bus_id: None,
            power_limit_w: None,
            limits: None,
        }
    }

    /// The device of records read from JSON Lines, which do not say.
    pub fn unknown() -> Self {
        DeviceInfo::described(String::new(), Origin::Jsonl)
    }

    /// Compute capability as numbers ((0, 0) when unknown).
    pub fn cc(&self) -> (u32, u32) {
        let mut it = self.compute_capability.as_deref().unwrap_or("").split('.').map(|p| p.parse().unwrap_or(0));
        (it.next().unwrap_or(0), it.next().unwrap_or(0))
    }

    /// The validation limits, or a usage error naming the device when it has none (a device only
    /// another tool's output describes).
    pub fn checked_limits(&self) -> Result<&DeviceLimits> {
        self.limits.as_ref().ok_or_else(|| {
            crate::error::Error::usage(format!("device '{}' ({}) has no known limits", self.name, self.backend))
        })
    }
}

/// A kernel's compiled resources, as the driver reports them (or ptxas for the model).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelAttrs {
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block, bytes.
    pub static_smem: u32,
    /// Local memory per thread (spills, stack), bytes.
    pub local_bytes: u32,
    /// Largest block the compiled kernel can launch with (registers can cap it under the device limit).
    pub max_threads_per_block: u32,
}

/// The CPU reference of the current problem (one vector per output buffer, in buffer order), shared
/// read-only: a backend keeps a handle only where it compares on the host.
pub type Reference = std::sync::Arc<Vec<Vec<f32>>>;

/// Where a backend compares outputs with the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOn {
    /// On the GPU, against a copy of the reference in device memory: only a tally is copied back.
    Device,
    /// On the host (the reference does not fit beside the buffers): outputs are copied back.
    Host,
}

/// Where the time of one verified launch went, host wall seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VerifyTimes {
    /// Poisoning the outputs, launching, and the kernel's run.
    pub launch: f64,
    /// Comparing every output element with the reference.
    pub compare: f64,
    /// Copying back what the comparison needs: the tally (a few bytes) or the outputs.
    pub copy_back: f64,
}

/// A configuration ready to launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Grid in blocks.
    pub grid: Dim3,
    /// Block in threads.
    pub block: Dim3,
    /// Dynamic shared memory, bytes.
    pub dynamic_smem: u32,
}

/// What the sweep needs from a GPU. One problem (kernel + buffers) is current at a time.
pub trait Backend: Send {
    /// The device.
    fn info(&self) -> &DeviceInfo;
    /// `Measured` for a real GPU, `Mock` for the mock.
    fn source(&self) -> Source;
    /// Loads `kernel`'s module and makes it current; returns its attributes.
    fn load(&mut self, kernel: &dyn Kernel) -> Result<KernelAttrs>;
    /// Resident blocks per SM for the current kernel (the driver's occupancy calculator).
    fn max_active_blocks(&mut self, block_threads: u32, dynamic_smem: u32) -> Result<u32>;
    /// Allocates the current kernel's device buffers and fills the inputs with
    /// [`crate::kernels::uniform`] from `seed` (on the device, so they never cross PCIe). Runs while the
    /// CPU computes the same inputs and the reference.
    fn upload(&mut self, kernel: &dyn Kernel, seed: u64) -> Result<()>;
    /// Checks the generated inputs against the host's copy `inputs` (a sample of each), and takes the
    /// CPU `reference` for [`Backend::launch_verified`]: copied to the device once where it fits beside
    /// the buffers, else kept on the host. Says where the outputs will be compared.
    fn check_inputs(&mut self, kernel: &dyn Kernel, inputs: &[Vec<f32>], reference: &Reference) -> Result<CompareOn>;
    /// Poisons the outputs with NaN, launches once, and compares every output element with the
    /// reference under the kernel's tolerance, with [`crate::verify::compare`]'s arithmetic wherever it
    /// runs. [`crate::Error::LaunchRejected`] means the driver refused this configuration (the sweep
    /// goes on).
    fn launch_verified(&mut self, kernel: &dyn Kernel, launch: &Launch) -> Result<(Verification, VerifyTimes)>;
    /// Copies the current outputs (what the last launch wrote) back to the host, in buffer order.
    fn outputs(&mut self) -> Result<Vec<Vec<f32>>>;
    /// `warmup` untimed launches, then `iters` launches timed one by one with CUDA events (ms each);
    /// `cold` flushes L2 before each timed launch (outside the events).
    fn time(&mut self, kernel: &dyn Kernel, launch: &Launch, warmup: u32, iters: u32, cold: bool) -> Result<Vec<f64>>;
    /// Device memory free now, bytes; `None` where unknown.
    fn free_memory(&self) -> Option<u64> {
        None
    }
    /// Clocks, temperature, power and throttling seen during the last [`Backend::time`] (NVML);
    /// `None` where they cannot be read.
    fn last_conditions(&self) -> Option<crate::record::Conditions> {
        None
    }
    /// A device-to-device cuMemcpy between two scratch buffers large enough to miss L2 (4 x L2, at
    /// least 256 MiB), timed like [`Backend::time`]: the DRAM bandwidth records are compared with.
    /// Returns the bytes copied and the per-iteration times.
    fn memcpy(&mut self, warmup: u32, iters: u32) -> Result<(u64, Vec<f64>)>;
    /// Runs the calibration microbenchmarks (kernels/calibrate.cu) and returns what they measured; the
    /// mock returns made-up figures (marked `mock` by [`calibrate::calibration`]).
    fn calibrate(&mut self) -> Result<crate::model::calibration::Measurements>;
    /// Runs `kernel` once on the given inputs (not random ones: an image to blur, say) and returns its
    /// outputs. Loads the kernel; the current problem's buffers are released.
    fn apply(&mut self, kernel: &dyn Kernel, launch: &Launch, inputs: &[&[f32]]) -> Result<Vec<Vec<f32>>>;
    /// Prepares hardware counters (Nsight Compute names with rollups) for measurements of up to
    /// `window` launches each; returns the replay passes one measurement takes, or why counters cannot
    /// be collected here.
    fn enable_counters(&mut self, counters: &[String], window: usize) -> std::result::Result<usize, Unavailable>;
    /// Launches the current kernel once with each of `launches` (at most the `window` given to
    /// [`Backend::enable_counters`]), the whole list once per replay pass, under the counters; for each
    /// launch, one value per counter in the order given to [`Backend::enable_counters`].
    fn measure_counters(
        &mut self,
        kernel: &dyn Kernel,
        launches: &[Launch],
    ) -> std::result::Result<Vec<Vec<f64>>, Unavailable>;
    /// Users' kernels (kernel files), where this backend can run them (not the mock).
    fn user(&mut self) -> Option<&mut dyn UserGpu> {
        None
    }
}

/// Which backend to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The real GPU.
    Cuda,
    /// The deterministic mock (tests, CI).
    Mock,
}

/// How many devices `kind` has.
pub fn device_count(kind: BackendKind) -> Result<u32> {
    match kind {
        BackendKind::Cuda => cuda::device_count(),
        BackendKind::Mock => Ok(mock::device_count()),
    }
}

/// Starts NVML on a thread of its own, so that it is ready when the devices open (their clocks and
/// monitors use it) instead of being initialised on the way: the driver's initialisation and a
/// context take 0.45-0.6 s on an H100 host. Dropping the guard waits for it.
pub fn prepare(kind: BackendKind) -> Prepared {
    Prepared((kind == BackendKind::Cuda).then(|| std::thread::spawn(nvml::prepare)))
}

/// See [`prepare`].
pub struct Prepared(Option<std::thread::JoinHandle<()>>);

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            let _ = t.join();
        }
    }
}

/// Opens device `ordinal` of `kind`.
pub fn open(kind: BackendKind, ordinal: u32) -> Result<Box<dyn Backend>> {
    Ok(match kind {
        BackendKind::Cuda => Box::new(CudaBackend::open(ordinal)?),
        BackendKind::Mock => Box::new(MockBackend::new(ordinal)?),
    })
}

/// Every device of the backend (for `warpscope devices`).
pub fn list(kind: BackendKind) -> Result<Vec<DeviceInfo>> {
    match kind {
        BackendKind::Cuda => cuda::list_devices(),
        BackendKind::Mock => (0..mock::device_count()).map(|d| Ok(MockBackend::new(d)?.info().clone())).collect(),
    }
}
