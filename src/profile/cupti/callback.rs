//! CUPTI's Callback API inside a profiled program (`warpscope nvprof`'s injection library): kernel
//! launches (driver API, which the runtime goes through too), CUDA graphs' instantiation and launches,
//! and context creation and destruction, decoded here from CUPTI's raw structs into plain values for
//! one registered handler. Enum-typed
//! fields are read as integers: a newer CUPTI may pass values the bindings do not know.

use std::ffi::{CStr, c_char, c_void};
use std::ptr::{self, addr_of};
use std::sync::OnceLock;

use cudarc::cupti::sys as c;
use cudarc::driver::sys::{CUcontext, CUgraph, CUgraphExec, CUstream};

use super::{Lib, Unavailable};

const DOMAIN_DRIVER: u32 = 1;
const DOMAIN_RESOURCE: u32 = 3;
const SITE_ENTER: u32 = 0;
const CONTEXT_CREATED: u32 = 1;
const CONTEXT_DESTROY_STARTING: u32 = 2;

/// How a launch entry point passes its shape.
#[derive(Clone, Copy)]
enum Layout {
    /// `cuLaunchKernel`-like: f, grid x/y/z, block x/y/z, shared bytes, stream.
    Classic,
    /// `cuLaunchKernelEx`: a `CUlaunchConfig` pointer first.
    Config,
}

/// The driver launch entry points (CUPTI driver callback ids, stable across releases), whether they
/// take a per-thread default stream, and their parameter layout.
const LAUNCHES: &[(u32, bool, Layout)] = &[
    (307, false, Layout::Classic), // cuLaunchKernel
    (442, true, Layout::Classic),  // cuLaunchKernel_ptsz
    (477, false, Layout::Classic), // cuLaunchCooperativeKernel
    (478, true, Layout::Classic),  // cuLaunchCooperativeKernel_ptsz
    (652, false, Layout::Config),  // cuLaunchKernelEx
    (653, true, Layout::Config),   // cuLaunchKernelEx_ptsz
];

/// CUDA graph launches (`cuGraphLaunch`, `_ptsz`): both take the executable graph, then the stream.
const GRAPH_LAUNCHES: &[(u32, bool)] = &[(514, false), (515, true)];

/// Graph instantiations (`cuGraphInstantiate`, `_v2`, `WithFlags`, `WithParams`, `WithParams_ptsz`): each
/// takes a pointer to the executable graph it makes, then the graph.
const GRAPH_INSTANTIATIONS: &[u32] = &[513, 578, 643, 656, 657];

/// Calls that start building a graph: stream capture (`cuStreamBeginCapture`, `_ptsz`, `_v2`, `_v2_ptsz`,
/// `ToGraph`, `ToGraph_ptsz`) and `cuGraphCreate`.
const GRAPH_BUILDING: &[u32] = &[495, 496, 539, 540, 720, 721, 501];

/// `cuProfilerStart` and `cuProfilerStop` (what `cudaProfilerStart`/`Stop` call).
const PROFILER_START: u32 = 308;
const PROFILER_STOP: u32 = 309;

/// A CUDA context, as a plain handle that can be kept and sent between threads (the program owns it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Context(usize);

impl Context {
    /// The driver handle.
    pub fn raw(self) -> CUcontext {
        self.0 as CUcontext
    }
}

/// Whether a callback comes before or after the API call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Before the call.
    Enter,
    /// After it returned.
    Exit,
}

/// One kernel launch as the driver saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// Before or after the launch call.
    pub site: Site,
    /// Its context.
    pub context: Context,
    /// CUPTI's id of the context (1-based, as nvprof printed).
    pub context_id: u32,
    /// Correlation id, shared with the kernel's activity record.
    pub correlation: u32,
    /// The kernel's (mangled) symbol.
    pub symbol: String,
    /// Grid extents.
    pub grid: [u32; 3],
    /// Block extents.
    pub block: [u32; 3],
    /// Dynamic shared memory, bytes.
    pub dynamic_smem: u32,
    /// CUPTI's id of the stream.
    pub stream: u32,
    /// The launch call's result (`CUresult`), known at [`Site::Exit`].
    pub result: Option<u32>,
    /// The stream is being captured into a graph: the kernel is recorded, not run (known at [`Site::Enter`]).
    pub captured: bool,
}

