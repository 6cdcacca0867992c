//! A kernel known only by its PTX and its arguments: where each thread loads and stores comes from
//! running the code (`ptx::run`), so that the models serve kernels nobody described by hand (a kernel
//! file's), with no access pattern invented.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{Access, Arg, Buffer, Kernel, Module, Role, Thread, Work};
use crate::ptx::mem::Memory;
use crate::ptx::run::Program;
use crate::spec::Dim3;

/// Numbers the traced kernels, so that a warp's cached accesses are never another kernel's.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A warp's lanes' accesses, run together: (kernel id, block, warp) and each lane's list.
type Warp = (u64, (u32, u32, u32), u64, Vec<Vec<Access>>);

thread_local! {
    /// The warp last run on this thread (the memory model asks for a warp's lanes in turn, on one
    /// thread; its warps, side by side on several).
    static WARP: RefCell<Option<Warp>> = const { RefCell::new(None) };
}

/// One launch of a kernel given as PTX: its buffers and arguments, grid and shared memory.
pub struct Traced {
    /// Its number among traced kernels (keys the warp cache).
    id: u64,
    name: String,
    entry: String,
    /// The module's name, for caches and messages.
    module: String,
    ptx: String,
    program: Program,
    /// What its read-only buffers hold, for the loads of integers its code follows.
    memory: Memory,
    problem: String,
    buffers: Vec<Buffer>,
    /// Bytes each launch must read and write: each input (and in/out buffer) read once, each output
    /// (and in/out buffer) written once.
    work: Work,
    args: Vec<Arg>,
    grid: Dim3,
    dynamic_smem: u32,
}

/// What a traced kernel is given.
pub struct Launchable {
    /// Name in reports.
    pub name: String,
    /// The PTX entry (a C++ kernel's mangled name).
    pub entry: String,
    /// The module's name.
    pub module: String,
    /// The module's PTX.
    pub ptx: String,
    /// The problem as reports show it.
    pub problem: String,
    /// Each buffer's name, bytes and role, in [`Arg::Buf`] order, and whether an output is read too
    /// (an in/out buffer).
    pub buffers: Vec<(String, u64, Role, bool)>,
    /// The arguments, in parameter order.
    pub args: Vec<Arg>,
    /// What each buffer holds when the launch starts, where the kernel only reads it and its contents
    /// may decide addresses or trip counts (integers), in [`Arg::Buf`] order; `None` for the others.
    pub data: Vec<Option<std::sync::Arc<[u8]>>>,
    /// What the module's `__constant__` arrays hold, in the order its PTX declares them
    /// ([`Program::constants`]); `None` for one not known.
    pub constants: Vec<Option<std::sync::Arc<[u8]>>>,
    /// The grid.
    pub grid: Dim3,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem: u32,
}

impl Traced {
    /// The kernel of `l` for blocks of `block`, after running a few of its threads (the first of the
    /// first block and of a middle one, the last of the last one): `Err` with the reason the model cannot
    /// follow it (its PTX
    /// does not run, a thread runs too long, or some of its loads and stores take addresses the run does
    /// not know: loaded from memory whose contents it does not hold, or computed from such values).
    pub fn new(l: Launchable, block: Dim3) -> Result<Traced, String> {
        let program =
            Program::read(&l.ptx, &l.entry).map_err(|why| format!("its PTX entry {} cannot be run: {why}", l.entry))?;
        Traced::with_program(l, program, block)
    }

    /// [`Traced::new`] with `l`'s PTX entry already parsed into `program`.
    pub fn with_program(l: Launchable, program: Program, block: Dim3) -> Result<Traced, String> {
        let buffers: Vec<Buffer> = l
            .buffers
            .iter()
            .map(|(name, b, role, _)| Buffer { name: name.clone().into(), len: b.div_ceil(4) as usize, role: *role })
            .collect();
        let sum =
            |f: &dyn Fn(Role, bool) -> bool| -> u64 { l.buffers.iter().filter(|b| f(b.2, b.3)).map(|b| b.1).sum() };
        let work = Work {
            bytes_read: sum(&|role, read| role == Role::Input || read),
            bytes_written: sum(&|role, _| role == Role::Output),
            flops: 0,
        };
        let k = Traced {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name: l.name,
            entry: l.entry,
            module: l.module,
            ptx: l.ptx,
            program,
            memory: Memory::new(l.data).with_constants(l.constants),
            problem: l.problem,
            buffers,
            work,
            args: l.args,
            grid: l.grid,
            dynamic_smem: l.dynamic_smem,
        };
        let last = |d: Dim3| Dim3::new(d.x.saturating_sub(1), d.y.saturating_sub(1), d.z.saturating_sub(1));
        let mut out = Vec::new();
        let middle = Dim3::new(k.grid.x / 2, k.grid.y / 2, k.grid.z / 2);
        let zero = Dim3::new(0, 0, 0);
        for (at, tid) in [(zero, zero), (middle, zero), (last(k.grid), last(block))] {
            out.clear();
            match k.program.accesses(&k.args, &k.memory, k.grid, block, at, tid, &mut out) {
                None => return Err("a thread runs past the model's 4 M steps".into()),
                Some(0) => {}
                Some(n) if !k.program.unfollowed().is_empty() => {
                    return Err(format!(
                        "{n} of a thread's loads and stores take addresses the model cannot follow: computed from {}",
                        k.program.unfollowed().join(", or ")
                    ));
                }
                Some(n) => {
                    return Err(format!(
                        "{n} of a thread's loads and stores take addresses the model cannot follow (loaded from a buffer the kernel writes or whose contents it does not hold, or computed from such values)"
                    ));
                }
            }
        }
        Ok(k)
    }
}

