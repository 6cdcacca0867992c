//! The only unsafe CUPTI code: finding and loading libcupti, the Range Profiler + Profiler Host calls
//! (struct layouts from cudarc's `cupti::sys`, symbols resolved here so that a missing library or entry
//! point is an error, not a panic), and RAII for the profiler objects. Call order per NVIDIA's CUPTI
//! documentation and ../shared/docs/cupti-notes.md. The Callback and Activity APIs that `warpscope
//! nvprof`'s injection library uses inside a profiled program live in the submodules.

pub mod activity;
pub mod callback;

use std::ffi::{CStr, CString, c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use cudarc::cupti::sys as c;
use cudarc::driver::sys::CUcontext;

use super::Unavailable;

type Call<P> = unsafe extern "C" fn(*mut P) -> u32;

/// CUPTI's callback type with the domain passed as its integer value (a newer CUPTI may pass domains
/// the bindings' enum does not know).
type RawCallback = Option<unsafe extern "C" fn(*mut c_void, u32, u32, *const c_void)>;

/// Callback API entry points (enum-typed arguments passed as their `u32` values).
struct CallbackFns {
    subscribe: unsafe extern "C" fn(*mut c::CUpti_SubscriberHandle, RawCallback, *mut c_void) -> u32,
    enable_callback: unsafe extern "C" fn(u32, c::CUpti_SubscriberHandle, u32, u32) -> u32,
    context_id: unsafe extern "C" fn(CUcontext, *mut u32) -> u32,
    device_id: unsafe extern "C" fn(CUcontext, *mut u32) -> u32,
    stream_id_ex: unsafe extern "C" fn(CUcontext, cudarc::driver::sys::CUstream, u8, *mut u32) -> u32,
    callback_name: unsafe extern "C" fn(u32, u32, *mut *const c_char) -> u32,
    version: unsafe extern "C" fn(*mut u32) -> u32,
}

/// Activity API entry points.
struct ActivityFns {
    register: unsafe extern "C" fn(c::CUpti_BuffersCallbackRequestFunc, c::CUpti_BuffersCallbackCompleteFunc) -> u32,
    enable: unsafe extern "C" fn(u32) -> u32,
    disable: unsafe extern "C" fn(u32) -> u32,
    flush_all: unsafe extern "C" fn(u32) -> u32,
    next_record: unsafe extern "C" fn(*mut u8, usize, *mut *mut c::CUpti_Activity) -> u32,
    dropped: unsafe extern "C" fn(CUcontext, u32, *mut usize) -> u32,
    timestamp: unsafe extern "C" fn(*mut u64) -> u32,
    flush_period: Option<unsafe extern "C" fn(u32) -> u32>,
}

/// The entry points warpscope uses, resolved once.
struct Fns {
    get_result_string: unsafe extern "C" fn(u32, *mut *const c_char) -> u32,
    initialize: Call<c::CUpti_Profiler_Initialize_Params>,
    deinitialize: Call<c::CUpti_Profiler_DeInitialize_Params>,
    chip_name: Call<c::CUpti_Device_GetChipName_Params>,
    availability: Call<c::CUpti_Profiler_GetCounterAvailability_Params>,
    host_init: Call<c::CUpti_Profiler_Host_Initialize_Params>,
    host_deinit: Call<c::CUpti_Profiler_Host_Deinitialize_Params>,
    add_metrics: Call<c::CUpti_Profiler_Host_ConfigAddMetrics_Params>,
    base_metrics: Call<c::CUpti_Profiler_Host_GetBaseMetrics_Params>,
    config_size: Call<c::CUpti_Profiler_Host_GetConfigImageSize_Params>,
    config_image: Call<c::CUpti_Profiler_Host_GetConfigImage_Params>,
    num_passes: Call<c::CUpti_Profiler_Host_GetNumOfPasses_Params>,
    evaluate: Call<c::CUpti_Profiler_Host_EvaluateToGpuValues_Params>,
    enable: Call<c::CUpti_RangeProfiler_Enable_Params>,
    disable: Call<c::CUpti_RangeProfiler_Disable_Params>,
    data_size: Call<c::CUpti_RangeProfiler_GetCounterDataSize_Params>,
    data_init: Call<c::CUpti_RangeProfiler_CounterDataImage_Initialize_Params>,
    set_config: Call<c::CUpti_RangeProfiler_SetConfig_Params>,
    start: Call<c::CUpti_RangeProfiler_Start_Params>,
    stop: Call<c::CUpti_RangeProfiler_Stop_Params>,
    decode: Call<c::CUpti_RangeProfiler_DecodeData_Params>,
    data_info: Call<c::CUpti_RangeProfiler_GetCounterDataInfo_Params>,
    cb: CallbackFns,
    act: ActivityFns,
}

/// A loaded libcupti.
pub struct Lib {
    fns: Fns,
    path: PathBuf,
    _lib: libloading::Library,
}

/// Where to look for libcupti, in order: `WARPSCOPE_CUPTI` (a file or a folder), CUDA's usual places,
/// pip wheels, then the loader's own search.
pub fn candidates() -> Vec<PathBuf> {
    crate::gpu::probe::library_candidates(
        "WARPSCOPE_CUPTI",
        &["libcupti.so", "libcupti.so.13", "libcupti.so.12"],
        &["extras/CUPTI/lib64", "lib64", "targets/*/lib"],
    )
}

macro_rules! sym {
    ($lib:expr, $path:expr, $name:literal) => {
        // SAFETY: the symbol's type is the documented CUPTI signature (params struct pointer -> CUptiResult).
        *unsafe { $lib.get($name.as_bytes()) }
            .map_err(|_| Unavailable::TooOld(format!("{} has no {}", $path.display(), $name)))?
    };
}

/// The process's libcupti, loaded on first use.
pub fn lib() -> Result<&'static Lib, Unavailable> {
    static LIB: std::sync::OnceLock<Result<Lib, Unavailable>> = std::sync::OnceLock::new();
    LIB.get_or_init(Lib::load).as_ref().map_err(Clone::clone)
}

