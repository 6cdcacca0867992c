//! The part of `warpscope nvprof` that runs inside the profiled program, loaded by the CUDA driver
//! through the injection library. It reads its [`Config`], records GPU activities and API calls with
//! CUPTI's Activity API, and collects metrics and events of the selected kernel launches with the
//! Range Profiler: a window of consecutive selected launches on one context is profiled as auto ranges
//! (kernel replay, or one pass per run under application replay), then decoded into one record each.
//! Everything goes to this process's JSON Lines file as it is known; the rest at `exit`.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::demangle::{KernelName, kernel_name};
use super::filter::{Filter, Launch as Selectable};
use super::options::{self, Counters};
use super::protocol::{self, ApiCall, CONFIG_VAR, Config, Message, ReplayMode};
use super::render;
use crate::gpu::DeviceInfo;
use crate::metrics;
use crate::model::arch;
use crate::profile::cupti::callback::{self, Context, Event, Launch, Site};
use crate::profile::cupti::{self, Lib, Replay, Session, activity};
use crate::record::{ActivityKind, Metric, Record, Source, Status, TimeStats, Trace};
use crate::spec::Dim3;

static STATE: OnceLock<State> = OnceLock::new();
/// Set once the results have been flushed (at exit, or on a fatal signal).
static FINISHED: AtomicBool = AtomicBool::new(false);

/// The counter that times profiled kernels when they are also traced (CUPTI does not time a kernel
/// that the Range Profiler replays).
const DURATION: &str = "gpu__time_duration.sum";

/// A selected launch waiting for its window to be decoded.
struct Pending {
    name: KernelName,
    grid: [u32; 3],
    block: [u32; 3],
    smem: u32,
    stream: u32,
    correlation: u32,
    invocation: u32,
    context: u32,
    device: u32,
    /// CUPTI's clock when the launch was called (the kernel's start, as profiled kernels run alone).
    called: u64,
}

/// A context of the program.
struct Ctx {
    id: u32,
    device: u32,
    session: Option<Session>,
    started: bool,
    window: Vec<Pending>,
}

/// Range Profiler state, behind one lock (the launch callbacks).
struct Prof {
    filter: Filter,
    contexts: HashMap<Context, Ctx>,
    invocations: HashMap<String, u32>,
    names: HashMap<String, KernelName>,
    active: Option<Context>,
    disabled: bool,
    replay_noted: Vec<u32>,
    /// The counters this run collects (all of them, or this run's group under application replay);
    /// `None` until the first session decides.
    counters: Option<Vec<String>>,
    replay: Replay,
    timing: Timing,
}

/// Where the profiling time goes (reported with `WARPSCOPE_NVPROF_DEBUG=1`).
#[derive(Default)]
struct Timing {
    launches: u64,
    windows: u64,
    setup: Duration,
    enter: Duration,
    launch: Duration,
    stop: Duration,
    decode: Duration,
    reconfigure: Duration,
    entered: Option<Instant>,
}

/// Activity state, behind another lock (CUPTI's buffer thread).
struct Act {
    names: HashMap<String, KernelName>,
    api: HashMap<(bool, u32), ApiCall>,
    api_names: HashMap<(bool, u32), String>,
    devices: Vec<u32>,
    dropped: u64,
}

