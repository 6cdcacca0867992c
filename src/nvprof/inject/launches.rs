//! The Range Profiler inside the profiled program: which launches are selected, the window of
//! consecutive selected launches on a context (started at the first one's launch call, stopped and
//! decoded when it is full or an unselected launch comes), CUDA graph launches (one range per kernel
//! node, in the order of the nodes seen at instantiation), the session of each context, application
//! replay's groups of counters, and each profiled launch's record. Launches into a stream being
//! captured run nothing and are left alone (profiling calls would break the capture).
//!
//! A graph must be built, instantiated and launched with the Range Profiler already started: started
//! from the graph launch's own callback, or only after the graph's instantiation, CUPTI neither ran the
//! graph's kernels right nor returned ranges (seen on an H100). So from the moment the program starts
//! building a graph (a stream capture begins, a graph is created or instantiated), each context keeps a
//! window open ("armed") between launches, with room for the largest graph's kernel nodes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::State;
use super::share::{LEAST_HOLD, Turn};
use crate::metrics;
use crate::nvprof::demangle::{KernelName, kernel_name};
use crate::nvprof::filter::{Filter, Launch as Selectable};
use crate::nvprof::protocol::{Message, ReplayMode};
use crate::profile::cupti::callback::{self, Context, GraphKernel, GraphLaunch, Launch};
use crate::profile::cupti::{Replay, Session, activity};
use crate::record::{ActivityKind, Metric, Record, Source, Status, TimeStats, Trace};
use crate::spec::Dim3;

/// The counter that times profiled kernels when they are also traced (CUPTI does not time a kernel
/// that the Range Profiler replays).
const DURATION: &str = "gpu__time_duration.sum";

/// A selected launch waiting for its window to be decoded.
struct Pending {
    name: KernelName,
    /// The symbol as CUPTI gave it (mangled for C++).
    symbol: String,
    grid: [u32; 3],
    block: [u32; 3],
    smem: u32,
    stream: u32,
    correlation: u32,
    context: u32,
    device: u32,
    /// CUPTI's clock when the launch was called (the kernel's start, as profiled kernels run alone).
    called: u64,
}

/// A graph launch in a window: its ranges are its kernel nodes, in order.
struct GraphPending {
    nodes: Vec<GraphKernel>,
    /// The ranges can be told apart (see [`GraphExec`]); else they are collected and left out.
    known: bool,
    stream: u32,
    correlation: u32,
    context: u32,
    device: u32,
    called: u64,
}

/// An executable graph as instantiated.
pub(super) struct GraphExec {
    nodes: Vec<GraphKernel>,
    /// Its kernel nodes run in their order, or are all the same launch: CUPTI's ranges (named "1",
    /// "2", ...) can be told apart by order.
    known: bool,
    /// Instantiated while its context's window was open: only then may it run with the profiler
    /// started (see the module's note).
    prepared: bool,
}

/// What a window holds, in launch order.
enum Entry {
    Launch(Pending),
    Graph(GraphPending),
}

impl Entry {
    /// The ranges CUPTI gives it.
    fn ranges(&self) -> usize {
        match self {
            Entry::Launch(_) => 1,
            Entry::Graph(g) => g.nodes.len(),
        }
    }

    fn correlation(&self) -> u32 {
        match self {
            Entry::Launch(p) => p.correlation,
            Entry::Graph(g) => g.correlation,
        }
    }
}

/// A context of the program.
pub(super) struct Ctx {
    pub(super) id: u32,
    pub(super) device: u32,
    pub(super) session: Option<Session>,
    pub(super) started: bool,
    window: Vec<Entry>,
}

impl Ctx {
    /// A context CUPTI calls `id`, on `device`, with no profiling set up yet.
    pub(super) fn new(id: u32, device: u32) -> Self {
        Ctx { id, device, session: None, started: false, window: Vec::new() }
    }

    /// Ranges the window's launches take.
    fn ranges(&self) -> usize {
        self.window.iter().map(Entry::ranges).sum()
    }
}