impl Lib {
    /// Loads the first libcupti of [`candidates`] that opens and has every entry point.
    pub fn load() -> Result<Self, Unavailable> {
        let mut tried = Vec::new();
        let mut too_old = None;
        for path in candidates() {
            // SAFETY: loading NVIDIA's profiling library; its initialisers only register with the driver.
            match unsafe { libloading::Library::new(&path) } {
                Ok(lib) => match Lib::resolve(lib, &path) {
                    Ok(l) => return Ok(l),
                    Err(e) => too_old = Some(e),
                },
                Err(_) => tried.push(path.display().to_string()),
            }
        }
        Err(too_old.unwrap_or_else(|| Unavailable::NotFound(format!("tried {}", tried.join(", ")))))
    }

    fn resolve(lib: libloading::Library, path: &Path) -> Result<Self, Unavailable> {
        let fns = Fns {
            get_result_string: sym!(lib, path, "cuptiGetResultString"),
            initialize: sym!(lib, path, "cuptiProfilerInitialize"),
            deinitialize: sym!(lib, path, "cuptiProfilerDeInitialize"),
            chip_name: sym!(lib, path, "cuptiDeviceGetChipName"),
            availability: sym!(lib, path, "cuptiProfilerGetCounterAvailability"),
            host_init: sym!(lib, path, "cuptiProfilerHostInitialize"),
            host_deinit: sym!(lib, path, "cuptiProfilerHostDeinitialize"),
            add_metrics: sym!(lib, path, "cuptiProfilerHostConfigAddMetrics"),
            base_metrics: sym!(lib, path, "cuptiProfilerHostGetBaseMetrics"),
            config_size: sym!(lib, path, "cuptiProfilerHostGetConfigImageSize"),
            config_image: sym!(lib, path, "cuptiProfilerHostGetConfigImage"),
            num_passes: sym!(lib, path, "cuptiProfilerHostGetNumOfPasses"),
            evaluate: sym!(lib, path, "cuptiProfilerHostEvaluateToGpuValues"),
            enable: sym!(lib, path, "cuptiRangeProfilerEnable"),
            disable: sym!(lib, path, "cuptiRangeProfilerDisable"),
            data_size: sym!(lib, path, "cuptiRangeProfilerGetCounterDataSize"),
            data_init: sym!(lib, path, "cuptiRangeProfilerCounterDataImageInitialize"),
            set_config: sym!(lib, path, "cuptiRangeProfilerSetConfig"),
            start: sym!(lib, path, "cuptiRangeProfilerStart"),
            stop: sym!(lib, path, "cuptiRangeProfilerStop"),
            decode: sym!(lib, path, "cuptiRangeProfilerDecodeData"),
            data_info: sym!(lib, path, "cuptiRangeProfilerGetCounterDataInfo"),
            cb: CallbackFns {
                subscribe: sym!(lib, path, "cuptiSubscribe"),
                enable_callback: sym!(lib, path, "cuptiEnableCallback"),
                context_id: sym!(lib, path, "cuptiGetContextId"),
                device_id: sym!(lib, path, "cuptiGetDeviceId"),
                stream_id_ex: sym!(lib, path, "cuptiGetStreamIdEx"),
                callback_name: sym!(lib, path, "cuptiGetCallbackName"),
                version: sym!(lib, path, "cuptiGetVersion"),
            },
            act: ActivityFns {
                register: sym!(lib, path, "cuptiActivityRegisterCallbacks"),
                enable: sym!(lib, path, "cuptiActivityEnable"),
                disable: sym!(lib, path, "cuptiActivityDisable"),
                flush_all: sym!(lib, path, "cuptiActivityFlushAll"),
                next_record: sym!(lib, path, "cuptiActivityGetNextRecord"),
                dropped: sym!(lib, path, "cuptiActivityGetNumDroppedRecords"),
                timestamp: sym!(lib, path, "cuptiGetTimestamp"),
                // SAFETY: as for sym!; optional, CUPTI works without a periodic flush.
                flush_period: unsafe { lib.get(b"cuptiActivityFlushPeriod") }.ok().map(|f| *f),
            },
        };
        Ok(Lib { fns, path: path.to_path_buf(), _lib: lib })
    }

