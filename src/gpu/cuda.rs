//! The real GPU, through cudarc's safe driver layer: module loading from the embedded PTX, buffers,
//! launches with any argument list, CUDA-event timing and the driver's occupancy calculator.
//! The driver is probed first (see `probe`), so a missing driver or symbol is an error, not a panic.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute as Attr, CUevent_flags, CUfunction_attribute as FnAttr, CUresult};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError,
    LaunchConfig, PinnedHostSlice, PushKernelArg, ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;

use super::{Backend, CompareOn, DeviceInfo, DeviceLimits, KernelAttrs, Launch, Reference, VerifyTimes, nvml, probe};
use crate::error::{Error, Result};
use crate::kernels::{Arg, Buffer, Kernel, Module, Role};
use crate::model::calibration::{Chase, InflightRun, Measurements, RowsPass, RunsPass};
use crate::profile::Unavailable;
use crate::ptx;
use crate::record::{Source, Verification};

mod user;
use crate::verify;

/// The bit pattern of a quiet NaN: what outputs are filled with before a verified launch.
const NAN_BITS: u32 = 0x7FC0_0000;

/// Turns a driver error into warpscope's, naming the call.
fn cu(call: &str) -> impl Fn(DriverError) -> Error + '_ {
    move |e| Error::Cuda { call: call.to_string(), message: describe(&e) }
}

fn describe(e: &DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{name}: {text}")
}

/// A CUDA device with one current problem.
pub struct CudaBackend {
    /// Declared first: dropped (CUPTI torn down) before the context goes.
    counters: Option<crate::profile::Counters>,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
    modules: HashMap<String, Arc<CudaModule>>,
    current: Option<Current>,
    /// `--cold`: the buffer read before each timed launch to evict L2 (allocated on first use).
    flush: Option<L2Flush>,
    /// NVML on this device, sampling while configurations are timed.
    monitor: Option<nvml::Monitor>,
    /// What the monitor saw during the last timing.
    conditions: Option<crate::record::Conditions>,
    /// A user's kernel and its buffers (kernel files).
    user: user::UserState,
}

/// Evicts L2 by reading a zeroed buffer of twice its size (calibrate.cu's calRead). Reading, not
/// writing: a memset would leave L2 full of dirty lines that the next, timed kernel has to write back
/// (up to 10 us more for a read of 200 MB on an H100: docs/MODEL.md section 14).
struct L2Flush {
    buf: CudaSlice<u32>,
    read: CudaFunction,
    blocks: u32,
}

impl L2Flush {
    fn new(backend: &mut CudaBackend) -> Result<Self> {
        let read = backend
            .module(Module::Embedded("calibrate"))?
            .load_function("calRead")
            .map_err(cu("cuModuleGetFunction(calRead)"))?;
        let words = ((2 * backend.info.l2_bytes.unwrap_or(0) as usize).max(1 << 20) / 4) & !3;
        let buf = backend.stream.alloc_zeros::<u32>(words).map_err(cu("cuMemAlloc"))?;
        Ok(L2Flush { buf, read, blocks: backend.info.sms.unwrap_or(1).max(1) * 8 })
    }