/// Range Profiler state, behind one lock (the launch callbacks).
pub(super) struct Prof {
    pub(super) filter: Filter,
    pub(super) contexts: HashMap<Context, Ctx>,
    pub(super) invocations: HashMap<String, u32>,
    pub(super) names: HashMap<String, KernelName>,
    pub(super) active: Option<Context>,
    pub(super) disabled: bool,
    pub(super) replay_noted: Vec<u32>,
    /// Each device's counter-availability cache file (`None`: none can be named), found once.
    pub(super) availability: HashMap<u32, Option<PathBuf>>,
    /// The counters this run collects (all of them, or this run's group under application replay);
    /// `None` until the first session decides.
    pub(super) counters: Option<Vec<String>>,
    pub(super) replay: Replay,
    /// Each executable graph, from its instantiation.
    pub(super) graphs: HashMap<usize, GraphExec>,
    /// Graph launches that found no open window (their kernels get no metrics), said once.
    pub(super) graphs_missed: bool,
    /// A graph whose kernels ran on parallel branches was left out, said once.
    pub(super) graphs_unordered: bool,
    /// The program builds CUDA graphs: windows stay open between launches.
    pub(super) graph_mode: bool,
    /// Correlation ids of launches into a stream being captured, between their enter and exit.
    pub(super) captured: Vec<u32>,
    /// The run's turns with the counters (`--profile-child-processes`: another process of the run may
    /// want them).
    pub(super) turn: Option<Turn>,
    pub(super) timing: Timing,
}

/// Where the profiling time goes (reported with `WARPSCOPE_NVPROF_DEBUG=1`).
#[derive(Default)]
pub(super) struct Timing {
    pub(super) launches: u64,
    pub(super) windows: u64,
    pub(super) setup: Duration,
    pub(super) enter: Duration,
    pub(super) launch: Duration,
    pub(super) stop: Duration,
    pub(super) decode: Duration,
    pub(super) reconfigure: Duration,
    /// Time spent waiting for another process of the run to give the counters up, and how many times
    /// this one gave them up.
    pub(super) waited: Duration,
    pub(super) handovers: u64,
    pub(super) entered: Option<Instant>,
    /// Replay passes of the counters collected, and how many counters.
    pub(super) passes: usize,
    pub(super) counters: usize,
}

pub(super) fn enter(st: &State, prof: &mut Prof, l: Launch) {
    if l.captured {
        prof.captured.push(l.correlation);
        return;
    }
    if !super::recording() {
        // Before `cudaProfilerStart` (`--profile-from-start off`) or after `cudaProfilerStop`.
        return close(st, prof, l.context);
    }
    let t0 = Instant::now();
    let called = called(st);
    let (name, invocation) = counted(prof, &l.symbol);
    let device = device_of(prof, l.context, l.context_id);
    let device_ok = wanted(st, device);
    let key = Selectable { context: l.context_id, stream: l.stream, base: &name.base, mangled: &l.symbol, invocation };
    if !(device_ok && prof.filter.select(&key)) {
        close(st, prof, l.context);
        return;
    }
    if !open_window(st, prof, l.context, device, 1) {
        return;
    }
    let Some(ctx) = prof.contexts.get_mut(&l.context) else { return };
    ctx.window.push(Entry::Launch(Pending {
        name,
        symbol: l.symbol.clone(),
        grid: l.grid,
        block: l.block,
        smem: l.dynamic_smem,
        stream: l.stream,
        correlation: l.correlation,
        context: l.context_id,
        device,
        called,
    }));
    prof.timing.launches += 1;
    prof.timing.enter += t0.elapsed();
    prof.timing.entered = Some(Instant::now());
}

/// CUPTI's clock when a launch is called, where launches are traced (the start of a profiled kernel,
/// which runs alone).
fn called(st: &State) -> u64 {
    if st.cfg.gpu { activity::timestamp(st.lib).unwrap_or(0) } else { 0 }
}