    /// The file that was loaded.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// CUPTI's API version (`cuptiGetVersion`): 24 for CUDA 12.6, 130001 for CUDA 13.0.1, ...
    pub fn version(&self) -> Result<u32, Unavailable> {
        let mut v = 0u32;
        // SAFETY: writes one u32.
        self.check("cuptiGetVersion", unsafe { (self.fns.cb.version)(&mut v) })?;
        Ok(v)
    }

    /// The CUDA major release a CUPTI API version belongs to (12 for 18..=99, 13 for 130000.., ...).
    pub fn cuda_major(api_version: u32) -> u32 {
        if api_version >= 10_000 { api_version / 10_000 } else { 12 }
    }

    /// Turns a CUPTI result into `Ok` or the matching [`Unavailable`].
    fn check(&self, call: &str, rc: u32) -> Result<(), Unavailable> {
        if rc == 0 {
            return Ok(());
        }
        let mut s: *const c_char = ptr::null();
        // SAFETY: cuptiGetResultString writes a pointer to a static string (or fails and leaves null).
        let text = if unsafe { (self.fns.get_result_string)(rc, &mut s) } == 0 && !s.is_null() {
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        } else {
            format!("CUPTI error {rc}")
        };
        Err(match rc {
            35 => Unavailable::NoPermission,
            26 => Unavailable::Busy,
            27 => Unavailable::Unsupported(format!(
                "{call}: {text} (the profiling API needs compute capability 7.5 or newer)"
            )),
            33 | 40 => Unavailable::Unsupported(format!("{call}: {text} (virtualized GPU)")),
            41 => Unavailable::Unsupported(format!("{call}: {text} (confidential computing)")),
            42..=45 => Unavailable::Unsupported(format!("{call}: {text}")),
            15 => {
                Unavailable::Failed(format!("{call}: {text} (is libnvperf_host.so next to {}?)", self.path.display()))
            }
            _ => Unavailable::Failed(format!("{call}: {text}")),
        })
    }
}

/// A params struct zeroed with its size set, as every CUPTI call wants.
macro_rules! params {
    ($ty:ident, $size:ident) => {{
        // SAFETY: CUPTI params structs are plain C structs (integers and pointers): all-zero is valid.
        #[allow(unused_unsafe)]
        let mut p: c::$ty = unsafe { std::mem::zeroed() };
        p.structSize = c::$size as usize;
        p
    }};
}

/// How the kernels of a measurement are replayed for the passes a metric set needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replay {
    /// CUPTI saves and restores device memory and relaunches each kernel itself, once per pass, inside
    /// the launch call.
    Kernel,
    /// The caller repeats the work between `start` and `stop` until every pass is submitted.
    User,
}

