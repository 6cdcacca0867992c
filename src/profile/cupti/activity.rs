//! CUPTI's Activity API inside a profiled program (`warpscope nvprof`'s injection library): kernels
//! (concurrent), memory copies and sets, runtime and driver API calls, timed by the GPU and CUPTI.
//! CUPTI fills buffers this module hands out; each completed buffer is decoded into plain records for
//! one registered sink. Only the leading fields of each record kind are read, which every CUPTI since
//! CUDA 12.0 lays out the same way; enum-typed fields are read as integers.

use std::collections::HashMap;
use std::ffi::{CStr, c_char};
use std::ptr::{self, addr_of};
use std::sync::{Mutex, OnceLock};

use cudarc::cupti::sys as c;
use cudarc::driver::sys::CUcontext;

use super::{Lib, Unavailable};

/// What to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Kernels, concurrent ones as they ran.
    Kernel,
    /// Kernels, CUPTI making them run one at a time.
    SerialKernel,
    /// Memory copies.
    Memcpy,
    /// Memory sets.
    Memset,
    /// CUDA runtime API calls.
    Runtime,
    /// CUDA driver API calls.
    Driver,
}

impl Kind {
    fn code(self) -> u32 {
        match self {
            Kind::Memcpy => 1,
            Kind::Memset => 2,
            Kind::Driver => 4,
            Kind::Runtime => 5,
            Kind::Kernel => 10,
            Kind::SerialKernel => 3,
        }
    }
}

/// Where and when a GPU activity ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// Start, CUPTI timestamp (ns).
    pub start: u64,
    /// End.
    pub end: u64,
    /// Device ordinal.
    pub device: u32,
    /// CUPTI context id.
    pub context: u32,
    /// CUPTI stream id.
    pub stream: u32,
    /// Correlation id of the API call that issued it.
    pub correlation: u32,
}

/// A kernel's execution.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelRecord {
    /// When and where.
    pub span: Span,
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block.
    pub static_smem: u32,
    /// Dynamic shared memory per block.
    pub dynamic_smem: u32,
    /// CUPTI's id of the graph node that launched it (`None` outside a CUDA graph).
    pub graph_node: Option<u64>,
    /// Mangled name.
    pub name: String,
}

/// A memory copy.
#[derive(Clone, Debug, PartialEq)]
pub struct MemcpyRecord {
    /// When and where.
    pub span: Span,
    /// CUPTI's copy kind (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...).
    pub copy_kind: u8,
    /// CUPTI's memory kind of the source (1 pageable, 2 pinned, 3 device, 4 array, 5 managed, ...).
    pub src_kind: u8,
    /// Memory kind of the destination.
    pub dst_kind: u8,
    /// Bytes.
    pub bytes: u64,
}

/// A memory set.
#[derive(Clone, Debug, PartialEq)]
pub struct MemsetRecord {
    /// When and where.
    pub span: Span,
    /// Bytes.
    pub bytes: u64,
    /// Memory kind written (as for copies).
    pub memory_kind: u16,
}

/// A runtime or driver API call.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiRecord {
    /// Driver API (else runtime).
    pub driver: bool,
    /// Callback id of the function.
    pub cbid: u32,
    /// Start (CPU, CUPTI timestamp).
    pub start: u64,
    /// End.
    pub end: u64,
    /// Calling thread.
    pub thread: u32,
    /// Correlation id: the GPU activity a launch or copy call started has the same.
    pub correlation: u32,
}

/// One decoded activity record.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// A kernel.
    Kernel(KernelRecord),
    /// A copy.
    Memcpy(MemcpyRecord),
    /// A set.
    Memset(MemsetRecord),
    /// An API call.
    Api(ApiRecord),
}

/// Receives each completed buffer's records and how many records CUPTI had to drop.
type Sink = Box<dyn Fn(Vec<Record>, usize) + Send + Sync>;