/// A kernel's names and which launch of it this is: nvprof's `--kernels` count (from 1, per name as the
/// filter matches it); records count their own `invocation` from 0 when the process's results are joined.
fn counted(prof: &mut Prof, symbol: &str) -> (KernelName, u32) {
    let name = prof.names.entry(symbol.to_string()).or_insert_with(|| kernel_name(symbol)).clone();
    let n = prof.invocations.entry(name.base.clone()).or_insert(0);
    *n += 1;
    (name, *n)
}

/// Whether `--devices` lets device `device`'s launches be profiled.
fn wanted(st: &State, device: u32) -> bool {
    st.cfg.devices.as_ref().is_none_or(|d| d.contains(&device))
}

/// The device of `context` (learnt now, as device 0, for a context CUPTI did not announce: created
/// before the injection).
fn device_of(prof: &mut Prof, context: Context, id: u32) -> u32 {
    prof.contexts.entry(context).or_insert_with(|| Ctx::new(id, 0)).device
}

/// Starts a window on `context` (closing another context's), with a session that holds at least `ranges`
/// ranges; false when profiling failed (and is now off).
fn open_window(st: &State, prof: &mut Prof, context: Context, device: u32, ranges: usize) -> bool {
    if let Some(a) = prof.active.filter(|a| *a != context) {
        close(st, prof, a);
    }
    let t_setup = Instant::now();
    let held = prof.contexts.get(&context).map_or(0, Ctx::ranges);
    if prof.contexts.get(&context).and_then(|c| c.session.as_ref()).is_some_and(|s| s.max_ranges() < held + ranges) {
        close(st, prof, context);
    }
    if let Err(e) = ensure_session(st, prof, context, device, ranges) {
        prof.disabled = true;
        st.error(e);
        return false;
    }
    prof.timing.setup += t_setup.elapsed();
    let Some(ctx) = prof.contexts.get_mut(&context) else { return false };
    if !ctx.started {
        if let Some(Err(e)) = ctx.session.as_mut().map(|s| s.start()) {
            prof.disabled = true;
            st.error(e.to_string());
            return false;
        }
        ctx.started = true;
        prof.active = Some(context);
    }
    true
}

/// The program is about to build or instantiate a graph (of `nodes` kernel nodes) on `context`: from now
/// on the context keeps a window open between launches, with room for the graph, so that CUPTI sees the
/// profiler started when the graph is made and when it is launched (see the module's note).
pub(super) fn graphs_ahead(st: &State, prof: &mut Prof, context: Context, id: u32, nodes: usize) {
    prof.graph_mode = true;
    let device = device_of(prof, context, id);
    if prof.filter.exhausted() || !wanted(st, device) {
        return;
    }
    let ctx = prof.contexts.get(&context);
    let room = ctx.and_then(|c| c.session.as_ref()).map_or(0, |s| s.max_ranges());
    if room < nodes.max(1) + ctx.map_or(0, Ctx::ranges) {
        close(st, prof, context);
        let t = Instant::now();
        if let Err(e) = ensure_session(st, prof, context, device, nodes.max(1)) {
            prof.disabled = true;
            return st.error(e);
        }
        prof.timing.setup += t.elapsed();
    }
    arm(st, prof, context);
}

/// A graph was instantiated on `context`: its executable's kernel nodes, for its launches, whether they
/// run in their order (`ordered`), and whether the profiler was started then.
pub(super) fn instantiated(prof: &mut Prof, context: Context, exec: usize, nodes: Vec<GraphKernel>, ordered: bool) {
    let prepared =
        prof.contexts.get(&context).is_some_and(|c| c.started) && !switch("WARPSCOPE_NVPROF_GRAPH_UNPREPARED", "1");
    let same = |a: &GraphKernel, b: &GraphKernel| (&a.symbol, a.grid, a.block) == (&b.symbol, b.grid, b.block);
    let known = ordered || nodes.windows(2).all(|w| same(&w[0], &w[1]));
    prof.graphs.insert(exec, GraphExec { nodes, known, prepared });
}