/// Live [`Session`]s: `cuptiProfilerDeInitialize` runs when the last one goes.
static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// Serializes CUPTI's process-wide profiler state and host objects across threads (one device thread
/// each with `--devices`): two `cuptiProfilerHostInitialize` at once failed with
/// CUPTI_ERROR_INVALID_CHIP_NAME (seen on 2 x H200), so initialisation, host set-up, metric evaluation and
/// tear-down take this lock. Everything per context (passes, decode) runs in parallel.
static HOST: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// [`HOST`], held; a panic elsewhere while holding it leaves nothing half-done that matters here.
fn host_lock() -> std::sync::MutexGuard<'static, ()> {
    HOST.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A profiling session on one context for one list of metrics: host object, config image, range
/// profiler and counter-data image. Dropping it tears everything down in reverse order.
pub struct Session {
    lib: &'static Lib,
    host: *mut c::CUpti_Profiler_Host_Object,
    profiler: *mut c::CUpti_RangeProfiler_Object,
    config: Vec<u8>,
    counter_data: Vec<u8>,
    names: Vec<CString>,
    /// For each metric asked, its place among `names` (those collected); `None` for a counter this chip
    /// does not have (not among its base metrics), which decodes as NaN.
    slots: Vec<Option<usize>>,
    max_ranges: usize,
    initialized: bool,
    /// Replay passes the metric set needs.
    pub passes: usize,
}

// SAFETY: the CUPTI objects a Session holds are plain handles that CUPTI allows to be used from any
// thread, one call at a time; callers serialize access (the injection library behind a mutex).
unsafe impl Send for Session {}

impl Session {
    /// Sets up counters `metrics` (full ncu names with rollups) on `ctx` (current on this thread),
    /// device `ordinal`, for one range per measurement.
    pub fn new(lib: &'static Lib, ctx: CUcontext, ordinal: usize, metrics: &[String]) -> Result<Self, Unavailable> {
        Self::with_ranges(lib, ctx, ordinal, metrics, 1)
    }

    /// As [`Session::new`], with room for `max_ranges` kernels (auto ranges) between decodes.
    pub fn with_ranges(
        lib: &'static Lib,
        ctx: CUcontext,
        ordinal: usize,
        metrics: &[String],
        max_ranges: usize,
    ) -> Result<Self, Unavailable> {
        let mut s = Self::host(lib, ctx, ordinal, metrics, max_ranges)?;
        s.enable(ctx)?;
        Ok(s)
    }

    /// Enables the range profiler on `ctx` and sizes the counter-data image.
    fn enable(&mut self, ctx: CUcontext) -> Result<(), Unavailable> {
        let (lib, f) = (self.lib, &self.lib.fns);
        let mut ptrs = self.name_ptrs();
        // SAFETY: params as CUPTI documents them; the name pointers live in `self.names`.
        unsafe {
            let mut p = params!(CUpti_RangeProfiler_Enable_Params, RangeProfiler_Enable_Params_STRUCT_SIZE);
            p.ctx = ctx;
            lib.check("cuptiRangeProfilerEnable", (f.enable)(&mut p))?;
            self.profiler = p.pRangeProfilerObject;

            let mut p = params!(
                CUpti_RangeProfiler_GetCounterDataSize_Params,
                RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE
            );
            p.pRangeProfilerObject = self.profiler;
            p.pMetricNames = ptrs.as_mut_ptr();
            p.numMetrics = ptrs.len();
            p.maxNumOfRanges = self.max_ranges;
            p.maxNumRangeTreeNodes = u32::try_from(self.max_ranges).unwrap_or(u32::MAX);
            lib.check("cuptiRangeProfilerGetCounterDataSize", (f.data_size)(&mut p))?;
            self.counter_data = vec![0u8; p.counterDataSize];
        }
        Ok(())
    }

    /// As [`Session::with_ranges`], with the device's counter-availability image kept in the file `cache`:
    /// asking the device for it took 0.13-0.25 s on an H200, serialized with the context's other work,
    /// and it only changes with the device, its driver and CUPTI (which the file's name must say). A
    /// cached image that CUPTI refuses is removed and asked for again.
    pub fn cached(
        lib: &'static Lib,
        ctx: CUcontext,
        ordinal: usize,
        metrics: &[String],
        max_ranges: usize,
        cache: &Path,
    ) -> Result<Self, Unavailable> {
        let mut image = std::fs::read(cache).ok().and_then(|file| unsealed(&file));
        let from_cache = image.is_some();
        let built = Self::host_with(lib, ctx, ordinal, metrics, max_ranges, &mut image).and_then(|mut s| {
            s.enable(ctx)?;
            Ok(s)
        });
        match built {
            Err(_) if from_cache => {
                let _ = std::fs::remove_file(cache);
                Self::cached(lib, ctx, ordinal, metrics, max_ranges, cache)
            }
            Ok(s) => {
                if let Some(image) = image.filter(|_| !from_cache) {
                    let _ = crate::gpu::calibrate::write_cache(cache, &sealed(&image));
                }
                Ok(s)
            }
            Err(e) => Err(e),
        }
    }