    /// Queues the read on `stream`.
    fn run(&self, stream: &CudaStream) -> Result<()> {
        let (n4, passes) = ((self.buf.len() / 4) as i32, 1i32);
        let mut b = stream.launch_builder(&self.read);
        // The zeroed buffer is also calRead's `out`: it writes only where the sum is 1234.5, never.
        b.arg(&self.buf).arg(&n4).arg(&passes).arg(&self.buf);
        let cfg = LaunchConfig { grid_dim: (self.blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: calRead(const float4*, int n4, int, float*) reads n4 float4 of a buffer of 4 x n4 words.
        unsafe { b.launch(cfg) }.map(|_| ()).map_err(cu("calRead (L2 flush)"))
    }
}

/// The loaded kernel and its device buffers.
struct Current {
    func: CudaFunction,
    entry: String,
    buffers: Vec<Buffer>,
    args: Vec<Arg>,
    slices: Vec<CudaSlice<f32>>,
    /// Where outputs are compared, set by `check_inputs`.
    check: Option<Check>,
}

/// How the current problem's outputs are verified.
enum Check {
    /// On the GPU (kernels/verify.cu): the reference in device memory, one buffer per output, and one
    /// [`verify::Tally`] per output for the comparison to fill.
    Device { reference: Vec<CudaSlice<f32>>, tally: CudaSlice<u64>, compare: CudaFunction, first: CudaFunction },
    /// On the host, when the reference does not fit beside the buffers: outputs copied back into
    /// page-locked memory and compared by the CPU.
    Host { reference: Reference, outputs: Vec<PinnedHostSlice<f32>> },
}

/// Device memory left free beside the buffers and the reference (the copy baseline's scratch buffers,
/// `--cold`'s flush buffer and CUPTI fit in it).
const HEADROOM: u64 = 1 << 30;
/// Timed reads of each size (an eighth and all of the buffer, alternated) whose medians calReadBlocks'
/// DRAM read bandwidth takes.
const READ_PAIRS: u32 = 21;

/// Opens the driver; returns its version and the device count.
fn init() -> Result<(probe::DriverVersion, i32)> {
    let version = probe::driver()?;
    cudarc::driver::result::init().map_err(|e| match e.0 {
        CUresult::CUDA_ERROR_NO_DEVICE => {
            Error::Driver("the NVIDIA driver found no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)".into())
        }
        _ => cu("cuInit")(e),
    })?;
    Ok((version, CudaContext::device_count().map_err(cu("cuDeviceGetCount"))?))
}

/// How many CUDA devices the driver sees.
pub fn device_count() -> Result<u32> {
    Ok(init()?.1.max(0) as u32)
}

/// Every CUDA device.
pub fn list_devices() -> Result<Vec<DeviceInfo>> {
    let (_, n) = init()?;
    (0..n as u32).map(|i| CudaBackend::open(i).map(|b| b.info)).collect()
}

impl CudaBackend {
    /// Opens device `ordinal` (its primary context) and reads its limits.
    pub fn open(ordinal: u32) -> Result<Self> {
        let (version, n) = init()?;
        if ordinal as i32 >= n {
            return Err(Error::usage(format!("no CUDA device {ordinal}: this machine has {n} (0..{})", n - 1)));
        }
        let ctx = {
            // One context at a time: made at once on 2 x H100 both were ready 0.25-0.33 s after the
            // driver's initialisation, one after the other 0.11 and 0.23 s after it, and both devices
            // were set up 0.1-0.2 s sooner (docs/PERF-NOTES.md, 2026-11-26 evening).
            static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
            let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
            CudaContext::new(ordinal as usize).map_err(cu("cuDevicePrimaryCtxRetain"))?
        };
        // One stream, so cudarc's cross-stream event tracking only costs time.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let info = device_info(&ctx, ordinal, version)?;
        let monitor = info.pci_bus_id.as_deref().and_then(nvml::Monitor::open);
        Ok(CudaBackend {
            counters: None,
            ctx,
            stream,
            info,
            modules: HashMap::new(),
            current: None,
            flush: None,
            monitor,
            conditions: None,
            user: user::UserState::default(),
        })
    }

    fn current(&self) -> Result<&Current> {
        self.current.as_ref().ok_or_else(|| Error::internal("no kernel loaded"))
    }

    /// Measures the counters of one empty kernel: CUPTI's first range start sets the device's profiler
    /// up (0.15-0.19 s on an H200), which belongs to the set-up, not to the first configuration's
    /// counters (nor to what `--timeout` counts).
    fn prime(&mut self, c: &mut crate::profile::Counters) -> std::result::Result<(), Unavailable> {
        let failed = |e: Error| Unavailable::Failed(e.to_string());
        let empty = self.module(Module::Embedded("calibrate")).map_err(failed)?;
        let empty = empty.load_function("calEmpty").map_err(|e| Unavailable::Failed(describe(&e)))?;
        // SAFETY: one word, never read: calEmpty writes only with write != 0.
        let flag = unsafe { self.stream.alloc::<i32>(1) }.map_err(|e| Unavailable::Failed(describe(&e)))?;
        let no = 0i32;
        let stream = self.stream.clone();
        c.measure(1, || {
            let mut b = stream.launch_builder(&empty);
            b.arg(&flag).arg(&no);
            let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
            // SAFETY: calEmpty(int*, int) never writes with write = 0.
            unsafe { b.launch(cfg) }.map_err(|e| describe(&e))?;
            stream.synchronize().map_err(|e| describe(&e))
        })
        .map(|_| ())
    }

    /// Launches the current kernel once on the stream (arguments built from the kernel's list).
    fn launch_once(&self, launch: &Launch) -> std::result::Result<(), DriverError> {
        let cur = self.current.as_ref().expect("launch after load");
        let ints: Vec<i32> =
            cur.args.iter().filter_map(|a| if let Arg::I32(v) = a { Some(*v) } else { None }).collect();
        let floats: Vec<f32> =
            cur.args.iter().filter_map(|a| if let Arg::F32(v) = a { Some(*v) } else { None }).collect();
        let (mut ni, mut nf) = (0, 0);
        let mut builder = self.stream.launch_builder(&cur.func);
        for a in &cur.args {
            match a {
                Arg::Buf(i) => {
                    builder.arg(&cur.slices[*i]);
                }
                Arg::I32(_) => {
                    builder.arg(&ints[ni]);
                    ni += 1;
                }
                Arg::F32(_) => {
                    builder.arg(&floats[nf]);
                    nf += 1;
                }
            }
        }
        let cfg = LaunchConfig {
            grid_dim: (launch.grid.x, launch.grid.y, launch.grid.z),
            block_dim: (launch.block.x, launch.block.y, launch.block.z),
            shared_mem_bytes: launch.dynamic_smem,
        };
        // SAFETY: the argument list comes from the kernel's own description of its PTX signature, and
        // every buffer argument is a live allocation of the length the kernel expects.
        unsafe { builder.launch(cfg) }.map(|_| ())
    }

    /// The on-GPU input generator (kernels/init.cu).
    fn fill_function(&mut self) -> Result<CudaFunction> {
        self.module(Module::Embedded("init"))?
            .load_function("fillUniform")
            .map_err(cu("cuModuleGetFunction(fillUniform)"))
    }

    /// A kernel's module, loaded once (by name).
    fn module(&mut self, module: Module<'_>) -> Result<Arc<CudaModule>> {
        let (name, text) = match module {
            Module::Embedded(name) => {
                (name, ptx::module(name).ok_or_else(|| Error::internal(format!("no embedded PTX module '{name}'")))?)
            }
            Module::Ptx { name, text } => (name, text),
        };
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        let m = self.ctx.load_module(Ptx::from_src(text)).map_err(|e| match e.0 {
            CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => Error::Driver(format!(
                "the driver cannot load warpscope's PTX ({}): it needs a driver for CUDA 13.0 (R580) or newer",
                ptx::isa_version().map(|(a, b)| format!("ISA {a}.{b}")).unwrap_or_default()
            )),
            _ => cu("cuModuleLoadData")(e),
        })?;
        self.modules.insert(name.to_string(), m.clone());
        Ok(m)
    }

    /// Makes `--cold`'s flush, when `cold`: a buffer of twice the L2, allocated on first use and kept
    /// in `self.flush`.
    fn prepare_flush(&mut self, cold: bool) -> Result<()> {
        if cold && self.flush.is_none() {
            self.flush = Some(L2Flush::new(self)?);
        }
        Ok(())
    }

    fn sync(&self, what: &str) -> Result<()> {
        self.stream.synchronize().map_err(cu(what))
    }

    /// Times `op` `iters` times with a pair of events each, after `warmup` untimed runs; with `flush`,
    /// L2 is evicted before each timed run (outside its events).
    fn time_with(
        &self,
        warmup: u32,
        iters: u32,
        what: &str,
        flush: Option<&L2Flush>,
        op: impl Fn() -> Result<()>,
    ) -> Result<Vec<f64>> {
        for _ in 0..warmup {
            op()?;
        }
        self.sync(what)?;
        let event = || self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(cu("cuEventCreate"));
        let pairs: Vec<_> = (0..iters).map(|_| Ok((event()?, event()?))).collect::<Result<_>>()?;
        for (start, end) in &pairs {
            if let Some(f) = flush {
                f.run(&self.stream)?;
            }
            start.record(&self.stream).map_err(cu("cuEventRecord"))?;
            op()?;
            end.record(&self.stream).map_err(cu("cuEventRecord"))?;
        }
        self.sync(what)?;
        pairs.iter().map(|(s, e)| s.elapsed_ms(e).map(|ms| ms as f64).map_err(cu("cuEventElapsedTime"))).collect()
    }
}

/// What the compiled function needs (registers, shared and local memory) and allows (threads per block).
fn kernel_attrs(func: &CudaFunction) -> Result<KernelAttrs> {
    let fa = |a| func.get_attribute(a).map(|v| v.max(0) as u32).map_err(cu("cuFuncGetAttribute"));
    Ok(KernelAttrs {
        registers: fa(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
        static_smem: fa(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
        local_bytes: fa(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
        max_threads_per_block: fa(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
    })
}

/// Reads back the first and last elements of a generated input and compares them with the host copy,
/// so a generator mismatch is named at once instead of failing every configuration's verification.
fn check_sample(stream: &Arc<CudaStream>, slice: &CudaSlice<f32>, host: &[f32], name: &str) -> Result<()> {
    let k = host.len().min(4096);
    for range in [0..k, host.len() - k..host.len()] {
        let got = stream.clone_dtoh(&slice.slice(range.clone())).map_err(cu("cuMemcpyDtoH"))?;
        if let Some(i) = got.iter().zip(&host[range.clone()]).position(|(g, h)| g.to_bits() != h.to_bits()) {
            let at = range.start + i;
            return Err(Error::Driver(format!(
                "on-GPU input generation disagrees with the CPU: {name}[{at}] = {} on the GPU, {} on the CPU (a warpscope bug)",
                got[i], host[at]
            )));
        }
    }
    Ok(())
}

/// Bytes per staging buffer of [`upload_staged`] and [`write_staged`] (16 MiB).
const STAGE_BYTES: usize = 16 << 20;

/// Copies `host` into a new device buffer through two page-locked staging buffers, a few threads
/// filling one while the GPU copies from the other: a copy from pageable memory moved the seed's
/// 1 GiB reference in 0.13 s on an H100, paid before the first configuration of every sweep. Small
/// buffers are copied directly.
fn upload_staged(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, host: &[f32]) -> Result<CudaSlice<f32>> {
    if host.len() * 4 <= 2 * STAGE_BYTES {
        return stream.clone_htod(host).map_err(cu("cuMemcpyHtoD"));
    }
    // SAFETY: every element is written below, chunk by chunk, before the buffer is used.
    let mut dst = unsafe { stream.alloc::<f32>(host.len()) }.map_err(cu("cuMemAlloc"))?;
    write_staged(ctx, stream, host, &mut dst)?;
    Ok(dst)
}

/// Copies `host` into the start of `dst` as [`upload_staged`] does (through page-locked staging
/// buffers where it is large), and waits for the copy.
fn write_staged<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync>(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    host: &[T],
    dst: &mut CudaSlice<T>,
) -> Result<()> {
    let stage = STAGE_BYTES / std::mem::size_of::<T>().max(1);
    let copied = if host.len() <= 2 * stage {
        let mut view = dst.slice_mut(0..host.len());
        stream.memcpy_htod(host, &mut view).map_err(cu("cuMemcpyHtoD"))
    } else {
        // SAFETY: each staging buffer is filled before it is copied from.
        let pinned = || unsafe { ctx.alloc_pinned::<T>(stage) }.map_err(cu("cuMemHostAlloc"));
        let mut stages = [pinned()?, pinned()?];
        let copied = copy_through(stream, host, &mut stages, dst);
        // Whatever happened, no copy may still read a staging buffer when it is freed.
        let synced = stream.synchronize().map_err(cu("cuMemcpyHtoDAsync"));
        copied.and(synced)
    };
    copied.and_then(|()| stream.synchronize().map_err(cu("cuMemcpyHtoD")))
}

/// The copies of [`write_staged`], queued on `stream`.
fn copy_through<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync>(
    stream: &Arc<CudaStream>,
    host: &[T],
    stages: &mut [PinnedHostSlice<T>; 2],
    dst: &mut CudaSlice<T>,
) -> Result<()> {
    let stage = stages[0].len();
    // When the copy that last read each staging buffer is done. Kept here: with one stream and event
    // tracking off, cudarc records none for page-locked buffers, and `as_mut_slice` would not wait.
    let mut copied: [Option<CudaEvent>; 2] = [None, None];
    let whole = host.len() / stage * stage;
    for (i, chunk) in host[..whole].chunks(stage).enumerate() {
        if let Some(done) = &copied[i % 2] {
            done.synchronize().map_err(cu("cuEventSynchronize"))?;
        }
        let buffer = &mut stages[i % 2];
        let fill = buffer.as_mut_slice().map_err(cu("cuEventSynchronize"))?;
        let part = stage.div_ceil(FILLERS);
        std::thread::scope(|s| {
            for (to, from) in fill.chunks_mut(part).zip(chunk.chunks(part)) {
                s.spawn(|| to.copy_from_slice(from));
            }
        });
        let mut view = dst.slice_mut(i * stage..(i + 1) * stage);
        stream.memcpy_htod(buffer, &mut view).map_err(cu("cuMemcpyHtoDAsync"))?;
        copied[i % 2] = Some(stream.record_event(None).map_err(cu("cuEventRecord"))?);
    }
    if whole < host.len() {
        let mut view = dst.slice_mut(whole..host.len());
        stream.memcpy_htod(&host[whole..], &mut view).map_err(cu("cuMemcpyHtoD"))?;
    }
    Ok(())
}

/// The contents of `src` read back through two page-locked staging buffers, the GPU filling one while a
/// few threads empty the other: a 1 GiB kernel-file output read into pageable memory took 1.05 s on an
/// H200's host. Small buffers are read directly.
fn read_staged<T: DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync>(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    src: &CudaSlice<T>,
) -> Result<Vec<T>> {
    let stage = STAGE_BYTES / std::mem::size_of::<T>().max(1);
    if src.len() <= 2 * stage {
        let v = stream.clone_dtoh(src).map_err(cu("cuMemcpyDtoH"))?;
        stream.synchronize().map_err(cu("cuMemcpyDtoH"))?;
        return Ok(v);
    }
    let mut host = vec![T::default(); src.len()];
    // SAFETY: each staging buffer is read only after the copy into it is done (its event). Flags 0:
    // plain page-locked memory, not write-combined (the CPU reads it).
    let pinned = || unsafe { ctx.alloc_pinned_with_flags::<T>(stage, 0) }.map_err(cu("cuMemHostAlloc"));
    let mut stages = [pinned()?, pinned()?];
    let drained = drain_through(stream, src, &mut stages, &mut host);
    // Whatever happened, no copy may still write a staging buffer when it is freed.
    let synced = stream.synchronize().map_err(cu("cuMemcpyDtoHAsync"));
    drained.and(synced)?;
    Ok(host)
}

/// The copies of [`read_staged`]: whole chunk k goes to staging buffer k % 2, two in flight (a copy fills
/// its whole staging buffer); the part after the last whole chunk is read directly.
fn drain_through<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync>(
    stream: &Arc<CudaStream>,
    src: &CudaSlice<T>,
    stages: &mut [PinnedHostSlice<T>; 2],
    host: &mut [T],
) -> Result<()> {
    let (stage, n) = (stages[0].len(), host.len());
    let chunks = n / stage;
    let queue = |k: usize, stages: &mut [PinnedHostSlice<T>; 2]| -> Result<CudaEvent> {
        stream
            .memcpy_dtoh(&src.slice(k * stage..(k + 1) * stage), &mut stages[k % 2])
            .map_err(cu("cuMemcpyDtoHAsync"))?;
        stream.record_event(None).map_err(cu("cuEventRecord"))
    };
    let mut ready: [Option<CudaEvent>; 2] = [None, None];
    for k in 0..chunks.min(2) {
        ready[k % 2] = Some(queue(k, stages)?);
    }
    for k in 0..chunks {
        if let Some(done) = ready[k % 2].take() {
            done.synchronize().map_err(cu("cuEventSynchronize"))?;
        }
        let from = stages[k % 2].as_slice().map_err(cu("cuEventSynchronize"))?;
        let part = stage.div_ceil(FILLERS);
        std::thread::scope(|s| {
            for (to, from) in host[k * stage..(k + 1) * stage].chunks_mut(part).zip(from.chunks(part)) {
                s.spawn(|| to.copy_from_slice(from));
            }
        });
        if k + 2 < chunks {
            ready[k % 2] = Some(queue(k + 2, stages)?);
        }
    }
    if chunks * stage < n {
        stream.memcpy_dtoh(&src.slice(chunks * stage..n), &mut host[chunks * stage..]).map_err(cu("cuMemcpyDtoH"))?;
    }
    Ok(())
}

/// Threads that fill a staging buffer of [`upload_staged`].
const FILLERS: usize = 4;

fn attr(ctx: &CudaContext, a: Attr) -> Result<u32> {
    ctx.attribute(a).map(|v| v.max(0) as u32).map_err(cu("cuDeviceGetAttribute"))
}

/// A device's PCI bus id as the driver and NVML spell it (`00000000:06:00.0`).
fn pci_bus_id(domain: u32, bus: u32, device: u32) -> String {
    format!("{domain:08X}:{bus:02X}:{device:02X}.0")
}

/// The driver as reports show it: NVML's version and the CUDA version the driver supports.
fn driver_text(nv: &nvml::NvmlInfo, version: probe::DriverVersion) -> String {
    match &nv.driver {
        Some(d) => format!("{d} (CUDA {version})"),
        None => format!("CUDA {version}"),
    }
}

/// The cache key ([`super::calibrate::key`]) of device `ordinal` as the driver already loaded in this
/// process describes it, without a context: what a `CudaBackend`, and so a sweep, gives the same device.
/// The injection library keys the counter-availability image by it, so that a sweep and a profiled
/// program keep one. `None` when the driver does not answer.
pub fn cache_key(ordinal: u32) -> Option<String> {
    use cudarc::driver::result::device;
    let dev = device::get(ordinal as i32).ok()?;
    // SAFETY: `dev` is a valid device handle; these attributes exist on every supported driver.
    let a = |x| unsafe { device::get_attribute(dev, x) }.ok().map(|v| v.max(0) as u32);
    let mut version = 0;
    // SAFETY: writes one int.
    if unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) } as u32 != 0 {
        return None;
    }
    let pci = pci_bus_id(
        a(Attr::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
        a(Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        a(Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?,
    );
    let nv = nvml::query(&pci).unwrap_or_default();
    let info = DeviceInfo {
        ordinal,
        name: device::get_name(dev).ok()?,
        compute_capability: Some(format!(
            "{}.{}",
            a(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            a(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?
        )),
        sms: a(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        sm_clock_mhz: nv.max_sm_clock_mhz.or_else(|| a(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).map(|k| k / 1000)),
        driver: Some(driver_text(&nv, probe::DriverVersion(version))),
        pci_bus_id: Some(pci),
        ..DeviceInfo::described(String::new(), super::Origin::Cuda)
    };
    Some(super::calibrate::key(&info))
}

fn device_info(ctx: &Arc<CudaContext>, ordinal: u32, version: probe::DriverVersion) -> Result<DeviceInfo> {
    let a = |x| attr(ctx, x);
    let (major, minor) = ctx.compute_capability().map_err(cu("cuDeviceGetAttribute"))?;
    let name = ctx.name().map_err(cu("cuDeviceGetName"))?;
    let mem_khz = a(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).ok().filter(|&k| k > 0);
    let bus = a(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).ok().filter(|&b| b > 0);
    let pci = pci_bus_id(
        a(Attr::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
        a(Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        a(Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?,
    );
    let nv = nvml::query(&pci).unwrap_or_default();
    let driver = Some(driver_text(&nv, version));
    let sm_clock = nv.max_sm_clock_mhz.or_else(|| a(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).ok().map(|k| k / 1000));
    let mem_clock = nv.max_mem_clock_mhz.or(mem_khz.map(|k| k / 1000));
    Ok(DeviceInfo {
        ordinal,
        name,
        compute_capability: Some(format!("{major}.{minor}")),
        backend: super::Origin::Cuda,
        sms: Some(a(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?),
        sm_clock_mhz: sm_clock,
        mem_clock_mhz: mem_clock,
        mem_bus_width_bits: bus,
        memory_bytes: Some(ctx.total_mem().map_err(cu("cuDeviceTotalMem"))? as u64),
        l2_bytes: Some(a(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64),
        peak_bandwidth_gbs: mem_khz.zip(bus).map(|(k, b)| 2.0 * k as f64 * 1e3 * b as f64 / 8.0 / 1e9),
        driver,
        pci_bus_id: Some(pci),
        power_limit_w: nv.power_limit_w,
        limits: Some(DeviceLimits {
            warp_size: a(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_threads_per_block: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [
                a(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                a(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                a(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid_dim: [
                a(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                a(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                a(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_threads_per_sm: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            max_blocks_per_sm: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            regs_per_block: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            regs_per_sm: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            smem_per_block: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            smem_per_block_optin: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            smem_per_sm: a(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            reserved_smem_per_block: a(Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?,
        }),
    })
}

impl CudaBackend {
    /// Asks the driver's occupancy calculator about every entry of `module` for every block size and
    /// dynamic shared-memory size (each function first allowed the device's opt-in maximum).
    pub fn driver_occupancy(
        &mut self,
        module: &'static str,
        block_sizes: &[u32],
        dynamic: &[u32],
    ) -> Result<Vec<crate::model::occupancy::DriverCase>> {
        use cudarc::driver::sys::CUfunction_attribute_enum as A;
        let m = self.module(Module::Embedded(module))?;
        let optin = self.info.checked_limits()?.smem_per_block_optin;
        let mut cases = Vec::new();
        for entry in ptx::entries(module) {
            let f = m.load_function(entry).map_err(cu("cuModuleGetFunction"))?;
            let fa = |a| f.get_attribute(a).map(|v| v.max(0) as u32).map_err(cu("cuFuncGetAttribute"));
            let (regs, smem) = (fa(A::CU_FUNC_ATTRIBUTE_NUM_REGS)?, fa(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?);
            let room = optin.saturating_sub(smem);
            f.set_attribute(A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, room as i32)
                .map_err(cu("cuFuncSetAttribute"))?;
            for &b in block_sizes {
                for &d in dynamic.iter().filter(|&&d| d <= room) {
                    // A block the compiled kernel cannot launch at all is 0 blocks, whichever way the
                    // driver says it.
                    let n = match f.occupancy_max_active_blocks_per_multiprocessor(b, d as usize, None) {
                        Ok(n) => n,
                        Err(e) if e.0 == CUresult::CUDA_ERROR_INVALID_VALUE => 0,
                        Err(e) => return Err(cu("cuOccupancyMaxActiveBlocksPerMultiprocessor")(e)),
                    };
                    cases.push(crate::model::occupancy::DriverCase {
                        entry: entry.to_string(),
                        block_size: b,
                        regs_per_thread: regs,
                        static_smem: smem,
                        dynamic_smem: d,
                        driver_blocks: n,
                    });
                }
            }
        }
        Ok(cases)
    }
}

impl CudaBackend {
    /// The current kernel's output buffers, in buffer order.
    fn device_outputs(&self) -> Result<Vec<&CudaSlice<f32>>> {
        let cur = self.current()?;
        Ok(cur.buffers.iter().zip(&cur.slices).filter(|(b, _)| b.role == Role::Output).map(|(_, s)| s).collect())
    }

    /// [`Backend::launch_verified`] with the problem's [`Check`] in hand.
    fn verified_launch(
        &self,
        kernel: &dyn Kernel,
        launch: &Launch,
        check: &mut Check,
    ) -> Result<(Verification, VerifyTimes)> {
        let start = std::time::Instant::now();
        let entry = self.current()?.entry.clone();
        let outputs = self.device_outputs()?;
        for s in &outputs {
            memset_words(&self.stream, s, NAN_BITS)?;
        }
        self.launch_once(launch).map_err(|e| match e.0 {
            CUresult::CUDA_ERROR_INVALID_VALUE | CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => {
                Error::LaunchRejected(format!("launch rejected by the driver: {}", describe(&e)))
            }
            _ => cu(&format!("cuLaunchKernel({entry})"))(e),
        })?;
        self.sync(&format!("{entry} (kernel execution)"))?;
        let launched = std::time::Instant::now();
        let lens: Vec<usize> = outputs.iter().map(|s| s.len()).collect();
        let (tallies, compare, copy_back) = match check {
            Check::Device { reference, tally, compare, first } => {
                memset_words(&self.stream, tally, 0)?;
                let (tol, sms) = (kernel.tolerance(), self.info.sms.unwrap_or(1));
                for (k, (out, want)) in outputs.iter().zip(reference.iter()).enumerate() {
                    let n = out.len() as u64;
                    let mine = tally.slice(4 * k..4 * k + 4);
                    let blocks = (out.len().div_ceil(256) as u32).clamp(1, sms * 16);
                    let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
                    let mut b = self.stream.launch_builder(compare);
                    b.arg(*out).arg(want).arg(&n).arg(&tol.abs).arg(&tol.rel).arg(&mine);
                    // SAFETY: compareOutputs(const float*, const float*, u64 n, float, float, u64*) reads n
                    // elements of two live buffers of n and adds into the 4 words of this output's tally.
                    unsafe { b.launch(cfg) }.map_err(cu("cuLaunchKernel(compareOutputs)"))?;
                    let mut b = self.stream.launch_builder(first);
                    b.arg(*out).arg(want).arg(&mine);
                    let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
                    // SAFETY: compareFirst reads one element of each buffer, at an index the tally says is
                    // inside them, and writes the tally's last word.
                    unsafe { b.launch(one) }.map_err(cu("cuLaunchKernel(compareFirst)"))?;
                }
                self.sync("compareOutputs")?;
                let compared = std::time::Instant::now();
                let words = self.stream.clone_dtoh(tally).map_err(cu("cuMemcpyDtoH (the tally)"))?;
                self.sync("cuMemcpyDtoH (the tally)")?;
                let tallies = words.chunks_exact(4).map(|w| [w[0], w[1], w[2], w[3]]).collect();
                (tallies, (compared - launched).as_secs_f64(), compared.elapsed().as_secs_f64())
            }
            Check::Host { reference, outputs: host } => {
                for (s, dst) in outputs.iter().zip(host.iter_mut()) {
                    self.stream.memcpy_dtoh(*s, dst).map_err(cu("cuMemcpyDtoHAsync"))?;
                }
                self.sync("cuMemcpyDtoH")?;
                let copied = std::time::Instant::now();
                let tol = kernel.tolerance();
                let tallies = host
                    .iter()
                    .zip(reference.iter())
                    .map(|(h, r)| h.as_slice().map(|h| verify::tally(h, r, tol)).map_err(cu("cuEventSynchronize")))
                    .collect::<Result<Vec<_>>>()?;
                (tallies, copied.elapsed().as_secs_f64(), (copied - launched).as_secs_f64())
            }
        };
        let times = VerifyTimes { launch: (launched - start).as_secs_f64(), compare, copy_back };
        Ok((verify::from_tallies(kernel, &tallies, &lens), times))
    }
}

/// Fills every 32-bit word of `s` with `bits`, on `stream`.
fn memset_words<T>(stream: &Arc<CudaStream>, s: &CudaSlice<T>, bits: u32) -> Result<()> {
    let (ptr, _sync) = s.device_ptr(stream);
    // SAFETY: ptr is a live allocation of s.num_bytes() bytes on this stream's context; T is 4 or 8 bytes.
    unsafe { cudarc::driver::sys::cuMemsetD32Async(ptr, bits, s.num_bytes() / 4, stream.cu_stream()) }
        .result()
        .map_err(cu("cuMemsetD32Async"))
}

impl Backend for CudaBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn source(&self) -> Source {
        Source::Measured
    }

    fn load(&mut self, kernel: &dyn Kernel) -> Result<KernelAttrs> {
        let module = self.module(kernel.module())?;
        let func = module.load_function(kernel.entry()).map_err(cu("cuModuleGetFunction"))?;
        let attrs = kernel_attrs(&func)?;
        self.current = Some(Current {
            func,
            entry: kernel.entry().to_string(),
            buffers: kernel.buffers(),
            args: kernel.args(),
            slices: Vec::new(),
            check: None,
        });
        Ok(attrs)
    }

    fn max_active_blocks(&mut self, block_threads: u32, dynamic_smem: u32) -> Result<u32> {
        self.current()?
            .func
            .occupancy_max_active_blocks_per_multiprocessor(block_threads, dynamic_smem as usize, None)
            .map_err(cu("cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    }

    fn upload(&mut self, _kernel: &dyn Kernel, seed: u64) -> Result<()> {
        let fill = self.fill_function()?;
        let stream = self.stream.clone();
        let ctx = self.ctx.clone();
        let sms = self.info.sms.unwrap_or(1);
        let cur = self.current.as_mut().ok_or_else(|| Error::internal("no kernel loaded"))?;
        cur.slices.clear();
        cur.check = None;
        let need: u64 = cur.buffers.iter().map(|b| b.len as u64 * 4).sum();
        let (free, _) = ctx.mem_get_info().map_err(cu("cuMemGetInfo"))?;
        if need > free as u64 {
            return Err(Error::Memory {
                need: format!(
                    "{} needs {:.2} GB of device memory, {:.2} GB are free",
                    cur.entry,
                    need as f64 / 1e9,
                    free as f64 / 1e9
                ),
                fix: None,
            });
        }
        for (index, b) in cur.buffers.iter().enumerate() {
            // SAFETY: every buffer is written before it is read: inputs by fillUniform right here,
            // outputs by the NaN poison before every verified launch.
            let slice = unsafe { stream.alloc::<f32>(b.len) }.map_err(cu("cuMemAlloc"))?;
            if b.role == Role::Input {
                let (n, stream_id) = (b.len as u64, index as u32);
                let blocks = (b.len.div_ceil(256) as u32).clamp(1, sms * 32);
                let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
                let mut launch = stream.launch_builder(&fill);
                launch.arg(&slice).arg(&n).arg(&seed).arg(&stream_id);
                // SAFETY: fillUniform(float*, u64, u64, u32) writes n elements of a live allocation of n.
                unsafe { launch.launch(cfg) }.map_err(cu("cuLaunchKernel(fillUniform)"))?;
            }
            cur.slices.push(slice);
        }
        stream.synchronize().map_err(cu("fillUniform"))
    }

    fn check_inputs(&mut self, _kernel: &dyn Kernel, inputs: &[Vec<f32>], reference: &Reference) -> Result<CompareOn> {
        let cur = self.current()?;
        let device_inputs = cur.buffers.iter().zip(&cur.slices).filter(|(b, _)| b.role == Role::Input);
        for ((b, slice), host) in device_inputs.zip(inputs) {
            check_sample(&self.stream, slice, host, &b.name)?;
        }
        let lens: Vec<usize> = cur.buffers.iter().filter(|b| b.role == Role::Output).map(|b| b.len).collect();
        if reference.len() != lens.len() || reference.iter().zip(&lens).any(|(r, &n)| r.len() != n) {
            return Err(Error::internal("the reference does not match the outputs"));
        }
        let bytes: u64 = lens.iter().map(|&n| n as u64 * 4).sum();
        let (free, _) = self.ctx.mem_get_info().map_err(cu("cuMemGetInfo"))?;
        let check = if bytes + HEADROOM <= free as u64 {
            let m = self.module(Module::Embedded("verify"))?;
            let func = |name| m.load_function(name).map_err(cu("cuModuleGetFunction(verify)"));
            let (compare, first) = (func("compareOutputs")?, func("compareFirst")?);
            let reference =
                reference.iter().map(|r| upload_staged(&self.ctx, &self.stream, r)).collect::<Result<Vec<_>>>()?;
            // SAFETY: zeroed before every comparison.
            let tally = unsafe { self.stream.alloc::<u64>(4 * lens.len()) }.map_err(cu("cuMemAlloc"))?;
            self.sync("cuMemcpyHtoD (the reference)")?;
            Check::Device { reference, tally, compare, first }
        } else {
            let outputs = lens
                .iter()
                // SAFETY: flags 0 = plain page-locked memory (not write-combined: the CPU reads it).
                .map(|&n| unsafe { self.ctx.alloc_pinned_with_flags::<f32>(n, 0) })
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(cu("cuMemHostAlloc"))?;
            Check::Host { reference: reference.clone(), outputs }
        };
        let on = match check {
            Check::Device { .. } => CompareOn::Device,
            Check::Host { .. } => CompareOn::Host,
        };
        self.current.as_mut().expect("checked above").check = Some(check);
        Ok(on)
    }

    fn launch_verified(&mut self, kernel: &dyn Kernel, launch: &Launch) -> Result<(Verification, VerifyTimes)> {
        let cur = self.current.as_mut().ok_or_else(|| Error::internal("no kernel loaded"))?;
        let mut check = cur.check.take().ok_or_else(|| Error::internal("no reference"))?;
        let result = self.verified_launch(kernel, launch, &mut check);
        if let Some(cur) = self.current.as_mut() {
            cur.check = Some(check);
        }
        result
    }

    fn outputs(&mut self) -> Result<Vec<Vec<f32>>> {
        let cur = self.current()?;
        let outs = cur.buffers.iter().zip(&cur.slices).filter(|(b, _)| b.role == Role::Output);
        let outs = outs.map(|(_, s)| self.stream.clone_dtoh(s).map_err(cu("cuMemcpyDtoH"))).collect::<Result<_>>()?;
        self.sync("cuMemcpyDtoH")?;
        Ok(outs)
    }

    fn time(&mut self, _kernel: &dyn Kernel, launch: &Launch, warmup: u32, iters: u32, cold: bool) -> Result<Vec<f64>> {
        let entry = self.current()?.entry.clone();
        let call = format!("cuLaunchKernel({entry})");
        self.prepare_flush(cold)?;
        let flush = self.flush.as_ref().filter(|_| cold);
        let run = || self.time_with(warmup, iters, &entry, flush, || self.launch_once(launch).map_err(cu(&call)));
        let (times, conditions) = match &self.monitor {
            Some(m) => m.watch(run),
            None => (run(), None),
        };
        self.conditions = conditions;
        times
    }

    fn last_conditions(&self) -> Option<crate::record::Conditions> {
        self.conditions.clone()
    }

    fn free_memory(&self) -> Option<u64> {
        self.ctx.mem_get_info().ok().map(|(free, _)| free as u64)
    }

    fn memcpy(&mut self, warmup: u32, iters: u32) -> Result<(u64, Vec<f64>)> {
        let (free, _) = self.ctx.mem_get_info().map_err(cu("cuMemGetInfo"))?;
        let bytes = (4 * self.info.l2_bytes.unwrap_or(0) as usize).max(256 << 20).min(free / 4) & !255;
        let len = bytes / 4;
        // SAFETY: scratch buffers; the copy reads `src` uninitialised, which is harmless for a copy.
        let src = unsafe { self.stream.alloc::<f32>(len) }.map_err(cu("cuMemAlloc"))?;
        let dst = unsafe { self.stream.alloc::<f32>(len) }.map_err(cu("cuMemAlloc"))?;
        let copy = || {
            let (sp, _a) = src.device_ptr(&self.stream);
            let (dp, _b) = dst.device_ptr(&self.stream);
            // SAFETY: both are live allocations of `len` f32 elements.
            unsafe { cudarc::driver::sys::cuMemcpyDtoDAsync_v2(dp, sp, len * 4, self.stream.cu_stream()) }
                .result()
                .map_err(cu("cuMemcpyDtoDAsync"))
        };
        let times = self.time_with(warmup, iters, "cuMemcpyDtoD", None, copy)?;
        Ok((len as u64 * 4, times))
    }

    fn calibrate(&mut self) -> Result<Measurements> {
        let wall = std::time::Instant::now();
        let m = self.module(Module::Embedded("calibrate"))?;
        let func = |name: &str| m.load_function(name).map_err(cu(&format!("cuModuleGetFunction({name})")));
        let (empty, chain_init, chase) = (func("calEmpty")?, func("calChainInit")?, func("calChase")?);
        let (read_blocks, l2_read, l1_read, smem_read, partial) = (
            func("calReadBlocks")?,
            func("calL2Read")?,
            func("calL1Read")?,
            func("calSmemRead")?,
            func("calPartialStore")?,
        );
        let (inflight_read, runs_pass, rows_read) = (func("calInflight")?, func("calRuns")?, func("calRows")?);
        let atomics_add = func("calAtomics")?;
        let sms = self.info.sms.unwrap_or(1).max(1);
        let l2 = (self.info.l2_bytes.unwrap_or(0) as usize).max(1 << 20);
        // Buffers: the chase over 4 x L2 (at least 256 MiB), then calReadBlocks' 16 x L2 (at least 512 MiB),
        // then two arrays of 4 x L2 (at least 128 MiB) to read from DRAM, re-read in part (L2, L1) and
        // store to, one after another; a flush buffer of 2 x L2 throughout.
        let chase_words = ((4 * l2).max(256 << 20) / 4) & !7;
        let read_words = ((16 * l2).max(512 << 20) / 4) & !255;
        let stream_elems = ((4 * l2).max(128 << 20) / 4) & !255;
        let need = 4 * chase_words.max(read_words).max(2 * stream_elems) + 2 * l2;
        let (free, _) = self.ctx.mem_get_info().map_err(cu("cuMemGetInfo"))?;
        if need + (64 << 20) > free {
            return Err(Error::usage(format!(
                "calibration needs {:.2} GB of device memory, {:.2} GB are free",
                need as f64 / 1e9,
                free as f64 / 1e9
            )));
        }
        let stream = self.stream.clone();
        let cfg = |blocks: u32, threads: u32| LaunchConfig {
            grid_dim: (blocks.max(1), 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let median = |times: Vec<f64>, what: &str| {
            crate::stats::median(&times).ok_or_else(|| Error::Output(format!("calibration: {what} gave no time")))
        };
        let zero = |s: &CudaSlice<u32>| -> Result<()> {
            let (ptr, _g) = s.device_ptr(&stream);
            // SAFETY: a live allocation of s.len() 32-bit words.
            unsafe { cudarc::driver::sys::cuMemsetD32Async(ptr, 0, s.len(), stream.cu_stream()) }
                .result()
                .map_err(cu("cuMemsetD32Async"))
        };
        // SAFETY (every alloc below): each buffer is zeroed or written by a kernel before it is read.
        let sink = unsafe { stream.alloc::<f32>((sms as usize * 8 * 256).max(1 << 16)) }.map_err(cu("cuMemAlloc"))?;
        let flag = unsafe { stream.alloc::<i32>(1) }.map_err(cu("cuMemAlloc"))?;
        let no = 0i32;

        // Launch overhead, and the block scheduler's rate over 2000 empty blocks per SM.
        let launch_empty = |blocks: u32| {
            let mut b = stream.launch_builder(&empty);
            b.arg(&flag).arg(&no);
            // SAFETY: calEmpty(int*, int) never writes with write = 0.
            unsafe { b.launch(cfg(blocks, if blocks == 1 { 32 } else { 64 })) }.map(|_| ()).map_err(cu("calEmpty"))
        };
        let launch_ms = median(self.time_with(3, 21, "calEmpty", None, || launch_empty(1))?, "calEmpty")?;
        let empty_blocks = sms * 2000;
        let empty_ms = median(self.time_with(1, 5, "calEmpty", None, || launch_empty(empty_blocks))?, "calEmpty")?;
        // A block slot's turnover: empty blocks of the most threads a block may have (1024), as many a
        // round as an SM holds, over 50 and 150 rounds (the time between the two lengths leaves the
        // launch and the last round's tail out).
        let (threads, per_sm_threads) = self
            .info
            .limits
            .as_ref()
            .map_or((1024, 2048), |l| (l.max_threads_per_block.clamp(32, 1024), l.max_threads_per_sm));
        let per_sm = (per_sm_threads / threads).max(1);
        let rounds = |n: u32| {
            let mut b = stream.launch_builder(&empty);
            b.arg(&flag).arg(&no);
            // SAFETY: calEmpty(int*, int) never writes with write = 0.
            unsafe { b.launch(cfg(sms * per_sm * n, threads)) }.map(|_| ()).map_err(cu("calEmpty"))
        };
        let (few, many) = (50u32, 150u32);
        let turnover = Chase {
            steps: few as u64,
            ms: median(self.time_with(1, 5, "calEmpty", None, || rounds(few))?, "calEmpty")?,
            more_steps: many as u64,
            more_ms: median(self.time_with(1, 5, "calEmpty", None, || rounds(many))?, "calEmpty")?,
        };

        // Idle DRAM latency: 2048 dependent loads 1 MiB + 32 B apart, L2 flushed before each run.
        let next = unsafe { stream.alloc::<u32>(chase_words) }.map_err(cu("cuMemAlloc"))?;
        let hop = ((1u32 << 20) + 32) / 4;
        {
            let n = chase_words as u32;
            let mut b = stream.launch_builder(&chain_init);
            b.arg(&next).arg(&n).arg(&hop);
            // SAFETY: calChainInit(unsigned*, unsigned n, unsigned) writes n words of a buffer of n.
            unsafe { b.launch(cfg(sms * 8, 256)) }.map_err(cu("calChainInit"))?;
        }
        let flush = L2Flush::new(self)?;
        let chase_steps = 2048i32;
        let start = 0u32;
        let out_word = unsafe { stream.alloc::<u32>(1) }.map_err(cu("cuMemAlloc"))?;
        let chase_ms = median(
            self.time_with(1, 3, "calChase", Some(&flush), || {
                let mut b = stream.launch_builder(&chase);
                b.arg(&next).arg(&start).arg(&chase_steps).arg(&out_word);
                // SAFETY: calChase follows indices below n written by calChainInit; writes one word.
                unsafe { b.launch(cfg(1, 1)) }.map(|_| ()).map_err(cu("calChase"))
            })?,
            "calChase",
        )?;
        // L1 and L2 hit latency: chases through 8 KiB, 128 bytes apart (64 lines: in L1 after the first
        // pass), and through up to 16 MiB (half of L2 at most), 4 KiB + 128 bytes apart (each step a new
        // line: far more than L1 holds), warm, each at two lengths.
        let hit_chase = |words: u32, hop: u32, steps: i32| -> Result<Chase> {
            let mut b = stream.launch_builder(&chain_init);
            b.arg(&next).arg(&words).arg(&hop);
            // SAFETY: calChainInit writes `words` <= chase_words words of `next`.
            unsafe { b.launch(cfg(sms * 8, 256)) }.map_err(cu("calChainInit"))?;
            let time = |steps: i32| {
                let times = self.time_with(1, 3, "calChase", None, || {
                    let mut b = stream.launch_builder(&chase);
                    b.arg(&next).arg(&start).arg(&steps).arg(&out_word);
                    // SAFETY: calChase follows indices below `words` written by calChainInit; writes one word.
                    unsafe { b.launch(cfg(1, 1)) }.map(|_| ()).map_err(cu("calChase"))
                })?;
                median(times, "calChase")
            };
            Ok(Chase { steps: steps as u64, ms: time(steps)?, more_steps: 2 * steps as u64, more_ms: time(2 * steps)? })
        };
        let l1_chase = hit_chase(2048, 32, 4096)?;
        let l2_words = ((l2 / 2).min(16 << 20) / 4).min(chase_words) as u32;
        let l2_chase = hit_chase(l2_words, (4096 + 128) / 4, 8192)?;
        drop(next);

        // DRAM read bandwidth: an eighth of a buffer of 16 x L2 and all of it read once, L2 flushed before
        // each run (the rate between the two leaves out the launch and the first and last loads' latency),
        // by blocks that each read their own 16 KiB (calReadBlocks), not a grid-stride loop.
        // SAFETY: zeroed before it is read.
        let big = unsafe { stream.alloc::<u32>(read_words) }.map_err(cu("cuMemAlloc"))?;
        zero(&big)?;
        let all_n4 = (read_words / 4) as i32;
        // Short and long alternate, 21 of each. On an H200 a read of 4 x L2's time switches between two
        // levels 2 % apart every 3 to 5 reads, and the rate between 2 and 4 x L2 still moved by 15 %
        // between sessions (4075-4687 GB/s over ten stored calibrations) while the kernels it predicts
        // did not (aosSum 169-170.5 us); between 2 and 16 x L2 six processes agreed within 0.3 %, and
        // blocks that each read their own part read 3 % faster than one wave striding over all of it,
        // which ends with its slowest SM (docs/MODEL.md section 31). The warm-up read (time_with's first
        // call) is a long one; the timed ones then go short, long.
        let turn = std::cell::Cell::new(1u32);
        let times = self.time_with(1, 2 * READ_PAIRS, "calReadBlocks", Some(&flush), || {
            let n4 = if turn.replace(turn.get() + 1).is_multiple_of(2) { all_n4 / 8 } else { all_n4 };
            let mut b = stream.launch_builder(&read_blocks);
            // The buffer is also the kernel's `out`: it writes only where the sum is 1234.5, never.
            b.arg(&big).arg(&n4).arg(&big);
            let blocks = (n4 as u32).div_ceil(1024);
            // SAFETY: reads n4 <= read_words / 4 float4 of a zeroed array of read_words words; a write
            // would land below n4 / 4 words.
            unsafe { b.launch(cfg(blocks, 256)) }.map(|_| ()).map_err(cu("calReadBlocks"))
        })?;
        drop(big);
        let every_other = |from: usize| times.iter().skip(from).step_by(2).copied().collect::<Vec<f64>>();
        let dram_read_half_ms = median(every_other(0), "calReadBlocks")?;
        let dram_read_ms = median(every_other(1), "calReadBlocks")?;
        let dram_read_bytes = all_n4 as f64 * 16.0;
        let dram_read_short_bytes = (all_n4 / 8) as f64 * 16.0;

        let arrays: Vec<CudaSlice<u32>> = (0..2)
            .map(|_| unsafe { stream.alloc::<u32>(stream_elems) }.map_err(cu("cuMemAlloc")))
            .collect::<Result<_>>()?;
        for a in &arrays {
            zero(a)?;
        }
        // `n4` float4 from the start of the first array, `passes` times, by 8 blocks of 256 per SM.
        let time_read = |kernel: &CudaFunction, n4: i32, passes: i32, flush: Option<&L2Flush>| {
            let times = self.time_with(1, 5, "calRead", flush, || {
                let mut b = stream.launch_builder(kernel);
                b.arg(&arrays[0]).arg(&n4).arg(&passes).arg(&sink);
                // SAFETY: reads n4 <= stream_elems / 4 float4 of a zeroed array of stream_elems words.
                unsafe { b.launch(cfg(sms * 8, 256)) }.map(|_| ()).map_err(cu("calRead"))
            })?;
            median(times, "calRead")
        };
        let all_n4 = (stream_elems / 4) as i32;
        // DRAM reads against the bytes in flight: 1 to 64 warps per SM (one block of them per SM, two of
        // 1024 threads for 64), each warp one 512-byte load in flight, 2 and 4 x L2 read once, L2 flushed.
        let mut inflight = Vec::new();
        for warps in [1u32, 2, 4, 8, 16, 32, 64] {
            let (blocks, threads) = if warps <= 32 { (sms, 32 * warps) } else { (sms * warps / 32, 1024) };
            let time_inflight = |n4: i32| {
                let times = self.time_with(1, 3, "calInflight", Some(&flush), || {
                    let mut b = stream.launch_builder(&inflight_read);
                    b.arg(&arrays[0]).arg(&n4).arg(&sink);
                    // SAFETY: reads n4 <= stream_elems / 4 float4 of a zeroed array; writes at most one float
                    // per thread of the grid (at most sms x 2048 <= the sink's length).
                    unsafe { b.launch(cfg(blocks, threads)) }.map(|_| ()).map_err(cu("calInflight"))
                })?;
                median(times, "calInflight")
            };
            let half_n4 = (all_n4 / 2).max(1);
            inflight.push(InflightRun {
                bytes_per_sm: warps as f64 * 512.0,
                bytes: half_n4 as f64 * 16.0,
                ms: time_inflight(half_n4)?,
                more_bytes: all_n4 as f64 * 16.0,
                more_ms: time_inflight(all_n4)?,
            });
        }
        // DRAM in short runs: the largest power of two of words of the first array read and written in
        // runs of 32 to 256 bytes far apart, and whole, L2 flushed before each pass.
        let log_n = (stream_elems as u64).ilog2() as i32;
        let mut runs = Vec::new();
        for log_k in [3, 4, 5, 6, log_n] {
            for write in [0i32, 1] {
                let log_runs = log_n - log_k;
                // An odd stride near 0.618 of the runs: consecutive runs land far apart, each once.
                let stride = (((1u64 << log_runs) as f64 * 0.618_034) as u32).max(1) | 1;
                let times = self.time_with(1, 3, "calRuns", Some(&flush), || {
                    let mut b = stream.launch_builder(&runs_pass);
                    b.arg(&arrays[0]).arg(&log_runs).arg(&log_k).arg(&stride).arg(&write);
                    // SAFETY: touches words below 2^log_n <= stream_elems of the zeroed first array.
                    unsafe { b.launch(cfg(sms * 8, 256)) }.map(|_| ()).map_err(cu("calRuns"))
                })?;
                runs.push(RunsPass {
                    run_bytes: 4.0 * (1u64 << log_k) as f64,
                    write: write == 1,
                    bytes: 4.0 * (1u64 << log_n) as f64,
                    ms: median(times, "calRuns")?,
                });
            }
        }

        // DRAM reads spread over rows: the first array as a matrix of 1024-float (4 KiB) rows and of
        // 16384-float (64 KiB) ones, read one float per thread by 1024-thread blocks of 1024x1 to 16x64,
        // L2 flushed before each read.
        let mut rows = Vec::new();
        for nx in [1024i32, 16384] {
            // At most 65,535 rows: the grid's y limit with one-row blocks.
            let ny = (stream_elems / nx as usize).min(65_535) as i32;
            for bx in [1024u32, 512, 256, 128, 64, 32, 16] {
                let by = 1024 / bx;
                let rows_cfg = LaunchConfig {
                    grid_dim: (nx as u32 / bx, (ny as u32).div_ceil(by), 1),
                    block_dim: (bx, by, 1),
                    shared_mem_bytes: 0,
                };
                let times = self.time_with(1, 3, "calRows", Some(&flush), || {
                    let mut b = stream.launch_builder(&rows_read);
                    b.arg(&arrays[0]).arg(&nx).arg(&ny).arg(&sink);
                    // SAFETY: reads the nx x ny <= stream_elems words of the zeroed first array (the kernel
                    // checks both bounds); never writes (the array holds no 1234.5).
                    unsafe { b.launch(rows_cfg) }.map(|_| ()).map_err(cu("calRows"))
                })?;
                let ms = median(times, "calRows")?;
                rows.push(RowsPass { pitch_bytes: 4.0 * nx as f64, run_bytes: 4.0 * bx as f64, ms });
            }
        }

        // L2 bandwidth: a quarter of L2 re-read 64 times, past L1 (each thread re-reads its own words:
        // plain loads would measure L1).
        let (l2_n4, passes) = ((l2 / 4 / 16) as i32, 64);
        let l2_ms = time_read(&l2_read, l2_n4, passes, None)?;
        let l2_bytes = l2_n4 as f64 * 16.0 * passes as f64;

        // L1 bandwidth: each of 8 blocks per SM re-reads its own 8 KiB 256 times.
        let l1_passes = 256i32;
        let l1_blocks = sms * 8;
        let l1_ms = median(
            self.time_with(1, 5, "calL1Read", None, || {
                let mut b = stream.launch_builder(&l1_read);
                b.arg(&arrays[1]).arg(&l1_passes).arg(&sink);
                // SAFETY: block k reads 8 KiB at k x 8 KiB: l1_blocks x 8 KiB <= the array's size.
                unsafe { b.launch(cfg(l1_blocks, 256)) }.map(|_| ()).map_err(cu("calL1Read"))
            })?,
            "calL1Read",
        )?;
        let l1_bytes = l1_blocks as f64 * 8192.0 * l1_passes as f64;

        // Shared-memory bandwidth: 8 conflict-free 4-byte loads per thread and pass.
        let smem_passes = 256i32;
        let smem_ms = median(
            self.time_with(1, 5, "calSmemRead", None, || {
                let mut b = stream.launch_builder(&smem_read);
                b.arg(&smem_passes).arg(&sink);
                // SAFETY: calSmemRead(int, float*) writes at most one float per thread of the grid.
                unsafe { b.launch(cfg(sms * 8, 256)) }.map(|_| ()).map_err(cu("calSmemRead"))
            })?,
            "calSmemRead",
        )?;
        let smem_bytes = sms as f64 * 8.0 * 256.0 * 8.0 * 4.0 * smem_passes as f64;

        // Partial-sector stores: 4 Mi sectors 1 KiB + 32 B apart, each completed by the 8 warps of a block.
        let words = chase_words.min(stream_elems) as u32;
        let stride = 264u32;
        let sectors = ((words / 8).min(1 << 22)) as i32;
        let partial_ms = median(
            self.time_with(1, 5, "calPartialStore", None, || {
                let mut b = stream.launch_builder(&partial);
                b.arg(&arrays[1]).arg(&words).arg(&stride).arg(&sectors);
                // SAFETY: writes word k < 8 of sector (i x 264) mod words (a multiple of 8), inside the array.
                unsafe { b.launch(cfg((sectors as u32).div_ceil(32), 256)) }.map(|_| ()).map_err(cu("calPartialStore"))
            })?,
            "calPartialStore",
        )?;
        drop(arrays);
        drop(flush);

        // L2's atomic unit: footprints of 1 to 2048 lines, each warp adding to one line's 32 words, with
        // more adds for the larger ones (about a slice per 4 lines, up to 64) so that every run takes
        // about as long. Which slices a few lines land in depends on their address (L2's hash), so the
        // footprints up to 16 lines are measured at 8 places 128 KiB apart, each on a 64 KiB boundary as
        // a buffer of its own would be (1 KiB 512 bytes off one spreads over twice the slices). Every
        // word's count is checked after its runs.
        let threads = sms * 2048;
        let counts = unsafe { stream.alloc::<u32>((1 << 18) + (1 << 14)) }.map_err(cu("cuMemAlloc"))?;
        let start = {
            let (ptr, _g) = counts.device_ptr(&stream);
            ((1u64 << 16) - ptr % (1 << 16)) as usize % (1 << 16) / 4
        };
        let mut atomics = Vec::new();
        for lines in [1u32, 2, 4, 8, 16, 32, 64, 128, 512, 2048] {
            let (words, loops) = (lines * 32, 8 * (lines / 4).clamp(1, 64));
            let places = if lines <= 16 { 8 } else { 1 };
            for place in 0..places {
                let at = start + place * (1usize << 15);
                let part = counts.slice(at..at + words as usize);
                zero(&counts)?;
                let (warmup, iters) = (1, 3);
                let ms = median(
                    self.time_with(warmup, iters, "calAtomics", None, || {
                        let mut b = stream.launch_builder(&atomics_add);
                        b.arg(&part).arg(&words).arg(&loops);
                        // SAFETY: adds to the slice's words below `words` (a power of two, its length).
                        unsafe { b.launch(cfg(sms * 8, 256)) }.map(|_| ()).map_err(cu("calAtomics"))
                    })?,
                    "calAtomics",
                )?;
                let got = stream.clone_dtoh(&part).map_err(cu("cuMemcpyDtoH"))?;
                let ops = (warmup + iters) as u64 * loops as u64 * threads as u64;
                let each = threads.is_multiple_of(words).then(|| ops / words as u64);
                if got.iter().map(|&c| c as u64).sum::<u64>() != ops
                    || each.is_some_and(|e| got.iter().any(|&c| c as u64 != e))
                {
                    return Err(Error::Output(format!(
                        "calibration: calAtomics over {lines} lines miscounted its adds"
                    )));
                }
                // A warp's add to one line's 32 words is 4 sectors.
                atomics.push(crate::model::calibration::AtomicsPass {
                    lines: lines as f64,
                    offset_bytes: (at - start) as f64 * 4.0,
                    sectors: (loops as u64 * threads as u64 / 8) as f64,
                    ms,
                });
            }
        }
        drop(counts);

        let (copied, times) = self.memcpy(1, 5)?;
        let copy_ms = median(times, "cuMemcpyDtoD")?;
        // The launch overhead again, now that the GPU has been busy: the first measurement, on a GPU just
        // woken, once gave 13 us where the others gave 4-6 (H100); the smaller is kept.
        let launch_again = median(self.time_with(3, 21, "calEmpty", None, || launch_empty(1))?, "calEmpty")?;
        let launch_ms = launch_ms.min(launch_again);
        Ok(Measurements {
            sms,
            clock_mhz: self.info.sm_clock_mhz.unwrap_or(1500),
            launch_ms,
            empty_blocks: empty_blocks as u64,
            empty_ms,
            turnover,
            chase_steps: chase_steps as u64,
            chase_ms,
            l1_chase,
            l2_chase,
            dram_read_bytes,
            dram_read_ms,
            dram_read_half_ms,
            dram_read_short_bytes,
            inflight,
            runs,
            rows,
            l2_bytes,
            l2_ms,
            l1_bytes,
            l1_ms,
            smem_bytes,
            smem_ms,
            partial_stores: 8.0 * sectors as f64,
            partial_ms,
            atomics,
            copy_bytes: 2.0 * copied as f64,
            copy_ms,
            wall_ms: wall.elapsed().as_secs_f64() * 1e3,
        })
    }

    fn apply(&mut self, kernel: &dyn Kernel, launch: &Launch, inputs: &[&[f32]]) -> Result<Vec<Vec<f32>>> {
        self.load(kernel)?;
        let stream = self.stream.clone();
        let cur = self.current.as_mut().ok_or_else(|| Error::internal("no kernel loaded"))?;
        let mut next = inputs.iter();
        for b in &cur.buffers {
            let slice = match b.role {
                Role::Input => {
                    let host = next.next().ok_or_else(|| Error::internal("too few inputs"))?;
                    if host.len() != b.len {
                        return Err(Error::internal(format!(
                            "input of {} elements for a buffer of {}",
                            host.len(),
                            b.len
                        )));
                    }
                    stream.clone_htod(*host).map_err(cu("cuMemcpyHtoD"))?
                }
                // SAFETY: the kernel writes every output element (verified by every sweep of it).
                Role::Output => unsafe { stream.alloc::<f32>(b.len) }.map_err(cu("cuMemAlloc"))?,
            };
            cur.slices.push(slice);
        }
        self.launch_once(launch).map_err(|e| cu(&format!("cuLaunchKernel({})", kernel.entry()))(e))?;
        self.sync(kernel.entry())?;
        let cur = self.current()?;
        let outs: Vec<Vec<f32>> = cur
            .buffers
            .iter()
            .zip(&cur.slices)
            .filter(|(b, _)| b.role == Role::Output)
            .map(|(_, s)| self.stream.clone_dtoh(s).map_err(cu("cuMemcpyDtoH")))
            .collect::<Result<_>>()?;
        self.current = None;
        Ok(outs)
    }

    fn user(&mut self) -> Option<&mut dyn super::UserGpu> {
        Some(self)
    }

    fn enable_counters(&mut self, counters: &[String], window: usize) -> std::result::Result<usize, Unavailable> {
        self.counters = None;
        self.ctx.bind_to_thread().map_err(|e| Unavailable::Failed(describe(&e)))?;
        let cache = crate::profile::Counters::cache_name(&super::calibrate::key(&self.info))
            .ok()
            .and_then(|name| super::calibrate::cache_dir().map(|d| d.join("cupti").join(name)));
        let ordinal = self.info.ordinal as usize;
        let mut c = crate::profile::Counters::new(self.ctx.cu_ctx(), ordinal, counters, window, cache.as_deref())?;
        self.prime(&mut c)?;
        let passes = c.passes();
        self.counters = Some(c);
        Ok(passes)
    }

    fn measure_counters(
        &mut self,
        _kernel: &dyn Kernel,
        launches: &[Launch],
    ) -> std::result::Result<Vec<Vec<f64>>, Unavailable> {
        let mut counters =
            self.counters.take().ok_or_else(|| Unavailable::Failed("counters were not enabled".into()))?;
        let result = counters.measure(launches.len(), || {
            for launch in launches {
                self.launch_once(launch).map_err(|e| describe(&e))?;
            }
            self.stream.synchronize().map_err(|e| describe(&e))
        });
        self.counters = Some(counters);
        result
    }
}