/// Keeps a window open on `context` between launches once the process has graphs (see the module's
/// note), unless nothing more is to be profiled.
fn arm(st: &State, prof: &mut Prof, context: Context) {
    if !prof.graph_mode || prof.disabled || prof.filter.exhausted() || !super::recording() {
        return;
    }
    if prof.active.is_some_and(|a| a != context) {
        return;
    }
    let Some(ctx) = prof.contexts.get_mut(&context) else { return };
    let Some(session) = ctx.session.as_mut() else { return };
    if ctx.started {
        return;
    }
    match session.start() {
        Ok(()) => {
            ctx.started = true;
            prof.active = Some(context);
        }
        Err(e) => {
            prof.disabled = true;
            st.error(e.to_string());
        }
    }
}

/// A CUDA graph launch: when the context's window is open and has room, the graph's kernel nodes become
/// its next ranges (replayed as any launch) and the window is decoded at the launch's exit; the kernel
/// filter and invocation counts apply to each node then.
pub(super) fn graph_launch(st: &State, prof: &mut Prof, g: GraphLaunch) {
    if g.site == callback::Site::Exit {
        if let Some(i) = prof.captured.iter().position(|c| *c == g.correlation) {
            prof.captured.swap_remove(i);
            return;
        }
        let Some(ctx) = prof.contexts.get_mut(&g.context) else { return };
        if ctx.window.last().is_some_and(|e| matches!(e, Entry::Graph(_)) && e.correlation() == g.correlation) {
            // A launch the driver refused ran no kernel.
            if g.result.is_some_and(|r| r != 0) {
                ctx.window.pop();
            }
            close(st, prof, g.context);
        }
        return arm(st, prof, g.context);
    }
    if g.captured {
        prof.captured.push(g.correlation);
        return;
    }
    if !super::recording() {
        return close(st, prof, g.context);
    }
    // Every way out but the last runs the graph with the profiler stopped: a graph not seen instantiated
    // with the profiler started ran wrong under it, and a graph's kernels in a window without its entry
    // would be ranges nobody claims.
    let Some(exec) = prof.graphs.get(&g.exec).filter(|e| e.prepared) else {
        close(st, prof, g.context);
        return missed(st, prof);
    };
    let (nodes, known) = (exec.nodes.clone(), exec.known);
    let device = device_of(prof, g.context, g.context_id);
    if nodes.is_empty() || prof.filter.exhausted() || !wanted(st, device) {
        return close(st, prof, g.context);
    }
    let called = called(st);
    let Some(ctx) = prof.contexts.get_mut(&g.context) else { return };
    let room = ctx.session.as_ref().map_or(0, |s| s.max_ranges());
    if !ctx.started || ctx.ranges() + nodes.len() > room {
        close(st, prof, g.context);
        return missed(st, prof);
    }
    ctx.window.push(Entry::Graph(GraphPending {
        nodes,
        known,
        stream: g.stream,
        correlation: g.correlation,
        context: g.context_id,
        device,
        called,
    }));
}

/// Says once that a graph's kernels ran on parallel branches (their ranges cannot be told apart).
fn unordered(st: &State, prof: &mut Prof) {
    if !prof.graphs_unordered {
        prof.graphs_unordered = true;
        st.notice("a CUDA graph's kernel nodes are on parallel branches, so which range is which kernel is not known: their metrics are left out".into());
    }
}

/// Says once that a graph launch found no open window.
fn missed(st: &State, prof: &mut Prof) {
    if !prof.graphs_missed {
        prof.graphs_missed = true;
        st.notice("a CUDA graph was instantiated or launched while the profiler was stopped (another context's window was open, or another process held the counters): its kernels get no metrics".into());
    }
}

/// The launches a graph's ranges are, in node order (`None`: a node the kernel filter leaves out);
/// each starts when the one before it ended (`took`: each range's duration, ns, where timed).
fn graph_launches(prof: &mut Prof, g: &GraphPending, took: &[Option<u64>]) -> Vec<Option<Pending>> {
    let mut offset = 0;
    let mut out = Vec::with_capacity(g.nodes.len());
    for (k, took) in g.nodes.iter().zip(took) {
        let (name, invocation) = counted(prof, &k.symbol);
        let key = Selectable { context: g.context, stream: g.stream, base: &name.base, mangled: &k.symbol, invocation };
        let selected = prof.filter.select(&key);
        out.push(selected.then(|| Pending {
            name,
            symbol: k.symbol.clone(),
            grid: k.grid,
            block: k.block,
            smem: k.dynamic_smem,
            stream: g.stream,
            correlation: g.correlation,
            context: g.context,
            device: g.device,
            called: g.called + offset,
        }));
        offset += took.unwrap_or(0);
    }
    out
}