/// A launch of an executable CUDA graph.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphLaunch {
    /// Before or after the launch call.
    pub site: Site,
    /// Its context.
    pub context: Context,
    /// CUPTI's id of the context.
    pub context_id: u32,
    /// Correlation id, shared with the activity records of the graph's kernels.
    pub correlation: u32,
    /// The executable graph (its handle, as a number).
    pub exec: usize,
    /// CUPTI's id of the stream.
    pub stream: u32,
    /// The launch call's result, known at [`Site::Exit`].
    pub result: Option<u32>,
    /// The stream is being captured: the graph launch is recorded into another graph, not run.
    pub captured: bool,
}

/// A kernel node of a graph, as instantiated.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphKernel {
    /// The kernel's (mangled) symbol.
    pub symbol: String,
    /// Grid extents.
    pub grid: [u32; 3],
    /// Block extents.
    pub block: [u32; 3],
    /// Dynamic shared memory, bytes.
    pub dynamic_smem: u32,
}

/// What the handler is told.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A kernel launch, before and after the call.
    Launch(Launch),
    /// A CUDA graph launch, before and after the call.
    GraphLaunch(GraphLaunch),
    /// The program called `cudaProfilerStart` (after the call).
    ProfilerStart,
    /// The program called `cudaProfilerStop` (before the call).
    ProfilerStop,
    /// The program starts building a graph (a stream capture begins, or a graph is created).
    GraphBuilding {
        /// The context it builds in.
        context: Context,
        /// CUPTI's id of it.
        context_id: u32,
    },
    /// A graph is instantiated: before the call, and after a successful one, with the executable's handle.
    /// Its kernel nodes (those of child graphs too) come in the order the graph holds them.
    GraphInstantiate {
        /// Before or after the call.
        site: Site,
        /// The context it is instantiated in.
        context: Context,
        /// CUPTI's id of it.
        context_id: u32,
        /// The executable graph's handle, as a number (after the call).
        exec: Option<usize>,
        /// Its kernel nodes.
        kernels: Vec<GraphKernel>,
        /// Whether its kernel nodes run in one order, that of `kernels` (each depends on the one before,
        /// directly or not); on parallel branches the driver may run them in another.
        ordered: bool,
    },
    /// A context was created.
    ContextCreated {
        /// The context.
        context: Context,
        /// CUPTI's id of it.
        context_id: u32,
        /// Its device ordinal.
        device: u32,
    },
    /// A context is about to be destroyed (still usable during the callback).
    ContextDestroying {
        /// The context.
        context: Context,
        /// CUPTI's id of it.
        context_id: u32,
    },
}

type Handler = Box<dyn Fn(Event) + Send + Sync>;