static STATE: OnceLock<(&'static Lib, Sink)> = OnceLock::new();
/// Buffers handed to CUPTI, by address, until it gives them back.
static BUFFERS: Mutex<Option<HashMap<usize, Vec<u64>>>> = Mutex::new(None);

const BUFFER_BYTES: usize = 8 << 20;

/// Starts recording `kinds`, delivering records to `sink` as CUPTI completes buffers (at the latest
/// on [`flush`]). One sink per process.
pub fn enable(
    lib: &'static Lib,
    kinds: &[Kind],
    sink: impl Fn(Vec<Record>, usize) + Send + Sync + 'static,
) -> Result<(), Unavailable> {
    if STATE.set((lib, Box::new(sink))).is_err() {
        return Err(Unavailable::Failed("CUPTI activity already enabled in this process".into()));
    }
    let f = &lib.fns.act;
    // SAFETY: both callbacks have CUPTI's signatures and live for the whole process.
    unsafe {
        lib.check("cuptiActivityRegisterCallbacks", (f.register)(Some(requested), Some(completed)))?;
        for k in kinds {
            lib.check("cuptiActivityEnable", (f.enable)(k.code()))?;
        }
        if let Some(period) = f.flush_period {
            // Completed buffers reach the sink at least every 100 ms, so a crash loses little.
            period(100);
        }
    }
    Ok(())
}

/// Stops recording `kind` until [`resume`] (for calls of warpscope's own that are not the program's).
pub fn pause(lib: &Lib, kind: Kind) {
    // SAFETY: one integer argument; a failure only means the calls are recorded.
    unsafe { (lib.fns.act.disable)(kind.code()) };
}

/// Records `kind` again after [`pause`].
pub fn resume(lib: &Lib, kind: Kind) {
    // SAFETY: as for pause.
    unsafe { (lib.fns.act.enable)(kind.code()) };
}

/// Hands every buffer, full or not, to the sink (forced flush; call at exit).
pub fn flush(lib: &Lib) -> Result<(), Unavailable> {
    // SAFETY: no arguments but a flag (1: CUPTI_ACTIVITY_FLAG_FLUSH_FORCED).
    lib.check("cuptiActivityFlushAll", unsafe { (lib.fns.act.flush_all)(1) })
}

/// CUPTI's clock now (ns), the one activity records are stamped with.
pub fn timestamp(lib: &Lib) -> Result<u64, Unavailable> {
    let mut t = 0u64;
    // SAFETY: writes one u64.
    lib.check("cuptiGetTimestamp", unsafe { (lib.fns.act.timestamp)(&mut t) })?;
    Ok(t)
}

unsafe extern "C" fn requested(buffer: *mut *mut u8, size: *mut usize, max_records: *mut usize) {
    let mut storage = vec![0u64; BUFFER_BYTES / 8];
    let p = storage.as_mut_ptr() as *mut u8;
    let ok = BUFFERS.lock().map(|mut b| b.get_or_insert_with(HashMap::new).insert(p as usize, storage)).is_ok();
    // SAFETY: CUPTI passes valid out-pointers; a null buffer tells it no buffer could be given.
    unsafe {
        *buffer = if ok { p } else { ptr::null_mut() };
        *size = if ok { BUFFER_BYTES } else { 0 };
        *max_records = 0;
    }
}

unsafe extern "C" fn completed(ctx: CUcontext, stream: u32, buffer: *mut u8, _size: usize, valid: usize) {
    let Some((lib, sink)) = STATE.get() else { return };
    let mut records = Vec::new();
    let mut rec: *mut c::CUpti_Activity = ptr::null_mut();
    // SAFETY: `buffer` is one of ours, holding `valid` bytes of records CUPTI wrote; each record is
    // read field by field from its own layout.
    unsafe {
        if !buffer.is_null() {
            while (lib.fns.act.next_record)(buffer, valid, &mut rec) == 0 {
                if let Some(r) = decode(rec) {
                    records.push(r);
                }
            }
        }
    }
    let mut dropped = 0usize;
    // SAFETY: writes one usize.
    unsafe { (lib.fns.act.dropped)(ctx, stream, &mut dropped) };
    if !records.is_empty() || dropped > 0 {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sink(records, dropped)));
    }
    if let Ok(mut b) = BUFFERS.lock()
        && let Some(map) = b.as_mut()
    {
        map.remove(&(buffer as usize));
    }
}