pub(super) fn exit(st: &State, prof: &mut Prof, l: Launch) {
    if let Some(i) = prof.captured.iter().position(|c| *c == l.correlation) {
        prof.captured.swap_remove(i);
        return;
    }
    if let Some(t) = prof.timing.entered.take() {
        prof.timing.launch += t.elapsed();
    }
    let Some(ctx) = prof.contexts.get_mut(&l.context) else { return };
    if !ctx.started {
        // An unselected launch (its window was closed at its call): the window opens again after it.
        return arm(st, prof, l.context);
    }
    // A launch the driver refused ran no kernel, so it has no range.
    if l.result.is_some_and(|r| r != 0) && ctx.window.last().is_some_and(|e| e.correlation() == l.correlation) {
        ctx.window.pop();
    }
    let full = ctx.session.as_ref().is_some_and(|s| ctx.ranges() >= s.max_ranges().min(st.cfg.ranges));
    if full || prof.filter.exhausted() {
        close(st, prof, l.context);
    }
    arm(st, prof, l.context);
}

/// Creates the context's session on first use, or again with room for `ranges` when it has less (and,
/// under application replay, decides this run's group of counters).
fn ensure_session(st: &State, prof: &mut Prof, context: Context, device: u32, ranges: usize) -> Result<(), String> {
    let ranges = ranges.max(st.cfg.ranges);
    if let Some(c) = prof.contexts.get_mut(&context) {
        match &c.session {
            Some(s) if s.max_ranges() >= ranges => return Ok(()),
            Some(_) => c.session = None,
            None => {}
        }
    }
    if prof.counters.is_none() {
        let mut all = st.counters.names();
        if split_rates() {
            all = split(&all);
        }
        if st.cfg.gpu && with_duration() && !all.iter().any(|c| c == DURATION) {
            all.push(DURATION.to_string());
        }
        let (mine, replay) = match st.cfg.replay {
            ReplayMode::Kernel => (all, Replay::Kernel),
            ReplayMode::Application => {
                let groups = groups(st, context, device)?;
                st.emit(&[Message::Groups(groups.len())]);
                let mine = groups.get(st.cfg.group).cloned().unwrap_or_default();
                let passes =
                    Session::passes_of(st.lib, context.raw(), device as usize, &mine).map_err(|e| e.to_string())?;
                (mine, if passes <= 1 { Replay::User } else { Replay::Kernel })
            }
        };
        prof.counters = Some(mine);
        prof.replay = replay;
    }
    let mut counters = prof.counters.clone().unwrap_or_default();
    if counters.is_empty() {
        return Err("no counters to collect in this run".into());
    }
    if let Some(turn) = prof.turn.as_mut() {
        prof.timing.waited += turn.take();
    }
    let first = match availability_cache(st, prof, device) {
        Some(path) => Session::cached(st.lib, context.raw(), device as usize, &counters, ranges, &path),
        None => Session::with_ranges(st.lib, context.raw(), device as usize, &counters, ranges),
    };
    let mut session = match first {
        Ok(s) => s,
        Err(e) => {
            // Counters this GPU does not have are left out (and said so); the rest are collected.
            let bad = unknown_counters(st, context, device, &counters);
            if bad.is_empty() || bad.len() == counters.len() {
                return Err(if bad.is_empty() {
                    e.to_string()
                } else {
                    format!("this GPU has none of the counters asked for ({})", bad.join(", "))
                });
            }
            // CUPTI's own words go with the list: a session refused because another process holds the
            // counters can look like unknown counters, and the user must be able to tell which it was.
            st.notice(format!("not available on device {device} and left out: {} (CUPTI: {e})", bad.join(", ")));
            counters.retain(|c| !bad.contains(c));
            prof.counters = Some(counters.clone());
            Session::with_ranges(st.lib, context.raw(), device as usize, &counters, ranges)
                .map_err(|e| e.to_string())?
        }
    };
    if prof.replay == Replay::Kernel && session.passes <= 1 && user_replay() {
        // One pass: the launch itself is the pass, so nothing needs saving, restoring or replaying.
        prof.replay = Replay::User;
    }
    prof.timing.passes = session.passes;
    prof.timing.counters = counters.len();
    session.configure(prof.replay).map_err(|e| e.to_string())?;
    if session.passes > 1 && prof.replay == Replay::Kernel && !prof.replay_noted.contains(&device) {
        prof.replay_noted.push(device);
        st.notice(format!(
            "Some kernel(s) will be replayed on device {device} in order to collect all events/metrics."
        ));
    }
    if let Some(c) = prof.contexts.get_mut(&context) {
        c.session = Some(session);
    }
    Ok(())
}