static HANDLER: OnceLock<(&'static Lib, Handler)> = OnceLock::new();

/// Subscribes `handler` to context creation/destruction, when `launches` to every kernel launch and
/// graph, and when `marks` to the program's `cudaProfilerStart`/`Stop` calls. One subscriber per process
/// (CUPTI's rule): a second call fails.
pub fn subscribe(
    lib: &'static Lib,
    launches: bool,
    marks: bool,
    handler: impl Fn(Event) + Send + Sync + 'static,
) -> Result<(), Unavailable> {
    if HANDLER.set((lib, Box::new(handler))).is_err() {
        return Err(Unavailable::Failed("CUPTI callbacks already subscribed in this process".into()));
    }
    let f = &lib.fns.cb;
    let mut subscriber: c::CUpti_SubscriberHandle = ptr::null_mut();
    // SAFETY: `trampoline` has CUPTI's callback signature and lives for the whole process.
    unsafe {
        lib.check("cuptiSubscribe", (f.subscribe)(&mut subscriber, Some(trampoline), ptr::null_mut()))?;
        for cbid in [CONTEXT_CREATED, CONTEXT_DESTROY_STARTING] {
            lib.check("cuptiEnableCallback(resource)", (f.enable_callback)(1, subscriber, DOMAIN_RESOURCE, cbid))?;
        }
        if launches {
            let graphs = GRAPH_LAUNCHES.iter().map(|(id, _)| id).chain(GRAPH_INSTANTIATIONS).chain(GRAPH_BUILDING);
            for cbid in LAUNCHES.iter().map(|(id, _, _)| id).chain(graphs) {
                lib.check("cuptiEnableCallback(launch)", (f.enable_callback)(1, subscriber, DOMAIN_DRIVER, *cbid))?;
            }
        }
        if marks {
            for cbid in [PROFILER_START, PROFILER_STOP] {
                lib.check("cuptiEnableCallback(profiler)", (f.enable_callback)(1, subscriber, DOMAIN_DRIVER, cbid))?;
            }
        }
    }
    Ok(())
}

/// CUPTI's id of a context (0 when CUPTI cannot tell).
pub fn context_id(lib: &Lib, context: Context) -> u32 {
    let mut id = 0;
    // SAFETY: writes one u32; a failure leaves 0.
    unsafe { (lib.fns.cb.context_id)(context.raw(), &mut id) };
    id
}

/// The name of a driver (`driver`) or runtime API function from its callback id, e.g. `cudaMalloc_v3020`.
pub fn api_name(lib: &Lib, driver: bool, cbid: u32) -> String {
    let mut name: *const c_char = ptr::null();
    let domain = if driver { DOMAIN_DRIVER } else { 2 };
    // SAFETY: CUPTI points `name` at a static string or leaves it null.
    if unsafe { (lib.fns.cb.callback_name)(domain, cbid, &mut name) } == 0 && !name.is_null() {
        unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
    } else {
        format!("{}#{cbid}", if driver { "driver" } else { "runtime" })
    }
}

/// What a profiler names a device by.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceProps {
    /// Product name.
    pub name: String,
    /// Compute capability.
    pub major: i32,
    /// Compute capability, minor.
    pub minor: i32,
    /// Streaming multiprocessors.
    pub sms: i32,
    /// Device memory, bytes.
    pub memory: u64,
}

/// The properties of device `ordinal`, asked of the driver the profiled program has loaded (call from
/// a callback, never from `InitializeInjection`, where the driver is not ready yet).
pub fn device_props(ordinal: u32) -> Option<DeviceProps> {
    use cudarc::driver::result::device;
    use cudarc::driver::sys::CUdevice_attribute as A;
    let dev = device::get(ordinal as i32).ok()?;
    // SAFETY: `dev` is a valid device handle; the attributes exist on every supported driver.
    let attr = |a| unsafe { device::get_attribute(dev, a) }.ok();
    Some(DeviceProps {
        name: device::get_name(dev).ok()?,
        major: attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        minor: attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        sms: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).unwrap_or(0),
        // SAFETY: as above.
        memory: unsafe { device::total_mem(dev) }.map(|m| m as u64).unwrap_or(0),
    })
}

/// Runs `f` with `context` current on this thread (one of the injection library's own, where the
/// program's context is not), then makes the thread's earlier context current again.
pub fn on_context<T>(context: Context, f: impl FnOnce() -> T) -> T {
    use cudarc::driver::sys::{CUresult, cuCtxPopCurrent_v2, cuCtxPushCurrent_v2};
    // SAFETY: the context is alive (the caller keeps it between CUPTI's creation and destruction
    // callbacks, under its lock); push and pop pair up on this thread.
    let pushed = unsafe { cuCtxPushCurrent_v2(context.raw()) } == CUresult::CUDA_SUCCESS;
    let out = f();
    if pushed {
        let mut popped: CUcontext = ptr::null_mut();
        // SAFETY: pops what was pushed above; writes one handle.
        unsafe { cuCtxPopCurrent_v2(&mut popped) };
    }
    out
}