    /// Replay passes `metrics` need on the device of `ctx` (host-side only: nothing is enabled).
    pub fn passes_of(
        lib: &'static Lib,
        ctx: CUcontext,
        ordinal: usize,
        metrics: &[String],
    ) -> Result<usize, Unavailable> {
        Ok(Self::host(lib, ctx, ordinal, metrics, 1)?.passes)
    }

    /// The host half: profiler initialised, host object, config image and its pass count.
    fn host(
        lib: &'static Lib,
        ctx: CUcontext,
        ordinal: usize,
        metrics: &[String],
        max_ranges: usize,
    ) -> Result<Self, Unavailable> {
        Self::host_with(lib, ctx, ordinal, metrics, max_ranges, &mut None)
    }

    /// [`Session::host`] with the device's counter-availability image: the one given, or (`None`) asked
    /// of the device and left in `availability`.
    fn host_with(
        lib: &'static Lib,
        ctx: CUcontext,
        ordinal: usize,
        metrics: &[String],
        max_ranges: usize,
        availability: &mut Option<Vec<u8>>,
    ) -> Result<Self, Unavailable> {
        let f = &lib.fns;
        let names: Vec<CString> = metrics
            .iter()
            .map(|m| CString::new(m.as_str()).map_err(|_| Unavailable::Failed(format!("bad metric name {m:?}"))))
            .collect::<Result<_, _>>()?;
        let mut s = Session {
            lib,
            host: ptr::null_mut(),
            profiler: ptr::null_mut(),
            config: Vec::new(),
            counter_data: Vec::new(),
            names,
            slots: (0..metrics.len()).map(Some).collect(),
            max_ranges: max_ranges.max(1),
            initialized: false,
            passes: 0,
        };
        // Taken after `s`, so released before `s` is dropped on an early return (Drop takes it too).
        let _host = host_lock();
        unsafe {
            let mut p = params!(CUpti_Profiler_Initialize_Params, Profiler_Initialize_Params_STRUCT_SIZE);
            lib.check("cuptiProfilerInitialize", (f.initialize)(&mut p))?;
            SESSIONS.fetch_add(1, Ordering::SeqCst);
            s.initialized = true;

            let mut p = params!(CUpti_Device_GetChipName_Params, Device_GetChipName_Params_STRUCT_SIZE);
            p.deviceIndex = ordinal;
            lib.check("cuptiDeviceGetChipName", (f.chip_name)(&mut p))?;
            let chip = CStr::from_ptr(p.pChipName).to_owned();
            if availability.is_none() {
                *availability = Some(available_counters(lib, ctx)?);
            }
            let availability = availability.as_deref().unwrap_or_default();

            let mut p = params!(CUpti_Profiler_Host_Initialize_Params, Profiler_Host_Initialize_Params_STRUCT_SIZE);
            p.profilerType = c::CUpti_ProfilerType::CUPTI_PROFILER_TYPE_RANGE_PROFILER;
            p.pChipName = chip.as_ptr();
            p.pCounterAvailabilityImage = availability.as_ptr();
            lib.check("cuptiProfilerHostInitialize", (f.host_init)(&mut p))?;
            s.host = p.pHostObject;

            // Counters this chip does not have are left out and read as missing (NaN): CUPTI would refuse
            // the whole list for one of them. The chip's own list of base metrics says which; where
            // CUPTI cannot give it, the units known to be missing by chip name (LDGSTS before Ampere).
            let known = s.base_metrics();
            let on_chip: Vec<bool> = metrics
                .iter()
                .map(|m| match &known {
                    Some(set) => set.contains(m.split('.').next().unwrap_or(m)),
                    None => crate::metrics::on_chip(m, &chip.to_string_lossy()),
                })
                .collect();
            if on_chip.iter().any(|&on| !on) {
                let mut kept = 0;
                s.slots = on_chip
                    .iter()
                    .map(|&on| {
                        kept += usize::from(on);
                        on.then(|| kept - 1)
                    })
                    .collect();
                let mut i = 0;
                s.names.retain(|_| {
                    i += 1;
                    on_chip[i - 1]
                });
                if s.names.is_empty() {
                    return Err(Unavailable::Unsupported(format!(
                        "none of the counters asked for exists on {}",
                        chip.to_string_lossy()
                    )));
                }
            }

            let mut ptrs = s.name_ptrs();
            let mut p =
                params!(CUpti_Profiler_Host_ConfigAddMetrics_Params, Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
            p.pHostObject = s.host;
            p.ppMetricNames = ptrs.as_mut_ptr();
            p.numMetrics = ptrs.len();
            lib.check(
                "cuptiProfilerHostConfigAddMetrics (a metric name is not valid on this GPU?)",
                (f.add_metrics)(&mut p),
            )?;

            let mut p = params!(
                CUpti_Profiler_Host_GetConfigImageSize_Params,
                Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE
            );
            p.pHostObject = s.host;
            lib.check("cuptiProfilerHostGetConfigImageSize", (f.config_size)(&mut p))?;
            s.config = vec![0u8; p.configImageSize];
            let mut p =
                params!(CUpti_Profiler_Host_GetConfigImage_Params, Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
            p.pHostObject = s.host;
            p.configImageSize = s.config.len();
            p.pConfigImage = s.config.as_mut_ptr();
            lib.check("cuptiProfilerHostGetConfigImage", (f.config_image)(&mut p))?;

            let mut p =
                params!(CUpti_Profiler_Host_GetNumOfPasses_Params, Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
            p.configImageSize = s.config.len();
            p.pConfigImage = s.config.as_mut_ptr();
            lib.check("cuptiProfilerHostGetNumOfPasses", (f.num_passes)(&mut p))?;
            s.passes = p.numOfPasses;
        }
        Ok(s)
    }

    /// The base metrics (counters, ratios, throughputs) of the host object's chip, or `None` where
    /// CUPTI cannot list them.
    fn base_metrics(&self) -> Option<std::collections::HashSet<String>> {
        let f = &self.lib.fns;
        let mut set = std::collections::HashSet::new();
        for kind in [
            c::CUpti_MetricType::CUPTI_METRIC_TYPE_COUNTER,
            c::CUpti_MetricType::CUPTI_METRIC_TYPE_RATIO,
            c::CUpti_MetricType::CUPTI_METRIC_TYPE_THROUGHPUT,
        ] {
            // SAFETY: params as CUPTI documents them; the names it returns belong to the host object,
            // which outlives this call, and are copied out at once.
            unsafe {
                let mut p =
                    params!(CUpti_Profiler_Host_GetBaseMetrics_Params, Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
                p.pHostObject = self.host;
                p.metricType = kind;
                if self.lib.check("cuptiProfilerHostGetBaseMetrics", (f.base_metrics)(&mut p)).is_err()
                    || p.ppMetricNames.is_null()
                {
                    return None;
                }
                for i in 0..p.numMetrics {
                    let name = *p.ppMetricNames.add(i);
                    if !name.is_null() {
                        set.insert(CStr::from_ptr(name).to_string_lossy().into_owned());
                    }
                }
            }
        }
        (!set.is_empty()).then_some(set)
    }

    fn name_ptrs(&self) -> Vec<*const c_char> {
        self.names.iter().map(|n| n.as_ptr()).collect()
    }

    /// Runs `launch`, which launches `kernels` kernels, once per replay pass with each kernel its own
    /// auto range (user replay: the kernels warpscope runs rewrite their outputs entirely, so
    /// relaunching is correct), then returns one value per metric for each kernel, in launch order.
    /// The configuration image and counter-data image are the session's, reused: a measurement costs
    /// the passes and one decode.
    pub fn measure(
        &mut self,
        kernels: usize,
        mut launch: impl FnMut() -> Result<(), String>,
    ) -> Result<Vec<Vec<f64>>, Unavailable> {
        if kernels == 0 || kernels > self.max_ranges {
            return Err(Unavailable::Failed(format!(
                "{kernels} kernels to profile in a session made for 1 to {}",
                self.max_ranges
            )));
        }
        self.configure(Replay::User)?;
        // One pass per iteration; a generous cap guards against a library that never says "done".
        let cap = self.passes.max(1) + 64;
        let mut done = false;
        for _ in 0..cap {
            self.start()?;
            let launched = launch();
            done = self.stop()?;
            launched.map_err(Unavailable::Failed)?;
            if done {
                break;
            }
        }
        if !done {
            return Err(Unavailable::Failed("cuptiRangeProfilerStop never reported all passes submitted".into()));
        }
        let ranges = self.decode()?;
        if ranges.len() != kernels {
            return Err(Unavailable::Failed(format!(
                "{} profiled range(s) for {kernels} kernel launch(es)",
                ranges.len()
            )));
        }
        Ok(ranges)
    }

    /// Most kernels (auto ranges) one window may hold before [`Session::decode`].
    pub fn max_ranges(&self) -> usize {
        self.max_ranges
    }

    /// Empties the counter-data image and configures auto ranges with `replay`: what must precede the
    /// first [`Session::start`] and follow every [`Session::decode`].
    pub fn configure(&mut self, replay: Replay) -> Result<(), Unavailable> {
        let (lib, f) = (self.lib, &self.lib.fns);
        // SAFETY: the params point at buffers this Session owns, alive for the call.
        unsafe {
            let mut p = params!(
                CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
                RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE
            );
            p.pRangeProfilerObject = self.profiler;
            p.counterDataSize = self.counter_data.len();
            p.pCounterData = self.counter_data.as_mut_ptr();
            lib.check("cuptiRangeProfilerCounterDataImageInitialize", (f.data_init)(&mut p))?;

            let mut p = params!(CUpti_RangeProfiler_SetConfig_Params, RangeProfiler_SetConfig_Params_STRUCT_SIZE);
            p.pRangeProfilerObject = self.profiler;
            p.configSize = self.config.len();
            p.pConfig = self.config.as_ptr();
            p.counterDataImageSize = self.counter_data.len();
            p.pCounterDataImage = self.counter_data.as_mut_ptr();
            p.range = c::CUpti_ProfilerRange::CUPTI_AutoRange;
            p.replayMode = match replay {
                Replay::Kernel => c::CUpti_ProfilerReplayMode::CUPTI_KernelReplay,
                Replay::User => c::CUpti_ProfilerReplayMode::CUPTI_UserReplay,
            };
            p.maxRangesPerPass = self.max_ranges;
            p.numNestingLevels = 1;
            p.minNestingLevel = 1;
            p.passIndex = 0;
            p.targetNestingLevel = 1;
            lib.check("cuptiRangeProfilerSetConfig", (f.set_config)(&mut p))
        }
    }

    /// Starts profiling: every kernel launched on the context from now on is one range.
    pub fn start(&mut self) -> Result<(), Unavailable> {
        let mut p = params!(CUpti_RangeProfiler_Start_Params, RangeProfiler_Start_Params_STRUCT_SIZE);
        p.pRangeProfilerObject = self.profiler;
        // SAFETY: the profiler object is alive while self is.
        self.lib.check("cuptiRangeProfilerStart", unsafe { (self.lib.fns.start)(&mut p) })
    }

    /// Stops profiling; true once every replay pass has been submitted.
    pub fn stop(&mut self) -> Result<bool, Unavailable> {
        let mut p = params!(CUpti_RangeProfiler_Stop_Params, RangeProfiler_Stop_Params_STRUCT_SIZE);
        p.pRangeProfilerObject = self.profiler;
        // SAFETY: as for start.
        self.lib.check("cuptiRangeProfilerStop", unsafe { (self.lib.fns.stop)(&mut p) })?;
        Ok(p.isAllPassSubmitted != 0)
    }

    /// Decodes what the passes since [`Session::configure`] collected: one value per metric for each
    /// range (kernel), in launch order. Call [`Session::configure`] before profiling again.
    pub fn decode(&mut self) -> Result<Vec<Vec<f64>>, Unavailable> {
        let (lib, f) = (self.lib, &self.lib.fns);
        // SAFETY: the params point at buffers this Session owns; CUPTI writes `values` (one f64 per
        // metric name) and nothing else.
        unsafe {
            let mut p = params!(CUpti_RangeProfiler_DecodeData_Params, RangeProfiler_DecodeData_Params_STRUCT_SIZE);
            p.pRangeProfilerObject = self.profiler;
            lib.check("cuptiRangeProfilerDecodeData", (f.decode)(&mut p))?;
            if p.numOfRangeDropped > 0 {
                return Err(Unavailable::Failed(format!("{} range(s) dropped while decoding", p.numOfRangeDropped)));
            }

            let mut p = params!(
                CUpti_RangeProfiler_GetCounterDataInfo_Params,
                RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE
            );
            p.pCounterDataImage = self.counter_data.as_ptr();
            p.counterDataImageSize = self.counter_data.len();
            lib.check("cuptiRangeProfilerGetCounterDataInfo", (f.data_info)(&mut p))?;
            let ranges = p.numTotalRanges;

            let mut ptrs = self.name_ptrs();
            let mut out = Vec::with_capacity(ranges);
            let _host = host_lock();
            for range in 0..ranges {
                let mut values = vec![0f64; ptrs.len()];
                let mut p = params!(
                    CUpti_Profiler_Host_EvaluateToGpuValues_Params,
                    Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE
                );
                p.pHostObject = self.host;
                p.pCounterDataImage = self.counter_data.as_ptr();
                p.counterDataImageSize = self.counter_data.len();
                p.rangeIndex = range;
                p.ppMetricNames = ptrs.as_mut_ptr();
                p.numMetrics = ptrs.len();
                p.pMetricValues = values.as_mut_ptr();
                lib.check("cuptiProfilerHostEvaluateToGpuValues", (f.evaluate)(&mut p))?;
                out.push(self.slots.iter().map(|s| s.map_or(f64::NAN, |i| values[i])).collect());
            }
            Ok(out)
        }
    }
}

/// A counter-availability image as its cache file holds it: its SHA-256, then the image. CUPTI crashed
/// (SIGSEGV) on an image that was not one of its own, so a file is used only when it is whole.
fn sealed(image: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    let mut file = sha2::Sha256::digest(image).to_vec();
    file.extend_from_slice(image);
    file
}

/// The image in a cache file written by [`sealed`]; `None` when the file is not whole.
fn unsealed(file: &[u8]) -> Option<Vec<u8>> {
    use sha2::Digest;
    let (sum, image) = (file.get(..32)?, file.get(32..)?);
    (!image.is_empty() && sha2::Sha256::digest(image).as_slice() == sum).then(|| image.to_vec())
}

/// The counters the device of `ctx` offers now (CUPTI's counter-availability image); the profiler
/// must be initialised.
fn available_counters(lib: &'static Lib, ctx: CUcontext) -> Result<Vec<u8>, Unavailable> {
    let f = &lib.fns;
    let mut p =
        params!(CUpti_Profiler_GetCounterAvailability_Params, Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    p.ctx = ctx;
    // SAFETY: the first call sizes the image, the second fills a buffer of that size.
    unsafe {
        lib.check("cuptiProfilerGetCounterAvailability", (f.availability)(&mut p))?;
        let mut image = vec![0u8; p.counterAvailabilityImageSize];
        p.pCounterAvailabilityImage = image.as_mut_ptr();
        lib.check("cuptiProfilerGetCounterAvailability", (f.availability)(&mut p))?;
        Ok(image)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let f = &self.lib.fns;
        // SAFETY: each object is released once, in reverse order of creation; failures are ignored
        // (nothing useful can be done in Drop, and it must not panic).
        unsafe {
            if !self.profiler.is_null() {
                let mut p = params!(CUpti_RangeProfiler_Disable_Params, RangeProfiler_Disable_Params_STRUCT_SIZE);
                p.pRangeProfilerObject = self.profiler;
                (f.disable)(&mut p);
            }
            let _host = host_lock();
            if !self.host.is_null() {
                let mut p =
                    params!(CUpti_Profiler_Host_Deinitialize_Params, Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
                p.pHostObject = self.host;
                (f.host_deinit)(&mut p);
            }
            if self.initialized && SESSIONS.fetch_sub(1, Ordering::SeqCst) == 1 {
                let mut p = params!(CUpti_Profiler_DeInitialize_Params, Profiler_DeInitialize_Params_STRUCT_SIZE);
                (f.deinitialize)(&mut p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_whole_cache_file_gives_back_its_availability_image() {
        let image: Vec<u8> = (0..=255u8).cycle().take(9184).collect();
        let file = sealed(&image);
        assert_eq!(unsealed(&file).as_deref(), Some(image.as_slice()));
        let mut flipped = file.clone();
        flipped[1000] ^= 1;
        assert_eq!(unsealed(&flipped), None);
        assert_eq!(unsealed(&file[..file.len() - 1]), None);
        assert_eq!(unsealed(&file[..32]), None);
        assert_eq!(unsealed(&[]), None);
        assert_eq!(unsealed(&image[..100]), None);
    }
}