/// Gives the counters up, between windows, when another process of the run waits for them and this one
/// has had them for [`LEAST_HOLD`] (called every few ms from the injection library's own thread): every
/// context's session goes (the Range Profiler is disabled) and comes back at the next selected launch.
pub(super) fn give_turn(st: &State, prof: &mut Prof) {
    let Some(turn) = prof.turn.as_ref() else { return };
    if !turn.held() || turn.held_for() < LEAST_HOLD || !turn.wanted() {
        return;
    }
    let contexts: Vec<Context> = prof.contexts.keys().copied().collect();
    for context in contexts {
        st.own_driver_calls(|| {
            callback::on_context(context, || {
                close(st, prof, context);
                if let Some(c) = prof.contexts.get_mut(&context) {
                    c.session = None;
                }
            })
        });
    }
    if let Some(turn) = prof.turn.as_mut() {
        turn.give();
    }
    prof.timing.handovers += 1;
}

/// Where device `device`'s counter-availability image is kept: the file a sweep on the same device
/// keeps it in (asking the device for it takes 0.1-0.25 s of every profiled process otherwise), if the
/// device and the cache folder can be named. Found once per device.
fn availability_cache(st: &State, prof: &mut Prof, device: u32) -> Option<PathBuf> {
    prof.availability
        .entry(device)
        .or_insert_with(|| {
            let key = st.own_driver_calls(|| crate::gpu::cache_key(device));
            let name = crate::profile::Counters::cache_name(&key?).ok()?;
            Some(crate::gpu::calibrate::cache_dir()?.join("cupti").join(name))
        })
        .clone()
}

/// The counters the GPU of `context` cannot collect (each tried alone).
fn unknown_counters(st: &State, context: Context, device: u32, counters: &[String]) -> Vec<String> {
    counters
        .iter()
        .filter(|c| Session::passes_of(st.lib, context.raw(), device as usize, std::slice::from_ref(c)).is_err())
        .cloned()
        .collect()
}

/// Application replay: the counters of the metrics and events, in groups that each fit one pass (a
/// metric that alone needs more keeps a group to itself, collected with kernel replay).
fn groups(st: &State, context: Context, device: u32) -> Result<Vec<Vec<String>>, String> {
    let mut units: Vec<Vec<String>> = st.counters.metrics.iter().map(|m| m.counters.clone()).collect();
    units.extend(st.counters.events.iter().map(|e| vec![e.counter.clone()]));
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for u in units {
        let mut tried = current.clone();
        for c in &u {
            if !tried.contains(c) {
                tried.push(c.clone());
            }
        }
        let passes = Session::passes_of(st.lib, context.raw(), device as usize, &tried).map_err(|e| e.to_string())?;
        if passes <= 1 || current.is_empty() {
            current = tried;
            if passes > 1 {
                groups.push(std::mem::take(&mut current));
            }
        } else {
            groups.push(std::mem::replace(&mut current, u));
        }
    }
    if !current.is_empty() {
        groups.push(current);
    }
    Ok(groups)
}