struct State {
    cfg: Config,
    pid: u32,
    lib: &'static Lib,
    counters: Counters,
    /// CUPTI's clock at start-up, and the wall clock then minus the application's launch.
    t0: u64,
    offset_ns: i64,
    out: Mutex<Option<BufWriter<File>>>,
    prof: Mutex<Prof>,
    act: Mutex<Act>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// The program's command line as nvprof printed it.
fn command_line() -> String {
    std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn open(cfg: &Config, pid: u32) -> Option<BufWriter<File>> {
    OpenOptions::new().create(true).append(true).open(protocol::file_for(&cfg.dir, pid)).ok().map(BufWriter::new)
}

fn write_now(out: &mut Option<BufWriter<File>>, msgs: &[Message]) {
    if let Some(w) = out.as_mut() {
        for m in msgs {
            let _ = w.write_all(protocol::line(m).as_bytes());
        }
        let _ = w.flush();
    }
}

/// Called once by the driver at the program's first CUDA call: decides whether this process is
/// profiled, then starts CUPTI. Never fails the program: problems are reported to `warpscope`.
pub fn initialize() {
    let Ok(text) = std::env::var(CONFIG_VAR) else { return };
    let Ok(cfg) = serde_json::from_str::<Config>(&text) else { return };
    let pid = std::process::id();
    let ppid = nix::unistd::getppid().as_raw() as u32;
    if !cfg.children && ppid != cfg.parent {
        return;
    }
    let mut out = open(&cfg, pid);
    let command = command_line();
    write_now(&mut out, &[Message::Start { pid, ppid, command: command.clone() }]);
    if cfg.banner {
        eprint!("{}", render::banner(pid, &command));
    }
    let fail = |out: &mut Option<BufWriter<File>>, why: String| {
        if cfg.banner {
            eprint!("{}", render::error(pid, &why));
        }
        write_now(out, &[Message::Error(why)]);
    };
    let lib = match cupti::lib() {
        Ok(l) => l,
        Err(e) => return fail(&mut out, e.to_string()),
    };
    let counters = match options::counters(cfg.metrics.as_deref(), cfg.events.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(&mut out, e.to_string()),
    };
    let filter = match Filter::new(&cfg.filter) {
        Ok(f) => f,
        Err(e) => return fail(&mut out, e.to_string()),
    };
    let t0 = activity::timestamp(lib).unwrap_or(0);
    let offset_ns = unix_ns() as i64 - cfg.origin_unix_ns as i64;
    let (gpu, api, profile) = (cfg.gpu, cfg.api, counters.any());
    let state = State {
        lib,
        pid,
        t0,
        offset_ns,
        counters,
        out: Mutex::new(out),
        prof: Mutex::new(Prof {
            filter,
            contexts: HashMap::new(),
            invocations: HashMap::new(),
            names: HashMap::new(),
            active: None,
            disabled: false,
            replay_noted: Vec::new(),
            counters: None,
            replay: Replay::Kernel,
            timing: Timing::default(),
        }),
        act: Mutex::new(Act {
            names: HashMap::new(),
            api: HashMap::new(),
            api_names: HashMap::new(),
            devices: Vec::new(),
            dropped: 0,
        }),
        cfg,
    };
    if STATE.set(state).is_err() {
        return;
    }
    let Some(st) = STATE.get() else { return };
    if let Err(e) = callback::subscribe(lib, profile, on_event) {
        return st.error(e.to_string());
    }
    let mut kinds = Vec::new();
    if gpu {
        kinds.extend([activity::Kind::Kernel, activity::Kind::Memcpy, activity::Kind::Memset]);
    }
    if api {
        kinds.extend([activity::Kind::Runtime, activity::Kind::Driver]);
    }
    if !kinds.is_empty()
        && let Err(e) = activity::enable(lib, &kinds, on_activity)
    {
        st.error(e.to_string());
    }
    // SAFETY: registers a plain function, run once at exit on the exiting thread.
    unsafe { libc::atexit(at_exit) };
    catch_fatal_signals();
}

/// A program killed by a signal never reaches `exit`: for the signals whose default is to end the
/// process, and that the program has not taken over, flush the results first, then die of the signal
/// as the program would have. Best effort: what runs here is not async-signal-safe, and locks held by
/// the interrupted thread are skipped rather than waited for.
fn catch_fatal_signals() {
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL, libc::SIGABRT, libc::SIGINT, libc::SIGTERM] {
        // SAFETY: reads the current action; installs ours only over the default one.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL {
                continue;
            }
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_fatal_signal as *const () as usize;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_fatal_signal(sig: libc::c_int) {
    let _ = std::panic::catch_unwind(|| finish(false));
    // SAFETY: back to the default action, then the same signal again: the process ends as it would have.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

impl State {
    fn emit(&self, msgs: &[Message]) {
        write_now(&mut lock(&self.out), msgs);
    }

    fn notice(&self, text: String) {
        if self.cfg.banner {
            eprint!("{}", render::notice(self.pid, &text));
        }
        self.emit(&[Message::Notice(text)]);
    }

    fn error(&self, text: String) {
        if self.cfg.banner {
            eprint!("{}", render::error(self.pid, &text));
        }
        self.emit(&[Message::Error(text)]);
    }

    /// ns since the application was launched, of a CUPTI timestamp.
    fn since_launch(&self, t: u64) -> u64 {
        (t as i64 - self.t0 as i64 + self.offset_ns).max(0) as u64
    }
}

fn on_event(e: Event) {
    let Some(st) = STATE.get() else { return };
    match e {
        Event::Launch(l) => {
            let mut prof = lock(&st.prof);
            if prof.disabled {
                return;
            }
            match l.site {
                Site::Enter => enter(st, &mut prof, l),
                Site::Exit => exit(st, &mut prof, l),
            }
        }
        Event::ContextCreated { context, context_id, device } => {
            lock(&st.prof)
                .contexts
                .insert(context, Ctx { id: context_id, device, session: None, started: false, window: Vec::new() });
            announce(st, device);
        }
        Event::ContextDestroying { context, .. } => {
            let mut prof = lock(&st.prof);
            close(st, &mut prof, context);
            if let Some(c) = prof.contexts.get_mut(&context) {
                c.session = None;
            }
            prof.contexts.remove(&context);
        }
    }
}

/// Reports a device the first time the program uses it (and, the first time of all, a driver older
/// than the CUPTI loaded, which can profile nothing).
fn announce(st: &State, device: u32) {
    {
        let mut act = lock(&st.act);
        if act.devices.contains(&device) {
            return;
        }
        act.devices.push(device);
        if act.devices.len() == 1 {
            drop(act);
            if let Some(why) = too_old_driver(st) {
                lock(&st.prof).disabled = true;
                st.error(why);
            }
        }
    }
    // warpscope's own driver calls are not the program's: keep them out of "API calls".
    if st.cfg.api {
        activity::pause(st.lib, activity::Kind::Driver);
    }
    let props = callback::device_props(device);
    if st.cfg.api {
        activity::resume(st.lib, activity::Kind::Driver);
    }
    if let Some(p) = props {
        let cc = format!("{}.{}", p.major, p.minor);
        let a = arch::parse_arch(&cc).unwrap_or(&arch::ARCHS[0]);
        let info = DeviceInfo {
            ordinal: device,
            sms: p.sms.max(0) as u32,
            memory_bytes: p.memory,
            ..DeviceInfo::offline(p.name, cc, "cuda", a)
        };
        st.emit(&[Message::Device(Box::new(info))]);
    }
}

/// Why the driver cannot serve the CUPTI that was loaded, if it cannot.
fn too_old_driver(st: &State) -> Option<String> {
    let driver = callback::driver_version()?;
    let cupti = Lib::cuda_major(st.lib.version().ok()?);
    let major = (driver / 1000) as u32;
    (major < cupti).then(|| {
        format!(
            "the NVIDIA driver supports CUDA {major}.{}, older than the CUPTI loaded ({}, from CUDA {cupti}): update the driver, or set WARPSCOPE_CUPTI to a CUPTI of CUDA {major}",
            (driver % 1000) / 10,
            st.lib.path().display()
        )
    })
}

fn enter(st: &State, prof: &mut Prof, l: Launch) {
    let t0 = Instant::now();
    let called = if st.cfg.gpu { activity::timestamp(st.lib).unwrap_or(0) } else { 0 };
    let name = prof.names.entry(l.symbol.clone()).or_insert_with(|| kernel_name(&l.symbol)).clone();
    let invocation = {
        let n = prof.invocations.entry(name.base.clone()).or_insert(0);
        *n += 1;
        *n
    };
    let device = match prof.contexts.get(&l.context) {
        Some(c) => c.device,
        None => {
            // A context CUPTI did not announce (created before the injection): learn it now.
            prof.contexts.insert(
                l.context,
                Ctx { id: l.context_id, device: 0, session: None, started: false, window: Vec::new() },
            );
            0
        }
    };
    let device_ok = st.cfg.devices.as_ref().is_none_or(|d| d.contains(&device));
    let key = Selectable { context: l.context_id, stream: l.stream, base: &name.base, mangled: &l.symbol, invocation };
    if !(device_ok && prof.filter.select(&key)) {
        close(st, prof, l.context);
        return;
    }
    if let Some(a) = prof.active.filter(|a| *a != l.context) {
        close(st, prof, a);
    }
    let t_setup = Instant::now();
    if let Err(e) = ensure_session(st, prof, l.context, device) {
        prof.disabled = true;
        return st.error(e);
    }
    prof.timing.setup += t_setup.elapsed();
    let Some(ctx) = prof.contexts.get_mut(&l.context) else { return };
    if !ctx.started {
        let started = ctx.session.as_mut().map(|s| s.start());
        if let Some(Err(e)) = started {
            prof.disabled = true;
            return st.error(e.to_string());
        }
        ctx.started = true;
        prof.active = Some(l.context);
    }
    let Some(ctx) = prof.contexts.get_mut(&l.context) else { return };
    ctx.window.push(Pending {
        name,
        grid: l.grid,
        block: l.block,
        smem: l.dynamic_smem,
        stream: l.stream,
        correlation: l.correlation,
        invocation,
        context: l.context_id,
        device,
        called,
    });
    prof.timing.launches += 1;
    prof.timing.enter += t0.elapsed();
    prof.timing.entered = Some(Instant::now());
}

fn exit(st: &State, prof: &mut Prof, l: Launch) {
    if let Some(t) = prof.timing.entered.take() {
        prof.timing.launch += t.elapsed();
    }
    let Some(ctx) = prof.contexts.get_mut(&l.context) else { return };
    if !ctx.started {
        return;
    }
    // A launch the driver refused ran no kernel, so it has no range.
    if l.result.is_some_and(|r| r != 0) && ctx.window.last().is_some_and(|p| p.correlation == l.correlation) {
        ctx.window.pop();
    }
    let full = ctx.session.as_ref().is_some_and(|s| ctx.window.len() >= s.max_ranges());
    if full || prof.filter.exhausted() {
        close(st, prof, l.context);
    }
}

/// Creates the context's session on first use (and, under application replay, decides this run's
/// group of counters).
fn ensure_session(st: &State, prof: &mut Prof, context: Context, device: u32) -> Result<(), String> {
    if prof.contexts.get(&context).is_some_and(|c| c.session.is_some()) {
        return Ok(());
    }
    if prof.counters.is_none() {
        let mut all = st.counters.names();
        if split_rates() {
            all = split(&all);
        }
        if st.cfg.gpu && !all.iter().any(|c| c == DURATION) {
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
    let mut session = match Session::with_ranges(st.lib, context.raw(), device as usize, &counters, st.cfg.ranges) {
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
            st.notice(format!("not available on device {device} and left out: {}", bad.join(", ")));
            counters.retain(|c| !bad.contains(c));
            prof.counters = Some(counters.clone());
            Session::with_ranges(st.lib, context.raw(), device as usize, &counters, st.cfg.ranges)
                .map_err(|e| e.to_string())?
        }
    };
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
fn close(st: &State, prof: &mut Prof, context: Context) {
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
    let Some(session) = ctx.session.as_mut() else { return };
    let t = Instant::now();
    let stopped = session.stop();
    let t_stop = t.elapsed();
    let decoded = stopped.and_then(|done| Ok((done, session.decode()?)));
    let t_decode = t.elapsed() - t_stop;
    let decoded = decoded.and_then(|r| {
        session.configure(replay)?;
        Ok(r)
    });
    prof.timing.windows += 1;
    prof.timing.stop += t_stop;
    prof.timing.decode += t_decode;
    prof.timing.reconfigure += t.elapsed() - t_stop - t_decode;
    match decoded {
        Ok((done, ranges)) => {
            if !done {
                st.notice("not every replay pass was collected; these launches' metrics are left out".into());
            } else if ranges.len() != window.len() {
                st.notice(format!(
                    "CUPTI returned {} ranges for {} profiled launches on context {}; their metrics are left out",
                    ranges.len(),
                    window.len(),
                    ctx.id
                ));
            } else {
                let msgs: Vec<Message> = window
                    .iter()
                    .zip(ranges)
                    .map(|(p, values)| Message::Record(Box::new(profiled_record(st, p, &counters, &values))))
                    .collect();
                st.emit(&msgs);
            }
        }
        Err(e) => {
            prof.disabled = true;
            st.error(e.to_string());
        }
    }
}

/// A profiled launch's record: the metrics and events whose counters this run collected.
/// Whether `.per_second` counters are collected as their count and `gpu__time_duration.sum`, and divided
/// here (`WARPSCOPE_NVPROF_RATES=split`): the same value by Nsight Compute's definition of a rate, an
/// experiment on where the cost of rate counters lies (docs/PERF-NOTES.md).
fn split_rates() -> bool {
    std::env::var("WARPSCOPE_NVPROF_RATES").is_ok_and(|v| v == "split")
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
        trace: Some(Trace {
            kind: ActivityKind::Kernel,
            name: p.name.full.clone(),
            pid: st.pid,
            start_ns: duration.map(|_| st.since_launch(p.called)),
            duration_ns: duration.map(|ns| ns.round() as u64),
            context: p.context,
            stream: p.stream,
            correlation: p.correlation,
            invocation: Some(p.invocation),
            dynamic_smem: Some(p.smem),
            ..Trace::default()
        }),
        ..Record::new(&p.name.base, "", d(p.grid), d(p.block), Status::Ok)
    }
}

const COPY_KINDS: [&str; 11] = ["", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"];
const MEMORY_KINDS: [&str; 8] =
    ["Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static"];

fn memory_kind(k: u32) -> String {
    MEMORY_KINDS.get(k as usize).copied().unwrap_or("Unknown").to_string()
}

/// A GPU activity's record: `name`, timed and placed by `span`, with `t`'s details.
fn activity_record(st: &State, kind: ActivityKind, name: KernelName, span: &activity::Span, t: Trace) -> Record {
    let duration = span.end.saturating_sub(span.start);
    Record {
        time_ms: TimeStats::from_samples(&[duration as f64 / 1e6]).map(|mut s| {
            s.samples.clear();
            s
        }),
        device: Some(span.device),
        trace: Some(Trace {
            kind,
            name: name.full,
            pid: st.pid,
            start_ns: Some(st.since_launch(span.start)),
            duration_ns: Some(duration),
            context: span.context,
            stream: span.stream,
            correlation: span.correlation,
            ..t
        }),
        ..Record::new(&name.base, "", Dim3::new(0, 0, 0), Dim3::new(0, 0, 0), Status::Ok)
    }
}

/// A name that is not a kernel's (`[CUDA memset]`).
fn plain(name: String) -> KernelName {
    KernelName { full: name.clone(), base: name }
}

fn on_activity(records: Vec<activity::Record>, dropped: usize) {
    let Some(st) = STATE.get() else { return };
    let mut act = lock(&st.act);
    act.dropped += dropped as u64;
    let mut msgs = Vec::new();
    for r in records {
        match r {
            activity::Record::Kernel(k) => {
                let name = act.names.entry(k.name.clone()).or_insert_with(|| kernel_name(&k.name)).clone();
                let t = Trace {
                    registers: Some(k.registers),
                    static_smem: Some(k.static_smem),
                    dynamic_smem: Some(k.dynamic_smem),
                    ..Trace::default()
                };
                let mut rec = activity_record(st, ActivityKind::Kernel, name, &k.span, t);
                rec.grid = Dim3::new(k.grid[0], k.grid[1], k.grid[2]);
                rec.block = Dim3::new(k.block[0], k.block[1], k.block[2]);
                msgs.push(Message::Record(Box::new(rec)));
            }
            activity::Record::Memcpy(m) => {
                let kind = COPY_KINDS.get(m.copy_kind as usize).copied().filter(|k| !k.is_empty()).unwrap_or("Unknown");
                let t = Trace {
                    bytes: Some(m.bytes),
                    src_kind: Some(memory_kind(m.src_kind.into())),
                    dst_kind: Some(memory_kind(m.dst_kind.into())),
                    ..Trace::default()
                };
                let name = plain(format!("[CUDA memcpy {kind}]"));
                msgs.push(Message::Record(Box::new(activity_record(st, ActivityKind::Memcpy, name, &m.span, t))));
            }
            activity::Record::Memset(m) => {
                let t = Trace {
                    bytes: Some(m.bytes),
                    src_kind: Some(memory_kind(m.memory_kind.into())),
                    ..Trace::default()
                };
                let name = plain("[CUDA memset]".into());
                msgs.push(Message::Record(Box::new(activity_record(st, ActivityKind::Memset, name, &m.span, t))));
            }
            activity::Record::Api(a) => {
                let lib = st.lib;
                let name = act
                    .api_names
                    .entry((a.driver, a.cbid))
                    .or_insert_with(|| api_name(&callback::api_name(lib, a.driver, a.cbid)))
                    .clone();
                let d = a.end.saturating_sub(a.start);
                let e = act.api.entry((a.driver, a.cbid)).or_insert_with(|| ApiCall {
                    name,
                    min_ns: u64::MAX,
                    ..ApiCall::default()
                });
                e.calls += 1;
                e.total_ns += d;
                e.min_ns = e.min_ns.min(d);
                e.max_ns = e.max_ns.max(d);
            }
        }
    }
    drop(act);
    if !msgs.is_empty() {
        st.emit(&msgs);
    }
}

/// CUPTI's function name as nvprof printed it: `cudaMalloc_v3020` -> `cudaMalloc`.
fn api_name(cupti: &str) -> String {
    match cupti.rfind("_v") {
        Some(i) if i > 0 && cupti[i + 2..].chars().all(|c| c.is_ascii_digit()) && cupti.len() > i + 2 => {
            cupti[..i].to_string()
        }
        _ => cupti.to_string(),
    }
}

extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(|| finish(true));
}

/// A lock, or (`wait` false, in a signal handler) `None` when another thread holds it.
fn grab<T>(m: &Mutex<T>, wait: bool) -> Option<MutexGuard<'_, T>> {
    if wait {
        return Some(lock(m));
    }
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// At exit (or on a fatal signal, `wait` false): decode open windows, flush activity, report API calls
/// and the end. Runs once.
fn finish(wait: bool) {
    let Some(st) = STATE.get() else { return };
    if FINISHED.swap(true, Ordering::SeqCst) {
        return;
    }
    if let Some(mut prof) = grab(&st.prof, wait) {
        let contexts: Vec<Context> = prof.contexts.keys().copied().collect();
        for c in contexts {
            close(st, &mut prof, c);
        }
        if wait {
            for c in prof.contexts.values_mut() {
                c.session = None;
            }
        }
        if std::env::var_os("WARPSCOPE_NVPROF_DEBUG").is_some() {
            let t = &prof.timing;
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            st.notice(format!(
                "timing: {} launches in {} windows; setup {:.1} ms, enter {:.1} ms, launch {:.1} ms, stop {:.1} ms, decode {:.1} ms, configure {:.1} ms",
                t.launches,
                t.windows,
                ms(t.setup),
                ms(t.enter),
                ms(t.launch),
                ms(t.stop),
                ms(t.decode),
                ms(t.reconfigure)
            ));
        }
    }
    if st.cfg.gpu || st.cfg.api {
        let _ = activity::flush(st.lib);
    }
    let Some(act) = grab(&st.act, wait) else { return };
    let mut msgs: Vec<Message> = act.api.values().cloned().map(Message::Api).collect();
    msgs.push(Message::End { dropped: act.dropped });
    drop(act);
    if let Some(mut out) = grab(&st.out, wait) {
        write_now(&mut out, &msgs);
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

    #[test]
    fn api_names_lose_cuptis_version_suffix() {
        assert_eq!(api_name("cudaMalloc_v3020"), "cudaMalloc");
        assert_eq!(api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
        assert_eq!(api_name("cuDeviceTotalMem_v2"), "cuDeviceTotalMem");
        assert_eq!(api_name("cuLaunchKernel"), "cuLaunchKernel");
        assert_eq!(api_name("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel_ptsz");
        assert_eq!(api_name("weird_v"), "weird_v");
    }
}
