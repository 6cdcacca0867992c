//! Measured hardware metrics: CUPTI's Range Profiler collects the Nsight Compute counters behind each
//! nvprof metric for one launch (every replay pass), inside warpscope's own process. The unsafe FFI is
//! in `cupti`; this module is its safe face, and the one place that knows why counters may be missing.

pub mod cupti;

use cudarc::driver::sys::CUcontext;

/// Why counters cannot be collected; each variant prints as one line with the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// No libcupti found.
    NotFound(String),
    /// libcupti lacks the Range Profiler (older than CUDA 12.6 Update 2).
    TooOld(String),
    /// ERR_NVGPUCTRPERM.
    NoPermission,
    /// Another profiler holds the counters.
    Busy,
    /// The device or platform cannot be profiled (MIG, vGPU, WSL, confidential computing, pre-Turing).
    Unsupported(String),
    /// Any other CUPTI failure.
    Failed(String),
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::NotFound(searched) => write!(
                f,
                "CUPTI not found ({searched}): install CUDA's CUPTI or `pip install nvidia-cuda-cupti`, or set WARPSCOPE_CUPTI=/path/to/libcupti.so"
            ),
            Unavailable::TooOld(what) => {
                write!(f, "CUPTI too old: {what}; the Range Profiler API needs CUPTI from CUDA 12.6 Update 2 or newer")
            }
            Unavailable::NoPermission => write!(
                f,
                "profiling not permitted (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, ncu's ERR_NVGPUCTRPERM): run as root, or set the driver option NVreg_RestrictProfilingToAdminUsers=0"
            ),
            Unavailable::Busy => {
                write!(
                    f,
                    "the GPU's performance counters are in use by another profiler (ncu, DCGM): stop it and retry"
                )
            }
            Unavailable::Unsupported(why) => write!(f, "hardware counters unsupported here: {why}"),
            Unavailable::Failed(why) => write!(f, "CUPTI failed: {why}"),
        }
    }
}

/// Counter collection for one metric set on one context: one configuration image and one counter-data
/// image for the whole sweep, reused by every measurement.
pub struct Counters {
    session: cupti::Session,
    /// Where the counter-availability image was kept: removed if a measurement fails, so that the next
    /// run asks the device again.
    cache: Option<std::path::PathBuf>,
}

impl Counters {
    /// Loads CUPTI (once per process) and prepares `counters` (ncu names with rollups, e.g.
    /// `sm__warps_active.avg.pct_of_peak_sustained_active`) on `ctx`, current on this thread, for
    /// measurements of up to `window` launches.
    /// With `availability_cache`, the device's counter-availability image is kept in that file
    /// (see [`cupti::Session::cached`]); its name must change with the device, its driver and CUPTI's
    /// version ([`Counters::cache_name`]).
    pub fn new(
        ctx: CUcontext,
        ordinal: usize,
        counters: &[String],
        window: usize,
        availability_cache: Option<&std::path::Path>,
    ) -> Result<Self, Unavailable> {
        let lib = cupti::lib()?;
        let session = match availability_cache {
            Some(path) => cupti::Session::cached(lib, ctx, ordinal, counters, window, path)?,
            None => cupti::Session::with_ranges(lib, ctx, ordinal, counters, window)?,
        };
        Ok(Counters { session, cache: availability_cache.map(ToOwned::to_owned) })
    }

    /// The file name, in a device's cache folder, of its counter-availability image: `device` names the
    /// device and its driver, and the loaded CUPTI's version is added.
    pub fn cache_name(device: &str) -> Result<String, Unavailable> {
        Ok(format!("{device}-cupti{}.availability", cupti::lib()?.version()?))
    }

    /// Replay passes per measurement.
    pub fn passes(&self) -> usize {
        self.session.passes
    }

    /// One value per counter for each of the `kernels` launches that `launch` performs (called once
    /// per replay pass, launching the same kernels in the same order each time), in launch order.
    pub fn measure(
        &mut self,
        kernels: usize,
        launch: impl FnMut() -> Result<(), String>,
    ) -> Result<Vec<Vec<f64>>, Unavailable> {
        let measured = self.session.measure(kernels, launch);
        if let (Err(_), Some(cache)) = (&measured, &self.cache) {
            let _ = std::fs::remove_file(cache);
        }
        measured
    }
}