impl Traced {
    /// Bytes of static shared memory a block of it holds (its PTX's arrays).
    pub fn static_shared_bytes(&self) -> u64 {
        self.program.static_shared_bytes()
    }
}

impl Kernel for Traced {
    fn name(&self) -> &str {
        &self.name
    }
    fn entry(&self) -> &str {
        &self.entry
    }
    fn module(&self) -> Module<'_> {
        Module::Ptx { name: &self.module, text: &self.ptx }
    }
    fn problem(&self) -> String {
        self.problem.clone()
    }
    fn buffers(&self) -> Vec<Buffer> {
        self.buffers.clone()
    }
    fn args(&self) -> Vec<Arg> {
        self.args.clone()
    }
    fn grid(&self, _block: Dim3) -> Dim3 {
        self.grid
    }
    fn dynamic_smem(&self, _block: Dim3) -> u32 {
        self.dynamic_smem
    }
    fn work(&self) -> Work {
        self.work
    }
    fn reference(&self, _inputs: &[Vec<f32>]) -> Vec<Vec<f32>> {
        Vec::new()
    }
    fn barriers(&self) -> u32 {
        self.program.barrier_count()
    }
    fn program(&self) -> Option<(&Program, &Memory)> {
        Some((&self.program, &self.memory))
    }
    fn accesses(&self, t: &Thread, out: &mut Vec<Access>) {
        // The models walk a warp's lanes one after another, and each lane's run is the whole thread: the
        // warp is run at once on its first lane's call, and kept for the others.
        let d = t.dim;
        let linear = t.thread.x as u64 + d.x as u64 * (t.thread.y as u64 + d.y as u64 * t.thread.z as u64);
        let (warp, lane) = (linear / 32, (linear % 32) as usize);
        let block = (t.block.x, t.block.y, t.block.z);
        let hit = WARP.with(|w| {
            let w = w.borrow();
            let found = w.as_ref().filter(|(id, b, wp, _)| (*id, *b, *wp) == (self.id, block, warp));
            found.map(|(.., lanes)| out.extend_from_slice(&lanes[lane])).is_some()
        });
        if hit {
            return;
        }
        // The warp's lanes in up to four parts, which idle cores may take (the memory model runs a
        // block's warps side by side, but a probe asks for one).
        let chunks = rayon::current_num_threads().clamp(1, 4);
        let lanes = self.warp_lists(d, t.block, warp, chunks);
        out.extend_from_slice(&lanes[lane]);
        WARP.with(|w| *w.borrow_mut() = Some((self.id, block, warp, lanes)));
    }
}