/// Ends the context's window: stops, decodes one range per launch, and reports each as a record.
pub(super) fn close(st: &State, prof: &mut Prof, context: Context) {
    if prof.active == Some(context) {
        prof.active = None;
    }
    let replay = prof.replay;
    let counters = prof.counters.clone().unwrap_or_default();
    let Some(ctx) = prof.contexts.get_mut(&context) else { return };
    if !ctx.started {
        return;
    }
    ctx.started = false;
    let window = std::mem::take(&mut ctx.window);
    let ctx_id = ctx.id;
    let Some(session) = ctx.session.as_mut() else { return };
    let t = Instant::now();
    let stopped = session.stop();
    let t_stop = t.elapsed();
    // An armed window that no launch used holds nothing to decode.
    let decoded = match window.is_empty() {
        true => stopped.map(|_| (true, Vec::new())),
        false => stopped.and_then(|done| Ok((done, session.decode()?))),
    };
    let t_decode = t.elapsed() - t_stop;
    let decoded = decoded.and_then(|r| {
        session.configure(replay)?;
        Ok(r)
    });
    prof.timing.windows += 1;
    prof.timing.stop += t_stop;
    prof.timing.decode += t_decode;
    prof.timing.reconfigure += t.elapsed() - t_stop - t_decode;
    let (done, ranges) = match decoded {
        Ok(r) => r,
        Err(e) => {
            prof.disabled = true;
            return st.error(e.to_string());
        }
    };
    let expected: usize = window.iter().map(Entry::ranges).sum();
    if window.is_empty() {
    } else if !done {
        st.notice("not every replay pass was collected; these launches' metrics are left out".into());
    } else if ranges.len() != expected {
        let launches = window.iter().filter(|e| matches!(e, Entry::Launch(_))).count();
        st.notice(format!(
            "CUPTI returned {} ranges for {expected} profiled launches on context {ctx_id}{}; their metrics are left out",
            ranges.len(),
            match expected - launches {
                0 => String::new(),
                n => format!(" ({n} of them kernels of CUDA graphs)"),
            }
        ));
    } else {
        let at = counters.iter().position(|c| c == DURATION);
        let took = |v: &Vec<f64>| {
            at.and_then(|i| v.get(i)).filter(|ns| ns.is_finite() && **ns > 0.0).map(|ns| ns.round() as u64)
        };
        let mut ranges = ranges.into_iter();
        let mut msgs = Vec::new();
        for e in &window {
            match e {
                Entry::Launch(p) => {
                    let values = ranges.next().unwrap_or_default();
                    msgs.push(Message::Record(Box::new(profiled_record(st, p, &counters, &values))));
                }
                Entry::Graph(g) if !g.known => {
                    ranges.by_ref().take(g.nodes.len()).for_each(drop);
                    unordered(st, prof);
                }
                Entry::Graph(g) => {
                    let values: Vec<Vec<f64>> = ranges.by_ref().take(g.nodes.len()).collect();
                    let times: Vec<Option<u64>> = values.iter().map(took).collect();
                    for (p, v) in graph_launches(prof, g, &times).iter().zip(&values) {
                        if let Some(p) = p {
                            msgs.push(Message::Record(Box::new(profiled_record(st, p, &counters, v))));
                        }
                    }
                }
            }
        }
        st.emit(&msgs);
    }
}

/// Overhead experiments (docs/PERF-NOTES.md, `scripts/nvprof-check.sh OUT overhead`), each an
/// environment switch that leaves the default alone until a GPU run shows which is fastest and
/// still agrees with it:
/// - `WARPSCOPE_NVPROF_RATES=split`: rates as count / duration ([`split_rates`]);
/// - `WARPSCOPE_NVPROF_DURATION=0`: no `gpu__time_duration.sum` beside the metrics (traced profiled
///   launches then have no duration), to see what timing every profiled launch costs;
/// - `WARPSCOPE_NVPROF_GRAPH_UNPREPARED=1`: every CUDA graph is taken as instantiated while the profiler
///   was stopped, to check on a GPU that such graphs run right (unprofiled) when the profiler is stopped
///   at their launch (`scripts/nvprof-check.sh OUT graph`);
/// - `WARPSCOPE_NVPROF_REPLAY=user`: under kernel replay, a counter set that fits one pass is collected
///   with CUPTI's user replay (the launch is the one pass, nothing is saved or restored), to see
///   whether kernel replay's save/restore costs even when there is nothing to replay.
fn switch(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == value)
}