/// The CUDA version the driver supports (13000 for 13.0), asked of the driver the program has loaded
/// (from a callback, as [`device_props`]).
pub fn driver_version() -> Option<i32> {
    let mut v = 0;
    // SAFETY: writes one int; the driver is loaded in a profiled program.
    (unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) } as u32 == 0).then_some(v)
}

/// The C string at `p`, or empty.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text(p: *const c_char) -> String {
    if p.is_null() { String::new() } else { unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned() }
}

unsafe extern "C" fn trampoline(_user: *mut c_void, domain: u32, cbid: u32, data: *const c_void) {
    let Some((lib, handler)) = HANDLER.get() else { return };
    if data.is_null() {
        return;
    }
    // A panic must not unwind into CUDA (a driver call of the decoding, a handler): the event is dropped.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: CUPTI passes a CUpti_CallbackData for API domains and a CUpti_ResourceData for the
        // resource domain; fields are read one by one (enum-typed ones as integers).
        let event = unsafe { decode(lib, domain, cbid, data) };
        if let Some(event) = event {
            handler(event);
        }
    }));
}

/// The event of a callback, if it is one warpscope follows.
///
/// # Safety
/// `data` is what CUPTI passed for `domain` and `cbid`.
unsafe fn decode(lib: &Lib, domain: u32, cbid: u32, data: *const c_void) -> Option<Event> {
    unsafe {
        match domain {
            DOMAIN_DRIVER => {
                let d = data as *const c::CUpti_CallbackData;
                decode_launch(lib, cbid, d)
                    .or_else(|| decode_graph_launch(lib, cbid, d))
                    .or_else(|| decode_instantiation(cbid, d))
                    .or_else(|| decode_building(cbid, d))
                    .or_else(|| decode_mark(cbid, d))
            }
            DOMAIN_RESOURCE => {
                let r = data as *const c::CUpti_ResourceData;
                let context = Context(addr_of!((*r).context).read() as usize);
                let context_id = context_id(lib, context);
                match cbid {
                    CONTEXT_CREATED => {
                        let mut device = 0;
                        (lib.fns.cb.device_id)(context.raw(), &mut device);
                        Some(Event::ContextCreated { context, context_id, device })
                    }
                    CONTEXT_DESTROY_STARTING => Some(Event::ContextDestroying { context, context_id }),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// A launch callback's data, when `cbid` is one of [`LAUNCHES`].
///
/// # Safety
/// `d` points at the CUpti_CallbackData of a driver API callback with id `cbid`.
unsafe fn decode_launch(lib: &Lib, cbid: u32, d: *const c::CUpti_CallbackData) -> Option<Event> {
    let (_, per_thread, layout) = *LAUNCHES.iter().find(|(id, _, _)| *id == cbid)?;
    unsafe {
        let site =
            if addr_of!((*d).callbackSite).cast::<u32>().read() == SITE_ENTER { Site::Enter } else { Site::Exit };
        let context = Context(addr_of!((*d).context).read() as usize);
        let params = addr_of!((*d).functionParams).read();
        if params.is_null() {
            return None;
        }
        let (grid, block, smem, stream): ([u32; 3], [u32; 3], u32, CUstream) = match layout {
            Layout::Classic => {
                let p = params as *const c::cuLaunchKernel_params_st;
                (
                    [(*p).gridDimX, (*p).gridDimY, (*p).gridDimZ],
                    [(*p).blockDimX, (*p).blockDimY, (*p).blockDimZ],
                    (*p).sharedMemBytes,
                    (*p).hStream,
                )
            }
            Layout::Config => {
                let p = params as *const c::cuLaunchKernelEx_params_st;
                let cfg = (*p).config;
                if cfg.is_null() {
                    return None;
                }
                (
                    [(*cfg).gridDimX, (*cfg).gridDimY, (*cfg).gridDimZ],
                    [(*cfg).blockDimX, (*cfg).blockDimY, (*cfg).blockDimZ],
                    (*cfg).sharedMemBytes,
                    (*cfg).hStream,
                )
            }
        };
        let (stream_id, result, captured) = launch_common(lib, d, context, stream, per_thread, site);
        Some(Event::Launch(Launch {
            site,
            context,
            context_id: addr_of!((*d).contextUid).read(),
            correlation: addr_of!((*d).correlationId).read(),
            symbol: text(addr_of!((*d).symbolName).read()),
            grid,
            block,
            dynamic_smem: smem,
            stream: stream_id,
            result,
            captured,
        }))
    }
}

/// A launch's stream id (CUPTI's), result (at exit) and whether its stream is being captured (at enter).
///
/// # Safety
/// `d` points at the CUpti_CallbackData of a launch callback whose stream is `stream`.
unsafe fn launch_common(
    lib: &Lib,
    d: *const c::CUpti_CallbackData,
    context: Context,
    stream: CUstream,
    per_thread: bool,
    site: Site,
) -> (u32, Option<u32>, bool) {
    unsafe {
        let mut stream_id = 0;
        (lib.fns.cb.stream_id_ex)(context.raw(), stream, per_thread as u8, &mut stream_id);
        let ret = addr_of!((*d).functionReturnValue).read() as *const u32;
        let result = (site == Site::Exit && !ret.is_null()).then(|| ret.read_unaligned());
        (stream_id, result, site == Site::Enter && capturing(stream, per_thread))
    }
}

/// Whether `stream` is being captured into a graph (the default stream of a `_ptsz` call is the
/// thread's own). A stream the driver cannot tell about counts as not captured.
fn capturing(stream: CUstream, per_thread: bool) -> bool {
    use cudarc::driver::sys::{CUresult, CUstreamCaptureStatus, cuStreamIsCapturing};
    // CU_STREAM_PER_THREAD, the handle of the calling thread's default stream.
    let stream = if stream.is_null() && per_thread { 0x2 as CUstream } else { stream };
    let mut status = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: writes one status for a stream handle the program passed to a launch.
    let ok = unsafe { cuStreamIsCapturing(stream, &mut status) } == CUresult::CUDA_SUCCESS;
    ok && status != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
}

/// A graph launch callback's data, when `cbid` is one of [`GRAPH_LAUNCHES`].
///
/// # Safety
/// `d` points at the CUpti_CallbackData of a driver API callback with id `cbid`.
unsafe fn decode_graph_launch(lib: &Lib, cbid: u32, d: *const c::CUpti_CallbackData) -> Option<Event> {
    let (_, per_thread) = *GRAPH_LAUNCHES.iter().find(|(id, _)| *id == cbid)?;
    unsafe {
        let site =
            if addr_of!((*d).callbackSite).cast::<u32>().read() == SITE_ENTER { Site::Enter } else { Site::Exit };
        let context = Context(addr_of!((*d).context).read() as usize);
        let params = addr_of!((*d).functionParams).read() as *const c::cuGraphLaunch_ptsz_params_st;
        if params.is_null() {
            return None;
        }
        let (exec, stream) = ((*params).hGraphExec, (*params).hStream);
        let (stream_id, result, captured) = launch_common(lib, d, context, stream, per_thread, site);
        Some(Event::GraphLaunch(GraphLaunch {
            site,
            context,
            context_id: addr_of!((*d).contextUid).read(),
            correlation: addr_of!((*d).correlationId).read(),
            exec: exec as usize,
            stream: stream_id,
            result,
            captured,
        }))
    }
}

/// A graph instantiation, when `cbid` is one of [`GRAPH_INSTANTIATIONS`]: the graph's kernel nodes before
/// the call, and with the executable graph after a successful one.
///
/// # Safety
/// `d` points at the CUpti_CallbackData of a driver API callback with id `cbid`.
unsafe fn decode_instantiation(cbid: u32, d: *const c::CUpti_CallbackData) -> Option<Event> {
    if !GRAPH_INSTANTIATIONS.contains(&cbid) {
        return None;
    }
    unsafe {
        let site =
            if addr_of!((*d).callbackSite).cast::<u32>().read() == SITE_ENTER { Site::Enter } else { Site::Exit };
        // Every instantiation entry point starts with (CUgraphExec *phGraphExec, CUgraph hGraph).
        let params = addr_of!((*d).functionParams).read() as *const c::cuGraphInstantiateWithFlags_params_st;
        if params.is_null() {
            return None;
        }
        let exec = match site {
            Site::Enter => None,
            Site::Exit => {
                let ret = addr_of!((*d).functionReturnValue).read() as *const u32;
                if ret.is_null() || ret.read_unaligned() != 0 || (*params).phGraphExec.is_null() {
                    return None;
                }
                let exec: CUgraphExec = (*params).phGraphExec.read();
                Some(exec as usize)
            }
        };
        let mut kernels = Vec::new();
        let ordered = graph_kernels((*params).hGraph, &mut kernels, 0);
        let context = Context(addr_of!((*d).context).read() as usize);
        let context_id = addr_of!((*d).contextUid).read();
        Some(Event::GraphInstantiate { site, context, context_id, exec, kernels, ordered })
    }
}

/// The program's profiler start (after the call) or stop (before it).
///
/// # Safety
/// `d` points at the CUpti_CallbackData of a driver API callback with id `cbid`.
unsafe fn decode_mark(cbid: u32, d: *const c::CUpti_CallbackData) -> Option<Event> {
    let enter = unsafe { addr_of!((*d).callbackSite).cast::<u32>().read() } == SITE_ENTER;
    match (cbid, enter) {
        (PROFILER_START, false) => Some(Event::ProfilerStart),
        (PROFILER_STOP, true) => Some(Event::ProfilerStop),
        _ => None,
    }
}

/// The start of a graph's building, when `cbid` is one of [`GRAPH_BUILDING`] (before the call).
///
/// # Safety
/// `d` points at the CUpti_CallbackData of a driver API callback with id `cbid`.
unsafe fn decode_building(cbid: u32, d: *const c::CUpti_CallbackData) -> Option<Event> {
    if !GRAPH_BUILDING.contains(&cbid) {
        return None;
    }
    unsafe {
        if addr_of!((*d).callbackSite).cast::<u32>().read() != SITE_ENTER {
            return None;
        }
        let context = Context(addr_of!((*d).context).read() as usize);
        if context.raw().is_null() {
            return None;
        }
        Some(Event::GraphBuilding { context, context_id: addr_of!((*d).contextUid).read() })
    }
}

/// The kernel nodes of `graph`, and of the graphs its child-graph nodes hold, in the graph's order (the
/// order they were added in, which their dependencies follow); true when they run in that order: each
/// node holding kernels is reached from the one before it (no parallel branches among them).
fn graph_kernels(graph: CUgraph, out: &mut Vec<GraphKernel>, depth: usize) -> bool {
    use cudarc::driver::sys::{
        CUDA_KERNEL_NODE_PARAMS, CUgraphEdgeData, CUgraphNode, CUgraphNodeType, CUresult, cuFuncGetName,
        cuGraphChildGraphNodeGetGraph, cuGraphGetEdges_v2, cuGraphGetNodes, cuGraphKernelNodeGetParams_v2,
        cuGraphNodeGetType, cuKernelGetName,
    };
    if graph.is_null() || depth > 16 {
        return false;
    }
    let ok = |r: CUresult| r == CUresult::CUDA_SUCCESS;
    // SAFETY: each first call counts, each second fills buffers of that many; every handle read below
    // comes from the driver for this graph, which the program keeps during instantiation.
    unsafe {
        let mut n = 0usize;
        if !ok(cuGraphGetNodes(graph, ptr::null_mut(), &mut n)) || n == 0 {
            return n == 0;
        }
        let mut nodes: Vec<CUgraphNode> = vec![ptr::null_mut(); n];
        if !ok(cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut n)) {
            return false;
        }
        nodes.truncate(n);
        let mut ordered = true;
        // The nodes that hold kernels, in order.
        let mut holders: Vec<usize> = Vec::new();
        for (i, &node) in nodes.iter().enumerate() {
            let mut kind = CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
            if !ok(cuGraphNodeGetType(node, &mut kind)) {
                continue;
            }
            match kind {
                CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL => {
                    let mut p: CUDA_KERNEL_NODE_PARAMS = std::mem::zeroed();
                    if !ok(cuGraphKernelNodeGetParams_v2(node, &mut p)) {
                        ordered = false;
                        continue;
                    }
                    let mut name: *const c_char = ptr::null();
                    if !p.func.is_null() {
                        cuFuncGetName(&mut name, p.func);
                    }
                    if name.is_null() && !p.kern.is_null() {
                        cuKernelGetName(&mut name, p.kern);
                    }
                    out.push(GraphKernel {
                        symbol: text(name),
                        grid: [p.gridDimX, p.gridDimY, p.gridDimZ],
                        block: [p.blockDimX, p.blockDimY, p.blockDimZ],
                        dynamic_smem: p.sharedMemBytes,
                    });
                    holders.push(i);
                }
                CUgraphNodeType::CU_GRAPH_NODE_TYPE_GRAPH => {
                    let mut child: CUgraph = ptr::null_mut();
                    let before = out.len();
                    if ok(cuGraphChildGraphNodeGetGraph(node, &mut child)) {
                        ordered &= graph_kernels(child, out, depth + 1);
                    }
                    if out.len() > before {
                        holders.push(i);
                    }
                }
                _ => {}
            }
        }
        if holders.len() < 2 {
            return ordered;
        }
        let mut m = 0usize;
        if !ok(cuGraphGetEdges_v2(graph, ptr::null_mut(), ptr::null_mut(), ptr::null_mut(), &mut m)) {
            return false;
        }
        let mut from: Vec<CUgraphNode> = vec![ptr::null_mut(); m];
        let mut to: Vec<CUgraphNode> = vec![ptr::null_mut(); m];
        let mut data: Vec<CUgraphEdgeData> = vec![std::mem::zeroed(); m];
        if m > 0 && !ok(cuGraphGetEdges_v2(graph, from.as_mut_ptr(), to.as_mut_ptr(), data.as_mut_ptr(), &mut m)) {
            return false;
        }
        let index = |h: CUgraphNode| nodes.iter().position(|&x| x == h);
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (&f, &t) in from.iter().zip(&to).take(m) {
            if let (Some(f), Some(t)) = (index(f), index(t)) {
                next[f].push(t);
            }
        }
        ordered && holders.windows(2).all(|w| reaches(&next, w[0], w[1]))
    }
}

/// Whether node `to` is reached from node `from` along `next` (the graph's edges).
fn reaches(next: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; next.len()];
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        if std::mem::replace(&mut seen[n], true) {
            continue;
        }
        stack.extend(next[n].iter().copied());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::reaches;

    #[test]
    fn a_chain_reaches_onwards_and_parallel_branches_do_not_reach_each_other() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3: 1 and 2 are parallel branches.
        let next = vec![vec![1, 2], vec![3], vec![3], vec![]];
        assert!(reaches(&next, 0, 3) && reaches(&next, 1, 3) && reaches(&next, 0, 0));
        assert!(!reaches(&next, 1, 2) && !reaches(&next, 2, 1) && !reaches(&next, 3, 0));
    }
}