impl Traced {
    /// Each thread's accesses in warp `warp` of block `at` (blocks of `d`): its threads in lockstep, in
    /// `chunks` parts run side by side.
    fn warp_lists(&self, d: Dim3, at: Dim3, warp: u64, chunks: usize) -> Vec<Vec<Access>> {
        let tids: Vec<Dim3> =
            (warp * 32..(warp * 32 + 32).min(d.volume())).map(|i| crate::model::memory::thread_of(i, d)).collect();
        let chunk = tids.len().div_ceil(chunks.max(1)).max(1);
        tids.par_chunks(chunk)
            .flat_map_iter(|part| {
                // Past the step limit, the threads one by one: a thread whose run fails lists what it
                // reached (the constructor checked that such threads are placed).
                match self.program.lockstep_accesses(&self.args, &self.memory, self.grid, d, at, part, None) {
                    Some(v) => v.into_iter().map(|(acc, _)| acc).collect::<Vec<_>>(),
                    None => part
                        .iter()
                        .map(|&tid| {
                            let mut acc = Vec::new();
                            let _ = self.program.accesses(&self.args, &self.memory, self.grid, d, at, tid, &mut acc);
                            acc
                        })
                        .collect(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::memory::{MemStats, analyze};

    /// A built-in kernel as a traced one: the same PTX, buffers and arguments, its accesses from the run.
    fn traced(k: &dyn Kernel, block: Dim3) -> Result<Traced, String> {
        let Module::Embedded(m) = k.module() else { unreachable!("built-in kernels are embedded") };
        let l = Launchable {
            name: k.name().into(),
            entry: k.entry().into(),
            module: m.into(),
            ptx: crate::ptx::module(m).unwrap().into(),
            problem: k.problem(),
            buffers: k.buffers().iter().map(|b| (b.name.to_string(), 4 * b.len as u64, b.role, false)).collect(),
            args: k.args(),
            data: Vec::new(),
            constants: Vec::new(),
            grid: k.grid(block),
            dynamic_smem: k.dynamic_smem(block),
        };
        Traced::new(l, block)
    }

    fn counts(s: &MemStats) -> Vec<(&'static str, f64)> {
        vec![
            ("load requests", s.loads.requests),
            ("load sectors", s.loads.transactions),
            ("load bytes", s.loads.requested_bytes),
            ("load passes", s.loads.wavefronts),
            ("load lines", s.loads.lines),
            ("load sectors at L2", s.loads.l2_transactions),
            ("store requests", s.stores.requests),
            ("store sectors", s.stores.transactions),
            ("store bytes", s.stores.requested_bytes),
            ("store partial sectors", s.stores.partial_sectors),
            ("shared load requests", s.shared_loads.requests),
            ("shared load wavefronts", s.shared_loads.wavefronts),
            ("shared store requests", s.shared_stores.requests),
            ("shared store wavefronts", s.shared_stores.wavefronts),
        ]
    }

    /// Where a built-in kernel's description and its PTX's run may differ, and by how much at most
    /// (relative): matmul's description lists its loop's first iterations (`load_repeat`), so a block's
    /// reuse in L1 across the rest is not seen; blurDirect's PTX reads fewer tap weights from shared
    /// memory than the description lists (every weight per tap); rgVSeg's segments at the frame's
    /// edges (warm-up clamped) differ by a few loads. Everything else is equal.
    const DIFFER: &[(&str, &str, f64)] = &[
        ("matmul-coalesced", "load sectors at L2", 2.0),
        ("matmul-strided", "load sectors at L2", 2.0),
        ("blur-direct", "shared load", 0.2),
        ("blur-rgv-seg", "", 0.15),
    ];

    /// A warp run in lockstep lists, thread by thread, what each thread's own run lists: warps whose
    /// threads part ways at a branch and meet again (divergeOddEven's every warp, the blurs' clamped
    /// taps, the last blocks' bounds checks) included.
    /// One warp: a `red` of each lane into every other word of a 256-byte histogram (two lines, eight
    /// sectors each half written), then a store of each lane's own word of another buffer (one line,
    /// four whole sectors). Both move as stores; the metrics tell the atomic apart.
    #[test]
    fn atomics_move_as_stores_and_are_counted_apart() {
        let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n.param .u64 k_param_0,\n\
                   .param .u64 k_param_1\n)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<9>;\n\
                   ld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\nld.param.u64 %rd3, [k_param_1];\n\
                   cvta.to.global.u64 %rd4, %rd3;\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd5, %r1, 8;\n\
                   add.s64 %rd6, %rd2, %rd5;\nred.global.add.u32 [%rd6], 1;\nmul.wide.u32 %rd7, %r1, 4;\n\
                   add.s64 %rd8, %rd4, %rd7;\nst.global.u32 [%rd8], %r1;\nret;\n}\n";
        let block = Dim3::new(32, 1, 1);
        let l = Launchable {
            name: "hist".into(),
            entry: "k".into(),
            module: "hist".into(),
            ptx: ptx.into(),
            problem: "one warp".into(),
            buffers: vec![("bins".into(), 256, Role::Output, true), ("out".into(), 128, Role::Output, false)],
            args: vec![Arg::Buf(0), Arg::Buf(1)],
            data: Vec::new(),
            constants: Vec::new(),
            grid: Dim3::new(1, 1, 1),
            dynamic_smem: 0,
        };
        let t = Traced::new(l, block).unwrap();
        let s = analyze(&t, t.grid(block), block, 32);
        // Traffic: 2 requests (the atomic's 2 lines, the store's 1: 3 lines), 8 + 4 sectors, 8 partial.
        let st = &s.stores;
        assert_eq!((st.requests, st.lines, st.transactions, st.partial_sectors), (2.0, 3.0, 12.0, 8.0));
        assert_eq!((s.atomics.requests, s.atomics.transactions, s.atomics.requested_bytes), (1.0, 8.0, 128.0));
        // nvprof's store metrics (gst_*) are the plain store's: 1 request, 4 whole sectors, 100 %; the
        // atomic's own (atomic_transactions_per_request) 8.
        let plain = st.less(&s.atomics);
        assert_eq!((plain.requests, plain.transactions, plain.efficiency_pct(32)), (1.0, 4.0, Some(100.0)));
        assert_eq!(s.atomics.per_request(), Some(8.0));
        // The atomic's 2 lines, each seen in the one warp (q1 = 2: 2 + 1 estimated, but no more than
        // the whole grid's 2), 16 of the 32 adds on each.
        assert_eq!((s.atomic_spread.lines, s.atomic_spread.hottest), (2.0, 0.5));
        // nvprof's atomic_transactions (L1's lookups): the atomic's 2 lines.
        assert_eq!(s.atomics.lines, 2.0);
    }

    #[test]
    fn a_warp_in_lockstep_is_its_threads_run_one_by_one() {
        let (mut together, mut apart) = (0, 0);
        for e in crate::kernels::all() {
            let k = e.selftest_kernel().unwrap();
            for block in [Dim3::new(32, 8, 1), Dim3::new(16, 16, 1), Dim3::new(96, 1, 1)] {
                if k.check_block(block).is_some() {
                    continue;
                }
                let Ok(t) = traced(k.as_ref(), block) else { continue };
                let grid = k.grid(block);
                let last = Dim3::new(grid.x - 1, grid.y - 1, grid.z - 1);
                let warps = block.volume().div_ceil(32);
                for (at, w) in
                    [(Dim3::new(0, 0, 0), 0), (Dim3::new(grid.x / 2, grid.y / 2, 0), warps - 1), (last, warps / 2)]
                {
                    let tids: Vec<Dim3> = (w * 32..(w * 32 + 32).min(block.volume()))
                        .map(|i| crate::model::memory::thread_of(i, block))
                        .collect();
                    let Some(lock) = t.program.lockstep_accesses(&t.args, &t.memory, grid, block, at, &tids, None)
                    else {
                        apart += 1;
                        continue;
                    };
                    for (tid, (acc, unplaced)) in tids.iter().zip(lock) {
                        let mut one = Vec::new();
                        let u = t.program.accesses(&t.args, &t.memory, grid, block, at, *tid, &mut one);
                        assert_eq!(u, Some(unplaced), "{} {block} {at} {tid}", e.name);
                        assert!(acc == one, "{} {block} block {at} thread {tid}: lists differ", e.name);
                    }
                    together += 1;
                }
            }
        }
        assert!(together >= 150 && apart == 0, "{together} warps in lockstep, {apart} past the step limit");
    }

    #[test]
    fn every_built_in_kernels_accesses_from_its_ptx_are_its_description() {
        let mut compared = 0;
        for e in crate::kernels::all() {
            let k = e.selftest_kernel().unwrap();
            for block in [Dim3::new(32, 8, 1), Dim3::new(16, 16, 1), Dim3::new(128, 1, 1)] {
                if k.check_block(block).is_some() {
                    continue;
                }
                let grid = k.grid(block);
                let t = match traced(k.as_ref(), block) {
                    Ok(t) => t,
                    // resizeBilinear computes its source pixels in floating point.
                    Err(why) if e.name == "resize" => {
                        assert!(why.contains("cannot follow"), "{why}");
                        continue;
                    }
                    Err(why) => panic!("{} {block}: {why}", e.name),
                };
                let (a, b) = (analyze(k.as_ref(), grid, block, 32), analyze(&t, grid, block, 32));
                for ((name, x), (_, y)) in counts(&a).into_iter().zip(counts(&b)) {
                    let allowed = DIFFER
                        .iter()
                        .find(|(k, field, _)| *k == e.name && name.starts_with(field))
                        .map_or(1e-9, |d| d.2);
                    assert!(
                        (x - y).abs() <= allowed * x.abs().max(1.0),
                        "{} {block}: {name}: described {x}, from the PTX {y}",
                        e.name
                    );
                }
                compared += 1;
            }
        }
        assert!(compared >= 50, "{compared} configurations compared");
    }
}