fn with_duration() -> bool {
    !switch("WARPSCOPE_NVPROF_DURATION", "0")
}

fn user_replay() -> bool {
    switch("WARPSCOPE_NVPROF_REPLAY", "user")
}

/// Whether `.per_second` counters are collected as their count and `gpu__time_duration.sum`, and divided
/// here (`WARPSCOPE_NVPROF_RATES=split`): the same value by Nsight Compute's definition of a rate, an
/// experiment on where the cost of rate counters lies (docs/PERF-NOTES.md).
fn split_rates() -> bool {
    switch("WARPSCOPE_NVPROF_RATES", "split")
}

/// The counters with each `X.per_second` replaced by `X` and `gpu__time_duration.sum`.
fn split(counters: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in counters {
        let parts = match c.strip_suffix(".per_second") {
            Some(base) => vec![base.to_string(), DURATION.to_string()],
            None => vec![c.clone()],
        };
        for p in parts {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// A profiled launch's record: the metrics and events whose counters this run collected.
fn profiled_record(st: &State, p: &Pending, counters: &[String], values: &[f64]) -> Record {
    let raw = |c: &str| counters.iter().position(|x| x == c).and_then(|i| values.get(i)).copied();
    // A rate collected as its count and the duration (ns) is divided back.
    let value = |c: &str| {
        raw(c).or_else(|| {
            let count = raw(c.strip_suffix(".per_second")?)?;
            let ns = raw(DURATION).filter(|d| *d > 0.0)?;
            Some(count / (ns * 1e-9))
        })
    };
    let mut ms = Vec::new();
    for m in &st.counters.metrics {
        let got: Option<Vec<f64>> = m.counters.iter().map(|c| value(c)).collect();
        if let Some(v) = got.map(|g| m.value(&g)).filter(|v| v.is_finite()) {
            ms.push(Metric { name: m.name.clone(), value: v, unit: m.unit.clone(), source: Source::Measured });
        }
    }
    for e in &st.counters.events {
        if let Some(v) = value(&e.counter) {
            ms.push(Metric { name: e.name.clone(), value: v, unit: metrics::COUNT.into(), source: Source::Measured });
        }
    }
    let d = |a: [u32; 3]| Dim3::new(a[0], a[1], a[2]);
    // A traced run times the kernel with its own counter; it starts when called (profiled kernels run alone).
    let duration = if st.cfg.gpu { value(DURATION).filter(|v| *v > 0.0) } else { None };
    Record {
        metrics: ms,
        device: Some(p.device),
        time_ms: duration.and_then(|ns| TimeStats::from_samples(&[ns / 1e6])).map(|mut t| {
            t.samples.clear();
            t
        }),
        signature: p.name.signature(),
        trace: Some(Trace {
            kind: ActivityKind::Kernel,
            pid: st.pid,
            start_ns: duration.map(|_| st.since_launch(p.called)),
            duration_ns: duration.map(|ns| ns.round() as u64),
            context: p.context,
            stream: p.stream,
            correlation: p.correlation,
            dynamic_smem: Some(p.smem),
            symbol: (p.symbol != p.name.short).then(|| p.symbol.clone()),
            ..Trace::default()
        }),
        // Which launch of its kernel it is (`invocation`) is counted when the process's records are
        // joined, as for traced launches.
        ..Record::new(&p.name.short, "", d(p.grid), d(p.block), Status::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_split_into_count_and_duration() {
        let c = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            split(&c(&[
                "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second",
                "sm__warps_active.avg.pct_of_peak_sustained_active",
                "dram__bytes_read.sum.per_second"
            ])),
            c(&[
                "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
                DURATION,
                "sm__warps_active.avg.pct_of_peak_sustained_active",
                "dram__bytes_read.sum"
            ])
        );
    }
}