/// The [`Span`] of a record whose layout has the fields `start`, `end`, `deviceId`, `contextId`,
/// `streamId` and `correlationId` (kernels, copies, sets).
macro_rules! span {
    ($p:expr) => {
        Span {
            start: addr_of!((*$p).start).read_unaligned(),
            end: addr_of!((*$p).end).read_unaligned(),
            device: addr_of!((*$p).deviceId).read_unaligned(),
            context: addr_of!((*$p).contextId).read_unaligned(),
            stream: addr_of!((*$p).streamId).read_unaligned(),
            correlation: addr_of!((*$p).correlationId).read_unaligned(),
        }
    };
}

/// One record, if it is of a kind warpscope uses.
///
/// # Safety
/// `rec` points at a complete activity record inside a CUPTI buffer.
unsafe fn decode(rec: *const c::CUpti_Activity) -> Option<Record> {
    unsafe {
        let kind = (rec as *const u32).read_unaligned();
        Some(match kind {
            3 | 10 => {
                let k = rec as *const c::CUpti_ActivityKernel9;
                let name_ptr: *const c_char = addr_of!((*k).name).read_unaligned();
                Record::Kernel(KernelRecord {
                    span: span!(k),
                    grid: [
                        addr_of!((*k).gridX).read_unaligned() as u32,
                        addr_of!((*k).gridY).read_unaligned() as u32,
                        addr_of!((*k).gridZ).read_unaligned() as u32,
                    ],
                    block: [
                        addr_of!((*k).blockX).read_unaligned() as u32,
                        addr_of!((*k).blockY).read_unaligned() as u32,
                        addr_of!((*k).blockZ).read_unaligned() as u32,
                    ],
                    registers: addr_of!((*k).registersPerThread).read_unaligned() as u32,
                    static_smem: addr_of!((*k).staticSharedMemory).read_unaligned() as u32,
                    dynamic_smem: addr_of!((*k).dynamicSharedMemory).read_unaligned() as u32,
                    graph_node: Some(addr_of!((*k).graphNodeId).read_unaligned()).filter(|id| *id != 0),
                    name: if name_ptr.is_null() {
                        String::new()
                    } else {
                        CStr::from_ptr(name_ptr).to_string_lossy().into_owned()
                    },
                })
            }
            1 => {
                let m = rec as *const c::CUpti_ActivityMemcpy6;
                Record::Memcpy(MemcpyRecord {
                    span: span!(m),
                    copy_kind: addr_of!((*m).copyKind).read_unaligned(),
                    src_kind: addr_of!((*m).srcKind).read_unaligned(),
                    dst_kind: addr_of!((*m).dstKind).read_unaligned(),
                    bytes: addr_of!((*m).bytes).read_unaligned(),
                })
            }
            2 => {
                let m = rec as *const c::CUpti_ActivityMemset4;
                Record::Memset(MemsetRecord {
                    span: span!(m),
                    bytes: addr_of!((*m).bytes).read_unaligned(),
                    memory_kind: addr_of!((*m).memoryKind).read_unaligned(),
                })
            }
            4 | 5 => {
                let a = rec as *const c::CUpti_ActivityAPI;
                Record::Api(ApiRecord {
                    driver: kind == 4,
                    cbid: addr_of!((*a).cbid).read_unaligned(),
                    start: addr_of!((*a).start).read_unaligned(),
                    end: addr_of!((*a).end).read_unaligned(),
                    thread: addr_of!((*a).threadId).read_unaligned(),
                    correlation: addr_of!((*a).correlationId).read_unaligned(),
                })
            }
            _ => return None,
        })
    }
}
